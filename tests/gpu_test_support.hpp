// GPU tests skip, with the reason, where no CUDA device is visible.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "bench/common/device_info.hpp"

#define WARPCOST_REQUIRE_GPU()                                                       \
  do {                                                                               \
    std::string warpcost_why;                                                        \
    if (::warpcost::visible_device_count(warpcost_why) == 0) {                       \
      GTEST_SKIP() << "no CUDA device visible (" << warpcost_why << "); this test " \
                   << "runs on the GPU machine (scripts/gpu-round.sh)";              \
    }                                                                                \
  } while (false)
