"""A study's throughput and the overhead of the result store and the process pool.

    python benchmarks/bench_study.py                          # 2,000 seeds of canfield, 30 s per deal, 2 workers
    python benchmarks/bench_study.py --seeds 0:500 --max-seconds 2

Prints decided deals per second, the unknown count, and the overhead: the
workers' capacity (wall x jobs) not spent inside ``solve`` (pool start-up,
pickling, the store's writes, idle workers at the end), as a share of the
time spent inside ``solve``. Then a cost estimate for 10^6 deals on 2 and on
64 cores, from the measured seconds per deal.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time

from canfield_solver.studies.study import parse_seeds, run_study


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rules", default="canfield")
    ap.add_argument("--seeds", default="0:2000")
    ap.add_argument("--max-seconds", type=float, default=30.0)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=1, help="runs to take the median of")
    ap.add_argument("--compare-bare", action="store_true",
                    help="instead: time bare solve() calls in this process against a 1-worker study with a store "
                         "on the same seeds (the overhead of the pool and the store, nothing else)")
    a = ap.parse_args(argv)
    if a.compare_bare:
        return compare_bare(a)
    seeds = parse_seeds(a.seeds)
    walls, overheads = [], []
    for i in range(a.repeat):
        with tempfile.TemporaryDirectory() as tmp:
            t0 = time.perf_counter()
            wr = run_study(a.rules, seeds, jobs=a.jobs, max_seconds=a.max_seconds,
                           store=os.path.join(tmp, "bench.sqlite"))
            wall = time.perf_counter() - t0
        inside = sum(r.seconds for r in wr.results)
        overhead = (wall * a.jobs - inside) / inside
        walls.append(wall)
        overheads.append(overhead)
        print(f"run {i + 1}: {wr.deals} deals in {wall:.1f} s wall: won {wr.won}, lost {wr.lost}, "
              f"unknown {wr.unknown}; {wr.decided / wall:.2f} decided deals/s; "
              f"time inside solve {inside:.1f} s; overhead {100 * overhead:.1f}%", flush=True)
    wall = statistics.median(walls)
    per_deal_core = wall * a.jobs / len(seeds)
    print(f"{a.rules}: seeds {a.seeds}, {a.max_seconds:g} s per deal, {a.jobs} workers")
    print(f"  median wall {wall:.1f} s; {len(seeds) / wall:.2f} deals/s; overhead (median) "
          f"{100 * statistics.median(overheads):.1f}%")
    for cores in (2, 64):
        hours = 1e6 * per_deal_core / cores / 3600
        print(f"  10^6 deals on {cores} cores: {hours:,.1f} h at {per_deal_core:.3f} core-s per deal")
    return 0


def compare_bare(a: argparse.Namespace) -> int:
    from canfield_solver.solver import solve

    seeds = parse_seeds(a.seeds)
    solve(2, a.rules, max_nodes=1000)  # load the kernel first, as the workers do
    bare, study = [], []
    for _ in range(a.repeat):
        t0 = time.perf_counter()
        for s in seeds:
            solve(s, a.rules, max_seconds=a.max_seconds)
        bare.append(time.perf_counter() - t0)
        with tempfile.TemporaryDirectory() as tmp:
            t0 = time.perf_counter()
            run_study(a.rules, seeds, jobs=1, max_seconds=a.max_seconds, store=os.path.join(tmp, "b.sqlite"))
            study.append(time.perf_counter() - t0)
    b, s = statistics.median(bare), statistics.median(study)
    print(f"{a.rules}: {len(seeds)} seeds, {a.max_seconds:g} s per deal, median of {a.repeat}: bare solve() calls "
          f"{b:.1f} s, 1-worker study with a store {s:.1f} s (worker start-up included): overhead {100 * (s / b - 1):.1f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
