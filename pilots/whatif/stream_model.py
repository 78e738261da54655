"""The streaming models of core/streaming/model.cpp, re-solved in Python for the what-ifs here (a
second implementation: with their terms unchanged they reproduce the committed predictions), with
the hooks the what-ifs change: the queue's waiting scaled by c, an extra delay."""
import numpy as np

F = 1.98e9  # the SM clock every run quoted here ran at (its machine state)
S = 132     # SMs
B = 512     # bytes a warp iteration of the 16-byte stream


def mva(n, demand, delay, c=1.0):
    """Cycles an iteration of n customers of one station: demand at it, delay away from it; the
    waiting scaled by c (c = 1: the model)."""
    q = x = 0.0
    for k in range(1, n + 1):
        r = demand * (1 + c * q)
        x = k / (r + delay)
        q = x * r
    return n / x


def fixed_point(offered, ceiling):
    """The bandwidth where offered(bw) equals bw, at most the ceiling (bisection)."""
    if offered(ceiling) >= ceiling:
        return ceiling
    lo, hi = 0.0, ceiling
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if offered(mid) > mid else (lo, mid)
    return 0.5 * (lo + hi)


def locus(frame, run):
    """The run's loaded-latency locus from its 16-byte W = 0 read_independent points: their warps/SM,
    DRAM throughputs (ascending) and iteration cycles (made non-decreasing)."""
    s = frame[(frame.benchmark == "read_independent") & (frame.load_bytes == 16) & (frame.alu_per_load == 0)
              & (frame.metric == "dram__bytes_read.sum.per_second") & frame.run_id.str.contains(run)]
    points = sorted((r.value, int(r.warps_per_sm)) for _, r in s.iterrows())
    bw = np.array([p[0] for p in points])
    cycles = np.maximum.accumulate(np.array([S * n * B * F / v for v, n in points]))
    return [p[1] for p in points], bw, cycles
