"""Win-rate studies to set beside the published figures (issue 5), resumable.

    python benchmarks/study_published.py --seeds 0:10000 --max-seconds 1 --db studies.sqlite
    python benchmarks/study_published.py --rules storehouse --seeds 0:10000 --max-seconds 5 --db studies.sqlite

Runs each preset through ``estimate_win_rate`` with a result store, so a
killed run resumes, and a second run with a larger ``--max-seconds`` searches
only the deals still unknown. Prints won / lost / unknown, the win rate over
decided deals with its 95% Wilson interval, the interval counting unknowns
both ways, and the published figure next to it.
"""

from __future__ import annotations

import argparse
import sys
import time

from canfield_solver.studies.study import estimate_win_rate, parse_seeds

PUBLISHED = {
    "canfield-sequences": "71.245% +- 0.031% (Solvitaire, 10^7 deals, its own rules); 71.9% +- 1.1% (Wolter, 50,000)",
    "canfield-whole-pile": "67.562% +- 0.034% (Solvitaire canfield-strict, 10^7 deals, its own rules)",
    "solvitaire-canfield-strict": "67.562% +- 0.034% (Solvitaire canfield-strict, 10^7 deals)",
    "solvitaire-canfield": "71.245% +- 0.031% (Solvitaire canfield, 10^7 deals)",
    "storehouse": "43.8% (Wolter, 10^6 deals)",
    "canfield": "none published; must lie between whole-pile and sequences",
}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rules", default="storehouse,canfield-sequences,canfield-whole-pile,canfield")
    ap.add_argument("--seeds", default="0:10000")
    ap.add_argument("--max-seconds", type=float, default=1.0)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--db", default="studies.sqlite")
    a = ap.parse_args(argv)
    seeds = parse_seeds(a.seeds)
    for rules in a.rules.split(","):
        t0 = time.perf_counter()

        def progress(done: int, total: int, counts: dict, elapsed: float, _last=[0.0], rules=rules) -> None:  # noqa: B006 (a counter kept across calls)
            if elapsed - _last[0] >= 60 or done == total:
                _last[0] = elapsed
                print(f"  {rules}: {done}/{total} {counts} {elapsed:.0f} s", file=sys.stderr, flush=True)

        wr = estimate_win_rate(rules, seeds, jobs=a.jobs, max_seconds=a.max_seconds, store=a.db, progress=progress)
        print(wr)
        print(f"  limit {a.max_seconds:g} s per deal; {wr.searched} searched now, {wr.reused} reused; "
              f"wall {time.perf_counter() - t0:.0f} s; {wr.searched / max(wr.wall_seconds, 1e-9):.1f} deals/s")
        print(f"  published: {PUBLISHED.get(rules, 'n/a')}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
