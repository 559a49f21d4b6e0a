"""First-run cost: a `canfield solve` process that must compile the search kernel.

    python benchmarks/bench_compile.py              # seed 2, 3 runs
    python benchmarks/bench_compile.py --runs 5
    python benchmarks/bench_compile.py --what layered   # or pairs, aces-and-kings, kernel: that compile alone

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


_WARM = {
    "kernel": "from canfield_solver.solver import load_kernel as w",
    "layered": "from canfield_solver.solver import load_kernel; load_kernel()\n"
               "from canfield_solver.search.layered import warm_up as w",
    "pairs": "from canfield_solver.games.pairs_kernel import warm as w",
    "aces-and-kings": "from canfield_solver.games.aces_and_kings.kernel import warm as w",
}


def _one_compile(what: str) -> float:
    """Seconds of ``what``'s compile alone in a fresh cache (what compiles.py records; for the layered proof,
    after the kernel it uses was compiled)."""
    code = _WARM[what] + "\nimport time\nt = time.perf_counter(); w(); print(time.perf_counter() - t)"
    with tempfile.TemporaryDirectory(prefix="numba-cache-") as cache:
        out = subprocess.run([sys.executable, "-c", code], env=dict(os.environ, NUMBA_CACHE_DIR=cache),
                             capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def _line(label: str, xs: list[float]) -> str:
    return f"{label:34s} median {statistics.median(xs):6.2f} s  (min {min(xs):.2f}, max {max(xs):.2f})"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=2)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--what", choices=sorted(_WARM), help="time this compile alone (compiles.MEASURED)")
    a = ap.parse_args(argv)
    if a.what:
        xs = [_one_compile(a.what) for _ in range(a.runs)]
        print(_line(f"compile of {a.what}, fresh cache", xs))
        return 0
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
