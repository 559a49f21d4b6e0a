"""The search over card classes: wins the exact search walks past (``find``), losses proved over ranks
(``prove``). Both run ``ranks.kernel.search`` under the usual limits and return an ``Outcome``; the
solver decides what a verdict may rest on (a ``find`` win, replayed; a ``prove`` exhaustion, its
``proved_lost``). ``stats["ended"]`` says how a search that proves nothing ended: ``find`` exhausted (the
real moves under a key of ranks are a part of the game's), ``prove`` won (an abstract win).

A card's class is what the building rule reads of it (``classes``): its rank where any suit builds, its
rank and colour where colours alternate. Where cards build in suit every class holds one card, and where
a part of a column moves only when it frees a card for its foundation a move reads an identity: there
``classes`` is None and neither search runs.
"""

from __future__ import annotations

import time

import numpy as np

from ...budget import Limits, Pace, Step, drive
from ...engine.position import Position
from ...engine.rules import Rules
from .. import codec as C
from ..arrays import ROW_SECONDS, LoneSearch, decode
from ..outcome import Outcome
from . import kernel as RK

__all__ = ["classes", "find", "prove", "usable", "FIND", "PROVE", "ENTRY_POINTS"]

FIND, PROVE = RK.FIND, RK.PROVE
ENTRY_POINTS = (RK.search, RK.rehash)
CHUNK = 1 << 16
INITIAL_ROWS = 1 << 16
LOAD = 0.7


def classes(r: Rules) -> tuple[np.ndarray, np.ndarray] | None:
    """Each card's class (int64[52]) and the other cards of its class (int64[52, 4], -1 after the last);
    None where classes would not be sound or would hold one card each."""
    if r.build == "suit" or r.column_moves == "whole-or-freeing":
        return None
    cls = np.full(52, -1, np.int64)
    for c in r.deck:
        rank, suit = c % 13, c // 13
        cls[c] = rank if r.build == "any" else 2 * rank + (1 if suit in (1, 2) else 0)
    peers = np.full((52, 4), -1, np.int64)
    for c in r.deck:
        others = [x for x in r.deck if x != c and cls[x] == cls[c]]
        peers[c, :len(others)] = others
    return cls, peers


def usable(r: Rules) -> bool:
    """Whether the search over classes runs under these rules (``classes`` is not None)."""
    return classes(r) is not None


def _run(start: Position, mode: int, limits: Limits) -> Outcome:
    t0 = time.perf_counter()
    found = classes(start.rules)
    if found is None:
        raise ValueError(f"no search over classes under rules {start.rules.name!r}")
    cls, peers = found
    prob = LoneSearch(start)
    width = prob.moves.shape[1] + 4 * start.rules.columns
    moves = np.zeros((prob.moves.shape[0], width), np.int64)
    stack = C.StackArrays(prob.cols, prob.sc, prob.mask, moves, prob.nmoves, prob.midx)
    dirty = np.zeros(prob.moves.shape[0], np.int64)
    words = np.zeros(4, np.uint64)
    stats = np.zeros(RK.NRSTATS, np.int64)
    max_memory_mb = limits.memory_mb
    cap_rows = max(INITIAL_ROWS, (max_memory_mb << 20) // (RK.KEY_WORDS * 8))
    holder = [np.zeros((min(INITIAL_ROWS, cap_rows), RK.KEY_WORDS), np.uint64)]
    last = [C.RUNNING]

    def call(budget: int) -> Step:
        table = holder[0]
        status = last[0] = RK.search(prob.deal, stack, table, peers, cls, dirty, words, prob.scratch, stats,
                                     budget, int(table.shape[0] * LOAD), mode)
        if status == C.GROW:
            rows = table.shape[0] * 2
            if (rows + table.shape[0]) * RK.KEY_WORDS * 8 > max_memory_mb << 20:
                return Step.NO_MEMORY
            if not limits.deadline.affords(rows * ROW_SECONDS):
                return Step.NO_TIME
            bigger = np.zeros((rows, RK.KEY_WORDS), np.uint64)
            RK.rehash(table, bigger, words, stats)
            holder[0] = bigger
            return Step.GROWN
        return Step.DONE if status in (C.SOLVED, C.EXHAUSTED) else Step.GOING

    limit = drive(call, lambda: int(stats[RK.R_NODES]), limits, Pace(CHUNK, t0=t0))
    status = last[0]
    ended = "limit" if limit is not None else ("won" if status == C.SOLVED else "exhausted")
    solution = ([int(moves[k, prob.midx[k] - 1]) & C.MOVE_BITS for k in range(int(stats[RK.R_SOLVED_DEPTH]))]
                if ended == "won" and mode == FIND else [])
    won = mode == FIND and ended == "won"
    proof = mode == PROVE and ended == "exhausted"  # the only end that proves something: the deal lost
    return Outcome(won=won, limit=limit, truncated=bool(stats[RK.R_TRUNCATED]) or not (won or proof or limit is not None),
                   solution=solution, best_score=int(stats[RK.R_BEST]), best_path=[], nodes=int(stats[RK.R_NODES]),
                   max_depth=int(stats[RK.R_MAXDEPTH]), positions=int(stats[RK.R_ROWS]),
                   seconds=time.perf_counter() - t0, decode=lambda path: decode(prob, start, path),
                   stats={"ended": ended, "cut": bool(stats[RK.R_TRUNCATED]), "class_rows": int(stats[RK.R_ROWS]),
                          "class_max_depth": int(stats[RK.R_MAXDEPTH])})


def warm_up_rehash() -> None:
    """Compile (or load) the table's growth, which a short search never reaches."""
    words = np.zeros(4, np.uint64)
    RK.rehash(np.zeros((2, RK.KEY_WORDS), np.uint64), np.zeros((4, RK.KEY_WORDS), np.uint64), words,
              np.zeros(RK.NRSTATS, np.int64))


def find(start: Position, limits: Limits) -> Outcome:
    """Real moves under the class key until a win, exhaustion (which proves nothing) or a limit."""
    return _run(start, FIND, limits)


def prove(start: Position, limits: Limits) -> Outcome:
    """The abstract game over classes until it is exhausted (the deal is lost), won (nothing proved) or a
    limit stops it."""
    return _run(start, PROVE, limits)
