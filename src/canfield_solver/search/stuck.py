"""The stuck-card test of the depth-first search (Numba; SOLVER-NOTES §2, docs/solver-notes.md "The
stuck-card set"): a position in which some card can never reach its foundation is lost. ``_is_stuck`` asks
it of a position, ``child_is_stuck`` of a child before it is made (only the cards the move touched can
start a new stuck set: ``_stuck_candidates``).

Split out of ``kernel.py`` (issue 72); ``kernel`` imports these names and inlines them into the search.
"""

from __future__ import annotations

import numpy as np

from ..jit import INLINE, helper
from .base import (
    _ctz,
    move_count,
    move_dst,
    move_kind,
    move_src,
)
from .codec import (
    ALL_CARDS,
    BM_GUESTS,
    BM_HOME,
    BM_HOME_STRIDE,
    BM_HOSTS,
    BM_LOWER,
    K_RF,
    K_RT,
    K_TF,
    K_TT,
    K_WF,
    K_WT,
    P_NCOLS,
    P_STUCK,
    SC_F,
    SC_LEN,
    SC_RES,
    SC_TAB,
)


@helper(**INLINE)
def _bit(card):
    """The mask of one card.

    Parameters
    ----------
    card : glossary
        As the glossary in ``search/base.py`` says.
    """
    return np.uint64(1) << np.uint64(card)


@helper(**INLINE)
def _stays(card, bm, s_or_u, blocked):
    """SOLVER-NOTES §2's test: a lower card of its suit is in or under S (``s_or_u``; home cards never
    are), and every host is home or under S (``blocked``).

    Parameters
    ----------
    card, bm : glossary
        As the glossary in ``search/base.py`` says.
    s_or_u : uint64
        The cards in S or under a card of S.
    blocked : uint64
        The cards home or under a card of S.
    """
    return (bm[BM_LOWER + card] & s_or_u) != np.uint64(0) and (bm[BM_HOSTS + card] & ~blocked) == np.uint64(0)


@helper(**INLINE)
def _stuck_walk(cols, sc, d, params, bm, prefix, cand):
    """Whether some tableau card can never move (SOLVER-NOTES §2); when it returns True the pointers of
    the walk below are left in ``prefix`` (``_stuck_closure`` reads the set from them).

    S is the greatest set of tableau cards in which every card Y has (a) some
    lower card of its suit that is not home in S or under a card of S in its
    column, and (b) every host home or under a card of S. Only the topmost
    card of S in each column decides what is "in S or under S" (every card at
    or below it) and what is "under S" (every card below it), so the search is
    over one pointer per column: start at the tops; while a column's pointed
    card fails (a) or (b) against the current pointers, move that pointer one
    card down. Every card dropped so fails against a superset of S (the
    conditions only get harder as S shrinks), so S stays inside; when no
    pointed card fails, the pointed cards with the cards below them that pass
    form a set that supports itself, so it is S. So S is empty exactly when
    every pointer has left its column, and nothing more is needed to answer:
    the cards of S below the pointers (a walk over every card of S's columns)
    are gathered only by ``_stuck_closure``. Each pointer moves down at most
    its column's length, so the work is about one test per tableau card,
    where dropping all failing cards pass after pass tests every card of S
    again each pass (a pass per card peeled off a long run).
    ``prefix`` is scratch: prefix[0, c] = 1 + the pointer of column c.
    ``cand`` is ``ALL_CARDS``, or cards of which S must hold one if it is not
    empty (``_stuck_candidates``): when none of them passes (a) and (b) against
    the whole tableau (the largest S there can be), the answer is False at once.

    Parameters
    ----------
    cols, sc, d, params, bm, prefix : glossary
        As the glossary in ``search/base.py`` says.
    cand : uint64
        ``ALL_CARDS``, or a mask of cards of which the stuck set must hold one if it is not empty
        (``_stuck_candidates``).
    """
    ncols = params[P_NCOLS]
    s_or_u = np.uint64(sc[d, SC_TAB])
    tops = np.uint64(0)
    for c in range(ncols):
        ln = sc[d, SC_LEN + c]
        if ln > 0:
            tops |= _bit(cols[d, c, ln - 1])
        prefix[0, c] = np.uint64(ln)
    under = s_or_u & ~tops
    home = _home_mask(sc, d, bm)
    if cand != ALL_CARDS:
        # A card of S has a lower card of its suit on the tableau and every host home or covered.
        m = cand & s_or_u
        found = False
        while m != np.uint64(0) and not found:
            y = np.int64(_ctz(m))
            m &= m - np.uint64(1)
            found = _stays(y, bm, s_or_u, home | under)
        if not found:
            return False
    changed = True
    while changed:
        changed = False
        for c in range(ncols):
            t = np.int64(prefix[0, c]) - 1
            while t >= 0:
                y = cols[d, c, t]
                if _stays(y, bm, s_or_u, home | under):
                    break
                s_or_u &= ~_bit(y)
                t -= 1
                if t >= 0:
                    under &= ~_bit(cols[d, c, t])
                changed = True
            prefix[0, c] = np.uint64(t + 1)
    for c in range(ncols):
        if prefix[0, c] != np.uint64(0):
            return True
    return False


@helper(**INLINE)
def _home_mask(sc, d, bm):
    """The cards on the foundations at level ``d``, as a mask.

    Parameters
    ----------
    sc, d, bm : glossary
        As the glossary in ``search/base.py`` says.
    """
    home = np.uint64(0)
    for k in range(4):
        home |= bm[BM_HOME + k * BM_HOME_STRIDE + sc[d, SC_F + k]]
    return home


@helper(**INLINE)
def _stuck_closure(cols, sc, d, params, bm, prefix, cand):
    """The cards that can never move, as a mask (``_stuck_walk``'s set S); 0 when there are none.

    After the walk, S or under S is every card at or below a column's
    pointer, under S the cards strictly below one, and S the pointed cards
    with the cards below them that pass (a) and (b).

    Parameters
    ----------
    cols, sc, d, params, bm, prefix : glossary
        As the glossary in ``search/base.py`` says.
    cand : uint64
        ``ALL_CARDS``, or a mask of cards of which the stuck set must hold one if it is not empty
        (``_stuck_candidates``).
    """
    if not _stuck_walk(cols, sc, d, params, bm, prefix, cand):
        return np.uint64(0)
    s_or_u = np.uint64(0)
    pointed = np.uint64(0)
    for c in range(params[P_NCOLS]):
        top = np.int64(prefix[0, c]) - 1
        for i in range(top + 1):
            s_or_u |= _bit(cols[d, c, i])
        if top >= 0:
            pointed |= _bit(cols[d, c, top])
    blocked = _home_mask(sc, d, bm) | (s_or_u & ~pointed)
    s_mask = pointed
    for c in range(params[P_NCOLS]):
        for i in range(np.int64(prefix[0, c]) - 1):
            y = cols[d, c, i]
            if _stays(y, bm, s_or_u, blocked):
                s_mask |= _bit(y)
    return s_mask


@helper(**INLINE)
def _is_stuck(cols, sc, d, params, bm, prefix):
    """A non-empty set of tableau cards that can never move: the position is lost.

    Needs rules where no tableau card ever enters a gap (``P_STUCK`` 1).

    Parameters
    ----------
    cols, sc, d, params, bm, prefix : glossary
        As the glossary in ``search/base.py`` says.
    """
    if params[P_STUCK] != 1:
        return False
    return _stuck_walk(cols, sc, d, params, bm, prefix, ALL_CARDS)


@helper(**INLINE)
def _stuck_candidates(cols, sc, d, mv, reserve, talon, bm):
    """Cards of which the child of level ``d`` by move ``mv`` must hold one in its stuck set, if that
    set is not empty, given that level ``d``'s own set is empty (docs/solver-notes.md §1); 0 when the
    child's set is empty for sure.

    A move changes the closure's conditions only through the cards it puts on top of other cards
    (which may now cover hosts) and the card it sends home (which blocks its guests' hosts), so a
    set the parent lacked must hold one of those cards or guests. A card alone in a column (a gap
    filled from the reserve or the waste) covers nothing and is never needed in the set, and a top
    card moved off one of its hosts leaves that host on top, so it is never in the set.

    Parameters
    ----------
    cols, sc : glossary
        As the glossary in ``search/base.py`` says.
    d : int
        The level of the parent, whose stuck set is empty.
    mv, reserve, talon, bm : glossary
        As the glossary in ``search/base.py`` says.
    """
    kind = move_kind(mv)
    src = move_src(mv)
    dst = move_dst(mv)
    cnt = move_count(mv)
    if kind == K_TT:
        ls = sc[d, SC_LEN + src]
        if cnt == 1 and ls >= 2:
            x = int(cols[d, src, ls - 1])
            if (bm[BM_HOSTS + x] & _bit(cols[d, src, ls - 2])) != np.uint64(0):
                return np.uint64(0)
        cand = np.uint64(0)
        for i in range(ls - cnt, ls):
            cand |= _bit(cols[d, src, i])
        return cand
    if kind == K_TF:
        return bm[BM_GUESTS + int(cols[d, src, sc[d, SC_LEN + src] - 1])]
    if kind == K_RF:
        return bm[BM_GUESTS + int(reserve[sc[d, SC_RES] - 1])]
    if kind == K_WF:
        return bm[BM_GUESTS + int(talon[src])]
    if sc[d, SC_LEN + dst] == 0:  # a reserve or waste card into a gap
        return np.uint64(0)
    if kind == K_RT:
        return _bit(reserve[sc[d, SC_RES] - 1])
    if kind == K_WT:
        return _bit(talon[src])
    return ALL_CARDS  # no such move today; a kind added later runs the whole closure until it has a rule


@helper(**INLINE)
def child_is_stuck(cols, sc, d, mv, params, reserve, talon, bm, prefix):
    """``_is_stuck`` for the child of level ``d`` (a position with no stuck card) by move ``mv``,
    on level ``d + 1``: the same answer, mostly without the closure (``_stuck_candidates``).

    Parameters
    ----------
    cols, sc : glossary
        As the glossary in ``search/base.py`` says.
    d : int
        The level of the parent, whose stuck set is empty; the child is at ``d + 1``.
    mv, params, reserve, talon, bm, prefix : glossary
        As the glossary in ``search/base.py`` says.
    """
    if params[P_STUCK] != 1:
        return False
    cand = _stuck_candidates(cols, sc, d, mv, reserve, talon, bm)
    if cand == np.uint64(0):
        return False
    return _stuck_walk(cols, sc, d + 1, params, bm, prefix, cand)
