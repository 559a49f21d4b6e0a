"""Count first (issue 70 item 3): how many table rows a position reached with fewer redeals used would cover.

    python benchmarks/archive/passes_census.py --rules benchmarks/rules/canfield-draw1-passes2.json --seeds 1011,1024,1031
    python benchmarks/archive/passes_census.py --rules storehouse --seeds 0:5 --nodes 3000000

Under a limited number of redeals the key holds the redeals used, so the same position (the same columns,
reserve, talon and waste position) reached in pass 1 and again in pass 2 is two rows. The pass-1 row covers
the pass-2 one: every line from the later position is a line from the earlier (one more redeal left). Each
deal is searched depth-first for ``--nodes`` nodes (the exact search alone), and its final tables are read:
rows in all, and rows whose key, the redeal field cleared, equals another row's (the rows covering would
remove, at most: a row enters the table only once its position is new, so these are positions met again in
a later pass). Prints a line a deal and the total share.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from canfield_solver import Deal, Position
from canfield_solver.budget import Limits
from canfield_solver.engine.rules import Rules, get_rules
from canfield_solver.search import codec as C
from canfield_solver.search import depth_first


def _rules(spec: str) -> Rules:
    return Rules.from_json_file(spec) if spec.endswith(".json") else get_rules(spec)


def _seeds(text: str) -> list[int]:
    if ":" in text:
        lo, hi = (int(x) for x in text.split(":"))
        return list(range(lo, hi))
    return [int(x) for x in text.split(",")]


def census(start: Position, nodes: int) -> tuple[int, int, str]:
    kept: dict = {}
    out = depth_first.search(start, Limits(nodes=nodes, memory_mb=4000), 0.0, depth_first.How(keep=kept))
    prob, tables = kept["problem"], kept["tables"]
    params = [int(x) for x in prob.params]
    _ts, _tb, _ws, _wb, _rs, _rb, ds, db = C.short_fields(params)
    total = same = 0
    short = tables.short[tables.short[:, 0] != 0]
    if len(short):
        rdl = np.uint64(((1 << db) - 1) << ds) if db else np.uint64(0)
        cleared = short.copy()
        cleared[:, 1] &= ~rdl
        total += len(short)
        same += len(short) - len(np.unique(cleared, axis=0))
    long_ = tables.long[tables.long[:, 0] != 0]
    if len(long_):
        rdl = np.uint64(((1 << C.RDL_BITS) - 1) << C.RDL_SHIFT)
        cleared = long_.copy()
        cleared[:, 0] &= ~rdl
        total += len(long_)
        same += len(long_) - len(np.unique(cleared, axis=0))
    verdict = "won" if out.won else ("lost" if out.limit is None else f"unknown ({out.limit})")
    return total, same, verdict


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rules", default="benchmarks/rules/canfield-draw1-passes2.json")
    ap.add_argument("--seeds", default="1011,1024,1031")
    ap.add_argument("--nodes", type=int, default=5_000_000)
    a = ap.parse_args(argv)
    rules = _rules(a.rules)
    if rules.redeals is None:
        print(f"{rules.name}: unlimited redeals; the key holds none, nothing to cover")
        return 0
    all_rows = all_same = 0
    for seed in _seeds(a.seeds):
        rows, same, verdict = census(Position(Deal.from_seed(seed, rules)), a.nodes)
        all_rows += rows
        all_same += same
        print(f"{rules.name} seed {seed}: {rows:,} rows, {same:,} met again in a later pass "
              f"({same / max(1, rows):.1%}); {verdict} at {a.nodes:,} nodes", flush=True)
    print(f"in all: {all_same:,} of {all_rows:,} rows ({all_same / max(1, all_rows):.1%}) a pass-earlier row "
          "would cover")
    return 0


if __name__ == "__main__":
    sys.exit(main())
