"""What the games of this package share: the seeded deck, the result of a search, the limits, and the
search of a game whose moves only ever remove cards (so no position repeats).

Every game is a module with the same shape (``games.GAMES`` lists them)::

    NAME, VARIANTS                  the game's name and its variants (docs/games-spec.md)
    deal(seed, variant=None)        the position of the deal of seed N
    moves(pos)                      the legal moves, in the game's notation
    cards_moved(pos, move)          the cards a move takes, places or moves (printed steps name them)
    play(pos, move)                 the position after one move (``GameError`` naming why if illegal)
    won(pos), stalled(pos)          the end of the game
    solve(pos, max_nodes=..., max_seconds=...)   a ``GameResult``
    study(pos, ...)                 the result and the game's own figures, for a study row (``plain_study``
                                    where there are none)
    CHOICES                         whether the player chooses anything (suit-neighbours: no)
    render(pos)                     the layout as text

``GameModule`` is that shape as a protocol (a module satisfies it), so ``games.GAMES`` is typed by it.
"""

from __future__ import annotations

import functools
import time
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable, Hashable, Iterable, Protocol, Sequence, TypeVar

from .. import budget
from ..budget import Limit, check_limits
from ..engine.cards import card_name
from ..engine.deal import check_seed, splitmix64
from ..errors import CanfieldError
from ..solver import Result, Verdict

__all__ = ["AnyGame", "GameModule", "GameError", "GameKey", "GameResult", "Limits", "plain_study", "replay", "search_removals",
           "seeded_deck"]

P = TypeVar("P")
M = TypeVar("M")  # a game's move


class GameError(CanfieldError):
    """An illegal move, an unknown variant or a malformed move text in one of the games."""


@dataclass(frozen=True)
class GameKey:
    """What a study keys one of these games' rows by, as ``Rules`` does for Canfield's: the game's (or
    variant's) name. ``to_dict`` feeds the store's ``rules_id``, so each game's rows stay apart."""

    name: str

    def to_dict(self) -> dict[str, object]:
        return {"game": self.name}

    def replace(self, **changes: Any) -> "GameKey":
        import dataclasses

        return dataclasses.replace(self, **changes)


@dataclass(frozen=True)
class GameResult(Result):
    """The answer of a game's solver: ``solved`` with a winning move list (replayed by the game's reference
    engine before it is returned), ``unsolvable`` after an exhaustive search, or ``unknown`` when a limit
    (``limit``: ``"nodes"`` or ``"seconds"``) stopped it first."""

    game: str
    verdict: Verdict
    moves: tuple[str, ...]
    nodes: int
    seconds: float
    limit: Limit | None = None
    seed: int | None = None
    extra: dict[str, object] = field(default_factory=dict, compare=False)

    def to_dict(self) -> dict[str, object]:
        return {"game": self.game, "seed": self.seed, "verdict": self.verdict.value, "moves": list(self.moves),
                "nodes": self.nodes, "seconds": round(self.seconds, 6), "limit": self.limit, **self.extra}


def seeded_deck(cards: Sequence[int], seed: int) -> list[int]:
    """``cards`` (card ids, in the game's increasing order) after SPEC §2's Fisher–Yates shuffle with
    SplitMix64 seeded with ``seed``, run over this deck's own length (GAMES: "run on that game's
    own deck")."""
    deck = list(cards)
    rng = splitmix64(check_seed(seed))
    for i in range(len(deck) - 1, 0, -1):
        j = next(rng) % (i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def names(cards: Iterable[int]) -> list[str]:
    return [card_name(c) for c in cards]


class GameModule(Protocol[P]):
    """What every game module provides (the module docstring's shape), over its positions of type ``P``."""

    NAME: str
    VARIANTS: tuple[str, ...]
    CHOICES: bool

    def deal(self, seed: int, variant: str | None = None) -> P: ...

    def solve(self, p: P, *, max_nodes: int | None = None, max_seconds: float | None = None,
              max_memory_mb: int | None = None, seed: int | None = None) -> "GameResult": ...

    def study(self, p: P, *, max_nodes: int | None = None, max_seconds: float | None = None,
              max_memory_mb: int | None = None, seed: int | None = None) -> "tuple[GameResult, dict[str, object]]": ...

    def moves(self, p: P) -> list[str]: ...

    def cards_moved(self, p: P, move: str) -> list[int]: ...

    def play(self, p: P, move: str) -> P: ...

    def won(self, p: P) -> bool: ...

    def stalled(self, p: P) -> bool: ...

    def render(self, p: P) -> str: ...


# The registry's games: each has its own position type, so a game taken from it by name is typed over Any
# positions (a position is only ever handed back to the module it came from).
AnyGame = GameModule[Any]


F = TypeVar("F", bound=Callable[..., object])


def old_memory_name(fn: F) -> F:
    """``fn`` taking the games' old name of the memory limit, ``max_memory`` (MiB), for ``max_memory_mb``,
    Canfield's name, with a ``DeprecationWarning``; the old name goes in the release after next."""

    @functools.wraps(fn)
    def call(*args: Any, **kw: Any) -> Any:
        if "max_memory" in kw:
            if "max_memory_mb" in kw:
                raise CanfieldError("give max_memory_mb alone (max_memory is its old name)")
            warnings.warn("max_memory is now max_memory_mb (the same MiB), as in canfield_solver.solve",
                          DeprecationWarning, stacklevel=2)
            kw["max_memory_mb"] = kw.pop("max_memory")
        return fn(*args, **kw)

    return call  # type: ignore[return-value]


def plain_study(solve: Callable[..., "GameResult"]) -> Callable[..., "tuple[GameResult, dict[str, object]]"]:
    """A game's ``study`` where it has no figures of its own: its ``solve``, and no metrics."""

    @old_memory_name
    def study(p: Any, *, max_nodes: int | None = None, max_seconds: float | None = None,
              max_memory_mb: int | None = None, seed: int | None = None) -> "tuple[GameResult, dict[str, object]]":
        return solve(p, max_nodes=max_nodes, max_seconds=max_seconds, max_memory_mb=max_memory_mb, seed=seed), {}

    return study


class Limits:
    """Node and time limits of one search; ``spend()`` counts a node and says which limit, if any, is hit."""

    def __init__(self, max_nodes: int | None, max_seconds: float | None):
        check_limits(max_nodes, max_seconds)
        self.max_nodes, self.max_seconds = max_nodes, max_seconds
        self.t0 = time.perf_counter()
        self.nodes = 0
        self.hit: Limit | None = None

    def spend(self) -> Limit | None:
        self.nodes += 1
        if self.max_nodes is not None and self.nodes > self.max_nodes:
            self.hit = Limit.NODES
        elif self.max_seconds is not None and not self.nodes & 1023 and \
                time.perf_counter() - self.t0 > self.max_seconds:
            self.hit = Limit.SECONDS
        return self.hit

    @property
    def seconds(self) -> float:
        return time.perf_counter() - self.t0

    def bound(self, max_nodes: int | None) -> budget.Limits:
        """These limits as ``budget.drive`` reads them: the deadline ``max_seconds`` after the search began, and
        the node limit ``max_nodes`` of the call (what is left of this search's, or a probe's own)."""
        return budget.Limits(budget.Deadline(self.max_seconds, start=self.t0), max_nodes)


class _Stop(Exception):
    pass


def search_removals(start: P, children: Callable[[P], Iterable[tuple[M, P]]], won: Callable[[P], bool],
                    key: Callable[[P], Hashable], limits: Limits,
                    lost: "set[Hashable] | None" = None) -> tuple[Verdict, list[M]]:
    """Depth-first search of a game whose every move removes cards (no position can repeat, so the
    positions form a DAG): the first winning line found, or ``UNSOLVABLE`` once every line is exhausted.

    A position whose every line was searched without a win is remembered by ``key`` and never searched
    again (sound because the game has no cycles: its value depends on the position alone). ``children``
    gives ``(move, position)`` pairs in the order to try. A limit ends it with ``UNKNOWN``. ``lost`` may be
    shared by several searches of one deal (positions proven lost stay lost).
    """
    lost = set() if lost is None else lost
    path: list[M] = []

    def dfs(p: P) -> bool:
        if limits.spend():
            raise _Stop
        if won(p):
            return True
        k = key(p)
        if k in lost:
            return False
        for move, q in children(p):
            path.append(move)
            if dfs(q):
                return True
            path.pop()
        lost.add(k)
        return False

    try:
        found = dfs(start)
    except _Stop:
        return Verdict.UNKNOWN, []
    return (Verdict.SOLVED, list(path)) if found else (Verdict.UNSOLVABLE, [])


def replay(play: Callable[[P, str], P], start: P, moves: Iterable[str]) -> P:
    """The position after ``moves`` from ``start``; an illegal move is a ``GameError`` naming its number."""
    p = start
    for i, m in enumerate(moves, 1):
        try:
            p = play(p, m)
        except GameError as e:
            raise GameError(f"move {i} ({m!r}): {e}") from None
    return p
