"""Canfield's rules and the plain-Python reference engine: cards, rules and presets, deals, moves, positions,
and the stuck-card rule as written (``stuck``, the reference the kernel's test is checked against).

Nothing here knows about the search: this is the referee every other layer
plays by (``position.Position`` replays every line the solver returns). The four
other patiences of docs/games-spec.md get rooms of their own in ``canfield_solver.games``.
"""
