"""Nested rollout policy adaptation (Numba): playouts under a policy learned from the best lines found, for
wins only (Rosin, IJCAI 2011; issue 70).

A *playout* plays from the deal by the kernel's moves (a safe move alone where ``kernel.gen`` finds one)
until every card is home or no move leads to a position the playout has not entered. Each move is drawn
with weight exp(policy[code] - beta * class): its *code* is the card it moves and where it goes (a
foundation, a gap, or the card it lands on: ``code``), so the policy says "this card onto that one" for
the whole deal; its *class* is the greedy playouts' order (``playout.kernel.move_class``: cards home
first, a waste card that needs many draws last), a prior the policy starts from.

A search of level 1 plays ``iterations`` playouts under its policy; after each it keeps the best line so
far (cards home, then reserve cards played: ``playout.kernel.line_value``) and *adapts* the policy
towards it (``adapt``: every move of the line up by alpha, every legal move at that step down by alpha
times its probability). A playout records each step's legal moves (their codes and priors) and the one it
played, so adapting reads the line's record instead of generating its moves again (one copy of the move
generator in the compiled search, not two). A search of level L runs ``iterations`` searches of level L - 1, each from a copy
of its policy, and adapts its policy towards the best line they returned. The search is iterative and
resumable: its state lives in ``PolicyArrays`` and ``stats``, and a call stops between two playouts once
``budget`` steps are spent, so the same seed plays the same playouts however the calls are cut. When the
top level's iterations end, a new search starts from a zero policy (the random generator goes on). A
win's moves are left in ``line``; the solver replays them on the reference engine, as every line.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ...jit import ENTRY, IR_INLINE_NO_NRT, njit
from .. import kernel as K
from ..codec import K_RF, K_RT, K_TF, K_WF, K_WT, P_RANKS, SC_LEN, SC_RES
from ..playout import kernel as PK

CODES = 52 * 54  # a card times where it goes: the card it lands on (0-51), a foundation (52) or a gap (53)

# stats[] of the searches
A_STEPS, A_PLAYOUTS, A_SEARCHES, A_RUNNING, A_WON_LEN, A_BEST, A_BEST_LEN = range(7)
NASTATS = 7


class PolicyArrays(NamedTuple):
    """The state of a search, kept between calls: one policy a level, and one recorded line a level (row 0:
    the playout under way), each step of a line as its legal moves' codes and priors and the one it played."""

    pols: np.ndarray       #: float64[levels + 1, CODES], each level's policy (row 0 unused)
    codes: np.ndarray      #: int64[levels + 1, depth, width], each line's steps: every legal move's code
    prior: np.ndarray      #: float64[levels + 1, depth, width], and its prior (beta times its class)
    nmov: np.ndarray       #: int64[levels + 1, depth], how many legal moves each step had
    pick: np.ndarray       #: int64[levels + 1, depth], the index of the move each step played
    lens: np.ndarray       #: int64[levels + 1], each line's length
    best: np.ndarray       #: int64[levels + 1], each level's best value (``line_value``; -1: none yet)
    it: np.ndarray         #: int64[levels + 1], each level's iterations done
    best_line: np.ndarray  #: int64[depth], the best line of every search so far (``stats[A_BEST_LEN]`` moves)
    tmp: np.ndarray        #: float64[CODES], a policy being adapted, then a step's move weights


@njit(**IR_INLINE_NO_NRT)
def code(deal, cols, sc, d, mv):
    """A move's code under the policy: the card it moves times 54 plus where it goes.

    Parameters
    ----------
    deal, cols, sc, d, mv : glossary
        As the glossary in ``search/base.py`` says.
    """
    reserve, talon = deal.reserve, deal.talon
    kind = K.move_kind(mv)
    src = K.move_src(mv)
    if kind == K_RF or kind == K_RT:
        card = reserve[sc[d, SC_RES] - 1]
    elif kind == K_WF or kind == K_WT:
        card = talon[src]
    elif kind == K_TF:
        card = cols[d, src, sc[d, SC_LEN + src] - 1]
    else:
        card = cols[d, src, sc[d, SC_LEN + src] - K.move_count(mv)]
    if kind == K_RF or kind == K_WF or kind == K_TF:
        where = 52
    else:
        dst = K.move_dst(mv)
        n = sc[d, SC_LEN + dst]
        where = 53 if n == 0 else np.int64(cols[d, dst, n - 1])
    return np.int64(card) * 54 + where


@njit(**IR_INLINE_NO_NRT)
def _copy(dst, src, n):
    """``dst[:n] = src[:n]``, element by element (a slice copy would need Numba's runtime).

    Parameters
    ----------
    dst : ndarray
        Receives the values.
    src : ndarray
        Gives them.
    n : int
        How many.
    """
    for i in range(n):
        dst[i] = src[i]


@njit(**IR_INLINE_NO_NRT)
def _draw(weights, n, total, rng):
    """The index of a move drawn with probability weight / total among ``weights[:n]`` (0: left out).

    Parameters
    ----------
    weights : float64[width]
        The moves' weights.
    n : int
        How many there are.
    total : float
        Their sum.
    rng : uint64[1]
        The random generator's state (``playout.kernel.next_random``).
    """
    r = (np.float64(PK.next_random(rng) >> np.uint64(11)) / 9007199254740992.0) * total
    acc = 0.0
    last = -1
    for k in range(n):
        if weights[k] > 0.0:
            acc += weights[k]
            last = k
            if acc >= r:
                return k
    return last


@njit(**IR_INLINE_NO_NRT)
def playout(deal, stack, visit, pa, line, rng, words, scratch, stats, beta):
    """One playout from level 0 under ``pa.pols[1]``, its moves into ``line`` and its steps into row 0 of
    ``pa``'s lines; returns its value.

    Parameters
    ----------
    deal, stack : glossary
        As the glossary in ``search/base.py`` says.
    visit : uint64[rows, 2]
        The positions' table, stamped by playout (``playout.kernel.enter``).
    pa : PolicyArrays
        The search's state: the policy it plays by, the line it records.
    line : int64[depth]
        Receives the moves.
    rng : uint64[1]
        The random generator's state.
    words : uint64[4]
        Work space for a key.
    scratch : int64[SCRATCH_SIZE]
        The move generator's and the key's work space (``SCR_*``).
    stats : int64[NASTATS]
        The counters (``A_*``).
    beta : float
        How much the greedy class weighs.
    """
    params, reserve, talon = deal.params, deal.reserve, deal.talon
    cols, sc, mask, moves = stack.cols, stack.sc, stack.mask, stack.moves
    maxd = sc.shape[0] - 2
    won = 4 * params[P_RANKS]
    stats[A_PLAYOUTS] += 1
    stamp = np.uint64(stats[A_PLAYOUTS])
    d = 0
    K.key(cols, sc, mask, d, params, words, scratch)
    PK.enter(visit, K.key_hash(words), stamp)
    K.copy_level(cols, sc, mask, d)
    pol, weights = pa.pols[1], pa.tmp
    while d < maxd and K.score(sc, d) < won:
        n = K.gen(deal, cols, sc, mask, d, moves[d], True, scratch, -1, -1, -1)
        total = 0.0
        for k in range(n):
            c = code(deal, cols, sc, d, moves[d, k])
            p = beta * PK.move_class(moves[d, k], sc, mask, d)
            pa.codes[0, d, k] = c
            pa.prior[0, d, k] = p
            weights[k] = math.exp(pol[c] - p)
            total += weights[k]
        pa.nmov[0, d] = n
        chosen = -1
        for _ in range(n):  # draw until a move reaches a position new to this playout
            k = _draw(weights, n, total, rng)
            if k < 0:  # every weight left is 0 (an underflow)
                break
            total -= weights[k]
            weights[k] = 0.0
            K.reset_level(cols, sc, mask, d)
            K.apply(cols, sc, mask, d + 1, moves[d, k], params, reserve, talon)
            stats[A_STEPS] += 1
            K.key(cols, sc, mask, d + 1, params, words, scratch)
            if PK.enter(visit, K.key_hash(words), stamp) == 1:
                chosen = k
                break
        if chosen < 0:
            break
        line[d] = moves[d, chosen]
        pa.pick[0, d] = chosen
        d += 1
        K.copy_level(cols, sc, mask, d)
    pa.lens[0] = d
    return PK.line_value(sc, d)


@njit(**IR_INLINE_NO_NRT)
def adapt(pa, lv, alpha):
    """Move level ``lv``'s policy towards its recorded line: each move the line played up by ``alpha``, every
    legal move at that step down by ``alpha`` times its probability under the old policy.

    Parameters
    ----------
    pa : PolicyArrays
        The search's state (``pa.pols[lv]`` moves towards line ``lv``).
    lv : int
        The level.
    alpha : float
        The step.
    """
    pol, new = pa.pols[lv], pa.tmp
    _copy(new, pol, CODES)
    for d in range(pa.lens[lv]):
        m = pa.nmov[lv, d]
        z = 0.0
        for k in range(m):
            z += math.exp(pol[pa.codes[lv, d, k]] - pa.prior[lv, d, k])
        for k in range(m):
            c = pa.codes[lv, d, k]
            new[c] -= alpha * math.exp(pol[c] - pa.prior[lv, d, k]) / z
        new[pa.codes[lv, d, pa.pick[lv, d]]] += alpha
    _copy(pol, new, CODES)


@njit(**IR_INLINE_NO_NRT)
def _restart(pa, top, stats):
    """Start a new search of level ``top`` from a zero policy.

    Parameters
    ----------
    pa : PolicyArrays
        The search's state.
    top : int
        The top level.
    stats : int64[NASTATS]
        The counters (``A_*``).
    """
    for i in range(CODES):
        pa.pols[top, i] = 0.0
    for lo in range(top - 1, 0, -1):
        _copy(pa.pols[lo], pa.pols[lo + 1], CODES)
    for lo in range(top + 1):
        pa.best[lo] = -1
        pa.it[lo] = 0
    stats[A_SEARCHES] += 1
    stats[A_RUNNING] = 1


@njit(**IR_INLINE_NO_NRT)
def _keep(pa, lv, v, src):
    """Level ``lv``'s best line becomes line ``src`` (of value ``v``) when ``v`` is at least its best.

    Parameters
    ----------
    pa : PolicyArrays
        The search's state.
    lv : int
        The level.
    v : int
        The line's value.
    src : int
        The row of the line (0: the playout just played; ``lv - 1``: the level below's best).
    """
    if v >= pa.best[lv]:
        pa.best[lv] = v
        n = pa.lens[src]
        pa.lens[lv] = n
        for d in range(n):
            m = pa.nmov[src, d]
            pa.nmov[lv, d] = m
            pa.pick[lv, d] = pa.pick[src, d]
            _copy(pa.codes[lv, d], pa.codes[src, d], m)
            _copy(pa.prior[lv, d], pa.prior[src, d], m)


@njit(**ENTRY)
def search(deal, stack, visit, pa, line, rng, words, scratch, stats, shape, rates, budget):
    """Searches of level ``shape[0]`` from level 0 until one wins (1: its moves in ``line[:stats[A_WON_LEN]]``)
    or ``budget`` steps are spent (0), resumed from ``pa`` and ``stats``.

    Parameters
    ----------
    deal, stack : glossary
        As the glossary in ``search/base.py`` says.
    visit : uint64[rows, 2]
        The playouts' table of positions (rows a power of two), stamped by playout.
    pa : PolicyArrays
        The search's state, kept between calls.
    line : int64[depth]
        The playout under way (the won one at the end).
    rng : uint64[1]
        The random generator's state (never 0).
    words : uint64[4]
        Work space for a key.
    scratch : int64[SCRATCH_SIZE]
        The move generator's and the key's work space (``SCR_*``).
    stats : int64[NASTATS]
        The counters (``A_*``), kept between calls.
    shape : int64[2]
        The top level (at least 1) and the iterations of each level.
    rates : float64[2]
        alpha (the adaptation's step) and beta (how much the greedy class weighs).
    budget : int
        Stop once ``stats[A_STEPS]`` reaches this (between two playouts).
    """
    top, iters = shape[0], shape[1]
    alpha, beta = rates[0], rates[1]
    won = 4 * deal.params[P_RANKS]
    while stats[A_STEPS] < budget:
        if stats[A_RUNNING] == 0:
            _restart(pa, top, stats)
        before = stats[A_STEPS]
        v = playout(deal, stack, visit, pa, line, rng, words, scratch, stats, beta)
        n = pa.lens[0]
        if stats[A_STEPS] == before:  # the start has no move the kernel plays: no playout ever will
            return 0
        if K.score(stack.sc, n) == won:
            stats[A_WON_LEN] = n
            return 1
        if v > stats[A_BEST]:
            stats[A_BEST] = v
            _copy(pa.best_line, line, n)
            stats[A_BEST_LEN] = n
        _keep(pa, 1, v, 0)
        adapt(pa, 1, alpha)
        pa.it[1] += 1
        lv = 1
        while lv < top and pa.it[lv] >= iters:  # a level's iterations done: its best goes up a level
            _keep(pa, lv + 1, pa.best[lv], lv)
            adapt(pa, lv + 1, alpha)
            pa.it[lv + 1] += 1
            lv += 1
        if pa.it[lv] >= iters:  # the top level is done: the next search starts afresh
            stats[A_RUNNING] = 0
        elif lv > 1:  # the levels below lv start again from copies of its policy
            for lo in range(lv - 1, 0, -1):
                _copy(pa.pols[lo], pa.pols[lo + 1], CODES)
                pa.best[lo] = -1
                pa.it[lo] = 0
    return 0
