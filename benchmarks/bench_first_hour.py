"""A newcomer's first minute, measured: the same short ``solve`` run back to back on a fresh install.

    python benchmarks/bench_first_hour.py                          # this checkout, 60 s of runs
    python benchmarks/bench_first_hour.py --old /tmp/old/src       # another checkout first, then this one

Each checkout gets a fresh, empty Numba cache (NUMBA_CACHE_DIR) and runs
``canfield solve --rules rainbow --seed 17 --max-seconds 2`` (``--args`` to change it) again and again, each
run starting as the one before ends, until ``--seconds`` have passed since the first began and at least
``--after`` runs came after the first solved one. Printed for each run: when it started (seconds after the
first), its wall time, its verdict line and the compile lines it printed; then a summary: when the first
solved run started, whether every run after it was solved, how many runs said "first run of this install",
the longest run, and whether every ``unknown`` before the first solved run named the compile it waited for.
Background compiles left running are waited for before the next checkout starts.
"""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
NEW = str(HERE.parent / "src")


def _background_running() -> bool:
    return subprocess.run(["pgrep", "-f", r"canfield_solver\.search\.(kernel_load|portfolio|warmup)"],
                          capture_output=True).returncode == 0


def one_checkout(src: str, args: list[str], seconds: float, after: int) -> dict:
    cache = tempfile.mkdtemp(prefix="canfield-first-hour-")
    env = dict(os.environ, PYTHONPATH=src, NUMBA_CACHE_DIR=cache)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    runs = []
    t_first = time.perf_counter()
    while True:
        t0 = time.perf_counter()
        out = subprocess.run([sys.executable, "-m", "canfield_solver", *args], env=env, capture_output=True,
                             text=True)
        took = time.perf_counter() - t0
        verdict = next((ln for ln in out.stdout.splitlines() if ": " in ln), out.stdout.strip()[:120])
        runs.append({"start": t0 - t_first, "wall": took, "rc": out.returncode, "line": verdict,
                     "stderr": [ln for ln in out.stderr.splitlines() if ln.strip()]})
        solved = [i for i, r in enumerate(runs) if r["rc"] == 0]
        if time.perf_counter() - t_first > seconds and solved and len(runs) - solved[0] > after:
            break
        if time.perf_counter() - t_first > 5 * seconds:
            break
    while _background_running():
        time.sleep(0.2)
    return {"src": src, "runs": runs}


def summary(res: dict) -> list[str]:
    runs = res["runs"]
    lines = [f"== {res['src']}"]
    for i, r in enumerate(runs, 1):
        lines.append(f"run {i:2d} at {r['start']:5.1f} s, {r['wall']:4.2f} s wall, exit {r['rc']}: {r['line']}")
        lines += [f"        {ln}" for ln in r["stderr"]]
    solved = [i for i, r in enumerate(runs) if r["rc"] == 0]
    first = solved[0] if solved else None
    firsts = sum(any("first run of this install" in ln for ln in r["stderr"] + [r["line"]]) for r in runs)
    unnamed = [i + 1 for i, r in enumerate(runs[: first if first is not None else len(runs)])
               if r["rc"] == 3 and not any("compil" in ln for ln in r["stderr"] + [r["line"]])]
    when = "none" if first is None else f"run {first + 1}, {runs[first]['start']:.1f} s after the first"
    lines.append(f"first solved run: {when}; every run after it solved: "
                 f"{first is not None and all(r['rc'] == 0 for r in runs[first:])}")
    lines.append(f"'first run of this install' said by {firsts} run(s); longest run {max(r['wall'] for r in runs):.2f} s; "
                 f"unknown runs before the first solved one that name no compile: {unnamed or 'none'}")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--old", help="another checkout's src folder, run first")
    ap.add_argument("--args", default="solve --rules rainbow --seed 17 --max-seconds 2")
    ap.add_argument("--seconds", type=float, default=60.0, help="run for at least this long (default 60)")
    ap.add_argument("--after", type=int, default=5, help="and at least this many runs after the first solved one")
    a = ap.parse_args()
    args = shlex.split(a.args)
    while _background_running():
        time.sleep(0.2)
    for src in ([a.old] if a.old else []) + [NEW]:
        for line in summary(one_checkout(src, args, a.seconds, a.after)):
            print(line, flush=True)


if __name__ == "__main__":
    main()
