"""Count first (issue 70 item 4): where superior-canfield's moves go while a gap is open.

    python benchmarks/archive/gap_census.py

Eight deals the exact search leaves unknown at 2 s (seeds 1003-1036), each searched to 3 M nodes; on the
positions of its final stack (one per level: a sample of the positions the search works on), the moves the
kernel generates (its safe moves included), and how many fill a gap, by where the card comes from.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from canfield_solver import Deal, Position, get_rules
from canfield_solver.budget import Limits
from canfield_solver.search import codec as C
from canfield_solver.search import depth_first
from canfield_solver.search import kernel as K

SEEDS = [1003, 1007, 1013, 1018, 1019, 1021, 1031, 1036]
SOURCES = {C.K_RT: "reserve", C.K_WT: "waste", C.K_TT: "column"}


def main() -> None:
    rules = get_rules("superior-canfield")
    tot: Counter = Counter()
    for seed in SEEDS:
        keep: dict = {}
        out = depth_first.search(Position(Deal.from_seed(seed, rules)), Limits(nodes=3_000_000, memory_mb=2000), 0.0,
                                 depth_first.How(keep=keep))
        prob = keep["problem"]
        levels = int(prob.stats[C.ST_DEPTH]) + 1
        moves = np.zeros(prob.moves.shape[1], np.int64)
        scratch = np.zeros(C.SCRATCH_SIZE, np.int64)
        for d in range(levels):
            n = K.gen(prob.deal, prob.cols, prob.sc, prob.mask, d, moves, True, scratch, -1, -1, -1)
            tot["positions"] += 1
            tot["with a gap"] += any(prob.sc[d, C.SC_LEN + c] == 0 for c in range(rules.columns))
            tot["moves"] += n
            for mv in moves[:n]:
                kind, _src, dst, _cnt, _rd = C.unpack_move(int(mv))
                if kind in SOURCES and prob.sc[d, C.SC_LEN + dst] == 0:
                    tot["into a gap"] += 1
                    tot["into a gap from the " + SOURCES[kind]] += 1
        print(seed, out.limit, levels, dict(tot), flush=True)


if __name__ == "__main__":
    main()
