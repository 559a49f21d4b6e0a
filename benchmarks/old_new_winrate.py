"""The same win-rate run on two checkouts, preset by preset, in one run: counts, stored seconds, unknown seeds.

    git worktree add /tmp/before <commit before the change>
    python benchmarks/old_new_winrate.py --old /tmp/before/src --rules chameleon,canfield-draw1 \\
        --seeds 850000:850300 --max-seconds 2 --jobs 2 --out benchmarks/results/my-run.txt

For each rules set (a preset, or a rules file ending in ``.json``) it runs ``canfield winrate --db`` with
``PYTHONPATH`` set to the old ``src`` folder, then to this checkout's, over the same seeds, limit and jobs (both
builds' compiles done first: ``canfield warmup`` with each), and prints for each build the counts, the unknown
share, the 99th percentile and the largest stored seconds, and the unknown seeds; then the deals the two
builds decide differently. A deal both builds decide with two verdicts is a bug (exit 1): old verdicts are
sacred.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
NEW_SRC = str(HERE.parent / "src")


def winrate(src: str, rules: str, seeds: str, seconds: float, jobs: int, db: str) -> dict[int, tuple[str, float]]:
    """Each seed's (verdict, stored seconds) from one ``canfield winrate`` run of the checkout at ``src``."""
    which = ["--rules-file", rules] if rules.endswith(".json") else ["--rules", rules]
    env = {**os.environ, "PYTHONPATH": src}
    subprocess.run([sys.executable, "-m", "canfield_solver", "winrate", *which, "--seeds", seeds, "--max-seconds",
                    str(seconds), "--jobs", str(jobs), "--db", db], env=env, check=True, stdout=subprocess.DEVNULL)
    with sqlite3.connect(db) as c:
        return {s: (v, t) for s, v, t in c.execute("select seed, verdict, seconds from results")}


def describe(label: str, rows: dict[int, tuple[str, float]]) -> list[str]:
    n = len(rows)
    count = {v: sum(1 for x, _ in rows.values() if x == v) for v in ("solved", "unsolvable", "unknown")}
    secs = sorted(t for _, t in rows.values())
    p99 = secs[min(n - 1, int(0.99 * n))]
    unknown = sorted(s for s, (v, _) in rows.items() if v == "unknown")
    return [f"  {label}: {n} deals, won {count['solved']}, lost {count['unsolvable']}, unknown {count['unknown']} "
            f"({100 * count['unknown'] / n:.1f}%); stored seconds p99 {p99:.2f}, max {secs[-1]:.2f}",
            f"    unknown: {','.join(map(str, unknown))}"]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--old", required=True, help="the old checkout's src folder")
    ap.add_argument("--rules", required=True, help="comma list of presets or rules files (.json)")
    ap.add_argument("--seeds", required=True, help="START:STOP")
    ap.add_argument("--max-seconds", type=float, default=2.0)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", help="also append the lines here")
    a = ap.parse_args(argv)
    bad = False
    with tempfile.TemporaryDirectory() as tmp:
        for src in (a.old, NEW_SRC):  # both builds compiled, every search, before anything is timed
            subprocess.run([sys.executable, "-m", "canfield_solver", "warmup"], env={**os.environ, "PYTHONPATH": src},
                           check=True, stdout=subprocess.DEVNULL)
        for rules in a.rules.split(","):
            got = {label: winrate(src, rules, a.seeds, a.max_seconds, a.jobs, f"{tmp}/{label}-{Path(rules).stem}.sqlite")
                   for label, src in (("old", a.old), ("new", NEW_SRC))}
            lines = [f"{rules}, seeds {a.seeds}, {a.max_seconds:g} s, --jobs {a.jobs}:"]
            lines += describe("old", got["old"]) + describe("new", got["new"])
            newly = [s for s, (v, _) in got["new"].items() if v != "unknown" and got["old"][s][0] == "unknown"]
            lost = [s for s, (v, _) in got["old"].items() if v != "unknown" and got["new"][s][0] == "unknown"]
            differ = [s for s, (v, _) in got["new"].items() if "unknown" not in (v, got["old"][s][0])
                      and v != got["old"][s][0]]
            lines.append(f"  decided by the new build only: {len(newly)}; by the old only: {len(lost)}; "
                         f"decided differently: {len(differ)} {differ if differ else ''}".rstrip())
            bad |= bool(differ)
            print("\n".join(lines), flush=True)
            if a.out:
                with open(a.out, "a") as f:
                    f.write("\n".join(lines) + "\n")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
