"""Count the wins of nested rollout policy adaptation (``search.adapt``; issue 70) on given deals, each alone
under a step limit, with its knobs open: the top level, the iterations a level, beta (how much the greedy
playouts' class of a move weighs against the learned policy) and the random seed.

    python benchmarks/archive/nrpa_census.py --rules rainbow --seeds 610000,610008 --level 2 --beta 0.5 --steps 2000000

One line a deal: won (in how many moves, steps, playouts and seconds; every win replayed by the reference
engine here) or not (the best line's cards home). The count that chose the solver's defaults
(``benchmarks/results/issue70-adapt.txt``) ran a prototype of this kernel compiled in this file; the kernel
now lives in ``search/adapt/`` and this script runs it.
"""

from __future__ import annotations

import argparse
import sys

from canfield_solver import Deal
from canfield_solver.budget import Limits
from canfield_solver.engine.position import Position, replay
from canfield_solver.engine.rules import Rules, get_rules
from canfield_solver.search import adapt


def run(deal: Deal, level: int, iterations: int, beta: float, steps: int, seed: int) -> str:
    o = adapt.policy(Position(deal), Limits(nodes=steps), seed=seed, level=level, iterations=iterations, beta=beta)
    if o.won:
        ok = replay(deal, o.decode(o.solution)).position.is_won()
        return (f"won in {len(o.solution)} moves{'' if ok else ' (DID NOT REPLAY)'}, {o.nodes:,} steps, "
                f"{o.positions:,} playouts, {o.seconds:.2f} s")
    return f"not won: best {o.best_score} home, {o.nodes:,} steps, {o.positions:,} playouts, {o.stats['rounds']} searches, {o.seconds:.2f} s"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rules", default="rainbow", help="a preset or a rules JSON file")
    ap.add_argument("--seeds", required=True, help="a comma list")
    ap.add_argument("--level", type=int, default=adapt.LEVEL)
    ap.add_argument("--iterations", type=int, default=adapt.ITERATIONS)
    ap.add_argument("--beta", type=float, default=adapt.BETA)
    ap.add_argument("--steps", type=int, default=2_000_000, help="playout moves at most, a deal")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args(argv)
    rules = Rules.from_json_file(a.rules) if a.rules.endswith(".json") else get_rules(a.rules)
    for s in (int(x) for x in a.seeds.split(",")):
        print(f"{a.rules} {s}: {run(Deal.from_seed(s, rules), a.level, a.iterations, a.beta, a.steps, a.seed)}",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
