"""Second phase of a study: re-run a random sample of the deals left unknown, and estimate the win rate.

    python benchmarks/followup_unknowns.py --db studies.sqlite --rules solvitaire-canfield-strict \\
        --seeds 0:10000 --first-seconds 1 --sample 200 --max-seconds 30

A first pass at a short limit decides most deals cheaply; the deals it left
unknown are the hard ones, so neither "unknown = lost" nor "drop the
unknowns" is a fair estimate. This script draws a seeded random sample of
``--sample`` of those unknown deals, re-runs them at ``--max-seconds`` into
the same store, and reports the two-phase (stratified) estimate

    p = (won in phase 1 + U * p_U) / N,   p_U = won / sampled among the unknowns,
    SE^2 = p(1 - p) / N + (U / N)^2 * p_U (1 - p_U) / n * (1 - n / U),

with its 95% normal interval, and the same with the sample's own unknowns
counted both ways. Running it again reuses the stored re-runs.
"""

from __future__ import annotations

import argparse
import math
import random
import sys

from canfield_solver import get_rules
from canfield_solver.studies.store import ResultStore
from canfield_solver.studies.study import Z95, parse_seeds, run_study


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--db", required=True)
    ap.add_argument("--rules", required=True)
    ap.add_argument("--seeds", default="0:10000")
    ap.add_argument("--first-seconds", type=float, default=1.0, help="the first pass's limit per deal")
    ap.add_argument("--sample", type=int, default=200)
    ap.add_argument("--max-seconds", type=float, default=30.0)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--sample-seed", type=int, default=0)
    a = ap.parse_args(argv)
    r = get_rules(a.rules)
    seeds = parse_seeds(a.seeds)
    with ResultStore(a.db, create=False) as st:
        rows = {x.seed: x for x in st.results(r, seeds)}
    missing = len(seeds) - len(rows)
    if missing:
        print(f"{missing} seeds have no first-pass result; run the study first", file=sys.stderr)
        return 2
    # Phase-1 unknowns: still unknown at the first limit, or already re-run at the second one.
    unknown = sorted(s for s, x in rows.items()
                     if (x.verdict == "unknown" and (x.max_seconds or 0) <= a.first_seconds)
                     or (x.max_seconds == a.max_seconds and x.max_seconds != a.first_seconds))
    in_unknown = set(unknown)
    won1 = sum(1 for s, x in rows.items() if x.verdict == "solved" and s not in in_unknown)
    n_all, n_u = len(seeds), len(unknown)
    sample = sorted(random.Random(a.sample_seed).sample(unknown, min(a.sample, n_u)))
    wr = run_study(r, sample, jobs=a.jobs, max_seconds=a.max_seconds, store=a.db)
    w, l, u, n = wr.won, wr.lost, wr.unknown, wr.deals
    print(f"{r.name}: {n_all} deals; phase 1 ({a.first_seconds:g} s): won {won1}, unknown {n_u}")
    print(f"  phase 2 ({a.max_seconds:g} s) on a random sample of {n} unknowns: won {w}, lost {l}, unknown {u} "
          f"({wr.searched} searched now, {wr.wall_seconds:.0f} s wall)")

    def estimate(p_u: float) -> tuple[float, float]:
        p = (won1 + n_u * p_u) / n_all
        fpc = 1 - n / n_u if n_u else 0.0
        se = math.sqrt(p * (1 - p) / n_all + (n_u / n_all) ** 2 * p_u * (1 - p_u) / max(n, 1) * fpc)
        return p, se

    for label, p_u in (("sample unknowns as lost", w / n if n else 0.0),
                       ("sample unknowns as won", (w + u) / n if n else 0.0)):
        p, se = estimate(p_u)
        print(f"  two-phase estimate ({label}): {100 * p:.2f}% (95% CI {100 * (p - Z95 * se):.2f}%.."
              f"{100 * (p + Z95 * se):.2f}%)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
