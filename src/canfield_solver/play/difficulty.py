"""How hard is one deal: search effort, the solution's shape, how human-like players fare, and a rating.

The rating (``rate``) combines three measurements of a deal the solver
decided:

* the **greedy player** (``greedy_play``): always plays the first legal move
  of the first non-empty class, in this order: a card to a foundation
  (reserve, then columns left to right, then waste); the reserve top to a
  column; a column-to-column move; the waste top to a column; a draw (or a
  redeal). It never makes a move that returns to a position it has seen in
  this game, and stops when every move would.
* the **random player** (``random_play``): plays a legal move chosen
  uniformly among those that lead to a position not yet seen in this game,
  until it wins or has none. Its win rate over ``playouts`` games (seeded:
  the same seed gives the same games; the time limit may end them sooner)
  estimates how forgiving the deal is.
* the **critical positions** along the solver's solution: positions where at
  least one legal move leads to a position the solver proves lost (each
  probe is a bounded search; a probe that runs out counts as not lost).

Ratings (thresholds chosen from the spread over seeds 2..39 of ``canfield``:
the greedy player wins none of the 23 won deals and random play wins 3 of
1,150 games on them; the table rates them 2 easy, 7 medium, 10 hard, 4 very
hard):

=========  ===================================================================
lost       the solver proved the deal cannot be won
unknown    the search hit its limit before deciding
easy       solved, and the greedy player wins or at least one random game wins
medium     solved, at most 10 critical positions and at most 10^4 search nodes
hard       solved, at most 30 critical positions and at most 10^6 search nodes
very hard  solved, otherwise
=========  ===================================================================

Critical positions count only probes that *prove* a loss, so they are a
lower bound; a larger ``probe_nodes`` finds more.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple, TypedDict

from ..budget import Deadline, check_counts, check_limits
from ..engine.deal import Deal
from ..engine.position import Position
from ..engine.rules import Rules, get_rules
from ..solver import DEFAULT_MEMORY_MB, SolveResult, Verdict, solve

if TYPE_CHECKING:  # the keywords' type for checkers (PEP 692)
    from typing_extensions import Unpack

__all__ = ["Analysis", "RATINGS", "analyze", "greedy_play", "random_play", "rate"]

RATINGS = ("easy", "medium", "hard", "very hard", "lost", "unknown")
MAX_PLAYOUT_MOVES = 3000


@dataclass(frozen=True)
class PlayerGame:
    won: bool
    score: int
    moves: tuple[str, ...]


def _greedy_class(move: str) -> int:
    if move in ("draw", "redeal"):
        return 4
    if move.endswith(">F"):
        return 0
    if move.startswith("R>"):
        return 1
    if move.startswith("T"):
        return 2
    return 3  # W>Tn


def greedy_play(start: "Deal | Position", max_moves: int = MAX_PLAYOUT_MOVES) -> PlayerGame:
    """The documented greedy policy (see the module docstring), played to the end."""
    pos = Position(start) if isinstance(start, Deal) else start.copy()
    seen = {pos.key()}
    played: list[str] = []
    while not pos.is_won() and len(played) < max_moves:
        for move in sorted(pos.legal_moves(), key=_greedy_class):  # stable: keeps the engine's order in a class
            pos.play(move)
            k = pos.key()
            if k not in seen:
                seen.add(k)
                played.append(move)
                break
            pos.undo()
        else:
            break
    return PlayerGame(pos.is_won(), pos.score, tuple(played))


def random_play(start: "Deal | Position", rng: random.Random, max_moves: int = MAX_PLAYOUT_MOVES) -> PlayerGame:
    """One game of uniformly random legal moves that never return to a seen position."""
    pos = Position(start) if isinstance(start, Deal) else start.copy()
    seen = {pos.key()}
    played: list[str] = []
    while not pos.is_won() and len(played) < max_moves:
        fresh = []
        for move in pos.legal_moves():
            pos.play(move)
            if pos.key() not in seen:
                fresh.append(move)
            pos.undo()
        if not fresh:
            break
        move = fresh[rng.randrange(len(fresh))]
        pos.play(move)
        seen.add(pos.key())
        played.append(move)
    return PlayerGame(pos.is_won(), pos.score, tuple(played))


def rate(verdict: str, greedy_won: bool, random_rate: float | None, critical: int, nodes: int) -> str:
    """The difficulty rating (table in the module docstring)."""
    if verdict == Verdict.UNSOLVABLE:
        return "lost"
    if verdict != Verdict.SOLVED:
        return "unknown"
    if greedy_won or (random_rate or 0.0) > 0:
        return "easy"
    if critical <= 10 and nodes <= 10**4:
        return "medium"
    if critical <= 30 and nodes <= 10**6:
        return "hard"
    return "very hard"


@dataclass(frozen=True)
class Analysis:
    """The difficulty of one deal (``analyze``)."""

    rules: str
    seed: int | None
    verdict: str
    nodes: int
    seconds: float
    solution_length: int
    redeals: int
    best_score: int
    first_moves: int
    winning_first_moves: int
    unknown_first_moves: int
    critical_positions: int
    positions_probed: int
    greedy_won: bool
    greedy_score: int
    playouts: int
    random_wins: int
    random_best_score: int
    rating: str
    moves: tuple[str, ...] = ()
    limit: str | None = None
    total_seconds: float = 0.0  # the whole analysis: the search, the probes and the players (``seconds``: the search)

    @property
    def random_win_rate(self) -> float | None:
        return self.random_wins / self.playouts if self.playouts else None

    def metrics(self) -> dict[str, object]:
        d = self.to_dict()
        for k in ("rules", "seed", "verdict", "moves", "rating"):
            d.pop(k)
        return d

    def to_dict(self) -> dict[str, object]:
        d = {k: getattr(self, k) for k in self.__dataclass_fields__}
        d["moves"] = list(self.moves)
        d["seconds"] = round(self.seconds, 6)
        d["total_seconds"] = round(self.total_seconds, 6)
        d["random_win_rate"] = self.random_win_rate
        return d


class _Probes(NamedTuple):
    """How each probe searches: at most ``nodes`` nodes and ``memory_mb`` of table, and before ``deadline``
    (the analysis's own time limit: a probe that finds no time left is ``unknown`` without a search)."""

    nodes: int
    memory_mb: int
    deadline: Deadline


def _probe(pos: Position, how: _Probes) -> Verdict:
    left = how.deadline.left()
    if left is not None and left <= 0:
        return Verdict.UNKNOWN
    return solve(pos, max_nodes=how.nodes, max_memory_mb=how.memory_mb, max_seconds=left).verdict


def _first_moves(start: Position, first: list[str], how: _Probes) -> tuple[int, int]:
    """Winning first moves: each legal first move, then a bounded search; (won, unknown) among them."""
    win_first = unknown_first = 0
    for m in first:
        p = start.copy()
        p.play(m)
        v = Verdict.SOLVED if p.is_won() else _probe(p, how)
        win_first += v == Verdict.SOLVED
        unknown_first += v == Verdict.UNKNOWN
    return win_first, unknown_first


def _critical(start: Position, line: tuple[str, ...], how: _Probes) -> tuple[int, int]:
    """Critical positions along a winning ``line``: those with a move the probe proves losing; (critical
    positions, positions probed)."""
    critical = probed = 0
    pos = start.copy()
    for step in line:
        legal = pos.legal_moves()
        if step not in legal:
            raise RuntimeError(f"solution move {step!r} is not legal in the reference engine")
        for m in legal:
            if m == step:
                continue
            p = pos.copy()
            p.play(m)
            probed += 1
            if not p.is_won() and _probe(p, how) == Verdict.UNSOLVABLE:
                critical += 1
                break
        pos.play(step)
    return critical, probed


def _probe_counts(start: Position, first: list[str], res: "SolveResult", how: _Probes) -> tuple[int, int, int, int]:
    """The probes' counts: winning and undecided first moves, then critical positions and positions probed
    along a winning line (none for a deal not solved)."""
    win_first, unknown_first = _first_moves(start, first, how)
    critical, probed = _critical(start, res.moves, how) if res.solved else (0, 0)
    return win_first, unknown_first, critical, probed



def _the_deal(seed_or_deal: "int | Deal", rules: "str | Rules | None") -> Deal:
    """The deal to analyse: a seed's under ``rules`` (Canfield by default), or a deal, under ``rules`` if given."""
    if isinstance(seed_or_deal, Deal):
        return seed_or_deal if rules is None else Deal.from_dict(seed_or_deal.to_dict(), get_rules(rules))
    return Deal.from_seed(seed_or_deal, get_rules(rules or "canfield"))


class _Players(NamedTuple):
    """The greedy player's game and the random player's games of one analysis."""

    greedy: PlayerGame
    games: list[PlayerGame]

    @property
    def wins(self) -> int:
        return sum(g.won for g in self.games)

    @property
    def random_best(self) -> int:
        return max((g.score for g in self.games), default=0)


def _players(start: Position, playouts: int, playout_seed: int, deadline: Deadline) -> _Players:
    """The greedy game, and up to ``playouts`` random games seeded with ``playout_seed``, as many as
    ``deadline`` leaves time for (40,000 asked for once ran two minutes past a 2-s limit)."""
    rng = random.Random(playout_seed)
    games: list[PlayerGame] = []
    while len(games) < playouts and deadline.left() != 0.0:  # None: no limit
        games.append(random_play(start, rng))
    return _Players(greedy_play(start), games)


class Measures(TypedDict, total=False):
    """The measures behind the rating, as ``analyze``'s keywords: each probe's node limit, the random games
    played, and their generator's seed (defaults in ``MEASURES``)."""

    probe_nodes: int
    playouts: int
    playout_seed: int


MEASURES: Measures = {"probe_nodes": 20_000, "playouts": 50, "playout_seed": 0}


def _measures(given: "Measures") -> tuple[int, int, int]:
    """``analyze``'s measures, each given or its default, checked: (probe_nodes, playouts, playout_seed)."""
    unknown = sorted(set(given) - set(MEASURES))
    if unknown:
        raise TypeError(f"analyze() got an unexpected keyword argument {unknown[0]!r}")
    probe_nodes = given.get("probe_nodes", MEASURES["probe_nodes"])
    playouts = given.get("playouts", MEASURES["playouts"])
    playout_seed = given.get("playout_seed", MEASURES["playout_seed"])
    check_counts(probe_nodes=(probe_nodes, 1), playouts=(playouts, 0), playout_seed=(playout_seed, 0))
    return probe_nodes, playouts, playout_seed


def analyze(
    seed_or_deal: "int | Deal",
    rules: "str | Rules | None" = None,
    *,
    max_seconds: float | None = 30.0,
    max_nodes: int | None = None,
    max_memory_mb: int | None = None,
    progress: Callable[..., None] | None = None,
    **measures: "Unpack[Measures]",
) -> Analysis:
    """Measure how hard a deal is (see the module docstring for every metric and the rating).

    ``max_seconds`` bounds the whole analysis (a first compile included):
    the main search may take all of it, and the searches behind the
    first-move and critical-position counts run only in what it leaves
    (one that finds no time left counts as undecided); ``max_nodes``
    bounds the main search, ``probe_nodes`` each of those searches;
    ``playouts`` random games are played with ``random.Random(playout_seed)``, as many of them as
    ``max_seconds`` leaves time for (``Analysis.playouts`` says how many were played);
    ``progress`` is called as :func:`canfield_solver.solve` calls it, during the main search. The measures
    are keywords (``Measures``: ``probe_nodes=20_000``, ``playouts=50``, ``playout_seed=0`` by default).
    """
    probe_nodes, playouts, playout_seed = _measures(measures)
    deal = _the_deal(seed_or_deal, rules)
    t0 = time.perf_counter()
    check_limits(max_nodes, max_seconds)
    deadline = Deadline(max_seconds, t0)
    res = solve(deal, max_seconds=max_seconds, max_nodes=max_nodes, max_memory_mb=max_memory_mb,  # None: as solve()
                progress=progress)
    if res.limit == "interrupted":  # Ctrl-C in the main search ends the analysis: no probes, no players after it
        raise KeyboardInterrupt
    probe_mb = DEFAULT_MEMORY_MB if max_memory_mb is None else max_memory_mb  # a probe is a few thousand nodes
    start = Position(deal)
    first = start.legal_moves()
    win_first, unknown_first, critical, probed = _probe_counts(start, first, res, _Probes(probe_nodes, probe_mb,
                                                                                           deadline))
    pl = _players(start, playouts, playout_seed, deadline)
    verdict = res.verdict.value
    return Analysis(
        rules=deal.rules.name, seed=deal.seed, verdict=verdict,
        nodes=res.nodes, seconds=res.seconds,
        total_seconds=time.perf_counter() - t0,
        solution_length=len(res.moves),
        redeals=sum(m == "redeal" for m in res.moves),
        best_score=max(res.best_score, pl.greedy.score, pl.random_best),
        first_moves=len(first),
        winning_first_moves=win_first,
        unknown_first_moves=unknown_first,
        critical_positions=critical,
        positions_probed=probed,
        greedy_won=pl.greedy.won,
        greedy_score=pl.greedy.score,
        playouts=len(pl.games),
        random_wins=pl.wins,
        random_best_score=pl.random_best,
        rating=rate(verdict, pl.greedy.won, pl.wins / len(pl.games) if pl.games else None, critical, res.nodes),
        moves=res.moves,
        limit=res.limit,
    )
