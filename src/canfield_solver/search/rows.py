"""Positions back from their short keys: a row of the short table (kernel.compact's layout) made a level
of the kernel's arrays again, so that it can be expanded without a stack of position copies.

The layered proof (``layered/``) keeps only keys between layers and expands each position from its
key; the census of issue 28 (``benchmarks/archive/layer_census.py``) decodes a finished depth-first table with
the same functions. A decoded level's columns stand in key order (the key sorts its columns), not in
the order of the position it came from: moves generated on it name columns by that order.

A short key is one 128-bit number hi:lo: bit 127 set, the column stream from bit 126 down (each column
its bottom card + 1 and its length, then one suit code for each card above the bottom: the rank of each
is one below the card under it), and in the lowest bits the talon mask or, with ``P_FKEY``, the four
foundation heights in its place (``P_TALON_BITS`` wide), then the waste position (``P_WPOS_BITS``; a
cover field in a table with covering), the reserve count and the redeals used.
"""

from __future__ import annotations

import numpy as np

from ..jit import CACHED, njit
from . import codec as C
from . import kernel as K
from .codec import COL_CARD_BITS, COL_LEN_BITS

_suit_from_code = K.suit_from_code  # codec's functions, compiled once in the kernel
_short_fields = K.short_fields


@njit(**CACHED)
def _columns(hi, lo, ncols, sb, ranks, cols, sc):
    """The columns of a short row (the stream from bit 126 down) into level 0 of ``cols``/``sc``: cards,
    lengths, each column's key codes (SC_CB, the bits the stream holds for the cards above its bottom, which
    kernel.init_codes would compute again from the cards) and the tableau mask (SC_TAB); the tableau cards.

    The stream is read from the top of hi:lo, the pair shifted left past each field taken. A card above a
    column's bottom is one rank below the card under it (ranks wrap: a column holds K on A only where the
    rules allow it, and then the arithmetic is the same), its suit named by ``sb`` bits (1: which suit of
    the other colour; 0: the same; 2: the suit itself, where any suit builds).

    Parameters
    ----------
    hi : uint64
        The row's word 1 (its upper half; the stream starts below its top bit, the mark).
    lo : uint64
        The row's word 0.
    ncols : int
        The tableau's columns (``P_NCOLS``).
    sb : int
        Key bits a card above a column's bottom (``P_SUITBITS``).
    ranks : int
        Ranks in a suit.
    cols : int8[levels, MAXCOLS, COLCAP]
        Receives the columns at level 0.
    sc : int64[levels, NSC]
        Receives the lengths, key codes and tableau mask at level 0.
    """
    hi = (hi << np.uint64(1)) | (lo >> np.uint64(63))  # bit 127, the mark, dropped
    lo = lo << np.uint64(1)
    t = 0
    tab = np.int64(0)
    hb = np.uint64(COL_CARD_BITS + COL_LEN_BITS)
    lmask = np.uint64((1 << COL_LEN_BITS) - 1)
    for c in range(ncols):
        head = hi >> (np.uint64(64) - hb)
        hi = (hi << hb) | (lo >> (np.uint64(64) - hb))
        lo = lo << hb
        bottom = np.int64(head >> np.uint64(COL_LEN_BITS))  # signed: card arithmetic on a uint64 would be float
        length = np.int64(head & lmask)
        if bottom == 0:
            sc[0, C.SC_LEN + c] = 0
            continue
        sc[0, C.SC_LEN + c] = length
        card = bottom - 1
        cols[0, c, 0] = card
        tab |= np.int64(1) << np.int64(card)
        codes = np.uint64(0)  # SC_CB: the column's codes where a card takes at most one bit (else unused, 0)
        k = np.uint64(sb)
        for i in range(1, length):
            code = np.uint64(0)
            if sb > 0:
                code = hi >> (np.uint64(64) - k)
                hi = (hi << k) | (lo >> (np.uint64(64) - k))
                lo = lo << k
                if sb == 1:
                    codes = (codes << np.uint64(1)) | code
            r = card % 13 - 1
            if r < 0:
                r = ranks - 1
            card = np.int64(_suit_from_code(sb, card // 13, np.int64(code)) * 13 + r)
            cols[0, c, i] = card
            tab |= np.int64(1) << np.int64(card)
        sc[0, C.SC_CB + c] = np.int64(codes)
        t += length
    sc[0, C.SC_TAB] = tab
    return t


@njit(**CACHED)
def level_from_row(hi, lo, params, reserve, talon, lut, cols, sc, mask, ranks):
    """Level 0 of ``cols``/``sc``/``mask`` made the position a short row names, its waste boundary not yet
    set (``set_waste``); its m (2H + T: twice the cards home plus the tableau cards, solver notes §9).

    Parameters
    ----------
    hi : uint64
        The short row's word 1.
    lo : uint64
        The short row's word 0.
    params : int64[NPARAMS]
        The rule parameters and key widths (``P_*``).
    reserve : int64[n]
        The reserve's cards, bottom first.
    talon : int64[n + 1]
        The talon's cards by index, and a pad.
    lut : int64[52, LUT_WIDTH]
        The card lookup table (``LUT_*``).
    cols : int8[levels, MAXCOLS, COLCAP]
        Receives the columns at level 0.
    sc : int64[levels, NSC]
        Receives the scalars at level 0.
    mask : uint64[levels]
        Receives the talon mask at level 0.
    ranks : int
        Ranks in a suit.
    """
    _ts, tb, _ws, _wb, rs, rb, ds, db = _short_fields(params)
    for x in range(C.NSC):
        sc[0, x] = 0
    sc[0, C.SC_RES] = np.int64((lo >> np.uint64(rs)) & np.uint64((1 << rb) - 1)) if rb > 0 else 0
    sc[0, C.SC_RDL] = np.int64((lo >> np.uint64(ds)) & np.uint64((1 << db) - 1)) if db > 0 else 0
    t = _columns(hi, lo, params[C.P_NCOLS], params[C.P_SUITBITS], ranks, cols, sc)  # SC_CB and SC_TAB too
    tab = sc[0, C.SC_TAB]
    low = lo & ((np.uint64(1) << np.uint64(tb)) - np.uint64(1))
    h_total = 0
    if params[C.P_FKEY] == 1:  # the heights are in the key; the talon is every card in no other place
        for s in range(4):
            sc[0, C.SC_F + s] = np.int64((low >> np.uint64(C.HEIGHT_BITS * s)) & np.uint64((1 << C.HEIGHT_BITS) - 1))
            h_total += sc[0, C.SC_F + s]
        elsewhere = np.uint64(tab)
        for q in range(sc[0, C.SC_RES]):
            elsewhere |= np.uint64(1) << np.uint64(reserve[q])
        m = np.uint64(0)
        for j in range(talon.shape[0] - 1):  # the talon array ends with a pad
            card = talon[j]
            if (elsewhere >> np.uint64(card)) & np.uint64(1) or lut[card, C.LUT_REL] < sc[0, C.SC_F + card // 13]:
                continue
            m |= np.uint64(1) << np.uint64(j)
        mask[0] = m
    else:  # the talon mask is in the key; a suit's height is its cards in no other place
        mask[0] = low
        elsewhere = np.uint64(tab)
        for q in range(sc[0, C.SC_RES]):
            elsewhere |= np.uint64(1) << np.uint64(reserve[q])
        for j in range(talon.shape[0] - 1):
            if (low >> np.uint64(j)) & np.uint64(1):
                elsewhere |= np.uint64(1) << np.uint64(talon[j])
        for card in range(52):
            if card % 13 < ranks and not (elsewhere >> np.uint64(card)) & np.uint64(1):
                sc[0, C.SC_F + card // 13] += 1
                h_total += 1
    return 2 * h_total + t


@njit(**CACHED)
def set_waste(sc, mask, p):
    """Waste boundary of level 0 after its ``p``-th present talon card (0: the waste is empty).

    Parameters
    ----------
    sc : int64[levels, NSC]
        The scalars: level 0's ``SC_WB`` is set.
    mask : uint64[levels]
        The talon masks (level 0's read).
    p : int
        The waste position: how many present talon cards lie in the waste.
    """
    wbnd = 0
    seen = 0
    m = mask[0]
    while seen < p:
        if (m >> np.uint64(wbnd)) & np.uint64(1):
            seen += 1
        wbnd += 1
    sc[0, C.SC_WB] = wbnd
