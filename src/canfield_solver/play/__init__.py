"""Aids for a person playing one deal, on top of the solver: ``hint`` (can I still win, and what next),
``transcript`` (move lists a person can follow with real cards, and what a played log shows) and
``difficulty`` (how hard a deal is: effort, critical positions, greedy and random players, a rating)."""
