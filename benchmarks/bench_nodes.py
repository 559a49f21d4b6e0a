"""Node rate of the search kernel on a fixed node budget of hard deals.

    python benchmarks/bench_nodes.py                          # seeds 6, 13, 35 of canfield, 5 M nodes each, 3 runs
    python benchmarks/bench_nodes.py --seeds 6,12 --nodes 2000000 --rules canfield-whole-pile --runs 5

Each run searches every seed for at most ``--nodes`` nodes in this process
(the kernel is loaded before timing starts) and prints, per seed, the median
seconds over the runs, the nodes and distinct positions it reached, and the
nodes per second; then the total. A fixed node budget makes the work the
same from run to run (the search is deterministic), so the ratio of two
builds' times is the ratio of their per-node costs, as long as both count
nodes the same way; ``positions`` shows whether they did the same search.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", default="6,13,35", help="comma-separated seeds (default 6,13,35)")
    ap.add_argument("--rules", default="canfield")
    ap.add_argument("--nodes", type=int, default=5_000_000, help="node budget per seed (default 5,000,000)")
    ap.add_argument("--runs", type=int, default=3, help="runs per seed; the median is printed (default 3)")
    ap.add_argument("--max-memory", type=int, default=2048, help="table cap in MiB (default 2048)")
    a = ap.parse_args(argv)
    from canfield_solver import solve

    solve(2, a.rules)  # load or compile the kernel before timing
    seeds = [int(s) for s in a.seeds.split(",")]
    total_s = total_n = 0.0
    print(f"{a.rules}: {a.nodes:,} nodes per seed, median of {a.runs} runs")
    for seed in seeds:
        times = []
        for _ in range(a.runs):
            t0 = time.perf_counter()
            r = solve(seed, a.rules, max_nodes=a.nodes, max_memory_mb=a.max_memory)
            times.append(time.perf_counter() - t0)
        t = statistics.median(times)
        total_s += t
        total_n += r.nodes
        print(f"  seed {seed:>4}: {r.verdict.value:<10} {r.nodes:>11,} nodes {r.positions:>11,} positions "
              f"{t:7.2f} s  {r.nodes / t / 1e6:5.2f} M nodes/s  (runs {min(times):.2f}-{max(times):.2f} s)")
        sys.stdout.flush()
    print(f"  total: {total_n:,.0f} nodes in {total_s:.2f} s = {total_n / total_s / 1e6:.2f} M nodes/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
