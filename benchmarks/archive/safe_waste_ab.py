"""The exact search alone at a node limit, deal by deal, for two checkouts (issue 70, item 5: the waste's
top home as a safe move where the draw is 1 or no redeal is left).

    python benchmarks/archive/safe_waste_ab.py --old /tmp/before/src --seeds 0:100 --nodes 2000000

Each checkout runs in a process of its own (``PYTHONPATH`` its ``src``), one deal at a time, the depth-first
search alone (``method="depth-first"``, no phases before it), so the counts do not depend on the machine's
speed or load. Prints for each preset: deals decided by each, the nodes the deals both decide took in each,
and every deal whose verdict differs where both decided (exit 1 then: a sound rule changes no verdict).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent  # benchmarks/
PRESETS = ["rainbow", "chameleon", "superior-canfield", "rules/canfield-draw1-passes2.json",
           "rules/canfield-draw3-passes1.json", "canfield", "canfield-draw1"]


def _rows(seeds: range, nodes: int, presets: list[str]) -> None:
    from canfield_solver import Deal, solve
    from canfield_solver.engine.rules import Rules, get_rules

    for name in presets:
        rules = Rules.from_json_file(str(HERE / name)) if name.endswith(".json") else get_rules(name)
        for seed in seeds:
            r = solve(Deal.from_seed(seed, rules), max_nodes=nodes, method="depth-first")
            print(json.dumps({"preset": name, "seed": seed, "verdict": r.verdict.value, "nodes": r.nodes}), flush=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--old", required=True, help="the src folder of the checkout to compare against")
    ap.add_argument("--new", default=str(HERE.parent / "src"))
    ap.add_argument("--seeds", default="0:100")
    ap.add_argument("--nodes", type=int, default=2_000_000)
    ap.add_argument("--presets", default=",".join(PRESETS))
    ap.add_argument("--rows", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    lo, hi = (int(x) for x in a.seeds.split(":"))
    if a.rows:
        _rows(range(lo, hi), a.nodes, a.presets.split(","))
        return 0
    out = {}
    for side, src in (("old", a.old), ("new", a.new)):
        p = subprocess.run([sys.executable, __file__, "--rows", "--old", "-", "--seeds", a.seeds, "--nodes",
                            str(a.nodes), "--presets", a.presets], env=dict(os.environ, PYTHONPATH=src),
                           capture_output=True, text=True, check=True)
        out[side] = {(r["preset"], r["seed"]): r for r in map(json.loads, p.stdout.split("\n")[:-1])}
    bad = 0
    for name in a.presets.split(","):
        keys = [k for k in out["old"] if k[0] == name]
        dec = {s: [k for k in keys if out[s][k]["verdict"] != "unknown"] for s in out}
        both = [k for k in keys if k in dec["old"] and k in dec["new"]]
        differ = [k[1] for k in both if out["old"][k]["verdict"] != out["new"][k]["verdict"]]
        bad += len(differ)
        n_old = sum(out["old"][k]["nodes"] for k in both)
        n_new = sum(out["new"][k]["nodes"] for k in both)
        print(f"{name}: {len(keys)} deals at {a.nodes:,} nodes; decided old {len(dec['old'])}, new {len(dec['new'])}; "
              f"the {len(both)} both decide: {n_old:,} -> {n_new:,} nodes ({n_new / max(1, n_old):.3f}); "
              f"only old {[k[1] for k in dec['old'] if k not in dec['new']]}, "
              f"only new {[k[1] for k in dec['new'] if k not in dec['old']]}; verdicts differ: {differ or 'none'}",
              flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
