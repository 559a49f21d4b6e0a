"""Move lists a person can follow with real cards, and what a played log shows.

``steps`` replays SPEC §4 moves on the reference engine and turns them into
numbered steps: a run of draws is one step (``draw ×3 → waste 7♥``), each
redeal starts a new pass through the stock, and every other move names the
cards it moves (``W>F 7♥``, ``T2>T4 5♠ on 6♦``), so a player who turned up a
different card notices at once. ``format_steps`` prints them;
``formats.movelog.parse_steps`` (also here) reads that printed text back into
SPEC moves (it is how the tests prove the printout replays to the same position).

``review`` reads a played log: where the last progress move was (SPEC §3: a
card to a foundation, or a card taken from the reserve or the waste), how
many passes through the stock have gone by since, and whether a position
came round again with no progress move in between.

Only the rules engine is used here; nothing imports the solver.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from ..engine.cards import RANKS, rank_of, suit_of
from ..engine.deal import Deal
from ..engine.moves import Move, parse_move
from ..engine.position import Position, move_list
from ..formats.movelog import looks_like_steps, parse_steps

__all__ = ["Step", "LogReview", "pretty_card", "steps", "format_steps", "pass_headings", "parse_steps", "looks_like_steps", "review"]

SUIT_SYMBOLS = "♣♦♥♠"  # C D H S, the order of cards.SUITS


def pretty_card(card: int) -> str:
    """A card as a player writes it: ``10♥``, ``Q♠``, ``A♣``."""
    rank = RANKS[rank_of(card)]
    return ("10" if rank == "T" else rank) + SUIT_SYMBOLS[suit_of(card)]


@dataclass(frozen=True)
class Step:
    """One printed step: one move, or a run of draws.

    ``moves`` are the SPEC §4 moves the step stands for, ``text`` what is
    printed, ``pass_number`` the pass through the stock it belongs to (1 for
    the first), ``progress`` whether it is a progress move (SPEC §3).
    """

    number: int
    moves: tuple[str, ...]
    text: str
    pass_number: int
    progress: bool


def _start(deal_or_position: "Deal | Position | int") -> Position:
    if isinstance(deal_or_position, Position):
        return deal_or_position.copy()
    return Position(deal_or_position)  # a Deal or a seed number (engine.deal.as_deal), else DealError


def _run(cards: Sequence[int]) -> str:
    if len(cards) == 1:
        return pretty_card(cards[0])
    return f"{pretty_card(cards[0])}..{pretty_card(cards[-1])} ({len(cards)} cards)"


def _describe(before: Position, m: Move, after: Position) -> str:
    """The text of one move that is not a draw or a redeal."""
    if m.src == "W":
        cards = [before.waste[-1]]
    elif m.src == "R":
        cards = [before.reserve[-1]]
    else:
        col = before.tableau[m.src_col - 1]
        cards = col[-(len(col) if m.count is None else m.count):]
    text = f"{m} {_run(cards)}"
    if m.dst == "T":
        dst = before.tableau[m.dst_col - 1]
        text += f" on {pretty_card(dst[-1])}" if dst else " into the gap"
    # A column the move emptied is filled at once from the reserve (SPEC §3 Gaps): say with what.
    for i, (b, a) in enumerate(zip(before.tableau, after.tableau)):
        expect = list(b)
        if m.src == "T" and i == m.src_col - 1:
            expect = expect[: len(expect) - len(cards)]
        if m.dst == "T" and i == m.dst_col - 1:
            expect = expect + list(cards)
        if a != expect:
            text += f"; reserve {_run(a[len(expect):])} fills T{i + 1}"
    return text


def steps(deal_or_position: "Deal | Position", moves: Sequence["str | Move"]) -> list[Step]:
    """Replay ``moves`` and group them into numbered steps (see the module docstring).

    Raises ``IllegalMoveError``/``MoveError`` at the first illegal or
    malformed move, as ``Position.play`` does.
    """
    pos = _start(deal_or_position)
    out: list[Step] = []
    draws: list[str] = []
    pass_number = pos.redeals_used + 1

    def flush() -> None:
        if not draws:
            return
        n = len(draws)
        top = f"waste {pretty_card(pos.waste[-1])}" if pos.waste else "waste empty"
        tail = "; stock empty" if not pos.stock else ""
        text = f"draw ×{n} → {top}{tail}" if n > 1 else f"draw → {top}{tail}"
        out.append(Step(len(out) + 1, tuple(draws), text, pass_number, False))
        draws.clear()

    for raw in move_list(moves):
        m = parse_move(raw)
        if m.src == "draw":
            pos.play(m)
            draws.append("draw")
            continue
        flush()
        if m.src == "redeal":
            pos.play(m)
            pass_number += 1
            out.append(Step(len(out) + 1, ("redeal",), f"redeal → pass {pass_number}", pass_number, False))
            continue
        before = pos.copy()
        pos.play(m)
        out.append(Step(len(out) + 1, (str(m),), _describe(before, m, pos), pass_number,
                        Position.is_progress(before, m, pos)))
    flush()
    return out


def pass_headings(all_steps: Sequence[Step]) -> list[int | None]:
    """Where each pass through the stock starts: ``heads[i]`` is the pass whose heading goes before step
    ``i`` (``heads[len(all_steps)]``: after the last step), or None. Shared by the printout and the page."""
    heads: list[int | None] = [None] * (len(all_steps) + 1)
    for i, s in enumerate(all_steps):
        if i == 0 and s.moves != ("redeal",):
            heads[0] = s.pass_number
        if s.moves == ("redeal",):
            heads[i + 1] = s.pass_number
    return heads


def format_steps(all_steps: Sequence[Step], *, passes: bool = True) -> str:
    """Numbered lines, one per step, with a ``pass N`` heading where each pass through the stock starts."""
    lines: list[str] = []
    width = len(str(len(all_steps))) if all_steps else 1
    heads = pass_headings(all_steps) if passes else [None] * (len(all_steps) + 1)
    for s, head in zip(all_steps, heads):
        if head is not None:
            lines.append(f"-- pass {head} --")
        lines.append(f"{s.number:>{width}}. {s.text}")
    if heads[-1] is not None:
        lines.append(f"-- pass {heads[-1]} --")
    return "\n".join(lines)


@dataclass(frozen=True)
class LogReview:
    """What a played log shows, before any search (``review``).

    last_progress
        1-based number of the last progress move (SPEC §3), or 0 if none.
    passes_since_progress
        Redeals played since that move: each is one more full pass through the stock.
    repeat
        ``(i, j)``: the position after move ``j`` is the one after move ``i``
        (0: the start) with no progress move between, so moves ``i+1..j``
        went round in a circle; None if nothing repeated since the last
        progress move.
    """

    moves: int
    last_progress: int
    passes_since_progress: int
    repeat: tuple[int, int] | None

    def lines(self) -> list[str]:
        out = []
        if self.last_progress:
            out.append(f"last progress move: move {self.last_progress} of {self.moves}")
        else:
            out.append(f"last progress move: none yet ({self.moves} move{'' if self.moves == 1 else 's'} played, "
                       f"none of them progress)" if self.moves else "last progress move: none (no move played)")
        out.append(f"passes through the stock since: {self.passes_since_progress}")
        if self.repeat:
            i, j = self.repeat
            after = "the start" if i == 0 else f"move {i}"
            out.append(f"repeating: the position after move {j} is the one after {after}, "
                       f"with no progress move between")
        else:
            out.append("repeating: no")
        return out


def review(deal_or_position: "Deal | Position", moves: Sequence["str | Move"]) -> LogReview:
    """Read a legal log (raises at the first illegal move, like ``steps``)."""
    pos = _start(deal_or_position)
    last = 0
    passes = 0
    seen: dict[tuple[object, ...], int] = {pos.key(): 0}
    repeat: tuple[int, int] | None = None
    for i, raw in enumerate(move_list(moves), 1):
        m = parse_move(raw)
        before = pos.copy() if m.src not in ("draw", "redeal") else None
        pos.play(m)
        if before is not None and Position.is_progress(before, m, pos):
            last, passes, seen, repeat = i, 0, {}, None
        elif m.src == "redeal":
            passes += 1
        k = pos.key()
        if k in seen:
            if repeat is None:
                repeat = (seen[k], i)
        else:
            seen[k] = i
    return LogReview(len(moves), last, passes, repeat)
