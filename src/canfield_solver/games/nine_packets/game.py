"""``nine-packets``: the reference engine (GAMES §1). 36 cards, nine packets of four, pairs removed.

Cards are SPEC card ids; the deck is the 36 cards of ranks A, 6..K in increasing id (convention), shuffled
as SPEC §2 over 36 cards. ``deck[i]`` goes to packet ``i mod 9``, later cards on top (convention), so a
packet is ``deck[k], deck[k+9], deck[k+18], deck[k+27]`` bottom to top, and ``deck[27..35]`` are the nine
face-up tops. A move removes the face-up tops of two packets of one rank (``P3+P7``, packets 1..9); the
card beneath each turns face up; an emptied packet stays empty.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ...engine.cards import RANKS, card_name, rank_of
from ..base import GameError, names, seeded_deck

__all__ = ["NAME", "VARIANTS", "DECK", "Position", "deal", "moves", "play", "won", "stalled", "render",
           "parse_move", "format_move", "pairs", "advice_move"]

NAME = "nine-packets"
VARIANTS: tuple[str, ...] = ()
PACKETS = 9
DECK = tuple(s * 13 + r for s in range(4) for r in (0, 5, 6, 7, 8, 9, 10, 11, 12))
_MOVE = re.compile(r"^\s*[Pp]([1-9])\s*\+\s*[Pp]([1-9])\s*$")


@dataclass(frozen=True)
class Position:
    """Nine packets, each bottom to top (the last card is the face-up top)."""

    packets: tuple[tuple[int, ...], ...]

    @property
    def key(self) -> tuple[int, ...]:
        """The packets' heights: with the deal known, they are the whole position."""
        return tuple(len(p) for p in self.packets)

    def to_dict(self) -> dict:
        return {"game": NAME, "packets": [names(p) for p in self.packets]}


def deal(seed: int, variant: str | None = None) -> Position:
    if variant:
        raise GameError(f"{NAME} has no variant {variant!r}")
    d = seeded_deck(DECK, seed)
    return Position(tuple(tuple(d[k + 9 * i] for i in range(4)) for k in range(PACKETS)))


def pairs(p: Position) -> list[tuple[int, int]]:
    """The legal moves as packet index pairs ``(a, b)``, ``a < b`` (0-based), in increasing order."""
    tops = [(k, rank_of(pk[-1])) for k, pk in enumerate(p.packets) if pk]
    return [(a, b) for i, (a, ra) in enumerate(tops) for b, rb in tops[i + 1:] if ra == rb]


def format_move(a: int, b: int) -> str:
    a, b = sorted((a, b))
    return f"P{a + 1}+P{b + 1}"


def parse_move(text: str) -> tuple[int, int]:
    m = _MOVE.match(text) if isinstance(text, str) else None
    if not m:
        raise GameError(f"not a {NAME} move: {text!r} (expected e.g. P3+P7, packets 1..9)")
    a, b = int(m.group(1)) - 1, int(m.group(2)) - 1
    if a == b:
        raise GameError(f"{text!r} names packet {a + 1} twice")
    return min(a, b), max(a, b)


def moves(p: Position) -> list[str]:
    return [format_move(a, b) for a, b in pairs(p)]


def apply(p: Position, a: int, b: int) -> Position:
    packets = list(p.packets)
    packets[a] = packets[a][:-1]
    packets[b] = packets[b][:-1]
    return Position(tuple(packets))


def play(p: Position, move: str) -> Position:
    a, b = parse_move(move)
    for k in (a, b):
        if not p.packets[k]:
            raise GameError(f"packet {k + 1} is empty")
    ca, cb = p.packets[a][-1], p.packets[b][-1]
    if rank_of(ca) != rank_of(cb):
        raise GameError(f"{card_name(ca)} and {card_name(cb)} are not of one rank")
    return apply(p, a, b)


def won(p: Position) -> bool:
    return not any(p.packets)


def stalled(p: Position) -> bool:
    """Cards remain and no two face-up cards share a rank."""
    return not won(p) and not pairs(p)


def advice_move(p: Position) -> tuple[int, int] | None:
    """The page's advice as a player who sees only the tops: take the pair whose cards have face-down cards
    beneath («выгоднее удалять те открытые карты, под которыми еще остаются закрытые»): the most such
    cards of the two first (convention: 2, then 1, then 0), ties broken by the lowest packet numbers."""
    legal = pairs(p)
    if not legal:
        return None
    return max(legal, key=lambda ab: (sum(len(p.packets[k]) > 1 for k in ab), -ab[0], -ab[1]))


def render(p: Position) -> str:
    """Packets as the page's pyramid of rows 1, 3, 5 (display only): the top card, and ``+n`` face down."""
    cells = [f"P{k + 1}:{card_name(pk[-1])}+{len(pk) - 1}" if pk else f"P{k + 1}:--  " for k, pk in
             enumerate(p.packets)]
    rows = [cells[0:1], cells[1:4], cells[4:9]]
    width = len("  ".join(rows[2]))
    return "\n".join("  ".join(r).center(width).rstrip() for r in rows)


_ = RANKS


def cards_moved(p: Position, move: str) -> list[int]:
    """The cards ``move`` takes away (the two face-up tops), for printed steps."""
    a, b = parse_move(move)
    return [p.packets[a][-1], p.packets[b][-1]]
