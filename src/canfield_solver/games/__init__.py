"""The other patiences of the same source (``MENDELEV.md`` beside the repository): each game has a room
here, a subpackage with its cards and deal of seed N, a plain-Python reference engine and a solver, on
the same verdicts and limits as Canfield's (``solver``). Canfield's own rooms are ``engine`` and ``search``.

Every game module has one shape (``games.base``): ``NAME``, ``VARIANTS``, ``deal(seed, variant)``,
``moves``, ``play``, ``won``, ``stalled`` (where the player chooses), ``solve`` and ``render``.

>>> from canfield_solver.games import get_game
>>> g = get_game("nine-packets")
>>> g.solve(g.deal(0)).verdict.value
'solved'
"""

from __future__ import annotations

from types import ModuleType

from . import aces_and_kings, nine_packets, suit_neighbours, ten_columns
from .base import GameError, GameResult

__all__ = ["GAMES", "GameError", "GameResult", "game_names", "get_game"]

GAMES: dict[str, ModuleType] = {m.NAME: m for m in (nine_packets, aces_and_kings, suit_neighbours, ten_columns)}
_VARIANT_OF = {v: m for m in GAMES.values() for v in m.VARIANTS}


def game_names() -> list[str]:
    """The games and their variants, by name."""
    return [n for m in GAMES.values() for n in (m.NAME, *m.VARIANTS)]


def get_game(name: str) -> ModuleType:
    """The module of game ``name`` (a variant's name gives its game's module; pass it on as ``variant``)."""
    m = GAMES.get(name) or _VARIANT_OF.get(name)
    if m is None:
        raise GameError(f"unknown game {name!r}; games: {', '.join(['canfield', *game_names()])}")
    return m
