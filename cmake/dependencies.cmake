# The four libraries warpcost builds against (toml++, header-only, reads the examples files of
# `warpcost check`; docs/worked-examples.md). Installed packages are used first; with
# WARPCOST_FETCH_DEPS=ON a missing one is downloaded at a pinned version (FetchContent, needs
# internet). Otherwise a missing one stops the configure with the Debian package to install, and
# the packages are also written to ${CMAKE_BINARY_DIR}/missing-packages.txt, which ./warpcost reads
# to install them (as root) or to print the one command that does.
option(WARPCOST_FETCH_DEPS "Download pinned nlohmann-json, toml++, Google Benchmark and GoogleTest when not installed" OFF)

set(warpcost_missing_file ${CMAKE_BINARY_DIR}/missing-packages.txt)
file(REMOVE ${warpcost_missing_file})

# toml++ is used header-only (its default), through an INTERFACE target of our own: Debian's
# package config imports its shared library (TOML_HEADER_ONLY=0), which the GPU machine, given only
# the -dev package unpacked into .deps/, does not have. SYSTEM: its headers are not ours to warn on.
find_path(WARPCOST_TOMLPLUSPLUS_INCLUDE_DIR toml++/toml.h)
add_library(warpcost_tomlplusplus INTERFACE)

if(WARPCOST_FETCH_DEPS)
  include(FetchContent)
  # FIND_PACKAGE_ARGS: an installed package wins; only a missing one is downloaded.
  FetchContent_Declare(nlohmann_json
    GIT_REPOSITORY https://github.com/nlohmann/json.git
    GIT_TAG v3.11.3
    GIT_SHALLOW TRUE
    FIND_PACKAGE_ARGS 3.10)
  set(BENCHMARK_ENABLE_TESTING OFF CACHE BOOL "" FORCE)
  set(BENCHMARK_ENABLE_GTEST_TESTS OFF CACHE BOOL "" FORCE)
  set(BENCHMARK_ENABLE_INSTALL OFF CACHE BOOL "" FORCE)
  FetchContent_Declare(benchmark
    GIT_REPOSITORY https://github.com/google/benchmark.git
    GIT_TAG v1.8.3
    GIT_SHALLOW TRUE
    FIND_PACKAGE_ARGS)
  set(INSTALL_GTEST OFF CACHE BOOL "" FORCE)
  FetchContent_Declare(googletest
    GIT_REPOSITORY https://github.com/google/googletest.git
    GIT_TAG v1.14.0
    GIT_SHALLOW TRUE
    FIND_PACKAGE_ARGS NAMES GTest)
  if(NOT WARPCOST_TOMLPLUSPLUS_INCLUDE_DIR)
    FetchContent_Declare(tomlplusplus
      GIT_REPOSITORY https://github.com/marzer/tomlplusplus.git
      GIT_TAG v3.3.0
      GIT_SHALLOW TRUE)
    FetchContent_GetProperties(tomlplusplus)
    if(NOT tomlplusplus_POPULATED)
      FetchContent_Populate(tomlplusplus)
    endif()
    set(WARPCOST_TOMLPLUSPLUS_INCLUDE_DIR ${tomlplusplus_SOURCE_DIR}/include CACHE PATH "" FORCE)
  endif()
  target_include_directories(warpcost_tomlplusplus SYSTEM INTERFACE ${WARPCOST_TOMLPLUSPLUS_INCLUDE_DIR})
  set(warpcost_fetched nlohmann_json)
  if(WARPCOST_BUILD_BENCH)
    list(APPEND warpcost_fetched benchmark)
  endif()
  if(WARPCOST_BUILD_TESTS)
    list(APPEND warpcost_fetched googletest)
  endif()
  FetchContent_MakeAvailable(${warpcost_fetched})
  return()
endif()

set(warpcost_missing)
find_package(nlohmann_json 3.10 QUIET)
if(NOT nlohmann_json_FOUND)
  list(APPEND warpcost_missing nlohmann-json3-dev)
endif()
if(WARPCOST_TOMLPLUSPLUS_INCLUDE_DIR)
  target_include_directories(warpcost_tomlplusplus SYSTEM INTERFACE ${WARPCOST_TOMLPLUSPLUS_INCLUDE_DIR})
else()
  list(APPEND warpcost_missing libtomlplusplus-dev)
endif()
if(WARPCOST_BUILD_BENCH)
  find_package(benchmark QUIET)
  if(NOT benchmark_FOUND)
    list(APPEND warpcost_missing libbenchmark-dev)
  endif()
endif()
if(WARPCOST_BUILD_TESTS)
  find_package(GTest QUIET)
  if(NOT GTest_FOUND)
    list(APPEND warpcost_missing libgtest-dev)
  endif()
endif()
if(warpcost_missing)
  list(JOIN warpcost_missing " " warpcost_missing_text)
  file(WRITE ${warpcost_missing_file} "${warpcost_missing_text}\n")
  message(FATAL_ERROR
    "warpcost: missing packages: ${warpcost_missing_text}\n"
    "Install them (Debian/Ubuntu): sudo apt-get install -y ${warpcost_missing_text}\n"
    "or configure with -DWARPCOST_FETCH_DEPS=ON to download pinned versions (needs internet).")
endif()
