// The single-point tools' reports (core/point_reports.hpp): each survives its own JSON, a missing or
// mistyped key and another tool's report are named, and the derived values are the hand-worked
// ratios. No GPU: the tools fill these on the GPU machine (their GPU tests print and read them).
#include <gtest/gtest.h>

#include <functional>
#include <stdexcept>
#include <string>

#include "core/point_reports.hpp"

namespace warpcost::reports {
namespace {

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

TEST(PointReports, EachReportSurvivesItsOwnJson) {
  DivergeReport d;
  d.gpu = {"NVIDIA H200", 132, 9, 0};
  d.shape = "switch_cases";
  d.args = {"--cases", "10:384,12:192,10:192"};
  d.warps_per_sm = 4;
  d.clock_hz = 1.98e9;
  d.warp_cycles = 210000;
  d.grid_seconds = 112e-6;
  d.reference_warp_cycles = 105000;
  d.reference_grid_seconds = 56e-6;
  d.model_slowdown = 2.01;
  d.model_from = "each measured uniformly";
  d.paths_measured = true;
  const DivergeReport d2 = diverge_from_json(to_json(d));
  EXPECT_EQ(d2.args, d.args);
  EXPECT_EQ(d2.shape, "switch_cases");
  EXPECT_TRUE(d2.paths_measured);
  EXPECT_DOUBLE_EQ(d2.warp_slowdown(), 2.0);  // 210000 / 105000
  EXPECT_DOUBLE_EQ(d2.grid_slowdown(), 2.0);  // 112 / 56
  EXPECT_NE(to_json(d).find("\"warp_slowdown\": 2.0"), std::string::npos) << to_json(d);

  CoalesceReport c;
  c.gpu = d.gpu;
  c.benchmark = "block_2d";
  c.arg_names = {"x", "y"};
  c.arg_values = {24, 24};
  c.elem_bytes = 2;
  c.image_width = 1920;
  c.image_height = 1080;
  c.median_seconds = 250e-6;
  c.model_sectors_per_request = 3;
  c.warp_requests = 1036800;
  c.useful_bytes = 530841600;
  const CoalesceReport c2 = coalesce_from_json(to_json(c));
  EXPECT_EQ(c2.arg_values, c.arg_values);
  EXPECT_EQ(c2.useful_bytes, 530841600u);
  EXPECT_DOUBLE_EQ(c2.useful_bytes_per_s(), 530841600.0 / 250e-6);  // 2.123 TB/s

  StreamReadReport s;
  s.gpu = d.gpu;
  s.use = "independent";
  s.load_bytes = 16;
  s.alu_per_load = 12;
  s.run_time_alu = true;
  s.warps_per_sm = 42;
  s.median_seconds = 100e-6;
  s.bytes_read = std::uint64_t{512} << 20;
  s.loaded_latency_cycles = 1055;
  const StreamReadReport s2 = stream_read_from_json(to_json(s));
  EXPECT_TRUE(s2.run_time_alu);
  EXPECT_EQ(s2.alu_per_load, 12);
  EXPECT_DOUBLE_EQ(s2.bytes_per_s(), 536870912.0 / 100e-6);

  StreamOnePerThreadReport one;
  one.threads_per_block = 32;
  one.blocks = 1u << 20;
  one.resident_blocks_per_sm = 32;
  one.resident_warps_per_sm = 32;
  one.median_seconds = 1e-3;
  one.bytes_read = 16u << 20;
  EXPECT_DOUBLE_EQ(stream_one_per_thread_from_json(to_json(one)).bytes_per_s(), 16777216.0 / 1e-3);
  EXPECT_TRUE(stream_one_per_thread_from_json(to_json(one)).load);
  // --no-load: the turnover, 1 ms x 132 SMs over 2^20 blocks = 125.885 ns an SM a block.
  one.load = false;
  one.bytes_read = 0;
  one.gpu.sm_count = 132;
  const StreamOnePerThreadReport none = stream_one_per_thread_from_json(to_json(one));
  EXPECT_FALSE(none.load);
  EXPECT_NEAR(none.block_ns_per_sm(), 125.885, 0.001);
  StreamChaseReport ch;
  ch.order = "random";
  ch.nodes = 4096;
  ch.steps = 65536;
  ch.cycles = 65536 * 800;
  ch.ns = 65536 * 404;
  const StreamChaseReport ch2 = stream_chase_from_json(to_json(ch));
  EXPECT_DOUBLE_EQ(ch2.cycles_per_load(), 800.0);
  EXPECT_DOUBLE_EQ(ch2.ns_per_load(), 404.0);
  // The three stream reports are one tool's: each reader takes its own mode only.
  EXPECT_NE(error_of([&] { stream_read_from_json(to_json(ch)); }).find("not the read mode's report (mode = \"chase\")"),
            std::string::npos)
      << error_of([&] { stream_read_from_json(to_json(ch)); });
  MaskFactsReport mf;
  mf.threads = 48;
  mf.split = 5;
  mf.warps = {{0, 0x1fu, 0x1fu}, {1, 0u, 0u}};
  mf.last_lane = 15;
  mf.last_shuffle = 7;
  const MaskFactsReport mf2 = mask_facts_from_json(to_json(mf));
  ASSERT_EQ(mf2.warps.size(), 2u);
  EXPECT_EQ(mf2.warps[0].activemask, 0x1fu);
  EXPECT_EQ(mf2.last_shuffle, 7u);
  EXPECT_THROW(primitive_from_json(to_json(mf)), std::runtime_error);  // facts is no latency report

  PrimitiveReport p;
  p.gpu = d.gpu;
  p.mode = "latency";
  p.primitive = "ballot";
  p.lanes = 1;
  p.mask_a = 1;
  p.median = 17.98;
  EXPECT_DOUBLE_EQ(primitive_from_json(to_json(p)).median, 17.98);

  RecordReport r;
  r.gpu = d.gpu;
  r.block = {72, 1, 1};
  r.warps = {{0, 32, 0xffffffffu, 0, 5}, {1, 32, 0xffffffffu, 2, 5}, {2, 8, 0xffu, 4, 5}};
  r.threads = {{71, true, 71, 0, 0, 7, 0xffu}};
  const RecordReport r2 = record_from_json(to_json(r));
  ASSERT_EQ(r2.warps.size(), 3u);
  EXPECT_EQ(r2.warps[2].mask, 0xffu);
  EXPECT_EQ(r2.threads[0].lane, 7u);
  EXPECT_TRUE(r2.gates_passed());
  r.gate_failures = {"thread 5 is not in its own mask"};
  EXPECT_NE(to_json(r).find("\"gates_passed\": false"), std::string::npos);
  EXPECT_FALSE(record_from_json(to_json(r)).gates_passed());
}

TEST(PointReports, TheObjectIsFoundAmongOtherLinesAndBadReportsAreNamed) {
  PrimitiveReport p;
  p.mode = "latency";
  p.primitive = "any";
  p.median = 18.0;
  // A line on stderr before and after the object (the tools' output is read with 2>&1).
  EXPECT_DOUBLE_EQ(primitive_from_json("warning: something\n" + to_json(p) + "GATE FAILED: x\n").median, 18.0);
  EXPECT_NE(error_of([] { primitive_from_json("latency 26.65 cycles per op"); }).find("warpcost-primitives --json: no JSON object"),
            std::string::npos);
  std::string missing = to_json(p);
  missing.replace(missing.find("\"median\""), 8, "\"medain\"");
  EXPECT_NE(error_of([&] { primitive_from_json(missing); }).find("median"), std::string::npos)
      << error_of([&] { primitive_from_json(missing); });
  std::string typed = to_json(p);
  typed.replace(typed.find("\"lanes\": 32"), 11, "\"lanes\": \"32\"");
  EXPECT_NE(error_of([&] { primitive_from_json(typed); }).find("warpcost-primitives --json:"), std::string::npos);
  EXPECT_NE(error_of([&] { diverge_from_json(to_json(p)); }).find("not warpcost-diverge's report (tool = \"warpcost-primitives\")"),
            std::string::npos)
      << error_of([&] { diverge_from_json(to_json(p)); });
}

}  // namespace
}  // namespace warpcost::reports
