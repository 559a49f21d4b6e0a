"""The first minute of a user, two checkouts in turn: a cold first solve, the compile, warm commands.

    git worktree add /tmp/old 311fd26
    python benchmarks/bench_first_answer.py --old /tmp/old/src            # 3 cold pairs, 5 warm pairs
    python benchmarks/bench_first_answer.py --old /tmp/old/src --cold 0   # the warm commands only

Each figure is the wall time of a whole process run with ``PYTHONPATH`` set to a checkout's ``src``
(the same Python and packages for both), the old and the new run one after the other, pair by pair, so a
busy spell of this noisy machine falls on both; printed are the medians and the median of the pairs'
ratios (new / old).

- cold: ``canfield solve --seed 2`` with a fresh, empty Numba cache (NUMBA_CACHE_DIR). For a checkout that
  compiles in the background (search/quick.py) the time until that compile has filled the cache is
  printed too ("cache filled"), and the next measurement waits for it.
- compile: ``load_kernel()`` alone in a fresh cache: the kernel's compile itself.
- warm: ``canfield solve --seed 2``, ``hint``, ``check`` and ``deal`` with a filled cache, and
  ``python -c "import numpy"`` beside them (issue: a warm solve within 4x a numpy import).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
NEW = str(HERE.parent / "src")


def _bg_running() -> bool:
    return subprocess.run(["pgrep", "-f", "canfield_solver.search.kernel_load"], capture_output=True).returncode == 0


def _wait_bg() -> None:
    while _bg_running():
        time.sleep(0.2)


def _timed(cmd: list[str], src: str, cache: str, stdin: str | None = None) -> float:
    env = dict(os.environ, PYTHONPATH=src, NUMBA_CACHE_DIR=cache)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as on a user's machine: imports read compiled bytecode
    t0 = time.perf_counter()
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, input=stdin)
    took = time.perf_counter() - t0
    if out.returncode not in (0, 1, 3):
        raise SystemExit(f"{' '.join(cmd)} (PYTHONPATH={src}) exited {out.returncode}: {out.stderr.strip()[-400:]}")
    return took


CLI = [sys.executable, "-m", "canfield_solver"]
LOAD = [sys.executable, "-c", "from canfield_solver.solver import load_kernel; load_kernel()"]


def _cold(src: str) -> tuple[float, float]:
    """(first answer, cache filled) seconds of a cold ``solve --seed 2``."""
    with tempfile.TemporaryDirectory(prefix="numba-cold-") as cache:
        t0 = time.perf_counter()
        first = _timed([*CLI, "solve", "--seed", "2", "--moves"], src, cache)
        _wait_bg()
        return first, time.perf_counter() - t0


def _compile(src: str) -> float:
    with tempfile.TemporaryDirectory(prefix="numba-compile-") as cache:
        return _timed(LOAD, src, cache)


def _line(label: str, old: list[float], new: list[float]) -> str:
    ratios = [n / o for o, n in zip(old, new)]
    return (f"{label:34s} old {statistics.median(old):7.3f} s   new {statistics.median(new):7.3f} s   "
            f"new/old {statistics.median(ratios):5.2f} (pairs: {', '.join(f'{r:.2f}' for r in ratios)})")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--old", required=True, help="the other checkout's src folder")
    ap.add_argument("--cold", type=int, default=3, help="pairs of cold runs (each compiles twice: minutes)")
    ap.add_argument("--warm", type=int, default=5, help="pairs of warm runs")
    a = ap.parse_args(argv)
    _wait_bg()
    if a.cold > 0:
        firsts: dict[str, list[float]] = {"old": [], "new": []}
        filled: dict[str, list[float]] = {"old": [], "new": []}
        comp: dict[str, list[float]] = {"old": [], "new": []}
        for _ in range(a.cold):
            for tag, src in (("old", a.old), ("new", NEW)):
                f, c = _cold(src)
                firsts[tag].append(f)
                filled[tag].append(c)
            for tag, src in (("old", a.old), ("new", NEW)):
                comp[tag].append(_compile(src))
        print(f"cold, fresh Numba cache, {a.cold} pairs")
        print(_line("first solve --seed 2: answer", firsts["old"], firsts["new"]))
        print(_line("  and cache filled", filled["old"], filled["new"]))
        print(_line("compile: load_kernel() alone", comp["old"], comp["new"]))
    if a.warm:
        with tempfile.TemporaryDirectory(prefix="numba-warm-old-") as c_old, \
                tempfile.TemporaryDirectory(prefix="numba-warm-new-") as c_new:
            caches = {"old": c_old, "new": c_new}
            srcs = {"old": a.old, "new": NEW}
            for tag in ("old", "new"):
                _timed(LOAD, srcs[tag], caches[tag])
            out = subprocess.run([*CLI, "solve", "--seed", "2", "--json"], capture_output=True, text=True,
                                 env=dict(os.environ, PYTHONPATH=NEW, NUMBA_CACHE_DIR=c_new)).stdout
            line = "\n".join(json.loads(out)["moves"])
            mfile = Path(c_new) / "moves.txt"
            mfile.write_text(line + "\n")
            cmds = {
                "solve --seed 2": [*CLI, "solve", "--seed", "2"],
                "hint 2 (10 moves played)": [*CLI, "hint", "2", "-"],
                "check 2 MOVES": [*CLI, "check", "2", str(mfile)],
                "deal 42": [*CLI, "deal", "42"],
                "python -c 'import numpy'": [sys.executable, "-c", "import numpy"],
            }
            stdin = {"hint 2 (10 moves played)": "\n".join(line.splitlines()[:10]) + "\n"}
            print(f"warm (cache filled), {a.warm} pairs")
            res: dict[str, dict[str, list[float]]] = {k: {"old": [], "new": []} for k in cmds}
            for _ in range(a.warm):
                for name, cmd in cmds.items():
                    for tag in ("old", "new"):
                        res[name][tag].append(_timed(cmd, srcs[tag], caches[tag], stdin.get(name)))
            for name in cmds:
                print(_line(name, res[name]["old"], res[name]["new"]))
            numpy = statistics.median(res["python -c 'import numpy'"]["new"])
            for tag in ("old", "new"):
                print(f"  warm solve / numpy import, {tag}: {statistics.median(res['solve --seed 2'][tag]) / numpy:.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
