"""``python -m canfield_solver``: the ``canfield`` command."""

from ._entry import main

main()
