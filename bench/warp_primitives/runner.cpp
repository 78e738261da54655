#include "bench/warp_primitives/runner.hpp"

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

#include "kernels/common/cuda_check.hpp"

namespace warpcost::warp_primitives {

DeviceFacts primitive_facts(const ::warpcost::DeviceFacts& device) {
  return DeviceFacts{10 * device.cc_major + device.cc_minor, device.sm_count, device.max_warps_per_sm,
                     device.max_threads_per_block, device.max_blocks_per_sm};
}

DeviceFacts primitive_facts(const DeviceInfo& device) { return primitive_facts(::warpcost::facts_of(device)); }

PrimitivesRunner::PrimitivesRunner(const DeviceInfo& device, const Point& point)
    : point_(point), facts_(primitive_facts(device)), shape_(shape_of(point, facts_)) {
  // Every block of the launch must be resident at once: the per-SM spans assume one wave.
  const int fit = kernels::primitive_chain_max_blocks_per_sm(point_.primitive, shape_.chains,
                                                             static_cast<int>(shape_.threads_per_block));
  if (fit < shape_.blocks_per_sm) {
    throw std::invalid_argument("warps/SM = " + std::to_string(point_.warps_per_sm) + " needs " +
                                std::to_string(shape_.blocks_per_sm) + " blocks of " +
                                std::to_string(shape_.threads_per_block) + " threads an SM; " +
                                std::to_string(fit) + " fit (registers or shared memory)");
  }
  const std::size_t threads = static_cast<std::size_t>(shape_.blocks) * shape_.threads_per_block;
  values_ = DeviceBuffer<unsigned long long>(threads * static_cast<std::size_t>(shape_.chains));
  warp_clocks_ = DeviceBuffer<kernels::WarpSideClock>(threads / kWarpSize * 2);
  block_spans_ = DeviceBuffer<kernels::BlockSpan>(shape_.blocks);
  not_on_this_gpu_ = DeviceBuffer<int>(1);
  WARPCOST_CUDA(cudaMemset(not_on_this_gpu_.data(), 0, sizeof(int)));
  args_.mask_a = shape_.mask_a;
  args_.mask_b = shape_.mask_b;
  args_.ops = shape_.ops;
  args_.delta = kDelta;
  args_.seed = kSeed;
  args_.values = values_.data();
  args_.warp_clocks = warp_clocks_.data();
  args_.block_spans = block_spans_.data();
  args_.not_on_this_gpu = not_on_this_gpu_.data();
}

int PrimitivesRunner::body_inst_per_op() const { return info(static_cast<Primitive>(point_.primitive)).body_inst_per_op; }

long long PrimitivesRunner::warps_launched() const {
  return static_cast<long long>(shape_.blocks) * shape_.threads_per_block / kWarpSize;
}

void PrimitivesRunner::launch(const Stream& stream) {
  kernels::launch_primitive_chain(point_.primitive, shape_.chains, args_, shape_.blocks, shape_.threads_per_block,
                                  stream.get());
}

void PrimitivesRunner::check(const Stream& stream) {
  // Clear the clocks first: a side that does not run must read 0 (median_cycles_per_op skips it).
  WARPCOST_CUDA(cudaMemsetAsync(warp_clocks_.data(), 0, warp_clocks_.bytes(), stream.get()));
  WARPCOST_CUDA(cudaMemsetAsync(values_.data(), 0xff, values_.bytes(), stream.get()));
  launch(stream);
  stream.synchronize();
  int missing = 0;
  WARPCOST_CUDA(cudaMemcpy(&missing, not_on_this_gpu_.data(), sizeof missing, cudaMemcpyDeviceToHost));
  if (missing != 0) {
    throw std::runtime_error(std::string(info(static_cast<Primitive>(point_.primitive)).name) +
                             ": not on this GPU (the kernel was built for cc < 8.0)");
  }
  std::vector<unsigned long long> got(values_.size());
  WARPCOST_CUDA(cudaMemcpy(got.data(), values_.data(), values_.bytes(), cudaMemcpyDeviceToHost));
  const std::vector<std::optional<unsigned long long>> want = reference_warp(point_.primitive, shape_);
  const std::size_t per_warp = static_cast<std::size_t>(kWarpSize * shape_.chains);
  const bool activemask = point_.primitive == static_cast<int>(Primitive::kActivemask);
  for (std::size_t i = 0; i < got.size(); ++i) {
    const std::size_t j = i % per_warp;
    const int lane = static_cast<int>(j / static_cast<std::size_t>(shape_.chains));
    const int chain = static_cast<int>(j % static_cast<std::size_t>(shape_.chains));
    const bool runs = (((shape_.mask_a | shape_.mask_b) >> lane) & 1u) != 0;
    if (activemask && runs) {
      if (!reference_activemask_ok(shape_, lane, chain, got[i])) {
        throw std::runtime_error("activemask chain of thread " + std::to_string(i / shape_.chains) +
                                 " changed bits outside its side's mask");
      }
      continue;
    }
    if (!want[j]) continue;
    if (got[i] != *want[j]) {
      throw std::runtime_error(std::string(info(static_cast<Primitive>(point_.primitive)).name) + ": thread " +
                               std::to_string(i / shape_.chains) + " chain " + std::to_string(chain) + " ended at " +
                               std::to_string(got[i]) + ", the host reference at " + std::to_string(*want[j]));
    }
  }
}

double PrimitivesRunner::cycles_per_op(const Stream& stream) {
  stream.synchronize();
  std::vector<kernels::WarpSideClock> clocks(warp_clocks_.size());
  WARPCOST_CUDA(cudaMemcpy(clocks.data(), warp_clocks_.data(), warp_clocks_.bytes(), cudaMemcpyDeviceToHost));
  std::vector<SideRecord> sides;
  sides.reserve(clocks.size());
  for (const auto& c : clocks) sides.push_back({c.start, c.end});
  return median_cycles_per_op(sides, shape_.ops);
}

SmThroughput PrimitivesRunner::throughput(const Stream& stream) {
  stream.synchronize();
  std::vector<kernels::BlockSpan> spans(block_spans_.size());
  WARPCOST_CUDA(cudaMemcpy(spans.data(), block_spans_.data(), block_spans_.bytes(), cudaMemcpyDeviceToHost));
  std::vector<SpanRecord> records;
  for (const auto& s : spans) records.push_back({s.start, s.end, s.smid});
  // Only lanes in a mask run a chain, but a warp-op is the warp's: every warp of the block runs
  // `chains` x `ops` of them.
  const double ops_per_block =
      static_cast<double>(shape_.threads_per_block / kWarpSize) * shape_.chains * static_cast<double>(shape_.ops) *
      (shape_.mask_b != 0 ? 2.0 : 1.0);  // divergent: each side runs its own chains
  return per_sm_throughput(records, ops_per_block);
}

}  // namespace warpcost::warp_primitives
