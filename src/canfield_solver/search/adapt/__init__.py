"""Searches for wins by nested rollout policy adaptation (``adapt.kernel``) under the usual limits: ``policy``
returns an ``Outcome`` (as the nested searches do): a win's moves are the kernel's move codes, which
the solver decodes and replays as it does every line, and the best line any playout played, a real line
too. A loss proves nothing."""

from __future__ import annotations

import time

import numpy as np

from ...budget import Limits, Pace, Step, drive
from ...engine.position import Position
from .. import codec as C
from ..arrays import LoneSearch, decode
from ..outcome import Outcome
from ..playout import ended_search
from . import kernel as AK

__all__ = ["policy", "ENTRY_POINTS", "LEVEL", "ITERATIONS", "ALPHA", "BETA"]

VISIT_ROWS = 1 << 12  # the positions of one playout (a few hundred at most)
LEVEL = 2          # the top level (Rosin's searches of level 2 and 3 are the usual ones)
ITERATIONS = 100   # of each level, as Rosin's
ALPHA = 1.0        # the adaptation's step, as Rosin's
BETA = 0.5         # how much the greedy playouts' class of a move weighs against the learned policy
ENTRY_POINTS = (AK.search,)


def policy_arrays(level: int, depth: int, width: int) -> AK.PolicyArrays:
    """A search's state for a top level of ``level``, lines of ``depth`` steps of ``width`` moves at most."""
    rows = level + 1
    return AK.PolicyArrays(np.zeros((rows, AK.CODES)), np.zeros((rows, depth, width), np.int64),
                           np.zeros((rows, depth, width)), np.zeros((rows, depth), np.int64),
                           np.zeros((rows, depth), np.int64), np.zeros(rows, np.int64), np.full(rows, -1, np.int64),
                           np.zeros(rows, np.int64), np.zeros(depth, np.int64), np.zeros(max(AK.CODES, width)))


def policy(start: Position, limits: Limits, seed: int = 1, level: int = LEVEL, iterations: int = ITERATIONS,
           beta: float = BETA) -> Outcome:
    """Searches of ``level`` from ``start`` until one wins or a limit (steps as nodes, seconds, Ctrl-C) stops
    them; ``seed`` starts the random generator (the same seed and node limit: the same playouts, however the
    driver cuts its calls). ``rounds`` in the outcome counts the searches started."""
    if level < 1 or iterations < 1:
        raise ValueError(f"level and iterations must be at least 1, not {level} and {iterations}")
    t0 = time.perf_counter()
    prob = LoneSearch(start)
    depth, width = prob.moves.shape
    pa = policy_arrays(level, depth, width)
    visit = np.zeros((VISIT_ROWS, 2), np.uint64)
    line = np.zeros(depth, np.int64)
    rng = np.array([(np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15)) | np.uint64(1)], np.uint64)
    words = np.zeros(4, np.uint64)
    stats = np.zeros(AK.NASTATS, np.int64)
    shape = np.array([level, iterations], np.int64)
    rates = np.array([ALPHA, beta], np.float64)
    won = [False]

    def call(budget: int) -> Step:
        steps = int(stats[AK.A_STEPS])
        won[0] = AK.search(prob.deal, prob.stack, visit, pa, line, rng, words, prob.scratch, stats, shape, rates,
                           steps + budget) == 1
        if won[0] or stats[AK.A_STEPS] == steps:  # no step: the start has no move, and never will have
            return Step.DONE
        return Step.GOING

    limit = drive(call, lambda: int(stats[AK.A_STEPS]), limits, Pace(1 << 15, t0=t0))
    if won[0]:
        solution = [int(m) & C.MOVE_BITS for m in line[:int(stats[AK.A_WON_LEN])]]
        best_score, best_path = 4 * start.rules.ranks, solution
    else:
        solution = []
        n = int(stats[AK.A_BEST_LEN])
        best_score = int(stats[AK.A_BEST]) // 64 if n else start.score
        best_path = [int(m) & C.MOVE_BITS for m in pa.best_line[:n]]
    return ended_search(start, won[0], limit, solution, best=(best_score, best_path), counts=(
        int(stats[AK.A_STEPS]), int(stats[AK.A_PLAYOUTS]), int(stats[AK.A_SEARCHES])), t0=t0,
        decode=lambda path: decode(prob, start, path))
