"""Study machinery at scale: the parent's peak memory and deals per second, by range size.

    python benchmarks/bench_scale.py                       # 10^4, 10^6, 10^7 seeds, 60 s each at most
    python benchmarks/bench_scale.py --sizes 10000 --seconds 120 --jobs 2 --chunk 64
    python benchmarks/bench_scale.py --parquet-dir            # results as a Parquet dataset, not SQLite

Each size runs ``canfield winrate --seeds 0:N --max-nodes 1`` (a search of
one node: the machinery, not the solver, is what is measured) with a fresh
store, for at most ``--seconds``; then it is interrupted (Ctrl-C, the store
keeps what finished). Prints the parent process's peak RSS (VmHWM, read
from /proc while it runs; the workers are separate processes) and the
deals stored per second. A flat RSS across sizes means the range is never
materialised.
"""

from __future__ import annotations

import argparse
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time


def _hwm_kib(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def _stored(out: str, parquet: bool, n: int) -> int:
    if parquet:
        from canfield_solver.engine.rules import get_rules
        from canfield_solver.studies.stores.parquet import ParquetResults

        with ParquetResults(out, create=False) as ds:
            return sum(ds.count_verdicts(get_rules("canfield"), [(0, n)]).values())
    con = sqlite3.connect(out)
    done = con.execute("SELECT COUNT(*) FROM results").fetchone()[0]
    con.close()
    return done


def run(n: int, seconds: float, jobs: int, chunk: int | None, scheduler: str | None,
        parquet: bool = False) -> tuple[int, int, float]:
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "ds" if parquet else "s.sqlite")
        cmd = [sys.executable, "-m", "canfield_solver", "winrate", "--seeds", f"0:{n}", "--max-nodes", "1",
               "--jobs", str(jobs), "--parquet-dir" if parquet else "--db", out, "-q"]
        if scheduler:
            cmd += ["--scheduler", scheduler]
        if chunk:
            cmd += ["--chunk", str(chunk)]
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        peak = 0
        while p.poll() is None and time.perf_counter() - t0 < seconds:
            peak = max(peak, _hwm_kib(p.pid))
            time.sleep(0.2)
        if p.poll() is None:
            p.send_signal(signal.SIGINT)
            p.wait(timeout=60)
        wall = time.perf_counter() - t0
        return peak, _stored(out, parquet, n), wall


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="10000,1000000,10000000")
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--chunk", type=int, default=None, help="seeds per task (default: the study's own choice)")
    ap.add_argument("--scheduler", default=None, help="a Dask scheduler address instead of local processes")
    ap.add_argument("--parquet-dir", action="store_true", help="write a Parquet dataset instead of an SQLite store")
    a = ap.parse_args(argv)
    print(f"{'seeds':>12} {'parent peak RSS':>16} {'deals stored':>13} {'wall':>8} {'deals/s':>9}")
    for n in (int(x) for x in a.sizes.split(",")):
        peak, done, wall = run(n, a.seconds, a.jobs, a.chunk, a.scheduler, a.parquet_dir)
        print(f"{n:>12,} {peak / 1024:>12.1f} MiB {done:>13,} {wall:>7.1f}s {done / wall:>9.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
