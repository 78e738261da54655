# The revision recorded in every run's JSON context, fixed at configure time. A copy of the tree
# without .git (the GPU machine gets one) takes it from the WARPCOST_GIT_REV environment variable.
execute_process(
  COMMAND git -C ${PROJECT_SOURCE_DIR} rev-parse --short=12 HEAD
  RESULT_VARIABLE warpcost_git_rc OUTPUT_VARIABLE warpcost_git_rev
  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(warpcost_git_rc EQUAL 0)
  execute_process(
    COMMAND git -C ${PROJECT_SOURCE_DIR} status --porcelain --untracked-files=no
    OUTPUT_VARIABLE warpcost_git_dirty OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(warpcost_git_dirty)
    string(APPEND warpcost_git_rev "-dirty")
  endif()
elseif(DEFINED ENV{WARPCOST_GIT_REV})
  set(warpcost_git_rev "$ENV{WARPCOST_GIT_REV}")
else()
  set(warpcost_git_rev "unknown")
endif()
set(WARPCOST_GIT_REVISION "${warpcost_git_rev}" CACHE INTERNAL "warpcost revision at configure time")
message(STATUS "warpcost revision: ${WARPCOST_GIT_REVISION}")
