"""Picking deals for a player or an app: winnable deals of one difficulty rating, in number order.

``pick_deals`` studies numbers from ``first`` on, in batches (with the
metrics behind the rating, ``play.difficulty``), and yields each won deal
of the wanted rating as it is found, until it has ``count`` or has looked
at ``max_candidates`` numbers. ``Picker.looked`` says how many it looked at.
"""

from __future__ import annotations

import os
from typing import Any, Iterator

from ..engine.rules import Rules, get_rules
from ..solver import Verdict
from .store import StoredResult
from .study import run_study, stored_rules

__all__ = ["DIFFICULTIES", "Picker", "pick_deals"]

DIFFICULTIES = ("easy", "medium", "hard", "very-hard", "any")


class Picker:
    """Won deals of one rating from ``first`` on; iterate it for the deals, read ``looked`` afterwards."""

    def __init__(self, rules: "str | Rules", *, difficulty: str = "any", count: int = 10, first: int = 0,
                 numbering: str = "spec", max_candidates: int | None = None, jobs: int | None = None,
                 max_seconds: float | None = 10.0, store: Any = None):
        self.rules = get_rules(rules)
        stored_rules(self.rules, numbering)  # refuses rules PySolFC does not deal before any work
        self.want = difficulty.replace("-", " ")
        self.count, self.first, self.numbering = count, first, numbering
        self.limit = max_candidates or 200 * count
        self.jobs, self.max_seconds, self.store = jobs, max_seconds, store
        self.looked = 0
        self.found = 0

    def __iter__(self) -> Iterator[StoredResult]:
        batch = max(2 * (self.jobs or os.cpu_count() or 1), min(self.count * 4, 64))
        while self.found < self.count and self.looked < self.limit:
            start = self.first + self.looked
            seeds = list(range(start, min(start + batch, self.first + self.limit)))
            self.looked += len(seeds)
            wr = run_study(self.rules, seeds, jobs=self.jobs, max_seconds=self.max_seconds, store=self.store,
                           with_metrics=True, numbering=self.numbering)
            for row in wr.results:
                if row.verdict == Verdict.SOLVED and (self.want == "any" or row.rating == self.want) \
                        and self.found < self.count:
                    self.found += 1
                    yield row


def pick_deals(rules: "str | Rules", **options: Any) -> Picker:
    """A ``Picker`` (see the module docstring): ``for row in pick_deals("canfield", difficulty="hard"): ...``."""
    return Picker(rules, **options)
