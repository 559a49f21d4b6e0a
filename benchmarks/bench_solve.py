"""Solve seeds under one or more presets on worker processes and print timing statistics.

    python benchmarks/bench_solve.py                      # seeds 0-199, canfield and canfield-whole-pile, 30 s
    python benchmarks/bench_solve.py --seeds 0:50 --max-seconds 5 --rules canfield --jobs 2 --out results.json
    python benchmarks/bench_solve.py --seeds 0:300 --max-seconds 120 --jobs 1 --workers 2   # both cores on each deal

Prints, per preset: counts per verdict, median / p90 / max seconds, mean
nodes per second, total wall time and the peak RSS of the workers. With
``--out`` it also writes every per-seed result as JSON. The compile cache is
warmed in each worker before timing starts.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import resource
import statistics
import sys
import time


def _init(changes: tuple[tuple[str, str, str, float], ...] = ()) -> None:
    from canfield_solver.solver import solve

    solve(2)  # compile / load the cached kernel before timing
    try:  # and the phases that run before it where any suit builds (issue 70), in builds that have them
        from canfield_solver.search import portfolio
    except ImportError:
        return
    if changes:  # --schedule FAMILY.PHASE.FIELD=VALUE: a schedule against another
        from canfield_solver.search import schedule

        for family, phase, field, value in changes:
            rows = schedule.SCHEDULES.get(family) or schedule._loaded()[family]
            if phase not in {r.phase for r in rows} or not hasattr(rows[0], field):
                raise SystemExit(f"schedule {family!r} has no {phase}.{field}")
            kind = type(getattr(schedule.Row(phase), field) or 0.0)
            schedule.SCHEDULES[family] = schedule.changed(rows, phase, **{field: kind(value)})
    portfolio.warm_up()


def _work(args: tuple[int, str, float, int]) -> dict:
    from canfield_solver.solver import solve

    seed, rules, max_seconds, workers = args
    if rules.endswith(".json"):  # a rules file (benchmarks/rules/)
        from canfield_solver.engine.rules import Rules

        r = solve(seed, Rules.from_json_file(rules), max_seconds=max_seconds, workers=workers)
    else:
        r = solve(seed, rules, max_seconds=max_seconds, workers=workers)
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"seed": seed, "rules": rules, "verdict": r.verdict.value, "seconds": r.seconds, "nodes": r.nodes,
            "positions": r.positions, "best_score": r.best_score, "moves": len(r.moves), "rss_mb": rss_mb}


def _pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", default="0:200", help="START:STOP (default 0:200)")
    ap.add_argument("--rules", default="canfield,canfield-whole-pile", help="comma-separated presets or rules "
                    "JSON files")
    ap.add_argument("--max-seconds", type=float, default=30.0)
    ap.add_argument("--jobs", type=int, default=2, help="worker processes, one deal each at a time")
    ap.add_argument("--workers", type=int, default=1, help="threads on each deal (solve(workers=N), --jobs N "
                    "of the CLI)")
    ap.add_argument("--tail", type=float, default=None, help="also list every deal that took at least this "
                    "many seconds")
    ap.add_argument("--out", default=None, help="write per-seed results to this JSON file")
    ap.add_argument("--schedule", action="append", default=[], metavar="FAMILY.PHASE.FIELD=VALUE",
                    help="change a row of a schedule (search.schedule) in the workers before timing, e.g. "
                    "any-suit.adapt.share=0.3 (share=0 leaves the phase out)")
    a = ap.parse_args(argv)
    lo, hi = (int(x) for x in a.seeds.split(":"))
    all_rows = []
    ctx = mp.get_context("spawn")
    changes = tuple((*kv.split("=", 1)[0].split(".", 2), float(kv.split("=", 1)[1])) for kv in a.schedule)
    with ctx.Pool(a.jobs, initializer=_init, initargs=(changes,)) as pool:
        for rules in a.rules.split(","):
            t0 = time.perf_counter()
            rows = pool.map(_work, [(s, rules, a.max_seconds, a.workers) for s in range(lo, hi)], chunksize=1)
            wall = time.perf_counter() - t0
            all_rows += rows
            secs = [r["seconds"] for r in rows]
            counts = {v: sum(r["verdict"] == v for r in rows) for v in ("solved", "unsolvable", "unknown")}
            nps = sum(r["nodes"] for r in rows) / max(sum(secs), 1e-9)
            print(f"{rules}: seeds {lo}..{hi - 1}, {a.jobs} workers x {a.workers} threads, "
                  f"{a.max_seconds:g} s limit")
            print(f"  verdicts   solved {counts['solved']}  unsolvable {counts['unsolvable']}  "
                  f"unknown {counts['unknown']}")
            print(f"  seconds    median {statistics.median(secs):.3f}  p90 {_pct(secs, 0.9):.3f}  "
                  f"max {max(secs):.3f}  sum {sum(secs):.1f}")
            print(f"  wall       {wall:.1f} s")
            print(f"  nodes/s    {nps / 1e6:.2f} M (mean over all search time, per worker)")
            print(f"  peak RSS   {max(r['rss_mb'] for r in rows):.0f} MiB (largest worker)")
            slow = sorted(rows, key=lambda r: -r["seconds"])[:5]
            print("  slowest    " + ", ".join(f"{r['seed']}:{r['verdict']}:{r['seconds']:.1f}s" for r in slow))
            print("  unknown    " + (", ".join(str(r["seed"]) for r in rows if r["verdict"] == "unknown") or "none"))
            if a.tail is not None:
                tail = sorted((r for r in rows if r["seconds"] >= a.tail), key=lambda r: -r["seconds"])
                print(f"  >= {a.tail:g} s  " + (", ".join(f"{r['seed']}:{r['verdict']}:{r['seconds']:.1f}s"
                                                       for r in tail) or "none"))
            sys.stdout.flush()
    if a.out:
        with open(a.out, "w") as fh:
            json.dump(all_rows, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
