"""The layered proof against the depth-first search on the hard tail (issue 28): verdict, time, nodes and
memory of each method on each deal, every run in a process of its own so that its peak resident memory
(``ru_maxrss``) is its own.

    python benchmarks/bench_layered.py --seeds 6,263 --methods depth-first,layered --max-memory 6000
    python benchmarks/bench_layered.py --seeds 205 --methods auto            # at the default cap
    python benchmarks/bench_layered.py --seeds 204,282 --methods old@6000,auto@720 --old /tmp/old/src
    python benchmarks/bench_layered.py --seeds 263,282 --methods old:auto,auto --jobs 2 --old /tmp/old/src
    python benchmarks/bench_layered.py --seeds 3,110 --methods depth-first@6000,layered --jobs 1,2 --max-nodes 3e7

"held" is what the layered phase counts against its cap (the runs waiting, one layer's entries, its own
table and buffers); "table" is the depth-first table's bytes; RSS is the whole process's peak (Python,
NumPy and the compiled code included: about 200 MiB with nothing searched). Use ``--old PATH`` (a
checkout's ``src``) to time the depth-first search of another build in the same run (``old``), or any method
of it (``old:auto``); ``--jobs N`` gives every run N workers (the workers of each method; ``--jobs 1,2``
runs each method on 1, then on 2); ``--max-nodes`` makes runs of the same work, whose times compare. Runs alternate
old and new deal by deal, so both builds meet the same moments of a noisy machine.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

CHILD = r"""
import json, resource, sys, time
from canfield_solver import solve
from canfield_solver.solver import load_kernel
load_kernel()
seed, rules, method, seconds = int(sys.argv[1]), sys.argv[2], sys.argv[3], float(sys.argv[5])
memory = int(sys.argv[4]) or None  # 0: the machine-sized default
jobs = int(sys.argv[6])
nodes = int(float(sys.argv[7])) if sys.argv[7] != "None" else None
method = method.removeprefix("old:")
kw = {} if method == "old" else {"method": method}
if jobs > 1:
    kw["workers"] = jobs
if method in ("layered", "auto"):
    from canfield_solver.search import layered
    layered.warm_up()
t = time.perf_counter()
r = solve(seed, rules, max_memory_mb=memory, max_seconds=seconds, max_nodes=nodes, **kw)
wall = time.perf_counter() - t
print(json.dumps({"verdict": r.verdict.value, "seconds": r.seconds, "wall": wall, "nodes": r.nodes, "limit": r.limit,
                  "stats": r.stats, "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def run(seed: int, rules: str, method: str, memory: int, seconds: float, old: str | None, jobs: int,
        nodes: float | None = None) -> dict:
    env = dict(os.environ)
    if method == "old" or method.startswith("old:"):
        env["PYTHONPATH"] = old or ""
    out = subprocess.run([sys.executable, "-c", CHILD, str(seed), rules, method, str(memory), str(seconds), str(jobs),
                          str(nodes)],
                         capture_output=True, text=True, env=env, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", default="6")
    ap.add_argument("--rules", default="canfield")
    ap.add_argument("--methods", default="depth-first,layered",
                    help="auto, depth-first, layered, old; METHOD@MIB runs that one at its own memory cap")
    ap.add_argument("--max-memory", type=int, default=720, help="MiB; 0 for the default cap, sized by the machine")
    ap.add_argument("--max-seconds", type=float, default=3600.0)
    ap.add_argument("--old", default=None, help="the src folder of the build 'old' runs")
    ap.add_argument("--jobs", default="1", help="workers for every run (a list: each method on each count)")
    ap.add_argument("--max-nodes", type=float, default=None)
    a = ap.parse_args()
    print(f"# bench_layered.py --seeds {a.seeds} --rules {a.rules} --methods {a.methods} --max-memory "
          f"{a.max_memory} --max-seconds {a.max_seconds:g} --jobs {a.jobs} --max-nodes {a.max_nodes}", flush=True)
    for s in a.seeds.split(","):
        for spec, jobs in [(m, int(j)) for m in a.methods.split(",") for j in a.jobs.split(",")]:
            method, _, mib = spec.partition("@")
            r = run(int(s), a.rules, method, int(mib or a.max_memory), a.max_seconds, a.old, jobs, a.max_nodes)
            st = r["stats"]
            parts = [f"seed {s} · {a.rules} · {spec} · {jobs} worker{'s' * (jobs > 1)}: {r['verdict']}"
                     + (f" ({r['limit']})" if r["limit"] else ""), f"{r['seconds']:.1f} s",
                     f"{r['nodes']:,} nodes ({r['nodes'] / r['seconds'] / 1e6:.2f} M/s)",
                     f"RSS {r['rss_mb']:,.0f} MiB"]
            if "table_rows" in st:
                parts.append(f"table {st['table_rows'] * 16 / 2**20:,.0f} MiB ({st['table_keys']:,} rows)")
            if "layered_layers" in st:
                parts.append(f"layered: {st['layered_layers']} layers, held {st['layered_peak_mb']:,.0f} MiB, "
                             f"{st['layered_rows']:,} rows, {st['layered_expanded']:,} expanded, "
                             f"{st.get('layered_disk_mb', 0):,.0f} MiB on disk at most")
            if st.get("memory_cap_mb"):
                parts.append(f"cap {st['memory_cap_mb']:,} MiB ({st.get('memory_source', '?')})")
            if "depth_first_seconds" in st:
                parts.append(f"after {st['depth_first_seconds']:.1f} s of depth-first search")
            print(" · ".join(parts), flush=True)


if __name__ == "__main__":
    main()
