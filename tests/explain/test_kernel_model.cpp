// The kernel model explain re-solves (explain/kernel_model.hpp, EXPLAIN-4, -5 and -7), worked by hand on a
// toy GPU: 2 SMs at 1 GHz, 4 schedulers issuing 1 instruction a cycle, a flat locus of 1000 cycles
// up to a 1e12 B/s ceiling, 32 blocks and 64 warps an SM at most. Its agreement with a second
// implementation on real records is tests/explain/kernel-model-cross-check.sh.
#include <gtest/gtest.h>

#include <stdexcept>

#include "explain/kernel_model.hpp"

namespace warpcost::explain {
namespace {

ModelParameters toy_gpu() {
  ModelParameters p;
  p.sms = 2;
  p.schedulers_per_sm = 4;
  p.clock_hz = 1e9;
  p.issue_rate = 1;
  p.locus = model::streaming::Locus({{1e11, 1000}, {1e12, 1000}});
  p.max_blocks_per_sm = 32;
  p.max_warps_per_sm = 64;
  return p;
}

// 20 blocks of one warp, 2 resident an SM, one load a warp moving 1000 DRAM bytes a block.
ModelKernel toy_kernel() {
  ModelKernel k;
  k.in.blocks = 20;
  k.in.block_threads = 32;
  k.in.warps_per_block = 1;
  k.in.resident_blocks = 2;
  k.in.loads_per_warp = 1;
  k.in.dram_bytes_per_block = 1000;
  k.in.asked_bytes_per_block = 1000;
  k.in.sectors_per_block = 32;
  return k;
}

TEST(KernelModel, MeanValueAnalysisByHand) {
  // One customer: 1 / (demand + delay). Two, demand 1, delay 1: n=1 R=1 X=1/2 Q=1/2; n=2 R=1.5
  // X=2/2.5=0.8. 1.5 customers: halfway, 0.65. No demand at all: n / delay.
  EXPECT_DOUBLE_EQ(mva_throughput(1, {1}, 1), 0.5);
  EXPECT_DOUBLE_EQ(mva_throughput(2, {1}, 1), 0.8);
  EXPECT_DOUBLE_EQ(mva_throughput(1.5, {1}, 1), 0.65);
  EXPECT_DOUBLE_EQ(mva_throughput(2, {0, 0}, 1000), 0.002);
  EXPECT_THROW(mva_throughput(0, {1}, 1), std::invalid_argument);
  EXPECT_THROW(mva_throughput(1, {1}, -1), std::invalid_argument);
}

TEST(KernelModel, LatencyBoundTimeByHand) {
  // X = 2 / 1000 blocks a cycle an SM; 10 blocks an SM: 10 / (0.002 x 1e9) = 5 us; BW = 2 x 1e9 x
  // 0.002 x 1000 = 4e9 B/s, far under the ceiling.
  const ModelSolution s = solve_kernel(toy_kernel(), toy_gpu());
  EXPECT_NEAR(s.seconds, 5e-6, 1e-15);
  EXPECT_NEAR(s.bandwidth, 4e9, 1e3);
  EXPECT_FALSE(s.at_ceiling);
  EXPECT_DOUBLE_EQ(s.loaded_cycles, 1000);
  EXPECT_NEAR(s.block_cycles, 500, 1e-9);
}

TEST(KernelModel, TurnoverIsAStationAtTheSm) {
  // D = 100 cycles at 32 threads, one block resident: X = 1 / (100 + 1000); 10 blocks: 11 us.
  ModelParameters p = toy_gpu();
  p.turnover_by_threads = {{32, 100}, {64, 100}};
  ModelKernel k = toy_kernel();
  k.in.resident_blocks = 1;
  EXPECT_NEAR(solve_kernel(k, p).seconds, 1.1e-5, 1e-15);
  EXPECT_DOUBLE_EQ(turnover_cycles_at(p, 48), 100);
  p.turnover_by_threads = {{32, 100}, {64, 200}};
  EXPECT_DOUBLE_EQ(turnover_cycles_at(p, 48), 150);   // linear between
  EXPECT_DOUBLE_EQ(turnover_cycles_at(p, 1024), 200);  // the end value beyond
  EXPECT_DOUBLE_EQ(turnover_cycles_at(toy_gpu(), 48), 0);  // no sweep: D = 0
}

TEST(KernelModel, TheCeilingBoundsBandwidth) {
  // 1e6 B a block: the fixed point would move 4e12 B/s, past the 1e12 ceiling: 20 x 1e6 B / 1e12 = 20 us.
  ModelKernel k = toy_kernel();
  k.in.dram_bytes_per_block = 1e6;
  const ModelSolution s = solve_kernel(k, toy_gpu());
  EXPECT_TRUE(s.at_ceiling);
  EXPECT_NEAR(s.seconds, 2e-5, 1e-15);
}

TEST(KernelModel, IssueIsAStationToo) {
  // No loads; 4000 warp instructions a block at 4 x 1 a cycle: 1000 cycles of issue, one block
  // resident: X = 1/1000, 10 blocks an SM: 10 us.
  ModelKernel k = toy_kernel();
  k.in.loads_per_warp = 0;
  k.in.dram_bytes_per_block = 0;
  k.in.resident_blocks = 1;
  k.in.inst_per_block = 4000;
  EXPECT_NEAR(solve_kernel(k, toy_gpu()).seconds, 1e-5, 1e-15);
}

TEST(KernelModel, FitsTheUnexplainedCyclesSplitByTheMemoryShare) {
  // Measured 7.5 us: 10 (1000 + U) / 2e9 = 7.5e-6 gives U = 500, half with the sectors.
  KernelInputs in = toy_kernel().in;
  in.seconds = 7.5e-6;
  in.memory_stall_share = 0.5;
  const ModelFit f = fit_kernel(in, toy_gpu());
  EXPECT_EQ(f.how, "unexplained cycles");
  EXPECT_NEAR(f.kernel.unexplained_memory_cycles, 250, 1e-6);
  EXPECT_NEAR(f.kernel.unexplained_issue_cycles, 250, 1e-6);
  EXPECT_NEAR(f.at_fit.seconds, 7.5e-6, 1e-14);
}

// EXPLAIN-5. 400,000 DRAM bytes a block (12,500 sectors), 100,000 asked; a quarter of the warps'
// stalls on the scoreboard. The model with U = 0 is at the 1e12 ceiling: 20 x 4e5 B / 1e12 = 8 us.
// U keeps it there while 2 x 1e9 x 2 / (1000 + U) x 4e5 >= 1e12, i.e. U <= 600; past that
// T = 10 x (1000 + U) / 2e9.
KernelInputs dram_bound_kernel(double seconds) {
  KernelInputs in = toy_kernel().in;
  in.dram_bytes_per_block = 4e5;
  in.asked_bytes_per_block = 1e5;
  in.sectors_per_block = 12500;
  in.memory_stall_share = 0.25;
  in.seconds = seconds;
  return in;
}

TEST(KernelModel, AtTheDramCeilingTheUnexplainedCyclesAreTheDramsAndScaleWithItsBytes) {
  // Measured 8.2 us: 20 x 4e5 B / 8.2e-6 s = 9.756e11 B/s, at least 95 % of the ceiling. 1000 + U =
  // 1640: U = 640, all with the DRAM bytes (the scoreboard share 0.25 is not used).
  const ModelFit f = fit_kernel(dram_bound_kernel(8.2e-6), toy_gpu());
  EXPECT_EQ(f.how, "unexplained cycles");
  EXPECT_NEAR(f.kernel.unexplained_memory_cycles, 640, 1e-6);
  EXPECT_NEAR(f.kernel.unexplained_issue_cycles, 0, 1e-9);
  EXPECT_DOUBLE_EQ(f.kernel.fit_dram_bytes_per_block, 4e5);
  EXPECT_NEAR(f.at_fit.seconds, 8.2e-6, 1e-14);
  // Coalesced: 1e5 DRAM bytes, U = 640 x 1e5 / 4e5 = 160; BW = 2e9 x 2 / 1160 x 1e5 = 3.4e11, under
  // the ceiling: T = 10 x 1160 / 2e9 = 5.8 us, a speedup of 8.2 / 5.8 = 1.4138. EXPLAIN-4's split
  // (0.25 of U with the sectors, a quarter of them left) kept 480 + 40: 7.6 us, 1.079.
  const ModelKernel c = with_fix(f.kernel, Fix::kCoalesced, toy_gpu());
  EXPECT_NEAR(solve_kernel(c, toy_gpu()).seconds, 5.8e-6, 1e-14);
}

// EXPLAIN-7: a copy locus of 1400 cycles at 1e11 B/s rising to 2000 at 1e12.
ModelParameters toy_gpu_with_copy_locus() {
  ModelParameters p = toy_gpu();
  p.copy_locus = model::streaming::Locus({{1e11, 1400}, {1e12, 2000}});
  return p;
}

TEST(KernelModel, AWritingKernelsLoadsWaitBetweenTheReadAndTheCopyLocusByItsWrittenShare) {
  // 1000 DRAM bytes a block, 250 of them written: s = 250 / 750 = 1/3. Under 1e11 the copy locus
  // reads its first point, 1400: 1000 + 400 / 3. At 5.5e11 it reads 1400 + 600 x 4.5/9 = 1700:
  // 1000 + 700 / 3. Written 600 of 1000: s = min(1, 600/400) = 1, the copy locus itself. Nothing
  // written, or no copy locus in the run: the read locus alone.
  KernelInputs in = toy_kernel().in;
  in.written_bytes_per_block = 250;
  EXPECT_NEAR(load_wait_cycles(in, toy_gpu_with_copy_locus(), 4e9), 1000 + 400.0 / 3, 1e-9);
  EXPECT_NEAR(load_wait_cycles(in, toy_gpu_with_copy_locus(), 5.5e11), 1000 + 700.0 / 3, 1e-9);
  EXPECT_DOUBLE_EQ(load_wait_cycles(in, toy_gpu(), 5.5e11), 1000);
  in.written_bytes_per_block = 600;
  EXPECT_DOUBLE_EQ(load_wait_cycles(in, toy_gpu_with_copy_locus(), 4e9), 1400);
  in.written_bytes_per_block = 1000;  // reads nothing: s = 1
  EXPECT_DOUBLE_EQ(load_wait_cycles(in, toy_gpu_with_copy_locus(), 4e9), 1400);
  in.written_bytes_per_block = 0;
  EXPECT_DOUBLE_EQ(load_wait_cycles(in, toy_gpu_with_copy_locus(), 4e9), 1000);
}

TEST(KernelModel, AWritingKernelIsSolvedAtItsBlendedWait) {
  // Half its 1000 bytes written (s = 1): Z = 1400 at any rate under 1e11; X = 2/1400, BW = 2e9 x
  // 2/1400 x 1000 = 2.857e9: T = 10 x 1400 / 2e9 = 7 us, and the solution's loaded cycles say 1400.
  ModelKernel k = toy_kernel();
  k.in.written_bytes_per_block = 500;
  const ModelSolution s = solve_kernel(k, toy_gpu_with_copy_locus());
  EXPECT_NEAR(s.seconds, 7e-6, 1e-15);
  EXPECT_DOUBLE_EQ(s.loaded_cycles, 1400);
  EXPECT_NEAR(solve_kernel(k, toy_gpu()).seconds, 5e-6, 1e-15);  // without a copy locus: EXPLAIN-5's
}

TEST(KernelModel, ACoalescedTwinLeavesTheQueueingShareOfTheUnexplainedCyclesBehindWithACopyLocus) {
  // EXPLAIN-8. dram_bound_kernel(8.2 us) reads only (no written bytes: its wait is the read
  // locus'), so the fit is EXPLAIN-5's: U = 640, all with the DRAM bytes. Its DRAM rate is 20 x 4e5 B
  // / 8.2 us = 9.7561e11, ρ = 0.97561 of the 1e12 ceiling: the queueing share (ρ − 0.8) / 0.2 =
  // 0.87805 leaves, 640 x 0.12195 = 78.049 stays, and the twin scales it with its DRAM bytes (1e5 /
  // 4e5): 19.512. Z = 1019.512, BW = 2e9 x 2/1019.512 x 1e5 = 3.92e11, under the ceiling: T = 10 x
  // 1019.512 / 2e9 = 5.09756 us (EXPLAIN-7 dropped all of U: 5 us; EXPLAIN-5 alone: 5.8 us).
  const ModelFit f = fit_kernel(dram_bound_kernel(8.2e-6), toy_gpu_with_copy_locus());
  EXPECT_NEAR(f.kernel.unexplained_memory_cycles, 640, 1e-6);
  EXPECT_NEAR(dram_queue_share(f.kernel.in, toy_gpu_with_copy_locus()), (0.975609756097561 - 0.8) / 0.2, 1e-12);
  const ModelKernel c = with_fix(f.kernel, Fix::kCoalesced, toy_gpu_with_copy_locus());
  EXPECT_NEAR(c.unexplained_memory_cycles, 640 * (1 - (0.975609756097561 - 0.8) / 0.2), 1e-6);
  EXPECT_NEAR(solve_kernel(c, toy_gpu_with_copy_locus()).seconds, 10 * (1000 + 19.51219512195122) / 2e9, 1e-14);
  // Every fix at once composes the same coalescing: its time is no longer than the coalesced one's.
  EXPECT_LE(solve_kernel(with_fix(f.kernel, Fix::kAll, toy_gpu_with_copy_locus()), toy_gpu_with_copy_locus()).seconds,
            solve_kernel(c, toy_gpu_with_copy_locus()).seconds + 1e-14);
  // Under EXPLAIN-5's line (8.5 us: ρ = 0.94118, EXPLAIN-4's split, U = 700, 175 of it with the
  // sectors): the share 0.70588 leaves there too, where EXPLAIN-7 kept all of it: 175 x 0.29412 =
  // 51.471 stays, scaled by the twin's sectors (3125 of 12500): 12.868, beside the 525 with the
  // instructions: T = 10 x (1000 + 537.868) / 2e9 = 7.68934 us.
  const ModelFit under = fit_kernel(dram_bound_kernel(8.5e-6), toy_gpu_with_copy_locus());
  EXPECT_EQ(under.kernel.fit_dram_bytes_per_block, 0);
  EXPECT_NEAR(under.kernel.unexplained_memory_cycles, 175, 1e-6);
  const ModelKernel cu = with_fix(under.kernel, Fix::kCoalesced, toy_gpu_with_copy_locus());
  EXPECT_NEAR(cu.unexplained_memory_cycles, 175 * (1 - (0.9411764705882353 - 0.8) / 0.2), 1e-6);
  EXPECT_NEAR(solve_kernel(cu, toy_gpu_with_copy_locus()).seconds, 10 * (1000 + 525 + 12.867647058823529) / 2e9,
              1e-13);
  // At 10.5 us (ρ = 0.7619, under the ramp's start) the twin keeps all of U's memory part; without
  // a copy locus in the run, none of it leaves at any rate (EXPLAIN-5).
  const ModelFit slow = fit_kernel(dram_bound_kernel(10.5e-6), toy_gpu_with_copy_locus());
  EXPECT_DOUBLE_EQ(dram_queue_share(slow.kernel.in, toy_gpu_with_copy_locus()), 0);
  EXPECT_DOUBLE_EQ(with_fix(slow.kernel, Fix::kCoalesced, toy_gpu_with_copy_locus()).unexplained_memory_cycles,
                   slow.kernel.unexplained_memory_cycles);
  const ModelFit plain = fit_kernel(dram_bound_kernel(8.2e-6), toy_gpu());
  EXPECT_DOUBLE_EQ(with_fix(plain.kernel, Fix::kCoalesced, toy_gpu()).unexplained_memory_cycles,
                   plain.kernel.unexplained_memory_cycles);
}

TEST(KernelModel, TheQueueingShareReadsTheSameFromEitherSideOfEXPLAIN5sLine) {
  // The share is (ρ − 0.8) / 0.2: ρ = 0.95 gives 0.75 from either side, ρ at the ceiling or past it
  // 1, no measured time 0.
  KernelInputs in = dram_bound_kernel(8e6 / 0.95 / 1e12);
  EXPECT_NEAR(dram_queue_share(in, toy_gpu()), 0.75, 1e-12);
  in.seconds = 8e-6;
  EXPECT_DOUBLE_EQ(dram_queue_share(in, toy_gpu()), 1);
  in.seconds = 7e-6;
  EXPECT_DOUBLE_EQ(dram_queue_share(in, toy_gpu()), 1);
  in.seconds = 0;
  EXPECT_DOUBLE_EQ(dram_queue_share(in, toy_gpu()), 0);
}

TEST(KernelModel, AtTheCeilingWithNoExcessBytesTheTwinKeepsItsUnexplainedCycles) {
  // At the ceiling with a copy locus, but its DRAM bytes no more than it asks (4e5 asked for 4e5
  // moved): nothing to coalesce, so U's memory part stays (the drop needs B > asked).
  KernelInputs in = dram_bound_kernel(8.2e-6);
  in.asked_bytes_per_block = 4e5;
  const ModelFit f = fit_kernel(in, toy_gpu_with_copy_locus());
  ASSERT_GT(f.kernel.fit_dram_bytes_per_block, 0);
  EXPECT_DOUBLE_EQ(with_fix(f.kernel, Fix::kCoalesced, toy_gpu_with_copy_locus()).unexplained_memory_cycles,
                   f.kernel.unexplained_memory_cycles);
}

TEST(KernelModel, FullWarpsWidenTheWrittenBytesWithTheRest) {
  // 16-thread blocks: full warps do twice the work a block, written bytes and asked stores too.
  ModelKernel k = toy_kernel();
  k.in.block_threads = 16;
  k.in.written_bytes_per_block = 300;
  k.in.asked_store_bytes_per_block = 200;
  const ModelKernel f = with_fix(k, Fix::kFullWarps, toy_gpu_with_copy_locus());
  EXPECT_DOUBLE_EQ(f.in.dram_bytes_per_block, 2000);
  EXPECT_DOUBLE_EQ(f.in.written_bytes_per_block, 600);
  EXPECT_DOUBLE_EQ(f.in.asked_store_bytes_per_block, 400);
}

TEST(KernelModel, TheCoalescedTwinWritesWhatItsStoresAskAndARegridKeepsTheWrittenShare) {
  // 4000 bytes a block, 2000 written for 500 asked by its stores (1000 asked in all): coalesced, it
  // moves 1000 and writes 500 (s = 500/500 = 1). Long-lived blocks (one wave of 2 x 2 blocks for
  // 20) do 5 blocks' work each: 20000 and 10000 bytes, the written share unchanged.
  ModelKernel k = toy_kernel();
  k.in.dram_bytes_per_block = 4000;
  k.in.written_bytes_per_block = 2000;
  k.in.asked_store_bytes_per_block = 500;
  const ModelKernel c = with_fix(k, Fix::kCoalesced, toy_gpu_with_copy_locus());
  EXPECT_DOUBLE_EQ(c.in.dram_bytes_per_block, 1000);
  EXPECT_DOUBLE_EQ(c.in.written_bytes_per_block, 500);
  const ModelKernel l = with_fix(k, Fix::kLongLivedBlocks, toy_gpu_with_copy_locus());
  EXPECT_DOUBLE_EQ(l.in.dram_bytes_per_block, 20000);
  EXPECT_DOUBLE_EQ(l.in.written_bytes_per_block, 10000);
  EXPECT_DOUBLE_EQ(l.in.asked_store_bytes_per_block, 2500);
}

TEST(KernelModel, UnderTheDramCeilingTheScoreboardShareSplitsTheUnexplainedCycles) {
  // Measured 8.5 us: 9.412e11 B/s, under 95 % of the ceiling. 1000 + U = 1700: U = 700, 0.25 of it
  // (175) with the sectors, 525 with the instructions; coalesced: 175 x 3125 / 12500 + 525 = 568.75,
  // T = 10 x 1568.75 / 2e9 = 7.84375 us.
  const ModelFit f = fit_kernel(dram_bound_kernel(8.5e-6), toy_gpu());
  EXPECT_NEAR(f.kernel.unexplained_memory_cycles, 175, 1e-6);
  EXPECT_NEAR(f.kernel.unexplained_issue_cycles, 525, 1e-6);
  EXPECT_DOUBLE_EQ(f.kernel.fit_dram_bytes_per_block, 0);
  const ModelKernel c = with_fix(f.kernel, Fix::kCoalesced, toy_gpu());
  EXPECT_NEAR(solve_kernel(c, toy_gpu()).seconds, 7.84375e-6, 1e-14);
}

TEST(KernelModel, FitsTheLoadsInFlight) {
  // 8 loads a warp: T(m) = 10 (8000 / m) / 2e9 = 4e-5 / m; measured 10 us gives m = 4.
  KernelInputs in = toy_kernel().in;
  in.loads_per_warp = 8;
  in.seconds = 1e-5;
  const ModelFit f = fit_kernel(in, toy_gpu());
  EXPECT_EQ(f.how, "loads in flight");
  EXPECT_NEAR(f.kernel.loads_in_flight, 4, 1e-9);
  EXPECT_DOUBLE_EQ(f.kernel.unexplained_memory_cycles + f.kernel.unexplained_issue_cycles, 0);
}

TEST(KernelModel, AKernelFasterThanTheModelIsSaidSo) {
  KernelInputs in = toy_kernel().in;
  in.seconds = 1e-6;  // the model's fastest is 5 us
  const ModelFit f = fit_kernel(in, toy_gpu());
  EXPECT_EQ(f.how, "model slower than measured");
  EXPECT_NEAR(f.at_fit.seconds, 5e-6, 1e-15);
}

TEST(KernelModel, FullWarpsCarryTwiceTheBytesInFlight) {
  // 16-thread blocks (one half-empty warp): the same threads in 10 blocks of 32, each moving 2000 B
  // at the same latency: 5 / (0.002 x 1e9) = 2.5 us against 5 us: 2x (the issue's latency-bound case).
  ModelKernel k = toy_kernel();
  k.in.block_threads = 16;
  const ModelKernel f = with_fix(k, Fix::kFullWarps, toy_gpu());
  EXPECT_DOUBLE_EQ(f.in.blocks, 10);
  EXPECT_DOUBLE_EQ(f.in.block_threads, 32);
  EXPECT_DOUBLE_EQ(f.in.dram_bytes_per_block, 2000);
  EXPECT_NEAR(solve_kernel(f, toy_gpu()).seconds, 2.5e-6, 1e-15);
  // Whole warps already: nothing changes.
  EXPECT_DOUBLE_EQ(with_fix(toy_kernel(), Fix::kFullWarps, toy_gpu()).in.blocks, 20);
}

TEST(KernelModel, FullResidencyByHand) {
  const ModelParameters p = toy_gpu();
  EXPECT_DOUBLE_EQ(full_residency_blocks(p, 1), 32);   // the block limit
  EXPECT_DOUBLE_EQ(full_residency_blocks(p, 29), 2);   // 64 warps / 29
  // Many waves: 2 -> min(32, G/S = 10) resident: X = 10 / 1000, 10 blocks: 1 us (5x).
  const ModelKernel many = with_fix(toy_kernel(), Fix::kFullResidency, p);
  EXPECT_DOUBLE_EQ(many.in.resident_blocks, 10);
  EXPECT_NEAR(solve_kernel(many, p).seconds, 1e-6, 1e-15);
  // One wave (4 blocks, 2 an SM) of 16 loads a warp: Z = 16000, X = 2/16000, 2 blocks an SM: 16 us.
  // The same work over 32 blocks an SM, each 4/64 of a block's: one load a warp, Z = 1000, X = 32 /
  // 1000; 32 blocks an SM: 1 us (16x).
  ModelKernel one = toy_kernel();
  one.in.blocks = 4;
  one.in.loads_per_warp = 16;
  EXPECT_NEAR(solve_kernel(one, p).seconds, 1.6e-5, 1e-15);
  const ModelKernel spread = with_fix(one, Fix::kFullResidency, p);
  EXPECT_DOUBLE_EQ(spread.in.blocks, 64);
  EXPECT_DOUBLE_EQ(spread.in.loads_per_warp, 1);
  EXPECT_NEAR(solve_kernel(spread, p).seconds, 1e-6, 1e-15);
  // A warp's one load cannot be split: one wave of one load a warp gains no blocks (no fix), and 4
  // loads a warp spread over at most 4x the blocks (16, not 64).
  one.in.loads_per_warp = 1;
  EXPECT_DOUBLE_EQ(with_fix(one, Fix::kFullResidency, p).in.blocks, 4);
  one.in.loads_per_warp = 4;
  const ModelKernel four = with_fix(one, Fix::kFullResidency, p);
  EXPECT_DOUBLE_EQ(four.in.blocks, 16);
  EXPECT_DOUBLE_EQ(four.in.loads_per_warp, 1);
  EXPECT_DOUBLE_EQ(four.in.resident_blocks, 8);
}

TEST(KernelModel, LongLivedBlocksPayTheTurnoverOnce) {
  // D = 100, one block resident, 10 blocks an SM: 11 us. Long-lived: 2 blocks of 10 loads a warp:
  // X = 1 / (100 + 10000), one block an SM: 10.1 us (1.089x).
  ModelParameters p = toy_gpu();
  p.turnover_by_threads = {{32, 100}};
  ModelKernel k = toy_kernel();
  k.in.resident_blocks = 1;
  const ModelKernel f = with_fix(k, Fix::kLongLivedBlocks, p);
  EXPECT_DOUBLE_EQ(f.in.blocks, 2);
  EXPECT_DOUBLE_EQ(f.in.loads_per_warp, 10);
  EXPECT_DOUBLE_EQ(f.loads_in_flight, 1);
  EXPECT_NEAR(solve_kernel(f, p).seconds, 1.01e-5, 1e-15);
  // A grid of one wave has nothing to remove.
  ModelKernel one = k;
  one.in.blocks = 2;
  EXPECT_DOUBLE_EQ(with_fix(one, Fix::kLongLivedBlocks, p).in.blocks, 2);
}

TEST(KernelModel, ConvergedLanesHalveASerialisedIssue) {
  ModelKernel k = toy_kernel();
  k.in.loads_per_warp = 0;
  k.in.dram_bytes_per_block = 0;
  k.in.resident_blocks = 1;
  k.in.inst_per_block = 4000;
  k.in.serialised = 0.5;
  const ModelKernel f = with_fix(k, Fix::kConverged, toy_gpu());
  EXPECT_DOUBLE_EQ(f.in.inst_per_block, 2000);
  EXPECT_NEAR(solve_kernel(f, toy_gpu()).seconds, 5e-6, 1e-15);  // 10 us before
}

TEST(KernelModel, CoalescedAccessesMoveWhatTheyAskAndTheirSectorsScaleTheUnexplained) {
  // 4000 DRAM bytes a block for 1000 asked, 128 sectors; 400 unexplained cycles with the sectors.
  // Before: Z = 1400, X = 2/1400: 7 us. Coalesced: 1000 B, 31.25 sectors, U = 400 x 31.25/128 =
  // 97.65625: 10 x 1097.65625 / 2e9 = 5.48828125 us.
  ModelKernel k = toy_kernel();
  k.in.dram_bytes_per_block = 4000;
  k.in.sectors_per_block = 128;
  k.unexplained_memory_cycles = 400;
  k.fit_sectors_per_block = 128;
  EXPECT_NEAR(solve_kernel(k, toy_gpu()).seconds, 7e-6, 1e-15);
  const ModelKernel f = with_fix(k, Fix::kCoalesced, toy_gpu());
  EXPECT_DOUBLE_EQ(f.in.dram_bytes_per_block, 1000);
  EXPECT_DOUBLE_EQ(f.in.sectors_per_block, 31.25);
  EXPECT_NEAR(solve_kernel(f, toy_gpu()).seconds, 5.48828125e-6, 1e-15);
}

TEST(KernelModel, NoBytesAskedLeavesNothingToCoalesce) {
  // DRAM bytes with no global load or store counted (spills, atomics): the coalesced kernel is the
  // kernel; before, min(DRAM bytes, 0 asked) took every byte and U's memory part away.
  ModelKernel k = toy_kernel();
  k.in.asked_bytes_per_block = 0;
  k.unexplained_memory_cycles = 400;
  k.fit_dram_bytes_per_block = 1000;
  const ModelKernel f = with_fix(k, Fix::kCoalesced, toy_gpu());
  EXPECT_DOUBLE_EQ(f.in.dram_bytes_per_block, 1000);
  EXPECT_DOUBLE_EQ(f.in.sectors_per_block, 32);
  EXPECT_DOUBLE_EQ(solve_kernel(f, toy_gpu()).seconds, solve_kernel(k, toy_gpu()).seconds);
}

TEST(KernelModel, EveryFixAtOnceComposesThem) {
  // 16-thread blocks at 2 resident with 4000 B a block for 2000 asked: full warps (10 blocks of
  // 8000 B, 4000 asked), coalesced (4000 B), full residency (min(32, 5) = 5 resident):
  // X = 5 / 1000, 5 blocks an SM: 1 us.
  ModelKernel k = toy_kernel();
  k.in.block_threads = 16;
  k.in.dram_bytes_per_block = 4000;
  k.in.asked_bytes_per_block = 2000;
  const ModelKernel f = with_fix(k, Fix::kAll, toy_gpu());
  EXPECT_DOUBLE_EQ(f.in.blocks, 10);
  EXPECT_DOUBLE_EQ(f.in.dram_bytes_per_block, 4000);
  EXPECT_DOUBLE_EQ(f.in.resident_blocks, 5);
  EXPECT_NEAR(solve_kernel(f, toy_gpu()).seconds, 1e-6, 1e-15);
}

TEST(KernelModel, BadInputsAreNamed) {
  ModelKernel k = toy_kernel();
  k.in.blocks = 0;
  EXPECT_THROW(solve_kernel(k, toy_gpu()), std::invalid_argument);
  k = toy_kernel();
  k.loads_in_flight = 0.5;
  EXPECT_THROW(solve_kernel(k, toy_gpu()), std::invalid_argument);
  ModelParameters p = toy_gpu();
  p.issue_rate = 0;
  try {
    solve_kernel(toy_kernel(), p);
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("issue rate"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace warpcost::explain
