// A warpcost-analyze test: a private copy of the fixture runs in a temporary folder, the command
// line driven in-process, and its output captured.
#pragma once

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/cli.hpp"

namespace warpcost::analysis {

// A strict RFC 4180 reader: the test's own, so the writer is checked against an independent parser.
inline std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row;
  std::string field;
  bool quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      row.push_back(field);
      field.clear();
    } else if (c == '\n') {
      row.push_back(field);
      field.clear();
      rows.push_back(row);
      row.clear();
    } else {
      field += c;
    }
  }
  EXPECT_FALSE(quoted) << "unterminated quote";
  EXPECT_TRUE(field.empty() && row.empty()) << "last line has no newline";
  return rows;
}

class CliTest : public ::testing::Test {
 protected:
  static inline const std::filesystem::path kFixtures = WARPCOST_FIXTURES;

  // The folder is this process's own: named by its pid, so two builds running the tests at once
  // never share one; a death test's child (gtest's "threadsafe" style re-runs the binary) takes its
  // parent's folder, since the parent checks what the child left there.
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    const bool death_test_child = !GTEST_FLAG_GET(internal_run_death_test).empty();
    const long owner = death_test_child ? static_cast<long>(::getppid()) : static_cast<long>(::getpid());
    dir_ = std::filesystem::temp_directory_path() /
           ("warpcost-" + std::string(info->test_suite_name()) + "-" + info->name() + "-" + std::to_string(owner));
    if (death_test_child) return;
    owns_dir_ = true;
    std::filesystem::remove_all(dir_);  // a crashed earlier process of the same pid
    std::filesystem::create_directories(dir_);
    std::filesystem::copy(kFixtures / "runs", dir_ / "results",
                          std::filesystem::copy_options::recursive);
  }
  void TearDown() override {
    if (owns_dir_) std::filesystem::remove_all(dir_);
  }

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

  bool owns_dir_ = false;
  std::filesystem::path dir_;
  std::ostringstream out_;
  std::ostringstream err_;
};

}  // namespace warpcost::analysis
