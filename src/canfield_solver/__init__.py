"""canfield-solver: decide Canfield solitaire deals.

>>> from canfield_solver import Deal, solve
>>> Deal.from_seed(0).to_dict()["foundation"]
'8C'
>>> solve(2).verdict
<Verdict.SOLVED: 'solved'>

Importing the package does not import Numba: the search is loaded the first
time something is solved.

Its parts, each a room of its own: the rules and the reference engine (``engine``), the search (``search``)
and ``solver`` over it, the other patiences (``games``), studies of many deals (``studies``), how hard a
deal is (``play``), deals from files and other apps (``formats``, ``pysolfc``), the command, the replay pages
and the web app (``surfaces``); beside them the limits (``budget``), the memory cap (``memory``), the compile
registry and its warm-up (``compiles``, ``jit``, ``warmup``), the command's start-up (``startup``), child
processes (``processes``), files written whole (``files``) and the errors a user sees (``errors``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .engine import display as _display

if TYPE_CHECKING:  # what type checkers and editors read; at run time each name is imported when first used
    from ._version import __version__
    from .budget import Limit
    from .engine.cards import card_name, parse_card
    from .engine.deal import Deal
    from .engine.moves import Move, parse_move
    from .engine.position import Position, ReplayResult, replay
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
    from .solver import Result, SolveResult, Verdict, decide, schedule_of, solve
    from .studies.seeds import SeedSet, parse_seeds
    from .studies.study import StudyError, WinRate, estimate_win_rate, run_study
    from .surfaces.replay_page import ReplayPage, show

# Each public name and the module it comes from: imported on first use (PEP 562), so that ``import
# canfield_solver`` (and a warm ``canfield solve``, which needs few of them) does not pay for them all.
_WHERE = {
    "__version__": "._version",
    "Limit": ".budget",
    "card_name": ".engine.cards",
    "parse_card": ".engine.cards",
    "Deal": ".engine.deal",
    "Position": ".engine.position",
    "ReplayResult": ".engine.position",
    "replay": ".engine.position",
    "Move": ".engine.moves",
    "parse_move": ".engine.moves",
    "PRESETS": ".engine.rules",
    "Rules": ".engine.rules",
    "get_rules": ".engine.rules",
    "preset_names": ".engine.rules",
    "CanfieldError": ".errors",
    "CardError": ".errors",
    "DealError": ".errors",
    "IllegalMoveError": ".errors",
    "MoveError": ".errors",
    "RulesError": ".errors",
    "SolverBugError": ".errors",
    "from_solvitaire": ".formats",
    "pysolfc_deal": ".formats",
    "read_deal": ".formats",
    "read_moves": ".formats",
    "to_solvitaire": ".formats",
    "Analysis": ".play.difficulty",
    "analyze": ".play.difficulty",
    "Hint": ".play.hint",
    "hint": ".play.hint",
    "format_steps": ".play.transcript",
    "review": ".play.transcript",
    "steps": ".play.transcript",
    "Result": ".solver",
    "SolveResult": ".solver",
    "Verdict": ".solver",
    "decide": ".solver",
    "schedule_of": ".solver",
    "solve": ".solver",
    "SeedSet": ".studies.seeds",
    "parse_seeds": ".studies.seeds",
    "StudyError": ".studies.study",
    "WinRate": ".studies.study",
    "estimate_win_rate": ".studies.study",
    "run_study": ".studies.study",
    "ReplayPage": ".surfaces.replay_page",
    "show": ".surfaces.replay_page",
}


def _draw(obj: object) -> str | None:
    """The notebook drawing of a deal, a position or a result (``engine.display``'s hook): the replay page's,
    imported when first drawn."""
    from .surfaces.replay_page import notebook_html

    return notebook_html(obj)


_display.DRAW[:] = [_draw]


def __getattr__(name: str) -> object:
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(where, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


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
    "Limit", "Result", "SolveResult", "Verdict", "decide", "schedule_of", "solve",
    # play aids
    "Analysis", "Hint", "analyze", "format_steps", "hint", "review", "steps",
    # studies
    "SeedSet", "StudyError", "WinRate", "estimate_win_rate", "parse_seeds", "run_study",
    # surfaces
    "ReplayPage", "show",
]
