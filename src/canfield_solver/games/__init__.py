"""The other patiences of the same source (the games' contract, docs/games-spec.md): each game has a room
here, a subpackage with its cards and deal of seed N, a plain-Python reference engine and a solver, on
the same verdicts and limits as Canfield's (``solver``): ``nine_packets``, ``ten_columns``, ``aces_and_kings``
(bisley too) and ``suit_neighbours``. Canfield's own rooms are ``engine`` and ``search``.

Every game module has one shape (``games.base``): ``NAME``, ``VARIANTS``, ``deal(seed, variant)``,
``moves``, ``play``, ``won``, ``stalled`` (where the player chooses), ``solve`` and ``render``. The compiled
searches are ``pairs_kernel`` (nine-packets, ten-columns) and ``aces_and_kings/kernel``; both read their move
codes from ``codes``. The game subpackages are imported on first use (``GAMES``, ``get_game``).

>>> from canfield_solver.games import get_game
>>> g = get_game("nine-packets")
>>> g.solve(g.deal(0)).verdict.value
'solved'
"""

from __future__ import annotations

import functools
import importlib
from typing import Any

from .base import AnyGame, GameError, GameKey, GameResult, old_memory_name

__all__ = ["DESCRIPTIONS", "GAMES", "GameError", "GameKey", "GameResult", "analyze_game", "deal_of", "game_names", "get_game", "study_result"]

# The game packages, imported on first use (``GAMES``, ``get_game``): naming the games (``game_names``, the
# CLI's --game choices) imports none of them, so a Canfield command does not pay for four games' imports.
_PACKAGES = ("nine_packets", "aces_and_kings", "suit_neighbours", "ten_columns")


@functools.cache
def _games() -> dict[str, AnyGame]:
    return {m.NAME: m for m in (importlib.import_module(f"{__name__}.{p}") for p in _PACKAGES)}


@functools.cache
def _variant_of() -> dict[str, AnyGame]:
    return {v: m for m in _games().values() for v in m.VARIANTS}


def __getattr__(name: str) -> dict[str, AnyGame]:
    """``GAMES``: each game's module by its name (imported on first use)."""
    if name == "GAMES":
        return _games()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

DESCRIPTIONS = {
    "nine-packets": "36 cards in nine face-down packets of four; remove face-up pairs of one rank (GAMES §1)",
    "aces-and-kings": "13 columns; build up on the aces and down on the kings; columns build up or down in "
                      "colour (§2)",
    "bisley": "aces-and-kings with the columns built in suit",
    "suit-neighbours": "one line of 52; remove by suit neighbours in three rounds; no choices (§3)",
    "ten-columns": "five rows of ten and two cards placed by the player; remove free pairs of one rank (§4)",
    "ten-columns-dealt": "ten-columns with the last two cards dealt under columns 1 and 2",
}


def game_names() -> list[str]:
    """The games and their variants, by name (``DESCRIPTIONS``' keys: tests/test_games.py checks them against
    the modules)."""
    return list(DESCRIPTIONS)


def get_game(name: str) -> AnyGame:
    """The module of game ``name`` (a variant's name gives its game's module; pass it on as ``variant``)."""
    m = _games().get(name) or _variant_of().get(name)
    if m is None:
        raise GameError(f"unknown game {name!r}; games: {', '.join(['canfield', *game_names()])}")
    return m


def deal_of(name: str, seed: int) -> Any:
    """The position of the deal of ``seed`` in game (or variant) ``name``."""
    m = get_game(name)
    return m.deal(seed, name if name in m.VARIANTS else None)


@old_memory_name
def study_result(name: str, seed: int, *, max_nodes: int | None = None, max_seconds: float | None = None,
                 max_memory_mb: int | None = None) -> tuple[GameResult, dict[str, object]]:
    """One deal of a study: the solver's result, and the game's own figures (``metrics``, from the game's
    ``study``): for ``nine-packets`` whether the page's advice wins, for ``ten-columns`` how many of the 90
    placements of the last two cards win (then the verdict is won when any does)."""
    return get_game(name).study(deal_of(name, seed), max_nodes=max_nodes, max_seconds=max_seconds,
                                max_memory_mb=max_memory_mb, seed=seed)


def analyze_game(name: str, seed: int, *, max_seconds: float | None = 30.0, probe_nodes: int = 200_000) -> dict[str, object]:
    """How hard a deal of game ``name`` is: the solver's verdict and effort, the game's own figures
    (``study_result``), and for a won deal of a game with choices, its critical positions: the positions
    on the winning line where some legal move throws the win away (each move probed by a search of at
    most ``probe_nodes`` nodes; a probe stopped by it counts as neither)."""
    from ..solver import Verdict
    from .base import replay

    m = get_game(name)
    r, metrics = study_result(name, seed, max_seconds=max_seconds)
    out: dict[str, object] = {"game": name, "seed": seed, "verdict": r.verdict.value, "nodes": r.nodes,
                 "seconds": round(r.seconds, 6), "limit": r.limit, **metrics, **r.extra}
    if r.verdict is Verdict.SOLVED and m.CHOICES:
        line = r.moves or m.solve(deal_of(name, seed), max_seconds=max_seconds).moves
        out["solution_length"] = len(line)
        p = deal_of(name, seed)
        critical = losing = probes = 0
        for k in range(len(line)):
            q = replay(m.play, p, line[:k])
            bad = 0
            for mv in m.moves(q):
                probes += 1
                v = m.solve(m.play(q, mv), max_nodes=probe_nodes).verdict
                bad += v is Verdict.UNSOLVABLE
            losing += bad
            critical += bad > 0
        out.update(critical_positions=critical, losing_moves=losing, moves_probed=probes)
    return out
