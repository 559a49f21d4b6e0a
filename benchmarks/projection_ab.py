"""The exact search with and without the projection's dead ends (src/canfield_solver/search/projection.py), deal by
deal, in one process (both compiled before timing).

    python benchmarks/projection_ab.py chameleon 10 840003,840002
    CANFIELD_PROJECTION_CAP=8 python benchmarks/projection_ab.py benchmarks/rules/canfield-draw1-passes2.json 10 840002

For each deal: the verdict, nodes and seconds of the exact depth-first search alone, first without the
projection and then with it, and with it the positions it proved lost (``cut``), the abstract states its
explorations visited (``abstract_states``). The knobs are environment variables read when the projection's
module is imported: ``CANFIELD_PROJECTION_CAP`` (abstract states an exploration visits at most),
``CANFIELD_PROJECTION_GATE`` (explore only where at most this many reserve and talon cards are left).
"""

from __future__ import annotations

import json
import sys
import time

from canfield_solver import Deal, Position
from canfield_solver.budget import Deadline, Limits
from canfield_solver.engine.rules import Rules, get_rules
from canfield_solver.search import codec as C
from canfield_solver.search import depth_first


def run(r: Rules, seed: int, seconds: float, projection: bool) -> dict:
    keep: dict = {}
    t = time.perf_counter()
    o = depth_first.search(Position(Deal.from_seed(seed, r)), Limits(Deadline(seconds)), 0.0,
                           depth_first.How(keep=keep, projection=projection))
    st = keep["problem"].stats
    return {"seed": seed, "projection": projection, "verdict": "won" if o.won else "lost" if o.proved_lost else "unknown",
            "nodes": o.nodes, "seconds": round(time.perf_counter() - t, 2), "cut": int(st[C.ST_PROJECTED]),
            "abstract_states": int(st[C.ST_PSTATES])}


def main(argv: list[str]) -> None:
    name, seconds, seeds = argv[0], float(argv[1]), [int(s) for s in argv[2].split(",")]
    r = Rules.from_json_file(name) if name.endswith(".json") else get_rules(name)
    for projection in (False, True):  # both compiled before any timing
        run(r, 1, 0.2, projection)
    for seed in seeds:
        for projection in (False, True):
            print(json.dumps(run(r, seed, seconds, projection)), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
