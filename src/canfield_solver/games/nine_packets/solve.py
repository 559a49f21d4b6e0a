"""``nine-packets``: the solver (best play with every card known) and the page's advice played as a policy.

The game only removes cards, so no position repeats: a depth-first search that remembers the packets'
heights of every position it has proven lost (``base.search_removals``) decides every deal exactly; the
positions are at most 5^9 height vectors, and a deal reaches a few thousand of them.
"""

from __future__ import annotations

from ...solver import Verdict
from ..base import GameResult, Limits, replay, search_removals
from . import game as G

__all__ = ["solve", "play_advice"]


def _children(p: G.Position):
    legal = G.pairs(p)
    # The advice's order first: pairs with face-down cards beneath tend to open more.
    legal.sort(key=lambda ab: (-sum(len(p.packets[k]) > 1 for k in ab), ab))
    for a, b in legal:
        yield G.format_move(a, b), G.apply(p, a, b)


def solve(p: G.Position, *, max_nodes: int | None = None, max_seconds: float | None = None,
          seed: int | None = None) -> GameResult:
    """Won with a move list (replayed by the reference engine), lost after an exhaustive search, or unknown
    when a limit stops it."""
    lim = Limits(max_nodes, max_seconds)
    verdict, line = search_removals(p, _children, G.won, lambda q: q.key, lim)
    if verdict is Verdict.SOLVED and not G.won(replay(G.play, p, line)):
        raise AssertionError("nine-packets: a winning line that does not replay")  # a solver bug, never input
    return GameResult(G.NAME, verdict, tuple(line), lim.nodes, lim.seconds, lim.hit, seed)


def play_advice(p: G.Position) -> tuple[bool, list[str]]:
    """The page's advice played to the end (``game.advice_move``): whether it wins, and its moves."""
    line = []
    while True:
        ab = G.advice_move(p)
        if ab is None:
            return G.won(p), line
        line.append(G.format_move(*ab))
        p = G.apply(p, *ab)
