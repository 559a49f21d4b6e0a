"""The other patiences of the same source (``MENDELEV.md`` beside the repository): each game gets a room
here, a subpackage with its cards and deal of seed N, a plain-Python reference engine and a solver, on
the same verdicts and limits as Canfield's (``solver``). Canfield's own rooms are ``engine`` and ``search``.

No game lives here yet; the import contract in pyproject.toml already keeps this package below the
surfaces and studies and apart from Canfield's search.
"""
