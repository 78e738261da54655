// A warpcost-analyze test: a private copy of the fixture runs in a temporary folder, the command
// line driven in-process, and its output captured.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli.hpp"

namespace warpcost::analysis {

class CliTest : public ::testing::Test {
 protected:
  static inline const std::filesystem::path kFixtures = WARPCOST_FIXTURES;

  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = std::filesystem::temp_directory_path() /
           ("warpcost-" + std::string(info->test_suite_name()) + "-" + info->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    std::filesystem::copy(kFixtures / "runs", dir_ / "results",
                          std::filesystem::copy_options::recursive);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  int analyze(const std::vector<std::string>& args) {
    out_.str("");
    err_.str("");
    return analyze_main(args, out_, err_);
  }
  static std::string slurp(const std::filesystem::path& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  // Every regular file under dir_, to prove a failed call wrote nothing.
  std::vector<std::filesystem::path> files() const {
    std::vector<std::filesystem::path> all;
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir_)) {
      if (e.is_regular_file()) all.push_back(e.path());
    }
    std::sort(all.begin(), all.end());
    return all;
  }

  std::filesystem::path dir_;
  std::ostringstream out_;
  std::ostringstream err_;
};

}  // namespace warpcost::analysis
