"""A win rate to a precision the user names: how many deals and follow-ups, at the least core-time.

A two-phase study (``two_phase``) has two knobs: ``N`` deals in the first pass (``c1`` core-seconds each)
and ``n`` follow-ups of its unknowns (``c2`` each). Its variance is ``A / N + B / n`` (less the finite-
population term) with ``A = p (1 - p)`` and ``B = u^2 q (1 - q)``: ``p`` the win rate, ``u`` the first
pass's unknown share, ``q`` the follow-ups' win share; with the finite-population term it is
``A' / N + B / n``, ``A' = A - B / u``. The cheapest pair that reaches a variance ``V``
(``V = ((h - f) / z)^2`` for a half-width ``h``, where ``f``, the floor below, is the part of the
interval that sampling cannot shrink) minimises ``c1 N + c2 n`` under ``A / N + B / n = V``;
Lagrange's condition gives (Cochran, *Sampling Techniques*, §12.3, the optimum for double sampling)::

    S = sqrt(A' c1) + sqrt(B c2)
    N = sqrt(A' / c1) * S / V       n = sqrt(B / c2) * S / V

with the cost ``S^2 / V``. Where that ``n`` is more than the unknowns there are (``n > u N``), every
unknown is followed up (the second term vanishes) and ``N = A / V``. ``plan`` does this from measured
shares and costs; ``run_to_target`` measures them on a pilot, runs the plan in batches (each at most
doubling what is done), measures and plans again, and stops when the interval's half-width, recounted
from the store, is at most the target.

Follow-up deals that stay unknown at the follow-up limit are counted both ways in the interval: they
widen it by ``u * s`` (``s`` their share of the sample) whatever is sampled, so its half-width is at least
``floor = u * s / 2``; a longer ``--followup-seconds`` is then what helps, not more deals.
"""

from __future__ import annotations

import math
import os
from contextlib import closing
from dataclasses import dataclass, replace
from typing import Callable

from ..engine.rules import Rules, get_rules
from ..errors import CanfieldError
from ..solver import Verdict
from .settings import StudySettings
from .stores import Store, StoreOrPath, store_at
from .stores.sqlite import RulesKey
from .study import Z95, ProgressFn, StudyError, WinRate, run_study, stored_rules
from .two_phase import TwoPhase, followup_rules, recount, run_followup

PILOT_DEALS = 1_000   # the first pass's pilot: enough for p and u within a few points
PILOT_FOLLOWUPS = 20  # the follow-up's pilot (or every unknown, when fewer)


@dataclass(frozen=True)
class Figures:
    """What a plan is made from (see the module): the win rate ``p``, the first pass's unknown share ``u``, the
    follow-ups' win share ``q``, the core-seconds of a deal ``c1`` and of a follow-up ``c2``, what is done
    (``done_deals``, ``done_followups``), and the half-width the sample's own unknowns keep (``floor``)."""

    p: float
    u: float
    q: float
    c1: float
    c2: float
    done_deals: int = 0
    done_followups: int = 0
    floor: float = 0.0


@dataclass(frozen=True, kw_only=True)
class Plan(Figures):
    """How many deals (``deals``) and follow-ups (``followups``) reach ``target`` (half-width, points) at the
    least core-time, with the figures it was made from (``Figures``: the shares ``p``, ``u``, ``q``, the costs
    ``c1``, ``c2`` in core-s, what is done, the ``floor``); ``core_seconds`` is the projected cost of all of
    it, ``more_core_seconds`` of what is not done yet."""

    target: float
    deals: int
    followups: int
    core_seconds: float
    assumed: tuple[str, ...] = ()  # figures not measured (no follow-up yet, too few deals): said as such

    @property
    def more_core_seconds(self) -> float:
        return max(0, self.deals - self.done_deals) * self.c1 + max(0, self.followups - self.done_followups) * self.c2

    @property
    def reachable(self) -> bool:
        return self.floor < self.target

    def __str__(self) -> str:
        text = (f"plan for ±{self.target:g} points: {self.deals:,} deals ({self.done_deals:,} done) and "
                f"{self.followups:,} follow-ups ({self.done_followups:,} done); first pass won {100 * self.p:.1f}% of all deals "
                f"(an unknown counted as not won), unknown share {100 * self.u:.1f}%, follow-up win share {100 * self.q:.1f}%, "
                f"{self.c1:.3f} core-s a deal, {self.c2:.1f} a follow-up: about {self.more_core_seconds:,.0f} "
                f"core-s more ({self.core_seconds:,.0f} in all)")
        if self.assumed:
            text += f"; ASSUMED, not measured: {', '.join(self.assumed)}"
        if not self.reachable:
            text += (f"; NOT reachable by sampling: the follow-ups left unknown keep the interval at least "
                     f"±{self.floor:.2f} points wide: raise --followup-seconds")
        return text


def _agresti(p: float, n: int) -> float:
    return (p * n + 2) / (n + 4)


def plan(target: float, figures: Figures, *, z: float = Z95) -> Plan:
    """The cheapest (deals, follow-ups) whose interval is ``target`` points wide each side (see the module).
    Shares and costs are measured ones; the answer never asks for less than is done."""
    p, u, q, c1, c2 = figures.p, figures.u, figures.q, figures.c1, figures.c2
    done_deals, done_followups, floor = figures.done_deals, figures.done_followups, figures.floor
    if not target > 0:
        raise CanfieldError(f"the target half-width must be a positive number of points, not {target!r}")
    c1, c2 = max(c1, 1e-6), max(c2, 1e-6)
    # The interval's wider side is ``floor`` (the sample's unknowns, counted both ways) plus z standard errors:
    # sampling must bring the standard error within what the floor leaves of the target.
    v = (max(target - floor, target * 1e-3) / 100 / z) ** 2
    a = p * (1 - p)
    b = (u * u) * q * (1 - q)
    if b <= 0:  # no unknowns, or follow-ups that all go one way: the first pass alone
        n_deals, n_follow = a / v, 0.0
    else:
        # With the finite-population term the variance is A'/N + B/n, A' = A - B/u (Cochran's form).
        a1 = max(a - b / u, 1e-12)
        s = math.sqrt(a1 * c1) + math.sqrt(b * c2)
        n_deals = math.sqrt(a1 / c1) * s / v
        n_follow = math.sqrt(b / c2) * s / v
        if n_follow > u * n_deals:  # more follow-ups than unknowns: follow every unknown up
            n_deals = a / v
            n_follow = u * n_deals
    deals = max(done_deals, math.ceil(n_deals))
    followups = max(done_followups, min(math.ceil(n_follow), math.floor(u * deals) if u else 0))
    return Plan(p=p, u=u, q=q, c1=c1, c2=c2, done_deals=done_deals, done_followups=done_followups, floor=floor,
                target=target, deals=deals, followups=followups, core_seconds=deals * c1 + followups * c2)


@dataclass(frozen=True)
class Measured:
    """What the store says of a study over seeds ``0..deals-1``: counts, the follow-ups, mean core-s."""

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
    two_phase: TwoPhase | None

    @property
    def half_width(self) -> float | None:
        """The 95% interval's half-width in points (half its width, as docs/win-rates.md's ± column), or None
        before there is an estimate."""
        tp = self.two_phase
        return None if tp is None else half_width(tp)


def _within(hw: float | None, target: float) -> bool:
    return hw is not None and hw <= target


def half_width(tp: TwoPhase) -> float | None:
    """The 95% interval's half-width in points of a two-phase estimate (None before there is one)."""
    if tp.estimate is None:
        return None
    lo, hi = tp.interval
    return 100 * (hi - lo) / 2


def measure(st: Store, rules: RulesKey, deals: int, sample_seed: int = 0, followup_threads: int = 1) -> Measured:
    """The study of ``rules`` over seeds ``0..deals-1`` as the store holds it. A follow-up's core-seconds are
    its stored seconds times the threads it searched with, ``followup_threads`` where its row does not say
    (rows stored before the store kept threads); a first-pass deal has one thread."""
    ranges = [(0, deals)]
    rows = st.results_in(rules, ranges)
    fol = st.results_in(followup_rules(rules), ranges)
    won = sum(r.verdict == Verdict.SOLVED.value for r in rows)
    lost = sum(r.verdict == Verdict.UNSOLVABLE.value for r in rows)
    unknown = sum(r.verdict == Verdict.UNKNOWN.value for r in rows)
    tp = recount(st, rules, ranges, sample_seed)
    c1 = sum(r.seconds for r in rows) / len(rows) if rows else 0.3
    c2 = sum(r.seconds * (r.threads or followup_threads) for r in fol) / len(fol) if fol else 30.0
    sw = tp.sample_won if tp else 0
    sl = tp.sample_lost if tp else 0
    su = tp.sample_unknown if tp else 0
    return Measured(len(rows), won, lost, unknown, sw + sl + su, sw, sl, su, c1, c2, tp)


def plan_from(m: Measured, target: float, estimate: float | None = None) -> Plan:
    """``plan`` from what is measured (shares with Agresti and Coull's adjustment, so a pilot that happens
    to be all one way still plans for some spread); ``estimate``, the win rate where ``m`` has no two-phase
    estimate of its own (a committed study's, studies.priors)."""
    n = m.won + m.lost + m.unknown
    u = m.unknown / n if n else 0.0
    decided_q = m.sample_won + m.sample_lost
    q = _agresti(m.sample_won / decided_q, decided_q) if decided_q else 0.5
    if m.two_phase and m.two_phase.estimate is not None:
        p = m.two_phase.estimate
    elif estimate is not None:
        p = estimate
    else:
        p = m.won / n if n else 0.5
    s_unknown = m.sample_unknown / m.followups if m.followups else 0.0
    floor = 100 * u * s_unknown / 2  # the sample's unknowns, counted both ways, widen the interval by 2 floors
    assumed = []
    if n < PILOT_DEALS // 10:
        assumed.append(f"the win rate and unknown share (from {n} deals only)")
    if m.unknown and not decided_q:
        assumed.append("the follow-up win share (50%: no follow-up decided yet)")
    if m.unknown and not m.followups:
        assumed.append(f"the follow-up cost ({m.c2:g} core-s: no follow-up stored)")
    figures = Figures(_agresti(p, n), u, q, m.c1, m.c2, done_deals=m.deals, done_followups=m.followups, floor=floor)
    return replace(plan(target, figures), assumed=tuple(assumed))


ReportFn = Callable[[str], None]


MAX_ROUNDS = 50  # rounds of measuring and planning again before a study to a target gives up


def run_to_target(
    rules: "str | Rules",
    target: float,
    settings: StudySettings,
    *,
    store: StoreOrPath,
    pilot: int = PILOT_DEALS,
    say: ReportFn | None = None,
    progress: ProgressFn | None = None,
    followup_progress: ProgressFn | None = None,
) -> tuple[WinRate, Plan]:
    """Run a two-phase study of ``rules`` over seeds ``0..N-1`` until its 95% interval is at most ``target``
    points each side (see the module): the first pass's rows and the follow-ups resume from ``store`` (a
    result store or a path, required). ``settings``: the passes' limits, workers and the follow-ups' draw
    (``StudySettings``; its ``followup`` count is the plan's, not read). Returns the study's ``WinRate``
    (with ``two_phase``) and the last plan. Raises ``StudyError`` when the target cannot be reached by
    sampling (``Plan.reachable``)."""
    if not target > 0:
        raise CanfieldError(f"the target half-width must be a positive number of points, not {target!r}")
    if store is None:
        raise StudyError("--target needs a result store (--db or --parquet-dir): it plans from what is stored")
    r = get_rules(rules)
    kept = stored_rules(r)
    tell = say or (lambda _s: None)
    seed = settings.followup_seed
    with store_at(store) as st:
        assert st is not None
        deals = max(pilot, stored_extent(st, kept))
        # a resumed study starts from the follow-ups it holds: its first round then re-searches nothing
        held = recount(st, kept, [(0, deals)], seed)
        followups = max(PILOT_FOLLOWUPS, held.sample_size if held else 0)
        last: Plan | None = None
        for _ in range(MAX_ROUNDS):
            first = run_study(r, range(deals), settings, store=st, progress=progress)
            this_round = settings.replace(followup=min(followups, first.unknown))
            tp = run_followup(r, range(deals), first, this_round, store=st, progress=followup_progress,
                              enough=lambda t: _within(half_width(t), target))
            m = measure(st, kept, deals, seed, 1 if settings.scheduler else (settings.jobs or os.cpu_count() or 1))
            last = plan_from(m, target)
            hw = m.half_width
            tell(f"{deals:,} deals, {m.followups:,} follow-ups: half-width "
                 f"{'n/a' if hw is None else f'±{hw:.2f}'} points; {last}")
            if _within(hw, target):
                # the estimate is the store's recount (every follow-up held, not only this round's sample)
                return replace(first, two_phase=m.two_phase or tp), last
            if not last.reachable:
                raise StudyError(f"±{target:g} points cannot be reached by sampling: the {m.sample_unknown} of "
                                 f"{m.followups} follow-ups left unknown at {settings.followup_seconds:g} s keep the "
                                 f"interval at least ±{last.floor:.2f} points wide; a longer --followup-seconds would help")
            deals, followups = _next_round(last, deals, m.followups)
        raise StudyError(f"the target was not reached in {MAX_ROUNDS} rounds; {last}")


def _next_round(last: Plan, deals: int, followups: int) -> tuple[int, int]:
    """The next round's deals and follow-ups: toward the plan, at most doubling what is done (the plan settles
    as it grows); where the plan is met but the interval not yet (the shares moved), a quarter more of each."""
    grow = last.deals <= deals and last.followups <= followups
    if grow:
        return deals + deals // 4 + 1, followups + followups // 4 + 1
    return min(last.deals, 2 * deals), max(followups + 1, min(last.followups, 2 * max(followups, 1)))


def stored_extent(st: Store, kept: RulesKey) -> int:
    """How far seeds 0.. are done in the store: the largest k with every seed below k stored (a resumed run
    starts its first batch there; counts grow with k, so a binary search finds it)."""
    lo, hi = 0, 1 << 24
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if sum(st.count_verdicts(kept, [(0, mid)]).values()) == mid:
            lo = mid
        else:
            hi = mid - 1
    return lo


def planned(rules: "str | Rules", target: float, *, db: "str | os.PathLike[str] | None" = None, parquet: "str | os.PathLike[str] | None" = None,
            sample_seed: int = 0, followup_threads: int | None = None) -> Plan | None:
    """The plan for ``target`` from what a store or dataset holds of ``rules`` (``--plan``); None when there is
    no such store yet or it holds no first-pass rows to measure (run the pilot first). Writes nothing."""
    from .stores import open_stored

    kept = stored_rules(get_rules(rules))
    if (db is not None and not os.path.exists(db)) or (parquet is not None and not os.path.isdir(parquet)):
        return None  # no store yet: nothing measured (studies.priors plans from the project's own studies)
    st = open_stored(db, parquet)
    if st is None:
        return None
    with closing(st):
        deals = stored_extent(st, kept)
        if deals == 0:
            return None
        return plan_from(measure(st, kept, deals, sample_seed, followup_threads or os.cpu_count() or 1), target)


__all__ = ["MAX_ROUNDS", "Figures", "Measured", "Plan", "measure", "plan", "plan_from", "planned", "run_to_target", "stored_extent"]
