"""The same bench_solve run on two checkouts, one after the other, and their ratio.

    git worktree add /tmp/before <commit before the change>
    python benchmarks/compare_checkouts.py --old /tmp/before/src              # seeds 0-199, both presets, 30 s
    python benchmarks/compare_checkouts.py --old /tmp/before/src --seeds 0:50 --max-seconds 5 --rules canfield

Runs ``bench_solve.py`` of *this* checkout with ``PYTHONPATH`` set to the old
``src`` folder, then to this checkout's ``src``, with the same seeds, presets,
limit and workers, and prints for each preset: verdict counts, total search
seconds, wall seconds, nodes per second, peak RSS, the old/new ratio of
total search time, and every seed whose verdict differs. A seed decided by
the old code and decided differently by the new one is a bug (exit 1); one
the old code left unknown and the new one decides is listed as new, one it
decided and the new one leaves unknown at the limit is listed apart (time, not a wrong verdict).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def run(src: str, args: argparse.Namespace, out: str) -> list[dict]:
    env = dict(os.environ, PYTHONPATH=src)
    cmd = [sys.executable, str(HERE / "bench_solve.py"), "--seeds", args.seeds, "--rules", args.rules,
           "--max-seconds", str(args.max_seconds), "--jobs", str(args.jobs), "--out", out]
    print(f"$ PYTHONPATH={src} {' '.join(cmd[1:])}", flush=True)
    subprocess.run(cmd, env=env, check=True)
    with open(out) as fh:
        return json.load(fh)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--old", required=True, help="the src folder of the checkout to compare against")
    ap.add_argument("--new", default=str(HERE.parent / "src"), help="the src folder to measure (default: this one)")
    ap.add_argument("--seeds", default="0:200")
    ap.add_argument("--rules", default="canfield,canfield-whole-pile")
    ap.add_argument("--max-seconds", type=float, default=30.0)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--keep", default=None, metavar="DIR", help="keep the two runs' per-seed JSON in DIR")
    a = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        where = a.keep or tmp
        os.makedirs(where, exist_ok=True)
        old = run(a.old, a, f"{where}/old.json")
        new = run(a.new, a, f"{where}/new.json")
    bad = 0
    print("\nold vs new")
    for rules in a.rules.split(","):
        o = {r["seed"]: r for r in old if r["rules"] == rules}
        n = {r["seed"]: r for r in new if r["rules"] == rules}
        so = sum(r["seconds"] for r in o.values())
        sn = sum(r["seconds"] for r in n.values())
        uo = sorted(s for s, r in o.items() if r["verdict"] == "unknown")
        un = sorted(s for s, r in n.items() if r["verdict"] == "unknown")
        changed = [s for s in o if "unknown" not in (o[s]["verdict"], n[s]["verdict"])
                   and o[s]["verdict"] != n[s]["verdict"]]
        dropped = [s for s in o if o[s]["verdict"] != "unknown" and n[s]["verdict"] == "unknown"]
        gained = [s for s in o if o[s]["verdict"] == "unknown" and n[s]["verdict"] != "unknown"]
        nps_o = sum(r["nodes"] for r in o.values()) / max(so, 1e-9) / 1e6
        nps_n = sum(r["nodes"] for r in n.values()) / max(sn, 1e-9) / 1e6
        print(f"{rules}: search seconds {so:.1f} -> {sn:.1f} ({so / max(sn, 1e-9):.2f}x less); "
              f"nodes/s {nps_o:.2f} M -> {nps_n:.2f} M; unknown {len(uo)} -> {len(un)}")
        print(f"  still unknown: {un}; newly decided: "
              + ", ".join(f"{s} {n[s]['verdict']} {n[s]['seconds']:.1f}s" for s in gained))
        if dropped:  # a limit reached sooner or later: time, not a wrong verdict
            print("  decided before, unknown now: " + ", ".join(
                f"{s} {o[s]['verdict']} {o[s]['seconds']:.1f}s" for s in dropped))
        if changed:
            bad += 1
            print(f"  VERDICT CHANGED on seeds {changed}: " + ", ".join(
                f"{s} {o[s]['verdict']} -> {n[s]['verdict']}" for s in changed))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
