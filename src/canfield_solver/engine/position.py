"""The plain-Python reference engine: Canfield played exactly by the rules.

This module is the referee. It is written to be obviously right, not fast:
every solution the fast solver returns is replayed here before anyone sees it.

The rules, as SPEC §3 states them for the strict profile (other presets
change them through ``Rules`` parameters):

* Foundations build up in suit from the base rank, wrapping K→A, 13 cards each.
* Columns build down (alternating colour in the strict profile), wrapping
  A→K. The top card of a column may move to a fitting non-empty column or to
  its foundation; a whole column may move onto a fitting non-empty column.
* An empty column is filled at once from the reserve top, before any other
  move. Once the reserve is empty a gap takes only the waste top.
* ``draw`` turns up to three cards; ``redeal`` turns the waste over when the
  stock is empty.

``Position`` plays and explains moves; ``replay`` plays a list of them from a
deal (``move_list`` refuses what is no list of moves).
"""

from __future__ import annotations

import copy
from collections import deque
from dataclasses import dataclass
from typing import Iterable, Sequence

from ..errors import IllegalMoveError, MoveError
from . import display
from .cards import RANKS as _RANKS
from .cards import SUITS as _SUITS
from .cards import card_name, rank_of, suit_of
from .deal import Deal, as_deal
from .moves import Move, parse_move
from .rules import Rules

__all__ = ["Position", "ReplayResult", "replay"]

# reserve, tableau, stock, waste, foundations, redeals used: what undo restores
_Snapshot = tuple[list[int], list[list[int]], list[int], list[int], list[int], int]


# Column-move modes in which any part of a column (a run) may move.
_RUN_MODES = ("runs", "whole-or-freeing")

class Position:
    """A position of one game, mutable: ``play`` changes it and ``undo`` takes a move back."""

    def __init__(self, deal: "Deal | int"):
        deal = as_deal(deal)
        self.deal: Deal = deal  # where the game started (its seed, where it has one)
        self.rules: Rules = deal.rules
        self.base_rank: int = deal.base_rank
        self.reserve: list[int] = list(deal.reserve)
        self.tableau: list[list[int]] = [list(c) for c in deal.tableau]
        self.stock: list[int] = list(deal.stock)  # bottom..top; top is drawn first
        self.waste: list[int] = list(deal.waste)  # bottom..top; top is playable
        self.foundations: list[int] = deal.foundation_counts()  # cards per suit, C D H S
        self.redeals_used: int = deal.redeals_used
        self._history: list[_Snapshot] = []
        self._played = 0  # moves played since the deal (a copy keeps the count, not the undo history)
        self._fill_gaps()

    @classmethod
    def from_deal(cls, deal: Deal) -> "Position":
        return cls(deal)

    # State ---------------------------------------------------------------
    def _snapshot(self) -> _Snapshot:
        return (
            list(self.reserve),
            [list(c) for c in self.tableau],
            list(self.stock),
            list(self.waste),
            list(self.foundations),
            self.redeals_used,
        )

    def _restore(self, snap: _Snapshot) -> None:
        r, t, s, w, f, n = snap
        self.reserve, self.tableau, self.stock, self.waste = list(r), [list(c) for c in t], list(s), list(w)
        self.foundations, self.redeals_used = list(f), n

    def copy(self) -> "Position":
        p = copy.copy(self)
        p._restore(self._snapshot())
        p._history = []
        return p

    def key(self) -> tuple[int, tuple[tuple[int, ...], ...], tuple[int, ...], tuple[int, ...], int]:
        """Everything that decides the future of the game (used for searches)."""
        return (
            len(self.reserve),
            tuple(tuple(c) for c in self.tableau),
            tuple(self.stock),
            tuple(self.waste),
            self.redeals_used if self.rules.redeals is not None else 0,
        )

    def to_deal(self) -> Deal:
        """This position as a ``Deal`` (for JSON output or solving from here)."""
        n = self.rules.ranks
        piles = tuple(
            tuple(s * 13 + (self.base_rank + i) % n for i in range(self.foundations[s]))
            for s in range(4)
            if self.foundations[s]
        )
        return Deal(
            self.rules,
            tuple(self.reserve),
            tuple(tuple(c) for c in self.tableau),
            tuple(self.stock),
            self.base_rank,
            tuple(self.waste),
            piles,
            self.redeals_used,
        )

    @property
    def moves_made(self) -> int:
        """Moves played since the deal (a copy counts those played before it was made)."""
        return self._played

    @property
    def score(self) -> int:
        """Cards on the foundations."""
        return sum(self.foundations)

    def is_won(self) -> bool:
        return self.score == 4 * self.rules.ranks

    # Rules ---------------------------------------------------------------
    def fits_foundation(self, card: int) -> bool:
        s = suit_of(card)
        n = self.rules.ranks
        return self.foundations[s] < n and rank_of(card) == (self.base_rank + self.foundations[s]) % n

    def fits_on(self, card: int, host: int) -> bool:
        return self.rules.fits_tableau(self.base_rank, card, host)

    def _gaps_open(self) -> bool:
        """Whether a gap may be filled by a move (not automatically from the reserve)."""
        return not (self.rules.gap_autofill and self.reserve)

    def _fill_gaps(self) -> None:
        # An empty column is filled at once with the reserve top (SPEC §3 Gaps).
        if not self.rules.gap_autofill:
            return
        for col in self.tableau:
            if not col and self.reserve:
                col.append(self.reserve.pop())

    def _gap_locks_columns(self) -> bool:
        """Rules without moves_while_gap_open: an open gap stops column-to-column moves."""
        return not self.rules.moves_while_gap_open and self._gaps_open() and not all(self.tableau)

    def _run_counts(self, i: int) -> list[int | None]:
        """The tableau moves column ``i`` allows by the rules, as counts (None = whole column)."""
        n = len(self.tableau[i])
        if n == 0:
            return []
        mode = self.rules.column_moves
        counts: list[int | None] = []
        if mode != "whole" or n == 1:
            counts.append(1)
        if mode in _RUN_MODES:
            counts += list(range(2, n))
        if n >= 2:
            counts.append(None)
        return counts

    def _part_may_move(self, col: list[int], k: int) -> bool:
        """Under ``whole-or-freeing`` a part moves onto a column only if the card it uncovers fits its foundation."""
        if self.rules.column_moves != "whole-or-freeing" or k >= len(col):
            return True
        return self.fits_foundation(col[-k - 1])

    def legal_moves(self) -> list[str]:
        """Every legal move that changes the position, in SPEC §4 notation, in a fixed order. (Where a gap
        takes any card, a whole column moved into a gap is legal too, ``play`` takes it, but it only
        renumbers the columns: it is not listed.)"""
        out: list[str] = []
        for m in self._legal_move_objects():
            out.append(str(m))
        return out

    def _legal_move_objects(self) -> Iterable[Move]:
        rules = self.rules
        tab = self.tableau
        ncol = len(tab)
        # Single cards from waste and reserve.
        for src, pile in (("W", self.waste), ("R", self.reserve)):
            if not pile:
                continue
            card = pile[-1]
            if self.fits_foundation(card):
                yield Move(src, 0, "F")
            for j in range(ncol):
                if tab[j]:
                    if self.fits_on(card, tab[j][-1]):
                        yield Move(src, 0, "T", j + 1)
                elif self._gaps_open() and (src == "W" or not rules.gap_autofill):
                    yield Move(src, 0, "T", j + 1)
        # Tableau.
        locked = self._gap_locks_columns()
        for i in range(ncol):
            col = tab[i]
            if not col:
                continue
            if self.fits_foundation(col[-1]):
                yield Move("T", i + 1, "F")
            if locked:
                continue
            for count in self._run_counts(i):
                k = len(col) if count is None else count
                moving = col[-k]
                for j in range(ncol):
                    if j == i:
                        continue
                    if tab[j]:
                        if self.fits_on(moving, tab[j][-1]) and self._part_may_move(col, k):
                            yield Move("T", i + 1, "T", j + 1, count)
                    elif rules.gap_fill == "any" and self._gaps_open() and k < len(col):
                        yield Move("T", i + 1, "T", j + 1, count)
        # Stock.
        if self.stock:
            yield Move("draw")
        elif self.waste and (rules.redeals is None or self.redeals_used < rules.redeals):
            yield Move("redeal")

    def _why_illegal(self, m: Move) -> str | None:
        """None if ``m`` is legal here, else the reason in plain words."""
        if m.src in ("draw", "redeal"):
            return self._why_not_talon(m)
        ncol = len(self.tableau)
        for c in (m.src_col if m.src == "T" else 0, m.dst_col if m.dst == "T" else 0):
            if c > ncol:
                return f"there is no column {c}: the tableau has {ncol}"
        card, k, why = self._moving(m)
        if why is not None:
            return why
        if m.dst == "F":
            return self._why_not_home(card)
        return self._why_not_onto(m, card, k)

    def _why_not_talon(self, m: Move) -> str | None:
        """Why a draw or a redeal is illegal here; None if it is legal."""
        if m.src == "draw":
            return None if self.stock else "the stock is empty: redeal instead of draw"
        if self.stock:
            return "redeal needs an empty stock: draw until it is empty"
        if not self.waste:
            return "nothing to redeal: the stock and the waste are empty"
        if self.rules.redeals is not None and self.redeals_used >= self.rules.redeals:
            return f"no redeals left: rules {self.rules.name!r} allow {self.rules.redeals}"
        return None

    def _moving(self, m: Move) -> tuple[int, int, str | None]:
        """The card ``m`` moves (the lowest of a column's part), how many cards, and why it cannot (None when it
        can be taken)."""
        if m.src == "W":
            return (self.waste[-1], 1, None) if self.waste else (0, 0, "the waste is empty")
        if m.src == "R":
            return (self.reserve[-1], 1, None) if self.reserve else (0, 0, "the reserve is empty")
        col = self.tableau[m.src_col - 1]
        if not col:
            return 0, 0, f"column {m.src_col} is empty"
        if m.dst == "T" and m.src_col == m.dst_col:
            return 0, 0, "a column cannot move onto itself"
        k = len(col) if m.count is None else m.count
        if k > len(col):
            return 0, 0, f"column {m.src_col} holds only {len(col)} cards"
        if m.count is None and len(col) == 1:
            k = 1
        return col[-k], k, None

    def _why_not_home(self, card: int) -> str | None:
        """Why ``card`` cannot go to its foundation now; None if it can."""
        if self.fits_foundation(card):
            return None
        s = suit_of(card)
        if self.foundations[s] >= self.rules.ranks:
            return f"the {_SUITS[s]} foundation is complete"
        need = (self.base_rank + self.foundations[s]) % self.rules.ranks
        if self.foundations[s] == 0:
            return f"{card_name(card)} cannot start a foundation: foundations start with rank {_RANKS[need]}"
        return f"{card_name(card)} cannot go to its foundation: the {_SUITS[s]} foundation needs {_RANKS[need]}{_SUITS[s]}"

    def _why_not_onto(self, m: Move, card: int, k: int) -> str | None:
        """Why ``card`` (with the ``k`` - 1 cards above it, from a column) cannot go onto column ``m.dst_col``;
        None if it can."""
        rules = self.rules
        tab = self.tableau
        dest = tab[m.dst_col - 1]
        if m.src == "T":
            if self._gap_locks_columns():
                return f"no column-to-column move while a gap is open under rules {rules.name!r}: fill it first"
            col = tab[m.src_col - 1]
            whole = (len(col) if m.count is None else m.count) == len(col)
            if not whole and k > 1 and rules.column_moves not in _RUN_MODES:
                return f"only the top card or the whole column may move under rules {rules.name!r}"
            if not whole and k == 1 and rules.column_moves == "whole":
                return (
                    f"a lone top card moves only to a foundation under rules {rules.name!r}; "
                    f"move the whole column with T{m.src_col}*>T{m.dst_col}"
                )
        if dest:
            if not self.fits_on(card, dest[-1]):
                return f"{card_name(card)} does not fit on {card_name(dest[-1])}"
            if m.src == "T" and not self._part_may_move(tab[m.src_col - 1], k):
                return (f"under rules {rules.name!r} part of a column moves onto another column only when the "
                        f"card it uncovers, {card_name(tab[m.src_col - 1][-k - 1])}, can go to its foundation")
            return None
        # An empty destination column.
        if not self._gaps_open():
            return "an empty column is filled from the reserve first"
        if m.src == "W":
            return None
        if m.src == "R":
            return None if not rules.gap_autofill else "the reserve fills gaps automatically"
        if rules.gap_fill == "any":
            return None  # any card, or part: a whole column too (legal, as PySolFC lets it; it only renumbers)
        return "an empty column takes only the waste top once the reserve is empty"

    # Playing -------------------------------------------------------------
    def play(self, move: "str | Move") -> None:
        """Play ``move`` or raise ``IllegalMoveError`` saying why it is illegal."""
        m = parse_move(move)
        why = self._why_illegal(m)
        if why is not None:
            raise IllegalMoveError(f"{move if isinstance(move, str) else str(m)}: {why}", move=str(m))
        self._history.append(self._snapshot())
        self._apply(m)
        self._played += 1

    def _apply(self, m: Move) -> None:
        draw = self.rules.draw
        if m.src == "draw":
            packet = self.stock[-draw:]
            del self.stock[-draw:]
            # Turning the packet over keeps the order: the card that was
            # deepest in the packet becomes the waste top.
            self.waste.extend(reversed(packet))
            return
        if m.src == "redeal":
            self.stock = list(reversed(self.waste))
            self.waste = []
            self.redeals_used += 1
            return
        if m.src == "W":
            cards = [self.waste.pop()]
        elif m.src == "R":
            cards = [self.reserve.pop()]
        else:
            col = self.tableau[m.src_col - 1]
            k = len(col) if m.count is None else m.count
            cards = col[-k:]
            del col[-k:]
        if m.dst == "F":
            (card,) = cards
            self.foundations[suit_of(card)] += 1
        else:
            self.tableau[m.dst_col - 1].extend(cards)
        self._fill_gaps()

    def undo(self) -> None:
        """Take back the last move played."""
        if not self._history:
            raise IllegalMoveError("nothing to undo")
        self._restore(self._history.pop())
        self._played -= 1

    def is_legal(self, move: "str | Move") -> bool:
        return self._why_illegal(parse_move(move)) is None

    # Stalled positions (SPEC §3) ----------------------------------------
    @staticmethod
    def is_progress(before: "Position", move: Move, after: "Position") -> bool:
        """Progress: a card to a foundation, or a card taken from the reserve or the waste."""
        if move.dst == "F" or move.src in ("W", "R"):
            return True
        return len(after.reserve) < len(before.reserve)

    def is_stalled(self) -> bool:
        """True when no sequence of non-progress moves reaches a legal progress move.

        A won position is not called stalled. The search walks the closure of
        non-progress moves (draws, redeals, column-to-column moves) breadth first.
        """
        if self.is_won():
            return False
        start = self.copy()
        seen = {start.key()}
        queue = deque([start])
        while queue:
            pos = queue.popleft()
            for m in list(pos._legal_move_objects()):
                nxt = pos.copy()
                nxt._apply(m)
                if Position.is_progress(pos, m, nxt):
                    return False
                k = nxt.key()
                if k not in seen:
                    seen.add(k)
                    queue.append(nxt)
        return True

    # Display -------------------------------------------------------------
    def __str__(self) -> str:
        return render(self)

    def _repr_html_(self) -> str | None:
        """In a notebook: the layout drawn as the replay page draws it (``display``)."""
        return display.html(self)

    def __repr__(self) -> str:
        """The deal it started from, the moves made since, the cards home and whether it is won, has no
        legal move, or is in play (no search: whether it is stalled is ``is_stalled``)."""
        d = self.deal
        start = repr(d) if d.seed is not None and repr(d).startswith("Deal.") else f"a deal of {self.rules.name!r}"
        moves = next(iter(self._legal_move_objects()), None)
        state = "won" if self.is_won() else "no legal move" if moves is None else "in play"
        made = self.moves_made
        return f"<Position of {start}: {made} move{'s' * (made != 1)} made, {self.score} home, {state}>"


def render(pos: Position) -> str:
    """A readable text picture of the position."""
    n = pos.rules.ranks
    lines = []
    res = pos.reserve
    lines.append(f"Reserve  ({len(res):2d}): " + (card_name(res[-1]) if res else "empty"))
    fparts = []
    for s in range(4):
        k = pos.foundations[s]
        top = card_name(s * 13 + (pos.base_rank + k - 1) % n) if k else "--"
        fparts.append(f"{_SUITS[s]}:{top}({k})")
    lines.append("Foundations:   " + "  ".join(fparts) + f"   base {_RANKS[pos.base_rank]}")
    for i, col in enumerate(pos.tableau):
        lines.append(f"T{i + 1}:  " + (" ".join(card_name(c) for c in col) if col else "(empty)"))
    redeals = "unlimited" if pos.rules.redeals is None else f"{pos.rules.redeals - pos.redeals_used} left"
    lines.append(
        f"Stock ({len(pos.stock):2d})   Waste ({len(pos.waste):2d}): "
        + (card_name(pos.waste[-1]) if pos.waste else "empty")
        + f"   draw {pos.rules.draw}, redeals {redeals}"
    )
    return "\n".join(lines)


@dataclass(frozen=True)
class ReplayResult:
    """What ``replay`` found: the final position, how many moves were legal, and why one was not."""

    position: Position
    played: int
    legal: bool
    error: str | None = None
    index: int | None = None

    @property
    def won(self) -> bool:
        return self.position.is_won()

    @property
    def stalled(self) -> bool:
        return self.position.is_stalled()


def move_list(moves: object) -> list["str | Move"]:
    """``moves`` as a list, where it is a sequence of moves (a list, a tuple, ...); a ``MoveError`` naming
    what it was otherwise (``None``, a single move's text, a number)."""
    if isinstance(moves, (str, bytes)) or not isinstance(moves, Iterable):
        raise MoveError(f"moves must be a list of moves (SPEC §4 texts), not {type(moves).__name__}")
    return list(moves)


def replay(deal: "Deal | int", moves: Sequence["str | Move"], *, strict: bool = True) -> ReplayResult:
    """Play ``moves`` from ``deal``.

    With ``strict`` (the default) the first illegal move raises
    ``IllegalMoveError`` whose ``index`` is the 0-based position of that move;
    otherwise the result says where replay stopped and why.
    """
    pos = Position(as_deal(deal))
    for i, mv in enumerate(move_list(moves)):
        try:
            pos.play(mv)
        except IllegalMoveError as e:
            msg = f"move {i + 1} ({mv if isinstance(mv, str) else str(mv)!s}) is illegal: {str(e).split(': ', 1)[-1]}"
            if strict:
                raise IllegalMoveError(msg, index=i, move=str(mv)) from None
            return ReplayResult(pos, i, False, msg, i)
        except MoveError as e:  # malformed move text
            msg = f"move {i + 1}: {e}"
            if strict:
                raise MoveError(msg) from None
            return ReplayResult(pos, i, False, msg, i)
    return ReplayResult(pos, len(moves), True)
