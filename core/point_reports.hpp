// What each single-point tool measured, as data: the tool fills one of these and prints it with
// --json (one JSON object on stdout), and `warpcost check --measure` reads it back, so a console
// table is never a data format (issue 32). One struct per tool mode; the JSON keys are the field
// names. Host-only; nlohmann/json stays inside point_reports.cpp.
//
// Reading (*_from_json) takes the tool's whole stdout (a line on stderr around the object is
// skipped: the text from the first '{' to the last '}') and throws std::runtime_error naming the
// tool and the key that is missing or of the wrong type.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace warpcost::reports {

// The device every report starts with.
struct Gpu {
  std::string name;
  int sm_count = 0;
  int cc_major = 0, cc_minor = 0;
};

// warpcost-diverge: one configuration beside its uniform reference (every lane on the first path).
struct DivergeReport {
  Gpu gpu;
  std::string shape;  // if_else, switch, nested, switch_cases
  std::vector<std::string> args;  // the command line after the tool's name, without --json
  int warps_per_sm = 0;
  double clock_hz = 0;
  double warp_cycles = 0;             // median over the grid's warps, this configuration
  double grid_seconds = 0;            // median of the timed launches
  double reference_warp_cycles = 0;   // the uniform reference's
  double reference_grid_seconds = 0;
  double model_slowdown = 0;
  std::string model_from;             // how model_slowdown was formed, in words
  bool paths_measured = false;        // model_slowdown from each path's own uniformly measured cycles
  double warp_slowdown() const { return warp_cycles / reference_warp_cycles; }
  double grid_slowdown() const { return grid_seconds / reference_grid_seconds; }
};

// warpcost-coalesce: one point of the coalescing family, its output checked against the host replay.
struct CoalesceReport {
  Gpu gpu;
  std::string benchmark;                 // the family's benchmark name (load_dram, block_2d, ...)
  std::vector<std::string> arg_names;    // the benchmark's own arguments, as in the suite's names
  std::vector<long long> arg_values;
  int elem_bytes = 4;
  int image_width = 0, image_height = 0;  // block_2d only
  double median_seconds = 0;
  double model_sectors_per_request = 0;
  std::uint64_t warp_requests = 0;
  std::uint64_t useful_bytes = 0;
  double useful_bytes_per_s() const { return static_cast<double>(useful_bytes) / median_seconds; }
};

// warpcost-stream read: the persistent stream at an exact residency.
struct StreamReadReport {
  Gpu gpu;
  int max_warps_per_sm = 0;
  double dram_peak_bytes_per_s = 0;
  std::string use;  // independent or dependent
  int load_bytes = 0;
  int alu_per_load = 0;
  bool run_time_alu = false;  // the run-time-W kernel (a loop of FFMAs), not an unrolled one
  int warps_per_sm = 0;
  int blocks_per_sm = 0;
  int warps_per_block = 0;
  long long shared_bytes = 0;
  double median_seconds = 0;
  std::uint64_t bytes_read = 0;
  double loaded_latency_cycles = 0;
  // --counters: "counted" (one profiled launch after the timed ones), "unavailable: <why>", or
  // "not asked"; the two counts are 0 unless counted.
  std::string counters = "not asked";
  double instructions_per_iteration = 0;  // smsp__inst_executed.sum / (thread loads / 32)
  double ffma_per_load = 0;               // thread FFMAs (pred on) / thread loads
  double bytes_per_s() const { return static_cast<double>(bytes_read) / median_seconds; }
};

// warpcost-stream one-per-thread: one 16-byte load a thread, blocks of threads_per_block.
struct StreamOnePerThreadReport {
  Gpu gpu;
  double dram_peak_bytes_per_s = 0;
  int threads_per_block = 0;
  std::uint64_t blocks = 0;
  int resident_blocks_per_sm = 0;
  int resident_warps_per_sm = 0;
  double median_seconds = 0;
  std::uint64_t bytes_read = 0;
  bool load = true;  // false: --no-load, the block-turnover grid (reads nothing)
  double bytes_per_s() const { return static_cast<double>(bytes_read) / median_seconds; }
  // ns an SM spends a block: the turnover, with --no-load.
  double block_ns_per_sm() const { return blocks == 0 ? 0.0 : 1e9 * median_seconds * gpu.sm_count / static_cast<double>(blocks); }
};

// warpcost-stream chase: one thread's dependent loads round a ring of nodes.
struct StreamChaseReport {
  Gpu gpu;
  std::string order;  // random or stride
  std::uint64_t footprint_bytes = 0;
  std::uint64_t nodes = 0;
  std::uint64_t warm_steps = 0;
  std::uint64_t steps = 0;
  long long cycles = 0;        // clock64() over the timed steps
  std::uint64_t ns = 0;        // %globaltimer over the timed steps
  double cycles_per_load() const { return static_cast<double>(cycles) / static_cast<double>(steps); }
  double ns_per_load() const { return static_cast<double>(ns) / static_cast<double>(steps); }
};

// warpcost-primitives latency or throughput: one primitive at one lane count and mask.
struct PrimitiveReport {
  Gpu gpu;
  std::string mode;  // latency or throughput
  std::string primitive;
  int lanes = 32;
  std::uint32_t mask_a = 0, mask_b = 0;  // mask_b != 0: the divergent sides' second mask
  unsigned int ops = 0;
  int launches = 0;
  int warps_per_sm = 0;           // throughput only
  double median = 0;              // cycles an op (latency) or warp-ops a cycle an SM (throughput)
};

// warpcost-primitives facts: inside a branch of one block, what each warp's lanes see.
struct MaskFactsReport {
  Gpu gpu;
  int threads = 0;
  int split = 0;           // lanes below it take the branch
  bool full_mask = false;  // the shuffle after it used 0xffffffff (else the active mask)
  struct Warp {
    int warp = 0;
    std::uint32_t activemask = 0;  // __activemask() inside the branch, lane 0's
    std::uint32_t ballot = 0;      // the ballot of the lanes there
  };
  std::vector<Warp> warps;
  int last_lane = 0;                 // the block's last thread's lane
  std::uint32_t last_shuffle = 0;    // what it read shuffling from lane 0
};

// warpcost-record X Y Z: one block's warps and (always in JSON) every thread.
struct RecordReport {
  Gpu gpu;
  std::array<long long, 3> block{1, 1, 1};
  struct Warp {
    long long warp = 0;
    int lanes = 0;
    std::uint32_t mask = 0;
    long long cycles = 0;
    unsigned int smid = 0;
  };
  struct Thread {
    long long slot = 0;  // the linear index
    bool written = false;
    long long x = 0, y = 0, z = 0;
    unsigned int lane = 0;  // %laneid
    std::uint32_t mask = 0;
  };
  std::vector<Warp> warps;
  std::vector<Thread> threads;
  std::vector<std::string> gate_failures;
  bool gates_passed() const { return gate_failures.empty(); }
};

std::string to_json(const DivergeReport& r);
std::string to_json(const CoalesceReport& r);
std::string to_json(const StreamReadReport& r);
std::string to_json(const StreamOnePerThreadReport& r);
std::string to_json(const StreamChaseReport& r);
std::string to_json(const PrimitiveReport& r);
std::string to_json(const MaskFactsReport& r);
std::string to_json(const RecordReport& r);

DivergeReport diverge_from_json(const std::string& text);
CoalesceReport coalesce_from_json(const std::string& text);
StreamReadReport stream_read_from_json(const std::string& text);
StreamOnePerThreadReport stream_one_per_thread_from_json(const std::string& text);
StreamChaseReport stream_chase_from_json(const std::string& text);
PrimitiveReport primitive_from_json(const std::string& text);
MaskFactsReport mask_facts_from_json(const std::string& text);
RecordReport record_from_json(const std::string& text);

}  // namespace warpcost::reports
