"""``suit-neighbours`` (GAMES §3): removals by suit in three rounds, no choices.

The deck (SPEC §2's shuffle of 52) is laid one card at a time as one line (four rows of 13 on the table).
After each card is laid the rules apply while any does, always at the leftmost place where one does,
R1 before R2 at the same place (convention):

- R1 at place ``i``: ``line[i]`` and ``line[i+1]`` of one suit: the right one (``line[i+1]``) goes;
- R2 at place ``i``: ``line[i]`` and ``line[i+2]`` of one suit: the left one (``line[i]``) goes.

The line closes up after each removal. A round ends when the last card is laid and nothing applies;
the cards left are laid again, card by card under the same rules, in the order last, first,
second-to-last, second, ... (round 2), and again (round 3). Won: exactly four cards after round 3 (no
rule ever removes a suit's last card, so never fewer). The deal alone decides it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ...engine.cards import card_name, suit_of
from ..base import GameError, names, seeded_deck

__all__ = ["NAME", "VARIANTS", "ROUNDS", "Removal", "Trace", "deal", "lay", "relay_order", "play_out", "won",
           "render"]

NAME = "suit-neighbours"
VARIANTS: tuple[str, ...] = ()
ROUNDS = 3


@dataclass(frozen=True)
class Removal:
    """One removal: the round, how many cards of the round were laid, the rule, the card removed, the
    line after it and where the card stood in the line."""

    round: int
    laid: int
    rule: str
    card: int
    line: tuple[int, ...]
    index: int = 0

    @property
    def before(self) -> tuple[int, ...]:
        """The line just before this removal."""
        return self.line[:self.index] + (self.card,) + self.line[self.index:]

    def __str__(self) -> str:
        return f"round {self.round}, card {self.laid}: {self.rule} removes {card_name(self.card)}"


@dataclass(frozen=True)
class Trace:
    """A deal played out: the line at the start of each round, the line after each round, every removal."""

    deal: tuple[int, ...]
    starts: tuple[tuple[int, ...], ...]
    ends: tuple[tuple[int, ...], ...]
    removals: tuple[Removal, ...] = field(repr=False)

    @property
    def left(self) -> tuple[int, ...]:
        return self.ends[-1]

    @property
    def won(self) -> bool:
        return len(self.left) == 4

    def to_dict(self) -> dict:
        return {"game": NAME, "deal": names(self.deal), "won": self.won,
                "rounds": [{"start": names(s), "end": names(e)} for s, e in zip(self.starts, self.ends)],
                "removals": [{"round": r.round, "laid": r.laid, "rule": r.rule, "card": card_name(r.card)}
                             for r in self.removals]}


def deal(seed: int, variant: str | None = None) -> tuple[int, ...]:
    """The line of the deal of seed N: SPEC §2's shuffled deck, in the order it is laid."""
    if variant:
        raise GameError(f"{NAME} has no variant {variant!r}")
    return tuple(seeded_deck(range(52), seed))


def _rule_at(line: list[int]) -> tuple[str, int] | None:
    """The leftmost place where a rule applies: ``(rule, index of the card it removes)``."""
    for i in range(len(line) - 1):
        if suit_of(line[i]) == suit_of(line[i + 1]):
            return "R1", i + 1
        if i + 2 < len(line) and suit_of(line[i]) == suit_of(line[i + 2]):
            return "R2", i
    return None


def lay(cards: tuple[int, ...] | list[int], round_no: int = 1, log: list[Removal] | None = None) -> list[int]:
    """One round: ``cards`` laid one at a time, the rules applied after each; the line left."""
    line: list[int] = []
    for n, c in enumerate(cards, 1):
        line.append(c)
        while (hit := _rule_at(line)) is not None:
            rule, i = hit
            card = line.pop(i)
            if log is not None:
                log.append(Removal(round_no, n, rule, card, tuple(line), i))
    return line


def relay_order(line: tuple[int, ...] | list[int]) -> list[int]:
    """The next round's order: last, first, second-to-last, second, ... («одну карту берут справа, одну
    слева»)."""
    out, lo, hi = [], 0, len(line) - 1
    while lo <= hi:
        out.append(line[hi])
        hi -= 1
        if lo <= hi:
            out.append(line[lo])
            lo += 1
    return out


def play_out(cards: tuple[int, ...]) -> Trace:
    """The whole game, three rounds."""
    if sorted(cards) != list(range(52)):
        raise GameError("a suit-neighbours deal holds each of the 52 cards once")
    log: list[Removal] = []
    starts, ends = [], []
    line = list(cards)
    for r in range(1, ROUNDS + 1):
        start = line if r == 1 else relay_order(line)
        starts.append(tuple(start))
        line = lay(start, r, log)
        ends.append(tuple(line))
    return Trace(tuple(cards), tuple(starts), tuple(ends), tuple(log))


def won(cards: tuple[int, ...]) -> bool:
    return play_out(cards).won


def render(cards: tuple[int, ...] | list[int]) -> str:
    """A line as rows of 13, as on the table."""
    n = names(cards)
    return "\n".join(" ".join(n[i:i + 13]) for i in range(0, len(n), 13))
