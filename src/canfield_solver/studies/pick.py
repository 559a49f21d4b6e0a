"""Picking deals for a player or an app: winnable deals of one difficulty rating, in number order.

``pick_deals`` studies numbers from ``first`` on (one study, each deal a task,
with the metrics behind the rating, ``play.difficulty``), and gives each won
deal of the wanted rating in number order as soon as it is known, until it
has ``count`` or has looked at ``max_candidates`` numbers. ``Picker.looked``
says how many it looked at. The study's settings are a ``StudySettings`` or its
fields as keywords (ten seconds a deal unless said).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Iterator

from ..engine.rules import Rules, get_rules
from ..solver import Verdict
from .settings import StudySettings, settings_of
from .stores import StoreOrPath
from .stores.sqlite import StoredResult
from .study import run_study, stored_rules

__all__ = ["DIFFICULTIES", "Picker", "pick_deals"]

if TYPE_CHECKING:  # the keywords' type for checkers (PEP 692)
    from typing_extensions import Unpack

    from .settings import SettingsFields

DIFFICULTIES = ("easy", "medium", "hard", "very-hard", "any")
DEFAULTS = StudySettings(max_seconds=10.0)  # a picker's: ten seconds a deal


class _Enough(Exception):
    """Raised from the study's row hook once the picker has its deals: ends the study there."""


class Picker:
    """Won deals of one rating from ``first`` on; iterate it for the deals, read ``looked`` afterwards.

    ``run(emit)`` is the streaming form: one study over the candidate numbers, each deal's row taken as it
    finishes, and ``emit(row)`` called for each pick in number order as soon as every lower number is
    done; the study stops once ``count`` are picked. ``progress(looked, found)`` is told each number
    looked at. Iterating the picker runs it and yields the picks."""

    def __init__(self, rules: "str | Rules", settings: StudySettings | None = None, *, difficulty: str = "any",
                 count: int = 10, first: int = 0, max_candidates: int | None = None, store: StoreOrPath = None,
                 **fields: "Unpack[SettingsFields]"):
        self.rules = get_rules(rules)
        # the study's settings (10 s a deal unless said), each deal analysed for its rating
        self.settings = settings_of(settings, fields, DEFAULTS).replace(with_metrics=True)
        stored_rules(self.rules, self.settings.numbering)  # refuses rules PySolFC does not deal before any work
        self.want = difficulty.replace("-", " ")
        self.count, self.first = count, first
        self.limit = max_candidates or 200 * count
        self.store = store
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
            run_study(self.rules, seeds, self.settings, store=self.store, on_row=take)
        except _Enough:
            pass

    def __iter__(self) -> Iterator[StoredResult]:
        picks: list[StoredResult] = []
        self.run(picks.append)
        yield from picks


def pick_deals(rules: "str | Rules", settings: StudySettings | None = None, *, difficulty: str = "any", count: int = 10,
               first: int = 0, max_candidates: int | None = None, store: StoreOrPath = None,
               **fields: "Unpack[SettingsFields]") -> Picker:
    """A ``Picker`` (see the module docstring): ``for row in pick_deals("canfield", difficulty="hard"): ...``;
    the study's settings a ``StudySettings`` or its fields as keywords (``jobs``, ``max_seconds``,
    ``numbering``, ...)."""
    return Picker(rules, settings_of(settings, fields, DEFAULTS), difficulty=difficulty, count=count, first=first,
                  max_candidates=max_candidates, store=store)
