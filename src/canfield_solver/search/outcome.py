"""What every search hands back: plain Python values, no verdict yet.

One shape for all of them: the exact search (``depth_first``, one thread; ``parallel``, several), the
layered proof (``layered.driver``), the searches of the schedule before the exact one (``playout``'s nested
searches, ``adapt``, ``beam``, ``ranks``' two searches over classes) and the schedule itself (``portfolio``,
when one of those decided). ``solver.solve`` is the one place that turns an ``Outcome`` into a verdict and a
``SolveResult`` (after replaying its lines on the reference engine).

A loss rests on one reading, the same for every search: ``proved_lost``, a search that ran to its end (no
``limit``) without a win and without ``truncated``. A search that cannot prove a loss (playouts, beams, the
moves under a key of ranks, an abstract win) says ``truncated`` whenever it ends without a win.
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
        Some line was cut at the depth cap, or the search is one that never proves a loss: an ended search
        proves nothing.
    best_score, best_path
        The most cards home in any position reached, and the kernel's path there.
    nodes, max_depth, positions
        What the search counted: nodes (a playout's or a beam's steps, an abstract position expanded), the
        deepest line, and the positions it held (its table's rows; the playouts played, the beams' kept).
    decode
        Kernel paths to SPEC §4 moves (``arrays.decode`` on this search's deal).
    stats
        The search's own figures (``rounds``: the searches of a playout or beam phase; ``ended``: how a
        search that proves nothing ended, ``"rounds"`` or an abstract ``"won"``).
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

    @property
    def proved_lost(self) -> bool:
        """The search ran to its end without a win, and it is one whose end proves the deal lost."""
        return not self.won and self.limit is None and not self.truncated

    @property
    def ended(self) -> str:
        """A word for how it ended: ``won``, the limit's name, ``exhausted``, or the search's own (``stats``)."""
        if self.won:
            return "won"
        if self.limit is not None:
            return str(self.limit)
        return self.stats.get("ended", "exhausted")
