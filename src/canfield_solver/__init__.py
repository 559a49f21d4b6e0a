"""canfield-solver: decide Canfield solitaire deals.

>>> from canfield_solver import Deal, Position
>>> Deal.from_seed(0).to_dict()["foundation"]
'8C'

``solve``, ``SolveResult`` and ``Verdict`` come from ``canfield_solver.solver``
and are loaded on first use, so the rules engine works without importing Numba.
"""

from __future__ import annotations

__version__ = "0.1.0"

from .cards import card_name, parse_card
from .deal import Deal
from .errors import CanfieldError, CardError, DealError, IllegalMoveError, MoveError, RulesError
from .game import Position, ReplayResult, replay
from .moves import Move, parse_move
from .replay_page import ReplayPage, show
from .rules import PRESETS, Rules, get_rules, preset_names

__all__ = [
    "__version__",
    "ReplayPage",
    "SolveResult",
    "Verdict",
    "solve",
    "CanfieldError",
    "CardError",
    "Deal",
    "DealError",
    "IllegalMoveError",
    "Move",
    "MoveError",
    "PRESETS",
    "Position",
    "ReplayResult",
    "Rules",
    "RulesError",
    "card_name",
    "get_rules",
    "parse_card",
    "parse_move",
    "preset_names",
    "replay",
    "show",
]


_SOLVER_NAMES = {"solve", "SolveResult", "Verdict", "SolverBugError"}


def __getattr__(name: str):  # PEP 562: import Numba only when the solver is used
    if name in _SOLVER_NAMES:
        from . import solver

        return getattr(solver, name)
    raise AttributeError(f"module 'canfield_solver' has no attribute {name!r}")
