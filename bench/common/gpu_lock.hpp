// One warpcost run a GPU at a time: an exclusive flock on /tmp/warpcost-gpu-<uuid>.lock, held for
// the process's life, its text naming the run that holds it. A second run on the same GPU waits
// for it or refuses, naming the holder. Processes that are not warpcost are found another way
// (NVML's process list, nvml_clock.hpp).
#pragma once

#include <exception>
#include <string>
#include <utility>

namespace warpcost {

class GpuLock {
 public:
  enum class Mode { kRefuse, kWait };
  // Takes the lock of GPU `uuid` for run `run_id`. Returns normally once held (or when no lock
  // file can be made here: held() is false and why() says so); throws GpuBusy when another run
  // holds it and `mode` is kRefuse.
  GpuLock(const std::string& uuid, const std::string& run_id, Mode mode);
  ~GpuLock();
  GpuLock(const GpuLock&) = delete;
  GpuLock& operator=(const GpuLock&) = delete;
  bool held() const { return fd_ >= 0; }
  const std::string& why() const { return why_; }
  static std::string path_for(const std::string& uuid);

 private:
  int fd_ = -1;
  std::string why_;
};

class GpuBusy : public std::exception {
 public:
  explicit GpuBusy(std::string message) : message_(std::move(message)) {}
  const char* what() const noexcept override { return message_.c_str(); }

 private:
  std::string message_;
};

}  // namespace warpcost
