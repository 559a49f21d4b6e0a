"""The waste cards draws can reach (Numba): ``waste_targets`` lists each talon card a run of draws (and a
redeal, where one is left) brings to the waste's top, with the draws it takes; where the talon is a pool
(draw 1, unlimited redeals: docs/solver-notes.md "The talon as a pool") ``_pool_waste_moves`` plays a pool
card only where it starts a chain that ends on a column or a foundation.

Split out of ``kernel.py`` (issue 72); ``kernel`` imports these names and inlines them into the search.
"""

from __future__ import annotations

import numpy as np

from ..jit import INLINE, helper
from .base import (
    _ctz,
    _fits_on,
    below,
    move_code,
    popcount,
)
from .codec import (
    BM_GUESTS,
    K_WT,
    P_COLMOVES,
    P_DRAW,
    P_NCOLS,
    P_REDEALS,
    SC_LEN,
    SC_RDL,
    SC_RES,
    SC_WB,
)
from .stuck import (
    _bit,
)


@helper(**INLINE)
def waste_targets(sc, mask, d, params, qidx, qrd, pres):
    """Talon indices of every waste card reachable by draws (qrd 0) or after one redeal (qrd 1).

    Parameters
    ----------
    sc, mask, d, params : glossary
        As the glossary in ``search/base.py`` says.
    qidx : int64[n]
        Receives the talon index of each waste card that can be played.
    qrd : int64[n]
        Receives for each whether reaching it takes a counted redeal (1) or not (0).
    pres : int64[n]
        Work space: the talon indices still in the talon, in order.
    """
    draw = params[P_DRAW]
    wb = sc[d, SC_WB]
    m = mask[d]
    n = 0
    p = np.int64(popcount(m & below(wb)))  # signed: with draw, unsigned arithmetic is float
    while m != np.uint64(0):
        pres[n] = np.int64(_ctz(m))
        n += 1
        m &= m - np.uint64(1)
    k = 0
    if n == 0:
        return 0
    if p > 0:
        qidx[k] = pres[p - 1]
        qrd[k] = 0
        k += 1
    q = p + draw
    while q < n:
        qidx[k] = pres[q - 1]
        qrd[k] = 0
        k += 1
        q += draw
    if n > p:
        qidx[k] = pres[n - 1]
        qrd[k] = 0
        k += 1
    red = params[P_REDEALS]
    if red < 0 or sc[d, SC_RDL] < red:
        flag = 0 if red < 0 else 1
        p_on_cycle = p % draw == 0  # then every later multiple of draw was reached above
        q = draw
        while q < n:
            if not (q == p or (q > p and p_on_cycle)):
                qidx[k] = pres[q - 1]
                qrd[k] = flag
                k += 1
            q += draw
    return k


@helper(**INLINE)
def _pool_anchors(deal, cols, sc, mask, d):
    """For ``pool_chain``: the talon's cards as a card mask, and the cards outside the talon that a move can
    put onto another card now (the reserve's top; each column's bottom, moving with its whole column, and
    its top card where a top card moves alone).

    Parameters
    ----------
    deal, cols, sc, mask, d : glossary
        As the glossary in ``search/base.py`` says.
    """
    params, reserve, talon, _lut, _bm = deal
    pool_cards = np.uint64(0)
    m = mask[d]
    while m != np.uint64(0):
        pool_cards |= _bit(talon[np.int64(_ctz(m))])
        m &= m - np.uint64(1)
    anchors = np.uint64(0)
    res = sc[d, SC_RES]
    if res > 0:
        anchors |= _bit(reserve[res - 1])
    tops = params[P_COLMOVES] == 0
    for c in range(params[P_NCOLS]):
        ln = sc[d, SC_LEN + c]
        if ln > 0:
            anchors |= _bit(cols[d, c, 0])
            if tops:
                anchors |= _bit(cols[d, c, ln - 1])
    return pool_cards, anchors


@helper(**INLINE)
def pool_chain(card, bm, pool_cards, anchors):
    """Whether talon card ``card`` put on a column could be used by the next move, as a line that puts a talon
    card on a column can always be played: a chain of talon cards built down from ``card``, one on the
    other, ends with one of ``anchors`` (cards that a move can put on another now).

    Why a line can always be so (with the talon a pool: every talon card can be played at any time, draw 1
    with unlimited redeals): in a winning line, move a talon card's play onto a column to just before the
    first move that puts a card on it. The moves in between touch neither that card nor its column (its
    column's top was that card), so they stay legal with the card still in the talon and the column's top
    the card below; a card never built on need not leave the talon at all (it goes home from the talon, or
    whatever column it moved to, it reaches there from the talon). Done for every such play, each talon
    card put on a column is followed at once by a card put on it: another talon card, which is followed at
    once by one put on it, and so on, down to a card from outside the talon, which a move could put there
    already (the chain's cards were all in the talon). docs/solver-notes.md, "A talon card onto a column
    only when it is built on next".

    Parameters
    ----------
    card : int
        The talon card to put on a column.
    bm : glossary
        As the glossary in ``search/base.py`` says.
    pool_cards : uint64
        The talon's cards, as a card mask (``_pool_anchors``).
    anchors : uint64
        The cards outside the talon a move can put on a card now, less those of the column ``card`` goes to.
    """
    frontier = bm[BM_GUESTS + card]
    reached = np.uint64(0)
    while frontier != np.uint64(0):
        if frontier & anchors:
            return True
        reached |= frontier
        nxt = np.uint64(0)
        f = frontier & pool_cards
        while f != np.uint64(0):
            nxt |= bm[BM_GUESTS + np.int64(_ctz(f))]
            f &= f - np.uint64(1)
        frontier = nxt & ~reached
    return False


@helper(**INLINE)
def _pool_waste_moves(deal, cols, sc, mask, d, out, n, qidx, qrd, nq, fits_top, gaps_open):
    """``gen``'s waste-to-tableau moves under a pool (``P_POOL``): onto a card only where ``pool_chain``
    allows, into a gap always. Returns the move count ``n`` with them added.

    Parameters
    ----------
    deal, cols, sc, mask, d : glossary
        As the glossary in ``search/base.py`` says.
    out : int64[width]
        Receives the moves, from index ``n`` on.
    n : int
        The moves already in ``out``.
    qidx : int64[n]
        The talon index of each waste card that can be played (``waste_targets``).
    qrd : int64[n]
        For each, whether reaching it takes a counted redeal.
    nq : int
        How many there are.
    fits_top : uint64
        The cards that fit on some column's top (all of them while a gap is open).
    gaps_open : bool
        Whether a gap takes a waste card now.
    """
    params, _reserve, talon, lut, bm = deal
    pool_cards, anchors = _pool_anchors(deal, cols, sc, mask, d)
    for k in range(nq):
        card = talon[qidx[k]]
        if not fits_top & _bit(card):
            continue
        for c in range(params[P_NCOLS]):
            ln = sc[d, SC_LEN + c]
            if ln > 0:
                top = cols[d, c, ln - 1]
                if _fits_on(card, top, lut) and pool_chain(card, bm, pool_cards,
                                                           anchors & ~(_bit(top) | _bit(cols[d, c, 0]))):
                    out[n] = move_code(K_WT, qidx[k], c, 1, qrd[k])
                    n += 1
            elif gaps_open:
                out[n] = move_code(K_WT, qidx[k], c, 1, qrd[k])
                n += 1
    return n
