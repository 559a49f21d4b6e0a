"""Run a tier of the tests many times in a row and count every failure by test (issue 71: flake hunting as a
habit).

    python benchmarks/flake_hunt.py --tier processes --runs 30 --busy-every 2   # signals, processes, servers, browser
    python benchmarks/flake_hunt.py --tier integration --runs 5                  # -m "exhaustive or integration"
    python benchmarks/flake_hunt.py --tier default --runs 10 --busy-every 3      # the README's test command

Each run is ``python -m pytest -q -n 2`` over the tier's selection with its own JUnit report; with
``--busy-every K`` every K-th run has a busy loop on one core beside it (the load CI's machine may have);
with ``--fresh-cache`` every run compiles into an empty Numba cache, as CI's fresh clone does (a warm cache
hid a test that needed the first compiles to fit solve's default time limit).
A line a run (seconds, passed, failed, whether loaded) goes to stdout and to ``--log`` (a failed run's whole
output to ``LOG.TIER-runN.txt``); at the end, every
test that failed in any run with its count and the first line of its first failure. Exit 1 if any run
failed. The counts quoted in docs/development.md come from this script.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# The tests that start processes, send signals, run servers or drive the browser (grep for subprocess, signal,
# Popen, multiprocessing, uvicorn, selenium in tests/), in every tier but the slow one.
PROCESSES = ["tests/test_signals.py", "tests/test_play.py", "tests/test_play_games.py", "tests/test_play_browser.py",
             "tests/test_play_games_browser.py", "tests/test_replay_page.py", "tests/test_first_answer.py",
             "tests/test_study.py", "tests/test_layered_workers.py", "tests/test_memory.py", "tests/test_startup.py",
             "tests/test_pysolfc.py", "tests/test_doc_examples.py", "tests/test_dataset.py", "tests/test_jit_cache.py"]
TIERS = {
    "processes": PROCESSES + ["-m", "not slow"],
    "integration": ["-m", "exhaustive or integration"],
    "default": [],
}


def _busy() -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", "while True: pass"])


def _failures(report: Path) -> tuple[int, list[tuple[str, str]]]:
    """(tests run, [(test id, first line of its failure)]) from a JUnit report."""
    if not report.exists():
        return 0, [("<no report>", "pytest wrote no report")]
    root = ET.parse(report).getroot()
    run = 0
    failed = []
    for case in root.iter("testcase"):
        run += 1
        for bad in list(case.findall("failure")) + list(case.findall("error")):
            name = f"{case.get('classname')}::{case.get('name')}"
            failed.append((name, (bad.get("message") or "").splitlines()[0][:200] if bad.get("message") else ""))
    return run, failed


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tier", choices=sorted(TIERS), default="processes")
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--busy-every", type=int, default=0, help="a busy loop beside every K-th run (0: none)")
    ap.add_argument("--log", default=None, help="append each run's line here too")
    ap.add_argument("--fresh-cache", action="store_true",
                    help="each run compiles into an empty Numba cache (NUMBA_CACHE_DIR), as a fresh clone in CI does")
    a = ap.parse_args(argv)
    counts: Counter = Counter()
    first: dict[str, str] = {}
    bad_runs = 0
    t_all = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(1, a.runs + 1):
            loaded = a.busy_every > 0 and i % a.busy_every == 0
            busy = _busy() if loaded else None
            report = Path(tmp) / f"run{i}.xml"
            cmd = [sys.executable, "-m", "pytest", "-q", "-n", "2", "-p", "no:cacheprovider", f"--junitxml={report}",
                   *TIERS[a.tier]]
            t0 = time.perf_counter()
            env = dict(os.environ)
            if a.fresh_cache:
                env["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix=f"cache{i}-", dir=tmp)
            try:
                done = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                      env=env)
            finally:
                if busy is not None:
                    busy.kill()
                    busy.wait()
            secs = time.perf_counter() - t0
            ran, failed = _failures(report)
            for name, msg in failed:
                counts[name] += 1
                first.setdefault(name, msg)
            bad_runs += bool(failed) or done.returncode not in (0, 5)
            line = (f"{a.tier} run {i}/{a.runs}: {secs:.0f} s, {ran} tests, {len(failed)} failed"
                    f"{', beside a busy loop' if loaded else ''}{', fresh cache' if a.fresh_cache else ''}"
                    f" (pytest exit {done.returncode})")
            print(line, flush=True)
            if a.log:
                with open(a.log, "a", encoding="utf-8") as fh:
                    fh.write(line + "\n")
            if done.returncode not in (0, 1, 5):  # not a test failure: show what pytest said
                print(done.stdout[-2000:], flush=True)
            if failed and a.log:  # the whole output of a run that failed, beside the log, to find the cause
                Path(f"{a.log}.{a.tier}-run{i}.txt").write_text(done.stdout, encoding="utf-8")
    print(f"\n{a.tier}: {a.runs} runs in {time.perf_counter() - t_all:.0f} s, {bad_runs} with a failure "
          f"(cpu {os.cpu_count()})")
    for name, n in counts.most_common():
        print(f"  {n}x {name}: {first[name]}")
    return 1 if bad_runs else 0


if __name__ == "__main__":
    sys.exit(main())
