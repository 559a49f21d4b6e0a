"""``aces-and-kings`` and ``bisley`` (GAMES §2): the reference engine (``game``), the solver (``solve``) and its
compiled search (``kernel``)."""

from ..base import plain_study
from .game import (
           ACE,
           KING,
           NAME,
           VARIANTS,
           Position,
           apply,
           cards_moved,
           deal,
           legal,
           moves,
           play,
           render,
           stalled,
           won,
)
from .solve import solve

CHOICES = True
study = plain_study(solve)
__all__ = ["cards_moved", "ACE", "CHOICES", "KING", "NAME", "VARIANTS", "Position", "apply", "deal", "legal", "moves", "play",
           "render", "solve", "stalled", "study", "won"]
