"""``suit-neighbours`` (GAMES §3): no choices, so the solver is the procedure itself (``game``), and every deal
is decided (``solve`` never returns unknown)."""

from __future__ import annotations

import time

from ...solver import Verdict
from ..base import GameError, GameResult, names, old_memory_name, plain_study
from .game import NAME, ROUNDS, VARIANTS, Removal, Trace, deal, lay, play_out, relay_order, render, won

__all__ = ["cards_moved", "CHOICES", "NAME", "ROUNDS", "VARIANTS", "Removal", "Trace", "deal", "lay", "play_out", "relay_order",
           "moves", "play", "render", "solve", "stalled", "study", "won"]

CHOICES = False  # the deal plays itself out


@old_memory_name
def solve(cards: tuple[int, ...], *, max_nodes: int | None = None, max_seconds: float | None = None,
          max_memory_mb: int | None = None, seed: int | None = None) -> GameResult:
    """Play the deal out: ``solved`` when four cards are left after round 3, else ``unsolvable``. The move list
    is empty (the player chooses nothing) and no position is searched (``nodes`` 0); ``extra`` holds the
    number of removals and the cards left after each round."""
    t0 = time.perf_counter()
    tr = play_out(cards)
    return GameResult(NAME, Verdict.SOLVED if tr.won else Verdict.UNSOLVABLE, (), 0, time.perf_counter() - t0, None,
                      seed, {"removals": len(tr.removals), "left_after_rounds": [len(e) for e in tr.ends],
                             "left": names(tr.left)})


study = plain_study(solve)


def moves(cards: tuple[int, ...]) -> list[str]:
    """None: the player chooses nothing (the deal plays itself out, ``play_out``)."""
    return []


def play(cards: tuple[int, ...], move: str) -> tuple[int, ...]:
    raise GameError(f"suit-neighbours has no moves to play ({move!r}): the deal plays itself out")


def stalled(cards: tuple[int, ...]) -> bool:
    """Never: nothing waits for the player."""
    return False


def cards_moved(cards: tuple[int, ...], move: str) -> list[int]:
    return []
