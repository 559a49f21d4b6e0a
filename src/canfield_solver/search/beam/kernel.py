"""Beam search (Numba): the deal's positions a layer at a time, the ``width`` best of each layer kept, for
wins only.

A layer's positions are slots of one array of levels (``cols``, ``sc``, ``mask``, as the stack's): the
layer being expanded in one half, the next layer in the other, and one work slot. Every move of every kept
position (the exact search's moves, its safe-move prune on, ``kernel.gen``) makes a child in the work slot;
a child whose position was kept in an earlier layer, or made already in this one, is dropped (64-bit
hashes of the exact key, in two tables stamped by search and by layer, so a new search clears nothing).
The rest are ranked by ``value`` (cards home first, then reserve cards played, then talon cards played, a
random tie-break below) and the ``width`` best kept, found by counting values rather than sorting. Each
kept position's parent and move are stored by layer, and a won child's line is read back through them.

Nothing is proved when the beam empties: the positions it dropped may have won. The solver replays every
line it returns on the reference engine.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ...jit import ENTRY, IR_INLINE_NO_NRT, njit
from .. import kernel as K
from ..codec import P_RANKS, SC_RES
from ..playout.kernel import enter, next_random

# stats[]
B_STEPS, B_LAYERS, B_BEST, B_WON_LEN, B_SEARCHES, B_KEPT, B_STAMP = range(7)
NBSTATS = 7
# state[] of the search under way: its layer, the positions in it, the half they are in, the next of them to
# expand and the children made so far in the layer (a call may stop between two positions), the positions
# kept in the table of kept positions since it was last emptied (at half its rows: a new stamp empties it)
S_LAYER, S_COUNT, S_HALF, S_NEXT, S_NC, S_KEPT = range(6)
NSTATE = 6
START_STATE = (0, 1, 0, 0, 0, 0)
NOISE_BITS = 6
VALUE_LIMIT = 1 << 12  # values below this (before the noise bits)


class Slots(NamedTuple):
    """The positions of the beam, as the stack's levels: a layer in ``[0, width)`` or ``[width, 2 * width)``,
    the work slot ``2 * width``."""

    cols: np.ndarray  #: int8[2 * width + 2, MAXCOLS, COLCAP], the columns' cards
    sc: np.ndarray    #: int64[2 * width + 2, NSC], the scalars
    mask: np.ndarray  #: uint64[2 * width + 2], the talon masks


class BeamArrays(NamedTuple):
    """One search's state, kept between calls."""

    seen: np.ndarray        #: uint64[rows, 2], the kept positions' hashes, stamped by search
    layer_seen: np.ndarray  #: uint64[rows, 2], this layer's children's hashes, stamped by layer
    parent: np.ndarray      #: int32[layers, width], each kept position's parent in the layer before
    moved: np.ndarray       #: int32[layers, width], and the move that made it
    cand: np.ndarray        #: int64[children, 3], a layer's children: value (noise below), parent, move
    state: np.ndarray       #: int64[NSTATE], ``S_*``: where the search is


class BeamWork(NamedTuple):
    """Work space and what every search shares."""

    out: np.ndarray      #: int64[moves], a position's moves
    scratch: np.ndarray  #: int64[SCRATCH_SIZE], the move generator's and the key's work space
    words: np.ndarray    #: uint64[4], a key
    counts: np.ndarray   #: int64[VALUE_LIMIT << NOISE_BITS], the children's values, counted
    rng: np.ndarray      #: uint64[1], the tie-breaks' random generator
    weights: np.ndarray  #: int64[4], ``value``'s weights
    line: np.ndarray     #: int64[layers], a win's moves


@njit(**IR_INLINE_NO_NRT)
def copy_slot(cols, sc, mask, src, dst):
    """Make slot ``dst`` a copy of slot ``src`` (every card, every scalar, the talon mask).

    Parameters
    ----------
    cols, sc, mask : glossary
        As the glossary in ``search/base.py`` says; here a level is a slot of the beam.
    src : int
        The slot copied.
    dst : int
        The slot it is copied to.
    """
    for c in range(cols.shape[1]):
        for j in range(cols.shape[2]):
            cols[dst, c, j] = cols[src, c, j]
    for j in range(sc.shape[1]):
        sc[dst, j] = sc[src, j]
    mask[dst] = mask[src]


@njit(**IR_INLINE_NO_NRT)
def value(sc, mask, s, talon_cards, weights):
    """How far slot ``s`` got: cards home, reserve cards played and talon cards played, weighed by
    ``weights`` (below VALUE_LIMIT).

    Parameters
    ----------
    sc, mask : glossary
        As the glossary in ``search/base.py`` says; here a level is a slot of the beam.
    s : int
        The slot.
    talon_cards : int
        The deal's talon cards.
    weights : int64[4]
        Cards home, reserve cards played, talon cards played; the sum divided by the last.
    """
    played = talon_cards - np.int64(K.popcount(mask[s]))
    v = weights[0] * K.score(sc, s) + weights[1] * (31 - min(sc[s, SC_RES], 31)) + weights[2] * played
    return min(max(v // weights[3], 0), VALUE_LIMIT - 1)


@njit(**ENTRY)
def search(deal, slots, arrays, bw, stats, width, talon_cards, budget):
    """Go on with the beam search whose place ``arrays.state`` holds until ``stats[B_STEPS]`` reaches
    ``budget`` (checked before each position is expanded, so a call passes it by one position's children at
    most). Returns 0 (going on), 1 (won: its moves in ``bw.line[:stats[B_WON_LEN]]``), 2 (the beam emptied
    or reached the last layer: nothing won, nothing proved).

    Parameters
    ----------
    deal : DealArrays
        The deal's arrays: params, reserve, talon, lut, bm (codec.DealArrays).
    slots : Slots
        The beam's positions; slot 0 holds the start when a search begins (``state`` ``START_STATE``).
    arrays : BeamArrays
        The search's tables, its layers' parents and moves, a layer's children, its state.
    bw : BeamWork
        Work space, the tie-breaks' generator, the weights, the won line.
    stats : int64[NBSTATS]
        Counters (``B_*``); ``B_STAMP`` is the kept positions' table's stamp (a new one each search, and each
        time the table is half full: the positions kept longest ago are forgotten), ``B_LAYERS`` the layer
        table's (a new one each layer and each search; both start at 1).
    width : int
        The beam's width.
    talon_cards : int
        The deal's talon cards (for ``value``).
    budget : int
        The steps (children made) at which to stop for now.
    """
    seen, _ls, parent, _mv, _cand, state = arrays
    while True:
        n = state[S_COUNT]
        if n == 0 or state[S_LAYER] + 1 >= parent.shape[0]:
            return 2
        if 2 * state[S_KEPT] > seen.shape[0]:  # half full: emptied by a new stamp
            stats[B_STAMP] += 1
            state[S_KEPT] = 0
        while state[S_NEXT] < n:
            if stats[B_STEPS] >= budget:
                return 0
            i = state[S_NEXT]
            state[S_NEXT] = i + 1
            if _children(deal, slots, arrays, bw, stats, i, talon_cards) == 1:
                return 1
        _next_layer(deal, slots, arrays, bw, stats, width)


@njit(**IR_INLINE_NO_NRT)
def _children(deal, slots, arrays, bw, stats, i, talon_cards):
    """Make the children of the layer's ``i``-th position into the work slot, one at a time: each new one
    (neither kept before nor made already in this layer) is ranked into ``arrays.cand``; a won one's line is
    read back into ``bw.line``. Returns 1 when a child is won, else 0.

    Parameters
    ----------
    deal : DealArrays
        The deal's arrays.
    slots : Slots
        The beam's positions.
    arrays : BeamArrays
        The search's state.
    bw : BeamWork
        Work space.
    stats : int64[NBSTATS]
        Counters (``B_*``).
    i : int
        The position, by its index in the layer.
    talon_cards : int
        The deal's talon cards.
    """
    cols, sc, mask = slots
    seen, layer_seen, parent, moved, cand, state = arrays
    out, scratch, words, _counts, rng, weights, line = bw
    params, reserve, talon, _lut, _bm = deal
    width = parent.shape[1]
    s = state[S_HALF] * width + i
    work = 2 * width
    t = state[S_LAYER]
    stamp, lstamp = np.uint64(stats[B_STAMP]), np.uint64(stats[B_LAYERS])
    nm = K.gen(deal, cols, sc, mask, s, out, True, scratch, -1, -1, -1)
    for k in range(nm):
        copy_slot(cols, sc, mask, s, work)
        K.apply(cols, sc, mask, work, out[k], params, reserve, talon)
        stats[B_STEPS] += 1
        K.key(cols, sc, mask, work, params, words, scratch)
        h = K.key_hash(words)
        if _has(seen, h, stamp) or enter(layer_seen, h, lstamp) == 0:
            continue
        if K.score(sc, work) == 4 * params[P_RANKS]:
            line[t] = out[k]
            j = i
            for d in range(t, 0, -1):
                line[d - 1] = moved[d, j]
                j = parent[d, j]
            stats[B_WON_LEN] = t + 1
            return 1
        nc = state[S_NC]
        if nc < cand.shape[0]:
            v = value(sc, mask, work, talon_cards, weights)
            stats[B_BEST] = max(stats[B_BEST], v)
            cand[nc, 0] = (v << NOISE_BITS) | np.int64(next_random(rng) & np.uint64((1 << NOISE_BITS) - 1))
            cand[nc, 1] = i
            cand[nc, 2] = out[k]
            state[S_NC] = nc + 1
    return 0


@njit(**IR_INLINE_NO_NRT)
def _next_layer(deal, slots, arrays, bw, stats, width):
    """The layer's best children kept (``_select``) as the next layer, in the other half of the slots, each
    with its parent and move, and entered in the kept positions' table.

    Parameters
    ----------
    deal : DealArrays
        The deal's arrays.
    slots : Slots
        The beam's positions.
    arrays : BeamArrays
        The search's state.
    bw : BeamWork
        Work space.
    stats : int64[NBSTATS]
        Counters (``B_*``).
    width : int
        The beam's width.
    """
    cols, sc, mask = slots
    seen, _ls, parent, moved, cand, state = arrays
    _out, scratch, words, counts, _rng, _w, _line = bw
    params, reserve, talon, _lut, _bm = deal
    t = state[S_LAYER]
    cur = state[S_HALF] * width
    nxt = width - cur
    stamp = np.uint64(stats[B_STAMP])
    kept = _select(cand, state[S_NC], counts, width)
    for j in range(kept):
        dst = nxt + j
        copy_slot(cols, sc, mask, cur + cand[j, 1], dst)
        K.apply(cols, sc, mask, dst, cand[j, 2], params, reserve, talon)
        K.key(cols, sc, mask, dst, params, words, scratch)
        enter(seen, K.key_hash(words), stamp)
        parent[t + 1, j] = cand[j, 1]
        moved[t + 1, j] = cand[j, 2]
    stats[B_KEPT] += kept
    state[S_KEPT] += kept
    state[S_LAYER] = t + 1
    state[S_COUNT] = kept
    state[S_HALF] = 1 - state[S_HALF]
    state[S_NEXT] = 0
    state[S_NC] = 0
    stats[B_LAYERS] += 1  # the new layer's stamp in the layer table


@njit(**IR_INLINE_NO_NRT)
def _has(table, h, stamp):
    """Whether hash ``h`` is in ``table`` under ``stamp`` (``enter``'s table), entering nothing.

    Parameters
    ----------
    table : uint64[rows, 2]
        Rows of (hash, stamp), rows a power of two.
    h : uint64
        A position's hash.
    stamp : uint64
        The stamp of the rows that count.
    """
    rows = table.shape[0]
    i = np.int64(h & np.uint64(rows - 1))
    for _ in range(rows):
        if table[i, 1] != stamp:
            return False
        if table[i, 0] == h:
            return True
        i = (i + 1) & (rows - 1)
    return False


@njit(**IR_INLINE_NO_NRT)
def _select(cand, nc, count, width):
    """Move the ``width`` children of highest value (fewer if there are fewer) to the front of ``cand``;
    returns how many. Counts values instead of sorting: the threshold is the value at which the count from
    the top reaches ``width``; every child above it is kept, and those at it in order of their rows.

    Parameters
    ----------
    cand : int64[children, 3]
        The children: value, parent, move.
    nc : int
        How many rows of ``cand`` hold children.
    count : int64[values]
        Work space: a count a value (longer than the highest value).
    width : int
        How many to keep at most.
    """
    if nc <= width:
        return nc
    for j in range(count.shape[0]):
        count[j] = 0
    for j in range(nc):
        count[cand[j, 0]] += 1
    above = 0
    th = count.shape[0] - 1
    while th > 0 and above + count[th] < width:
        above += count[th]
        th -= 1
    at = width - above  # children of value th kept
    kept = 0
    for j in range(nc):
        v = cand[j, 0]
        if v > th or (v == th and at > 0):
            if v == th:
                at -= 1
            cand[kept, 0] = cand[j, 0]
            cand[kept, 1] = cand[j, 1]
            cand[kept, 2] = cand[j, 2]
            kept += 1
    return kept
