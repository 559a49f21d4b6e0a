"""canfield-solver: decide Canfield solitaire deals.

>>> from canfield_solver import Deal, solve
>>> Deal.from_seed(0).to_dict()["foundation"]
'8C'
>>> solve(2).verdict
<Verdict.SOLVED: 'solved'>

Importing the package does not import Numba: the search is loaded the first
time something is solved.
"""

from __future__ import annotations

from ._version import __version__
from .budget import Limit
from .engine.cards import card_name, parse_card
from .engine.deal import Deal
from .engine.game import Position, ReplayResult, replay
from .engine.moves import Move, parse_move
from .engine.rules import PRESETS, Rules, get_rules, preset_names
from .errors import (
    CanfieldError,
    CardError,
    DealError,
    IllegalMoveError,
    MoveError,
    RulesError,
    SolverBugError,
)
from .formats import from_solvitaire, pysolfc_deal, read_deal, read_moves, to_solvitaire
from .play.difficulty import Analysis, analyze
from .play.hint import Hint, hint
from .play.transcript import format_steps, review, steps
from .solver import SolveResult, Verdict, decide, solve
from .studies.seeds import SeedSet, parse_seeds
from .studies.study import WinRate, estimate_win_rate, run_study
from .surfaces.replay_page import ReplayPage, show

__all__ = [
    "__version__",
    # rules and the reference engine
    "Deal", "Move", "PRESETS", "Position", "ReplayResult", "Rules", "card_name", "get_rules", "parse_card",
    "parse_move", "preset_names", "replay",
    # errors
    "CanfieldError", "CardError", "DealError", "IllegalMoveError", "MoveError", "RulesError", "SolverBugError",
    # other formats
    "from_solvitaire", "pysolfc_deal", "read_deal", "read_moves", "to_solvitaire",
    # the solver
    "Limit", "SolveResult", "Verdict", "decide", "solve",
    # play aids
    "Analysis", "Hint", "analyze", "format_steps", "hint", "review", "steps",
    # studies
    "SeedSet", "WinRate", "estimate_win_rate", "parse_seeds", "run_study",
    # surfaces
    "ReplayPage", "show",
]
