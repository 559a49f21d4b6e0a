"""The search over card classes (Numba): a depth-first search whose table keeps each position by its classes
only, in one of two modes.

A card's class is what the building rule reads of it: its rank where any suit builds, its rank and colour
where colours alternate. Columns are built runs, so a column's classes follow from its bottom card's class
and its length: the key holds each column as that pair (sorted: columns are interchangeable), the
foundation heights, and the talon and reserve exactly (the kernel's own word 0). Positions that differ only
in which card of a class lies where in the columns share a key.

- ``FIND``: the real moves of the real position (safe moves first, as the exact search makes them), each
  class key entered once. Two positions of one key are not the same position, so a line cut at a key seen
  before may have been the only win: an exhausted search proves nothing. A win is a real line, replayed
  by the reference engine as every win is (the published solver's "streamliner", issue 70).
- ``PROVE``: the abstract game. A column's top goes home as any card of its class that its foundation
  takes next and that lies anywhere in the columns: the two cards are swapped first (``_swap_in``), which
  changes no class, so the child is a real position of the abstract state the move reaches. Every real
  move of every position of a key is then a move of the position stored for it (column, reserve and waste
  moves read classes only; a foundation move from a column is a swap move or a real one), so the search
  walks the whole abstract game from the deal, and an exhausted search that never won proves the deal lost
  (docs/solver-notes.md, "Loss proofs over classes"). No safe move and no stuck test: both read identities.

Level ``d`` of the stack holds a whole position as in the exact kernel (``kernel.gen``, ``apply`` and
the level copies are that kernel's own, inlined); a swap writes below a column's top, so the level it
was made from copies its cards again before its next move (``dirty``).
"""

from __future__ import annotations

import numpy as np

from ...jit import ENTRY, IR_INLINE_NO_NRT, njit
from .. import kernel as K
from ..codec import (
    EXHAUSTED,
    GROW,
    K_TF,
    MAXCOLS,
    MOVE_BITS,
    P_NCOLS,
    P_RANKS,
    RUNNING,
    SC_F,
    SC_LEN,
    SC_TAB,
    SCR_CODES,
    SOLVED,
)

FIND = 0   # real moves under the class key: wins only
PROVE = 1  # the abstract game: losses only

# stats[] of a search over classes
R_NODES, R_DEPTH, R_STARTED, R_SOLVED_DEPTH, R_TRUNCATED, R_ROWS, R_MAXDEPTH, R_BEST = range(8)
NRSTATS = 8

KEY_WORDS = 3      # a row of the class table: the talon word, then heights and columns
CLASS_BITS = 5     # a column's bottom class + 1 (0: an empty column)
LEN_BITS = 6       # a column's length
COL_BITS = CLASS_BITS + LEN_BITS
SWAP_SHIFT = 12    # a swap move: K_TF with the card swapped in + 1 in the destination field (codec.MV_DST_SHIFT)


@njit(**IR_INLINE_NO_NRT)
def _class_key(cols, sc, mask, d, params, cls, words, scratch):
    """The class key of level ``d`` into ``words``: word 0 as the exact key's (talon mask, waste position,
    reserve count, redeals, the mark bit), then the foundation heights and each column as its bottom
    card's class and its length, sorted.

    Parameters
    ----------
    cols : int8[levels, MAXCOLS, COLCAP]
        Each level's columns, cards bottom first (``StackArrays.cols``).
    sc : int64[levels, NSC]
        Each level's scalars (``SC_*``).
    mask : uint64[levels]
        Each level's talon mask (bit i: talon card i is still in the talon).
    d : int
        The level that holds the position.
    params : int64[NPARAMS]
        The rule parameters (``P_*``).
    cls : int64[52]
        Each card's class.
    words : uint64[4]
        Receives the key (word 3 stays 0: ``kernel.key_hash`` reads four).
    scratch : int64[SCRATCH_SIZE]
        Work space (the columns' codes at ``SCR_CODES``).
    """
    words[0] = K.talon_word(sc, mask, d, params)
    codes = scratch[SCR_CODES:SCR_CODES + MAXCOLS]
    ncols = params[P_NCOLS]
    for c in range(ncols):
        ln = sc[d, SC_LEN + c]
        codes[c] = 0 if ln == 0 else ((cls[cols[d, c, 0]] + 1) << LEN_BITS) | ln
    for i in range(1, ncols):  # insertion sort, largest first
        j = i
        while j > 0 and codes[j - 1] < codes[j]:
            t = codes[j]
            codes[j] = codes[j - 1]
            codes[j - 1] = t
            j -= 1
    h = np.uint64(0)
    for s in range(4):
        h |= np.uint64(sc[d, SC_F + s]) << np.uint64(4 * s)
    w1 = h
    w2 = np.uint64(0)
    for c in range(ncols):
        if c < 4:
            w1 |= np.uint64(codes[c]) << np.uint64(16 + COL_BITS * c)
        else:
            w2 |= np.uint64(codes[c]) << np.uint64(COL_BITS * (c - 4))
    words[1] = w1
    words[2] = w2
    words[3] = np.uint64(0)


@njit(**IR_INLINE_NO_NRT)
def _insert(table, words, stats):
    """Enter ``words`` in the class table; 1 if it was new, 0 if it was there.

    Parameters
    ----------
    table : uint64[rows, KEY_WORDS]
        The table (open addressing, linear probing; a row of zeros is empty).
    words : uint64[4]
        The key (word 3 is 0).
    stats : int64[NRSTATS]
        The search's statistics (``R_*``): ``R_ROWS`` counts the rows.
    """
    rows = table.shape[0]
    i = np.int64(K.slot(K.key_hash(words), rows))
    while True:
        if table[i, 0] == 0:
            table[i, 0] = words[0]
            table[i, 1] = words[1]
            table[i, 2] = words[2]
            stats[R_ROWS] += 1
            return 1
        if table[i, 0] == words[0] and table[i, 1] == words[1] and table[i, 2] == words[2]:
            return 0
        i += 1
        if i == rows:
            i = 0


@njit(**ENTRY)
def rehash(old, new, words, stats):
    """Move every row of ``old`` into the larger ``new``.

    Parameters
    ----------
    old : uint64[rows, KEY_WORDS]
        The full table.
    new : uint64[more rows, KEY_WORDS]
        An empty table.
    words : uint64[4]
        Work space.
    stats : int64[NRSTATS]
        The search's statistics; ``R_ROWS`` is counted again.
    """
    stats[R_ROWS] = 0
    words[3] = np.uint64(0)
    for i in range(old.shape[0]):
        if old[i, 0] != 0:
            for j in range(KEY_WORDS):
                words[j] = old[i, j]
            _insert(new, words, stats)


@njit(**IR_INLINE_NO_NRT)
def _swap_in(cols, sc, d, top, card, params):
    """Put ``card`` where it lies in the columns of level ``d`` in place of column ``top``'s top card, and
    that card where ``card`` was: the same classes everywhere.

    Parameters
    ----------
    cols : int8[levels, MAXCOLS, COLCAP]
        Each level's columns, cards bottom first.
    sc : int64[levels, NSC]
        Each level's scalars (``SC_*``).
    d : int
        The level changed.
    top : int
        The column whose top card is swapped.
    card : int
        The card swapped in.
    params : int64[NPARAMS]
        The rule parameters (``P_*``).
    """
    lt = sc[d, SC_LEN + top]
    old = cols[d, top, lt - 1]
    for c in range(params[P_NCOLS]):
        for i in range(sc[d, SC_LEN + c]):
            if cols[d, c, i] == card:
                cols[d, c, i] = old
                cols[d, top, lt - 1] = card
                return


@njit(**IR_INLINE_NO_NRT)
def _swap_moves(deal, cols, sc, d, peers, out, n):
    """``PROVE``'s foundation moves a real position lacks: a column's top goes home as another card of its
    class that lies in the columns and that its foundation takes next. Returns the move count with them.

    Parameters
    ----------
    deal : DealArrays
        The deal's arrays: params, reserve, talon, lut, bm (codec.DealArrays).
    cols : int8[levels, MAXCOLS, COLCAP]
        Each level's columns, cards bottom first.
    sc : int64[levels, NSC]
        Each level's scalars (``SC_*``).
    d : int
        The level that holds the position.
    peers : int64[52, 4]
        For each card the other cards of its class (-1 after the last).
    out : int64[width]
        Receives the moves, from index ``n`` on.
    n : int
        The moves already in ``out``.
    """
    params, _reserve, _talon, lut, _bm = deal
    tab = sc[d, SC_TAB]
    for c in range(params[P_NCOLS]):
        ln = sc[d, SC_LEN + c]
        if ln == 0:
            continue
        top = cols[d, c, ln - 1]
        for k in range(peers.shape[1]):
            x = peers[top, k]
            if x < 0:
                break
            if (tab >> x) & 1 and K.fits_f(x, sc, d, params, lut):
                out[n] = K.move_code(K_TF, c, 0, 1, 0) | ((x + 1) << SWAP_SHIFT)
                n += 1
    return n


@njit(**ENTRY)
def search(deal, stack, table, peers, cls, dirty, words, scratch, stats, budget, grow_at, mode):
    """Run the search over classes for at most ``budget`` nodes; resumable (all state lives in the arrays).

    Returns SOLVED (a won position: in ``FIND`` a real win, its moves on the stack up to
    ``stats[R_SOLVED_DEPTH]``; in ``PROVE`` an abstract one, which proves nothing), EXHAUSTED (every key
    reached was expanded), GROW (the table holds ``grow_at`` rows) or RUNNING (the budget is spent).

    Parameters
    ----------
    deal : DealArrays
        The deal's arrays: params, reserve, talon, lut, bm (codec.DealArrays).
    stack : StackArrays
        The search's stack: cols, sc, mask, moves, nmoves, midx (codec.StackArrays); level 0 holds the start.
    table : uint64[rows, KEY_WORDS]
        The class table.
    peers : int64[52, 4]
        For each card the other cards of its class (-1 after the last).
    cls : int64[52]
        Each card's class.
    dirty : int64[levels]
        1 where a swap move was played from the level: it copies its cards to the next level again.
    words : uint64[4]
        Work space for a key.
    scratch : int64[SCRATCH_SIZE]
        The move generator's work space (``SCR_*``).
    stats : int64[NRSTATS]
        The search's statistics (``R_*``).
    budget : int
        The most nodes this call searches.
    grow_at : int
        The row count at which the search returns GROW.
    mode : int
        ``FIND`` or ``PROVE``.
    """
    params, reserve, talon, _lut, _bm = deal
    cols, sc, mask, moves, nmoves, midx = stack
    maxd = sc.shape[0] - 1
    won = 4 * params[P_RANKS]
    prove = mode == PROVE
    if stats[R_STARTED] == 0:
        root = stats[R_DEPTH] * 0
        stats[R_STARTED] = 1
        stats[R_BEST] = K.score(sc, root)
        if K.score(sc, root) == won:
            stats[R_SOLVED_DEPTH] = 0
            return SOLVED
        _class_key(cols, sc, mask, root, params, cls, words, scratch)
        _insert(table, words, stats)
        nmoves[0] = -1
    d = stats[R_DEPTH]
    start = stats[R_NODES]
    while stats[R_NODES] - start < budget:
        if stats[R_ROWS] >= grow_at:
            stats[R_DEPTH] = d
            return GROW
        if nmoves[d] < 0:
            n = K.gen(deal, cols, sc, mask, d, moves[d], not prove, scratch, -1, -1, -1)
            if prove:
                n = _swap_moves(deal, cols, sc, d, peers, moves[d], n)
            nmoves[d] = n
            midx[d] = 0
            dirty[d] = 0
            K.copy_cards(cols, sc, d)
        if midx[d] >= nmoves[d]:
            if d == 0:
                stats[R_DEPTH] = 0
                return EXHAUSTED
            d -= 1
            continue
        mv = moves[d, midx[d]]
        midx[d] += 1
        if d + 1 >= maxd:
            stats[R_TRUNCATED] = 1
            continue
        if dirty[d] == 1:
            K.copy_cards(cols, sc, d)
            dirty[d] = 0
        K.reset_level(cols, sc, mask, d)
        swap = (mv >> SWAP_SHIFT) & 0xFF if K.move_kind(mv & MOVE_BITS) == K_TF else 0
        if swap > 0:
            _swap_in(cols, sc, d + 1, K.move_src(mv), swap - 1, params)
            dirty[d] = 1
            mv = mv & ~(np.int64(0xFF) << SWAP_SHIFT)
        K.apply(cols, sc, mask, d + 1, mv, params, reserve, talon)
        stats[R_NODES] += 1
        score = K.score(sc, d + 1)
        if score > stats[R_BEST]:
            stats[R_BEST] = score
        if score == won:
            stats[R_SOLVED_DEPTH] = d + 1
            stats[R_DEPTH] = d
            return SOLVED
        _class_key(cols, sc, mask, d + 1, params, cls, words, scratch)
        if _insert(table, words, stats) == 0:
            continue
        d += 1
        if d > stats[R_MAXDEPTH]:
            stats[R_MAXDEPTH] = d
        nmoves[d] = -1
    stats[R_DEPTH] = d
    return RUNNING
