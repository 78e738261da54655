#include "bench/partial_warp/runner.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <tuple>
#include <stdexcept>
#include <utility>
#include <vector>

#include "bench/common/sampling.hpp"
#include "bench/common/timing.hpp"
#include "kernels/common/probe_kernels.hpp"
#include "kernels/partial_warp/kernels.hpp"

namespace warpcost {
namespace {

// Slots past the largest block: a write there would land outside any block's range.
constexpr int kGuardSlots = 64;

}  // namespace

std::string block_shape_problem(const DeviceInfo& device, long long x, long long y, long long z) {
  const long long dims[3] = {x, y, z};
  const char* names[3] = {"x", "y", "z"};
  for (int d = 0; d < 3; ++d) {
    if (dims[d] < 1 || dims[d] > device.max_block_dim[d]) {
      return "block " + std::string(names[d]) + " = " + std::to_string(dims[d]) + "; allowed on " +
             device.name + ": 1.." + std::to_string(device.max_block_dim[d]);
    }
  }
  if (x * y * z > device.max_threads_per_block) {
    return "block (" + std::to_string(x) + "," + std::to_string(y) + "," + std::to_string(z) +
           ") has " + std::to_string(x * y * z) + " threads; allowed on " + device.name +
           ": at most " + std::to_string(device.max_threads_per_block);
  }
  return {};
}

RecordedBlock record_schedule(const DeviceInfo& device, const model::BlockShape& shape,
                              const Stream& stream) {
  const std::string problem = block_shape_problem(device, shape.x, shape.y, shape.z);
  if (!problem.empty()) throw std::invalid_argument(problem);
  const std::size_t slot_count = static_cast<std::size_t>(device.max_threads_per_block) + kGuardSlots;
  DeviceBuffer<kernels::ScheduleSample> slots(slot_count);
  WARPCOST_CUDA(cudaMemsetAsync(slots.data(), kernels::kSchedulePoisonByte, slots.bytes(), stream.get()));
  kernels::launch_record_schedule(static_cast<unsigned>(shape.x), static_cast<unsigned>(shape.y),
                                  static_cast<unsigned>(shape.z), slots.data(), stream.get());
  std::vector<kernels::ScheduleSample> raw(slot_count);
  WARPCOST_CUDA(cudaMemcpyAsync(raw.data(), slots.data(), slots.bytes(), cudaMemcpyDeviceToHost,
                                stream.get()));
  stream.synchronize();

  std::vector<unsigned char> poison(sizeof(kernels::ScheduleSample), kernels::kSchedulePoisonByte);
  std::vector<analysis::ThreadRecord> records(slot_count);
  for (std::size_t i = 0; i < slot_count; ++i) {
    const kernels::ScheduleSample& s = raw[i];
    analysis::ThreadRecord& r = records[i];
    r.written = std::memcmp(&s, poison.data(), sizeof s) != 0;
    r.clock = s.clock;
    r.active_mask = s.active_mask;
    r.warp_size = s.warp_size;
    r.smid = s.smid;
    r.lane_id = s.lane_id;
    r.linear = s.linear;
    r.tx = s.tx;
    r.ty = s.ty;
    r.tz = s.tz;
  }
  analysis::ScheduleCheck check = analysis::check_schedule(shape, records, device.warp_size);
  return RecordedBlock{std::move(records), std::move(check)};
}

}  // namespace warpcost

namespace warpcost {

void check_fma_outputs(const DeviceBuffer<float>& out, unsigned long long written_threads, int iterations,
                       const Stream& stream) {
  std::vector<unsigned long long> ids;
  const unsigned long long step = std::max<unsigned long long>(1, written_threads / 1024);
  for (unsigned long long g = 0; g < written_threads; g += step) ids.push_back(g);
  ids.push_back(written_threads - 1);
  for (const unsigned long long g : ids) {
    float got = 0.0f;
    WARPCOST_CUDA(cudaMemcpyAsync(&got, out.data() + g, sizeof got, cudaMemcpyDeviceToHost, stream.get()));
    stream.synchronize();
    const float want = kernels::fma_reference(g, iterations);
    if (!(got == want)) {
      throw std::runtime_error("thread " + std::to_string(g) + " computed " + std::to_string(got) +
                               ", host replay " + std::to_string(want));
    }
  }
}

RecordedGrid record_grid(const DeviceInfo& device, unsigned long long total_threads, unsigned int block_threads,
                         const Stream& stream) {
  const std::string problem = block_shape_problem(device, block_threads, 1, 1);
  if (!problem.empty()) throw std::invalid_argument(problem);
  if (total_threads < 1) throw std::invalid_argument("N = 0 threads; allowed: at least 1");
  const unsigned long long blocks = (total_threads + block_threads - 1) / block_threads;
  const unsigned long long warps_per_block = (block_threads + 31u) / 32u;
  const unsigned long long warp_slots = blocks * warps_per_block;
  const unsigned long long thread_slots = blocks * block_threads;
  DeviceBuffer<unsigned int> warp_masks(warp_slots);
  DeviceBuffer<unsigned int> thread_masks(thread_slots);
  WARPCOST_CUDA(cudaMemsetAsync(warp_masks.data(), 0, warp_masks.bytes(), stream.get()));
  WARPCOST_CUDA(cudaMemsetAsync(thread_masks.data(), 0, thread_masks.bytes(), stream.get()));
  kernels::launch_record_grid(total_threads, block_threads, warp_masks.data(), thread_masks.data(), stream.get());
  std::vector<unsigned int> wm(warp_slots);
  std::vector<unsigned int> tm(thread_slots);
  WARPCOST_CUDA(cudaMemcpyAsync(wm.data(), warp_masks.data(), warp_masks.bytes(), cudaMemcpyDeviceToHost, stream.get()));
  WARPCOST_CUDA(cudaMemcpyAsync(tm.data(), thread_masks.data(), thread_masks.bytes(), cudaMemcpyDeviceToHost, stream.get()));
  stream.synchronize();

  RecordedGrid r;
  auto fail = [&r](const std::string& s) {
    if (r.gate_failures.size() < 8) r.gate_failures.push_back(s);
  };
  for (unsigned long long b = 0; b < blocks; ++b) {
    bool any = false;
    for (unsigned long long w = 0; w < warps_per_block; ++w) {
      const unsigned int m = wm[b * warps_per_block + w];
      if (m == 0) continue;
      any = true;
      ++r.launched_warps;
      r.launched_threads += __builtin_popcount(m);
    }
    r.blocks += any ? 1 : 0;
  }
  const unsigned long long last_start = (blocks - 1) * block_threads;
  for (unsigned long long w = 0; w < warp_slots; ++w) {
    const unsigned long long block = w / warps_per_block;
    const unsigned long long first = block * block_threads + (w % warps_per_block) * 32u;
    const unsigned long long end = std::min<unsigned long long>(first + 32u, (block + 1) * block_threads);
    long long passed = 0;
    unsigned int mask = 0;
    for (unsigned long long t = first; t < end; ++t) {
      const unsigned int m = tm[t];
      if (m == 0) continue;
      const unsigned int own = 1u << ((t - block * block_threads) % 32u);
      if ((m & own) == 0) fail("thread " + std::to_string(t) + "'s mask after the guard lacks its own lane");
      if (t >= total_threads) fail("thread " + std::to_string(t) + " is past N and wrote its slot: the guard did not hold");
      ++passed;
      mask = m;
    }
    if (passed == 0) continue;
    ++r.working_warps;
    r.working_threads += passed;
    if (first >= last_start) {
      r.last_block_threads += passed;
      if (passed == 32 && mask == 0xffffffffu) ++r.last_block_full_warps;
      else r.last_block_partial_lanes = static_cast<int>(passed);
      r.last_mask = mask;
    }
  }
  return r;
}

namespace {

// A 40000-cycle spin (~20 us at 2 GHz) queued before each timed launch, as the suite holds its
// stream (bench_support's hold_stream): the start event and the launch wait behind it on the GPU,
// so the host's few microseconds of submission fall outside the event pair.
constexpr long long kHoldCycles = 40000;

// The median seconds and the noise of one launch, each sample one event-timed launch on a held
// stream, under the suite's default sampling rule (bench/common/sampling.hpp), after the suite's
// two warm-up launches.
template <class Launch>
std::pair<double, double> timed(const Stream& stream, Launch&& launch) {
  for (int i = 0; i < 2; ++i) launch();
  stream.synchronize();
  EventPair events;
  DeviceBuffer<kernels::ClockSample> hold(1);
  const sampling::Rule rule;
  sampling::SampleSet samples;
  const auto start = std::chrono::steady_clock::now();
  for (;;) {
    kernels::launch_clock_probe(hold.data(), kHoldCycles, stream.get());
    samples.add(time_launch(stream, events, launch));
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (sampling::decide(rule, samples, elapsed) != sampling::Stop::kContinue) break;
  }
  return {samples.median(), samples.noise()};
}

}  // namespace

TailTiming time_grid_tail(const DeviceInfo& device, unsigned long long total_threads, unsigned int block_threads,
                          int schedulers_per_sm, const Stream& stream) {
  const std::string problem = block_shape_problem(device, block_threads, 1, 1);
  if (!problem.empty()) throw std::invalid_argument(problem);
  if (schedulers_per_sm < 1) throw std::invalid_argument("schedulers a SM < 1");
  TailTiming t;
  const unsigned long long blocks = (total_threads + block_threads - 1) / block_threads;
  t.tail_threads = static_cast<long long>(total_threads - (blocks - 1) * block_threads);
  t.tail_warps = (t.tail_threads + 31) / 32;
  t.full_warps = (block_threads + 31) / 32;
  t.fma_per_thread = static_cast<double>(kGridTailIterations) * kernels::kFmaChains;
  DeviceBuffer<float> out(block_threads);
  DeviceBuffer<kernels::ClockSample> clocks(2);
  auto one_block = [&](unsigned long long threads, unsigned int block, int iterations) {
    WARPCOST_CUDA(cudaMemsetAsync(out.data(), 0xFF, out.bytes(), stream.get()));  // NaN poison
    kernels::launch_fma_grid(threads, block, iterations, out.data(), clocks.data(), stream.get());
    check_fma_outputs(out, threads, iterations, stream);
    return timed(stream, [&] { kernels::launch_fma_grid(threads, block, iterations, out.data(), clocks.data(), stream.get()); });
  };
  // The tail block: a one-block grid of the last block's threads, in a block of B (its warps past
  // them launch and leave at the guard, as in the grid).
  std::tie(t.tail_seconds, t.tail_noise) = one_block(static_cast<unsigned long long>(t.tail_threads), block_threads, kGridTailIterations);
  std::tie(t.full_seconds, t.full_noise) = one_block(block_threads, block_threads, kGridTailIterations);
  // fma_issue: a block of schedulers·n warps, n = the busiest scheduler's warps of each block.
  auto issue = [&](long long warps, double& short_s, double& long_s) {
    const long long n = (warps + schedulers_per_sm - 1) / schedulers_per_sm;
    const long long threads = 32 * schedulers_per_sm * n;
    const std::string p = block_shape_problem(device, threads, 1, 1);
    if (!p.empty()) throw std::invalid_argument("fma_issue: " + p);
    DeviceBuffer<float> issue_out(static_cast<std::size_t>(threads));
    for (const int trips : {kFmaIssueShortTrips, kFmaIssueLongTrips}) {
      const auto b = static_cast<unsigned int>(threads);
      kernels::launch_fma_grid(b, b, trips, issue_out.data(), clocks.data(), stream.get());
      check_fma_outputs(issue_out, b, trips, stream);
      const double s = timed(stream, [&] { kernels::launch_fma_grid(b, b, trips, issue_out.data(), clocks.data(), stream.get()); }).first;
      (trips == kFmaIssueShortTrips ? short_s : long_s) = s;
    }
  };
  issue(t.tail_warps, t.tail_issue_short, t.tail_issue_long);
  issue(t.full_warps, t.full_issue_short, t.full_issue_long);
  t.floor_seconds = timed(stream, [&] { kernels::launch_empty(1, 1, stream.get()); }).first;
  return t;
}

}  // namespace warpcost
