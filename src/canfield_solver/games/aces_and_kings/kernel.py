"""``aces-and-kings`` / ``bisley``: the compiled search (Numba), the same search as ``solve.search_python``.

The depth-first graph search of ``solve``'s notes, move for move: the same safe foundation moves, the
same move order, every position reached kept and never expanded twice, so on any position it visits
the same positions as the plain-Python search and counts the same nodes (the agreement tests check
it). What differs is only how a position is held:

- one position, changed in place: ``cols`` (13 columns of up to ``CAP`` cards, first-dealt first) and
  ``fnd`` (per suit, the cards on its ace pile, then on its king pile); a move is undone on the way back;
- the canonical key (the 13 columns are interchangeable, ``game.Position.key``) as two independent
  64-bit hashes: each column's cards hashed in order (a prefix hash per height, so a move updates it in
  constant time), the columns' hashes mixed and summed (a sum does not see the columns' order), plus the
  foundations'. The set of reached positions stores both words (128 bits), so two different positions
  share a key with probability about n^2 / 2^129 for n positions: below 10^-20 at 10^9;
- the stack of frames: each frame's moves, generated once when it is entered, in one flat buffer.

The arrays go to the compiled functions in three named tuples (``Board``, ``Table``, ``Frames``).

The search runs for at most ``budget`` new positions and returns, its whole state in the arrays
(resumable), so the caller checks the time between calls, and grows the table or the stack when the
kernel asks (``NEED_TABLE``, ``NEED_STACK``) until the memory limit says ``unknown``.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import numpy as np

from ... import compiles
from ...jit import CACHED, IR_INLINE, IR_INLINE_CACHED, THREADED, njit
from .. import codes
from ..codes import A_PILE, K_PILE

__all__ = ["CAP", "EXHAUSTED", "NEED_STACK", "NEED_TABLE", "RUNNING", "WON", "Board", "Frames", "Table", "init",
           "rehash", "search"]

CAP = 52                      # cards a column can hold (a column never holds more than the deck)
RUNNING, WON, EXHAUSTED, NEED_TABLE, NEED_STACK = 0, 1, 2, 3, 4
# meta's fields
M_DEPTH, M_TOP, M_COUNT, M_NODES, M_INSUIT, M_HOME, M_BEST = 0, 1, 2, 3, 4, 5, 6
_OPEN = 80                    # the most moves one position can have, with room to spare (13 x 6)


class Board(NamedTuple):
    """The one position the search changes in place, with its key's running hashes."""

    cols: np.ndarray  #: int64[13, CAP], each column's cards, first-dealt first
    lens: np.ndarray  #: int64[13], how many cards each column holds
    fnd: np.ndarray   #: int64[8], per suit the cards on its ace pile, then on its king pile
    h1: np.ndarray    #: uint64[13, CAP + 1], each column's prefix hashes (first hash)
    h2: np.ndarray    #: uint64[13, CAP + 1], the same with the second hash


class Table(NamedTuple):
    """The set of positions reached: both 64-bit words of each key, open addressing (0 empty)."""

    t1: np.ndarray  #: uint64[rows], first words
    t2: np.ndarray  #: uint64[rows], second words


class Frames(NamedTuple):
    """The stack of frames: each frame's moves in one flat buffer."""

    buf: np.ndarray     #: int64[n], the moves of every frame, one after another
    fstart: np.ndarray  #: int64[depth], where each frame's moves start in ``buf``
    fcount: np.ndarray  #: int64[depth], how many moves each frame has
    fnext: np.ndarray   #: int64[depth], the index of each frame's next move to try

# The move code (codes.py), compiled from its own text (inlined by Numba into each caller).
_move = njit(**IR_INLINE)(codes.ak_move)
_card = njit(**IR_INLINE)(codes.ak_card)
_source = njit(**IR_INLINE)(codes.ak_source)
_target = njit(**IR_INLINE)(codes.ak_target)

_C1 = np.uint64(0x9E3779B97F4A7C15)
_C2 = np.uint64(0xC2B2AE3D27D4EB4F)
_SALT1 = np.uint64(0x243F6A8885A308D3)
_SALT2 = np.uint64(0x13198A2E03707344)
_FSALT1 = np.uint64(0xA4093822299F31D0)
_FSALT2 = np.uint64(0x082EFA98EC4E6C89)


@njit(**IR_INLINE_CACHED)
def _mix(z):
    """SplitMix64's finaliser: ``z`` mixed.

    Parameters
    ----------
    z : uint64
        The value mixed.
    """
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(**IR_INLINE_CACHED)
def _push_hash(h1, h2, i, n, card):
    """The prefix hashes of column ``i`` at height ``n + 1``, its card at height ``n`` being ``card``.

    Parameters
    ----------
    h1 : uint64[13, CAP + 1]
        Each column's first prefix hashes (``h1[i, n]``: its cards below height n).
    h2 : uint64[13, CAP + 1]
        Its second prefix hashes.
    i : int
        The column.
    n : int
        The height of ``card``.
    card : int
        The card at that height.
    """
    c = np.uint64(card + 1)
    h1[i, n + 1] = _mix(h1[i, n] + c * _C1 + _SALT1)
    h2[i, n + 1] = _mix(h2[i, n] ^ (c * _C2 + _SALT2))


@njit(**IR_INLINE_CACHED)
def _key(lens, h1, h2, fnd):
    """The position's two-word key: each column's prefix hash at its length, summed (columns are sets), and
    the foundation heights.

    Parameters
    ----------
    lens : int64[13]
        Each column's length.
    h1 : uint64[13, CAP + 1]
        Each column's first prefix hashes (``h1[i, n]``: its cards below height n).
    h2 : uint64[13, CAP + 1]
        Its second prefix hashes.
    fnd : int64[8]
        The ace piles' heights, then the king piles'.
    """
    k1 = np.uint64(0)
    k2 = np.uint64(0)
    for i in range(13):
        n = lens[i]
        if n:
            k1 += _mix(h1[i, n] ^ _SALT2)
            k2 += _mix(h2[i, n] + _SALT1)
    f = np.uint64(0)
    for s in range(8):
        f = f * np.uint64(16) + np.uint64(fnd[s])
    k1 += _mix(f + _FSALT1)
    k2 += _mix(f ^ _FSALT2)
    if k1 == np.uint64(0):
        k1 = np.uint64(1)
    return k1, k2


@njit(**IR_INLINE_CACHED)
def _insert(t1, t2, k1, k2):
    """Add the key; False when it was there already.

    Parameters
    ----------
    t1 : uint64[rows]
        The table's first words (rows a power of two; 0 marks an empty slot).
    t2 : uint64[rows]
        Its second words.
    k1 : uint64
        The key's first word (never 0).
    k2 : uint64
        Its second word.
    """
    mask = np.uint64(t1.shape[0] - 1)
    j = k1 & mask
    while True:
        a = t1[j]
        if a == np.uint64(0):
            t1[j] = k1
            t2[j] = k2
            return True
        if a == k1 and t2[j] == k2:
            return False
        j = (j + np.uint64(1)) & mask


@njit(**CACHED)
def rehash(t1, t2, n1, n2):
    """Every key of (t1, t2) into the larger empty table (n1, n2).

    Parameters
    ----------
    t1 : uint64[rows]
        The full table's first words.
    t2 : uint64[rows]
        Its second words.
    n1 : uint64[more rows]
        The new table's first words (empty).
    n2 : uint64[more rows]
        Its second words.
    """
    for j in range(t1.shape[0]):
        if t1[j] != np.uint64(0):
            _insert(n1, n2, t1[j], t2[j])


@njit(**IR_INLINE_CACHED)
def _home(fnd, suit, rank):
    """Whether card (suit, rank) is on a foundation; a rank off the deck counts as home.

    Parameters
    ----------
    fnd : int64[8]
        The ace piles' heights, then the king piles'.
    suit : int
        The card's suit.
    rank : int
        Its rank index (0 the ace).
    """
    if rank < 0 or rank > 12:
        return True
    return rank < fnd[suit] or rank > 12 - fnd[4 + suit]


@njit(**IR_INLINE_CACHED)
def _fits(card, target, in_suit):
    """Whether ``card`` may go on ``target`` in the tableau (``game._ONTO``).

    Parameters
    ----------
    card : int
        The card moved.
    target : int
        The free card it would go on.
    in_suit : bool
        Columns build in suit (``bisley``), else in colour.
    """
    tr = target % 13
    if tr == 0:
        return False
    d = card % 13 - tr
    if d != 1 and d != -1:
        return False
    cs = card // 13
    ts = target // 13
    if in_suit:
        return cs == ts
    return (cs == 1 or cs == 2) == (ts == 1 or ts == 2)


@njit(**IR_INLINE_CACHED)
def _gen(cols, lens, fnd, in_suit, buf, top, keys, rng):
    """Write the position's moves at ``buf[top:]`` in the search's order (``solve._children``) and return
    how many: a safe foundation move alone, else foundation moves by column (ace pile first), then column
    moves sorted, stably, by ``solve._order``. A move is ``codes.ak_move(card, source, target)``.

    With ``rng[0] != 0`` (a restart's xorshift state), column moves of one ``_order`` class are tried in a
    pseudo-random order instead of by column: the order only decides how soon a win is found.

    Parameters
    ----------
    cols : int64[13, CAP]
        Each column's cards, bottom (first dealt) first.
    lens : int64[13]
        Each column's length.
    fnd : int64[8]
        Each suit's ace pile height (0-3), then its king pile height (4-7).
    in_suit : bool
        Columns build in suit (``bisley``), else in colour.
    buf : int64[n]
        Receives the moves.
    top : int
        Where in ``buf`` they go.
    keys : int64[n]
        Work space: each move's sort key.
    rng : uint64[1]
        A restart's xorshift state; 0 for the search's own order.
    """
    # The safe move, if any (solve.safe_move: the first column whose free card is one).
    for i in range(13):
        n = lens[i]
        if n == 0:
            continue
        c = cols[i, n - 1]
        s = c // 13
        r = c % 13
        if r == fnd[s]:
            t = A_PILE
        elif r == 12 - fnd[4 + s]:
            t = K_PILE
        else:
            continue
        if in_suit or (_home(fnd, 3 - s, r - 1) and _home(fnd, 3 - s, r + 1)):
            buf[top] = _move(c, i, t)
            return 1
    k = 0
    for i in range(13):
        n = lens[i]
        if n == 0:
            continue
        c = cols[i, n - 1]
        s = c // 13
        r = c % 13
        if r == fnd[s]:
            buf[top + k] = _move(c, i, A_PILE)
            k += 1
        if r == 12 - fnd[4 + s]:
            buf[top + k] = _move(c, i, K_PILE)
            k += 1
    nhome = k
    for i in range(13):
        n = lens[i]
        if n == 0:
            continue
        c = cols[i, n - 1]
        # solve._order's key for moves from column i (the same for each of its targets).
        if n < 2:
            pri = 5 * 64
        else:
            u = cols[i, n - 2]
            us = u // 13
            ur = u % 13
            if ur == fnd[us] or ur == 12 - fnd[4 + us]:
                pri = -5 * 64 - n
            else:
                pri = -n
                for j in range(13):
                    if lens[j] and _fits(u, cols[j, lens[j] - 1], in_suit):
                        pri = -2 * 64 - n
                        break
        for j in range(13):
            if j != i and lens[j] and _fits(c, cols[j, lens[j] - 1], in_suit):
                buf[top + k] = _move(c, i, j)
                if rng[0] == np.uint64(0):
                    keys[k] = pri
                else:
                    x = rng[0]
                    x ^= x << np.uint64(13)
                    x ^= x >> np.uint64(7)
                    x ^= x << np.uint64(17)
                    rng[0] = x
                    keys[k] = pri * 1024 + np.int64(x >> np.uint64(54))
                k += 1
    # Stable insertion sort of the column moves by their key.
    for a in range(nhome + 1, k):
        m = buf[top + a]
        km = keys[a]
        b = a - 1
        while b >= nhome and keys[b] > km:
            buf[top + b + 1] = buf[top + b]
            keys[b + 1] = keys[b]
            b -= 1
        buf[top + b + 1] = m
        keys[b + 1] = km
    return k


@njit(**IR_INLINE_CACHED)
def _below(where, y, i, k):
    """Whether card ``y`` lies in column ``i`` below height ``k``.

    Parameters
    ----------
    where : int64[52]
        Each card's place: column * 64 + height, -1 off the tableau.
    y : int
        The card.
    i : int
        The column.
    k : int
        The height.
    """
    w = where[y]
    return w >= 0 and w // 64 == i and w % 64 < k


@njit(**IR_INLINE_CACHED)
def _frozen(cols, lens, fnd, in_suit, where):
    """Whether some card can never leave its column (``solve.frozen_card``, whose notes say why the
    position is then lost). ``where`` is a scratch array of 52.

    Parameters
    ----------
    cols : int64[13, CAP]
        Each column's cards, bottom (first dealt) first.
    lens : int64[13]
        Each column's length.
    fnd : int64[8]
        Each suit's ace pile height (0-3), then its king pile height (4-7).
    in_suit : bool
        Columns build in suit (``bisley``), else in colour.
    where : int64[52]
        Work space: each card's place.
    """
    for c in range(52):
        where[c] = -1
    for i in range(13):
        for k in range(lens[i]):
            where[cols[i, k]] = i * 64 + k
    for i in range(13):
        for k in range(lens[i]):
            x = cols[i, k]
            s = x // 13
            r = x % 13
            if r == 12 or r == fnd[s] or r == 12 - fnd[4 + s]:
                continue                     # a king, or its pile's next card: home once free
            blocked = False
            for q in range(fnd[s], r):       # the ace pile takes x after every lower card of its suit
                if _below(where, s * 13 + q, i, k):
                    blocked = True
                    break
            if not blocked:
                continue
            blocked = False
            for q in range(r + 1, 13 - fnd[4 + s]):   # the king pile after every higher one
                if _below(where, s * 13 + q, i, k):
                    blocked = True
                    break
            if not blocked:
                continue
            free = False                     # each card x may go on: home, or below x
            for ts in range(4):
                if ts != s and (in_suit or ts != 3 - s):
                    continue
                for tr in (r - 1, r + 1):
                    if 1 <= tr <= 12 and where[ts * 13 + tr] >= 0 and not _below(where, ts * 13 + tr, i, k):
                        free = True
            if not free:
                return True
    return False


@njit(**IR_INLINE_CACHED)
def _apply(cols, lens, fnd, h1, h2, m):
    """Play move ``m``; 1 when it put a card home.

    Parameters
    ----------
    cols : int64[13, CAP]
        Each column's cards, bottom (first dealt) first.
    lens : int64[13]
        Each column's length.
    fnd : int64[8]
        Each suit's ace pile height (0-3), then its king pile height (4-7).
    h1 : uint64[13, CAP + 1]
        Each column's first prefix hashes (``h1[i, n]``: its cards below height n).
    h2 : uint64[13, CAP + 1]
        Its second prefix hashes.
    m : int
        The move (``codes.ak_move``).
    """
    i = _source(m)
    t = _target(m)
    lens[i] -= 1
    c = cols[i, lens[i]]
    if t == A_PILE:
        fnd[c // 13] += 1
        return 1
    if t == K_PILE:
        fnd[4 + c // 13] += 1
        return 1
    n = lens[t]
    cols[t, n] = c
    _push_hash(h1, h2, t, n, c)
    lens[t] = n + 1
    return 0


@njit(**IR_INLINE_CACHED)
def _undo(cols, lens, fnd, h1, h2, m):
    """Take move ``m`` back; whether it had put a card home.

    Parameters
    ----------
    cols : int64[13, CAP]
        Each column's cards, bottom (first dealt) first.
    lens : int64[13]
        Each column's length.
    fnd : int64[8]
        Each suit's ace pile height (0-3), then its king pile height (4-7).
    h1 : uint64[13, CAP + 1]
        Each column's first prefix hashes (``h1[i, n]``: its cards below height n).
    h2 : uint64[13, CAP + 1]
        Its second prefix hashes.
    m : int
        The move (``codes.ak_move``).
    """
    i = _source(m)
    t = _target(m)
    c = _card(m)
    if t == A_PILE:
        fnd[c // 13] -= 1
    elif t == K_PILE:
        fnd[4 + c // 13] -= 1
    else:
        lens[t] -= 1
    n = lens[i]
    cols[i, n] = c
    _push_hash(h1, h2, i, n, c)   # a deeper move may have put another card at this height since
    lens[i] = n + 1
    return (t == A_PILE) or (t == K_PILE)


@njit(**CACHED)
def init(board, table, frames, meta, rng):
    """Hash the start position, enter it in the table and push its frame; ``WON`` if it is won already.

    Parameters
    ----------
    board : Board
        The start position (its hashes are filled here).
    table : Table
        The empty set of reached positions.
    frames : Frames
        The stack of frames; frame 0 receives the start's moves.
    meta : int64[8]
        The search's counters (``M_*``); ``M_INSUIT`` set by the caller.
    rng : uint64[1]
        The move order's random state (0: the fixed order).
    """
    cols, lens, fnd, h1, h2 = board
    t1, t2 = table
    buf, fstart, fcount, fnext = frames
    for i in range(13):
        for n in range(lens[i]):
            _push_hash(h1, h2, i, n, cols[i, n])
    k1, k2 = _key(lens, h1, h2, fnd)
    _insert(t1, t2, k1, k2)
    meta[M_COUNT] = 1
    home = 0
    for s in range(8):
        home += fnd[s]
    meta[M_HOME] = home
    meta[M_BEST] = home
    meta[M_DEPTH] = 0
    if home == 52:
        return WON
    if _frozen(cols, lens, fnd, meta[M_INSUIT] == 1, np.empty(52, np.int64)):
        return EXHAUSTED
    keys = np.empty(_OPEN, np.int64)
    fstart[0] = 0
    fcount[0] = _gen(cols, lens, fnd, meta[M_INSUIT] == 1, buf, 0, keys, rng)
    fnext[0] = 0
    meta[M_TOP] = fcount[0]
    return RUNNING


@njit(**THREADED)
def search(board, table, frames, meta, rng, budget):
    """At most ``budget`` new positions; returns ``WON`` (the line is each frame's last move tried, frames
    ``0 .. meta[M_DEPTH] - 1``), ``EXHAUSTED`` (every reachable position searched: lost), ``RUNNING``
    (budget spent), or ``NEED_TABLE`` / ``NEED_STACK`` (grow that array and call again).

    Parameters
    ----------
    board : Board
        The position the search stands at, changed in place.
    table : Table
        The set of reached positions.
    frames : Frames
        The stack of frames.
    meta : int64[8]
        The search's counters (``M_*``), kept between calls.
    rng : uint64[1]
        The move order's random state.
    budget : int
        The most new positions this call reaches.
    """
    cols, lens, fnd, h1, h2 = board
    t1, t2 = table
    buf, fstart, fcount, fnext = frames
    in_suit = meta[M_INSUIT] == 1
    keys = np.empty(_OPEN, np.int64)
    where = np.empty(52, np.int64)
    d = meta[M_DEPTH]
    top = meta[M_TOP]
    count = meta[M_COUNT]
    home = meta[M_HOME]
    best = meta[M_BEST]
    nodes = 0
    cap = t1.shape[0]
    status = RUNNING
    while nodes < budget:
        if fnext[d] == fcount[d]:           # every move of this frame tried: back to its parent
            if d == 0:
                status = EXHAUSTED
                break
            top = fstart[d]
            d -= 1
            home -= _undo(cols, lens, fnd, h1, h2, buf[fstart[d] + fnext[d] - 1])
            continue
        if count * 4 >= cap * 3:
            status = NEED_TABLE
            break
        if d + 2 >= fstart.shape[0] or top + _OPEN >= buf.shape[0]:
            status = NEED_STACK
            break
        m = buf[fstart[d] + fnext[d]]
        fnext[d] += 1
        home += _apply(cols, lens, fnd, h1, h2, m)
        k1, k2 = _key(lens, h1, h2, fnd)
        if not _insert(t1, t2, k1, k2):      # reached before: searched from its first visit
            home -= _undo(cols, lens, fnd, h1, h2, m)
            continue
        count += 1
        nodes += 1
        if home > best:
            best = home
        if home == 52:
            d += 1
            status = WON
            break
        if _frozen(cols, lens, fnd, in_suit, where):   # lost: not expanded
            home -= _undo(cols, lens, fnd, h1, h2, m)
            continue
        d += 1
        fstart[d] = top
        fcount[d] = _gen(cols, lens, fnd, in_suit, buf, top, keys, rng)
        fnext[d] = 0
        top += fcount[d]
    meta[M_DEPTH] = d
    meta[M_TOP] = top
    meta[M_COUNT] = count
    meta[M_HOME] = home
    meta[M_BEST] = best
    meta[M_NODES] += nodes
    return status


@functools.cache  # once a process
def warm() -> None:
    """Compile the kernel, or load it from Numba's cache, before a search's clock starts (once a process:
    a compile takes seconds, and a search's time limit should not pay for it; once a machine, told to
    ``compiles.listeners`` when it compiles)."""
    with compiles.compiling("aces-and-kings"):
        _warm()


def _warm() -> None:
    cols = np.zeros((13, CAP), np.int64)
    lens = np.zeros(13, np.int64)
    cols[0, 0], lens[0] = 12, 1                 # one king left: one move, then won
    fnd = np.array([12, 13, 13, 13, 0, 0, 0, 0], np.int64)
    h1, h2 = np.zeros((13, CAP + 1), np.uint64), np.zeros((13, CAP + 1), np.uint64)
    t1, t2 = np.zeros(16, np.uint64), np.zeros(16, np.uint64)
    buf, fstart, fcount, fnext = (np.zeros(64, np.int64) for _ in range(4))
    meta = np.zeros(8, np.int64)
    rng = np.ones(1, np.uint64)
    board, frames = Board(cols, lens, fnd, h1, h2), Frames(buf, fstart, fcount, fnext)
    init(board, Table(t1, t2), frames, meta, rng)
    search(board, Table(t1, t2), frames, meta, rng, 16)
    rehash(t1, t2, np.zeros(32, np.uint64), np.zeros(32, np.uint64))


compiles.entry_points("aces-and-kings", init, search, rehash)  # what warm() compiles: compiles.compiled("aces-and-kings") asks about these
