"""Canfield's rules and the plain-Python reference engine: cards (``cards``), rules and presets (``rules``),
deals (``deal``), moves (``moves``), positions (``position``), and the stuck-card rule as written (``stuck``,
the reference the kernel's test is checked against).

Nothing here knows about the search: this is the referee every other layer
plays by (``position.Position`` replays every line the solver returns). The four
other patiences of docs/games-spec.md get rooms of their own in ``canfield_solver.games``. How a deal or a
position draws itself in a notebook: ``display`` (the replay page's drawing, reached through a hook).
"""
