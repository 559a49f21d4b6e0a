"""Where a node's time goes: `perf` samples of the search kernel, grouped by part.

    python benchmarks/profile_kernel.py                         # seeds 6, 141, 205 of canfield, 20 M nodes each
    python benchmarks/profile_kernel.py --seeds 12 --nodes 5000000 --rules canfield-whole-pile

Needs Linux `perf` (Debian: linux-perf) and permission to record one's own
processes (kernel.perf_event_paranoid 2 or lower). For each seed it runs one
search under `perf record` and prints the share of the kernel's samples in
each part (move generation, the expansion loop, key packing, the table, the
search loop, applying moves, the stuck-card test, copying cards) and that
share of the search's nanoseconds per node.

The kernel's functions are normally inlined into ``_search`` (kernel.py's
``_INLINE``), which leaves ``perf`` nothing to tell apart, so the profiled
process sets ``CANFIELD_KERNEL_NOINLINE=1`` and searches with every function
kept as a function: the shares are those of that build, whose nodes cost
about 1.45 times as much as the inlined kernel's (the calls between them).

`perf` cannot name Numba's functions by itself: they live in memory the JIT
loaded, not in a file. So the searched process compiles the kernel afresh
(an empty Numba cache directory of its own, which costs about a minute per
seed), reads each compiled library's object code for its symbols and
sizes, and writes them to /tmp/perf-PID.map, the file `perf report` reads
for such memory. Compiling shows up in the samples too, so the shares are
over the kernel's samples only.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from collections import Counter

PARTS = {
    "move generation": ["gen", "waste_targets", "is_safe", "fits_f", "_home"],
    "expand itself": ["expand"],
    "key packing": ["key", "_put", "compact"],
    "table probes and inserts": ["_tt_find", "cover_insert_at", "insert_key", "tt_rehash", "_tt_insert_at",
                                 "key_hash", "take_wpos", "_cover_at", "cover_bits"],
    "search loop": ["search"],
    "applying a move": ["apply", "_place", "suit_code"],
    "stuck-card test": ["_stuck_walk", "_stuck_closure", "child_is_stuck", "_stuck_candidates", "_is_stuck", "_stays",
                        "_home_mask"],
    "copying cards": ["copy_cards", "reset_level", "copy_level"],
}


def _write_perf_map() -> int:
    """Write /tmp/perf-PID.map for every compiled kernel function (and the callees linked into it)."""
    from canfield_solver.search import kernel as K

    rows = set()
    for name in dir(K):
        disp = getattr(K, name)
        for cres in getattr(disp, "overloads", {}).values():
            lib = cres.library
            try:
                obj = lib._get_compiled_object()  # only kept when compiled in this process
            except (RuntimeError, ValueError):  # not compiled here, or a library without object caching
                continue
            with tempfile.NamedTemporaryFile(suffix=".o", delete=False) as f:
                f.write(obj)
            try:
                out = subprocess.run(["nm", "-S", "--defined-only", f.name], capture_output=True, text=True,
                                     check=True).stdout
            finally:
                os.unlink(f.name)
            syms = []
            for line in out.splitlines():
                parts = line.split()
                if len(parts) == 4 and parts[2].lower() in "tw":
                    syms.append((int(parts[0], 16), int(parts[1], 16), parts[3]))
            main = cres.fndesc.llvm_func_name
            at = [v for v, _, n in syms if n == main]
            if at:
                base = lib.get_pointer_to_function(main) - at[0]
                rows.update((base + v, size, sym) for v, size, sym in syms)
    with open(f"/tmp/perf-{os.getpid()}.map", "w") as f:
        for addr, size, sym in sorted(rows):
            f.write(f"{addr:x} {size:x} {sym}\n")
    return len(rows)


def _child(seed: int, nodes: int, rules: str) -> int:
    from canfield_solver import solve
    from canfield_solver.search.kernel_load import load_kernel

    load_kernel()  # compile the kernel in this process (a first solve would hand it to a background compile)
    if _write_perf_map() == 0:
        print("no kernel symbols: the kernel was not compiled in this process", file=sys.stderr)
        return 1
    res = solve(seed, rules, max_nodes=nodes, max_memory_mb=2048)
    print(f"RESULT {res.nodes} {res.positions} {res.seconds}")
    return 0


def _shares(report: str) -> Counter:
    tot: Counter = Counter()
    for line in report.splitlines():
        m = re.match(r"\s*([\d.]+)%\s+\[.\]\s+(.*)", line)
        if m:
            k = re.search(r"(?:kernel|base|stuck|pool)\d+(\w+?)B\d", m.group(2))  # the module, its name's length
            if k:
                tot[k.group(1)] += float(m.group(1))
    return tot


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", default="6,141,205", help="comma-separated seeds (default 6,141,205)")
    ap.add_argument("--rules", default="canfield")
    ap.add_argument("--nodes", type=int, default=20_000_000, help="node budget per seed (default 20,000,000)")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.child:
        return _child(int(a.seeds), a.nodes, a.rules)
    for seed in [int(s) for s in a.seeds.split(",")]:
        with tempfile.TemporaryDirectory() as tmp:
            data = os.path.join(tmp, "perf.data")
            env = dict(os.environ, NUMBA_CACHE_DIR=os.path.join(tmp, "numba"), CANFIELD_KERNEL_NOINLINE="1")
            cmd = ["perf", "record", "-F", "1999", "-q", "-o", data, sys.executable, __file__, "--child",
                   "--seeds", str(seed), "--nodes", str(a.nodes), "--rules", a.rules]
            try:
                run = subprocess.run(cmd, env=env, capture_output=True, text=True)
            except FileNotFoundError:
                print("error: perf is not installed (Debian: apt-get install linux-perf)", file=sys.stderr)
                return 2
            m = re.search(r"RESULT (\d+) (\d+) ([\d.]+)", run.stdout)
            if run.returncode != 0 or not m:
                print(f"error: the profiled search failed: {(run.stderr or run.stdout).strip()[-300:]}",
                      file=sys.stderr)
                return 1
            report = subprocess.run(["perf", "report", "-i", data, "--no-children", "--sort", "sym",
                                     "-F", "overhead,sym", "--stdio"], capture_output=True, text=True).stdout
        nodes, positions, seconds = int(m.group(1)), int(m.group(2)), float(m.group(3))
        tot = _shares(report)
        kernel = sum(tot.values())
        ns = seconds / nodes * 1e9
        print(f"{a.rules} seed {seed}: {nodes:,} nodes, {positions:,} positions, {seconds:.1f} s, "
              f"{ns:.0f} ns a node ({kernel:.0f}% of all samples are the kernel's)")
        named = set()
        for part, names in PARTS.items():
            share = sum(tot[n] for n in names) / kernel if kernel else 0.0
            named.update(names)
            print(f"  {part:<26} {100 * share:5.1f}%  {share * ns:5.0f} ns")
        rest = sum(v for k, v in tot.items() if k not in named)
        if rest:
            print(f"  {'other kernel functions':<26} {100 * rest / kernel:5.1f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
