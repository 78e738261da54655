# The revision recorded in every run's JSON context, fixed at configure time. WARPCOST_GIT_REV in
# the environment wins: a copy of the tree (the GPU machine gets one) may carry no .git, or one
# from another commit than the files it holds.
if(DEFINED ENV{WARPCOST_GIT_REV})
  set(WARPCOST_GIT_REVISION "$ENV{WARPCOST_GIT_REV}" CACHE INTERNAL "warpcost revision at configure time")
  message(STATUS "warpcost revision: ${WARPCOST_GIT_REVISION} (from WARPCOST_GIT_REV)")
  return()
endif()
execute_process(
  COMMAND git -C ${PROJECT_SOURCE_DIR} rev-parse --short=12 HEAD
  RESULT_VARIABLE warpcost_git_rc OUTPUT_VARIABLE warpcost_git_rev
  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(warpcost_git_rc EQUAL 0)
  execute_process(
    # results/ is the suite's output, not its code: a run's writes there leave the revision plain.
    COMMAND git -C ${PROJECT_SOURCE_DIR} status --porcelain --untracked-files=no -- . ":(exclude)results"
    OUTPUT_VARIABLE warpcost_git_dirty OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(warpcost_git_dirty)
    string(APPEND warpcost_git_rev "-dirty")
  endif()
else()
  set(warpcost_git_rev "unknown")
endif()
set(WARPCOST_GIT_REVISION "${warpcost_git_rev}" CACHE INTERNAL "warpcost revision at configure time")
message(STATUS "warpcost revision: ${WARPCOST_GIT_REVISION}")
