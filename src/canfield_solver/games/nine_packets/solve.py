"""``nine-packets``: the solver (best play with every card known) and the page's advice played as a policy.

The game only removes cards, so no position repeats: a depth-first search that remembers the packets'
heights of every position it has proven lost (``base.search_removals``) decides every deal exactly; the
positions are at most 5^9 height vectors, and a deal reaches a few thousand of them.
"""

from __future__ import annotations

from ...solver import Verdict
from ..base import GameResult, Limits, old_memory_name, replay, search_removals
from . import game as G

__all__ = ["play_advice", "search_python", "solve"]


def _children(p: G.Position):
    legal = G.pairs(p)
    # The advice's order first: pairs with face-down cards beneath tend to open more.
    legal.sort(key=lambda ab: (-sum(len(p.packets[k]) > 1 for k in ab), ab))
    for a, b in legal:
        yield G.format_move(a, b), G.apply(p, a, b)


def search_python(p: G.Position, *, max_nodes: int | None = None, max_seconds: float | None = None,
                  seed: int | None = None) -> GameResult:
    """The search in plain Python over ``game.Position`` values: the reference the compiled one
    (``solve``) is tested against, node for node."""
    lim = Limits(max_nodes, max_seconds)
    verdict, line = search_removals(p, _children, G.won, lambda q: q.key, lim)
    return GameResult(G.NAME, verdict, tuple(line), lim.nodes, lim.seconds, lim.hit, seed)


@old_memory_name
def solve(p: G.Position, *, max_nodes: int | None = None, max_seconds: float | None = None,
          max_memory_mb: int | None = None, seed: int | None = None) -> GameResult:
    """Won with a move list (replayed by the reference engine), lost after an exhaustive search, or unknown
    when a limit stops it. The compiled search (``games.pairs_kernel``), the same as ``search_python``
    node for node: at most 5^9 positions, so ``max_memory_mb`` never binds (it is taken for the games'
    common signature)."""
    import numpy as np

    from .. import pairs_kernel as PK

    h = np.array([len(pk) for pk in p.packets], np.int64)
    if PK.key_bits(h, h) is None:   # packets taller than a deal's (a constructed position): plain Python
        return search_python(p, max_nodes=max_nodes, max_seconds=max_seconds, seed=seed)
    PK.warm()
    lim = Limits(max_nodes, max_seconds)
    ranks = np.zeros((G.PACKETS, max(int(h.max()), 1)), np.int64)
    for k, pk in enumerate(p.packets):
        ranks[k, :len(pk)] = [c % 13 for c in pk]
    verdict, pairs = PK.run(ranks, h, lim, 1, PK.LostTable())
    line = [G.format_move(a, b) for a, b in pairs]
    if verdict is Verdict.SOLVED and not G.won(replay(G.play, p, line)):
        raise AssertionError("nine-packets: a winning line that does not replay")  # a solver bug, never input
    return GameResult(G.NAME, verdict, tuple(line), lim.nodes, lim.seconds, lim.hit, seed)


@old_memory_name
def study(p: G.Position, *, max_nodes: int | None = None, max_seconds: float | None = None,
          max_memory_mb: int | None = None, seed: int | None = None) -> tuple[GameResult, dict]:
    """A study's row: the solver's result, and whether the page's advice wins (``advice_won``)."""
    r = solve(p, max_nodes=max_nodes, max_seconds=max_seconds, max_memory_mb=max_memory_mb, seed=seed)
    return r, {"advice_won": play_advice(p)[0]}


def play_advice(p: G.Position) -> tuple[bool, list[str]]:
    """The page's advice played to the end (``game.advice_move``): whether it wins, and its moves."""
    line: list[str] = []
    while True:
        ab = G.advice_move(p)
        if ab is None:
            return G.won(p), line
        line.append(G.format_move(*ab))
        p = G.apply(p, *ab)
