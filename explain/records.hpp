// The records libwarpcost_inject.so writes (one JSON object a line: start, device, launch, error,
// end) read back, and one kernel's launches summed into the counters the cost model prices.
#pragma once

#include <array>
#include <map>
#include <string>
#include <vector>

namespace warpcost::explain {

struct DeviceRecord {
  std::string name;  // "NVIDIA H200"
  std::string chip;  // "GH100"
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  int max_threads_per_sm = 0;
  int warp_size = 0;
  int driver_api = 0;  // cuDriverGetVersion
};

struct LaunchRecord {
  long pid = 0;    // the process that wrote it (0 in records written before pids were)
  long index = 0;  // among that process's matching launches
  std::string name;  // demangled
  std::array<unsigned, 3> grid{}, block{};
  unsigned dynamic_shared_bytes = 0, static_shared_bytes = 0;
  int registers_per_thread = 0;
  int occupancy_blocks_per_sm = 0;
  std::string launch_error;             // empty when the launch succeeded
  std::map<std::string, double> metrics;  // Nsight Compute name -> value (empty on a launch error)
  // The DRAM pass before this launch (metric::kDramPass: one unreplayed pass on the launch of the
  // same kernel and shape before it): that launch's index, or -1 when none ran; where it ran,
  // metrics' DRAM bytes are its own and the replayed range's are kept here.
  long dram_pass_index = -1;
  double dram_pass_seconds = 0;
  double replayed_dram_read_bytes = 0, replayed_dram_write_bytes = 0;
};

// A DRAM pass: a launch profiled with metric::kDramPass alone, in one pass (not replayed).
struct DramPassRecord {
  long pid = 0;
  long index = 0;
  std::string name;
  std::string launch_error;
  bool has_counters = false;  // false: the launch failed or the record holds no counters
  double dram_read_bytes = 0, dram_write_bytes = 0, seconds = 0;
  bool used = false;  // a fully profiled launch took its bytes
  std::string followed_by_error;  // the launch that was to be profiled in full failed with this
};

struct ErrorRecord {
  std::string stage, message;
  int cupti_result = 0;
  std::string advice;  // what to do, when the result means "no counters on this machine"
};

struct Records {
  bool started = false;  // the library initialised and read its settings
  bool ended = false;    // the application exited normally (the library's trailer is there)
  std::vector<DeviceRecord> devices;
  std::vector<LaunchRecord> launches;
  std::vector<DramPassRecord> dram_passes;  // used == false: no full profile followed (launched once)
  std::vector<ErrorRecord> errors;
  long launches_seen = 0, launches_matched = 0;  // summed over the processes' trailers
  bool each_shape = false;  // the library chose the first launch of each shape (--each-shape)
};

// Parses the records file's text. A line that is not a record (a partial last line of a crashed
// application) is skipped and counted in `skipped_lines`; anything else malformed throws
// std::runtime_error naming the line.
Records parse_records(const std::string& text, int* skipped_lines = nullptr);

// One kernel (name and block shape) over its profiled launches: sums of the counted quantities,
// and the ratios averaged with the weight they are rates of (lanes per instruction by instructions,
// warps per SM and issue activity by time).
struct KernelCounters {
  std::string name;
  std::array<unsigned, 3> block{}, grid{};  // grid of the first launch
  int registers_per_thread = 0;
  unsigned shared_bytes_per_block = 0;  // static + dynamic
  // Summarised by shape (--each-shape): the dynamic shared bytes of the shape, part of its key.
  bool by_shape = false;
  unsigned dynamic_shared_bytes = 0;
  // By shape, a shape with no DRAM pass of its own priced at the DRAM passes' bytes a warp of the
  // same kernel and block at other shapes (0: not borrowed).
  long dram_borrowed_passes = 0;
  int occupancy_blocks_per_sm = 0;
  long launches = 0;
  double seconds = 0;  // gpu__time_duration summed
  double inst_executed = 0, thread_inst_executed = 0;
  double lanes_per_inst = 0;  // active lanes per warp instruction (0..32)
  double lanes_pred_on_per_inst = 0;
  double divergent_branch_targets = 0, branch_targets = 0;
  double load_requests = 0, load_sectors = 0, store_requests = 0, store_sectors = 0;
  double load_bytes_asked = 0, store_bytes_asked = 0;
  // DRAM bytes: where some launches had a DRAM pass, their bytes a warp launched times the warps
  // all launches launched (the others' replayed counts left out); else the replayed ranges' sums.
  double dram_read_bytes = 0, dram_write_bytes = 0;
  long dram_pass_launches = 0;  // launches whose DRAM bytes come from a DRAM pass (unreplayed)
  double replayed_dram_read_bytes = 0, replayed_dram_write_bytes = 0;  // those launches' replayed counts
  double dram_pass_seconds = 0;  // those DRAM passes' gpu__time_duration summed
  double warps_active_per_sm = 0;
  double issue_active = 0;  // fraction of cycles a scheduler issued (0..1)
  double long_scoreboard_per_issue = 0;
  double warps_launched = 0;

  double block_threads() const { return static_cast<double>(block[0]) * block[1] * block[2]; }
};

// Groups successful launches by (name, block shape), largest total time first; with `by_shape`
// (a run of --each-shape) by configuration, (name, grid, block, dynamic shared bytes), so a sweep
// is explained configuration by configuration. By block alone, launches of one block at other
// grids are priced with the DRAM pass of the first (its bytes scaled by the warps launched).
std::vector<KernelCounters> summarise(const std::vector<LaunchRecord>& launches, bool by_shape = false);

}  // namespace warpcost::explain
