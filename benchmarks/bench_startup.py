"""Wall time of a whole `canfield solve` process with the compiled kernel already cached.

    python benchmarks/bench_startup.py            # seed 2, 5 runs
    python benchmarks/bench_startup.py --seed 1 --runs 3

Prints the median and the spread of the runs (the first, cache-filling run is
not counted).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=2)
    ap.add_argument("--runs", type=int, default=5)
    a = ap.parse_args(argv)
    cmd = [sys.executable, "-m", "canfield_solver", "solve", "--seed", str(a.seed), "--json"]
    subprocess.run(cmd, capture_output=True, check=False)  # fill the cache
    times = []
    for _ in range(a.runs):
        t0 = time.perf_counter()
        out = subprocess.run(cmd, capture_output=True, text=True, check=False)
        times.append(time.perf_counter() - t0)
        if out.returncode not in (0, 1, 3):
            print(out.stderr, file=sys.stderr)
            return 1
    print(f"canfield solve --seed {a.seed}: median {statistics.median(times):.3f} s over {a.runs} runs "
          f"(min {min(times):.3f}, max {max(times):.3f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
