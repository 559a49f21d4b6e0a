"""What a search driver hands back to ``solver.solve``: plain Python values, no verdict yet.

``solver.solve`` is the one place that turns an ``Outcome`` into a verdict
and a ``SolveResult`` (after replaying its lines on the reference engine),
whichever search built it: ``depth_first`` (one thread), ``parallel`` (several), ``layered.driver`` (the
layered proof) or ``portfolio`` (a search of the schedule before the exact one decided).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from ..budget import Limit


@dataclass(frozen=True)
class Outcome:
    """How one search ended.

    won
        The search reached a won position; ``solution`` is the kernel's path to it.
    limit
        What stopped the search before it ended (nodes, seconds, memory,
        interrupted), or None when it ran to its end.
    truncated
        Some line was cut at the depth cap, so an exhausted search proves nothing.
    best_score, best_path
        The most cards home in any position reached, and the kernel's path there.
    decode
        Kernel paths to SPEC §4 moves (``arrays.decode`` on this search's deal).
    """

    won: bool
    limit: Limit | None
    truncated: bool
    solution: list[int]
    best_score: int
    best_path: list[int]
    nodes: int
    max_depth: int
    positions: int
    seconds: float
    decode: Callable[[list[int]], list[str]]
    stats: dict = field(default_factory=dict)
