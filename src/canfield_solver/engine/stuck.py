"""The stuck-card rule (SOLVER-NOTES §2) as written, in plain Python: the reference the kernel's
closure is tested against, and what benchmarks use to say which positions that test already cuts.

A set S of tableau cards is stuck when every card in it has a lower card of its own suit, not yet on
its foundation, that lies in S or under a card of S, and every host it could be built on is either
on its foundation or under a card of S. The greatest such set is the fixed point reached by peeling
cards from the whole tableau; a non-empty one means the position is lost.
"""

from __future__ import annotations

from .position import Position


def stuck_cards(pos: Position) -> frozenset[int]:
    """The greatest set of tableau cards (card numbers) that can never move; empty when none is stuck."""
    r = pos.rules

    def rel(c: int) -> int:
        return (c % 13 - pos.base_rank) % r.ranks

    def home(c: int) -> bool:
        return rel(c) < pos.foundations[c // 13]

    hosts = {c: [h for h in r.deck if r.fits_tableau(pos.base_rank, c, h)] for col in pos.tableau for c in col}
    tableau = [c for col in pos.tableau for c in col]
    s = set(tableau)
    while True:
        under = {col[j] for col in pos.tableau for i in range(len(col)) if col[i] in s for j in range(i)}
        keep = {y for y in s
                if any(x // 13 == y // 13 and rel(x) < rel(y) and not home(x) and (x in s or x in under)
                       for x in tableau)
                and all(home(h) or h in under for h in hosts[y])}
        if keep == s:
            return frozenset(s)
        s = keep
