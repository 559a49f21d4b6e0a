"""``nine-packets`` (GAMES §1): the reference engine (``game``) and the solver (``solve``)."""

from .game import (
           DECK,
           NAME,
           VARIANTS,
           Position,
           advice_move,
           cards_moved,
           deal,
           moves,
           pairs,
           play,
           render,
           stalled,
           won,
)
from .solve import play_advice, solve, study

CHOICES = True
__all__ = ["cards_moved", "CHOICES", "DECK", "NAME", "VARIANTS", "Position", "advice_move", "deal", "moves", "pairs", "play",
           "play_advice", "render", "solve", "stalled", "study", "won"]
