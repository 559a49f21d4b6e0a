"""One thread's depth-first search of a position: ``kernel.search`` run in chunks of nodes, the tables grown
between chunks (not when a growth would end past the deadline), the limits checked between chunks.
``Search`` keeps its tables and stack between runs, so a later run goes on where a limit stopped the last
(``search.schedule``'s probe, then the exact search); ``search`` is one run from the start. The schedule
runs it for ``workers=1``. Ctrl-C or SIGTERM ends it with ``Limit.INTERRUPTED``, except when it lands as
the kernel returns a win: the win stands."""

from __future__ import annotations

import time
from types import ModuleType
from typing import NamedTuple

from ..budget import Deadline, Limit, Limits, Pace, Step, drive
from ..engine.position import Position
from . import codec as C
from . import kernel as K
from .arrays import LoneSearch, SearchTables, decode, key_words, positions, result_stats
from .outcome import Outcome

CHUNK_NODES = 1 << 17  # nodes between two looks at the clock, the node limit and the progress callback


class How(NamedTuple):
    """How a depth-first search runs: ``kernel``, the compiled kernel or the same code interpreted
    (``interpreted.kernel()``, which wants a smaller ``chunk`` of nodes between two looks at the limits);
    ``keep``, for measurements (benchmarks/archive/layer_census.py): a dict that receives the search's arrays
    (``"problem"``) and its final tables (``"tables"``); ``passes_cover``, covering of limited passes where the
    rules have them (``arrays._params``; off for the table censuses, which read the rows' waste positions)."""

    kernel: ModuleType = K
    chunk: int = CHUNK_NODES
    keep: dict | None = None
    passes_cover: bool = True


COMPILED = How()  # the compiled kernel, in chunks of CHUNK_NODES


def search(start: Position, limits: Limits, compile_seconds: float = 0.0, how: How = COMPILED) -> Outcome:
    """Search ``start`` until it is won, exhausted, or a limit (or Ctrl-C) stops it."""
    return Search(start, limits.memory_mb, compile_seconds, how).run(limits)


class Search:
    """One depth-first search that a limit may stop and a later ``run`` go on with: its tables and stack are
    kept between runs, so the nodes of a first look (the schedule's probe) are not searched again. Each
    ``run`` returns the search's Outcome so far (its nodes, time and positions since the first run)."""

    def __init__(self, start: Position, memory_mb: int, compile_seconds: float = 0.0, how: How = COMPILED):
        self.start, self.how, self.compile_seconds = start, how, compile_seconds
        self.prob = LoneSearch(start, kernel=how.kernel, passes_cover=how.passes_cover)
        self.tables = SearchTables(key_words(start.rules), memory_mb * (1 << 20), self.prob.cover_fields(),
                                   kernel=how.kernel)
        self.status = C.RUNNING
        self.seconds = 0.0

    def nodes(self) -> int:
        return int(self.prob.stats[C.ST_NODES])

    def _call(self, budget: int, deadline: "Deadline") -> Step:
        prob, tables, kernel = self.prob, self.tables, self.how.kernel
        before = self.nodes()
        status = self.status = kernel.search(*prob.search_args(tables, budget))
        if status in (C.GROW, C.GROW_LONG):
            which = "short" if status == C.GROW else "long"
            if not deadline.affords(tables.grow_seconds(which)):
                return Step.NO_TIME
            return Step.GROWN if tables.grow(which, prob.words) else Step.NO_MEMORY
        if status in (C.SOLVED, C.EXHAUSTED):
            return Step.DONE
        return Step.NO_ROOM if self.nodes() == before else Step.GOING  # no room: the next expansion does not fit

    def run(self, limits: Limits) -> Outcome:
        """Search on within ``limits`` (their node limit counts this run's nodes); the Outcome so far."""
        t0 = time.perf_counter()
        start, prob, tables, st = self.start, self.prob, self.tables, self.prob.stats
        base = self.nodes()
        limit = drive(lambda budget: self._call(budget, limits.deadline), lambda: self.nodes() - base, limits,
                      Pace(self.how.chunk, t0=t0))
        status = C.RUNNING if limit is Limit.INTERRUPTED else self.status
        if limit is Limit.INTERRUPTED and st[C.ST_STARTED] and st[C.ST_BEST] == 4 * start.rules.ranks:
            # The kernel's last call won, and the interrupt came as it returned, so its SOLVED was lost (Numba's
            # wrapper raised instead). A win is recorded only with its line (ST_BEST reaches every card home only
            # where the kernel stops on the won child), which the solver replays as it does any solution.
            status, limit = C.SOLVED, None
        self.status = status
        self.seconds += time.perf_counter() - t0
        if self.how.keep is not None:
            self.how.keep["problem"], self.how.keep["tables"] = prob, tables
        won = status == C.SOLVED
        solution = ([int(prob.moves[k, prob.midx[k] - 1]) & C.MOVE_BITS for k in range(int(st[C.ST_SOLVED_DEPTH]))]
                    if won else [])
        return Outcome(
            won=won,
            limit=limit,
            truncated=bool(st[C.ST_TRUNCATED]),
            solution=solution,
            best_score=int(st[C.ST_BEST]) if st[C.ST_STARTED] else start.score,  # a limit of 0: never started
            best_path=[int(prob.best_path[k]) for k in range(int(st[C.ST_BEST_LEN]))],
            nodes=self.nodes(),
            max_depth=int(st[C.ST_MAXDEPTH]),
            positions=positions(st),
            seconds=self.seconds,
            decode=lambda path: decode(prob, start, path),
            stats=result_stats(st, tables, self.compile_seconds),
        )
