// RAII owners for the CUDA objects a measurement holds: movable, not copyable, and destructors
// that report (never throw) a failed release.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <utility>

#include "kernels/common/cuda_check.hpp"

namespace warpcost {

class Stream {
 public:
  Stream() { WARPCOST_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  ~Stream() {
    if (stream_ != nullptr) WARPCOST_CUDA_NOTHROW(cudaStreamDestroy(stream_));
  }
  Stream(Stream&& other) noexcept : stream_(std::exchange(other.stream_, nullptr)) {}
  Stream& operator=(Stream&& other) noexcept {
    std::swap(stream_, other.stream_);
    return *this;
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  cudaStream_t get() const noexcept { return stream_; }
  void synchronize() const { WARPCOST_CUDA(cudaStreamSynchronize(stream_)); }

 private:
  cudaStream_t stream_ = nullptr;
};

// Two events bracketing the launch on one stream; elapsed time is read only after the stop event
// completed, never inside the timed region.
class EventPair {
 public:
  EventPair() {
    WARPCOST_CUDA(cudaEventCreate(&start_));
    WARPCOST_CUDA(cudaEventCreate(&stop_));
  }
  ~EventPair() {
    if (start_ != nullptr) WARPCOST_CUDA_NOTHROW(cudaEventDestroy(start_));
    if (stop_ != nullptr) WARPCOST_CUDA_NOTHROW(cudaEventDestroy(stop_));
  }
  EventPair(EventPair&& other) noexcept
      : start_(std::exchange(other.start_, nullptr)), stop_(std::exchange(other.stop_, nullptr)) {}
  EventPair& operator=(EventPair&& other) noexcept {
    std::swap(start_, other.start_);
    std::swap(stop_, other.stop_);
    return *this;
  }
  EventPair(const EventPair&) = delete;
  EventPair& operator=(const EventPair&) = delete;

  void record_start(const Stream& stream) { WARPCOST_CUDA(cudaEventRecord(start_, stream.get())); }
  void record_stop(const Stream& stream) { WARPCOST_CUDA(cudaEventRecord(stop_, stream.get())); }
  double elapsed_seconds() const {
    WARPCOST_CUDA(cudaEventSynchronize(stop_));
    float ms = 0.0f;
    WARPCOST_CUDA(cudaEventElapsedTime(&ms, start_, stop_));
    return static_cast<double>(ms) * 1e-3;
  }

 private:
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
};

template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count) : count_(count) {
    if (count_ != 0) WARPCOST_CUDA(cudaMalloc(reinterpret_cast<void**>(&data_), bytes()));
  }
  ~DeviceBuffer() {
    if (data_ != nullptr) WARPCOST_CUDA_NOTHROW(cudaFree(data_));
  }
  DeviceBuffer(DeviceBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), count_(std::exchange(other.count_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(count_, other.count_);
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  T* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return count_; }
  std::size_t bytes() const noexcept { return count_ * sizeof(T); }

 private:
  T* data_ = nullptr;
  std::size_t count_ = 0;
};

}  // namespace warpcost
