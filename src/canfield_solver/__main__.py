"""``python -m canfield_solver``: the ``canfield`` command."""

from .surfaces.cli import main

main()
