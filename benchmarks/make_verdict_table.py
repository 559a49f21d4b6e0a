"""Write the stored verdict table that tests/test_verdict_table.py holds every new solver to.

    PYTHONPATH=/path/to/old/checkout/src python benchmarks/make_verdict_table.py --out tests/data/verdicts.csv

Solves seeds ``--seeds`` under each preset in ``--rules`` with a fixed node
budget (deterministic, unlike a time limit) on ``--jobs`` worker processes
and writes one CSV row per (rules, seed): the verdict and the nodes the
solver that wrote the table needed. Run it with the solver *before* a change
to the search: the table then says what was decided, and a new solver must
decide every one of those deals the same way (``unknown`` rows record only
that the old solver did not decide the deal within the budget).
"""

from __future__ import annotations

import argparse
import csv
import multiprocessing as mp
import sys


def _work(args: tuple[str, int, int]) -> tuple[str, int, str, int]:
    from canfield_solver import solve

    rules, seed, nodes = args
    r = solve(seed, rules, max_nodes=nodes)
    return rules, seed, r.verdict.value, r.nodes


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", default="0:300", help="START:STOP (default 0:300)")
    ap.add_argument("--rules", default="canfield,canfield-whole-pile,solvitaire-canfield-strict")
    ap.add_argument("--nodes", type=int, default=2_000_000, help="node budget per deal (default 2,000,000)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", required=True)
    a = ap.parse_args(argv)
    lo, hi = (int(x) for x in a.seeds.split(":"))
    work = [(r, s, a.nodes) for r in a.rules.split(",") for s in range(lo, hi)]
    with mp.get_context("spawn").Pool(a.jobs) as pool:
        rows = pool.map(_work, work, chunksize=4)
    with open(a.out, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["rules", "seed", "verdict", "nodes"])
        w.writerows(rows)
    for r in a.rules.split(","):
        got = [v for (rr, _, v, _) in rows if rr == r]
        print(f"{r}: " + ", ".join(f"{v} {got.count(v)}" for v in ("solved", "unsolvable", "unknown")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
