"""The depth-first search kernel (Numba): arrays and scalars in, status codes out.

The search walks positions depth first with an explicit stack. Each stack
level holds a full copy of the (small) position, so a move is made by copying
the level and changing the copy; nothing is ever undone. Transposition
tables of full keys (codec.py; short two-word keys where they fit,
compact) mark every position seen, so each position is expanded at most
once and a hash collision can never change a verdict. A position's children
are all made and entered in the table when it is expanded (expand); the
soundness of each part is argued in docs/solver-notes.md.

Stock moves are direct plays: every waste card reachable by draws (and one
redeal, where allowed) is a move of its own; the draws and redeals are
written out again in Python when a solution is returned.

Beside it, in files of their own (issue 72) and imported here by name: ``base.py`` (the compile options,
the machine-word intrinsics, codec's packing functions compiled, one card's rules), ``stuck.py`` (the
stuck-card test) and ``pool.py`` (the waste cards draws reach, the talon as a pool).

Names without a leading underscore, here and in those three files, are the search's shared interface: the
other search modules (the drivers and arrays, the row decoder, the layered proof, the playouts, the search
over ranks) call them as ``kernel.name``. A name with one is used only inside these four files (and by tests).
"""

from __future__ import annotations

import numpy as np

from ..jit import CACHED, ENTRY, INLINE, NO_NRT, helper, njit

# The shared pieces, split out (issue 72) and imported here by name: the search below inlines them, and the
# other search modules read the public ones as ``kernel.name``.
from .base import (  # noqa: F401
    _cas,
    _ctz,
    _fetch_add,
    _fits_on,
    _home,
    _jit,
    _load_acquire,
    _prefetch_row,
    _store_release,
    below,
    cover_bits,
    cover_field_at,
    cover_least,
    covers,
    fits_f,
    is_safe,
    merge_cover,
    move_code,
    move_count,
    move_dst,
    move_kind,
    move_redeal,
    move_src,
    pack_heights,
    popcount,
    short_fields,
    short_low,
    suit_code,
    suit_from_code,
    waste_positions,
)
from .codec import (  # the constants the compiled functions read
    BM_GUESTS,
    CK_HASH,
    CK_LONG_ROW,
    CK_SCORE,
    CK_SHORT_ROW,
    CK_STUCK_ROW,
    CK_TABLE,
    CK_WPOS,
    COL_HEADER_BITS,
    COL_LEN_BITS,
    COVER_PASSES,
    CTL_HUNGRY,
    CTL_PAR,
    CTL_ROWS,
    CTL_ROWS_LONG,
    CTL_STOP,
    EXHAUSTED,
    GROW,
    GROW_LONG,
    K_RF,
    K_RT,
    K_TF,
    K_TT,
    K_WF,
    K_WT,
    MARK_BIT,
    MAXCOLS,
    MOVE_BITS,
    NSC,
    P_AUTOFILL,
    P_COLMOVES,
    P_COVER,
    P_COVER_BITS,
    P_DRAW,
    P_FKEY,
    P_GAPFILL,
    P_GAPLOCK,
    P_NCOLS,
    P_POOL,
    P_RANKS,
    P_RDL_BITS,
    P_REDEALS,
    P_RES_BITS,
    P_SUITBITS,
    P_TALON_BITS,
    P_WPOS_BITS,
    PASSES_STRIDE,
    RDL_BITS,
    RDL_SHIFT,
    RES_BITS,
    RES_SHIFT,
    RUNNING,
    SC_CB,
    SC_F,
    SC_LEN,
    SC_RDL,
    SC_RES,
    SC_TAB,
    SC_WB,
    SCR_CODES,
    SCR_ORDER,
    SCR_PRES,
    SCR_QIDX,
    SCR_QRD,
    SCRATCH_SIZE,
    SEEN,
    SHORT_BITS,
    SOLVED,
    ST_BEST,
    ST_BEST_LEN,
    ST_COVERED,
    ST_DEPTH,
    ST_DONATED,
    ST_MAXDEPTH,
    ST_MERGED,
    ST_NEXT_DONATE,
    ST_NODES,
    ST_SEEN,
    ST_SHORT,
    ST_SOLVED_DEPTH,
    ST_STARTED,
    ST_STUCK,
    ST_TRUNCATED,
    ST_TTCOUNT,
    ST_UNSHARED,
    ST_UNSHARED_LONG,
    WPOS_BITS,
    WPOS_SHIFT,
)
from .pool import (  # noqa: F401
    _pool_anchors,
    _pool_waste_moves,
    pool_chain,
    waste_targets,
)
from .stuck import (  # noqa: F401
    _bit,
    _home_mask,
    _is_stuck,
    _stays,
    _stuck_candidates,
    _stuck_closure,
    _stuck_walk,
    child_is_stuck,
)

ROWS_BATCH = 256  # rows a worker stores before it adds them to the shared count
DONATE_EVERY = 4096  # nodes a worker searches before it looks again for positions to hand over
BUSY = np.uint64(1)   # word 0 of a row another worker is writing (no key has bit 63 clear)


@helper(**INLINE)
def gen(deal, cols, sc, mask, d, out, use_safe, scratch, undo_src, undo_dst, undo_cnt):
    """Moves of the position at level ``d`` into ``out``, best first. Returns how many.

    ``undo_src -> undo_dst`` with ``undo_cnt`` cards is the column move that
    would only take back the move that led here (its result is the parent
    position, already in the table); it is not generated. -1 for none.

    Parameters
    ----------
    deal, cols, sc, mask, d : glossary
        As the glossary in ``search/base.py`` says.
    out : int64[width]
        Receives the moves.
    use_safe : bool
        Whether to prune: a safe move, when there is one, is returned as the only move, and talon cards go
        onto columns only where ``pool_chain`` allows (``P_POOL``).
    scratch : int64[SCRATCH_SIZE]
        Work space (offsets ``SCR_*``).
    undo_src : int
        The source column of the move that would only undo the last one; -1 for none.
    undo_dst : int
        Its destination column; -1 for none.
    undo_cnt : int
        Its card count; -1 for none.
    """
    params, reserve, talon, lut, bm = deal
    ncols = params[P_NCOLS]
    res = sc[d, SC_RES]
    autofill = params[P_AUTOFILL] == 1
    gaps_open = (not autofill) or res == 0
    colmoves = params[P_COLMOVES]
    gap_any = params[P_GAPFILL] == 1
    if use_safe:
        if res > 0:
            card = reserve[res - 1]
            if fits_f(card, sc, d, params, lut) and is_safe(card, sc, d, params, lut):
                out[0] = move_code(K_RF, 0, 0, 1, 0)
                return 1
        # Emptying a column opens a gap, which under the gap lock forbids
        # column moves: then the move is not free of cost, so not forced.
        lock_cost = params[P_GAPLOCK] == 1 and gaps_open
        for c in range(ncols):
            ln = sc[d, SC_LEN + c]
            if ln > 1 or (ln == 1 and not lock_cost):
                card = np.int64(cols[d, c, ln - 1])
                if fits_f(card, sc, d, params, lut) and is_safe(card, sc, d, params, lut):
                    out[0] = move_code(K_TF, c, 0, 1, 0)
                    return 1
        red = params[P_REDEALS]
        if params[P_POOL] == 0 and (params[P_DRAW] == 1 or (red >= 0 and sc[d, SC_RDL] >= red)):
            # The waste's top home, where taking it out of the waste changes no later draw: one card a draw,
            # or no redeal left (docs/solver-notes.md, "The waste's top home").
            wm = mask[d] & below(sc[d, SC_WB])
            if wm != np.uint64(0):
                i = sc[d, SC_WB] - 1
                while not wm & _bit(i):
                    i -= 1
                card = talon[i]
                if fits_f(card, sc, d, params, lut) and is_safe(card, sc, d, params, lut):
                    out[0] = move_code(K_WF, i, 0, 1, 0)
                    return 1
        if params[P_POOL] == 1:
            # A talon card of a pool can go home at any moment, from any waste position (the key holds none),
            # so a safe one is as safe as the reserve's top (docs/solver-notes.md, the talon as a pool).
            m = mask[d]
            while m != np.uint64(0):
                i = np.int64(_ctz(m))
                m &= m - np.uint64(1)
                card = talon[i]
                if fits_f(card, sc, d, params, lut) and is_safe(card, sc, d, params, lut):
                    out[0] = move_code(K_WF, i, 0, 1, 0)
                    return 1
    qidx = scratch[SCR_QIDX:SCR_QRD]
    qrd = scratch[SCR_QRD:SCR_PRES]
    nq = waste_targets(sc, mask, d, params, qidx, qrd, scratch[SCR_PRES:SCR_ORDER])
    n = 0
    # 1. Foundation moves.
    if res > 0 and fits_f(reserve[res - 1], sc, d, params, lut):
        out[n] = move_code(K_RF, 0, 0, 1, 0)
        n += 1
    for c in range(ncols):
        ln = sc[d, SC_LEN + c]
        if ln > 0 and fits_f(cols[d, c, ln - 1], sc, d, params, lut):
            out[n] = move_code(K_TF, c, 0, 1, 0)
            n += 1
    for k in range(nq):
        if fits_f(talon[qidx[k]], sc, d, params, lut):
            out[n] = move_code(K_WF, qidx[k], 0, 1, qrd[k])
            n += 1
    # Cards that fit on some column's top: only they are tried on each column.
    fits_top = np.uint64(0)
    for c in range(ncols):
        ln = sc[d, SC_LEN + c]
        if ln > 0:
            fits_top |= bm[BM_GUESTS + int(cols[d, c, ln - 1])]
        elif gaps_open:
            fits_top = ~np.uint64(0)
    # 2. Reserve to the tableau.
    if res > 0 and (fits_top & _bit(reserve[res - 1]) or not autofill):
        card = reserve[res - 1]
        for c in range(ncols):
            ln = sc[d, SC_LEN + c]
            if ln > 0:
                if _fits_on(card, cols[d, c, ln - 1], lut):
                    out[n] = move_code(K_RT, 0, c, 1, 0)
                    n += 1
            elif not autofill:
                out[n] = move_code(K_RT, 0, c, 1, 0)
                n += 1
    locked = False
    if params[P_GAPLOCK] == 1 and gaps_open:
        for c in range(ncols):
            if sc[d, SC_LEN + c] == 0:
                locked = True
    # 3. Whole columns onto non-empty columns (they open a gap).
    for c in range(ncols if not locked else 0):
        ln = sc[d, SC_LEN + c]
        if ln == 0:
            continue
        bottom = cols[d, c, 0]
        for t in range(ncols):
            lt = sc[d, SC_LEN + t]
            if t != c and lt > 0 and _fits_on(bottom, cols[d, t, lt - 1], lut):
                out[n] = move_code(K_TT, c, t, ln, 0)
                n += 1
    # 4. Waste to the tableau (under a pool, pruned: _pool_waste_moves; the other rules keep this loop as it was).
    if use_safe and params[P_POOL] == 1 and nq > 0:
        n = _pool_waste_moves(deal, cols, sc, mask, d, out, n, qidx, qrd, nq, fits_top, gaps_open)
    else:
        for k in range(nq):
            card = talon[qidx[k]]
            if not fits_top & _bit(card):
                continue
            for c in range(ncols):
                ln = sc[d, SC_LEN + c]
                if ln > 0:
                    if _fits_on(card, cols[d, c, ln - 1], lut):
                        out[n] = move_code(K_WT, qidx[k], c, 1, qrd[k])
                        n += 1
                elif gaps_open:
                    out[n] = move_code(K_WT, qidx[k], c, 1, qrd[k])
                    n += 1
    # 5. Part of a column: the top card, or a run.
    for c in range(ncols if not locked else 0):
        ln = sc[d, SC_LEN + c]
        if ln < 2:  # a lone card moving is a whole column (step 3)
            continue
        kmax = 1 if colmoves == 0 else (ln - 1 if colmoves >= 2 else 0)
        if kmax > ln - 1:
            kmax = ln - 1
        for kk in range(1, kmax + 1):
            card = cols[d, c, ln - kk]
            # Mode 3: a part moves onto a column only if the card it uncovers fits its foundation.
            frees = colmoves != 3 or fits_f(cols[d, c, ln - kk - 1], sc, d, params, lut)
            for t in range(ncols):
                if t == c or (c == undo_src and t == undo_dst and kk == undo_cnt):
                    continue
                lt = sc[d, SC_LEN + t]
                if lt > 0:
                    if frees and _fits_on(card, cols[d, t, lt - 1], lut):
                        out[n] = move_code(K_TT, c, t, kk, 0)
                        n += 1
                elif gap_any and gaps_open:
                    out[n] = move_code(K_TT, c, t, kk, 0)
                    n += 1
    return n


@helper(**INLINE)
def copy_level(cols, sc, mask, d):
    """Make level ``d + 1`` a copy of level ``d``.

    Parameters
    ----------
    cols, sc, mask : glossary
        As the glossary in ``search/base.py`` says.
    d : int
        The level copied to ``d + 1``.
    """
    copy_cards(cols, sc, d)
    reset_level(cols, sc, mask, d)


@helper(**INLINE)
def copy_cards(cols, sc, d):
    """Copy level ``d``'s cards above each column's bottom to level ``d + 1`` (the rest: reset_level).

    Parameters
    ----------
    cols, sc : glossary
        As the glossary in ``search/base.py`` says.
    d : int
        The level whose cards are copied to ``d + 1``.
    """
    for c in range(MAXCOLS):
        for i in range(1, sc[d, SC_LEN + c]):
            cols[d + 1, c, i] = cols[d, c, i]


@helper(**INLINE)
def reset_level(cols, sc, mask, d):
    """Make level ``d + 1`` level ``d`` again after a move was applied to it: the scalars and each
    column's bottom card only.

    A move writes a column only at or above its length at level ``d`` (a
    card is placed on top, cards leave by shortening), except that a column
    the move empties is refilled from the reserve at index 0. So once level
    ``d + 1`` held all of level ``d``'s cards (copy_cards), the cards above
    the bottoms up to level ``d``'s lengths stay equal to level ``d``'s for as
    long as level ``d`` is unchanged, and this restores the copy.

    Parameters
    ----------
    cols, sc, mask : glossary
        As the glossary in ``search/base.py`` says.
    d : int
        The level that ``d + 1`` is made again.
    """
    for c in range(MAXCOLS):
        cols[d + 1, c, 0] = cols[d, c, 0]
    for j in range(NSC):
        sc[d + 1, j] = sc[d, j]
    mask[d + 1] = mask[d]


@helper(**INLINE)
def _place(cols, sc, d, card, to_foundation, dst, sb):
    """Put a single card on its foundation or on top of column ``dst``.

    Parameters
    ----------
    cols, sc, d, card : glossary
        As the glossary in ``search/base.py`` says.
    to_foundation : bool
        True to put the card on its foundation, False on column ``dst``.
    dst : int
        The column, when not to the foundation.
    sb : int
        Key bits a card (``P_SUITBITS``): the column's code is kept for 0 and 1.
    """
    if to_foundation:
        sc[d, SC_F + card // 13] += 1
    else:
        ln = sc[d, SC_LEN + dst]
        cols[d, dst, ln] = card
        sc[d, SC_LEN + dst] = ln + 1
        sc[d, SC_TAB] |= np.int64(1) << np.int64(card)
        if sb <= 1:
            sc[d, SC_CB + dst] = (sc[d, SC_CB + dst] << sb) | suit_code(card, sb) if ln > 0 else 0


@njit(**NO_NRT)
def init_codes(cols, sc, d, params):
    """Fill the per-column key codes (SC_CB) and the tableau mask (SC_TAB) of level ``d`` from its cards.

    Parameters
    ----------
    cols, sc : glossary
        As the glossary in ``search/base.py`` says.
    d : int
        The level to fill.
    params : glossary
        As the glossary in ``search/base.py`` says.
    """
    sb = params[P_SUITBITS]
    tab = np.int64(0)
    for c in range(params[P_NCOLS]):
        v = 0
        if sb <= 1:
            for i in range(1, sc[d, SC_LEN + c]):
                v = (v << sb) | suit_code(cols[d, c, i], sb)
        sc[d, SC_CB + c] = v
        for i in range(sc[d, SC_LEN + c]):
            tab |= np.int64(1) << np.int64(cols[d, c, i])
    sc[d, SC_TAB] = tab


@helper(**INLINE)
def apply(cols, sc, mask, d, mv, params, reserve, talon):
    """Play move ``mv`` on level ``d`` in place, then fill gaps from the reserve.

    Parameters
    ----------
    cols, sc, mask : glossary
        As the glossary in ``search/base.py`` says.
    d : int
        The level the move is played on.
    mv, params, reserve, talon : glossary
        As the glossary in ``search/base.py`` says.
    """
    kind = move_kind(mv)
    src = move_src(mv)
    dst = move_dst(mv)
    cnt = move_count(mv)
    rd = move_redeal(mv)
    sb = params[P_SUITBITS]
    if kind == K_RF or kind == K_RT:
        r = sc[d, SC_RES] - 1
        card = reserve[r]
        sc[d, SC_RES] = r
        _place(cols, sc, d, card, kind == K_RF, dst, sb)
    elif kind == K_WF or kind == K_WT:
        card = talon[src]
        mask[d] = mask[d] & ~(np.uint64(1) << np.uint64(src))
        sc[d, SC_WB] = src
        sc[d, SC_RDL] += rd
        _place(cols, sc, d, card, kind == K_WF, dst, sb)
    elif kind == K_TF:
        ln = sc[d, SC_LEN + src] - 1
        card = cols[d, src, ln]
        sc[d, SC_LEN + src] = ln
        sc[d, SC_F + card // 13] += 1
        sc[d, SC_TAB] &= ~(np.int64(1) << np.int64(card))
        if sb <= 1:
            sc[d, SC_CB + src] >>= sb
    else:
        ls = sc[d, SC_LEN + src]
        lt = sc[d, SC_LEN + dst]
        for i in range(cnt):
            cols[d, dst, lt + i] = cols[d, src, ls - cnt + i]
        sc[d, SC_LEN + src] = ls - cnt
        sc[d, SC_LEN + dst] = lt + cnt
        if sb <= 1:
            # The moved cards' codes are the low bits of the source's codes,
            # except the lowest moved card's when it was the source's bottom.
            low = sb * (cnt - 1)
            moved = sc[d, SC_CB + src] & ((1 << low) - 1)
            sc[d, SC_CB + src] >>= sb * cnt
            if lt > 0:
                first = suit_code(cols[d, src, ls - cnt], sb)
                sc[d, SC_CB + dst] = (((sc[d, SC_CB + dst] << sb) | first) << low) | moved
            else:
                sc[d, SC_CB + dst] = moved
    if params[P_AUTOFILL] == 1:
        for c in range(params[P_NCOLS]):
            if sc[d, SC_LEN + c] == 0 and sc[d, SC_RES] > 0:
                r = sc[d, SC_RES] - 1
                cols[d, c, 0] = reserve[r]
                sc[d, SC_LEN + c] = 1
                sc[d, SC_RES] = r
                sc[d, SC_CB + c] = 0
                sc[d, SC_TAB] |= np.int64(1) << np.int64(reserve[r])


@helper(**INLINE)
def _put(words, pos, v, k):
    """Write the low ``k`` bits of ``v`` at stream bit ``pos`` (most significant first).

    Parameters
    ----------
    words : uint64[4]
        The key; the stream is written to words 1 to 3.
    pos : int
        The stream bit to write at (0: word 1's most significant bit).
    v : uint64
        The value.
    k : int
        How many of its low bits to write.
    """
    while k > 0:
        wi = pos // 64  # the stream word (words 1..3) and the bit within it
        off = pos % 64
        room = 64 - off
        take = room if room < k else k
        part = (v >> np.uint64(k - take)) & ((np.uint64(1) << np.uint64(take)) - np.uint64(1))
        words[1 + wi] |= part << np.uint64(room - take)
        pos += take
        k -= take
    return pos


@helper(**INLINE)
def talon_word(sc, mask, d, params):
    """Word 0 of a key: the talon mask, the waste position, the reserve count, the redeals used (not where
    they are unlimited) and the mark bit. Where redeals are unlimited, a waste position on the main draw
    cycle (a multiple of the draw, or the whole talon dealt) is written as 0: those positions reach the same
    cards (docs/solver-notes.md, "Stock moves"). The class key of ``ranks`` starts with the same word.

    Parameters
    ----------
    sc, mask, d, params : glossary
        As the glossary in ``search/base.py`` says.
    """
    draw = params[P_DRAW]
    m = mask[d]
    wb = sc[d, SC_WB]
    n = np.int64(popcount(m))
    p = np.int64(popcount(m & below(wb)))
    unlimited = params[P_REDEALS] < 0
    if unlimited and (p % draw == 0 or p == n):
        p = 0
    w0 = m | (np.uint64(p) << np.uint64(WPOS_SHIFT)) | (np.uint64(sc[d, SC_RES]) << np.uint64(RES_SHIFT))
    if not unlimited:
        w0 |= np.uint64(sc[d, SC_RDL]) << np.uint64(RDL_SHIFT)
    return w0 | (np.uint64(1) << np.uint64(MARK_BIT))


@helper(**INLINE)
def key(cols, sc, mask, d, params, words, scratch):
    """The packed key of level ``d`` into ``words`` (codec.py); returns the column stream's bits.

    Two ways to one stream: where a card above a column's bottom takes at most
    one bit (``P_SUITBITS`` 0 or 1) each column's codes are kept up to date in
    ``SC_CB`` and shifted in whole; where it takes two (building regardless of
    suit) the codes are written out card by card (``_put``). Either way the
    stream is left-aligned in words 1 to 3, and a key whose stream and low
    fields fit 127 bits becomes a short key (``compact``).

    Parameters
    ----------
    cols, sc, mask, d, params : glossary
        As the glossary in ``search/base.py`` says.
    words : uint64[4]
        Receives the long key.
    scratch : int64[SCRATCH_SIZE]
        Work space (offsets ``SCR_*``).
    """
    words[0] = talon_word(sc, mask, d, params)
    words[1] = np.uint64(0)
    words[2] = np.uint64(0)
    words[3] = np.uint64(0)
    ncols = params[P_NCOLS]
    sb = params[P_SUITBITS]
    order = scratch[SCR_ORDER:SCR_ORDER + MAXCOLS]
    codes = scratch[SCR_CODES:SCR_CODES + MAXCOLS]
    for c in range(ncols):
        order[c] = c
        codes[c] = cols[d, c, 0] + 1 if sc[d, SC_LEN + c] > 0 else 0
    for i in range(1, ncols):  # insertion sort by bottom card
        j = i
        while j > 0 and codes[order[j - 1]] > codes[order[j]]:
            tmp = order[j]
            order[j] = order[j - 1]
            order[j - 1] = tmp
            j -= 1
    if sb <= 1:
        # Each column's header and codes fit one 64-bit value (SC_CB), and
        # the whole stream fits 128 bits: shift it in, then left-align.
        hi = np.uint64(0)
        lo = np.uint64(0)
        nbits = 0
        for oi in range(ncols):
            c = order[oi]
            ln = sc[d, SC_LEN + c]
            k = COL_HEADER_BITS + (sb * (ln - 1) if ln > 1 else 0)
            v = (np.uint64((codes[c] << COL_LEN_BITS) | ln) << np.uint64(k - COL_HEADER_BITS)) | np.uint64(sc[d, SC_CB + c])
            hi = (hi << np.uint64(k)) | (lo >> np.uint64(64 - k))
            lo = (lo << np.uint64(k)) | v
            nbits += k
        sh = 128 - nbits
        if sh >= 64:
            hi = lo << np.uint64(sh - 64)
            lo = np.uint64(0)
        elif sh > 0:
            hi = (hi << np.uint64(sh)) | (lo >> np.uint64(64 - sh))
            lo = lo << np.uint64(sh)
        words[1] = hi
        words[2] = lo
        return nbits
    pos = 0
    for oi in range(ncols):
        c = order[oi]
        ln = sc[d, SC_LEN + c]
        pos = _put(words, pos, np.uint64((codes[c] << COL_LEN_BITS) | ln), COL_HEADER_BITS)
        if ln > 1:
            acc = np.uint64(0)
            nb = 0
            for i in range(1, ln):
                acc = (acc << np.uint64(sb)) | np.uint64(suit_code(cols[d, c, i], sb))
                nb += sb
                if nb >= 48:
                    pos = _put(words, pos, acc, nb)
                    acc = np.uint64(0)
                    nb = 0
            if nb > 0:
                pos = _put(words, pos, acc, nb)
    return pos


@helper(**INLINE)
def key_hash(words):
    """A 64-bit hash of a key's four words.

    Parameters
    ----------
    words : uint64[4]
        A key (a short key's words 2 and 3 are zero).
    """
    h = words[0] * np.uint64(0x9E3779B97F4A7C15)
    h ^= words[1] + np.uint64(0x632BE59BD9B4E019) + (h << np.uint64(6)) + (h >> np.uint64(2))
    h ^= words[2] + np.uint64(0x9E3779B97F4A7C15) + (h << np.uint64(6)) + (h >> np.uint64(2))
    h ^= words[3] + np.uint64(0x94D049BB133111EB) + (h << np.uint64(6)) + (h >> np.uint64(2))
    h = (h ^ (h >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    h = (h ^ (h >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return h ^ (h >> np.uint64(31))


@helper(**INLINE)
def slot(h, rows):
    """The row a hash's probe starts at, in a table of ``rows`` rows (any count below 2**32): the
    hash's top 32 bits scaled to the row count, so a table can have the size its memory cap allows.

    Parameters
    ----------
    h : uint64
        A key's hash (``key_hash``).
    rows : int
        The table's row count.
    """
    return ((h >> np.uint64(32)) * np.uint64(rows)) >> np.uint64(32)


@helper(**INLINE)
def _tt_find(table, row, i, w, keep, par):
    """Probe from row ``i`` for the key in ``row``, word ``w`` of each stored row compared under the mask
    ``keep`` (a row's cover field is left out); insert the key (``row`` as it is, cover field included)
    if it is absent.

    Returns (its row, 1 if it was inserted now). A row holds the first
    ``table.shape[1]`` words of the key (3 when the column stream fits in
    128 bits, so word 3 is always zero; else 4; 2 in the short table).

    With ``par`` other workers probe the same table at the same time: a
    row is claimed by swapping its word 0 from empty to BUSY, its other
    words are written, and then word 0 gets the key. A reader that meets
    BUSY waits for the key, so it never compares a key half written (it
    could take a different key for its own); two workers that insert one
    key at once can at worst both store it, and both expand the position.

    Parameters
    ----------
    table : uint64[rows, width]
        A transposition table, one key a row (0 in word 0: empty).
    row : uint64[>= width]
        The key sought, its words first.
    i : uint64
        The row where the probe starts (``slot``).
    w : int
        The word of a row that holds its cover field.
    keep : uint64
        The mask word ``w`` is compared under (the cover field's bits cleared).
    par : glossary
        As the glossary in ``search/base.py`` says.
    """
    rows = np.uint64(table.shape[0])
    kw = table.shape[1]
    while True:
        v0 = _load_acquire(table, i, 0) if par else table[i, 0]
        if v0 == np.uint64(0):
            if not par:
                for x in range(kw):
                    table[i, x] = row[x]
                return i, 1
            if _cas(table, i, 0, np.uint64(0), BUSY) == np.uint64(0):
                for x in range(1, kw):
                    table[i, x] = row[x]
                _store_release(table, i, 0, row[0])
                return i, 1
            continue  # another worker claimed the row first: read it again
        if v0 == BUSY:  # only with par: another worker is writing this row
            continue
        same = True
        for x in range(kw):
            v = v0 if x == 0 else table[i, x]
            r = row[x]
            if x == w:
                v &= keep
                r &= keep
            if v != r:
                same = False
                break
        if same:
            return i, 0
        i += np.uint64(1)
        if i == rows:
            i = np.uint64(0)


@helper(**INLINE)
def _tt_insert_at(tt, words, i, par):
    """Insert a key whose probe starts at row ``i``; 1 if it was new, 0 if it was already there.

    Parameters
    ----------
    tt : uint64[rows, width]
        A transposition table.
    words : uint64[>= width]
        The key.
    i : uint64
        The row where the key's probe starts (``slot``).
    par : glossary
        As the glossary in ``search/base.py`` says.
    """
    return _tt_find(tt, words, i, 0, ~np.uint64(0), par)[1]


@njit(**NO_NRT)
def tt_rehash(old, new, words, field, w):
    """Move every row of ``old`` into ``new``; a row's place is the hash of its key with the bits of
    ``field`` in word ``w`` cleared (its cover field, cover_insert_at; ``field`` 0 for none).

    Parameters
    ----------
    old : uint64[rows, width]
        The table whose rows are moved.
    new : uint64[rows2, width]
        The empty, larger table they go to.
    words : uint64[4]
        Work space.
    field : uint64
        The bits of the cover field in word ``w``; 0 when rows have none.
    w : int
        The word of a row that holds its cover field (1 in the short table, 0 in the long).
    """
    kw = old.shape[1]
    for i in range(old.shape[0]):
        if old[i, 0] != np.uint64(0):
            for j in range(4):
                words[j] = old[i, j] if j < kw else np.uint64(0)
            keep = words[w]
            words[w] = keep & ~field
            h = slot(key_hash(words), new.shape[0])
            words[w] = keep
            _tt_insert_at(new, words, h, False)


@helper(**INLINE)
def _cover_at(short, params):
    """(word, shift, field) of the cover field in a row of the short (``short``) or the long table; field 0
    when that table's rows have none (covering off, or a field too wide for the long key's spare bits).

    Parameters
    ----------
    short, params : glossary
        As the glossary in ``search/base.py`` says.
    """
    return cover_field_at(short, params[P_COVER] != 0, params[P_TALON_BITS], params[P_WPOS_BITS])


@helper(**INLINE)
def take_wpos(row, short, params):
    """With covering on for the key's table: clear the waste position from the key (so every waste
    position of a position has one row) and return it; else return -1, the key unchanged. Under covering
    of limited passes (``COVER_PASSES``) the redeals used are cleared too, and the return is
    ``passes_index(redeals used, waste position) - 1``.

    Parameters
    ----------
    row : uint64[>= 2]
        A key, changed in place.
    short, params : glossary
        As the glossary in ``search/base.py`` says.
    """
    w, shift, field = _cover_at(short, params)
    if field == np.uint64(0):
        return -1
    passes = params[P_COVER] == COVER_PASSES
    if short:
        wp = np.int64((row[1] & field) >> shift)
        row[1] &= ~field
        if passes:
            ds = np.uint64(params[P_TALON_BITS] + params[P_WPOS_BITS] + params[P_RES_BITS])
            dfield = ((np.uint64(1) << np.uint64(params[P_RDL_BITS])) - np.uint64(1)) << ds
            wp += np.int64((row[1] & dfield) >> ds) * PASSES_STRIDE
            row[1] &= ~dfield
        return wp
    wfield = np.uint64((1 << WPOS_BITS) - 1) << np.uint64(WPOS_SHIFT)
    wp = np.int64((row[0] & wfield) >> np.uint64(WPOS_SHIFT))
    row[0] &= ~wfield
    if passes:
        dfield = np.uint64((1 << RDL_BITS) - 1) << np.uint64(RDL_SHIFT)
        wp += np.int64((row[0] & dfield) >> np.uint64(RDL_SHIFT)) * PASSES_STRIDE
        row[0] &= ~dfield
    return wp


@helper(**INLINE)
def insert_key(ts, tt, row, i, short, wp, params, stats, ctl):
    """Insert a key at probe start ``i`` of its table: plainly, or when ``wp`` >= 0 (taken out by
    take_wpos) with covering. 1 if the position is to be expanded, 0 if it is seen or covered.

    Parameters
    ----------
    ts : uint64[rows, 2]
        The short table.
    tt : uint64[rows, 4]
        The long table.
    row : uint64[CK_WIDTH]
        The key being inserted, its words first (a child-key row).
    i : uint64
        The row where the key's probe starts (``slot``).
    short : glossary
        As the glossary in ``search/base.py`` says.
    wp : int64
        The waste position taken out of the key (``take_wpos``); -1 when there is none.
    params, stats, ctl : glossary
        As the glossary in ``search/base.py`` says.
    """
    table = ts if short else tt
    par = ctl[CTL_PAR] == 1
    if wp >= 0:
        w, shift, field = _cover_at(short, params)
        new = cover_insert_at(table, row, i, wp, params, stats, w, shift, field, short, par)
    else:  # 2 for a new row, as cover_insert_at says it
        new = 2 * _tt_insert_at(table, row, i, par)
        if new == 2:
            stats[ST_TTCOUNT] += 1
            stats[ST_SHORT] += 1 if short else 0
    if new != 2:
        return new
    if par:
        at = ST_UNSHARED if short else ST_UNSHARED_LONG
        stats[at] += 1
        if stats[at] >= ROWS_BATCH:
            _fetch_add(ctl, CTL_ROWS if short else CTL_ROWS_LONG, stats[at])
            stats[at] = 0
    return 1


@helper(**INLINE)
def _cover_seen(c, wp, mine, passes, draw, b):
    """What a row's cover field ``c`` says of a position at waste position ``wp``: 0 if that very position
    was reached (seen), 1 if an earlier one covers it, -1 if neither (the field is to take it in).

    Parameters
    ----------
    c : uint64
        The row's cover field.
    wp : int64
        The waste position taken out of the key (``take_wpos``).
    mine : uint64
        The field's value for ``wp`` alone (under covering of limited passes, 1 + ``wp``).
    passes : bool
        Covering of limited passes (``COVER_PASSES``): the field holds the least 1 + ``wp`` reached.
    draw : int
        Cards a draw.
    b : int
        Bits a residue in the cover field (``P_COVER_BITS``).
    """
    if passes:
        least = c
        here = mine
    elif wp == 0:
        if c == np.uint64(0):
            return -1
        return 0 if c & np.uint64(1) else 1
    else:
        least = np.uint64(cover_least(c, wp, draw, b))
        here = np.uint64(wp // draw + 1)
    if least == np.uint64(0) or least > here:
        return -1
    return 0 if least == here else 1


@helper(**INLINE)
def cover_insert_at(table, row, i, wp, params, stats, w, shift, field, short, par):
    """Insert a key whose waste position ``wp`` was taken out (take_wpos), with covering.

    One row stands for every waste position of one position; its cover
    field (word ``w``, bits ``field``) says which were reached: bit 0 the
    draw cycle's position (wp 0), then for each residue r = 1 .. draw-1 of
    wp modulo the draw, ``P_COVER_BITS`` bits holding 1 + (the least wp of
    that residue reached) // draw (0: none). A position part-way through a
    pass (wp off the cycle) reaches by draws alone every later position of
    the same pass (wp + draw, wp + 2 draw, ...) and the cycle's, and has
    every move they have (docs/solver-notes.md §6). So the child is covered,
    and not expanded, when its own wp or an earlier one of its pass was
    reached; else the field takes it in. Under covering of limited passes
    (``COVER_PASSES``) the field holds 1 + ``wp`` (which then names the
    redeals used and the waste position, take_wpos) of the least reached,
    and a later one is covered (docs/solver-notes.md, "Limited passes").
    2: expand it, in a new row; 1: expand it, its row was there.
    With ``par`` the field is rewritten by compare-and-swap, so no worker's entry is lost.

    Parameters
    ----------
    table : uint64[rows, width]
        The key's table.
    row : uint64[CK_WIDTH]
        The key, its waste position taken out; its cover field is written here.
    i : uint64
        The row where the key's probe starts (``slot``).
    wp : int64
        The waste position taken out of the key (``take_wpos``); -1 when there is none.
    params, stats : glossary
        As the glossary in ``search/base.py`` says.
    w : int
        The word of a row that holds its cover field.
    shift : uint64
        Where the cover field starts in word ``w``.
    field : uint64
        The bits of the cover field in word ``w``; 0 when rows have none.
    short, par : glossary
        As the glossary in ``search/base.py`` says.
    """
    draw = params[P_DRAW]
    b = params[P_COVER_BITS]
    passes = params[P_COVER] == COVER_PASSES
    keep = ~field
    mine = np.uint64(wp + 1) if passes else cover_bits(np.uint64(0), wp, draw, b)
    row[w] = (row[w] & keep) | (mine << shift)
    at, new = _tt_find(table, row, i, w, keep, par)
    if new == 1:
        stats[ST_TTCOUNT] += 1
        stats[ST_SHORT] += 1 if short else 0
        return 2
    while True:
        cur = table[at, w]
        c = (cur & field) >> shift
        seen = _cover_seen(c, wp, mine, passes, draw, b)
        if seen >= 0:
            stats[ST_COVERED] += seen
            return 0
        nw = (cur & keep) | ((mine if passes else cover_bits(c, wp, draw, b)) << shift)
        if not par:
            table[at, w] = nw
            break
        if _cas(table, at, w, cur, nw) == cur:
            break
    stats[ST_MERGED] += 1
    return 1


@helper(**INLINE)
def compact(words, nbits, params, sc, d):
    """Rewrite the key of level ``d`` as a two-word short key if it fits 127 bits; 1 if it did, 0 if not
    (unchanged).

    The short key is one 128-bit number: bit 127 set (no short key is zero,
    the empty row), then the column stream exactly as in the long key, and in
    the lowest bits, at their true widths for this search: the talon mask,
    or with ``P_FKEY`` the four foundation heights in its place, then the
    waste position, reserve count and redeals used. The heights name the
    same talon as the mask: every card is in a column (the stream), the
    reserve (the top ``count`` cards of its order), a foundation (the first
    ``height`` cards of the suit's order) or the talon, so the talon is the
    cards that are in none of the others. The stream names its own length
    (column headers), so different positions never share a short key, and a
    position always gets the same one.

    Parameters
    ----------
    words : uint64[4]
        The long key of level ``d`` (``key``), rewritten in place when it fits.
    nbits : int
        The column stream's bits (``key``'s result).
    params, sc, d : glossary
        As the glossary in ``search/base.py`` says.
    """
    _ts, tb, _ws, wb, _rs, rb, _ds, db = short_fields(params)
    if words[3] != np.uint64(0) or nbits + tb + wb + rb + db > SHORT_BITS:
        return 0
    w0 = words[0]
    if params[P_FKEY] == 1:
        first = np.uint64(pack_heights(sc[d, SC_F], sc[d, SC_F + 1], sc[d, SC_F + 2], sc[d, SC_F + 3]))
    else:
        first = w0 & ((np.uint64(1) << np.uint64(tb)) - np.uint64(1))
    low = short_low(first, (w0 >> np.uint64(WPOS_SHIFT)) & np.uint64((1 << WPOS_BITS) - 1),
                     (w0 >> np.uint64(RES_SHIFT)) & np.uint64((1 << RES_BITS) - 1),
                     (w0 >> np.uint64(RDL_SHIFT)) & np.uint64((1 << RDL_BITS) - 1), params)
    # bit 127 set, the stream (left-aligned in words 1..2) from bit 126 down, the low fields below it
    hi = (np.uint64(1) << np.uint64(MARK_BIT)) | (words[1] >> np.uint64(1))
    lo = (words[1] << np.uint64(63)) | (words[2] >> np.uint64(1)) | low
    words[0] = hi
    words[1] = lo
    words[2] = np.uint64(0)
    return 1


@helper(**INLINE)
def score(sc, d):
    """The cards on the foundations at level ``d``.

    Parameters
    ----------
    sc, d : glossary
        As the glossary in ``search/base.py`` says.
    """
    return sc[d, SC_F] + sc[d, SC_F + 1] + sc[d, SC_F + 2] + sc[d, SC_F + 3]


@helper(**INLINE)
def expand(deal, stack, tables, work, stats, best_path, ctl, d, won, room):
    """Generate the moves of level ``d``, make every child once, and mark each child seen, stuck or new.

    Returns 2, having changed nothing, when the children would be more than
    ``room`` nodes (the node budget left).

    Each child is tested for stuck cards as it is made (child_is_stuck): a
    stuck child is lost, so it gets the SEEN flag and is neither stored nor
    entered (docs/solver-notes.md §2). The others are keyed first and their
    table rows prefetched together, so the cache misses of their probes
    overlap; each is then inserted. A child already in the table gets the
    SEEN flag on its move and is never made again. Returns 1 if a child is
    won (``midx[d]`` then points past it).

    Parameters
    ----------
    deal, stack : glossary
        As the glossary in ``search/base.py`` says.
    tables : TableArrays
        The transposition tables, short and long (codec.TableArrays).
    work : WorkArrays
        Work space: words, scratch, prefix, child_keys (codec.WorkArrays).
    stats : glossary
        As the glossary in ``search/base.py`` says.
    best_path : int64[levels]
        Receives the moves to the first position with the best score (``stats[ST_BEST_LEN]`` of them).
    ctl : glossary
        As the glossary in ``search/base.py`` says.
    d : int
        The level to expand.
    won : int
        The score of a won position (every card home).
    room : int
        The nodes left of the budget: a level whose children would pass it is left unexpanded.
    """
    params, reserve, talon, _lut, bm = deal
    cols, sc, mask, moves, nmoves, midx = stack
    ts, tt = tables
    _words, scratch, prefix, child_keys = work
    us = -1
    ud = -1
    uc = -1
    if d > 0:
        # The move just made, if it moved part of a column, is undone by the
        # same cards going straight back: that is the parent position.
        a = moves[d - 1, midx[d - 1] - 1] & MOVE_BITS
        asrc = move_src(a)
        acnt = move_count(a)
        if move_kind(a) == K_TT and sc[d - 1, SC_LEN + asrc] > acnt:
            us = move_dst(a)
            ud = asrc
            uc = acnt
    n = gen(deal, cols, sc, mask, d, moves[d], True, scratch, us, ud, uc)
    if n > room:
        return 2
    nmoves[d] = n
    midx[d] = 0
    copy_cards(cols, sc, d)  # level d + 1 may hold another position's cards; then reset_level suffices
    for k in range(n):
        reset_level(cols, sc, mask, d)
        apply(cols, sc, mask, d + 1, moves[d, k], params, reserve, talon)
        stats[ST_NODES] += 1
        sc_k = score(sc, d + 1)
        if sc_k == won:
            midx[d] = k + 1
            stats[ST_SOLVED_DEPTH] = d + 1
            if d + 1 > stats[ST_MAXDEPTH]:
                stats[ST_MAXDEPTH] = d + 1
            stats[ST_BEST] = sc_k
            return 1
        row = child_keys[k]
        row[CK_SCORE] = np.uint64(sc_k)
        if child_is_stuck(cols, sc, d, moves[d, k], params, reserve, talon, bm, prefix):
            row[CK_TABLE] = CK_STUCK_ROW
            continue
        short = compact(row, key(cols, sc, mask, d + 1, params, row, scratch), params, sc, d + 1)
        table = ts if short else tt
        wp = take_wpos(row, short, params)
        h = slot(key_hash(row), table.shape[0])
        row[CK_WPOS] = np.uint64(wp + 1)
        row[CK_HASH] = h
        row[CK_TABLE] = CK_SHORT_ROW if short else CK_LONG_ROW
        _prefetch_row(table, h)  # every child's cache miss is under way before the first probe
    for k in range(n):
        row = child_keys[k]
        if row[CK_TABLE] == CK_STUCK_ROW:
            moves[d, k] |= SEEN
            stats[ST_STUCK] += 1
        elif insert_key(ts, tt, row, row[CK_HASH], row[CK_TABLE] == CK_SHORT_ROW, np.int64(row[CK_WPOS]) - 1,
                             params, stats, ctl) == 0:
            moves[d, k] |= SEEN
            stats[ST_SEEN] += 1
            continue
        # A new child, or a stuck one (never stored, so this is the first time its score is seen unless it
        # was made before, and then it is no higher than the best): the best score is as if it were stored.
        if np.int64(row[CK_SCORE]) > stats[ST_BEST]:
            stats[ST_BEST] = np.int64(row[CK_SCORE])
            # The path to this child: the move being explored at each level, then this one.
            for j in range(d):
                best_path[j] = moves[j, midx[j] - 1] & MOVE_BITS
            best_path[d] = moves[d, k] & MOVE_BITS
            stats[ST_BEST_LEN] = d + 1
    return 0


@helper(**INLINE)
def _copy_position(cols, sc, mask, i, to_cols, to_sc, to_mask, o):
    """Copy the position at level ``i`` (its cards, scalars and talon mask) to slot ``o`` of the ``to_`` arrays.

    Parameters
    ----------
    cols : int8[levels, MAXCOLS, COLCAP]
        The source's columns.
    sc : int64[levels, NSC]
        The source's scalars.
    mask : uint64[levels]
        The source's talon masks.
    i : int
        The source level.
    to_cols : int8[n, MAXCOLS, COLCAP]
        The destination's columns.
    to_sc : int64[n, NSC]
        The destination's scalars.
    to_mask : uint64[n]
        The destination's talon masks.
    o : int
        The destination slot.
    """
    for c in range(MAXCOLS):
        for x in range(sc[i, SC_LEN + c]):
            to_cols[o, c, x] = cols[i, c, x]
    for x in range(NSC):
        to_sc[o, x] = sc[i, x]
    to_mask[o] = mask[i]


@helper(**INLINE)
def donate(deal, stack, d, stats, ctl, donated):
    """Hand over to other workers the positions this one would search later, shallowest first, while the
    coordinator asks for them (``ctl[CTL_HUNGRY]``) and the buffers have room.

    A move at level j not yet walked and not SEEN leads to a child that was
    stored in the tables when level j was expanded and that nobody has
    expanded: it is made on the scratch level (the last one), copied out
    with the moves from this worker's level 0 to it (``don_path[n, 0]``
    moves, from ``don_path[n, 1]``), and flagged SEEN here, so exactly one
    worker expands it (the one that takes it from the coordinator).

    Parameters
    ----------
    deal, stack : glossary
        As the glossary in ``search/base.py`` says.
    d : int
        The deepest level of this worker's stack.
    stats, ctl : glossary
        As the glossary in ``search/base.py`` says.
    donated : DonatedArrays
        The buffers of the positions handed over to other workers (codec.DonatedArrays).
    """
    params, reserve, talon, _lut, _bm = deal
    cols, sc, mask, moves, nmoves, midx = stack
    don_cols, don_sc, don_mask, don_path = donated
    n = stats[ST_DONATED]
    cap = don_sc.shape[0]
    scr = sc.shape[0] - 1
    for j in range(d + 1):
        if nmoves[j] < 0:
            break
        k = midx[j]
        while k < nmoves[j] and n < cap and ctl[CTL_HUNGRY] > 0:
            mv = moves[j, k]
            if not (mv & SEEN):
                _copy_position(cols, sc, mask, j, cols, sc, mask, scr)
                apply(cols, sc, mask, scr, mv, params, reserve, talon)
                _copy_position(cols, sc, mask, scr, don_cols, don_sc, don_mask, n)
                for x in range(j):
                    don_path[n, 1 + x] = moves[x, midx[x] - 1] & MOVE_BITS
                don_path[n, 1 + j] = mv & MOVE_BITS
                don_path[n, 0] = j + 1
                moves[j, k] |= SEEN
                n += 1
                _fetch_add(ctl, CTL_HUNGRY, -1)
            k += 1
        if n >= cap or ctl[CTL_HUNGRY] <= 0:
            break
    stats[ST_DONATED] = n


@njit(**ENTRY)
def search(deal, stack, tables, work, donated, stats, best_path, ctl, budget, grow_short, grow_long):
    """Run the search for at most ``budget`` nodes. Resumable: all state lives in the arrays.

    Level 0 must hold the start position with its column codes
    (``init_codes``). Positions whose key fits 127 bits go to the short
    table ``ts`` (two words a row, compact), the rest to the long table
    ``tt``; each asks to grow (GROW, GROW_LONG) when it holds ``grow_short``
    / ``grow_long``.
    ``words`` (uint64[4]), ``scratch`` (int64[512]), ``prefix``
    (uint64[MAXCOLS, COLCAP]) and ``child_keys`` (uint64[row width, 7]) are
    work space. A position is inserted in a table when its parent is
    expanded and expanded when the search reaches it. ``best_path``
    (int64[levels]) receives the moves to the first position with the best
    score, ``stats[ST_BEST_LEN]`` of them.

    ``ctl`` (int64[NCTL]) is shared by the workers of one deal (parallel.py);
    with ``ctl[CTL_PAR]`` 0 the search is alone and the ``don_*`` buffers are
    not used. With it 1, every worker's level 0 is a position of the deal
    that is in the shared tables and is this worker's to expand; the tables
    grow when all workers together hold ``grow_short`` / ``grow_long`` rows;
    a worker returns RUNNING as soon as ``ctl[CTL_STOP]`` is set, sets it
    when it wins, and while ``ctl[CTL_HUNGRY]`` is positive hands positions
    it would search later to the other workers (donate) and returns RUNNING
    right after, so that they reach a waiting worker at once. The last level
    is then donate's scratch, one fewer for the search.

    Parameters
    ----------
    deal, stack : glossary
        As the glossary in ``search/base.py`` says.
    tables : TableArrays
        The transposition tables, short and long (codec.TableArrays).
    work : WorkArrays
        Work space: words, scratch, prefix, child_keys (codec.WorkArrays).
    donated : DonatedArrays
        The buffers of the positions handed over to other workers (codec.DonatedArrays).
    stats : glossary
        As the glossary in ``search/base.py`` says.
    best_path : int64[levels]
        Receives the moves to the first position with the best score (``stats[ST_BEST_LEN]`` of them).
    ctl : glossary
        As the glossary in ``search/base.py`` says.
    budget : int
        The most nodes this call searches.
    grow_short : int
        The short table's row count at which the search returns GROW to have it grown.
    grow_long : int
        The long table's row count at which the search returns GROW_LONG.
    """
    params, reserve, talon, _lut, bm = deal
    cols, sc, mask, moves, nmoves, midx = stack
    ts, tt = tables
    words, scratch, prefix, _child_keys = work
    par = ctl[CTL_PAR] == 1
    maxd = sc.shape[0] - (2 if par else 1)
    won = 4 * params[P_RANKS]
    if stats[ST_STARTED] == 0:
        # The root level as a typed int, not the literal 0: each literal
        # argument would compile a second copy of the callee (~3 s).
        root = stats[ST_DEPTH] * 0
        stats[ST_STARTED] = 1
        stats[ST_DEPTH] = 0
        short = compact(words, key(cols, sc, mask, root, params, words, scratch), params, sc, root)
        wp = take_wpos(words, short, params)
        h = slot(key_hash(words), (ts if short else tt).shape[0])
        insert_key(ts, tt, words, h, short, wp, params, stats, ctl)
        stats[ST_BEST] = score(sc, root)
        if score(sc, root) == won:
            stats[ST_SOLVED_DEPTH] = 0
            if par:
                ctl[CTL_STOP] = 1
            return SOLVED
        midx[0] = 0
        nmoves[0] = -1  # expanded in the loop
        if _is_stuck(cols, sc, root, params, bm, prefix):
            stats[ST_STUCK] += 1
            nmoves[0] = 0
    d = stats[ST_DEPTH]
    start = stats[ST_NODES]
    while stats[ST_NODES] - start < budget:
        if par:
            if ctl[CTL_STOP] != 0:
                break
            if ctl[CTL_ROWS] + stats[ST_UNSHARED] >= grow_short:
                stats[ST_DEPTH] = d
                return GROW
            if ctl[CTL_ROWS_LONG] + stats[ST_UNSHARED_LONG] >= grow_long:
                stats[ST_DEPTH] = d
                return GROW_LONG
            if ctl[CTL_HUNGRY] > 0 and stats[ST_NODES] >= stats[ST_NEXT_DONATE]:
                donate(deal, stack, d, stats, ctl, donated)
                if stats[ST_DONATED] > 0:  # back to the coordinator at once, so a waiting worker can start
                    stats[ST_DEPTH] = d
                    return RUNNING
                stats[ST_NEXT_DONATE] = stats[ST_NODES] + DONATE_EVERY  # nothing to hand over: not at every step
        else:
            if stats[ST_SHORT] >= grow_short:
                stats[ST_DEPTH] = d
                return GROW
            if stats[ST_TTCOUNT] - stats[ST_SHORT] >= grow_long:
                stats[ST_DEPTH] = d
                return GROW_LONG
        if nmoves[d] < 0:  # reached, not yet expanded
            r = expand(deal, stack, tables, work, stats, best_path, ctl, d, won, budget - (stats[ST_NODES] - start))
            if r == 1:
                stats[ST_DEPTH] = d
                if par:
                    ctl[CTL_STOP] = 1
                return SOLVED
            if r == 2:  # the children would overrun the node budget
                break
            continue
        if midx[d] >= nmoves[d]:
            if d == 0:
                stats[ST_DEPTH] = 0
                return EXHAUSTED
            d -= 1
            continue
        mv = moves[d, midx[d]]
        midx[d] += 1
        if mv & SEEN:
            continue
        if d + 1 >= maxd:
            stats[ST_TRUNCATED] = 1
            continue
        # Level d + 1 has held level d's cards since d was expanded (expand's copy_cards): the
        # search below d + 1 writes only deeper levels, so restoring it is enough (reset_level).
        # (A stuck child was flagged SEEN when it was made.)
        reset_level(cols, sc, mask, d)
        apply(cols, sc, mask, d + 1, mv, params, reserve, talon)
        d += 1
        if d > stats[ST_MAXDEPTH]:
            stats[ST_MAXDEPTH] = d
        nmoves[d] = -1
    stats[ST_DEPTH] = d
    return RUNNING


@njit(**CACHED)
def _gen_all(deal, cols, sc, mask, out):
    """Every move of level 0 without safe-move pruning (for the tests).

    Parameters
    ----------
    deal : glossary
        As the glossary in ``search/base.py`` says.
    cols : int8[levels, MAXCOLS, COLCAP]
        The columns; level 0 holds the position.
    sc : int64[levels, NSC]
        The scalars; level 0's.
    mask : uint64[levels]
        The talon masks; level 0's.
    out : int64[width]
        Receives the moves.
    """
    return gen(deal, cols, sc, mask, 0, out, False, np.zeros(SCRATCH_SIZE, np.int64), -1, -1, -1)
