"""``aces-and-kings`` / ``bisley``: the solver, a depth-first graph search.

Column moves can be undone (a card goes back where it came from when the card it uncovered fits it), so
positions repeat: the search keeps every position it has reached, by the canonical key of
``game.Position.key`` (the 13 columns are interchangeable, so a position is its multiset of non-empty
columns and its foundations), and never expands one twice. That is complete: a win reachable from a
position already reached is searched from its first visit. Foundation moves are tried first; no move is
pruned as "safe" (none is used, so none needs an argument). A limit ends the search with ``unknown``.
"""

from __future__ import annotations

from ...solver import Verdict
from ..base import GameResult, Limits, replay
from . import game as G

__all__ = ["solve"]


def solve(p: G.Position, *, max_nodes: int | None = None, max_seconds: float | None = None,
          seed: int | None = None) -> GameResult:
    lim = Limits(max_nodes, max_seconds)
    seen = {p.key}
    stack = [(p, iter(G.legal(p)))]
    line: list[tuple[int, int]] = []
    verdict = Verdict.UNSOLVABLE
    if G.won(p):
        verdict = Verdict.SOLVED
    while stack and verdict is not Verdict.SOLVED:
        q, it = stack[-1]
        m = next(it, None)
        if m is None:
            stack.pop()
            if line:
                line.pop()
            continue
        r = G.apply(q, m)
        k = r.key
        if k in seen:
            continue
        if lim.spend():
            verdict = Verdict.UNKNOWN
            break
        seen.add(k)
        line.append(m)
        if G.won(r):
            verdict = Verdict.SOLVED
            break
        stack.append((r, iter(G.legal(r))))
    moves = tuple(G.format_move(m) for m in line) if verdict is Verdict.SOLVED else ()
    if verdict is Verdict.SOLVED and not G.won(replay(G.play, p, moves)):
        raise AssertionError("aces-and-kings: a winning line that does not replay")
    name = "bisley" if p.in_suit else G.NAME
    return GameResult(name, verdict, moves, lim.nodes, lim.seconds, lim.hit, seed, {"positions": len(seen)})
