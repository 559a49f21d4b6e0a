"""``ten-columns`` (GAMES §4): the reference engine (``game``) and the solver (``solve``)."""

from .game import (
           NAME,
           VARIANTS,
           Position,
           cards_moved,
           deal,
           moves,
           pairs,
           place,
           placements,
           play,
           remove,
           render,
           stalled,
           won,
)
from .solve import placement_wins, solve, study

CHOICES = True
__all__ = ["cards_moved", "CHOICES", "NAME", "VARIANTS", "Position", "deal", "moves", "pairs", "place", "placement_wins",
           "placements", "play", "remove", "render", "solve", "stalled", "study", "won"]
