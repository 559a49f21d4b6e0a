"""Picking deals for a player or an app: winnable deals of one difficulty rating, in number order.

``pick_deals`` studies numbers from ``first`` on (one study, each deal a task,
with the metrics behind the rating, ``play.difficulty``), and gives each won
deal of the wanted rating in number order as soon as it is known, until it
has ``count`` or has looked at ``max_candidates`` numbers. ``Picker.looked``
says how many it looked at.
"""

from __future__ import annotations

from typing import Any, Callable, Iterator

from ..engine.rules import Rules, get_rules
from ..solver import Verdict
from .stores import StoreOrPath
from .stores.sqlite import StoredResult
from .study import run_study, stored_rules

__all__ = ["DIFFICULTIES", "Picker", "pick_deals"]

DIFFICULTIES = ("easy", "medium", "hard", "very-hard", "any")


class _Enough(Exception):
    """Raised from the study's row hook once the picker has its deals: ends the study there."""


class Picker:
    """Won deals of one rating from ``first`` on; iterate it for the deals, read ``looked`` afterwards.

    ``run(emit)`` is the streaming form: one study over the candidate numbers, each deal's row taken as it
    finishes, and ``emit(row)`` called for each pick in number order as soon as every lower number is
    done; the study stops once ``count`` are picked. ``progress(looked, found)`` is told each number
    looked at. Iterating the picker runs it and yields the picks."""

    def __init__(self, rules: "str | Rules", *, difficulty: str = "any", count: int = 10, first: int = 0,
                 numbering: str = "spec", max_candidates: int | None = None, jobs: int | None = None,
                 max_seconds: float | None = 10.0, store: StoreOrPath = None):
        self.rules = get_rules(rules)
        stored_rules(self.rules, numbering)  # refuses rules PySolFC does not deal before any work
        self.want = difficulty.replace("-", " ")
        self.count, self.first, self.numbering = count, first, numbering
        self.limit = max_candidates or 200 * count
        self.jobs, self.max_seconds, self.store = jobs, max_seconds, store
        self.looked = 0
        self.found = 0

    def wanted(self, row: StoredResult) -> bool:
        return row.verdict == Verdict.SOLVED and (self.want == "any" or row.rating == self.want)

    def run(self, emit: Callable[[StoredResult], None],
            progress: Callable[[int, int], None] | None = None) -> None:
        """Pick (see the class): ``emit`` each pick in number order as it is known."""
        waiting: dict[int, StoredResult] = {}  # rows of numbers above one still in flight

        def take(row: StoredResult) -> None:
            waiting[row.seed] = row
            while self.first + self.looked in waiting and self.found < self.count:
                nxt = waiting.pop(self.first + self.looked)
                self.looked += 1
                if self.wanted(nxt):
                    self.found += 1
                    emit(nxt)
                if progress is not None:
                    progress(self.looked, self.found)
            if self.found >= self.count:
                raise _Enough

        seeds = range(self.first, self.first + self.limit)
        try:
            run_study(self.rules, seeds, jobs=self.jobs, max_seconds=self.max_seconds, store=self.store,
                      with_metrics=True, numbering=self.numbering, on_row=take)
        except _Enough:
            pass

    def __iter__(self) -> Iterator[StoredResult]:
        picks: list[StoredResult] = []
        self.run(picks.append)
        yield from picks


def pick_deals(rules: "str | Rules", **options: Any) -> Picker:
    """A ``Picker`` (see the module docstring): ``for row in pick_deals("canfield", difficulty="hard"): ...``."""
    return Picker(rules, **options)
