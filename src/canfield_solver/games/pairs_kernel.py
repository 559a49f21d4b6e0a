"""The compiled search of the pairs games (``nine-packets``, ``ten-columns``): Numba, the same search as
``base.search_removals`` over those games' positions, node for node.

A position is its columns' heights (the deal known, the heights are the whole position; GAMES §1
and §4): ``ranks[i, k]`` is the rank of column ``i``'s card at height ``k`` (0 the first dealt), ``h[i]``
its height. A move removes the free cards (the tops) of two columns of one rank. The search is depth
first; a position whose every line was searched without a win is kept in ``lost`` (a hash set of exact
keys, no hashing error: the key is the heights, 3 bits a column, plus ``tall`` codes) and never searched
again, sound because removals never repeat a position (the game's positions form a DAG).

``tall`` serves ``ten-columns``' placements: ``tall[i] > 0`` marks the column under which a placed card
lies at height ``dealt[i]``, and names which card (1 or 2); a column above its dealt height adds its
code to the key, so that a position reached after different placements, once the columns that differ
are back at their dealt heights, is the same position (``ten_columns.solve``), and one placement's
losses serve the others'.

Moves of a position are tried in the order of the caller's priority: ``order == 1`` is nine-packets'
(pairs whose both cards have cards beneath first, then one, then none; by packet numbers within), 0 the
plain order by column pair. The search runs for at most ``budget`` nodes and returns with its whole
state in the arrays (resumable), so the caller reads the clock between calls and grows the table when
asked (``NEED_TABLE``).
"""

from __future__ import annotations

import functools

import numpy as np

from .. import compiles
from ..budget import Limit, Pace, Step, drive
from ..jit import CACHED, IR_INLINE, IR_INLINE_CACHED, THREADED, njit
from ..solver import Verdict
from . import codes

__all__ = ["EXHAUSTED", "LostTable", "NEED_TABLE", "RUNNING", "WON", "key_bits", "key_of", "run", "warm", "lost_insert", "rehash", "search", "start"]

RUNNING, WON, EXHAUSTED, NEED_TABLE = 0, 1, 2, 3
M_DEPTH, M_TOP, M_COUNT, M_NODES, M_ORDER, M_LEFT, M_BITS = 0, 1, 2, 3, 4, 5, 6
_OPEN = 64   # the most moves of one position: C(10, 2) = 45 pairs

# The move code (codes.py), compiled from its own text (inlined by Numba into each caller).
_pair_move = njit(**IR_INLINE)(codes.pair_move)
_first = njit(**IR_INLINE)(codes.pair_first)
_second = njit(**IR_INLINE)(codes.pair_second)


@njit(**IR_INLINE_CACHED)
def key_of(h, tall, dealt, bits):
    """The heights, ``bits`` a column, then 2 bits a column of ``tall`` codes (``fits`` says when that is
    at most 63 bits); plus one, since 0 marks an empty slot.

    Parameters
    ----------
    h : int64[columns]
        Each column's height.
    tall : int64[columns]
        ``ten-columns``' placements: which placed card lies under each column (0: none).
    dealt : int64[columns]
        Each column's height as dealt.
    bits : int
        Bits a height takes in the key.
    """
    k = np.uint64(0)
    for i in range(h.shape[0]):
        k = (k << np.uint64(bits)) + np.uint64(h[i])
        if tall[i] > 0 and h[i] > dealt[i]:
            k = (k << np.uint64(2)) + np.uint64(tall[i])
        else:
            k = k << np.uint64(2)
    return k + np.uint64(1)


def key_bits(h: np.ndarray, tall: np.ndarray) -> int | None:
    """Bits a column's height takes in a key from heights ``h``, or None when the key would not fit in 63
    bits (then the caller searches in plain Python)."""
    bits = max(int(h.max(initial=0)).bit_length(), 1)
    return bits if h.shape[0] * (bits + 2) <= 63 else None


@njit(**IR_INLINE_CACHED)
def _find(table, k):
    """The slot of key ``k`` in ``table``, or of the empty slot where it would go (linear probing).

    Parameters
    ----------
    table : uint64[rows]
        The lost positions' keys (rows a power of two; 0 marks an empty slot).
    k : uint64
        A key (``key_of``).
    """
    mask = np.uint64(table.shape[0] - 1)
    j = (k * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(20) & mask
    while True:
        a = table[j]
        if a == np.uint64(0) or a == k:
            return j
        j = (j + np.uint64(1)) & mask


@njit(**CACHED)
def lost_insert(table, k):
    """Enter key ``k`` in ``table``; 1 if it was new, 0 if it was there.

    Parameters
    ----------
    table : uint64[rows]
        The lost positions' keys.
    k : uint64
        A key (``key_of``).
    """
    j = _find(table, k)
    if table[j] == np.uint64(0):
        table[j] = k
        return 1
    return 0


@njit(**CACHED)
def rehash(old, new):
    """Every key of ``old`` entered in the larger ``new``.

    Parameters
    ----------
    old : uint64[rows]
        The full table.
    new : uint64[more rows]
        An empty table.
    """
    for j in range(old.shape[0]):
        if old[j] != np.uint64(0):
            lost_insert(new, old[j])


@njit(**IR_INLINE_CACHED)
def _gen(ranks, h, order, buf, top, keys):
    """The moves of heights ``h`` (pairs of columns whose free cards share a rank) into ``buf`` from ``top``,
    in ``order``; how many.

    Parameters
    ----------
    ranks : int64[columns, height]
        The rank of each column's card at each height.
    h : int64[columns]
        Each column's height.
    order : int
        1: nine-packets' priority (pairs with cards beneath both first); 0: by column pair.
    buf : int64[n]
        Receives the moves (``codes.pair_move``).
    top : int
        Where in ``buf`` they go.
    keys : int64[_OPEN]
        Work space: each move's sort key.
    """
    n = h.shape[0]
    k = 0
    for a in range(n):
        if h[a] == 0:
            continue
        ra = ranks[a, h[a] - 1]
        for b in range(a + 1, n):
            if h[b] and ranks[b, h[b] - 1] == ra:
                buf[top + k] = _pair_move(a, b)
                keys[k] = -((h[a] > 1) + (h[b] > 1)) if order == 1 else 0
                k += 1
    if order == 1:   # stable insertion sort by the key: the pair order within a key is kept
        for x in range(1, k):
            m = buf[top + x]
            km = keys[x]
            y = x - 1
            while y >= 0 and keys[y] > km:
                buf[top + y + 1] = buf[top + y]
                keys[y + 1] = keys[y]
                y -= 1
            buf[top + y + 1] = m
            keys[y + 1] = km
    return k


@njit(**CACHED)
def start(ranks, h, tall, dealt, table, buf, fstart, fcount, fnext, fkey, meta):
    """Enter the start position (one node): ``WON`` if no card is left, ``EXHAUSTED`` if it is in
    ``lost`` already, else ``RUNNING`` with its frame pushed.

    Parameters
    ----------
    ranks : int64[columns, height]
        The rank of each column's card at each height (0 the first dealt).
    h : int64[columns]
        Each column's height now (changed as moves are made and taken back).
    tall : int64[columns]
        ``ten-columns``' placements: which placed card lies under each column (0: none).
    dealt : int64[columns]
        Each column's height as dealt (where a placed card lies).
    table : uint64[rows]
        The lost positions' keys (open addressing; 0 marks an empty slot).
    buf : int64[n]
        The frames' moves, one frame after the other.
    fstart : int64[depth]
        Where each frame's moves begin in ``buf``.
    fcount : int64[depth]
        How many moves each frame has.
    fnext : int64[depth]
        Each frame's next move to try.
    fkey : uint64[depth]
        Each frame's position key.
    meta : int64[7]
        The search's state and counters (``M_*``).
    """
    left = 0
    for i in range(h.shape[0]):
        left += h[i]
    meta[M_LEFT] = left
    meta[M_NODES] += 1
    meta[M_DEPTH] = 0
    if left == 0:
        return WON
    k = key_of(h, tall, dealt, meta[M_BITS])
    if table[_find(table, k)] == k:
        return EXHAUSTED
    keys = np.empty(_OPEN, np.int64)
    fstart[0] = 0
    fcount[0] = _gen(ranks, h, meta[M_ORDER], buf, 0, keys)
    fnext[0] = 0
    fkey[0] = k
    meta[M_TOP] = fcount[0]
    return RUNNING


@njit(**THREADED)
def search(ranks, h, tall, dealt, table, buf, fstart, fcount, fnext, fkey, meta, budget):
    """At most ``budget`` nodes; ``WON`` (the line: each frame's last move tried, frames ``0 ..
    meta[M_DEPTH] - 1``), ``EXHAUSTED`` (lost; every position on the way is in ``lost``), ``RUNNING``, or
    ``NEED_TABLE``.

    Parameters
    ----------
    ranks : int64[columns, height]
        The rank of each column's card at each height (0 the first dealt).
    h : int64[columns]
        Each column's height now (changed as moves are made and taken back).
    tall : int64[columns]
        ``ten-columns``' placements: which placed card lies under each column (0: none).
    dealt : int64[columns]
        Each column's height as dealt (where a placed card lies).
    table : uint64[rows]
        The lost positions' keys (open addressing; 0 marks an empty slot).
    buf : int64[n]
        The frames' moves, one frame after the other.
    fstart : int64[depth]
        Where each frame's moves begin in ``buf``.
    fcount : int64[depth]
        How many moves each frame has.
    fnext : int64[depth]
        Each frame's next move to try.
    fkey : uint64[depth]
        Each frame's position key.
    meta : int64[7]
        The search's state and counters (``M_*``).
    budget : int
        The most nodes this call searches.
    """
    keys = np.empty(_OPEN, np.int64)
    d = meta[M_DEPTH]
    top = meta[M_TOP]
    count = meta[M_COUNT]
    left = meta[M_LEFT]
    order = meta[M_ORDER]
    nodes = 0
    status = RUNNING
    while nodes < budget:
        if fnext[d] == fcount[d]:          # every move tried: the position is lost
            if count * 4 >= table.shape[0] * 3:
                status = NEED_TABLE
                break
            count += lost_insert(table, fkey[d])
            if d == 0:
                status = EXHAUSTED
                break
            top = fstart[d]
            d -= 1
            m = buf[fstart[d] + fnext[d] - 1]
            h[_first(m)] += 1
            h[_second(m)] += 1
            left += 2
            continue
        m = buf[fstart[d] + fnext[d]]
        fnext[d] += 1
        h[_first(m)] -= 1
        h[_second(m)] -= 1
        left -= 2
        nodes += 1
        if left == 0:
            d += 1
            status = WON
            break
        k = key_of(h, tall, dealt, meta[M_BITS])
        if table[_find(table, k)] == k:    # proven lost before
            h[_first(m)] += 1
            h[_second(m)] += 1
            left += 2
            continue
        d += 1
        fstart[d] = top
        fcount[d] = _gen(ranks, h, order, buf, top, keys)
        fnext[d] = 0
        fkey[d] = k
        top += fcount[d]
    meta[M_DEPTH] = d
    meta[M_TOP] = top
    meta[M_COUNT] = count
    meta[M_LEFT] = left
    meta[M_NODES] += nodes
    return status


class LostTable:
    """The positions proven lost, shared by the searches of one deal (``ten-columns``' placements)."""

    def __init__(self) -> None:
        self.keys = np.zeros(1 << 12, np.uint64)
        self.bits: int | None = None    # the key's layout, fixed by the first search that uses the table

    def grow(self) -> None:
        new = np.zeros(2 * self.keys.size, np.uint64)
        rehash(self.keys, new)
        self.keys = new


def run(ranks: np.ndarray, h: np.ndarray, lim, order: int, lost: LostTable,
        tall: np.ndarray | None = None, dealt: np.ndarray | None = None) -> tuple[Verdict, list[tuple[int, int]]]:
    """One search from heights ``h`` (changed in place, restored unless won) under ``lim``
    (``base.Limits``, whose node count it adds to), driven in budgets by ``budget.drive``: ``(SOLVED, line)``
    with the line as column pairs, ``(UNSOLVABLE, [])``, or ``(UNKNOWN, [])`` when a limit stops it
    (``lim.hit`` says which)."""

    n = h.shape[0]
    tall = np.zeros(n, np.int64) if tall is None else tall
    dealt = np.zeros(n, np.int64) if dealt is None else dealt
    frames = int(h.sum()) // 2 + 2
    buf = np.zeros(frames * _OPEN, np.int64)
    fstart, fcount, fnext = (np.zeros(frames, np.int64) for _ in range(3))
    fkey = np.zeros(frames, np.uint64)
    meta = np.zeros(8, np.int64)
    meta[M_ORDER] = order
    bits = key_bits(h, tall)
    if bits is None or (lost.bits is not None and bits > lost.bits):
        raise ValueError("pairs_kernel.run: heights too large for the key (search in Python)")
    lost.bits = bits if lost.bits is None else lost.bits
    meta[M_BITS] = lost.bits
    meta[M_COUNT] = int(np.count_nonzero(lost.keys))
    last = [start(ranks, h, tall, dealt, lost.keys, buf, fstart, fcount, fnext, fkey, meta)]

    def call(step: int) -> Step:
        if last[0] == NEED_TABLE:
            lost.grow()
        last[0] = search(ranks, h, tall, dealt, lost.keys, buf, fstart, fcount, fnext, fkey, meta, step)
        return Step.DONE if last[0] in (WON, EXHAUSTED) else Step.GOING

    if last[0] not in (WON, EXHAUSTED):
        hit = drive(call, lambda: lim.nodes + int(meta[M_NODES]), lim.bound(lim.max_nodes),
                    Pace(1 << 14, max_chunk=1 << 22, t0=lim.t0))
        if hit is not None:
            lim.hit = hit
    status = last[0]
    lim.nodes += int(meta[M_NODES])
    if status == WON:
        d = int(meta[M_DEPTH])
        moves = [int(buf[fstart[k] + fnext[k] - 1]) for k in range(d)]
        return Verdict.SOLVED, [(codes.pair_first(m), codes.pair_second(m)) for m in moves]
    if status == EXHAUSTED:
        return Verdict.UNSOLVABLE, []
    if lim.max_nodes is not None and lim.nodes > lim.max_nodes:
        lim.hit = Limit.NODES
    return Verdict.UNKNOWN, []


@functools.cache  # once a process
def warm() -> None:
    """Compile the kernel, or load it from Numba's cache, before a search's clock starts (once a process;
    once a machine, told to ``compiles.listeners`` when it compiles)."""
    with compiles.compiling("pairs"):
        _warm()


def _warm() -> None:
    from .base import Limits

    lost = LostTable()
    lim = Limits(None, None)
    run(np.zeros((2, 1), np.int64), np.ones(2, np.int64), lim, 1, lost)
    if lim.hit is Limit.INTERRUPTED:  # a Ctrl-C during the compile: the caller's, passed on
        raise KeyboardInterrupt
    rehash(lost.keys, np.zeros(2 * lost.keys.size, np.uint64))


compiles.entry_points("pairs", start, search, rehash)  # what warm() compiles: compiles.compiled("pairs") asks about these
