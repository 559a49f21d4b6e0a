"""Greedy random playouts (Numba): games played to their end by a move policy, for wins only.

A playout starts at the deal and plays one move at a time until every card is home or no move leads to a
position it has not entered before. The policy (``move_class``): a safe move at once (the exact search's safe
moves, ``kernel.gen``); otherwise a move of the best class present among those to new positions, at
random within it: a card home (from the reserve, a column or the waste's top), the reserve's top onto a
column, the waste's top onto a column, a column move, and last a waste card that needs draws, the one
the fewest draws reach (home before onto a column). Positions are told apart by a 64-bit hash of the
exact key, in a table stamped with the playout's number (``visit``), so a new playout clears nothing.
``next_random``, ``enter``, ``move_class`` and ``line_value`` are shared with the policy adaptation
(``search.adapt``), whose playouts draw by a learned policy with ``move_class`` as its prior.

``playouts`` plays them one after another from the deal; ``nested`` is a nested Monte Carlo search of level
1 (Cazenave, IJCAI 2009; nested rollouts, Bjarnason, Fern & Tadepalli, ICGA 2007, for Klondike): at each
position of its line it plays a playout after every move, and follows the best line any playout has found
so far (cards home, then reserve cards played). A win's moves are left in ``line``; the solver replays them
on the reference engine as it does every line. Neither proves anything when it loses.
"""

from __future__ import annotations

import numpy as np

from ...jit import ENTRY, IR_INLINE_NO_NRT, njit
from .. import kernel as K
from ..codec import (
    K_RF,
    K_RT,
    K_TF,
    K_TT,
    K_WF,
    P_RANKS,
    SC_RES,
    SC_WB,
)

# stats[] of the playouts
Y_PLAYOUTS, Y_STEPS, Y_BEST, Y_WON_LEN, Y_ROUNDS, Y_LINE_LEN = range(6)
NYSTATS = 6
DRAW_CLASS = 8  # a waste card reached by draws: its class is this plus the draws (in cards) it needs, at most 63


@njit(**IR_INLINE_NO_NRT)
def next_random(rng):
    """The next number of the xorshift64* generator whose state is ``rng[0]``.

    Parameters
    ----------
    rng : uint64[1]
        The generator's state (never 0).
    """
    x = rng[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    rng[0] = x
    return x * np.uint64(0x2545F4914F6CDD1D)


@njit(**IR_INLINE_NO_NRT)
def move_class(mv, sc, mask, d):
    """A move's class under the policy: lower is played first.

    Parameters
    ----------
    mv : int64
        A move code.
    sc : int64[levels, NSC]
        Each level's scalars (``SC_*``).
    mask : uint64[levels]
        Each level's talon mask.
    d : int
        The level the move is played from.
    """
    kind = K.move_kind(mv)
    if kind == K_RF or kind == K_TF:
        return 0
    if kind == K_RT:
        return 2
    if kind == K_TT:
        return 4
    # a waste card: the cards drawn to reach it (0 for the waste's top)
    src = K.move_src(mv)
    wb = sc[d, SC_WB]
    m = mask[d]
    if src < wb:
        above = m & ~K.below(src + 1) & K.below(wb)
        if above == np.uint64(0):  # the waste's top
            return 0 if kind == K_WF else 3
        drawn = np.int64(K.popcount(m & ~K.below(wb))) + np.int64(K.popcount(m & K.below(src + 1)))
    else:
        drawn = np.int64(K.popcount(m & K.below(src + 1) & ~K.below(wb)))
    c = DRAW_CLASS + 2 * drawn + (0 if kind == K_WF else 1)
    return c if c < 127 else 127


@njit(**IR_INLINE_NO_NRT)
def enter(visit, h, stamp):
    """Enter hash ``h`` in the playout's table; 1 if it was new in this playout, 0 if entered before.

    Parameters
    ----------
    visit : uint64[rows, 2]
        Rows of (hash, stamp); a row whose stamp is not this playout's is free.
    h : uint64
        A position's hash.
    stamp : uint64
        This playout's number.
    """
    rows = visit.shape[0]
    i = np.int64(h & np.uint64(rows - 1))
    for _ in range(rows):
        if visit[i, 1] != stamp:
            visit[i, 0] = h
            visit[i, 1] = stamp
            return 1
        if visit[i, 0] == h:
            return 0
        i = (i + 1) & (rows - 1)
    return 0  # full: treat as seen, the playout ends


@njit(**IR_INLINE_NO_NRT)
def line_value(sc, d):
    """How far the position at level ``d`` got: cards home, then reserve cards played.

    Parameters
    ----------
    sc : int64[levels, NSC]
        Each level's scalars (``SC_*``).
    d : int
        The level.
    """
    return K.score(sc, d) * 64 + 63 - sc[d, SC_RES]


@njit(**IR_INLINE_NO_NRT)
def _playout(deal, stack, visit, line, rng, words, scratch, stats, d0):
    """One playout from level ``d0`` (its moves into ``line[d0:]``); returns the level it ended at.

    Parameters
    ----------
    deal : DealArrays
        The deal's arrays: params, reserve, talon, lut, bm (codec.DealArrays).
    stack : StackArrays
        The stack; level ``d0`` holds the start of the playout, the levels after it its positions, the last
        level's move row its candidates.
    visit : uint64[rows, 2]
        The positions' table (rows a power of two), stamped by playout.
    line : int64[levels]
        Receives the playout's moves from index ``d0`` on.
    rng : uint64[1]
        The random generator's state (never 0).
    words : uint64[4]
        Work space for a key.
    scratch : int64[SCRATCH_SIZE]
        The move generator's and the key's work space (``SCR_*``).
    stats : int64[NYSTATS]
        Counters (``Y_*``); ``Y_PLAYOUTS`` also numbers the playouts (the table's stamps).
    d0 : int
        The level the playout starts from.
    """
    params, reserve, talon, _lut, _bm = deal
    cols, sc, mask, moves, _nmoves, _midx = stack
    maxd = sc.shape[0] - 2
    won = 4 * params[P_RANKS]
    cand = moves[sc.shape[0] - 1]  # the candidates (class << 32 | index), in the last level's move row
    stats[Y_PLAYOUTS] += 1
    stamp = np.uint64(stats[Y_PLAYOUTS])
    d = d0
    K.key(cols, sc, mask, d, params, words, scratch)
    enter(visit, K.key_hash(words), stamp)
    K.copy_level(cols, sc, mask, d)
    while d < maxd and K.score(sc, d) < won:
        n = K.gen(deal, cols, sc, mask, d, moves[d], True, scratch, -1, -1, -1)
        nc = 0
        for k in range(n):
            cand[nc] = (np.int64(move_class(moves[d, k], sc, mask, d)) << 32) | k
            nc += 1
        chosen = -1
        while nc > 0 and chosen < 0:  # the best class first, at random within it
            best = cand[0] >> 32
            for j in range(1, nc):
                if (cand[j] >> 32) < best:
                    best = cand[j] >> 32
            ties = 0
            for j in range(nc):
                if (cand[j] >> 32) == best:
                    ties += 1
            pick = np.int64(next_random(rng) % np.uint64(ties))
            j = 0
            while True:
                if (cand[j] >> 32) == best:
                    if pick == 0:
                        break
                    pick -= 1
                j += 1
            k = cand[j] & 0xFFFFFFFF
            cand[j] = cand[nc - 1]
            nc -= 1
            K.reset_level(cols, sc, mask, d)
            K.apply(cols, sc, mask, d + 1, moves[d, k], params, reserve, talon)
            stats[Y_STEPS] += 1
            K.key(cols, sc, mask, d + 1, params, words, scratch)
            if enter(visit, K.key_hash(words), stamp) == 1:
                chosen = k
        if chosen < 0:
            break
        line[d] = moves[d, chosen]
        d += 1
        K.copy_level(cols, sc, mask, d)
    s = K.score(sc, d)
    if s > stats[Y_BEST]:
        stats[Y_BEST] = s
    return d


@njit(**ENTRY)
def playouts(deal, stack, visit, line, rng, words, scratch, stats, count):
    """Play ``count`` playouts from level 0 of ``stack``; 1 when one wins (its moves in
    ``line[:stats[Y_WON_LEN]]``), else 0.

    Parameters
    ----------
    deal : DealArrays
        The deal's arrays: params, reserve, talon, lut, bm (codec.DealArrays).
    stack : StackArrays
        The stack: level 0 holds the start (its column codes made, ``kernel.init_codes``).
    visit : uint64[rows, 2]
        The positions' table (rows a power of two), stamped by playout.
    line : int64[levels]
        The moves of the playout under way (of the won one, at the end).
    rng : uint64[1]
        The random generator's state (never 0).
    words : uint64[4]
        Work space for a key.
    scratch : int64[SCRATCH_SIZE]
        The move generator's and the key's work space (``SCR_*``).
    stats : int64[NYSTATS]
        Counters (``Y_*``).
    count : int
        The playouts to play.
    """
    won = 4 * deal.params[P_RANKS]
    root = stats[Y_PLAYOUTS] * 0
    for _p in range(count):
        d = _playout(deal, stack, visit, line, rng, words, scratch, stats, root)
        if K.score(stack.sc, d) == won:
            stats[Y_WON_LEN] = d
            return 1
    return 0


@njit(**ENTRY)
def nested(deal, stack, visit, main_visit, line, best_line, rng, words, scratch, stats):
    """One nested Monte Carlo search of level 1 from level 0 of ``stack``; 1 when it wins (its moves in
    ``best_line[:stats[Y_WON_LEN]]``), else 0 (the line it followed in ``best_line[:stats[Y_LINE_LEN]]``, its
    last position at that level of the stack).

    Parameters
    ----------
    deal : DealArrays
        The deal's arrays: params, reserve, talon, lut, bm (codec.DealArrays).
    stack : StackArrays
        The stack: level 0 holds the start (its column codes made, ``kernel.init_codes``); level ``d`` the
        line's ``d``-th position, the levels after it the playouts'.
    visit : uint64[rows, 2]
        The playouts' table of positions (rows a power of two), stamped by playout.
    main_visit : uint64[rows, 2]
        The line's own table of positions, stamped by round.
    line : int64[levels]
        The playouts' moves.
    best_line : int64[levels]
        The best line found so far (the won one at the end).
    rng : uint64[1]
        The random generator's state (never 0).
    words : uint64[4]
        Work space for a key.
    scratch : int64[SCRATCH_SIZE]
        The move generator's and the key's work space (``SCR_*``).
    stats : int64[NYSTATS]
        Counters (``Y_*``); ``Y_ROUNDS`` numbers the searches (the line's table's stamps).
    """
    params, reserve, talon, _lut, _bm = deal
    cols, sc, mask, moves, _nmoves, _midx = stack
    maxd = sc.shape[0] - 3
    won = 4 * params[P_RANKS]
    stats[Y_ROUNDS] += 1
    stamp = np.uint64(stats[Y_ROUNDS])
    best_value = np.int64(-1)
    best_len = 0
    d = stats[Y_ROUNDS] * 0
    K.key(cols, sc, mask, d, params, words, scratch)
    enter(main_visit, K.key_hash(words), stamp)
    while d < maxd:
        if K.score(sc, d) == won:
            stats[Y_WON_LEN] = d
            return 1
        K.copy_level(cols, sc, mask, d)
        n = K.gen(deal, cols, sc, mask, d, moves[d], True, scratch, -1, -1, -1)
        for k in range(n):
            K.reset_level(cols, sc, mask, d)
            K.apply(cols, sc, mask, d + 1, moves[d, k], params, reserve, talon)
            stats[Y_STEPS] += 1
            K.key(cols, sc, mask, d + 1, params, words, scratch)
            h = K.key_hash(words)
            seen = False
            i = np.int64(h & np.uint64(main_visit.shape[0] - 1))
            while main_visit[i, 1] == stamp:  # a position of the line: not entered again
                if main_visit[i, 0] == h:
                    seen = True
                    break
                i = (i + 1) & (main_visit.shape[0] - 1)
            if seen:
                continue
            e = _playout(deal, stack, visit, line, rng, words, scratch, stats, d + 1)
            v = line_value(sc, e)
            if v > best_value:
                best_value = v
                best_line[d] = moves[d, k]
                for j in range(d + 1, e):
                    best_line[j] = line[j]
                best_len = e
                if K.score(sc, e) == won:
                    stats[Y_WON_LEN] = e
                    return 1
        if best_len <= d:
            break
        K.reset_level(cols, sc, mask, d)
        K.apply(cols, sc, mask, d + 1, best_line[d], params, reserve, talon)
        d += 1
        K.key(cols, sc, mask, d, params, words, scratch)
        enter(main_visit, K.key_hash(words), stamp)
    stats[Y_LINE_LEN] = d  # the line followed, best_line[:d], ends at level d
    return 0
