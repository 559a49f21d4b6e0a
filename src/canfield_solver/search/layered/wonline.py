"""A won line found again after the layered proof: the won layer closed again with a log of who reached whom,
back to one of its entries, then the layer below that reached that entry, down to the deal; the line's
moves put on the game's own columns. That can take a large share of the proof's time (one thread closing
whole layers again: 50 s after 70 s on seed 8), so it ends at the caller's time limit (``LineLate``)."""

from __future__ import annotations

import threading

import numpy as np

from ...errors import SolverBugError
from .. import codec as C
from ..arrays import decode
from .close import BUDGET, FOUND, WON, index, level_of
from .phase import Phase
from .slot import Slot
from .store import Layers


class LineLate(Exception):
    """The time limit came while the won line was being found again: the deal is winnable, but without its
    line the verdict is ``unknown`` (SPEC §5: ``solved`` returns a winning move list)."""


def won_line(ph: Phase, layers: Layers, m_won: int, first: tuple[int, int, int, int],
             seconds: float | None = None) -> list[int] | None:
    """The kernel's moves from the start to a win found in layer ``m_won``, their columns the position's own;
    None when the layers' files could not be kept. Raises ``LineLate`` once ``seconds`` (what is left of the
    caller's time limit; None: no limit) have passed: the closing stops at its next entry."""
    halt = np.zeros(1, np.int64)
    timer = None
    if seconds is not None and seconds < threading.TIMEOUT_MAX:  # past what a timer can wait: no limit here
        if seconds <= 0:
            halt[0] = 1
        else:
            timer = threading.Timer(seconds, halt.fill, (1,))
            timer.daemon = True
            timer.start()
    try:
        return _won_line(ph, layers, m_won, first, halt)
    finally:
        if timer is not None:
            timer.cancel()


def _won_line(ph: Phase, layers: Layers, m_won: int, first: tuple[int, int, int, int],
              halt: np.ndarray) -> list[int] | None:
    steps: list[tuple[int, int, int, int]] = []  # (k0, k1, waste position, move), from the start on
    target: tuple[int, int, int, int] = (0, 0, 0, 1)  # a won child
    m = m_won
    start_item = first[:3]
    while True:
        for dm in ((0,) if target[3] == 1 else (1, 2)):
            entries = layers.load(m - dm)
            if not layers.keeping:
                return None
            if entries is None:  # no such layer (below the start's)
                continue
            slot = Slot(len(entries), halt, counts=ph.counts)
            slot.logk = np.empty((max(4096, 2 * len(entries)), 3), np.uint64)
            slot.logp = np.empty((slot.logk.shape[0], 2), np.int64)
            status, _nout, found = ph.close(entries, index(entries), 0, len(entries), slot, recover=True,
                                            target=target)
            logk, logp = slot.logk, slot.logp
            if status in (WON, FOUND):
                break
            if status == BUDGET:  # the halt: the time limit came
                raise LineLate
        else:
            raise SolverBugError(f"the layered search lost the way back from layer {m}")
        chain: list[tuple[int, int, int, int]] = []
        i, mv = int(found[0]), int(found[1])
        while True:
            chain.append((int(logk[i, 0]), int(logk[i, 1]), int(logk[i, 2]), mv))
            if logp[i, 0] < 0:
                break
            i, mv = int(logp[i, 0]), int(logp[i, 1])
        steps = chain[::-1] + steps
        entry = chain[-1][:3]
        m -= dm
        if entry == start_item and m == first[3]:
            break
        target = (*entry, 0)
    return _engine_codes(ph, steps)


def _engine_codes(ph: Phase, steps: list[tuple[int, int, int, int]]) -> list[int]:
    """Kernel moves made on decoded levels (columns in key order) as moves on the game's own columns: each
    column named by the cards it holds (an empty one by the first empty column of the position)."""
    prob = ph.prob
    cols = np.zeros((2, C.MAXCOLS, C.COLCAP), np.int8)
    sc = np.zeros((2, C.NSC), np.int64)
    mask = np.zeros(2, np.uint64)
    pos = ph.start.copy()
    codes = []
    for k0, k1, wp, mv in steps:
        level_of(np.uint64(k0), np.uint64(k1), wp, ph.params, prob.reserve, prob.talon, prob.lut, ph.rules.ranks,
                  cols, sc, mask)
        decoded = [[int(x) for x in cols[0, c, : sc[0, C.SC_LEN + c]]] for c in range(ph.rules.columns)]
        mv &= C.MOVE_BITS
        kind, src, dst, _cnt, _rd = C.unpack_move(mv)

        def own(c: int, avoid: int = -1) -> int:
            want = decoded[c]  # noqa: B023 (called in this iteration only)
            for j, col in enumerate(pos.tableau):
                if j != avoid and list(col) == want:
                    return j
            raise SolverBugError(f"column {want} of a decoded position is not in the game")

        if kind in (C.K_TF, C.K_TT):
            s = own(src)
            mv = C.move_with_src(mv, s)
            if kind == C.K_TT:
                mv = C.move_with_dst(mv, own(dst, avoid=s))
        elif kind in (C.K_RT, C.K_WT):
            mv = C.move_with_dst(mv, own(dst))
        codes.append(mv)
        for spec in decode(prob, pos, [mv]):
            pos.play(spec)
    return codes
