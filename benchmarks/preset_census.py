"""Where a preset's nodes go on the deals it leaves undecided (issue 59, "measure first").

    python benchmarks/preset_census.py                                  # the weak presets, seeds 5000-5009
    python benchmarks/preset_census.py --presets rainbow --seeds 5000:5020 --nodes 5000000

Each deal is searched by the one-thread depth-first search for at most ``--nodes`` nodes; the deals that
stay undecided are the census. For each preset it prints, summed over them: the table's rows and the
share that are short keys (two words) rather than long ones (four), the children already in the table
when made (transpositions), the children cut by the stuck-card test and by covering, the deepest level;
and from the positions on the search's final stack (one per level: a sample of the positions the search
works on), the moves a position has without and with the safe-move rule (how often a safe move fires,
leaving one move), the moves by kind (reserve, waste, column to column, to the foundations), and the bits
of the column stream of its key (a short key holds at most 127 less the low fields).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter

import numpy as np

from canfield_solver import Deal, Position, get_rules
from canfield_solver.budget import Limits
from canfield_solver.search import codec as C
from canfield_solver.search import depth_first
from canfield_solver.search import kernel as K
from canfield_solver.solver import load_kernel

PRESETS = "rainbow,chameleon,superior-canfield,canfield-draw1,canfield"
KINDS = {C.K_RF: "R>F", C.K_RT: "R>T", C.K_WF: "W>F", C.K_WT: "W>T", C.K_TF: "T>F", C.K_TT: "T>T"}


def stack_sample(prob) -> dict:
    """Moves, safe moves and key bits of each position on the final stack."""
    out = np.zeros(prob.moves.shape[1], np.int64)
    words = np.zeros(4, np.uint64)
    scratch = np.zeros(C.SCRATCH_SIZE, np.int64)
    levels = int(prob.stats[C.ST_DEPTH]) + 1
    kinds: Counter = Counter()
    full, safe_fired, bits, short_fit = [], 0, [], 0
    for d in range(levels):
        n_all = K.gen(prob.deal, prob.cols, prob.sc, prob.mask, d, out, False, scratch, -1, -1, -1)
        for mv in out[:n_all]:
            kinds[KINDS.get(C.move_kind(int(mv)), "?")] += 1
        n_safe = K.gen(prob.deal, prob.cols, prob.sc, prob.mask, d, out, True, scratch, -1, -1, -1)
        full.append(n_all)
        safe_fired += n_safe == 1 and n_all > 1
        nb = K.key(prob.cols, prob.sc, prob.mask, d, prob.params, words, scratch)
        bits.append(int(nb))
        short_fit += int(K.compact(words, nb, prob.params, prob.sc, d))
    return {"levels": levels, "moves": full, "safe": safe_fired, "kinds": kinds, "bits": bits, "short": short_fit}


def census(preset: str, seeds: range, nodes: int, memory_mb: int) -> None:
    rules = get_rules(preset)
    tot: Counter = Counter()
    moves: list[int] = []
    kinds: Counter = Counter()
    bits: list[int] = []
    undecided = decided = 0
    t = 0.0
    deepest = 0
    for seed in seeds:
        keep: dict = {}
        t0 = time.perf_counter()
        out = depth_first.search(Position(Deal.from_seed(seed, rules)), Limits(nodes=nodes, memory_mb=memory_mb), 0.0,
                                 depth_first.How(keep=keep))
        t += time.perf_counter() - t0
        if out.limit is None:
            decided += 1
            continue
        undecided += 1
        st = keep["problem"].stats
        for name, ix in (("nodes", C.ST_NODES), ("rows", C.ST_TTCOUNT), ("short", C.ST_SHORT), ("seen", C.ST_SEEN),
                         ("stuck", C.ST_STUCK), ("covered", C.ST_COVERED), ("merged", C.ST_MERGED)):
            tot[name] += int(st[ix])
        deepest = max(deepest, int(st[C.ST_MAXDEPTH]))
        s = stack_sample(keep["problem"])
        moves += s["moves"]
        kinds += s["kinds"]
        bits += s["bits"]
        tot["levels"] += s["levels"]
        tot["safe"] += s["safe"]
        tot["short_fit"] += s["short"]
    print(f"{preset}: {undecided} undecided at {nodes:,} nodes, {decided} decided ({t:.1f} s in all)")
    if not undecided:
        return
    n = tot["nodes"]
    print(f"  table rows {tot['rows']:,}: short keys {tot['short'] / max(1, tot['rows']):.1%}; "
          f"children seen before {tot['seen'] / n:.1%}, stuck {tot['stuck'] / n:.2%}, covered {tot['covered'] / n:.2%}; "
          f"nodes per row {n / max(1, tot['rows']):.2f}; deepest level {deepest}")
    k = sum(kinds.values())
    print(f"  stack sample, {tot['levels']} positions: moves median {statistics.median(moves):.0f}, mean "
          f"{statistics.fmean(moves):.1f}; a safe move fires in {tot['safe'] / tot['levels']:.1%}; moves by kind: "
          + ", ".join(f"{name} {c / k:.0%}" for name, c in kinds.most_common()))
    print(f"  column stream bits ({len(bits)} positions): median {statistics.median(bits):.0f}, "
          f"max {max(bits)}; positions whose key fits a short key {tot['short_fit'] / tot['levels']:.0%}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--presets", default=PRESETS)
    ap.add_argument("--seeds", default="5000:5010")
    ap.add_argument("--nodes", type=int, default=3_000_000)
    ap.add_argument("--max-memory", type=int, default=2048)
    a = ap.parse_args(argv)
    lo, hi = (int(x) for x in a.seeds.split(":"))
    load_kernel()
    for preset in a.presets.split(","):
        census(preset, range(lo, hi), a.nodes, a.max_memory)
    return 0


if __name__ == "__main__":
    sys.exit(main())
