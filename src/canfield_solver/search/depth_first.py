"""One thread's depth-first search of a position: ``kernel._search`` run in chunks of nodes, the tables grown
between chunks, the limits checked between chunks. ``solver.solve`` calls it for ``workers=1``."""

from __future__ import annotations

import time
from typing import Callable

from ..engine.game import Position
from . import codec as C
from . import kernel as K
from .outcome import Outcome
from .problem import _key_words, _Problem, _Tables, decode, positions, result_stats

CHUNK_NODES = 1 << 17  # nodes between two looks at the clock, the node limit and the progress callback


def search(start: Position, max_nodes: int | None, max_seconds: float | None, max_memory_mb: int,
           progress: Callable[[int, float], None] | None, compile_seconds: float, keep: dict | None = None) -> Outcome:
    """Search ``start`` until it is won, exhausted, or a limit (or Ctrl-C) stops it.

    ``keep``, for measurements (benchmarks/layer_census.py): a dict that receives the search's arrays
    (``"problem"``) and its final tables (``"tables"``).
    """
    t0 = time.perf_counter()
    prob = _Problem(start)
    tables = _Tables(_key_words(start.rules), max_memory_mb * (1 << 20), prob.cover_fields())
    limit: str | None = None
    status = C.RUNNING
    st = prob.stats
    try:
        while True:
            budget = CHUNK_NODES
            if max_nodes is not None:
                budget = min(budget, max_nodes - int(st[C.ST_NODES]))
                if budget <= 0:
                    limit = "nodes"
                    break
            nodes_before = int(st[C.ST_NODES])
            status = K._search(*prob.search_args(tables, budget))
            if status in (C.GROW, C.GROW_LONG):
                if not tables.grow("short" if status == C.GROW else "long", prob.words):
                    limit = "memory"
                    break
                continue
            if status in (C.SOLVED, C.EXHAUSTED):
                break
            if int(st[C.ST_NODES]) == nodes_before:  # the next expansion does not fit the node limit
                limit = "nodes"
                break
            elapsed = time.perf_counter() - t0
            if progress is not None:
                progress(int(st[C.ST_NODES]), elapsed)
            if max_seconds is not None and elapsed >= max_seconds:
                limit = "seconds"
                break
    except KeyboardInterrupt:
        limit = "interrupted"
        status = C.RUNNING
    seconds = time.perf_counter() - t0
    if keep is not None:
        keep["problem"], keep["tables"] = prob, tables
    won = status == C.SOLVED
    solution = ([int(prob.moves[k, prob.midx[k] - 1]) & C.MOVE_BITS for k in range(int(st[C.ST_SOLVED_DEPTH]))]
                if won else [])
    return Outcome(
        won=won,
        limit=limit,
        truncated=bool(st[C.ST_TRUNCATED]),
        solution=solution,
        best_score=int(st[C.ST_BEST]),
        best_path=[int(prob.best_path[k]) for k in range(int(st[C.ST_BEST_LEN]))],
        nodes=int(st[C.ST_NODES]),
        max_depth=int(st[C.ST_MAXDEPTH]),
        positions=positions(st),
        seconds=seconds,
        decode=lambda path: decode(prob, start, path),
        stats=result_stats(st, tables, compile_seconds),
    )
