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

With ``--solvitaire BINARY`` (a build of thecharlieblake/Solvitaire; never
committed here) it also runs that binary on the same deals (our deals
written in its JSON format), with the same workers and limit
(``--timeout`` in ms), right after our run, and prints its wall time, its
summed per-deal time (process start included), its verdicts against ours,
and the time ratio on the deals both decide.
"""

from __future__ import annotations

import argparse
import csv
import json
import multiprocessing as mp
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from multiprocessing.pool import ThreadPool

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


SOLVITAIRE_TYPES = {"solvitaire-canfield-strict": "canfield-strict", "solvitaire-canfield": "canfield"}


def _run_binary(binary: str, preset: str, seeds: list[int], max_seconds: float, jobs: int
                ) -> tuple[dict[int, tuple[str, int, float]], float]:
    """The published solver on our deals: {seed: (verdict, states, seconds)} and the wall time."""
    from canfield_solver import Deal
    from canfield_solver.formats import to_solvitaire

    with tempfile.TemporaryDirectory() as tmp:
        for seed in seeds:
            out = to_solvitaire(Deal.from_seed(seed, preset))
            with open(os.path.join(tmp, f"{seed}.json"), "w") as fh:
                fh.write(out if isinstance(out, str) else json.dumps(out))

        def one(seed: int) -> tuple[int, str, int, float]:
            t = time.perf_counter()
            p = subprocess.run([binary, "--type", SOLVITAIRE_TYPES[preset], "--timeout", str(int(max_seconds * 1000)),
                                os.path.join(tmp, f"{seed}.json")], capture_output=True, text=True)
            t = time.perf_counter() - t
            v = re.search(r"Solution Type: (\S+)", p.stdout)
            n = re.search(r"States Searched: (\d+)", p.stdout)
            return seed, v.group(1) if v else "error", int(n.group(1)) if n else -1, t

        t0 = time.perf_counter()
        with ThreadPool(jobs) as pool:
            rows = pool.map(one, seeds, chunksize=1)
        return {s: (v, n, t) for s, v, n, t in rows}, time.perf_counter() - t0


def _compare_binary(ours: list[tuple[int, str, int, float]], theirs: dict[int, tuple[str, int, float]],
                    wall: float, our_wall: float, max_seconds: float) -> int:
    decided = ("solved", "unsolvable")
    both = [s for s, v, _, _ in ours if v in decided and theirs[s][0] in decided]
    differ = [s for s, v, _, _ in ours if v in decided and theirs[s][0] in decided and theirs[s][0] != v]
    mine = {s: sec for s, _, _, sec in ours}
    t_both, o_both = sum(theirs[s][2] for s in both), sum(mine[s] for s in both)
    t_sum, o_sum = sum(x[2] for x in theirs.values()), sum(mine.values())
    capped = sum(min(x[2], max_seconds) for x in theirs.values())
    undecided = sorted(s for s, x in theirs.items() if x[0] not in decided)
    print(f"  the binary, same deals, run now: {wall:.1f} s wall ({wall / our_wall:.2f}x ours), "
          f"{t_sum:.1f} s summed over deals ({t_sum / o_sum:.2f}x our search; {capped:.1f} s with each deal "
          f"capped at the limit, {capped / o_sum:.2f}x), not decided: {undecided}")
    print(f"  on the {len(both)} deals both decide: its {t_both:.1f} s, our {o_both:.1f} s "
          f"({t_both / max(o_both, 1e-9):.2f}x); verdicts differ on {differ or 'none'}")
    return len(differ)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--preset", default=",".join(COLUMNS), help="comma-separated compatibility presets")
    ap.add_argument("--data", default=DEFAULT_DATA)
    ap.add_argument("--max-seconds", type=float, default=30.0)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--quiet", action="store_true", help="totals only, no per-seed lines")
    ap.add_argument("--solvitaire", default=None, metavar="BINARY",
                    help="also run this build of the published solver on the same deals (see above)")
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
            if a.solvitaire:
                sys.stdout.flush()
                theirs_now, their_wall = _run_binary(a.solvitaire, preset, seeds, a.max_seconds, a.jobs)
                bad += _compare_binary(rows, theirs_now, their_wall, wall, a.max_seconds)
            sys.stdout.flush()
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
