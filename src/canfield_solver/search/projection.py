"""Dead ends proved by a projection: the game with its columns forgotten but for how many runs their cards fill.

The exact search spends its positions telling column arrangements apart. This abstract game keeps the
foundations, the reserve, the stock, the waste and the redeals used exactly, and of the columns only one
invariant: their cards (whatever is in none of those piles) fill at most C runs, C the columns, a run being
cards each of which fits on the one below it by the building rule. Its moves: a draw or a redeal as the real
game's; the reserve's top or the waste's top home, or into the columns while they still fill at most C runs;
any column card home while the rest still fill at most C runs. A real position maps to one abstract state
(its columns are C runs), every real move to an abstract move or to none (a card from column to column), a
won position to the won state: so when no abstract line from a position's state wins, no real line from the
position wins, and the position is lost (docs/solver-notes.md, "Dead ends proved by a projection").

One abstract state stands for every position of one progress and talon state, whatever its columns: the
exact search asks ``dead`` of each position before expanding it, and a dead one is not expanded. ``dead``
looks the state up in a table of the states already decided, else explores the abstract game from it, at most
``cap`` states: exhausted, every state it visited is dead and joins the table (dead ends learned, which
later positions of other arrangements and other lines meet at once); a win or the cap, and the state is
marked open (not proved; never tried again). Each search stack has its own tables, so parallel workers share
nothing here.

The state packs into one word (``pack``): the four foundation heights, the reserve count, the waste boundary
(one past the waste's top card, 0 for an empty waste), the redeals used, then the talon mask; ``arrays_for``
turns the projection off (``meta[M_ON]`` 0) where that takes more than 62 bits, where the stock passes
without limit, or where a column of the start is not a run.
"""

from __future__ import annotations

import os
from typing import NamedTuple

import numpy as np

from ..engine.cards import rank_of, suit_of
from ..engine.position import Position
from ..jit import INLINE, helper
from .base import _ctz, below
from .codec import SC_F, SC_RDL, SC_RES, SC_WB, ST_PROJECTED, ST_PSTATES

# meta: the deal's constants (int64)
M_ON, M_CAP, M_NTYPES, M_NTALON, M_NCOLS, M_RANKS, M_DRAW, M_REDEALS, M_BASE, M_NDECK = range(10)
M_SH_RES, M_SH_WB, M_SH_RDL, M_SH_MASK, M_GATE = 10, 11, 12, 13, 14
M_TYPE = 16          # [52] each card's type (what the building rule reads of it)
M_HOST = 68          # [52] each type's host type, -1 for none
M_CYCLE = 120        # [52] the cycle of host types a type lies on, -1 for none
M_NCYC = 172
M_RPOS = 176         # [52] each card's place in the reserve, -1 if not there
M_TPOS = 228         # [52] each card's talon index, -1 if not in the talon
M_DECK = 280         # [NDECK] the deck's cards
M_RESERVE = 332      # [reserve size] the reserve, bottom first
M_TALON = 384        # [NTALON] the talon, in dealing order
META_SIZE = 436

DEAD = np.uint64(1) << np.uint64(63)
OPEN = np.uint64(1) << np.uint64(62)
STATE = OPEN - np.uint64(1)
CAP = int(os.environ.get("CANFIELD_PROJECTION_CAP", "1000"))  # abstract states an exploration visits at most (a knob of the experiment)
TABLE_ROWS = 1 << 21  # decided states kept a stack (16 MiB); past LOAD of it nothing more is kept
LOAD = 0.75
STEP_STATES = 16     # children an abstract state has at most: reserve 2, waste 2, four suits, a draw


class ProjectionArrays(NamedTuple):
    """One search stack's projection: the deal's constants and its own tables."""

    meta: np.ndarray    #: int64[META_SIZE], the deal's constants (``M_*``)
    table: np.ndarray   #: uint64[rows], the decided states (DEAD, or DEAD | OPEN), 0 for an empty row
    seen: np.ndarray    #: uint64[4 * cap], one exploration's visited states
    slots: np.ndarray   #: int64[cap + 1], where each visited state went in ``seen``; slots[cap] the table's load
    todo: np.ndarray    #: uint64[STEP_STATES * (cap + 1)], the states an exploration has still to visit
    counts: np.ndarray  #: int64[128], column cards a type, and work space (``_runs``)


def off() -> ProjectionArrays:
    """Arrays for a search without the projection (tiny; ``meta[M_ON]`` 0)."""
    return ProjectionArrays(np.zeros(META_SIZE, np.int64), np.zeros(1, np.uint64), np.zeros(4, np.uint64),
                            np.zeros(2, np.int64), np.zeros(STEP_STATES, np.uint64), np.zeros(128, np.int64))


def copy_for_worker(proj: ProjectionArrays) -> ProjectionArrays:
    """The same deal's projection with tables of its own (a parallel worker's: no two threads write one
    table)."""
    if not proj.meta[M_ON]:
        return proj
    return ProjectionArrays(proj.meta, np.zeros_like(proj.table), np.zeros_like(proj.seen),
                            np.zeros_like(proj.slots), np.zeros_like(proj.todo), np.zeros_like(proj.counts))


def _types(pos: Position) -> tuple[list[int], list[int]]:
    """Each card's type and each type's host type (-1: none), by the building rule."""
    r = pos.rules
    kind = {"any": rank_of, "alternate": lambda c: (rank_of(c), suit_of(c) in (1, 2)), "suit": lambda c: c}[r.build]
    names = sorted({kind(c) for c in r.deck}, key=str)
    type_of = {c: names.index(kind(c)) for c in r.deck}
    host = [-1] * len(names)
    for c in r.deck:
        hosts = [h for h in r.deck if r.fits_tableau(pos.base_rank, c, h)]
        if hosts:
            host[type_of[c]] = type_of[hosts[0]]
    return [type_of.get(c, -1) for c in range(52)], host


def _cycles(host: list[int]) -> list[int]:
    """Each type's cycle of host types (an index), -1 for a type on none."""
    cycle = [-1] * len(host)
    n = 0
    for t in range(len(host)):
        path, u = [], t
        while u >= 0 and u not in path and cycle[u] < 0:
            path.append(u)
            u = host[u]
        if u >= 0 and u in path:
            for v in path[path.index(u):]:
                cycle[v] = n
            n += 1
    return cycle


def usable(pos: Position) -> bool:
    """Whether the projection runs from this position: the stock passes a limited number of times, the
    columns are runs, and a state fits 62 bits."""
    r = pos.rules
    if r.redeals is None or any(not r.fits_tableau(pos.base_rank, c[i + 1], c[i])
                                for c in pos.tableau for i in range(len(c) - 1)):
        return False
    ntalon = len(pos.waste) + len(pos.stock)
    return 16 + len(pos.reserve).bit_length() + ntalon.bit_length() + r.redeals.bit_length() + ntalon <= 62


def arrays_for(pos: Position, on: bool = True, cap: int = CAP) -> ProjectionArrays:
    """The projection's arrays for a search from ``pos`` (``off()`` where it does not run)."""
    if not (on and usable(pos)):
        return off()
    r = pos.rules
    m = np.full(META_SIZE, -1, np.int64)
    talon = list(pos.waste) + list(reversed(pos.stock))
    m[:16] = 0
    m[M_ON], m[M_CAP], m[M_NTALON], m[M_NCOLS], m[M_RANKS] = 1, cap, len(talon), r.columns, r.ranks
    m[M_DRAW], m[M_REDEALS], m[M_BASE], m[M_NDECK] = r.draw, r.redeals, pos.base_rank, len(r.deck)
    m[M_SH_RES] = 16
    m[M_GATE] = int(os.environ.get("CANFIELD_PROJECTION_GATE", "99"))  # explore only with at most this many reserve and talon cards left
    m[M_SH_WB] = 16 + len(pos.reserve).bit_length()
    m[M_SH_RDL] = m[M_SH_WB] + len(talon).bit_length()
    m[M_SH_MASK] = m[M_SH_RDL] + r.redeals.bit_length()
    type_of, host = _types(pos)
    cycle = _cycles(host)
    m[M_NTYPES], m[M_NCYC] = len(host), max(cycle) + 1
    m[M_TYPE:M_TYPE + 52] = type_of
    m[M_HOST:M_HOST + len(host)] = host
    m[M_CYCLE:M_CYCLE + len(host)] = cycle
    for i, c in enumerate(pos.reserve):
        m[M_RPOS + c], m[M_RESERVE + i] = i, c
    for i, c in enumerate(talon):
        m[M_TPOS + c], m[M_TALON + i] = i, c
    m[M_DECK:M_DECK + len(r.deck)] = r.deck
    return ProjectionArrays(m, np.zeros(TABLE_ROWS, np.uint64), np.zeros(1 << (4 * cap - 1).bit_length(), np.uint64),
                            np.zeros(cap + 1, np.int64), np.zeros(STEP_STATES * (cap + 1), np.uint64),
                            np.zeros(128, np.int64))


@helper(**INLINE)
def pack(h0, h1, h2, h3, res, wb, rdl, mask, meta):
    """The abstract state as one word (the module's docstring).

    Parameters
    ----------
    h0, h1, h2, h3 : int
        The foundation heights, clubs to spades.
    res : int
        The reserve count.
    wb : int
        One past the waste's top card's talon index; 0 for an empty waste.
    rdl : int
        The redeals used.
    mask : uint64
        The talon cards left (bit i: talon card i).
    meta : int64[META_SIZE]
        The deal's constants.
    """
    v = np.uint64(h0) | (np.uint64(h1) << np.uint64(4)) | (np.uint64(h2) << np.uint64(8)) \
        | (np.uint64(h3) << np.uint64(12)) | (np.uint64(res) << np.uint64(meta[M_SH_RES]))
    v |= (np.uint64(wb) << np.uint64(meta[M_SH_WB])) | (np.uint64(rdl) << np.uint64(meta[M_SH_RDL]))
    return v | (mask << np.uint64(meta[M_SH_MASK]))


@helper(**INLINE)
def _field(v, shift, nxt):
    """Bits ``shift`` up to ``nxt`` of ``v``.

    Parameters
    ----------
    v : uint64
        A packed state.
    shift : int
        Where the field starts.
    nxt : int
        Where the next field starts.
    """
    return np.int64((v >> np.uint64(shift)) & ((np.uint64(1) << np.uint64(nxt - shift)) - np.uint64(1)))


@helper(**INLINE)
def _top_below(mask, wb):
    """One past the highest talon index below ``wb`` still in the talon; 0 if none (a waste boundary made
    canonical).

    Parameters
    ----------
    mask : uint64
        The talon cards left.
    wb : int
        A waste boundary.
    """
    w = mask & below(wb)
    if w == np.uint64(0):
        return 0
    i = wb - 1
    while not w & (np.uint64(1) << np.uint64(i)):
        i -= 1
    return i + 1


@helper(**INLINE)
def _hash(v, rows):
    """The row where state ``v``'s probe starts in a table of ``rows`` rows (a power of two).

    Parameters
    ----------
    v : uint64
        A packed state.
    rows : int
        The table's rows.
    """
    x = (v ^ (v >> np.uint64(29))) * np.uint64(0xBF58476D1CE4E5B9)
    return np.int64((x ^ (x >> np.uint64(32))) & np.uint64(rows - 1))


@helper(**INLINE)
def _find(table, v):
    """The row holding state ``v`` in ``table``, or the empty row where it would go.

    Parameters
    ----------
    table : uint64[rows]
        A table of states, rows a power of two.
    v : uint64
        A packed state.
    """
    n = table.shape[0]
    i = _hash(v, n)
    while table[i] != np.uint64(0) and (table[i] & STATE) != v:
        i = (i + 1) & (n - 1)
    return i


@helper(**INLINE)
def _runs(counts, meta):
    """The fewest runs that hold cards of ``counts`` a type: for each type, its cards beyond its host type's
    (one host holds one guest), and one run for each cycle of types whose counts are equal and not zero.

    Parameters
    ----------
    counts : int64[>= 52 + cycles]
        Cards a type; the tail is work space.
    meta : int64[META_SIZE]
        The deal's constants.
    """
    nt = meta[M_NTYPES]
    nc = meta[M_NCYC]
    n = 0
    for k in range(nc):
        counts[52 + k] = -2  # no count seen yet on cycle k; -1: two counts differ
    for t in range(nt):
        h = meta[M_HOST + t]
        up = counts[h] if h >= 0 else 0
        if counts[t] > up:
            n += counts[t] - up
        k = meta[M_CYCLE + t]
        if k >= 0:
            if counts[52 + k] == -2:
                counts[52 + k] = counts[t]
            elif counts[52 + k] != counts[t]:
                counts[52 + k] = -1
    for k in range(nc):
        if counts[52 + k] > 0:
            n += 1
    return n


@helper(**INLINE)
def _fits(counts, t, delta, meta):
    """Whether the columns fill at most C runs with ``delta`` more cards of type ``t``.

    Parameters
    ----------
    counts : int64[>= 104]
        Cards a type (restored before returning).
    t : int
        A type.
    delta : int
        +1 or -1.
    meta : int64[META_SIZE]
        The deal's constants.
    """
    counts[t] += delta
    ok = _runs(counts, meta) <= meta[M_NCOLS]
    counts[t] -= delta
    return ok


@helper(**INLINE)
def _columns(v, meta, counts):
    """Count the column cards of state ``v`` by type into ``counts`` (every card that is not home, in the
    reserve or in the talon).

    Parameters
    ----------
    v : uint64
        A packed state.
    meta : int64[META_SIZE]
        The deal's constants.
    counts : int64[128]
        Receives the counts.
    """
    res = _field(v, meta[M_SH_RES], meta[M_SH_WB])
    mask = v >> np.uint64(meta[M_SH_MASK])
    ranks = meta[M_RANKS]
    for t in range(meta[M_NTYPES]):
        counts[t] = 0
    for j in range(meta[M_NDECK]):
        c = meta[M_DECK + j]
        if (c % 13 - meta[M_BASE]) % ranks < _field(v, 4 * (c // 13), 4 * (c // 13) + 4):
            continue
        rp = meta[M_RPOS + c]
        tp = meta[M_TPOS + c]
        if (rp >= 0 and rp < res) or (tp >= 0 and mask & (np.uint64(1) << np.uint64(tp))):
            continue
        counts[meta[M_TYPE + c]] += 1


@helper(**INLINE)
def _leave(v, c, h, res, wb, rdl, mask, meta, counts, todo, n):
    """Push the children of card ``c`` leaving a pile (the state ``v`` with ``h`` the heights' field,
    ``res``, ``wb``, ``rdl`` and ``mask`` as after it left): home if it is its suit's next, into the
    columns if they still fill at most C runs. Returns the new count of ``todo``.

    Parameters
    ----------
    v : uint64
        The state the card leaves.
    c : int
        The card.
    h : uint64
        The heights' field of ``v`` (its low 16 bits).
    res, wb, rdl : int
        The reserve count, waste boundary and redeals used after the card left.
    mask : uint64
        The talon mask after it left.
    meta : int64[META_SIZE]
        The deal's constants.
    counts : int64[128]
        The column cards of ``v`` by type.
    todo : uint64[>= n + 2]
        The states to visit.
    n : int
        How many ``todo`` holds.
    """
    s = c // 13
    hs = _field(v, 4 * s, 4 * s + 4)
    rest = pack(0, 0, 0, 0, res, wb, rdl, mask, meta)
    if hs < meta[M_RANKS] and (c % 13 - meta[M_BASE]) % meta[M_RANKS] == hs:
        todo[n] = rest | (h + (np.uint64(1) << np.uint64(4 * s)))
        n += 1
    if _fits(counts, meta[M_TYPE + c], 1, meta):
        todo[n] = rest | h
        n += 1
    return n


@helper(**INLINE)
def _children(v, meta, counts, todo, n):
    """Push the abstract moves' results from state ``v`` onto ``todo``; returns its new count.

    Parameters
    ----------
    v : uint64
        A packed state.
    meta : int64[META_SIZE]
        The deal's constants.
    counts : int64[128]
        Work space.
    todo : uint64[>= n + STEP_STATES]
        The states to visit.
    n : int
        How many ``todo`` holds.
    """
    res = _field(v, meta[M_SH_RES], meta[M_SH_WB])
    wb = _field(v, meta[M_SH_WB], meta[M_SH_RDL])
    rdl = _field(v, meta[M_SH_RDL], meta[M_SH_MASK])
    mask = v >> np.uint64(meta[M_SH_MASK])
    h = v & np.uint64(0xFFFF)
    _columns(v, meta, counts)
    if res > 0:
        n = _leave(v, meta[M_RESERVE + res - 1], h, res - 1, wb, rdl, mask, meta, counts, todo, n)
    if wb > 0:
        nm = mask & ~(np.uint64(1) << np.uint64(wb - 1))
        n = _leave(v, meta[M_TALON + wb - 1], h, res, _top_below(nm, wb - 1), rdl, nm, meta, counts, todo, n)
    ranks = meta[M_RANKS]
    for s in range(4):
        hs = _field(v, 4 * s, 4 * s + 4)
        if hs < ranks:
            c = s * 13 + (meta[M_BASE] + hs) % ranks
            rp = meta[M_RPOS + c]
            tp = meta[M_TPOS + c]
            if not ((rp >= 0 and rp < res) or (tp >= 0 and mask & (np.uint64(1) << np.uint64(tp)))) \
                    and _fits(counts, meta[M_TYPE + c], -1, meta):
                todo[n] = v + (np.uint64(1) << np.uint64(4 * s))
                n += 1
    stock = mask & ~below(wb)
    if stock != np.uint64(0):
        nwb = wb
        for _ in range(meta[M_DRAW]):
            if stock == np.uint64(0):
                break
            nwb = np.int64(_ctz(stock)) + 1
            stock &= stock - np.uint64(1)
        todo[n] = pack(0, 0, 0, 0, res, nwb, rdl, mask, meta) | h
        n += 1
    elif wb > 0 and rdl < meta[M_REDEALS]:
        todo[n] = pack(0, 0, 0, 0, res, 0, rdl + 1, mask, meta) | h
        n += 1
    return n


@helper(**INLINE)
def _remember(table, v, flag, load):
    """Keep state ``v`` with ``flag`` in ``table`` unless the table is at its load; returns the new load.

    Parameters
    ----------
    table : uint64[rows]
        The decided states.
    v : uint64
        A packed state.
    flag : uint64
        DEAD, or DEAD | OPEN.
    load : int
        The rows in use.
    """
    if load >= LOAD * table.shape[0]:
        return load
    i = _find(table, v)
    if table[i] == np.uint64(0):
        load += 1
    table[i] = v | flag
    return load


@helper(**INLINE)
def _explore(v0, proj):
    """Explore the abstract game from ``v0``, at most ``meta[M_CAP]`` states; keep what was learned (every
    state visited dead when it is exhausted; ``v0`` open else). Returns (dead, states visited).

    Parameters
    ----------
    v0 : uint64
        A packed state not in the table.
    proj : ProjectionArrays
        The projection's arrays.
    """
    meta, table, seen, slots, todo, counts = proj
    cap = meta[M_CAP]
    won = 4 * meta[M_RANKS]
    nvis = 0
    n = 1
    todo[0] = v0
    dead = True
    while n > 0:
        n -= 1
        v = todo[n]
        g = table[_find(table, v)]
        if g != np.uint64(0):
            if g & OPEN:
                dead = False
                break
            continue
        j = _find(seen, v)
        if seen[j] != np.uint64(0):
            continue
        if _field(v, 0, 4) + _field(v, 4, 8) + _field(v, 8, 12) + _field(v, 12, 16) == won or nvis >= cap:
            dead = False
            break
        seen[j] = v | DEAD
        slots[nvis] = j
        nvis += 1
        n = _children(v, meta, counts, todo, n)
    load = slots[cap]
    for k in range(nvis):
        if dead:
            load = _remember(table, seen[slots[k]] & STATE, DEAD, load)
        seen[slots[k]] = np.uint64(0)
    if not dead:
        load = _remember(table, v0, DEAD | OPEN, load)
    slots[cap] = load
    return dead, nvis


@helper(**INLINE)
def dead(sc, mask, d, proj, stats):
    """Whether the position at level ``d`` is proved lost by the projection (looked up, or explored now).

    Parameters
    ----------
    sc, mask, d : glossary
        As the glossary in ``search/base.py`` says.
    proj : ProjectionArrays
        The projection's arrays.
    stats : glossary
        As the glossary in ``search/base.py`` says.
    """
    meta = proj.meta
    left = sc[d, SC_RES]
    m = mask[d]
    while m != np.uint64(0):
        m &= m - np.uint64(1)
        left += 1
    if left > meta[M_GATE]:
        return False
    v = pack(sc[d, SC_F], sc[d, SC_F + 1], sc[d, SC_F + 2], sc[d, SC_F + 3], sc[d, SC_RES],
             _top_below(mask[d], sc[d, SC_WB]), sc[d, SC_RDL], mask[d], meta)
    g = proj.table[_find(proj.table, v)]
    if g != np.uint64(0):
        found = not g & OPEN
    else:
        found, visited = _explore(v, proj)
        stats[ST_PSTATES] += visited
    if found:
        stats[ST_PROJECTED] += 1
    return found
