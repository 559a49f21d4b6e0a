"""Exception types. Every error a user can cause is a ``CanfieldError``.

They subclass ``ValueError`` so callers that only know the standard library
can still catch them, and their messages are one line that names the problem.
"""

from __future__ import annotations


class CanfieldError(ValueError):
    """Base class for every error caused by bad input."""


class CardError(CanfieldError):
    """Unknown card text."""


class RulesError(CanfieldError):
    """Unknown preset or an invalid rules parameter."""


class DealError(CanfieldError):
    """A malformed or impossible deal (missing, duplicated or misplaced cards)."""


class MoveError(CanfieldError):
    """Move text that is not SPEC §4 notation."""


class IllegalMoveError(CanfieldError):
    """A well-formed move that the rules do not allow in this position."""

    def __init__(self, message: str, index: int | None = None, move: str | None = None):
        super().__init__(message)
        self.index = index
        self.move = move


class SolverBugError(RuntimeError):
    """The fast solver returned a line the reference engine refuses: a bug, never user error."""


def install_hint(extra: str) -> str:
    """How to install an optional extra, as the README installs the package (from its folder)."""
    return f"pip install '.[{extra}]' in the canfield-solver folder"
