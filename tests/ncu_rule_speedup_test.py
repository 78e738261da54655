#!/usr/bin/env python3
"""scripts/ncu_rule_speedup.py on hand-written `ncu --csv --page details` files.

    ncu_rule_speedup_test.py REPO_ROOT

The fixtures (tests/fixtures/ncu/) are HAND-MADE in the column format the script's header documents
(every field quoted, metric rows that stop after Metric Value, ==PROF== and application lines around
the table), with messages paraphrased from the rule files; no ncu wrote them. Their percentages are
chosen so the speedups, 1 / (1 - p/100), are exact by hand:
  rules_partial_block.csv  partial_warps  LaunchConfiguration's block-size message, 21.875 % -> 1.28
                                          (its tail-effect message, 50 %, is not this view's)
                           divergence     ThreadDivergence 12.5 % -> 8/7 = 1.142857
                           coalescing     MemoryCacheAccessPattern (global loads) 75 % -> 4, larger
                                          than UncoalescedGlobalAccess 50 % -> 2 (local loads 90 % and
                                          SharedMemoryConflicts 80 % are not this view's)
                           latency_hiding none fired -> 1.0 (IssueSlotUtilization 60 % not mapped)
  rules_low_residency.csv  latency_hiding AchievedOccupancy 68.75 % -> 3.2, larger than
                                          TheoreticalOccupancy 37.5 % -> 1.6; the rest none fired
  raw_page.csv             a raw-page CSV: refused, exit 2
Further cases (two launches, ties, no estimate, a failed rule, broken files) are written here.
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
SCRIPT = os.path.join(ROOT, "scripts", "ncu_rule_speedup.py")
FIXTURES = os.path.join(ROOT, "tests", "fixtures", "ncu")
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import ncu_rule_speedup  # noqa: E402

HEADER = ['ID', 'Process ID', 'Process Name', 'Host Name', 'Kernel Name', 'Context', 'Stream', 'Block Size',
          'Grid Size', 'Device', 'CC', 'Section Name', 'Metric Name', 'Metric Unit', 'Metric Value', 'Rule Name',
          'Rule Type', 'Rule Description', 'Estimated Speedup Type', 'Estimated Speedup']


def quoted(fields):
    return ",".join('"' + f.replace('"', '""') + '"' for f in fields)


def rule_row(rule, kind, description, speedup_type, percent, launch="0", section="S"):
    return quoted([launch, "1", "p", "h", "k", "1", "7", "(32, 1, 1)", "(1, 1, 1)", "0", "9.0", section, "", "", "",
                   rule, kind, description, speedup_type, percent])


def run(*args):
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True)


class Fixtures(unittest.TestCase):
    def views(self, name):
        out = run(os.path.join(FIXTURES, name))
        self.assertEqual(out.returncode, 0, out.stderr)
        views = json.loads(out.stdout)
        self.assertEqual(sorted(views), sorted(ncu_rule_speedup.VIEWS))
        return views

    def check(self, view, rule, percent, speedup):
        self.assertEqual(view["rule"], rule)
        self.assertAlmostEqual(view["percent"], percent, places=9)
        self.assertAlmostEqual(view["speedup"], speedup, places=6)

    def test_partial_block(self):
        v = self.views("rules_partial_block.csv")
        self.check(v["partial_warps"], "LaunchConfiguration", 21.875, 1.28)
        self.check(v["divergence"], "ThreadDivergence", 12.5, 8 / 7)
        self.check(v["coalescing"], "MemoryCacheAccessPattern", 75.0, 4.0)  # two fired: the larger wins
        self.assertEqual([c["rule"] for c in v["coalescing"]["fired"]],
                         ["UncoalescedGlobalAccess", "MemoryCacheAccessPattern"])
        self.assertEqual(v["coalescing"]["type"], "global")
        self.check(v["latency_hiding"], "none fired", 0.0, 1.0)
        self.assertEqual(v["latency_hiding"]["fired"], [])

    def test_low_residency(self):
        v = self.views("rules_low_residency.csv")
        self.check(v["latency_hiding"], "AchievedOccupancy", 68.75, 3.2)
        self.assertEqual(len(v["latency_hiding"]["fired"]), 2)
        for view in ("partial_warps", "divergence", "coalescing"):
            self.check(v[view], "none fired", 0.0, 1.0)

    def test_tsv(self):
        path = os.path.join(FIXTURES, "rules_partial_block.csv")
        expected = {"partial_warps": "1.2800", "divergence": "1.1429", "coalescing": "4.0000", "latency_hiding": "1.0000"}
        for view, text in expected.items():
            out = run("--tsv", view, path)
            self.assertEqual((out.returncode, out.stdout), (0, text + "\n"), out.stderr)
        self.assertEqual(run("--tsv", "no_such_view", path).returncode, 2)

    def test_list(self):
        out = run("--list", os.path.join(FIXTURES, "rules_partial_block.csv"))
        self.assertEqual(out.returncode, 0, out.stderr)
        lines = out.stdout.splitlines()
        self.assertEqual(len(lines), 1 + 10)  # header + every rule row
        self.assertIn("MemoryCacheAccessPattern\tOPT\tglobal\t90.0\t-\t", out.stdout)  # local loads: unmapped


class Written(unittest.TestCase):
    """Files written by the test: one per case."""

    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def write(self, text, name="ncu.csv", mode="w"):
        path = os.path.join(self.dir.name, name)
        with open(path, mode) as f:
            f.write(text)
        return path

    def refused(self, path, words):
        out = run(path)
        self.assertEqual(out.returncode, 2, out.stdout)
        self.assertEqual(out.stdout, "")
        lines = out.stderr.splitlines()
        self.assertEqual(len(lines), 1, out.stderr)  # one message
        self.assertIn(path, lines[0])
        self.assertIn("expected one launch's `ncu --csv --page details` output", lines[0])
        self.assertIn(words, lines[0])

    def test_raw_page_refused(self):
        self.refused(os.path.join(FIXTURES, "raw_page.csv"), 'has no header with "Rule Name"')

    def test_missing_file_refused(self):
        self.refused(os.path.join(self.dir.name, "absent.csv"), "cannot be read")

    def test_empty_file_refused(self):
        self.refused(self.write(""), "has no header")

    def test_binary_junk_refused(self):
        self.refused(self.write(bytes(range(256)) * 4, mode="wb"), "has no header")

    def test_header_without_launch_refused(self):
        self.refused(self.write(quoted(HEADER) + "\n==PROF== No kernels were profiled.\n"), "holds no profiled launch")

    def test_header_missing_column_refused(self):
        self.refused(self.write(quoted(HEADER[:-1]) + "\n" + rule_row("ThreadDivergence", "OPT", "d", "global", "") + "\n"),
                     'lacks "Estimated Speedup"')

    def test_two_launches_refused(self):
        text = "\n".join([quoted(HEADER), rule_row("ThreadDivergence", "OPT", "d", "global", "10", launch="0"),
                          rule_row("ThreadDivergence", "OPT", "d", "global", "20", launch="1")]) + "\n"
        self.refused(self.write(text), "holds 2 launches (IDs 0, 1)")

    def test_tie_goes_to_declared_order(self):
        text = "\n".join([quoted(HEADER),
                          rule_row("MemoryCacheAccessPattern", "OPT", "The memory access pattern for global stores to L2 might not be optimal.", "global", "50"),
                          rule_row("UncoalescedGlobalAccess", "OPT", "uncoalesced", "global", "50.000")]) + "\n"
        v = json.loads(run(self.write(text)).stdout)
        self.assertEqual(v["coalescing"]["rule"], "UncoalescedGlobalAccess")
        self.assertAlmostEqual(v["coalescing"]["speedup"], 2.0)

    def test_no_estimate_and_rule_error(self):
        text = "\n".join([quoted(HEADER),
                          rule_row("LaunchConfiguration", "WRN", "Threads are executed in groups of 32 threads called warps.", "", ""),
                          rule_row("ThreadDivergence", "ERR", "Error: metric not found", "", "")]) + "\n"
        path = self.write(text)
        v = json.loads(run(path).stdout)
        self.assertEqual((v["partial_warps"]["rule"], v["partial_warps"]["speedup"]), ("LaunchConfiguration (no estimate)", None))
        self.assertEqual((v["divergence"]["rule"], v["divergence"]["speedup"]), ("ThreadDivergence (rule error)", None))
        self.assertEqual(run("--tsv", "partial_warps", path).stdout, "-\n")

    def test_unquoted_fields_embedded_quotes_and_commas(self):
        unquoted = ",".join(["0", "1", "p", "h", "k", "1", "7", '"(64, 1, 1)"', '"(8, 1, 1)"', "0", "9.0", "Occupancy", "", "", "",
                             "TheoreticalOccupancy", "OPT", '"limited by ""registers"", and shared memory"', "local", "20"])
        text = "\n".join(["some application output", quoted(HEADER), unquoted,
                          rule_row("AchievedOccupancy", "OPT", 'a "quoted", comma-laden message', "global", "10")]) + "\n"
        v = json.loads(run(self.write(text)).stdout)
        self.assertEqual(v["latency_hiding"]["rule"], "TheoreticalOccupancy")  # 20 % > 10 %
        self.assertAlmostEqual(v["latency_hiding"]["speedup"], 1.25)
        self.assertIn('limited by "registers", and shared memory', v["latency_hiding"]["fired"][0]["description"])

    def test_number(self):
        self.assertEqual(ncu_rule_speedup.number("12,345.5"), 12345.5)
        self.assertEqual(ncu_rule_speedup.number(" 50 % "), 50.0)
        self.assertIsNone(ncu_rule_speedup.number(""))
        self.assertIsNone(ncu_rule_speedup.number("n/a"))
        self.assertIsNone(ncu_rule_speedup.number("nan"))
        self.assertIsNone(ncu_rule_speedup.speedup_of(100.0))
        self.assertAlmostEqual(ncu_rule_speedup.speedup_of(50.0), 2.0)


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0]], verbosity=1)
