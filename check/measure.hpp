// `warpcost check FILE --measure`: each example's own point run by its family's single-point runner
// (warpcost-record, warpcost-diverge, warpcost-coalesce, warpcost-stream, warpcost-primitives in build/<preset>/bench/),
// read back from the runner's --json report (core/point_reports.hpp), and judged with the family's
// rules beside the model and the author's answer. The plan and the judge are pure (tested on reports
// transcribed from the runners' real H200 output, tests/check/fixtures/); only run_plan starts
// processes.
#pragma once

#include <array>
#include <stdexcept>
#include <string>
#include <vector>

#include "check/examples.hpp"
#include "core/point_reports.hpp"
#include "core/run_reader.hpp"

namespace warpcost::examples {

// One runner call: the binary (in the bench build folder, build/<preset>/bench) and its arguments.
struct Invocation {
  std::string runner;  // "warpcost-record"
  std::vector<std::string> args;
};

struct MeasurePlan {
  std::vector<Invocation> calls;  // empty: the GPU cannot answer it, `why_not` says why
  std::string why_not;
};
MeasurePlan plan_measure(const Example& example);

// warpcost-record X Y Z --json, as the judge reads it: per warp its lanes and mask, per linear
// slot the recorded (x,y,z) and %laneid (-1 where the slot was not written).
struct RecordReport {
  bool ok = false;
  bool gates_passed = false;
  std::vector<long long> block;  // (x, y, z) as recorded
  long long warps = 0;
  std::vector<int> lanes;
  std::vector<unsigned> masks;
  std::vector<std::vector<long long>> thread_xyz;
  std::vector<int> thread_lane;
};
RecordReport parse_record(const std::string& text);

// warpcost-record --grid --json: what it recorded and timed (bench/partial_warp/main.cpp).
struct GridReport {
  long long total_threads = 0, block_threads = 0;  // N and B, as the runner read them
  long long blocks = 0, launched_warps = 0, working_warps = 0, working_threads = 0;
  long long last_block_threads = 0, last_block_full_warps = 0, last_block_partial_lanes = 0;
  bool gates_passed = false;
  int schedulers = 4;
  long long tail_threads = 0, tail_warps = 0, full_warps = 0;
  double tail_seconds = 0, full_seconds = 0, floor_seconds = 0, fma_per_thread = 0;
  std::array<double, 2> issue_units{}, tail_issue_seconds{}, full_issue_seconds{};
};
// Throws std::runtime_error naming what is missing when `text` is not the grid mode's JSON.
GridReport parse_grid_json(const std::string& text);

struct MeasuredAnswer {
  std::string example;
  std::string kind;    // the example's kind
  std::string answer;  // the answer's field, or "" for an example the GPU cannot answer
  std::string stated;  // the author's, "" when the example does not state this answer
  std::string model;
  double model_value = 0;
  bool has_gpu = false;
  double gpu = 0;
  std::string unit;
  std::string row_kind;  // check, model or info (docs/verdicts.md)
  std::string verdict;   // passes/fails, holds/fails, info, or "not measured"
  std::string note;      // the rule, or why the GPU cannot answer
};

// The suite run whose measured parameters price the second-order rows of the latency and coalescing
// examples (docs/worked-examples.md, "The second-order column"): the loaded-latency locus (the W = 0
// sweep), r_sat (partial_warp/fma_issue) and R(D) (coalescing's 16-byte points). `run` null: no such
// run, `why_none` says why (the rows are then info and say so).
struct SecondOrderSource {
  const analysis::Run* run = nullptr;
  std::string why_none = "no suite run was given";
};

// The judged rows of one example from its runners' outputs (one output per planned call, in order).
std::vector<MeasuredAnswer> judge_measurement(const Example& example, const MeasurePlan& plan,
                                              const std::vector<std::string>& outputs,
                                              const SecondOrderSource& params = {});

// The second-order share of the cap's rate at N warps/SM (latency examples): the streaming family's
// second-order model (Little's law in bytes at the loaded-latency locus, bounded by the busiest
// scheduler's issue) at N and at the cap, each with its own counted instructions an iteration, T0
// from the stream's own 1-warp/SM rate. Inputs: the reports at N, at the cap and at 1 warp/SM, and
// the parameter run. `how` says what it read. Throws std::runtime_error when an input is missing.
double second_order_fraction_of_cap(const reports::StreamReadReport& at_n, const reports::StreamReadReport& at_cap,
                                    const reports::StreamReadReport& at_one, const analysis::Run& params, std::string& how);

// A markdown table cell of `text`: one line (whitespace runs, newlines included, become one space;
// '|' escaped), cut at a sentence or word boundary to at most about max_chars with " (…)" after.
std::string markdown_cell(const std::string& text, std::size_t max_chars);

// `warpcost check FILE --plan`: per example, the runner calls --measure would make, or why no GPU
// measures it. Needs no GPU.
std::string plan_markdown(const std::vector<Example>& examples, const std::vector<MeasurePlan>& plans);

// A runner that refused its arguments (exit 2, usage): the GPU cannot answer at these parameters.
class RunnerRefused : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Runs every planned call with the binaries under `bench_dir`; throws RunnerRefused when a runner
// refuses its arguments, std::runtime_error naming the call when it fails otherwise.
std::vector<std::string> run_plan(const MeasurePlan& plan, const std::string& bench_dir);

std::string measured_markdown(const std::vector<MeasuredAnswer>& rows, const std::string& gpu);
// Tidy CSV rows under analysis/tidy_csv.hpp's fixed columns, family `examples`.
std::string measured_csv(const std::vector<MeasuredAnswer>& rows, const std::string& run_id, const std::string& utc,
                         const std::string& gpu, const std::string& git_rev);

}  // namespace warpcost::examples
