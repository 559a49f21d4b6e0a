"""Count first, for the next design of issue 70 (docs/solver-notes.md, "What is left, and the next design"):
the abstract game's dead states, closed by strongly connected components, as a table an exact search
consults.

    python benchmarks/archive/dead_census.py --rules rainbow --seeds 600001,600005,600013 --abstract-nodes 5000000 \
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

With ``--on-demand Q[,Q...]`` it measures instead the design those counts pointed to (``exact_ondemand``):
the same plain exact search asking, for every new child whose class key has no verdict yet, a bounded
abstract search of Q nodes from that child's position (``query``: the abstract game with Tarjan's low links
into one table shared by every query; a row whose component closed with no abstract win is dead for good,
reaching a row an earlier query saw win is an abstract win, rows a query left open are searched again by
the next), cutting the child when its row closed dead, while the abstract nodes stay under ``--ratio``
times the exact ones:

    python benchmarks/archive/dead_census.py --rules chameleon --seeds 610032,610035 --on-demand 1000 --ratio 4 \
        --exact-nodes 3000000 --rows 33554432

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


LIVE = np.uint64(1) << np.uint64(59)   # an abstract win is reachable from this row (a query won)
TRIED = np.uint64(1) << np.uint64(58)  # a query from this row ran out of its budget: not asked again
MARKS = ONSTACK | DEAD | POISON | LIVE | TRIED


@njit(cache=True)
def query(deal, stack, table, meta, peers, cls, dirty, words, scratch, idx, low, rowof, tst, out, budget,
          max_rows):
    """The abstract game from the position at level 0, with Tarjan's low links, into a table shared by every
    query: a DEAD row is skipped (its whole reachable part closed with no abstract win), reaching a LIVE row
    is an abstract win; a row left open by a query that ran out (meta without marks) is searched again.
    At an abstract win every row still on Tarjan's stack reaches it (LIVE); at a budget every row still on
    the stack is left unmarked, the root TRIED. ``out``: nodes, rows, dead rows. Returns how it ended and
    the root's row."""
    params, reserve, talon, _lut, _bm = deal
    cols, sc, mask, moves, nmoves, midx = stack
    maxd = sc.shape[0] - 1
    won = 4 * params[P_RANKS_]
    counter = 0
    tsp = 0
    RK._class_key(cols, sc, mask, 0, params, cls, words, scratch)
    r0, new = _find_or_insert(table, words, 3)
    out[1] += new
    meta[r0] = ONSTACK | np.uint64(counter)
    idx[0] = counter
    low[0] = counter
    rowof[0] = r0
    counter += 1
    tst[tsp] = r0
    tsp += 1
    nmoves[0] = -1
    d = 0
    spent = 0
    how = EXHAUSTED
    while True:
        if spent >= budget or out[1] >= max_rows:
            how = BUDGET
            break
        if nmoves[d] < 0:
            n = K.gen(deal, cols, sc, mask, d, moves[d], False, scratch, -1, -1, -1)
            n = RK._swap_moves(deal, cols, sc, d, peers, moves[d], n)
            nmoves[d] = n
            midx[d] = 0
            dirty[d] = 0
            K.copy_cards(cols, sc, d)
        if midx[d] >= nmoves[d]:
            if low[d] == idx[d]:
                while True:
                    tsp -= 1
                    r = tst[tsp]
                    meta[r] = DEAD
                    out[2] += 1
                    if r == rowof[d]:
                        break
            if d == 0:
                break
            d -= 1
            if low[d + 1] < low[d]:
                low[d] = low[d + 1]
            continue
        mv = moves[d, midx[d]]
        midx[d] += 1
        if d + 1 >= maxd:
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
        spent += 1
        if K.score(sc, d + 1) == won:
            how = WON
            break
        RK._class_key(cols, sc, mask, d + 1, params, cls, words, scratch)
        r, new = _find_or_insert(table, words, 3)
        out[1] += new
        m = meta[r]
        if m & LIVE:
            how = WON
            break
        if m & DEAD:
            continue
        if m & ONSTACK:
            k = np.int64(m & INDEX)
            if k < low[d]:
                low[d] = k
            continue
        meta[r] = ONSTACK | np.uint64(counter)
        d += 1
        idx[d] = counter
        low[d] = counter
        rowof[d] = r
        counter += 1
        tst[tsp] = r
        tsp += 1
        nmoves[d] = -1
    # rows still on Tarjan's stack: every one reaches the line's end (WON), or is not known (else)
    while tsp > 0:
        tsp -= 1
        meta[tst[tsp]] = LIVE if how == WON else np.uint64(0)
    if how != WON and meta[r0] & DEAD == 0:
        meta[r0] = TRIED
        if how == EXHAUSTED:
            how = BUDGET  # cut at the depth cap: nothing proved
    return how, r0


@njit(cache=True)
def exact_ondemand(deal, stack, table, astack, atable, ameta, peers, cls, adirty, aidx, alow, arowof, atst,
                   words, cwords, scratch, ascratch, out, aout, budget, max_rows, qbudget, ratio):
    """The plain exact search of ``exact``, asking the abstract game about every new child whose class key
    has no verdict yet, with ``qbudget`` abstract nodes a query, while the abstract nodes spent stay under
    ``ratio`` times the exact ones. ``out``: nodes, rows, children cut by a query, cut by a row an earlier
    query left dead, queries, queries that won abstractly, queries that ran out."""
    params, reserve, talon, _lut, _bm = deal
    cols, sc, mask, moves, nmoves, midx = stack
    acols, asc, amask = astack[0], astack[1], astack[2]
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
        if out[1] >= max_rows or aout[1] >= max_rows:
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
        RK._class_key(cols, sc, mask, d + 1, params, cls, cwords, scratch)
        r = _find(atable, cwords, 3)
        m = ameta[r] if r >= 0 else np.uint64(0)
        if m & DEAD:
            out[3] += 1
            continue
        if m & (LIVE | TRIED) == 0 and aout[0] < ratio * out[0]:
            for c in range(MAXCOLS_):
                for i in range(sc[d + 1, C.SC_LEN + c]):
                    acols[0, c, i] = cols[d + 1, c, i]
            for j in range(sc.shape[1]):
                asc[0, j] = sc[d + 1, j]
            amask[0] = mask[d + 1]
            out[4] += 1
            how, r0 = query(deal, astack, atable, ameta, peers, cls, adirty, cwords, ascratch, aidx, alow, arowof,
                            atst, aout, qbudget, max_rows)
            if ameta[r0] & DEAD:
                out[2] += 1
                continue
            out[5 if how == WON else 6] += 1
        d += 1
        nmoves[d] = -1


MAXCOLS_ = C.MAXCOLS


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


def ondemand(start: Position, exact_nodes: int, rows: int, qbudget: int, ratio: float) -> str:
    """The exact search asking the abstract game on demand (``exact_ondemand``): one line of counts."""
    cls, peers = classes(start.rules)
    prob = LoneSearch(start)
    aprob = LoneSearch(start)
    levels = prob.moves.shape[0]
    out = np.zeros(7, np.int64)
    aout = np.zeros(3, np.int64)
    t0 = time.perf_counter()
    how = exact_ondemand(prob.deal, _stack(prob, 0), np.zeros((rows, 4), np.uint64), _stack(aprob, 4 * start.rules.columns),
                         np.zeros((rows, 3), np.uint64), np.zeros(rows, np.uint64), peers, cls,
                         np.zeros(levels, np.int64), np.zeros(levels, np.int64), np.zeros(levels, np.int64),
                         np.zeros(levels, np.int64), np.zeros(rows, np.int64), np.zeros(4, np.uint64),
                         np.zeros(4, np.uint64), prob.scratch, aprob.scratch, out, aout, exact_nodes, int(rows * 0.7),
                         qbudget, ratio)
    return (f"on demand ({qbudget:,} a query, ratio {ratio:g}): {NAMES[how]}, {out[0]:,} exact nodes, "
            f"{aout[0]:,} abstract nodes, {aout[1]:,} rows ({aout[2]:,} dead); {out[4]:,} queries: {out[2]:,} dead, "
            f"{out[5]:,} won, {out[6]:,} ran out; {out[3]:,} children cut by earlier rows; "
            f"{time.perf_counter() - t0:.1f} s")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rules", default="rainbow")
    ap.add_argument("--seeds", required=True, help="a comma list")
    ap.add_argument("--abstract-nodes", type=int, default=5_000_000)
    ap.add_argument("--exact-nodes", type=int, default=5_000_000)
    ap.add_argument("--on-demand", default="", help="comma list of abstract nodes a query: run only the exact "
                    "search asking the abstract game on demand (exact_ondemand), once a budget")
    ap.add_argument("--ratio", type=float, default=1.0, help="abstract nodes at most this times the exact ones")
    ap.add_argument("--rows", type=int, default=1 << 24, help="rows of each table (never grown)")
    a = ap.parse_args(argv)
    rules = get_rules(a.rules)
    for s in (int(x) for x in a.seeds.split(",")):
        if a.on_demand:
            for q in (int(x) for x in a.on_demand.split(",")):
                line = ondemand(Position(Deal.from_seed(s, rules)), a.exact_nodes, a.rows, q, a.ratio)
                print(f"{a.rules} {s}: {line}", flush=True)
            continue
        print(f"{a.rules} {s}: {census(Position(Deal.from_seed(s, rules)), a.abstract_nodes, a.exact_nodes, a.rows)}",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
