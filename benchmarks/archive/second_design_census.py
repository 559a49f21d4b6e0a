"""Count first (issue 70): what each search of the second design decides among the deals the exact
depth-first search leaves unknown.

    python benchmarks/archive/second_design_census.py --rules rainbow --seeds 1000:1100
    python benchmarks/archive/second_design_census.py --rules benchmarks/rules/canfield-draw1-passes2.json --seeds 1000:1100 \\
        --exact 2 --phase 1

Each deal is first searched by the exact depth-first search alone (``method="depth-first"``, one thread)
for ``--exact`` seconds. On each deal it leaves unknown, every phase then runs alone for ``--phase``
seconds: greedy random playouts (``playout``, level 0), the nested search of level 1 (``nested``), the
real moves under the class key (``find``) and the abstract game over classes (``prove``). It prints a line
a deal (each phase's ending and seconds) and the counts: wins found, losses proved, and what no phase
decided. Every win is replayed by the reference engine. Two worker processes by default (``--jobs``).
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import sys
import time
from collections import Counter


def _rules(spec: str):
    from canfield_solver.engine.rules import Rules, get_rules

    return Rules.from_json_file(spec) if spec.endswith(".json") else get_rules(spec)


def _deal(seed: int, spec: str):
    from canfield_solver import Deal, Position

    return Position(Deal.from_seed(seed, _rules(spec)))


def _replays(start, line: list[str]) -> bool:
    from canfield_solver.engine.position import replay

    chk = replay(start.to_deal(), line, strict=False)
    return bool(chk.legal and chk.position.is_won())


def _one(args: tuple[int, str, float, float]) -> dict:
    from canfield_solver.budget import Deadline, Limits
    from canfield_solver.search import playout, ranks
    from canfield_solver.solver import solve

    seed, spec, exact, phase = args
    start = _deal(seed, spec)
    r = solve(start, max_seconds=exact, method="depth-first", max_memory_mb=2000)
    row = {"seed": seed, "exact": r.verdict.value, "exact_s": r.seconds}
    if r.verdict.value != "unknown":
        return row
    for name, run in (("playout", playout.greedy), ("nested", playout.nested)):
        o = run(start, Limits(Deadline(phase)))
        if o.won and not _replays(start, o.decode(o.solution)):
            raise SystemExit(f"seed {seed}: a {name} win does not replay")
        row[name] = ("won" if o.won else "-", o.seconds, o.best_score)
    if ranks.usable(start.rules):
        f = ranks.find(start, Limits(Deadline(phase), memory_mb=2000))
        if f.won and not _replays(start, f.decode(f.solution)):
            raise SystemExit(f"seed {seed}: a find win does not replay")
        row["find"] = ("won" if f.won else f.ended, f.seconds, f.best_score)
        p = ranks.prove(start, Limits(Deadline(phase), memory_mb=2000))
        row["prove"] = ("lost" if p.proved_lost else ("abstract-won" if p.ended == "won" else p.ended),
                        p.seconds, p.best_score)
    return row


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rules", default="rainbow", help="a preset or a rules JSON file")
    ap.add_argument("--seeds", default="1000:1100")
    ap.add_argument("--exact", type=float, default=2.0, help="seconds of the exact search alone")
    ap.add_argument("--phase", type=float, default=1.0, help="seconds of each phase on the exact search's unknowns")
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args(argv)
    lo, hi = (int(x) for x in a.seeds.split(":"))
    t0 = time.perf_counter()
    from canfield_solver.search import playout, ranks  # noqa: F401 (compile before the workers fork)
    from canfield_solver.solver import solve

    solve(_deal(lo, a.rules), max_seconds=1)
    _one((lo, a.rules, 0.0, 0.01))  # compile every phase
    ctx = mp.get_context("fork")
    counts: Counter = Counter()
    with ctx.Pool(a.jobs) as pool:
        for row in pool.imap(_one, [(s, a.rules, a.exact, a.phase) for s in range(lo, hi)]):
            counts["exact " + row["exact"]] += 1
            if row["exact"] != "unknown":
                continue
            parts = [f"{k} {v[0]} {v[1]:.2f}s best {v[2]}" for k, v in row.items() if isinstance(v, tuple)]
            print(row["seed"], " | ".join(parts), flush=True)
            won = [k for k, v in row.items() if isinstance(v, tuple) and v[0] == "won"]
            for k in won:
                counts[f"won by {k}"] += 1
            if row.get("prove", ("",))[0] == "lost":
                counts["lost by prove"] += 1
            elif row.get("prove", ("",))[0] == "abstract-won":
                counts["prove: abstract win"] += 1
            if won:
                counts["decided by some phase: won"] += 1
            elif row.get("prove", ("",))[0] == "lost":
                counts["decided by some phase: lost"] += 1
            else:
                counts["decided by none"] += 1
    print(f"\n{a.rules}, seeds {a.seeds}, exact {a.exact} s, each phase {a.phase} s, "
          f"{a.jobs} processes, {time.perf_counter() - t0:.0f} s, cpu {os.cpu_count()}")
    for k in sorted(counts):
        print(f"  {k:32s} {counts[k]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
