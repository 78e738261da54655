// The negative control of scripts/check-sass.sh: the divergence kernels built with if_else_kernel's
// two paths folded into one (chain<0> with a per-lane trip count). Compiled, never linked or run;
// ctest sass_one_path_build_fails holds its SASS to the path-selecting check and expects a fail.
#define WARPCOST_SASS_ONE_PATH 1
#include "kernels/divergence/kernels.cu"
