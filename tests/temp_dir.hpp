// A temporary folder of this process's own (mkdtemp: a unique name, so two checkouts running their
// tests at once on one machine never share one), removed with everything in it when it goes.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <system_error>

namespace warpcost::test_support {

class TempDir {
 public:
  // `/tmp/warpcost-<label>-XXXXXX`.
  explicit TempDir(const std::string& label = "test") {
    std::string pattern = (std::filesystem::temp_directory_path() / ("warpcost-" + label + "-XXXXXX")).string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp " + pattern + " failed");
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace warpcost::test_support
