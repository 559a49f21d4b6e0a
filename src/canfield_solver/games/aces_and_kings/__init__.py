"""``aces-and-kings`` and ``bisley`` (MENDELEV.md §2): the reference engine (``game``) and the solver."""

from .game import ACE, KING, NAME, VARIANTS, Position, apply, deal, legal, moves, play, render, stalled, won
from .solve import solve

__all__ = ["ACE", "KING", "NAME", "VARIANTS", "Position", "apply", "deal", "legal", "moves", "play", "render",
           "solve", "stalled", "won"]
