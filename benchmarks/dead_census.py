"""Count first, for the next design of issue 70 (docs/solver-notes.md, "What is left, and the next design"):
the abstract game's dead states, closed by strongly connected components, as a table an exact search
consults.

    python benchmarks/dead_census.py --rules rainbow --seeds 600001,600005,600013 --abstract-nodes 5000000 \
        --exact-nodes 5000000

For each deal, two measurements with prototypes compiled here (a measurement tool, not the solver's code):

1. The abstract game over classes (``search.ranks``'s PROVE, its moves and keys) with Tarjan's low links:
   a state whose strongly connected component closes with no abstract win inside is dead (every real
   position of it is lost: the abstract game's argument applied from that state); a line cut at the depth
   cap marks nothing above it. It stops at an abstract win, at exhaustion, at ``--abstract-nodes`` or when
   its table is full. Prints its rows and how many closed dead.
2. A plain exact depth-first search (real moves with the kernel's safe moves, every position by its full
   long key in a table of its own, no stuck test, no short keys) to ``--exact-nodes``, once alone and
   once skipping every child whose class key is a dead row: nodes, whether it exhausted (a loss proved),
   the children the dead table cut, and of the others how many have a class key the abstract search met
   (an open row) or never reached (no row).

The two exact runs are the same search but for the cut, so their node counts and verdicts say what the
table would buy; the solver's own exact search differs (short keys, covering, move orders), so the counts
are a guide to the design, not a prediction of it.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
from numba import njit

from canfield_solver import Deal
from canfield_solver.engine.position import Position
from canfield_solver.engine.rules import get_rules
from canfield_solver.search import codec as C
from canfield_solver.search import kernel as K
from canfield_solver.search.arrays import LoneSearch
from canfield_solver.search.ranks import classes
from canfield_solver.search.ranks import kernel as RK

ONSTACK = np.uint64(1) << np.uint64(62)
DEAD = np.uint64(1) << np.uint64(61)
POISON = np.uint64(1) << np.uint64(60)
INDEX = (np.uint64(1) << np.uint64(40)) - np.uint64(1)
FULL, WON, EXHAUSTED, BUDGET = 1, 2, 3, 4


@njit(cache=True)
def _find_or_insert(table, words, width):
    """(row, 1 if new) for ``words[:width]`` in an open-addressing table (a row of zeros is empty)."""
    rows = table.shape[0]
    i = np.int64(K.slot(K.key_hash(words), rows))
    while True:
        if table[i, 0] == 0:
            for j in range(width):
                table[i, j] = words[j]
            return i, 1
        same = True
        for j in range(width):
            if table[i, j] != words[j]:
                same = False
                break
        if same:
            return i, 0
        i += 1
        if i == rows:
            i = 0


@njit(cache=True)
def _find(table, words, width):
    """The row of ``words[:width]``, or -1."""
    rows = table.shape[0]
    i = np.int64(K.slot(K.key_hash(words), rows))
    while True:
        if table[i, 0] == 0:
            return -1
        same = True
        for j in range(width):
            if table[i, j] != words[j]:
                same = False
                break
        if same:
            return i
        i += 1
        if i == rows:
            i = 0


@njit(cache=True)
def scc_prove(deal, stack, table, meta, peers, cls, dirty, words, scratch, idx, low, rowof, tst, out, budget,
              max_rows):
    """The abstract game with Tarjan's low links; ``out``: nodes, rows, dead rows, truncated. Returns how
    it ended (FULL, WON, EXHAUSTED, BUDGET)."""
    params, reserve, talon, _lut, _bm = deal
    cols, sc, mask, moves, nmoves, midx = stack
    maxd = sc.shape[0] - 1
    won = 4 * params[P_RANKS_]
    counter = 0
    tsp = 0
    RK._class_key(cols, sc, mask, 0, params, cls, words, scratch)
    r0, _new = _find_or_insert(table, words, 3)
    out[1] += 1
    meta[r0] = ONSTACK | np.uint64(counter)
    idx[0] = counter
    low[0] = counter
    rowof[0] = r0
    counter += 1
    tst[tsp] = r0
    tsp += 1
    nmoves[0] = -1
    d = 0
    while True:
        if out[0] >= budget:
            return BUDGET
        if out[1] >= max_rows:
            return FULL
        if nmoves[d] < 0:
            n = K.gen(deal, cols, sc, mask, d, moves[d], False, scratch, -1, -1, -1)
            n = RK._swap_moves(deal, cols, sc, d, peers, moves[d], n)
            nmoves[d] = n
            midx[d] = 0
            dirty[d] = 0
            K.copy_cards(cols, sc, d)
        if midx[d] >= nmoves[d]:
            if low[d] == idx[d]:  # a component closes with no abstract win inside: every row of it is dead
                while True:
                    tsp -= 1
                    r = tst[tsp]
                    meta[r] = (meta[r] & INDEX) | DEAD
                    out[2] += 1
                    if r == rowof[d]:
                        break
            if d == 0:
                if low[0] < 0:  # truncated somewhere: what is still open is not known dead
                    while tsp > 0:
                        tsp -= 1
                        meta[tst[tsp]] = (meta[tst[tsp]] & INDEX) | POISON
                return EXHAUSTED
            d -= 1
            if low[d + 1] < low[d]:
                low[d] = low[d + 1]
            continue
        mv = moves[d, midx[d]]
        midx[d] += 1
        if d + 1 >= maxd:
            out[3] = 1
            low[d] = -1
            continue
        if dirty[d] == 1:
            K.copy_cards(cols, sc, d)
            dirty[d] = 0
        K.reset_level(cols, sc, mask, d)
        swap = (mv >> RK.SWAP_SHIFT) & 0xFF if K.move_kind(mv & C.MOVE_BITS) == C.K_TF else 0
        if swap > 0:
            RK._swap_in(cols, sc, d + 1, K.move_src(mv), swap - 1, params)
            dirty[d] = 1
            mv = mv & ~(np.int64(0xFF) << RK.SWAP_SHIFT)
        K.apply(cols, sc, mask, d + 1, mv, params, reserve, talon)
        out[0] += 1
        if K.score(sc, d + 1) == won:
            return WON
        RK._class_key(cols, sc, mask, d + 1, params, cls, words, scratch)
        r, new = _find_or_insert(table, words, 3)
        if new == 0:
            m = meta[r]
            if m & ONSTACK:
                k = np.int64(m & INDEX)
                if k < low[d]:
                    low[d] = k
            elif m & POISON:
                low[d] = -1
            continue
        out[1] += 1
        meta[r] = ONSTACK | np.uint64(counter)
        d += 1
        idx[d] = counter
        low[d] = counter
        rowof[d] = r
        counter += 1
        tst[tsp] = r
        tsp += 1
        nmoves[d] = -1


@njit(cache=True)
def exact(deal, stack, table, dead_table, dead_meta, use_dead, cls, words, cwords, scratch, out, budget,
          max_rows):
    """A plain exact depth-first search; ``out``: nodes, rows, children cut by the dead table, truncated, new
    children whose class key is a row of the abstract search but not dead, and those whose is no row.
    Returns how it ended (FULL, WON, EXHAUSTED, BUDGET)."""
    params, reserve, talon, _lut, _bm = deal
    cols, sc, mask, moves, nmoves, midx = stack
    maxd = sc.shape[0] - 1
    won = 4 * params[P_RANKS_]
    K.key(cols, sc, mask, 0, params, words, scratch)
    _find_or_insert(table, words, 4)
    out[1] += 1
    nmoves[0] = -1
    d = 0
    while True:
        if out[0] >= budget:
            return BUDGET
        if out[1] >= max_rows:
            return FULL
        if nmoves[d] < 0:
            nmoves[d] = K.gen(deal, cols, sc, mask, d, moves[d], True, scratch, -1, -1, -1)
            midx[d] = 0
            K.copy_cards(cols, sc, d)
        if midx[d] >= nmoves[d]:
            if d == 0:
                return EXHAUSTED
            d -= 1
            continue
        mv = moves[d, midx[d]]
        midx[d] += 1
        if d + 1 >= maxd:
            out[3] = 1
            continue
        K.reset_level(cols, sc, mask, d)
        K.apply(cols, sc, mask, d + 1, mv, params, reserve, talon)
        out[0] += 1
        if K.score(sc, d + 1) == won:
            return WON
        K.key(cols, sc, mask, d + 1, params, words, scratch)
        _r, new = _find_or_insert(table, words, 4)
        if new == 0:
            continue
        out[1] += 1
        if use_dead:
            RK._class_key(cols, sc, mask, d + 1, params, cls, cwords, scratch)
            r = _find(dead_table, cwords, 3)
            if r >= 0 and dead_meta[r] & DEAD:
                out[2] += 1
                continue
            out[4 if r >= 0 else 5] += 1
        d += 1
        nmoves[d] = -1


P_RANKS_ = C.P_RANKS
NAMES = {FULL: "table full", WON: "won", EXHAUSTED: "exhausted", BUDGET: "node budget"}


def _stack(prob: LoneSearch, extra: int) -> C.StackArrays:
    moves = np.zeros((prob.moves.shape[0], prob.moves.shape[1] + extra), np.int64)
    return C.StackArrays(prob.cols.copy(), prob.sc.copy(), prob.mask.copy(), moves, prob.nmoves.copy(),
                         prob.midx.copy())


def census(start: Position, abstract_nodes: int, exact_nodes: int, rows: int) -> str:
    cls, peers = classes(start.rules)
    prob = LoneSearch(start)
    levels = prob.moves.shape[0]
    table = np.zeros((rows, 3), np.uint64)
    meta = np.zeros(rows, np.uint64)
    out = np.zeros(4, np.int64)
    t0 = time.perf_counter()
    how = scc_prove(prob.deal, _stack(prob, 4 * start.rules.columns), table, meta, peers, cls,
                    np.zeros(levels, np.int64), np.zeros(4, np.uint64), prob.scratch, np.zeros(levels, np.int64),
                    np.zeros(levels, np.int64), np.zeros(levels, np.int64), np.zeros(rows, np.int64), out,
                    abstract_nodes, int(rows * 0.7))
    t1 = time.perf_counter() - t0
    line = (f"abstract: {NAMES[how]} after {out[0]:,} nodes, {out[1]:,} rows, {out[2]:,} dead "
            f"({100 * out[2] / max(out[1], 1):.0f}%){', truncated' if out[3] else ''}, {t1:.1f} s")
    for use in (False, True):
        p2 = LoneSearch(start)
        ex = np.zeros((rows, 4), np.uint64)
        o2 = np.zeros(6, np.int64)
        t0 = time.perf_counter()
        h2 = exact(p2.deal, _stack(p2, 0), ex, table, meta, use, cls, np.zeros(4, np.uint64), np.zeros(4, np.uint64),
                   p2.scratch, o2, exact_nodes, int(rows * 0.7))
        line += (f" | exact{' + dead' if use else ''}: {NAMES[h2]}, {o2[0]:,} nodes"
                 f"{f', {o2[2]:,} children cut, {o2[4]:,} in open rows, {o2[5]:,} in no row' if use else ''}"
                 f", {time.perf_counter() - t0:.1f} s")
    return line


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rules", default="rainbow")
    ap.add_argument("--seeds", required=True, help="a comma list")
    ap.add_argument("--abstract-nodes", type=int, default=5_000_000)
    ap.add_argument("--exact-nodes", type=int, default=5_000_000)
    ap.add_argument("--rows", type=int, default=1 << 24, help="rows of each table (never grown)")
    a = ap.parse_args(argv)
    rules = get_rules(a.rules)
    for s in (int(x) for x in a.seeds.split(",")):
        print(f"{a.rules} {s}: {census(Position(Deal.from_seed(s, rules)), a.abstract_nodes, a.exact_nodes, a.rows)}",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
