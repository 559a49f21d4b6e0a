"""Our compatibility presets beside the published solver's verdicts and state counts (issue 6).

    python benchmarks/bench_side_by_side.py                       # both presets, seeds 0-199, 30 s, 2 workers
    python benchmarks/bench_side_by_side.py --preset solvitaire-canfield --max-seconds 10

The data file (../shared/data/reference-verdicts.csv, or --data) holds that
solver's verdict and searched states per seed under its canfield-strict
(``solvitaire-canfield-strict``) and canfield (``solvitaire-canfield``)
presets. For every seed this prints both verdicts, our nodes and seconds, its
states, and its states turned into seconds at our measured node rate (the
time its work would take at our speed); then totals, the agreement count and
any disagreement. Exit status 1 if a verdict both solvers decided differs.
"""

from __future__ import annotations

import argparse
import csv
import multiprocessing as mp
import os
import statistics
import sys
import time

COLUMNS = {
    "solvitaire-canfield-strict": ("whole_pile_subset_verdict", "whole_pile_subset_states"),
    "solvitaire-canfield": ("sequences_subset_verdict", "sequences_subset_states"),
}
HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_DATA = os.path.join(HERE, "..", "..", "shared", "data", "reference-verdicts.csv")


def _init() -> None:
    from canfield_solver.solver import solve

    solve(2, max_nodes=1000)


def _work(args: tuple[int, str, float]) -> tuple[int, str, int, float]:
    from canfield_solver.solver import solve

    seed, preset, max_seconds = args
    r = solve(seed, preset, max_seconds=max_seconds)
    return seed, r.verdict.value, r.nodes, r.seconds


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--preset", default=",".join(COLUMNS), help="comma-separated compatibility presets")
    ap.add_argument("--data", default=DEFAULT_DATA)
    ap.add_argument("--max-seconds", type=float, default=30.0)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--quiet", action="store_true", help="totals only, no per-seed lines")
    a = ap.parse_args(argv)
    with open(a.data, newline="") as fh:
        ref = {int(r["seed"]): r for r in csv.DictReader(fh)}
    seeds = sorted(ref)
    bad = 0
    with mp.get_context("spawn").Pool(a.jobs, initializer=_init) as pool:
        for preset in a.preset.split(","):
            vcol, scol = COLUMNS[preset]
            t0 = time.perf_counter()
            rows = pool.map(_work, [(s, preset, a.max_seconds) for s in seeds], chunksize=1)
            wall = time.perf_counter() - t0
            nodes = sum(r[2] for r in rows)
            secs = sum(r[3] for r in rows)
            nps = nodes / secs if secs else 0.0
            agree = differ = we_only = they_only = 0
            ratios = []
            print(f"== {preset} vs the published solver's {vcol.replace('_verdict', '')} "
                  f"({len(seeds)} seeds, {a.max_seconds:g} s per deal, {a.jobs} workers)")
            if not a.quiet:
                print(f"{'seed':>5} {'theirs':>11} {'states':>10} {'ours':>11} {'nodes':>10} {'our s':>7} "
                      f"{'their states at our rate, s':>28}")
            for seed, verdict, n, s in rows:
                theirs = ref[seed][vcol]
                states = int(ref[seed][scol])
                theirs_v = "unknown" if theirs == "timed-out" else theirs
                if theirs_v != "unknown" and verdict != "unknown":
                    if theirs_v == verdict:
                        agree += 1
                    else:
                        differ += 1
                elif verdict != "unknown":
                    we_only += 1
                elif theirs_v != "unknown":
                    they_only += 1
                if theirs_v == "unsolvable" and verdict == "unsolvable" and states > 1000:
                    ratios.append(n / states)
                flag = "  DIFFERENT" if theirs_v != "unknown" and verdict != "unknown" and theirs_v != verdict else ""
                if not a.quiet:
                    print(f"{seed:>5} {theirs:>11} {states:>10} {verdict:>11} {n:>10} {s:>7.2f} "
                          f"{states / nps if nps else 0:>28.2f}{flag}")
            bad += differ
            their_states = sum(int(ref[s][scol]) for s in seeds)
            print(f"  agree on {agree} seeds both decided; differ on {differ}; decided only by us {we_only}, "
                  f"only by them {they_only}")
            print(f"  ours: {secs:.1f} s of search ({wall:.1f} s wall), {nodes / 1e6:.1f} M nodes, "
                  f"{nps / 1e6:.2f} M nodes/s per worker")
            print(f"  theirs: {their_states / 1e6:.1f} M states = {their_states / nps:.1f} s at our node rate")
            if ratios:
                print(f"  our nodes / their states on deals both prove unsolvable (> 1000 states): "
                      f"median {statistics.median(ratios):.2f}, range {min(ratios):.2f}..{max(ratios):.2f}")
            sys.stdout.flush()
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
