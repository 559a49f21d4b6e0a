"""Cross-check a win-rate row's verdicts deal by deal against a build of the published solver (Solvitaire).

    python benchmarks/archive/crosscheck_winrate.py --solvitaire /tmp/solvitaire --rules solvitaire-canfield-strict \\
        --lost 300 --won 50 --max-seconds 10

Draws a seeded random sample of the deals that the committed win-rate dataset
(``benchmarks/results/winrates``) records as lost and as won in the first pass
under one of the compatibility presets, runs the binary on exactly those
deals (``--type canfield-strict`` / ``canfield``, its own time limit) and
counts where both decided and disagreed. A wrong "lost" of ours would show as
its "solved" on one of our lost deals; such a deal is printed with its seed
so that ``canfield solve SEED --rules RULES`` can be checked by hand.

The binary is never committed: build it from thecharlieblake/Solvitaire
(docs/performance-history.md, "Outside check", says how). Deals seen before (seeds 0-199, the
committed reference verdicts) are left out, so the sample is new evidence.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent  # benchmarks/
sys.path.insert(0, str(HERE))

from bench_side_by_side import SOLVITAIRE_TYPES, _run_binary  # noqa: E402

DATASET = HERE / "results" / "winrates"


def _first_pass(rules: str) -> dict[int, str]:
    import pyarrow.dataset as ds

    t = ds.dataset(DATASET, format="parquet", partitioning="hive").to_table(columns=["rules", "seed", "verdict"])
    return {s: v for r, s, v in zip(*(t.column(c).to_pylist() for c in ("rules", "seed", "verdict"))) if r == rules}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--solvitaire", required=True, metavar="BINARY")
    ap.add_argument("--rules", default="solvitaire-canfield-strict", choices=sorted(SOLVITAIRE_TYPES))
    ap.add_argument("--lost", type=int, default=300, help="how many of our lost deals to check")
    ap.add_argument("--won", type=int, default=50, help="how many of our won deals to check")
    ap.add_argument("--max-seconds", type=float, default=10.0, help="the binary's limit per deal")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--sample-seed", type=int, default=29)
    a = ap.parse_args(argv)
    ours = {s: v for s, v in _first_pass(a.rules).items() if s >= 200}
    if not ours:
        sys.exit(f"crosscheck: no first-pass rows for {a.rules} in {DATASET}")
    rng = random.Random(a.sample_seed)
    picked = []
    for verdict, k in (("unsolvable", a.lost), ("solved", a.won)):
        pool = sorted(s for s, v in ours.items() if v == verdict)
        picked += rng.sample(pool, min(k, len(pool)))
    theirs, wall = _run_binary(a.solvitaire, a.rules, sorted(picked), a.max_seconds, a.jobs)
    print(f"{a.rules}: {len(picked)} deals from seeds 200-{max(ours)} ({a.lost} of our lost, {a.won} of our won "
          f"asked), the binary at {a.max_seconds:g} s, {wall:.0f} s wall")
    bad = 0
    for verdict in ("unsolvable", "solved"):
        seeds = [s for s in picked if ours[s] == verdict]
        counts: dict[str, int] = {}
        for s in seeds:
            counts[theirs[s][0]] = counts.get(theirs[s][0], 0) + 1
        wrong = [s for s in seeds if theirs[s][0] in ("solved", "unsolvable") and theirs[s][0] != verdict]
        bad += len(wrong)
        print(f"  ours {verdict:>10} ({len(seeds)}): its verdicts {dict(sorted(counts.items()))}; "
              f"disagree on {wrong or 'none'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
