"""The ``canfield`` command: a thin click layer over the Python API.

Each command parses its options, calls the API, and prints. Exit codes: 0
success (``solve``: solved), 1 a negative answer (``solve``: unsolvable;
``check``: an illegal move), 2 bad input, 3 ``solve``: unknown, 130
interrupted, 70 a bug. Errors are one line on stderr, never a traceback.

- ``common``: the group (errors into one line and an exit code; each command's module imported when the command
  is asked for), the shared options, deal loading, notices.
- ``one_deal``: one deal: ``deal``, ``check``, ``hint``, ``solve``, ``analyze``, ``show``, ``rules``.
- ``other_games``: the ``--game`` option and its checks, for the other games of docs/games-spec.md.
- ``studies``: many deals: ``winrate``, ``export``, ``stored``, ``pick``, ``verify``.
- ``play``: ``play``, the local web app to play a deal in the browser (``surfaces.web``).
- ``pysolfc``: ``pysolfc install-plugin | uninstall-plugin | status | winnable`` (``canfield_solver.pysolfc``).
- ``warmup``: ``warmup``, every first compile made now (``canfield_solver.warmup``).
"""

from __future__ import annotations

from .common import cli  # the commands join it from game, studies and play as they are asked for (common._Group)

__all__ = ["cli", "main"]


def main() -> None:
    cli.main(prog_name="canfield")
