#!/usr/bin/env python3
"""The greedy-issue model's second implementation (pilots/whatif/gto_window_sim.py, the what-if it
was read from) over the suite's loops as core/suite_loops.cpp states them, without the
latency's spread (sigma 0, so no random draw): one line a case, 'W warps latency constant cycles'.
tests/fixtures/greedy-second-implementation.tsv holds its output; test_models'
GreedyIssue.TheSuitesLoopsScheduleAsTheSecondImplementationSays reads it, and
tests/greedy-second-implementation.sh regenerates it and fails when it differs.

With --sigma, the same loops with a spread (sigma 160 cycles, about the suite's runs' sqrt(pi) x
their probe's max excess): the two implementations draw from different generators (Python's
random.gauss, the C++'s Box-Muller over mt19937_64), so the comparison is of distributions: one line
a case, 'W warps latency constant sigma seeds mean standard_error', the mean and its standard error
over seeds 1..40; tests/fixtures/greedy-second-implementation-sigma.tsv holds it and
GreedyIssue.WithASpreadTheMeanScheduleIsTheSecondImplementations compares the C++'s own mean over 40
seeds with it (within 4 combined standard errors, declared before the C++ side was run).

    python3 tests/greedy_second_implementation.py REPO [--sigma]
"""
import importlib.util
import pathlib
import re
import statistics
import sys

KIND = {"r": "run", "": "", ":load": "ldg", ":wait_load": "wait_ldg", ":constant": "ldc",
        ":wait_constant": "wait_ldc"}


SIGMA = 160.0
SEEDS = 40


def main():
    repo = pathlib.Path(sys.argv[1])
    with_sigma = sys.argv[2:] == ["--sigma"]
    spec = importlib.util.spec_from_file_location("gto_window_sim", repo / "pilots/whatif/gto_window_sim.py")
    sim = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sim)
    text = (repo / "core/suite_loops.cpp").read_text()
    programs = {int(w): p for w, p in re.findall(r'case (\d+): return "([^"]+)";', text)}

    def program(w):
        prog = []
        for token in programs[w].split():
            m = re.fullmatch(r"(\d+)(r|:load|:wait_load|:constant|:wait_constant|)", token)
            prog.append((int(m.group(1)), KIND[m.group(2)]))
        return prog

    if with_sigma:
        print("# W\twarps\tlatency\tconstant\tsigma\tseeds\tmean\tstandard_error "
              "(200 iterations, seeds 1..%d)" % SEEDS)
        for w in (0, 8, 64, 256):
            prog = program(w)
            for k in (2, 5, 12):
                cycles = [sim.scheduler_cycles(k, prog, 900, SIGMA, 22, seed, 200) for seed in range(1, SEEDS + 1)]
                print("%d\t%d\t900\t22\t%g\t%d\t%.6f\t%.6f" % (
                    w, k, SIGMA, SEEDS, statistics.mean(cycles), statistics.stdev(cycles) / SEEDS ** 0.5))
        return
    print("# W\twarps\tlatency\tconstant\tcycles (200 iterations, seed 1, sigma 0)")
    for w in (0, 8, 64, 128, 256):
        prog = program(w)
        for k in (1, 2, 3, 5, 8, 16):
            for latency, constant in ((800, 22), (1500, 0)):
                cycles = sim.scheduler_cycles(k, prog, latency, 0.0, constant, 1, 200)
                print("%d\t%d\t%d\t%d\t%.6f" % (w, k, latency, constant, cycles))


if __name__ == "__main__":
    main()
