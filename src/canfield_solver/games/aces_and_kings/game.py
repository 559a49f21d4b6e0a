"""``aces-and-kings`` and its variant ``bisley``: the reference engine (GAMES §2).

The 52 cards of SPEC §2 (shuffled as there) with the four aces taken out, the other 48 kept in order,
are dealt row by row into 13 columns: row 1 starts at column 5 (columns 1-4 hold the aces, which are the
foundations), rows 2-4 fill all 13 (convention). So columns 1-4 hold 3 cards, columns 5-13 hold 4; a
column is a tuple from its first-dealt card to its last, the last being its free card.

Foundations: per suit an ace pile built up from the ace, and a king pile started by the suit's king and
built down; no wrap; a card never leaves a foundation. Only a column's free card moves, alone: to its
suit's ace pile (the next rank up) or king pile (the king, or the next rank down), or onto another
column's free card of the same colour (``bisley``: the same suit) whose rank is one higher or one lower.
An emptied column stays empty. Won: all 52 cards on the foundations.

Moves: ``C5>A``, ``C5>K`` (column 5's free card to its ace / king pile), ``C5>C9`` (onto column 9's).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ...engine.cards import SUITS, card_name, rank_of, suit_of
from ..base import GameError, names, seeded_deck

__all__ = ["NAME", "VARIANTS", "Position", "deal", "moves", "play", "won", "stalled", "render", "legal",
           "apply", "FOUNDATION", "ACE", "KING"]

NAME = "aces-and-kings"
VARIANTS = ("bisley",)
COLUMNS = 13
ACE, KING = -1, -2                # move targets besides a column index
FOUNDATION = {ACE: "A", KING: "K"}
_MOVE = re.compile(r"^\s*[Cc](\d+)\s*>\s*(?:([AaKk])|[Cc](\d+))\s*$")


def _red(card: int) -> bool:
    return suit_of(card) in (1, 2)


@dataclass(frozen=True)
class Position:
    """The columns; per suit (C, D, H, S) the cards on its ace pile (the ace counts) and on its king pile;
    and whether columns build in suit (``bisley``) rather than colour."""

    columns: tuple[tuple[int, ...], ...]
    up: tuple[int, int, int, int] = (1, 1, 1, 1)
    down: tuple[int, int, int, int] = (0, 0, 0, 0)
    in_suit: bool = False

    @property
    def key(self) -> tuple:
        """The position up to the order of the columns (they are interchangeable: a move names a column
        only by its free card, and an empty column takes nothing)."""
        return (tuple(sorted(c for c in self.columns if c)), self.up, self.down)

    @property
    def home(self) -> int:
        return sum(self.up) + sum(self.down)

    def to_dict(self) -> dict:
        return {"game": "bisley" if self.in_suit else NAME, "columns": [names(c) for c in self.columns],
                "ace_piles": [names(range(s * 13, s * 13 + u)) for s, u in enumerate(self.up)],
                "king_piles": [names(range(s * 13 + 12, s * 13 + 12 - d, -1)) for s, d in enumerate(self.down)]}


def deal(seed: int, variant: str | None = None) -> Position:
    if variant not in (None, NAME, *VARIANTS):
        raise GameError(f"{NAME} has no variant {variant!r} (variants: {', '.join(VARIANTS)})")
    rest = [c for c in seeded_deck(range(52), seed) if rank_of(c) != 0]
    cols: list[list[int]] = [[] for _ in range(COLUMNS)]
    slots = list(range(4, COLUMNS)) + list(range(COLUMNS)) * 3   # row 1 from column 5, then rows 2-4
    for c, col in zip(rest, slots):
        cols[col].append(c)
    return Position(tuple(tuple(c) for c in cols), in_suit=variant == "bisley")


def _fits(p: Position, card: int, target: int) -> bool:
    return target in _ONTO[p.in_suit][card]


# The cards each card may go on: one rank up or down, of its colour (index 0) or of its suit (index 1).
_ONTO = [[tuple(t for t in range(52) if t % 13 and abs(rank_of(t) - rank_of(c)) == 1
                and (suit_of(t) == suit_of(c) if in_suit else _red(t) == _red(c))) for c in range(52)]
         for in_suit in (False, True)]


def legal(p: Position) -> list[tuple[int, int]]:
    """The legal moves as ``(column, target)``: target ``ACE``, ``KING`` or a column index; foundation moves
    first, then column moves, each by column and target column."""
    home, build = [], []
    where = {c[-1]: i for i, c in enumerate(p.columns) if c}
    onto = _ONTO[p.in_suit]
    for i, col in enumerate(p.columns):
        if not col:
            continue
        card = col[-1]
        s, r = card // 13, card % 13
        if r == p.up[s]:
            home.append((i, ACE))
        if r == 12 - p.down[s]:
            home.append((i, KING))
        build.extend(sorted((i, where[t]) for t in onto[card] if t in where))
    return home + build


def format_move(m: tuple[int, int]) -> str:
    i, t = m
    return f"C{i + 1}>{FOUNDATION[t]}" if t < 0 else f"C{i + 1}>C{t + 1}"


def moves(p: Position) -> list[str]:
    return [format_move(m) for m in legal(p)]


def apply(p: Position, m: tuple[int, int]) -> Position:
    i, t = m
    cols = list(p.columns)
    card = cols[i][-1]
    cols[i] = cols[i][:-1]
    up, down = list(p.up), list(p.down)
    if t == ACE:
        up[suit_of(card)] += 1
    elif t == KING:
        down[suit_of(card)] += 1
    else:
        cols[t] = cols[t] + (card,)
    return Position(tuple(cols), tuple(up), tuple(down), p.in_suit)  # type: ignore[arg-type]


def parse_move(text: str) -> tuple[int, int]:
    m = _MOVE.match(text) if isinstance(text, str) else None
    if not m:
        raise GameError(f"not an {NAME} move: {text!r} (expected e.g. C5>A, C5>K or C5>C9)")
    i = int(m.group(1)) - 1
    t = (ACE if m.group(2).upper() == "A" else KING) if m.group(2) else int(m.group(3)) - 1
    for c in (i, *(() if m.group(2) else (t,))):
        if not 0 <= c < COLUMNS:
            raise GameError(f"{text!r}: there is no column {c + 1} (columns 1..{COLUMNS})")
    if i == t:
        raise GameError(f"{text!r} names column {i + 1} twice")
    return i, t


def play(p: Position, move: str) -> Position:
    i, t = parse_move(move)
    if not p.columns[i]:
        raise GameError(f"column {i + 1} is empty")
    card = p.columns[i][-1]
    s, r = suit_of(card), rank_of(card)
    if t == ACE and r != p.up[s]:
        raise GameError(f"{card_name(card)} does not go on its ace pile (it takes rank {p.up[s] + 1} next)")
    if t == KING and r != 12 - p.down[s]:
        need = "its king" if p.down[s] == 0 else f"rank {12 - p.down[s] + 1}"
        raise GameError(f"{card_name(card)} does not go on its king pile (it takes {need} next)")
    if t >= 0:
        if not p.columns[t]:
            raise GameError(f"column {t + 1} is empty, and an empty column takes nothing")
        target = p.columns[t][-1]
        if not _fits(p, card, target):
            how = "of its suit" if p.in_suit else "of its colour"
            raise GameError(f"{card_name(card)} goes only on a card {how} one rank higher or lower, "
                            f"not on {card_name(target)}")
    return apply(p, (i, t))


def won(p: Position) -> bool:
    return p.home == 52


def stalled(p: Position) -> bool:
    """Not won, and no sequence of column moves reaches a position where a card can go home (GAMES §2:
    progress is a card to a foundation). Decided by searching the column moves alone."""
    if won(p):
        return False
    seen = {p.key}
    todo = [p]
    while todo:
        q = todo.pop()
        ms = legal(q)
        if any(t < 0 for _, t in ms):
            return False
        for m in ms:
            r = apply(q, m)
            if r.key not in seen:
                seen.add(r.key)
                todo.append(r)
    return True


def render(p: Position) -> str:
    head = "  ".join(f"{'A' + SUITS[s]}:{p.up[s]:<2}K:{p.down[s]:<2}" for s in range(4))
    depth = max((len(c) for c in p.columns), default=0)
    lines = [head, "  ".join(f"C{i + 1:<2}" for i in range(COLUMNS))]
    for r in range(depth):
        lines.append("  ".join(card_name(c[r]) + " " if r < len(c) else "   " for c in p.columns).rstrip())
    return "\n".join(lines)


def cards_moved(p: Position, move: str) -> list[int]:
    """The card ``move`` moves (a column's free card), for printed steps."""
    return [p.columns[parse_move(move)[0]][-1]]
