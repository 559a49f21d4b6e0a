"""``ten-columns``: the reference engine (GAMES §4). 52 cards in five rows of ten, two more placed by
the player, pairs of free cards removed.

``deck[0..49]`` (SPEC §2's shuffle) are dealt in five rows of ten, left to right, so column ``c`` holds
``deck[c], deck[10+c], ..., deck[40+c]`` top to bottom of the layout; its last card is free. The player's
first move places ``deck[50]`` and ``deck[51]`` under two different columns as a sixth row (``place 1 7``:
``deck[50]`` under column 1, ``deck[51]`` under column 7). Then a move removes two free cards of one rank
(``C3+C8``); the card above each becomes free. Variant ``ten-columns-dealt``: row 6 is dealt on,
``deck[50]`` under column 1 and ``deck[51]`` under column 2, so there is no placement move.

A column is a tuple from its first-dealt card to its free card (the last).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ...engine.cards import card_name, rank_of
from ..base import GameError, names, seeded_deck

__all__ = ["NAME", "VARIANTS", "Position", "deal", "moves", "play", "won", "stalled", "render", "placements",
           "pairs", "place", "remove"]

NAME = "ten-columns"
VARIANTS = ("ten-columns-dealt",)
COLUMNS = 10
_PLACE = re.compile(r"^\s*place\s+(\d+)\s+(\d+)\s*$", re.IGNORECASE)
_PAIR = re.compile(r"^\s*[Cc](\d+)\s*\+\s*[Cc](\d+)\s*$")


@dataclass(frozen=True)
class Position:
    """The columns, and the two cards still to place (empty once placed)."""

    columns: tuple[tuple[int, ...], ...]
    to_place: tuple[int, ...] = ()

    @property
    def key(self) -> tuple:
        return (self.columns, self.to_place)

    def to_dict(self) -> dict:
        return {"game": NAME, "columns": [names(c) for c in self.columns], "to_place": names(self.to_place)}


def deal(seed: int, variant: str | None = None) -> Position:
    if variant not in (None, NAME, *VARIANTS):
        raise GameError(f"{NAME} has no variant {variant!r} (variants: {', '.join(VARIANTS)})")
    d = seeded_deck(range(52), seed)
    cols = [tuple(d[r * 10 + c] for r in range(5)) for c in range(COLUMNS)]
    if variant == "ten-columns-dealt":
        cols[0] += (d[50],)
        cols[1] += (d[51],)
        return Position(tuple(cols))
    return Position(tuple(cols), (d[50], d[51]))


def placements(p: Position) -> list[tuple[int, int]]:
    """The 90 placements ``(a, b)`` (0-based columns, ``a != b``) while the two cards wait, else none."""
    if not p.to_place:
        return []
    return [(a, b) for a in range(COLUMNS) for b in range(COLUMNS) if a != b]


def pairs(p: Position) -> list[tuple[int, int]]:
    """The removals as column pairs ``(a, b)``, ``a < b``, once the two cards are placed."""
    if p.to_place:
        return []
    free = [(c, rank_of(col[-1])) for c, col in enumerate(p.columns) if col]
    return [(a, b) for i, (a, ra) in enumerate(free) for b, rb in free[i + 1:] if ra == rb]


def place(p: Position, a: int, b: int) -> Position:
    cols = list(p.columns)
    cols[a] += (p.to_place[0],)
    cols[b] += (p.to_place[1],)
    return Position(tuple(cols))


def remove(p: Position, a: int, b: int) -> Position:
    cols = list(p.columns)
    cols[a] = cols[a][:-1]
    cols[b] = cols[b][:-1]
    return Position(tuple(cols))


def moves(p: Position) -> list[str]:
    if p.to_place:
        return [f"place {a + 1} {b + 1}" for a, b in placements(p)]
    return [f"C{a + 1}+C{b + 1}" for a, b in pairs(p)]


def _column(text: str, move: str) -> int:
    c = int(text)
    if not 1 <= c <= COLUMNS:
        raise GameError(f"{move!r}: there is no column {c} (columns 1..{COLUMNS})")
    return c - 1


def play(p: Position, move: str) -> Position:
    if not isinstance(move, str):
        raise GameError(f"a move must be text, not {move!r}")
    m = _PLACE.match(move)
    if m:
        if not p.to_place:
            raise GameError("the last two cards are already placed")
        a, b = _column(m.group(1), move), _column(m.group(2), move)
        if a == b:
            raise GameError("the last two cards go under two different columns")
        return place(p, a, b)
    m = _PAIR.match(move)
    if not m:
        raise GameError(f"not a {NAME} move: {move!r} (expected 'place 1 7' or 'C3+C8')")
    if p.to_place:
        raise GameError("the first move places the last two cards ('place A B')")
    a, b = _column(m.group(1), move), _column(m.group(2), move)
    if a == b:
        raise GameError(f"{move!r} names column {a + 1} twice")
    for c in (a, b):
        if not p.columns[c]:
            raise GameError(f"column {c + 1} is empty")
    ca, cb = p.columns[a][-1], p.columns[b][-1]
    if rank_of(ca) != rank_of(cb):
        raise GameError(f"{card_name(ca)} and {card_name(cb)} are not of one rank")
    return remove(p, min(a, b), max(a, b))


def won(p: Position) -> bool:
    return not p.to_place and not any(p.columns)


def stalled(p: Position) -> bool:
    """Placed, cards remain, and no two free cards share a rank."""
    return not p.to_place and not won(p) and not pairs(p)


def render(p: Position) -> str:
    depth = max((len(c) for c in p.columns), default=0)
    lines = ["  ".join(f"C{c + 1:<2}" for c in range(COLUMNS))]
    for r in range(depth):
        lines.append("  ".join(card_name(col[r]) + " " if r < len(col) else "   " for col in p.columns).rstrip())
    if p.to_place:
        lines.append("to place: " + " ".join(names(p.to_place)))
    return "\n".join(lines)


def cards_moved(p: Position, move: str) -> list[int]:
    """The cards ``move`` places or removes, for printed steps."""
    if _PLACE.match(move):
        return list(p.to_place)
    m = _PAIR.match(move)
    if not m:
        raise GameError(f"not a {NAME} move: {move!r} (expected 'place 1 7' or 'C3+C8')")
    return [p.columns[_column(g, move)][-1] for g in m.groups()]
