"""A plan before the first deal: the shares and costs the project's own committed studies measured.

``winrate --target H --plan`` on a store that holds nothing yet cannot measure the win rate, the first
pass's unknown share, the follow-ups' win share or what each pass costs. For the presets (and the rules
grid's rule sets) the project has studied, ``priors.json`` (written by ``benchmarks/make_priors.py`` from
the committed dataset ``benchmarks/results/winrates``) holds those figures, keyed by the rules' id, so a
rules file that only shares a preset's name never takes its figures. ``prior_plan`` plans from them, with
nothing done yet; ``pilot_cost`` says what the pilot costs where there is no prior. Both read and write
nothing else.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, replace
from importlib import resources
from typing import Any

from ..engine.rules import Rules
from .stores.sqlite import rules_id
from .target import PILOT_DEALS, PILOT_FOLLOWUPS, Measured, Plan, plan_from

__all__ = ["Prior", "pilot_cost", "prior", "prior_plan"]


@dataclass(frozen=True)
class Prior:
    """What one committed study measured: ``deals`` first-pass deals (won / lost / unknown) at
    ``first_seconds`` a deal, ``followups`` follow-ups (won / lost / unknown) at ``followup_seconds``, their
    mean core-seconds ``c1`` and ``c2``, the two-phase estimate ``p`` (None before any follow-up), and the
    commit that measured it (``measured_at``, on the project's 2-core development machine)."""

    rules: str
    deals: int
    won: int
    lost: int
    unknown: int
    followups: int
    sample_won: int
    sample_lost: int
    sample_unknown: int
    c1: float
    c2: float
    p: float | None
    first_seconds: float
    followup_seconds: float
    measured_at: str

    def describe(self) -> str:
        return (f"the project's own study of {self.rules} ({self.deals:,} deals at {self.first_seconds:g} s, "
                f"{self.followups:,} follow-ups at {self.followup_seconds:g} s, measured at {self.measured_at} "
                f"on a 2-core machine)")


@functools.cache
def _table() -> dict[str, dict[str, Any]]:
    text = resources.files(__package__).joinpath("priors.json").read_text(encoding="utf-8")
    data: dict[str, dict[str, Any]] = json.loads(text)["rules"]
    return data


def prior(rules: Rules) -> Prior | None:
    """The committed study of exactly these rules (by their id), or None."""
    row = _table().get(rules_id(rules))
    return None if row is None else Prior(**row)


def prior_plan(rules: Rules, target: float) -> tuple[Plan, Prior] | None:
    """The plan for ``target`` points from the committed study of ``rules``, counting nothing as done (a new
    store starts from nothing); None where the project has no study of these rules."""
    pr = prior(rules)
    if pr is None:
        return None
    m = Measured(pr.deals, pr.won, pr.lost, pr.unknown, pr.followups, pr.sample_won, pr.sample_lost,
                 pr.sample_unknown, pr.c1, pr.c2, None)
    return replace(plan_from(m, target, pr.p), done_deals=0, done_followups=0), pr


def pilot_cost(first_seconds: float, followup_seconds: float, jobs: int, deals: int = PILOT_DEALS) -> tuple[float, float]:
    """The most the pilot can cost, in core-seconds and in wall seconds on ``jobs`` workers: ``deals`` deals
    at the first-pass limit, then ``PILOT_FOLLOWUPS`` follow-ups at theirs (each on every core)."""
    core = deals * first_seconds + PILOT_FOLLOWUPS * followup_seconds * jobs
    return core, deals * first_seconds / jobs + PILOT_FOLLOWUPS * followup_seconds
