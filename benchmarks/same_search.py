"""Node for node: two checkouts make the same searches (verdict, nodes, positions, best score, line length).

    git worktree add /tmp/before 311fd26
    python benchmarks/same_search.py --old /tmp/before/src            # seeds 0-199 of canfield and
                                                                        # canfield-whole-pile, 100 of each game
    python benchmarks/same_search.py --print > mine.jsonl              # this checkout's rows only

A refactoring that must not change behaviour (the codec, the driver loop) is held to this: every deal is
searched at a node limit, so the same code gives the same counts whatever the machine's speed, and the
comparison is exact, row by row. Each checkout runs in a process of its own with ``PYTHONPATH`` set to its
``src`` folder (this script's own code never changes between the two runs). Exit 1 on any difference.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def rows(seeds: range, game_seeds: range, nodes: int, game_nodes: int, games: list[str], presets: list[str],
         layered_seeds: range):
    import canfield_solver as cs
    from canfield_solver import games as G

    for method, span in (("auto", seeds), ("layered", layered_seeds)):
        for preset in presets:
            for seed in span:
                r = cs.solve(seed, preset, max_nodes=nodes, max_memory_mb=720, method=method)
                yield {"game": preset, "method": method, "seed": seed, "verdict": r.verdict.value,
                       "nodes": r.nodes, "positions": r.positions, "best": r.best_score, "moves": len(r.moves),
                       "limit": r.limit}
    for name in games:
        for seed in game_seeds:
            res, metrics = G.study_result(name, seed, max_nodes=game_nodes)
            yield {"game": name, "seed": seed, "verdict": res.verdict.value, "nodes": res.nodes,
                   "moves": len(res.moves), "limit": res.limit, **metrics}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--old", help="the src folder of the checkout to compare against")
    ap.add_argument("--new", default=str(HERE.parent / "src"), help="the src folder to check (default: this one)")
    ap.add_argument("--print", action="store_true", help="print this process's rows as JSON lines, compare nothing")
    ap.add_argument("--seeds", default="0:200")
    ap.add_argument("--game-seeds", default="0:100")
    ap.add_argument("--layered-seeds", default="0:30", help="seeds searched by the layered phase alone too")
    ap.add_argument("--nodes", type=int, default=300_000, help="node limit of each Canfield search")
    ap.add_argument("--game-nodes", type=int, default=200_000, help="node limit of each game's search")
    ap.add_argument("--presets", default="canfield,canfield-whole-pile")
    ap.add_argument("--games", default="nine-packets,ten-columns-dealt,aces-and-kings,bisley,suit-neighbours")
    a = ap.parse_args(argv)

    def span(s: str) -> range:
        lo, hi = (int(x) for x in s.split(":"))
        return range(lo, hi)

    if a.print:
        games = [g for g in a.games.split(",") if g]
        for row in rows(span(a.seeds), span(a.game_seeds), a.nodes, a.game_nodes, games, a.presets.split(","),
                        span(a.layered_seeds)):
            print(json.dumps(row), flush=True)
        return 0
    if not a.old:
        ap.error("--old SRC (or --print)")
    runs = {}
    for label, src in (("old", a.old), ("new", a.new)):
        cmd = [sys.executable, __file__, "--print", "--seeds", a.seeds, "--game-seeds", a.game_seeds, "--layered-seeds", a.layered_seeds, "--nodes",
               str(a.nodes), "--game-nodes", str(a.game_nodes), "--presets", a.presets, "--games", a.games]
        t0 = time.perf_counter()
        out = subprocess.run(cmd, env=dict(os.environ, PYTHONPATH=src), check=True, capture_output=True, text=True)
        runs[label] = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
        print(f"{label} ({src}): {len(runs[label])} rows in {time.perf_counter() - t0:.0f} s", flush=True)
    old, new = runs["old"], runs["new"]
    bad = [(o, n) for o, n in zip(old, new) if o != n]
    if len(old) != len(new):
        print(f"row counts differ: {len(old)} against {len(new)}")
        return 1
    by_game: dict[str, list[int]] = {}
    for o in old:
        c = by_game.setdefault(o["game"] + (f" ({o['method']})" if "method" in o else ""), [0, 0])
        c[0] += 1
        c[1] += o["nodes"]
    for g, (n, nodes) in by_game.items():
        print(f"  {g}: {n} deals, {nodes:,} nodes")
    for o, n in bad[:20]:
        print(f"DIFFERS: {o} | {n}")
    print(f"{len(old) - len(bad)} of {len(old)} rows identical")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
