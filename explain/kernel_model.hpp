// One model of a kernel's time (docs/explain.md, "The kernel model"; rule EXPLAIN-4): what
// `warpcost explain` re-solves with one input changed to price each view, so costs that interact are
// priced together (a partial warp in a latency-bound kernel costs bytes in flight; short-lived blocks
// at low residency pay their turnover).
//
// An SM is a closed queue of its k resident block slots. A block is a customer: it takes D cycles of
// the SM's block launch and retirement (the suite's block_turnover), I / (schedulers x r_sat) cycles
// of the SM's issue (its warp instructions at the saturated issue rate), and is away for its warps'
// memory rounds, R x Λ(BW) cycles (R = warp loads a warp / loads in flight a round, Λ the
// loaded-latency locus at the DRAM throughput BW), plus U cycles the counters cannot name. The
// throughput X (blocks a cycle an SM) is the mean-value analysis of that network; BW the fixed point
// BW = S f X B (B the DRAM bytes a block) bounded by the locus' ceiling; the time (G / S) / (X f).
//
// Two of the inputs are not counted, and one of them is fitted to the kernel's own measured time
// (the only fitted parameter, re-used unchanged by every re-solve): the loads in flight a round m
// in [1, warp loads a warp] when the kernel has several loads a warp and its time lies between the
// model's with m = 1 and with every load in flight; else m = 1 and U >= 0. U is split at the fit by
// the kernel's share of warps waiting on memory (long-scoreboard stalls): that part scales with the
// sectors a block moves, the rest with the instructions a warp executes. A kernel at the DRAM
// ceiling (its measured DRAM rate at least kDramBoundFraction of the locus' ceiling; EXPLAIN-5) has
// all of U with the DRAM, scaling with the DRAM bytes a block moves (reads, read-backs of partly
// written sectors, attributed writes): a store waits on no scoreboard, so the stall share would
// book its DRAM time to instructions.
//
// EXPLAIN-7 (docs/verdict-changes.md), where the run has a copy locus: a kernel that writes waits on
// its loads between the read locus and the copy locus by its written share (load_wait_cycles), in
// the fit and in every re-solve; and a kernel whose coalesced twin moves fewer DRAM bytes leaves
// part of U's memory part behind in that twin (U near the ceiling is queueing past the locus' top,
// which a twin off the ceiling does not pay; its own wait is its locus' latency). EXPLAIN-8: that
// part is dram_queue_share (0 up to kQueueRampStart of the ceiling, all of it at the ceiling,
// linear between); EXPLAIN-7 dropped all of it at kDramBoundFraction and none under it.
//
// Pure arithmetic of explicit inputs: tests/explain/test_kernel_model.cpp works it by hand.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/streaming/model.hpp"

namespace warpcost::explain {

// EXPLAIN-5: a kernel whose measured DRAM rate is at least this fraction of the locus' ceiling is
// at the DRAM ceiling (its U scales with DRAM bytes).
inline constexpr double kDramBoundFraction = 0.95;
// EXPLAIN-8: the measured DRAM rate, as a fraction of the locus' ceiling, from which a coalesced
// twin starts to leave U's memory part behind.
inline constexpr double kQueueRampStart = 0.8;

// The GPU's measured parameters (from its suite run, explain/figures.hpp).
struct ModelParameters {
  int sms = 0;
  int schedulers_per_sm = 0;
  double clock_hz = 0;
  double issue_rate = 0;  // r_sat, warp instructions a cycle a scheduler
  model::streaming::Locus locus;
  // Cycles an SM spends a block without its work, by block threads (the block_turnover sweep);
  // empty when the run has none (then D = 0 and the turnover view says so).
  std::vector<std::pair<double, double>> turnover_by_threads;
  int max_blocks_per_sm = 0;
  int max_warps_per_sm = 0;
  // EXPLAIN-7: the copy locus Λ_c (the streaming copy_independent sweep: a load's wait against the
  // read + write DRAM rate); empty (no points) when the run has none, and then EXPLAIN-5's pricing
  // stands unchanged.
  model::streaming::Locus copy_locus;
};


// D for a block of `threads`: linear between the sweep's points, the end value beyond; 0 if none.
double turnover_cycles_at(const ModelParameters& p, double threads);

// One launch of a kernel, as the model sees it (per launch, from the counters).
struct KernelInputs {
  double blocks = 0;            // G
  double block_threads = 0;     // P
  double warps_per_block = 0;   // w = ceil(P / 32)
  double resident_blocks = 0;   // k: min(occupancy, G / S), blocks an SM holds at once
  double inst_per_block = 0;    // warp instructions
  double inst_per_warp = 0;
  double loads_per_warp = 0;    // warp load requests a warp
  double dram_bytes_per_block = 0;  // read + attributed write
  double asked_bytes_per_block = 0; // loads' and stores' bytes asked
  double written_bytes_per_block = 0;       // the attributed DRAM writes (part of dram_bytes_per_block)
  double asked_store_bytes_per_block = 0;   // the stores' bytes asked (part of asked_bytes_per_block)
  double sectors_per_block = 0;     // load + store sectors
  double serialised = 0;            // 1 - lane efficiency where branches diverged, else 0
  double memory_stall_share = 0;    // warps waiting on memory (long scoreboard) / warps resident
  double seconds = 0;               // measured, one launch
};

// EXPLAIN-7: the cycles a load of a kernel waits at the DRAM rate `bandwidth`: the read locus' Λ(BW),
// moved towards the copy locus' by the kernel's written share s = min(1, written / read DRAM bytes)
// (s = 1 when it reads none); Λ(BW) alone without a copy locus or written bytes.
double load_wait_cycles(const KernelInputs& in, const ModelParameters& p, double bandwidth);

// EXPLAIN-8: the share of U's memory part a coalesced twin leaves behind, from the kernel's measured
// DRAM rate ρ (its DRAM bytes over its measured time) against the locus' ceiling: (ρ −
// kQueueRampStart) / (1 − kQueueRampStart), clamped to [0, 1]; 0 without a measured time.
double dram_queue_share(const KernelInputs& in, const ModelParameters& p);

// The model's state of one kernel: its inputs and the two uncounted ones.
struct ModelKernel {
  KernelInputs in;
  double loads_in_flight = 1;   // m
  double unexplained_memory_cycles = 0;  // U's part that scales with sectors
  double unexplained_issue_cycles = 0;   // U's part that scales with instructions a warp
  double fit_sectors_per_block = 0;      // the fit's sectors and instructions, U's reference
  double fit_inst_per_warp = 0;
  // At the DRAM ceiling (EXPLAIN-5): the fit's DRAM bytes a block, U's reference; 0 elsewhere (U's
  // memory part then scales with sectors).
  double fit_dram_bytes_per_block = 0;
};

struct ModelSolution {
  double seconds = 0;
  double bandwidth = 0;       // B/s at the fixed point
  double block_cycles = 0;    // 1 / X
  double loaded_cycles = 0;   // Λ(BW)
  bool at_ceiling = false;
};

// How the uncounted inputs were set (a quantity of every view): "loads in flight" (m fitted),
// "unexplained cycles" (U fitted), "model slower than measured" (m at its largest, U = 0: the
// model cannot reach the measured time; speedups are ratios of model times).
struct ModelFit {
  ModelKernel kernel;
  std::string how;
  ModelSolution at_fit;  // the model's time with the fitted inputs
};

// Mean-value analysis of a closed network: `customers` (fractional: linear between the whole
// counts around it) cycling through queueing stations with `demands` (cycles each) and a delay
// `delay`; returns customers a cycle (throughput). customers > 0, demands and delay >= 0.
double mva_throughput(double customers, const std::vector<double>& demands, double delay);

// The model's time of `k`. Throws std::invalid_argument naming the value when an input is out of range.
ModelSolution solve_kernel(const ModelKernel& k, const ModelParameters& p);

// Fits m or U to `in.seconds` (see the file comment).
ModelFit fit_kernel(const KernelInputs& in, const ModelParameters& p);

// The re-solves: each returns the kernel with one input changed (docs/explain.md).
enum class Fix { kFullWarps, kConverged, kCoalesced, kFullResidency, kLongLivedBlocks, kAll };
const char* fix_name(Fix f);
ModelKernel with_fix(const ModelKernel& k, Fix f, const ModelParameters& p);
// Blocks an SM of this shape could hold without its occupancy limiter (shared memory, registers):
// min(max blocks, max warps / w); 0 when the run names neither limit.
double full_residency_blocks(const ModelParameters& p, double warps_per_block);

}  // namespace warpcost::explain
