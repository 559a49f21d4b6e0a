"""A committed study's follow-up sample searched again by this build: core-seconds per deal and unknowns.

    python benchmarks/followup_remeasure.py                          # canfield's 80 follow-up deals, 300 s, 2 threads
    python benchmarks/followup_remeasure.py --rules canfield-whole-pile --limit 3

The follow-up pass of a two-phase study (docs/studies.md) searches a sample
of the first pass's unknowns one deal at a time with every core on it. The
win-rate dataset (``benchmarks/results/winrates``) keeps each follow-up
deal's verdict and seconds as the build that ran it measured them. This
script reads that sample, searches every deal again with the same limit and
``--threads`` threads (``solve(workers=N)``), and prints old against new
deal by deal, then core-seconds per sampled deal (seconds x threads) and
how many stay unknown, for both. A decided verdict that differs from the
stored one is reported as an error (exit 1): old verdicts are sacred.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATASET = HERE / "results" / "winrates"


def stored_followup(rules: str) -> list[dict]:
    import pyarrow.dataset as ds

    d = ds.dataset(DATASET, format="parquet", partitioning="hive")
    rows = d.to_table(filter=ds.field("rules") == f"{rules}+followup").to_pylist()
    return sorted(rows, key=lambda r: r["seed"])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rules", default="canfield", help="a preset with a committed follow-up sample")
    ap.add_argument("--threads", type=int, default=2, help="threads per deal (the follow-up uses every core)")
    ap.add_argument("--max-seconds", type=float, default=None, help="default: the stored follow-up's limit")
    ap.add_argument("--limit", type=int, default=None, help="only the first N deals of the sample")
    ap.add_argument("--seeds-from", default=None,
                    help="only the seeds an earlier log of this script names ('[i/N] seed S: ...' lines), e.g. "
                         "benchmarks/results/followup-remeasure.txt for the 80 deals the sample held then")
    ap.add_argument("--out", default=None, help="write the per-deal rows as JSON")
    a = ap.parse_args(argv)

    from canfield_solver.solver import solve

    old = stored_followup(a.rules)
    if not old:
        print(f"error: no follow-up rows for {a.rules!r} in {DATASET}", file=sys.stderr)
        return 2
    if a.seeds_from:
        import re

        keep = {int(m) for m in re.findall(r"^\[\d+/\d+\] seed (\d+):", Path(a.seeds_from).read_text(), re.M)}
        old = [o for o in old if int(o["seed"]) in keep]
    if a.limit:
        old = old[: a.limit]
    solve(2, a.rules, workers=a.threads)  # load the compiled code before timing
    rows, wrong = [], []
    t_all = time.perf_counter()
    for i, o in enumerate(old, 1):
        limit = a.max_seconds or o["max_seconds"]
        r = solve(int(o["seed"]), a.rules, max_seconds=limit, workers=a.threads)
        row = {"seed": int(o["seed"]), "old_verdict": o["verdict"], "old_seconds": o["seconds"],
               "verdict": r.verdict.value, "seconds": r.seconds, "nodes": r.nodes, "max_seconds": limit}
        rows.append(row)
        if "unknown" not in (row["verdict"], row["old_verdict"]) and row["verdict"] != row["old_verdict"]:
            wrong.append(row)
        print(f"[{i}/{len(old)}] seed {row['seed']}: {o['verdict']} {o['seconds']:.1f} s -> "
              f"{row['verdict']} {row['seconds']:.1f} s", flush=True)
    wall = time.perf_counter() - t_all
    n = len(rows)
    for label, vk, sk in (("stored", "old_verdict", "old_seconds"), ("this build", "verdict", "seconds")):
        secs = sum(r[sk] for r in rows)
        unk = [r["seed"] for r in rows if r[vk] == "unknown"]
        print(f"{label:>10}: {secs:.1f} s in all, {secs * a.threads / n:.1f} core-s per deal "
              f"({a.threads} threads), unknown {len(unk)} of {n} {unk}")
    print(f"wall {wall:.1f} s")
    if a.out:
        Path(a.out).write_text(json.dumps(rows, indent=1))
    if wrong:
        print(f"error: verdicts differ from the stored ones: {wrong}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
