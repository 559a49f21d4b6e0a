"""First-run cost: a `canfield solve` process that must compile the search kernel.

    python benchmarks/bench_compile.py              # seed 2, 3 runs
    python benchmarks/bench_compile.py --runs 5

Each run gives the process a fresh, empty Numba cache directory
(NUMBA_CACHE_DIR), so it compiles everything, as on a fresh install; then a
second process with the now filled cache shows the warm start. Prints the
median and the spread of the wall times, and the compile time the solver
itself reports (``stats["compile_seconds"]``) where the checkout has it.
To compare with another checkout: ``PYTHONPATH=/path/to/old/src python
benchmarks/bench_compile.py``.
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

_SNIPPET = """
import json, sys, time
t0 = time.perf_counter()
from canfield_solver.solver import solve
r = solve({seed}, "canfield")
print(json.dumps({{"wall": time.perf_counter() - t0, "search": r.seconds,
                  "compile": r.stats.get("compile_seconds")}}))
"""


def _run(seed: int, cache: str) -> dict:
    env = dict(os.environ, NUMBA_CACHE_DIR=cache)
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", _SNIPPET.format(seed=seed)], env=env, capture_output=True,
                         text=True, check=True)
    rec = json.loads(out.stdout.strip().splitlines()[-1])
    rec["process"] = time.perf_counter() - t0
    return rec


def _line(label: str, xs: list[float]) -> str:
    return f"{label:34s} median {statistics.median(xs):6.2f} s  (min {min(xs):.2f}, max {max(xs):.2f})"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=2)
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args(argv)
    cold, warm = [], []
    for _ in range(a.runs):
        with tempfile.TemporaryDirectory(prefix="numba-cache-") as cache:
            cold.append(_run(a.seed, cache))
            warm.append(_run(a.seed, cache))
    print(f"solve seed {a.seed}, {a.runs} runs, fresh Numba cache each run")
    print(_line("first process, whole", [r["process"] for r in cold]))
    if cold[0]["compile"] is not None:
        print(_line("  of which compiling (reported)", [r["compile"] for r in cold]))
    print(_line("  reported as search time", [r["search"] for r in cold]))
    print(_line("second process (cache filled)", [r["process"] for r in warm]))
    if warm[0]["compile"] is not None:
        print(_line("  of which loading (reported)", [r["compile"] for r in warm]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
