"""Searches for wins by playing games out (``playout.kernel``) under the usual limits: greedy random playouts
(``level`` 0) or nested Monte Carlo searches of level 1 (``level`` 1, the one the solver runs). ``nested``
and ``greedy`` return an ``Outcome`` (made by ``ended_search``, which the policy adaptation and the beam
searches share): a win's moves are the kernel's move codes, which the solver decodes and replays
as it does every line, and the best line any search followed, a real line too. A loss proves nothing
(``truncated``)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Callable, NamedTuple

import numpy as np

from ...budget import Limits, Pace, Step, drive
from ...engine.position import Position
from .. import codec as C
from ..arrays import LoneSearch, decode
from ..outcome import Outcome
from . import kernel as PK

if TYPE_CHECKING:
    from ...budget import Limit

__all__ = ["greedy", "nested", "ended_search", "ENTRY_POINTS"]

VISIT_ROWS = 1 << 12  # the positions of one playout or line (a few hundred at most)
STEPS_PER_PLAYOUT = 200  # level 0: a call plays about budget / this many playouts
ENTRY_POINTS = (PK.nested,)  # what the solver runs (level 0 is for measurements)


class _Playing(NamedTuple):
    level: int               # 0: playouts one after another; 1: nested searches
    rounds: int | None       # nested searches at most (None: until a limit)
    seed: int                # starts the random generator


def nested(start: Position, limits: Limits, rounds: int | None = None, seed: int = 1) -> Outcome:
    """Nested Monte Carlo searches of level 1 from ``start`` until one wins, ``rounds`` of them have run, or a
    limit (steps as nodes, seconds, Ctrl-C) stops them; ``seed`` starts the random generator (the same seed
    and limits in nodes, the same searches)."""
    return _run(start, limits, _Playing(1, rounds, seed))


def greedy(start: Position, limits: Limits, seed: int = 1) -> Outcome:
    """Greedy random playouts from ``start`` until one wins or a limit stops them (a measurement tool:
    benchmarks/archive/second_design_census.py; the solver runs ``nested``)."""
    return _run(start, limits, _Playing(0, None, seed))


def _run(start: Position, limits: Limits, how: _Playing) -> Outcome:
    level, max_rounds, seed = how
    t0 = time.perf_counter()
    prob = LoneSearch(start)
    visit = np.zeros((VISIT_ROWS, 2), np.uint64)
    main_visit = np.zeros((VISIT_ROWS, 2), np.uint64)
    line = np.zeros(prob.moves.shape[0], np.int64)
    best_line = np.zeros(prob.moves.shape[0], np.int64)
    rng = np.array([(np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15)) | np.uint64(1)], np.uint64)
    words = np.zeros(4, np.uint64)
    stats = np.zeros(PK.NYSTATS, np.int64)
    won = [False]
    best: list = [start.score, []]  # the best line followed (nested): score, move codes

    def call(budget: int) -> Step:
        steps = int(stats[PK.Y_STEPS])
        if level == 0:
            won[0] = PK.playouts(prob.deal, prob.stack, visit, line, rng, words, prob.scratch, stats,
                                 max(1, budget // STEPS_PER_PLAYOUT)) == 1
            return Step.DONE if won[0] or stats[PK.Y_STEPS] == steps else Step.GOING
        won[0] = PK.nested(prob.deal, prob.stack, visit, main_visit, line, best_line, rng, words, prob.scratch,
                           stats) == 1
        if won[0] or stats[PK.Y_STEPS] == steps:  # no step: the start has no move, and never will have
            return Step.DONE
        n = int(stats[PK.Y_LINE_LEN])
        score = int(sum(prob.sc[n, C.SC_F:C.SC_F + 4]))
        if score > best[0]:
            best[0], best[1] = score, [int(m) & C.MOVE_BITS for m in best_line[:n]]
        return Step.DONE if max_rounds is not None and stats[PK.Y_ROUNDS] >= max_rounds else Step.GOING

    limit = drive(call, lambda: int(stats[PK.Y_STEPS]), limits, Pace(1 << 15, t0=t0))
    solution: list[int] = []
    if won[0]:
        won_line = line if level == 0 else best_line
        solution = [int(won_line[k]) & C.MOVE_BITS for k in range(int(stats[PK.Y_WON_LEN]))]
    return ended_search(start, won[0], limit, solution, best=(best[0], best[1]), counts=(
        int(stats[PK.Y_STEPS]), int(stats[PK.Y_PLAYOUTS]), int(stats[PK.Y_ROUNDS])), t0=t0,
        decode=lambda path: decode(prob, start, path))


def ended_search(start: Position, won: bool, limit: "Limit | None", solution: list[int], *, best: tuple[int, list[int]],
                 counts: tuple[int, int, int], t0: float, decode: "Callable[[list[int]], list[str]]") -> Outcome:
    """The ``Outcome`` of a search for wins that proves nothing when it ends without one (these playouts, the
    policy adaptation, the beam searches): ``truncated`` unless won, a win's line as its best; ``best`` the
    best line followed otherwise (score, move codes); ``counts`` its steps (as nodes), playouts (or positions
    kept) and searches (``stats["rounds"]``)."""
    steps, held, rounds = counts
    score, path = (4 * start.rules.ranks, solution) if won else best
    return Outcome(won=won, limit=None if won else limit, truncated=not won, solution=solution, best_score=score,
                   best_path=path, nodes=steps, max_depth=len(path), positions=held,
                   seconds=time.perf_counter() - t0, decode=decode,
                   stats={"rounds": rounds, "ended": "won" if won else "rounds"})
