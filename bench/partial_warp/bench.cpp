// Partial-warp family: the schedule recorder for every shape of the lesson and the worked examples,
// the useful-throughput staircase over block sizes, and the grid tail. Each benchmark states its
// work (threads, blocks, FMAs per thread, occupancy) as counters; the analysis holds it against
// ceil(P/32).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/partial_warp/schema.hpp"
#include "bench/common/bench_support.hpp"
#include "bench/common/plan.hpp"
#include "bench/common/timing.hpp"
#include "bench/partial_warp/runner.hpp"
#include "kernels/partial_warp/kernels.hpp"
#include "core/counters.hpp"

namespace warpcost {
namespace {

// The family's contract (core/partial_warp/schema.hpp): its registrations take names from it.
const schema::FamilyDescriptor& family() { return schema::partial_warp::descriptor(); }
namespace bench_name = schema::partial_warp::benchmark;


constexpr int kWarmupLaunches = 2;
// 512 rounds of 8 FMAs: 4096 FMAs a thread, ~33 us a wave at 64 warps/SM and 2 GHz.
constexpr int kStaircaseIterations = 512;
// Full waves per launch: each launch is waves × SMs × resident blocks, so no wave is partial and
// the time measures lanes, not wave quantisation.
constexpr int kStaircaseWaves = 4;
// A grid-tail launch is one to four blocks, so each thread does more work to stay well above the
// launch cost (runner.hpp: warpcost-record --grid times the same work).
constexpr int kTailIterations = kGridTailIterations;

// Samples the launch (bench_support.hpp) and, between samples and after the last (outside the
// event pairs), reads the SM clock the previous launch's probe threads measured. `mean_hz` is their
// mean over the samples.
template <class Launch>
PointTiming sample_with_clock(const Stream& stream, EventPair& events,
                              const DeviceBuffer<kernels::ClockSample>& clocks, Launch&& launch,
                              double& mean_hz) {
  double sum = 0.0;
  long long launched = 0;
  auto read_previous = [&] {
    if (launched++ == 0) return;
    kernels::ClockSample probes[2];
    WARPCOST_CUDA(cudaMemcpyAsync(probes, clocks.data(), sizeof probes, cudaMemcpyDeviceToHost,
                                  stream.get()));
    stream.synchronize();
    sum += 0.5 * (clock_hz_from_sample(probes[0]) + clock_hz_from_sample(probes[1]));
  };
  PointTiming t = sample_point(stream, events, launch, read_previous);
  read_previous();
  mean_hz = sum / static_cast<double>(launched - 1);
  return t;
}

void schedule(benchmark::State& state) {
  run_guarded(state, [&] {
    const model::BlockShape shape{state.range(0), state.range(1), state.range(2)};
    Stream stream;
    EventPair events;
    const analysis::ScheduleCheck check = record_schedule(bench_device(), shape, stream).check;
    if (!check.gates_passed()) {
      std::string message = "recorder gates failed:";
      for (const auto& f : check.gate_failures) message += " " + f + ";";
      throw std::runtime_error(message);
    }
    DeviceBuffer<kernels::ScheduleSample> slots(static_cast<std::size_t>(check.threads));
    auto launch = [&] {
      kernels::launch_record_schedule(static_cast<unsigned>(shape.x), static_cast<unsigned>(shape.y),
                                      static_cast<unsigned>(shape.z), slots.data(), stream.get());
    };
    // The recorder is one tiny block: its time is launch cost, kept only for completeness.
    const std::string key = benchmark_key(state, family().run_name(bench_name::kSchedule), 3);
    for (auto _ : state) report_point(state, key, sample_point(stream, events, launch));
    // Warps launched by the hardware's own count: ceil(P/32) for the block, beside the recorder's.
    defer_counters(schema::partial_warp::descriptor(), key, [shape, threads = check.threads] {
      auto own_stream = std::make_shared<Stream>();
      auto out = std::make_shared<DeviceBuffer<kernels::ScheduleSample>>(static_cast<std::size_t>(threads));
      auto run = [own_stream, out, shape] {
        kernels::launch_record_schedule(static_cast<unsigned>(shape.x), static_cast<unsigned>(shape.y),
                                        static_cast<unsigned>(shape.z), out->data(), own_stream->get());
      };
      run();
      own_stream->synchronize();
      return std::function<void()>(run);
    });
    state.counters[schema::partial_warp::counter::kThreads] = static_cast<double>(check.threads);
    state.counters[schema::partial_warp::counter::kWarpsObserved] = static_cast<double>(check.warps_observed);
    state.counters[schema::partial_warp::counter::kTailMaskObserved] = static_cast<double>(check.tail_mask_observed);
    state.counters[schema::partial_warp::counter::kThreadsMappedAsModel] = static_cast<double>(check.threads_mapped_as_model);
    state.counters[schema::partial_warp::counter::kWarpsWithOneClock] = static_cast<double>(check.warps_with_one_clock);
    state.counters[schema::partial_warp::counter::kWarpsWithOneSm] = static_cast<double>(check.warps_with_one_sm);
    state.counters[schema::partial_warp::counter::kDistinctSms] = static_cast<double>(check.distinct_sms);
  });
}

// The counter phase's launch of an FMA kernel: its own output and probe buffers.
LaunchFactory fma_counter_launch(std::function<void(float*, kernels::ClockSample*, cudaStream_t)> launch,
                                 unsigned long long outputs) {
  return [launch, outputs] {
    auto own_stream = std::make_shared<Stream>();
    auto out = std::make_shared<DeviceBuffer<float>>(static_cast<std::size_t>(outputs));
    auto clocks = std::make_shared<DeviceBuffer<kernels::ClockSample>>(2);
    auto run = [launch, own_stream, out, clocks] { launch(out->data(), clocks->data(), own_stream->get()); };
    run();
    own_stream->synchronize();
    return std::function<void()>(run);
  };
}

void staircase(benchmark::State& state) {
  run_guarded(state, [&] {
    const auto threads_per_block = static_cast<unsigned int>(state.range(0));
    const DeviceInfo& device = bench_device();
    const std::string problem = block_shape_problem(device, threads_per_block, 1, 1);
    if (!problem.empty()) throw std::invalid_argument(problem);
    const int blocks_per_sm = kernels::fma_blocks_per_sm(threads_per_block);
    if (blocks_per_sm < 1) {
      throw std::runtime_error("no block of " + std::to_string(threads_per_block) +
                               " threads fits on an SM");
    }
    const auto blocks = static_cast<unsigned int>(kStaircaseWaves * device.sm_count * blocks_per_sm);
    const unsigned long long threads = static_cast<unsigned long long>(blocks) * threads_per_block;
    DeviceBuffer<float> out(threads);
    DeviceBuffer<kernels::ClockSample> clocks(2);
    Stream stream;
    EventPair events;
    auto launch = [&] {
      kernels::launch_fma_blocks(blocks, threads_per_block, kStaircaseIterations, out.data(),
                                 clocks.data(), stream.get());
    };
    WARPCOST_CUDA(cudaMemsetAsync(out.data(), 0xFF, out.bytes(), stream.get()));  // NaN poison
    launch();
    check_fma_outputs(out, threads, kStaircaseIterations, stream);

    // Issue-bound and writing 4 bytes per thread once: no L2 flush, the cache plays no part.
    for (int i = 0; i < kWarmupLaunches; ++i) launch();
    double clock_hz = 0.0;
    const std::string key = benchmark_key(state, family().run_name(bench_name::kStaircase), 1);
    for (auto _ : state) report_point(state, key, sample_with_clock(stream, events, clocks, launch, clock_hz));
    defer_counters(schema::partial_warp::descriptor(), key,
                   fma_counter_launch(
                       [blocks, threads_per_block](float* o, kernels::ClockSample* c, cudaStream_t s) {
                         kernels::launch_fma_blocks(blocks, threads_per_block, kStaircaseIterations, o, c, s);
                       },
                       threads));
    state.counters[schema::counter::kSmClockHz] = clock_hz;
    state.counters[schema::counter::kBlocks] = blocks;
    state.counters[schema::counter::kBlocksPerSm] = blocks_per_sm;
    state.counters[schema::partial_warp::counter::kWaves] = kStaircaseWaves;
    state.counters[schema::partial_warp::counter::kUsefulThreads] = static_cast<double>(threads);
    state.counters[schema::partial_warp::counter::kFmaPerThread] = kStaircaseIterations * kernels::kFmaChains;
  });
}

void grid_tail(benchmark::State& state) {
  run_guarded(state, [&] {
    const auto block = static_cast<unsigned int>(state.range(0));
    const auto total = static_cast<unsigned long long>(state.range(1));
    const DeviceInfo& device = bench_device();
    const std::string problem = block_shape_problem(device, block, 1, 1);
    if (!problem.empty()) throw std::invalid_argument(problem);
    const unsigned long long blocks = (total + block - 1) / block;
    if (blocks > static_cast<unsigned long long>(device.sm_count)) {
      throw std::invalid_argument("grid tail: " + std::to_string(blocks) +
                                  " blocks; allowed: at most one block per SM (" +
                                  std::to_string(device.sm_count) + ")");
    }
    const unsigned long long launched = blocks * block;
    Stream stream;
    EventPair events;

    // The tail block's masks after the guard: a written mask is never 0 (its own lane is in it).
    DeviceBuffer<unsigned int> masks(launched);
    WARPCOST_CUDA(cudaMemsetAsync(masks.data(), 0, masks.bytes(), stream.get()));
    kernels::launch_record_tail_masks(total, block, masks.data(), stream.get());
    std::vector<unsigned int> tail(block);
    WARPCOST_CUDA(cudaMemcpyAsync(tail.data(), masks.data() + (blocks - 1) * block,
                                  block * sizeof(unsigned int), cudaMemcpyDeviceToHost, stream.get()));
    stream.synchronize();
    long long active = 0;
    long long full_warps = 0;
    unsigned int last_mask = 0;
    for (unsigned int t = 0; t < block; ++t) {
      if (tail[t] == 0) continue;
      ++active;
      last_mask = tail[t];
      if (t % 32 == 0 && tail[t] == 0xffffffffu) ++full_warps;
    }

    DeviceBuffer<float> out(launched);
    DeviceBuffer<kernels::ClockSample> clocks(2);
    auto launch = [&] {
      kernels::launch_fma_grid(total, block, kTailIterations, out.data(), clocks.data(), stream.get());
    };
    WARPCOST_CUDA(cudaMemsetAsync(out.data(), 0xFF, out.bytes(), stream.get()));
    launch();
    check_fma_outputs(out, total, kTailIterations, stream);
    if (launched > total) {
      std::uint32_t past = 0;
      WARPCOST_CUDA(cudaMemcpyAsync(&past, out.data() + total, sizeof past, cudaMemcpyDeviceToHost,
                                    stream.get()));
      stream.synchronize();
      if (past != 0xFFFFFFFFu) throw std::runtime_error("a thread past the grid's total wrote its slot");
    }
    for (int i = 0; i < kWarmupLaunches; ++i) launch();
    double clock_hz = 0.0;
    const std::string key = benchmark_key(state, family().run_name(bench_name::kGridTail), 2);
    for (auto _ : state) report_point(state, key, sample_with_clock(stream, events, clocks, launch, clock_hz));
    defer_counters(schema::partial_warp::descriptor(), key,
                   fma_counter_launch(
                       [total, block](float* o, kernels::ClockSample* c, cudaStream_t s) {
                         kernels::launch_fma_grid(total, block, kTailIterations, o, c, s);
                       },
                       launched));
    state.counters[schema::counter::kSmClockHz] = clock_hz;
    state.counters[schema::counter::kBlocks] = static_cast<double>(blocks);
    state.counters[schema::partial_warp::counter::kTailActiveThreadsObserved] = static_cast<double>(active);
    state.counters[schema::partial_warp::counter::kTailFullWarpsObserved] = static_cast<double>(full_warps);
    state.counters[schema::partial_warp::counter::kTailLastMaskObserved] = static_cast<double>(last_mask);
    state.counters[schema::partial_warp::counter::kFmaPerThread] = kTailIterations * kernels::kFmaChains;
  });
}

// A parameter of the second-order grid-tail model (docs/models.md): one block of `warps` warps on
// one SM running `trips` rounds of the FMA chains. Two loop lengths at one block size give the
// launch's fixed cost (the intercept) and the cycles a round costs at that many warps a scheduler
// (the slope); the analysis reads them apart and never from the grid tail's own points.
void fma_issue(benchmark::State& state) {
  run_guarded(state, [&] {
    const auto warps = static_cast<unsigned int>(state.range(0));
    const int trips = static_cast<int>(state.range(1));
    const unsigned int block = warps * 32u;
    const DeviceInfo& device = bench_device();
    const std::string problem = block_shape_problem(device, block, 1, 1);
    if (!problem.empty()) throw std::invalid_argument(problem);
    if (trips < 1) throw std::invalid_argument("fma_issue: trips = " + std::to_string(trips) + "; allowed: at least 1");
    Stream stream;
    EventPair events;
    DeviceBuffer<float> out(block);
    DeviceBuffer<kernels::ClockSample> clocks(2);
    auto launch = [&] { kernels::launch_fma_grid(block, block, trips, out.data(), clocks.data(), stream.get()); };
    launch();
    check_fma_outputs(out, block, trips, stream);
    for (int i = 0; i < kWarmupLaunches; ++i) launch();
    double clock_hz = 0.0;
    const std::string key = benchmark_key(state, family().run_name(bench_name::kFmaIssue), 2);
    for (auto _ : state) report_point(state, key, sample_with_clock(stream, events, clocks, launch, clock_hz));
    // The counted instructions give the saturated issue rate the streaming model reads.
    defer_counters(schema::partial_warp::descriptor(), key,
                   fma_counter_launch(
                       [block, trips](float* o, kernels::ClockSample* c, cudaStream_t s) {
                         kernels::launch_fma_grid(block, block, trips, o, c, s);
                       },
                       block));
    state.counters[schema::counter::kSmClockHz] = clock_hz;
    state.counters[schema::counter::kBlocks] = 1;
    state.counters[schema::partial_warp::counter::kFmaPerThread] = static_cast<double>(trips) * kernels::kFmaChains;
  });
}

// The lesson's 1D shapes, the issue's, and every block of the worked examples (Ex 1, 2, 3, 3b, 4,
// 9 and the self-test's 72); a shape with more threads than the device's block cap is not on it.
// The staircase: every P up to 128, then the two sides of each multiple of 32 up to the device's
// block cap, so every step has three points and every P has its next multiple of 32 in the sweep.
// The grid tail: one to four blocks of 256, each on its own SM (a grid of more blocks than the
// device has SMs is not on it): the note's 1000 = 3 x 256 + 232, and single blocks whose warp count
// crosses 1, 2, 4 and 8 warps; every N whose last warp is partial has its whole-warp neighbour
// 32·ceil(N/32) in the sweep.
[[maybe_unused]] const bool planned = plan::add_planner([](plan::Plan& p) {
  const DeviceFacts& d = p.device();
  auto block_problem = [&d](std::int64_t threads) {
    return threads <= d.max_threads_per_block
               ? std::string()
               : std::to_string(threads) + " threads a block; the " + d.label() + " allows at most " +
                     std::to_string(d.max_threads_per_block);
  };
  auto shapes = p.benchmark(family().run_name(bench_name::kSchedule), family().arg_names(bench_name::kSchedule),
                            schedule, benchmark::kMicrosecond);
  for (const auto& [x, y, z] : std::vector<std::array<std::int64_t, 3>>{
           {32, 1, 1}, {33, 1, 1}, {48, 1, 1}, {64, 1, 1}, {100, 1, 1}, {256, 1, 1}, {1023, 1, 1},
           {1024, 1, 1}, {16, 1, 1}, {72, 1, 1}, {48, 4, 1}, {8, 4, 3}, {30, 30, 1}, {32, 8, 1}}) {
    p.add(shapes, {x, y, z}, block_problem(x * y * z));
  }
  auto stairs = p.benchmark(family().run_name(bench_name::kStaircase), family().arg_names(bench_name::kStaircase),
                            staircase, benchmark::kMicrosecond);
  for (int threads = 1; threads <= 128; ++threads) p.add(stairs, {threads}, block_problem(threads));
  for (int k = 5; k <= 32; ++k) {
    for (const int threads : {32 * k - 1, 32 * k, 32 * k + 1}) {
      if (threads > 128 && threads <= 1024) p.add(stairs, {threads}, block_problem(threads));
    }
  }
  auto tail = p.benchmark(family().run_name(bench_name::kGridTail), family().arg_names(bench_name::kGridTail),
                          grid_tail, benchmark::kMicrosecond);
  // The grid tail's model parameters: 1, 2 and 8 warps a scheduler (4, 8 and 32 warps: the tail's
  // blocks hold 1 or 2 a scheduler, 8 is the saturated issue rate the streaming model reads), each
  // at a quarter and at twice the grid tail's loop length.
  auto issue = p.benchmark(family().run_name(bench_name::kFmaIssue), family().arg_names(bench_name::kFmaIssue),
                           fma_issue, benchmark::kMicrosecond);
  for (const std::int64_t warps : {4, 8, 32}) {
    for (const std::int64_t trips : {kFmaIssueShortTrips, kFmaIssueLongTrips}) p.add(issue, {warps, trips}, block_problem(32 * warps));
  }
  for (const std::int64_t total : {1, 31, 32, 33, 64, 65, 96, 128, 129, 160, 232, 256, 769, 800, 1000, 1024}) {
    const std::int64_t blocks = (total + 255) / 256;
    p.add(tail, {256, total},
          blocks <= d.sm_count ? block_problem(256)
                               : std::to_string(blocks) + " blocks, one an SM; the " + d.label() + " has " +
                                     std::to_string(d.sm_count) + " SMs");
  }
});

}  // namespace
}  // namespace warpcost
