"""One game in progress, as the play server holds it: the deal, the moves played, undo and redo, the
position drawn as the replay page draws it, and what the meter knows about each position on the way.

No web and no solver here: ``CanfieldGame`` is plain Python over the reference engine (``engine.position``), so
the API's rules are the engine's (an illegal move is refused with the engine's reason), and the meter's
searches run elsewhere (``meter``) on what ``CanfieldGame.job`` hands them.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from dataclasses import dataclass, field
from typing import TypedDict

from ...engine.deal import Deal
from ...engine.moves import Move, parse_move
from ...engine.position import Position
from ...errors import CanfieldError
from ..replay_page import frames, position_frame

__all__ = ["CanfieldGame", "Job", "MeterReading", "Tracked"]


class _Bounds(TypedDict):
    moves: list[str]
    generation: int
    last_winnable: int | None
    first_lost: int | None


class Job(_Bounds, total=False):
    """The meter's work for one position (``meter.measure``): the moves played, the game's generation, the
    last position known winnable and the first known lost (``Tracked._bounds``); then a Canfield game's
    deal (``deal.to_dict()``), or another game's name and seed."""

    deal: dict[str, object]
    game: str
    seed: int


class Reading(TypedDict, total=False):
    """What one meter search found (``meter.measure``), as a worker sends it back: the fields a
    ``MeterReading`` takes, the next moves and the line for a winnable position, and what the search learnt
    of other positions of the game (``known``: move count, as text, to "winnable" or "lost")."""

    state: str
    stalled: bool
    lost_at: int
    lost_between: list[int]
    next_moves: list[str]
    solution: list[str]
    limit: str | None
    nodes: int
    seconds: float
    why: str
    known: dict[str, str]


@dataclass
class MeterReading:
    """What the meter says about the position after ``moves`` moves.

    ``state``: ``"winnable"``, ``"lost"``, ``"unknown"`` (a limit stopped the search, or the server was
    too busy to start one) or ``"pending"`` (a search is running). For ``lost``: ``stalled`` when no
    progress move can ever be reached again (SPEC §3), and ``lost_at``, the move after which the game
    could no longer be won (0: the deal itself cannot be won), when the search back along the game
    found it (``lost_between`` otherwise: the first and last move it can be)."""

    moves: int
    state: str = "pending"
    stalled: bool = False
    lost_at: int | None = None
    lost_between: tuple[int, int] | None = None
    next_moves: tuple[str, ...] = ()
    solution: tuple[str, ...] = ()
    limit: str | None = None
    nodes: int = 0
    seconds: float = 0.0
    why: str = ""

    def to_dict(self) -> dict[str, object]:
        return {"moves": self.moves, "state": self.state, "stalled": self.stalled, "lost_at": self.lost_at,
                "lost_between": list(self.lost_between) if self.lost_between else None,
                "next_moves": list(self.next_moves), "limit": self.limit, "nodes": self.nodes,
                "seconds": round(self.seconds, 3), "why": self.why}


@dataclass
class Tracked:
    """What every game the server holds shares, whatever the patience: the moves played and taken back,
    the ``generation`` of each change (the meter's readings of older ones are dropped when they arrive),
    and what the meter knows about the positions on the way. ``CanfieldGame`` (Canfield) and
    ``patience.PatienceGame`` (the other games: docs/games-spec.md) add the position and its rules."""

    id: str
    label: str
    moves: list[str] = field(default_factory=list)
    undone: list[str] = field(default_factory=list)
    generation: int = 0
    meter: MeterReading = field(default_factory=lambda: MeterReading(0))
    # Verdicts of the positions after k moves of the line played (and undone), as far as the meter found
    # them ("winnable" / "lost"), and its full readings of those positions.
    known: dict[int, str] = field(default_factory=dict)
    readings: dict[int, MeterReading] = field(default_factory=dict)
    last_used: float = field(default_factory=time.monotonic)
    lock: threading.RLock = field(default_factory=threading.RLock, repr=False)   # the meter's callback may run inside
    searched = True     # the meter searches its positions (suit-neighbours: known from the deal alone)

    def _branch(self, move: str) -> None:
        """Before ``move`` is played: redo's line goes on, or another line forgets the old one's future."""
        n = len(self.moves)
        if self.undone and self.undone[-1] == move:      # the move taken back: the same line
            self.undone.pop()
        else:
            self.undone.clear()
            for d in (self.known, self.readings):
                for k in [k for k in d if k > n]:
                    del d[k]

    def _changed(self) -> None:
        self.generation += 1
        n = len(self.moves)
        if n in self.readings:                           # undo, redo: the meter as it was here
            self.meter = dataclasses.replace(self.readings[n])
        elif self.known.get(n) == "lost":
            self.meter = self._lost_reading(n)
            self.readings[n] = dataclasses.replace(self.meter)
        else:
            self.meter = MeterReading(n)
        self.last_used = time.monotonic()

    def _lost_reading(self, n: int) -> MeterReading:
        first = min((k for k, v in self.known.items() if v == "lost" and k <= n), default=n)
        good = max((k for k, v in self.known.items() if v == "winnable" and k < first), default=None)
        r = MeterReading(n, state="lost")
        if good is not None and good == first - 1:
            r.lost_at = first
        return r

    def _bounds(self) -> Job:
        """The meter's job's common part: the moves, the generation, and the last position known to be
        winnable and the first known lost (where the search back for the losing move starts)."""
        good = max((k for k, v in self.known.items() if v == "winnable" and k <= len(self.moves)), default=None)
        lost = min((k for k, v in self.known.items() if v == "lost"), default=None)
        return {"moves": list(self.moves), "generation": self.generation, "last_winnable": good, "first_lost": lost}

    def take_reading(self, generation: int, reading: Reading) -> bool:
        """Record a finished search; False (dropped) when the game has moved on since it started."""
        for k, v in reading.get("known", {}).items():   # true of those positions whatever came since
            if int(k) <= len(self.moves) or generation == self.generation:
                self.known[int(k)] = v
        if generation != self.generation:
            return False
        r = MeterReading(len(self.moves), state=reading.get("state", "pending"), stalled=reading.get("stalled", False),
                         lost_at=reading.get("lost_at"), limit=reading.get("limit"), nodes=reading.get("nodes", 0),
                         seconds=reading.get("seconds", 0.0), why=reading.get("why", ""))
        r.next_moves = tuple(reading.get("next_moves", ()))
        r.solution = tuple(reading.get("solution", ()))
        between = reading.get("lost_between")
        if between:
            r.lost_between = (between[0], between[1])
        self.meter = r
        if r.state in ("winnable", "lost"):
            self.readings[len(self.moves)] = dataclasses.replace(r)
        return True

    # What each game provides ---------------------------------------------------------------------------
    def play(self, move: object) -> None:
        """Play ``move`` (text in the game's notation); ``CanfieldError`` with a one-line reason if refused."""
        raise NotImplementedError

    def undo(self) -> None:
        raise NotImplementedError

    def redo(self) -> None:
        raise NotImplementedError

    def job(self) -> Job:
        """The meter's work for the current position (``meter.measure``)."""
        raise NotImplementedError

    def state(self) -> dict[str, object]:
        """What the page draws: the board, the legal moves, the moves played, the meter."""
        raise NotImplementedError

    def solution_frames(self) -> dict[str, object]:
        """The winning line from here, with the frames to step through, when the meter has one."""
        raise NotImplementedError

    def replay_html(self) -> str:
        """The game's replay page (one HTML file)."""
        raise NotImplementedError

    def export_text(self) -> str:
        """The moves played, one a line, as ``canfield check`` reads them."""
        return "".join(m + "\n" for m in self.moves)

    @property
    def file_stem(self) -> str:
        return self.label.replace(" ", "-")


@dataclass
class CanfieldGame(Tracked):
    """A game of Canfield in progress. ``play``, ``undo``, ``redo`` raise ``CanfieldError`` with a
    one-line reason when refused; each change starts a new ``generation``."""

    deal: Deal = field(kw_only=True)

    def __post_init__(self) -> None:
        self.pos = Position(self.deal)
        self._keys: list[tuple] = [self.pos.key()]     # the position after k moves
        self._since: list[int] = [0]                   # after k moves: the last progress move's number

    # Playing ----------------------------------------------------------------------------------------
    def play(self, move: object) -> None:
        if not isinstance(move, str):
            raise CanfieldError(f"a move is a string such as 'W>F' or 'draw', not {move!r}")
        m = parse_move(move)                              # MoveError (a CanfieldError) names a bad text
        before = self.pos.copy()
        self.pos.play(m)                                  # IllegalMoveError names why it is illegal
        self._branch(str(m))
        self._advance(str(m), before, m)

    def _advance(self, text: str, before: Position, m: Move) -> None:
        self.moves.append(text)
        progress = m.src not in ("draw", "redeal") and Position.is_progress(before, m, self.pos)
        self._since.append(len(self.moves) if progress else self._since[-1])
        self._keys.append(self.pos.key())
        self._changed()

    def undo(self) -> None:
        if not self.moves:
            raise CanfieldError("nothing to undo")
        self.pos.undo()
        self.undone.append(self.moves.pop())
        self._keys.pop()
        self._since.pop()
        self._changed()

    def redo(self) -> None:
        if not self.undone:
            raise CanfieldError("nothing to redo")
        m = parse_move(self.undone[-1])
        before = self.pos.copy()
        self.pos.play(m)
        self._advance(self.undone.pop(), before, m)

    # What the meter needs and gives ------------------------------------------------------------------
    def job(self) -> Job:
        """The meter's work for the current position: the deal and ``_bounds``."""
        job = self._bounds()
        job["deal"] = self.deal.to_dict()
        return job

    def replay_html(self) -> str:
        from ..replay_page import page as replay_page

        return replay_page(self.deal, list(self.moves),
                           title=f"Canfield, {self.label}: a game of {len(self.moves)} moves").html

    # What the page draws ------------------------------------------------------------------------------
    def circle(self) -> int | None:
        """When the current position was seen before since the last progress move, after how many moves
        (the player is going round in circles); else None."""
        n = len(self.moves)
        start = self._since[n]
        key = self._keys[n]
        for k in range(start, n):
            if self._keys[k] == key:
                return k
        return None

    def state(self) -> dict[str, object]:
        f = position_frame(self.pos)
        return {
            "id": self.id, "game": "canfield", "label": self.label, "rules": self.deal.rules.name, "generation": self.generation,
            "frame": f, "full": 4 * self.deal.rules.ranks, "moves": list(self.moves), "can_undo": bool(self.moves),
            "can_redo": bool(self.undone), "legal": self.pos.legal_moves(), "won": self.pos.is_won(),
            "circle": self.circle(), "meter": self.meter.to_dict(),
        }

    def solution_frames(self) -> dict[str, object]:
        """The winning line from here, with the frames to step through, when the meter has one."""
        line = list(self.meter.solution)
        return {"moves": line, "frames": frames(self.pos, line) if line else []}
