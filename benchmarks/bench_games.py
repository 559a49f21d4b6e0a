"""The games' compiled searches against their plain-Python searches (issue 30), deal by deal.

    python benchmarks/bench_games.py [--deals 300] [--repeat 3]

For each game, over seeds 0..DEALS-1: the median and total time a deal of the plain-Python search
(``search_python`` / ``compiled=False``) and of the compiled one (``solve``), their ratio, and the
compiled search's nodes a second. Both searches visit the same positions in the same order (the
agreement tests), so the ratio is the speed of a node. aces-and-kings and bisley run at a node limit
(100,000) and without restarts, so both sides do the same work; the kernel loads before the clock.
Each figure is the median of REPEAT runs.
"""

from __future__ import annotations

import argparse
import importlib
import statistics
import time

from canfield_solver.games import deal_of


def _time(fn, p) -> tuple[float, int]:
    t0 = time.perf_counter()
    r = fn(p)
    return time.perf_counter() - t0, r.nodes


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--deals", type=int, default=300)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args(argv)
    NP = importlib.import_module("canfield_solver.games.nine_packets.solve")
    TC = importlib.import_module("canfield_solver.games.ten_columns.solve")
    AK = importlib.import_module("canfield_solver.games.aces_and_kings.solve")
    cases = [
        ("nine-packets", NP.search_python, NP.solve),
        ("ten-columns", lambda p: TC.solve(p, compiled=False), TC.solve),
        ("ten-columns-dealt", lambda p: TC.solve(p, compiled=False), TC.solve),
        ("aces-and-kings", lambda p: AK.search_python(p, max_nodes=100_000),
         lambda p: AK.solve(p, max_nodes=100_000, restarts=False)),
        ("bisley", lambda p: AK.search_python(p, max_nodes=100_000),
         lambda p: AK.solve(p, max_nodes=100_000, restarts=False)),
    ]
    print(f"{'game':>18} {'deals':>6} {'python ms/deal':>15} {'compiled ms/deal':>17} {'ratio (total)':>14} "
          f"{'compiled nodes/s':>17}")
    for name, slow, fast in cases:
        deals = [deal_of(name, s) for s in range(a.deals)]
        fast(deals[0])                                   # load the kernel
        runs = []
        for _ in range(a.repeat):
            ts = [_time(slow, p)[0] for p in deals]
            tf = [_time(fast, p) for p in deals]
            runs.append((statistics.median(ts), statistics.median(t for t, _ in tf), sum(ts),
                         sum(t for t, _ in tf), sum(n for _, n in tf)))
        med = [statistics.median(r[k] for r in runs) for k in range(5)]
        print(f"{name:>18} {a.deals:6d} {1000 * med[0]:15.3f} {1000 * med[1]:17.4f} {med[2] / med[3]:13.1f}x "
              f"{med[4] / med[3]:17,.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
