"""Beam searches for wins (``beam.kernel``) under the usual limits: ``beam`` runs searches of widening beams
(``FIRST_WIDTH``, then each ``GROWTH`` times the last while the memory cap and ``MAX_WIDTH`` allow, then as
wide again, ``SEARCHES`` at most) until one wins or a limit stops them, and returns an ``Outcome`` as
the playouts do: a win's moves are the kernel's move codes, which the solver decodes and replays as it does
every line. An emptied beam proves nothing."""

from __future__ import annotations

import time

import numpy as np

from ...budget import Limits, Pace, Step, drive
from ...engine.position import Position
from .. import codec as C
from ..arrays import LoneSearch, decode
from ..outcome import Outcome
from ..playout import ended_search
from . import kernel as BK

__all__ = ["beam", "ENTRY_POINTS", "FIRST_WIDTH", "LAYERS"]

FIRST_WIDTH = 64   # the first search's width; each next one four times the last
GROWTH = 4
MAX_WIDTH = 16384  # the widest (about 300 MB; the solver's memory cap is often gigabytes, and a search four
                   # times wider spent its share in the system's first touches of its pages)
LAYERS = 1024      # layers (moves) a line may have (wins where gaps wait: 300-500 moves)
SEARCHES = 8      # searches at most: widening to the memory cap, then as wide with other tie-breaks
SEEN_ROWS = 320    # rows of the kept positions' table a position of the beam's width (a power of two above)
ENTRY_POINTS = (BK.search,)
WEIGHTS = (0, 1, 0, 1)  # cards home, reserve cards played, talon cards played; divided by the last (measured)


def _pow2(n: int) -> int:
    return 1 << max(4, (n - 1).bit_length())


class _Beam:
    """One search's arrays for a beam of ``width``."""

    def __init__(self, prob: LoneSearch, width: int, talon_cards: int):
        slots = 2 * width + 2
        self.width, self.talon_cards = width, talon_cards
        self.cols = np.zeros((slots, C.MAXCOLS, C.COLCAP), np.int8)
        self.sc = np.zeros((slots, C.NSC), np.int64)
        self.mask = np.zeros(slots, np.uint64)
        self.cols[0], self.sc[0], self.mask[0] = prob.cols[0], prob.sc[0], prob.mask[0]
        moves = prob.moves.shape[1]
        self.seen = np.zeros((_pow2(SEEN_ROWS * width), 2), np.uint64)
        self.layer_seen = np.zeros((_pow2(2 * width * moves), 2), np.uint64)
        self.parent = np.zeros((LAYERS, width), np.int32)
        self.moved = np.zeros((LAYERS, width), np.int32)
        self.cand = np.zeros((width * moves, 3), np.int64)
        self.state = np.array(BK.START_STATE, np.int64)
        self.slots = BK.Slots(self.cols, self.sc, self.mask)
        self.arrays = BK.BeamArrays(self.seen, self.layer_seen, self.parent, self.moved, self.cand, self.state)

    def restart(self, prob: LoneSearch) -> None:
        """The start in slot 0 again, the layer count at 0 (the tables' stamps change with the search's number)."""
        self.cols[0], self.sc[0], self.mask[0] = prob.cols[0], prob.sc[0], prob.mask[0]
        self.state[:] = BK.START_STATE

    @staticmethod
    def bytes_for(width: int, moves: int) -> int:
        """The memory a search of ``width`` takes (about)."""
        return (16 * _pow2(SEEN_ROWS * width) + 16 * _pow2(2 * width * moves) + 8 * LAYERS * width
                + 24 * width * moves + (2 * width + 2) * (C.MAXCOLS * C.COLCAP + 8 * C.NSC + 8))


def beam(start: Position, limits: Limits, seed: int = 1, first_width: int = FIRST_WIDTH,
         weights: tuple[int, int, int, int] = WEIGHTS) -> Outcome:
    """Beam searches from ``start``, each ``GROWTH`` times wider than the last while the memory cap allows and
    then as wide with other tie-breaks, until one wins, ``SEARCHES`` have run, or a limit (children made as
    nodes, seconds, Ctrl-C) stops them; ``seed`` starts the tie-breaks, ``weights`` weigh a position
    (``kernel.value``). ``rounds`` in the outcome counts the searches started; the limit is None when the
    last search emptied."""
    t0 = time.perf_counter()
    prob = LoneSearch(start)
    moves = prob.moves.shape[1]
    talon_cards = len(prob.talon_list)
    bw = BK.BeamWork(np.zeros(moves, np.int64), prob.scratch, np.zeros(4, np.uint64),
                     np.zeros(BK.VALUE_LIMIT << BK.NOISE_BITS, np.int64),
                     np.array([(np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15)) | np.uint64(1)], np.uint64),
                     np.array(weights, np.int64), np.zeros(LAYERS, np.int64))
    stats = np.zeros(BK.NBSTATS, np.int64)
    cap = limits.memory_mb * (1 << 20)
    width = first_width
    b = [_Beam(prob, width, talon_cards)]
    stats[BK.B_SEARCHES] = stats[BK.B_STAMP] = stats[BK.B_LAYERS] = 1
    won = [False]
    began = [0]  # the steps when the search under way began

    def call(budget: int) -> Step:
        nonlocal width
        s = b[0]
        r = BK.search(prob.deal, s.slots, s.arrays, bw, stats, s.width, talon_cards, int(stats[BK.B_STEPS]) + budget)
        if r == 1:
            won[0] = True
            return Step.DONE
        if r == 2:  # ended: a wider search, or one as wide with other tie-breaks where no wider one fits
            if stats[BK.B_STEPS] == began[0] or stats[BK.B_SEARCHES] >= SEARCHES:
                return Step.DONE  # the last search, or the start has no move the kernel plays
            began[0] = int(stats[BK.B_STEPS])
            if width * GROWTH <= MAX_WIDTH and _Beam.bytes_for(width * GROWTH, moves) <= cap:
                width *= GROWTH
                b.clear()  # the last search's arrays go before the next's are made
                b.append(_Beam(prob, width, talon_cards))
            else:
                s.restart(prob)
            stats[BK.B_SEARCHES] += 1
            stats[BK.B_STAMP] += 1  # the kept positions' table empty again, and the layer table
            stats[BK.B_LAYERS] += 1
        return Step.GOING

    # Calls of at most 32,768 children (a few hundredths of a second at the widest): the clock is looked at
    # between calls, and a child at 16,384 wide costs several times one at 64 (its tables miss the caches).
    limit = drive(call, lambda: int(stats[BK.B_STEPS]), limits, Pace(1 << 12, max_chunk=1 << 15, t0=t0))
    solution = [int(m) & C.MOVE_BITS for m in bw.line[:int(stats[BK.B_WON_LEN])]] if won[0] else []
    return ended_search(start, won[0], limit, solution, best=(start.score, []), counts=(
        int(stats[BK.B_STEPS]), int(stats[BK.B_KEPT]), int(stats[BK.B_SEARCHES])), t0=t0,
        decode=lambda path: decode(prob, start, path))
