"""A study's settings as one value: how each deal is searched, where, how its deals are numbered, and the
follow-up pass of a two-phase study.

Built once at the edge (the CLI's options, the keywords of ``estimate_win_rate`` and ``run_study``) and passed
whole to ``run_study``, ``run_followup``, ``run_two_phase`` and ``run_to_target``; nothing below unpacks it
into loose arguments again.

```python
>>> from canfield_solver.studies.settings import StudySettings
>>> s = StudySettings(max_seconds=2, jobs=2)
>>> s
StudySettings(max_seconds=2, jobs=2)
>>> s.followup_pass(threads=2).max_seconds
300.0
>>> StudySettings(jobs=0)
Traceback (most recent call last):
...
canfield_solver.studies.settings.SettingsError: jobs must be a whole number from 1 to 4096 (None for every core), not 0

```
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Mapping, TypedDict

from ..budget import check_counts, check_limits
from ..errors import CanfieldError
from ..formats import NUMBERINGS
from .stores.sqlite import RulesKey

__all__ = ["MAX_JOBS", "SettingsError", "SettingsFields", "StudySettings", "settings_of"]

MAX_JOBS = 4096  # local worker processes at most (a pool of more fails in the operating system, not here)


class SettingsError(CanfieldError):
    """A setting a study cannot run with (said before any deal is searched)."""


@dataclass(frozen=True)
class StudySettings:
    """How a study searches and keeps its deals.

    max_seconds, max_nodes, max_memory_mb
        Each deal's limits (its own search from its start) and its tables' cap in MiB (None: a share of this
        machine's free memory for each search that runs at once; a Dask cluster's and an analysis's, the
        solver's fixed default).
    jobs, threads, scheduler, chunk
        Local worker processes (None: the core count), search threads a deal, the Dask cluster at
        ``tcp://host:port`` instead of local processes, and deals a task (None: one, each stored as it ends).
    numbering
        ``"spec"`` seeds or ``"pysolfc"`` game numbers (stored apart, as ``<name>@pysolfc``).
    with_metrics, analyze_options
        Each deal analysed for its difficulty rating (``play.difficulty.analyze``, with these options) instead
        of only solved.
    store_as
        The rules the rows are kept under, when not the rules played (a follow-up's ``<name>+followup``).
    followup, followup_seconds, followup_nodes, followup_memory_mb, followup_seed
        A two-phase study's follow-up pass (``studies.two_phase``): ``followup`` of the first pass's unknowns,
        drawn by ``followup_seed``, searched again at these limits (``followup_memory_mb`` None: the study's);
        the options of ``canfield winrate`` of the same names.
    """

    max_seconds: float | None = 30.0
    max_nodes: int | None = None
    max_memory_mb: int | None = None
    jobs: int | None = None
    threads: int = 1
    scheduler: str | None = None
    chunk: int | None = None
    numbering: str = "spec"
    with_metrics: bool = False
    analyze_options: Mapping[str, Any] | None = None
    store_as: RulesKey | None = None
    followup: int = 0
    followup_seconds: float | None = 300.0
    followup_nodes: int | None = None
    followup_memory_mb: int | None = None
    followup_seed: int = 0

    def __post_init__(self) -> None:
        jobs = self.jobs
        if jobs is not None and (isinstance(jobs, bool) or not isinstance(jobs, int) or not 1 <= jobs <= MAX_JOBS):
            raise SettingsError(f"jobs must be a whole number from 1 to {MAX_JOBS} (None for every core), not {jobs!r}")
        if self.numbering not in NUMBERINGS:
            raise SettingsError(f"numbering must be one of {', '.join(NUMBERINGS)}, not {self.numbering!r}")
        try:
            chunk = {} if self.chunk is None else {"chunk": (self.chunk, 1)}
            check_counts(threads=(self.threads, 1), followup=(self.followup, 0), followup_seed=(self.followup_seed, 0),
                         **chunk)
            check_limits(self.max_nodes, self.max_seconds)
        except CanfieldError as e:
            raise SettingsError(str(e)) from None
        try:
            check_limits(self.followup_nodes, self.followup_seconds)
        except CanfieldError as e:
            raise SettingsError(str(e).replace("max_", "followup_", 1)) from None

    def __repr__(self) -> str:
        """The fields that differ from the defaults, as the call that makes these settings."""
        changed = [f"{f.name}={getattr(self, f.name)!r}" for f in dataclasses.fields(self)
                   if getattr(self, f.name) != f.default]
        return f"StudySettings({', '.join(changed)})"

    def replace(self, **changes: Any) -> "StudySettings":
        """These settings with ``changes`` (checked again)."""
        return dataclasses.replace(self, **changes)

    def followup_pass(self, *, threads: int, store_as: RulesKey | None = None) -> "StudySettings":
        """The settings a batch of the follow-up pass runs with: the follow-up's limits (its memory cap, else
        the study's), one deal a task on one local process with ``threads`` threads, kept under ``store_as``."""
        return self.replace(max_seconds=self.followup_seconds, max_nodes=self.followup_nodes,
                            max_memory_mb=self.followup_memory_mb or self.max_memory_mb, jobs=1, threads=threads,
                            chunk=1, store_as=store_as)


class SettingsFields(TypedDict, total=False):
    """``StudySettings``'s fields as keywords (``run_study(rules, seeds, max_seconds=2, jobs=2)``)."""

    max_seconds: float | None
    max_nodes: int | None
    max_memory_mb: int | None
    jobs: int | None
    threads: int
    scheduler: str | None
    chunk: int | None
    numbering: str
    with_metrics: bool
    analyze_options: Mapping[str, Any] | None
    store_as: RulesKey | None
    followup: int
    followup_seconds: float | None
    followup_nodes: int | None
    followup_memory_mb: int | None
    followup_seed: int


def settings_of(settings: StudySettings | None, fields: "Mapping[str, Any]", default: StudySettings | None = None
                ) -> StudySettings:
    """The settings of a call that takes a ``StudySettings`` or its fields as keywords (not both): the keywords
    over ``default`` (the function's own defaults, else ``StudySettings()``). An unknown keyword is a
    ``TypeError``, as for any function."""
    known = {f.name for f in dataclasses.fields(StudySettings)}
    unknown = sorted(set(fields) - known)
    if unknown:
        raise TypeError(f"unexpected keyword argument{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))} "
                        f"(a study takes StudySettings' fields: {', '.join(sorted(known))})")
    if settings is not None:
        if fields:
            raise TypeError("give the settings as a StudySettings or as keywords, not both")
        return settings
    return (default or StudySettings()).replace(**fields)

