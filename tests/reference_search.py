"""An exhaustive plain-Python search over the reference engine: the slow, obvious oracle."""

from __future__ import annotations

from canfield_solver import Deal, Position


def exhaustive_winnable(deal: Deal, max_states: int = 2_000_000) -> bool:
    """True iff some sequence of legal moves (draws and redeals included) wins.

    Depth-first over every legal move with a visited set of full positions;
    no pruning and no shortcuts, so it is right by construction.
    """
    start = Position(deal)

    def key(p: Position) -> tuple:
        # Columns are interchangeable: positions that differ only in their
        # order are the same game, so sort them in the visited key.
        k = p.key()
        return (k[0], tuple(sorted(k[1])), *k[2:])

    if start.is_won():
        return True
    seen = {key(start)}
    stack = [start]
    while stack:
        pos = stack.pop()
        for m in pos.legal_moves():
            nxt = pos.copy()
            nxt.play(m)
            if nxt.is_won():
                return True
            k = key(nxt)
            if k not in seen:
                seen.add(k)
                if len(seen) > max_states:
                    raise RuntimeError("reference search too large for a test")
                stack.append(nxt)
    return False
