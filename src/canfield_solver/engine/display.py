"""How a deal, a position or a solve's result draws itself in a notebook (``_repr_html_``): as the replay page
draws it. The page is a surface, layers above this one, so it is reached through one hook that the package
root sets (``canfield_solver/__init__.py``, above every layer); nothing here imports upward, and where no hook
is set (or it cannot draw the value) the notebook shows the plain ``repr``."""

from __future__ import annotations

from typing import Callable

DRAW: list[Callable[[object], "str | None"]] = []  # the root's hook, set when the package is imported


def html(obj: object) -> str | None:
    """``obj`` drawn as HTML by the hook; None where there is none or it cannot draw ``obj``."""
    return DRAW[0](obj) if DRAW else None
