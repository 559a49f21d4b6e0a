"""The ``canfield`` command: a thin click layer over the Python API.

Each command parses its options, calls the API, and prints. Exit codes: 0
success (``solve``: solved), 1 a negative answer (``solve``: unsolvable;
``check``: an illegal move), 2 bad input, 3 ``solve``: unknown, 130
interrupted, 70 a bug. Errors are one line on stderr, never a traceback.

- ``common``: the group (errors into one line and an exit code), the shared options, deal loading, notices.
- ``game``: one deal: ``deal``, ``check``, ``hint``, ``solve``, ``analyze``, ``show``, ``rules``.
- ``studies``: many deals: ``winrate``, ``export``, ``pick``, ``verify``.
- ``play``: ``play``, the local web app to play a deal in the browser (``surfaces.web``).
"""

from __future__ import annotations

from . import game, play, studies  # noqa: F401  (their commands join the group)
from .common import cli

__all__ = ["cli", "main"]


def main() -> None:
    cli.main(prog_name="canfield")
