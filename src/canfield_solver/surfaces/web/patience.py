"""The other patiences of the same source (docs/games-spec.md) as the play server holds them: one game in
progress, its moves, undo and redo, its board as the replay pages draw it, and the meter's search.

``PatienceGame`` plays ``nine-packets``, ``aces-and-kings``, ``bisley``, ``ten-columns`` and
``ten-columns-dealt`` on the game's reference engine (``games``): an illegal move is refused with the
engine's reason, and the meter's searches (``game_search``, run by ``meter``'s workers) use the game's
own solver. ``SuitNeighboursGame`` has no choices: its one move, ``step``, lays the next card of the
line, and the rules remove what they remove; the deal alone decides it, so its meter is known at once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, TypedDict, cast

from ...engine.cards import card_name
from ...engine.deal import check_seed
from ...errors import CanfieldError
from ...games import deal_of, get_game
from ...games import suit_neighbours as SN
from ...games.base import replay
from ..game_page import board, game_frames, game_page, line_frame
from .session import Job, MeterReading, Tracked

if TYPE_CHECKING:
    from ...solver import Result

__all__ = ["PLAYABLE", "PatienceGame", "SuitNeighboursGame", "game_search", "start_game"]

# The games the page plays besides Canfield, and what their boards count.
PLAYABLE = ("nine-packets", "aces-and-kings", "bisley", "suit-neighbours", "ten-columns", "ten-columns-dealt")
_FULL = {"nine-packets": (36, "cards removed"), "aces-and-kings": (52, "cards home"),
         "ten-columns": (52, "cards removed"), "suit-neighbours": (48, "cards removed")}


def start_game(gid: str, game: str, seed: int) -> "Tracked":
    """The server's game ``game`` (one of ``PLAYABLE``) from the deal of ``seed``."""
    if game not in PLAYABLE:
        raise CanfieldError(f"unknown game {game!r}; games: {', '.join(('canfield',) + PLAYABLE)}")
    check_seed(seed)
    if game == "suit-neighbours":
        return SuitNeighboursGame(gid, f"seed {seed}", game=game, seed=seed)
    return PatienceGame(gid, f"seed {seed}", game=game, seed=seed)


@dataclass
class _SeededGame(Tracked):
    """A game of the other patiences of docs/games-spec.md from the deal of ``seed``: what undo, redo, the meter's job and the
    files' names share."""

    game: str = field(kw_only=True)
    seed: int = field(kw_only=True)

    def _take_back(self) -> None:
        """Undo's change to the position (the move list is undo's)."""

    def undo(self) -> None:
        if not self.moves:
            raise CanfieldError("nothing to undo")
        self._take_back()
        self.undone.append(self.moves.pop())
        self._changed()

    def redo(self) -> None:
        if not self.undone:
            raise CanfieldError("nothing to redo")
        self.play(self.undone[-1])

    def job(self) -> Job:
        job = self._bounds()
        job["game"], job["seed"] = self.game, self.seed
        return job

    @property
    def file_stem(self) -> str:
        return f"{self.game}-seed-{self.seed}"


@dataclass
class PatienceGame(_SeededGame):
    """A game of one of the other patiences of docs/games-spec.md with choices, from the deal of ``seed``."""

    searched = True     # the meter's workers search each new position

    def __post_init__(self) -> None:
        self.rules = get_game(self.game)
        self.start = deal_of(self.game, self.seed)     # DealError: a seed out of range
        self._positions: list[object] = [self.start]  # the game's own position type

    @property
    def pos(self) -> object:
        return self._positions[-1]

    def play(self, move: object) -> None:
        if not isinstance(move, str):
            raise CanfieldError(f"a move is a string such as {self.rules.moves(self.start)[0]!r}, not {move!r}")
        q = self.rules.play(self.pos, move)             # GameError (a CanfieldError) names why it is illegal
        text = self._canonical(move)
        self._branch(text)
        self._positions.append(q)
        self.moves.append(text)
        self._changed()

    def _canonical(self, move: str) -> str:
        """The move as the game's own list writes it (``p3 + p7`` is ``P3+P7``), so redo and the exports
        match the solver's lines."""
        key = " ".join(move.lower().split()).replace(" +", "+").replace("+ ", "+").replace(" >", ">") \
            .replace("> ", ">")
        for m in self.rules.moves(self.pos):
            m_key = m.lower()
            if m_key == key or ("+" in key and sorted(m_key.split("+")) == sorted(key.split("+"))):
                return m                               # a pair either way round: P7+P3 is P3+P7
        return move.strip()

    def _take_back(self) -> None:
        self._positions.pop()

    def state(self) -> dict[str, object]:
        full, unit = _FULL[self.rules.NAME]
        p = self.pos
        advice = None
        if self.rules.NAME == "nine-packets":
            from ...games.nine_packets import game as NP

            ab = NP.advice_move(cast(NP.Position, p))  # this game's own position
            advice = NP.format_move(*ab) if ab else None
        return {"id": self.id, "game": self.game, "label": self.label, "rules": self.game,
                "generation": self.generation, "board": board(self.game, p), "full": full, "unit": unit,
                "moves": list(self.moves), "can_undo": bool(self.moves), "can_redo": bool(self.undone),
                "legal": self.rules.moves(p), "won": self.rules.won(p), "stalled": self.rules.stalled(p),
                "advice": advice, "circle": None, "meter": self.meter.to_dict()}

    def solution_frames(self) -> dict[str, object]:
        line = list(self.meter.solution)
        return {"moves": line, "frames": game_frames(self.game, self.pos, line) if line else []}

    def replay_html(self) -> str:
        return game_page(self.game, self.seed, self.moves,
                         summary=f"a game of {len(self.moves)} moves played in canfield play").html


def game_search(job: Job, max_memory_mb: int) -> Callable[[int, float], tuple[Result, bool]]:
    """The meter's search of the position after ``k`` of ``job``'s moves (``meter._reading`` calls it,
    in a worker): the game's own solver at the limit given."""
    game, seed, moves = job["game"], job["seed"], list(job["moves"])
    m = get_game(game)
    start = deal_of(game, seed)

    def search(k: int, seconds: float) -> tuple[Result, bool]:
        p = replay(m.play, start, moves[:k])
        return m.solve(p, max_seconds=seconds, max_memory_mb=max_memory_mb, seed=seed), m.stalled(p)

    return search


@dataclass
class SuitNeighboursGame(_SeededGame):
    """``suit-neighbours`` laid card by card: move ``step`` lays the next card of the round (round two and
    three lay the cards left in the order last, first, second-to-last, ...), and every removal the rules
    then make is shown with its rule. No choices: the deal alone decides it, so the meter is known at
    once (``winnable`` until the end of a won deal, ``lost`` from the deal on otherwise)."""

    searched = False

    def __post_init__(self) -> None:
        cards = deal_of(self.game, self.seed)
        self.trace = SN.play_out(cards)
        self.steps = _steps(self.trace)
        self.meter = self._reading(0)

    def _reading(self, n: int) -> MeterReading:
        if self.trace.won:
            return MeterReading(n, state="winnable")
        return MeterReading(n, state="lost", lost_at=0, stalled=n == len(self.steps))

    def _changed(self) -> None:
        self.generation += 1
        self.meter = self._reading(len(self.moves))

    def play(self, move: object) -> None:
        if move != "step":
            raise CanfieldError(f"suit-neighbours has one move, 'step' (lay the next card), not {move!r}")
        if len(self.moves) >= len(self.steps):
            raise CanfieldError(f"the game is over: {len(self.trace.left)} cards are left after round 3")
        self._branch("step")
        self.moves.append("step")
        self._changed()

    def state(self) -> dict[str, object]:
        n = len(self.moves)
        s: LaidCard = self.steps[n - 1] if n else {"round": 1, "laid": 0, "of": 52, "line": (), "removed": [],
                                                    "gone": 0, "card": None, "gone_now": []}
        done = n == len(self.steps)
        note = f"round {s['round']}: {s['laid']} of {s['of']} cards laid"
        if done:
            note = f"after round 3: {len(self.trace.left)} cards left: " + ("won" if self.trace.won else "lost")
        frame = line_frame(s["line"], None, s["gone"], note, beneath=s["gone_now"])
        return {"id": self.id, "game": self.game, "label": self.label, "rules": self.game,
                "generation": self.generation, "board": frame, "full": 48, "unit": "cards removed",
                "moves": list(self.moves), "can_undo": bool(self.moves), "can_redo": bool(self.undone),
                "legal": [] if done else ["step"], "won": done and self.trace.won, "stalled": done and not self.trace.won,
                "over": done, "steps": len(self.steps), "laid": s["card"], "removed": s["removed"],
                "log": [f"round {x['round']}, card {x['laid']}: {x['card']}" + ("; " + "; ".join(x["removed"])
                        if x["removed"] else "") for x in self.steps[:n]],
                "advice": None, "circle": None, "meter": self.meter.to_dict()}

    def export_text(self) -> str:
        """The removals so far, one a line (suit-neighbours has no moves for ``canfield check`` to read)."""
        return "".join(r + "\n" for s in self.steps[:len(self.moves)] for r in s["removed"])

    def solution_frames(self) -> dict[str, object]:
        raise CanfieldError("suit-neighbours has no choices: step through it instead")

    def replay_html(self) -> str:
        return game_page(self.game, self.seed).html


class LaidCard(TypedDict):
    """One card laid in suit-neighbours' replay (``_steps``)."""

    round: int                  # 1 to 3
    laid: int                   # how many cards of this round are laid, this one included
    of: int                     # the cards of this round
    card: str | None            # the card laid (None before the first)
    line: tuple[int, ...]       # the line after the rules are done with it
    removed: list[str]          # the removals it caused, with their rules in words
    gone: int                   # cards removed so far
    gone_now: list[int]         # the cards it removed


def _steps(tr: SN.Trace) -> list[LaidCard]:
    """Every card laid, in order, over the three rounds: the round, how many of its cards are laid, the
    card, the line after the rules are done with it, the removals it caused (with their rules, in words)
    and the cards removed so far."""
    why = {"R1": "its neighbour on the left is of its suit", "R2": "the card one apart on its right is of its suit"}
    out: list[LaidCard] = []
    gone = 0
    for r, start in enumerate(tr.starts, 1):
        hits = [x for x in tr.removals if x.round == r]
        for n in range(1, len(start) + 1):
            mine = [x for x in hits if x.laid == n]
            gone += len(mine)
            line = mine[-1].line if mine else None
            if line is None:                   # nothing removed: the line so far plus this card
                prev = out[-1]["line"] if out and out[-1]["round"] == r else ()
                line = tuple(prev) + (start[n - 1],)
            out.append({"round": r, "laid": n, "of": len(start), "card": card_name(start[n - 1]), "line": line,
                        "removed": [f"{x.rule} removes {card_name(x.card)} ({why[x.rule]})" for x in mine],
                        "gone": gone, "gone_now": [x.card for x in mine]})
    return out
