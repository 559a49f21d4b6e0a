"""Two-phase studies: every deal at a short limit, then a random sample of its unknowns at a long one.

A first pass at a short limit decides most deals cheaply. The deals it
leaves unknown are the hard ones, and they are not like the rest (nearly
all of them are lost), so neither "unknown = lost" nor "drop the unknowns"
is a fair estimate, and searching all of them to the end is what makes a
study expensive. The follow-up pass searches a seeded random sample of
them again at a second, larger limit, and the win rate is the stratified
(double-sampling) estimate::

    p = (W + U * w / n) / N

with ``N`` deals, ``W`` won and ``U`` unknown in the first pass, and ``w``
won out of the ``n`` sampled unknowns. Its variance (Cochran, *Sampling
Techniques*, 3rd ed., §12.3: double sampling for stratification, with the
decided deals a stratum searched in full) is::

    Var(p) = p (1 - p) / N + (U / N)^2 * q (1 - q) / n * (1 - n / U),   q = w / n

The 95% interval is ``p ± 1.96 * sqrt(Var)``, a normal interval: the
estimate is a weighted sum of two proportions, not one binomial count, so
Wilson's interval does not apply to it as a whole; with thousands of deals
in the first pass the normal approximation of its first term is close, and
the proportions inside the variance are replaced by Agresti and Coull's
``(x + 2) / (n + 4)``, so a sample that happens to be all lost (``q = 0``)
still carries its sampling error instead of none. Sample deals that stay
unknown at the second limit are counted both ways: the low end of the
interval takes them as lost, the high end as won, so the interval widens
with them. With ``n = U`` (every unknown followed up, none left unknown, or
no unknowns at all) the estimate is the plain share of wins, and the
interval is Wilson's, as for any binomial share (it keeps its width at a
rate near 0 or 1, where the normal interval would not).

Rows of the follow-up pass are kept apart from the first pass's in the
store, under the rules name ``<name>+followup``, so a deal keeps both rows
(with their limits) and either pass resumes like any study. The sample is a
function of the first pass's unknown seeds and of ``sample_seed`` alone:
the same command on the same store draws the same sample.
"""

from __future__ import annotations

import hashlib
import math
import os
import time
from contextlib import closing
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Iterable, Sequence

from ..engine.rules import Rules, get_rules
from ..errors import CanfieldError
from ..games import GameKey
from ..solver import Verdict
from .seeds import SeedSet
from .settings import StudySettings, settings_of
from .stores import Store, StoreOrPath, open_stored, store_at
from .stores.sqlite import RulesKey, StoredResult
from .study import Z95, ProgressFn, WinRate, run_study, stored_rules, wilson_interval

if TYPE_CHECKING:  # the keywords' type for checkers (PEP 692)
    from typing_extensions import Unpack

    from .settings import SettingsFields

__all__ = ["FOLLOWUP_SUFFIX", "TwoPhase", "complete_prefix", "draw_sample", "followup_rules", "run_followup", "run_two_phase",
           "stored_two_phase", "two_phase_interval"]

FOLLOWUP_SUFFIX = "+followup"


def followup_rules(kept: RulesKey) -> RulesKey:
    """The rules a follow-up pass stores its rows under: ``kept`` (a study's ``stored_rules``) renamed."""
    return kept.replace(name=kept.name + FOLLOWUP_SUFFIX)


def _rank(seed: int, sample_seed: int) -> bytes:
    """A seed's place in the sampling order: a hash, the same on every machine and Python."""
    return hashlib.blake2b(f"{sample_seed}:{seed}".encode(), digest_size=8).digest()


def draw_sample(unknown: Iterable[int], size: int, sample_seed: int = 0) -> list[int]:
    """``size`` seeds of ``unknown`` (all of them when fewer), a simple random sample without replacement,
    in sampling order.

    Order sampling: every seed gets a rank from a hash of ``(sample_seed, seed)``, and the sample is the
    ``size`` lowest ranks. The hash plays the part of independent uniform draws, so the sample is a
    simple random sample; it depends on the seeds and ``sample_seed`` alone (the same on any machine);
    a larger ``size`` extends a smaller one; and a study grown by more seeds keeps every earlier sample
    deal whose rank is still among the lowest, so their follow-ups are reused.
    """
    if size < 0:
        raise CanfieldError(f"the follow-up sample size must be non-negative, not {size}")
    return sorted(set(unknown), key=lambda s: _rank(s, sample_seed))[:size]


def complete_prefix(unknown: Iterable[int], followed: "set[int]", sample_seed: int = 0) -> list[int]:
    """The longest run of ``unknown`` in sampling order whose every seed has a follow-up (in ``followed``):
    a simple random sample of the unknowns, whatever sample sizes earlier runs asked for or where one was
    interrupted."""
    pool = set(unknown)
    out = []
    for s in draw_sample(pool, len(pool), sample_seed):
        if s not in followed:
            break
        out.append(s)
    return out


def _adjusted(k: float, n: int) -> float:
    """Agresti and Coull's ``(k + 2) / (n + 4)``: a proportion for a variance that is never 0."""
    return (k + 2) / (n + 4)


def _se(n_all: int, p: float, n_u: int, n: int, x: int) -> float:
    pa = _adjusted(p * n_all, n_all)
    var = pa * (1 - pa) / n_all
    if n_u and n:
        qa = _adjusted(x, n)
        var += (n_u / n_all) ** 2 * qa * (1 - qa) / n * (1 - n / n_u)
    return math.sqrt(var)


def two_phase_interval(won: int, lost: int, unknown: int, sample_won: int, sample_lost: int,
                       sample_unknown: int, z: float = Z95) -> tuple[float | None, tuple[float, float]]:
    """The two-phase estimate and its interval (see the module's notes) from the first pass's counts and
    the follow-up sample's. ``(None, (0, 1))`` before there is anything to estimate from; with unknowns but
    no sample yet, no estimate and the interval counting every unknown both ways.

    >>> est, (lo, hi) = two_phase_interval(600, 300, 100, 20, 25, 5)
    >>> round(est, 4), round(lo, 4), round(hi, 4)
    (0.64, 0.6087, 0.6812)
    """
    counts = (won, lost, unknown, sample_won, sample_lost, sample_unknown)
    if any(isinstance(c, bool) or not isinstance(c, int) or c < 0 for c in counts):
        raise ValueError(f"counts must be non-negative integers, got {counts}")
    n_all = won + lost + unknown
    n = sample_won + sample_lost + sample_unknown
    if n > unknown:
        raise ValueError(f"a sample of {n} deals drawn from {unknown} unknowns")
    if n_all == 0:
        return None, (0.0, 1.0)
    if unknown and not n:
        return None, (won / n_all, (won + unknown) / n_all)
    if n == unknown and not sample_unknown:  # every deal decided: a plain binomial share, Wilson's interval
        k = won + sample_won
        return k / n_all, wilson_interval(k, n_all, z)
    q_lo = sample_won / n if n else 0.0
    q_hi = (sample_won + sample_unknown) / n if n else 0.0
    p_lo = (won + unknown * q_lo) / n_all
    p_hi = (won + unknown * q_hi) / n_all
    lo = p_lo - z * _se(n_all, p_lo, unknown, n, sample_won)
    hi = p_hi + z * _se(n_all, p_hi, unknown, n, sample_won + sample_unknown)
    return p_lo, (max(0.0, lo), min(1.0, hi))


@dataclass(frozen=True)
class TwoPhase:
    """The two-phase estimate of a study: the first pass's counts, the follow-up sample's, and the estimate.

    ``estimate`` counts the sample's unknowns as lost; ``interval`` (95%) counts them both ways and
    includes the sample's own sampling error. ``sample_size`` is the sample asked for (or found in the
    store), ``sampled`` how many of those have a follow-up result.
    """

    rules: str
    deals: int
    won: int
    lost: int
    unknown: int
    sample_size: int
    sample_won: int
    sample_lost: int
    sample_unknown: int
    estimate: float | None
    interval: tuple[float, float]
    first_seconds: float | None = None
    followup_seconds: float | None = None
    followup_nodes: int | None = None
    searched: int = 0
    reused: int = 0
    wall_seconds: float = 0.0
    search_seconds: float = 0.0

    @property
    def sampled(self) -> int:
        return self.sample_won + self.sample_lost + self.sample_unknown

    def to_dict(self) -> dict[str, object]:
        return {
            "rules": self.rules, "deals": self.deals,
            "first_pass": {"won": self.won, "lost": self.lost, "unknown": self.unknown,
                           "max_seconds": self.first_seconds},
            "followup": {"sample_size": self.sample_size, "sampled": self.sampled, "won": self.sample_won,
                         "lost": self.sample_lost, "unknown": self.sample_unknown,
                         "max_seconds": self.followup_seconds, "max_nodes": self.followup_nodes,
                         "searched": self.searched, "reused": self.reused,
                         "wall_seconds": round(self.wall_seconds, 3),
                         "search_seconds": round(self.search_seconds, 3)},
            "win_rate": self.estimate,
            "ci95": list(self.interval),
            "interval_method": "stratified two-phase estimate, normal interval (Cochran 12.3; Agresti-Coull "
                               "proportions in the variance); sample unknowns counted both ways",
        }

    def __str__(self) -> str:
        lo, hi = self.interval
        limit = "" if self.followup_seconds is None else f" at {self.followup_seconds:g} s"
        head = (f"follow-up{limit}: {self.sampled} of {self.sample_size} sampled unknowns searched: "
                f"won {self.sample_won}, lost {self.sample_lost}, unknown {self.sample_unknown}")
        if self.estimate is None:
            return f"{head}\ntwo-phase estimate n/a (95% CI {100 * lo:.2f}%..{100 * hi:.2f}%)"
        return (f"{head}\ntwo-phase estimate {100 * self.estimate:.2f}% (95% CI {100 * lo:.2f}%..{100 * hi:.2f}%, "
                f"sample unknowns counted both ways)")


def _counts(rows: Iterable[StoredResult]) -> tuple[int, int, int]:
    rows = list(rows)
    return (sum(r.verdict == Verdict.SOLVED for r in rows), sum(r.verdict == Verdict.UNSOLVABLE for r in rows),
            sum(r.verdict == Verdict.UNKNOWN for r in rows))


def _make(name: str, first: tuple[int, int, int], sample_size: int, sample_rows: Sequence[StoredResult],
          **extra: Any) -> TwoPhase:
    sw, sl, su = _counts(sample_rows)
    est, ci = two_phase_interval(*first, sw, sl, su)
    limits = {r.max_seconds for r in sample_rows}
    if "followup_seconds" not in extra and len(limits) == 1:
        extra["followup_seconds"] = limits.pop()
    return TwoPhase(name, sum(first), *first, sample_size, sw, sl, su, est, ci, **extra)


def run_followup(
    rules: "str | Rules | GameKey",
    seeds: "SeedSet | range | Iterable[int]",
    first: WinRate,
    settings: StudySettings,
    *,
    store: "Store | None" = None,
    progress: ProgressFn | None = None,
    enough: Callable[[TwoPhase], bool] | None = None,
) -> TwoPhase:
    """The follow-up pass of a study whose first pass is ``first`` (``run_study`` over the same ``rules``,
    ``seeds`` and ``store``): ``settings.followup`` of its unknown deals, drawn by ``draw_sample`` with
    ``settings.followup_seed``, searched again at the follow-up's limits (``StudySettings``), and the
    two-phase estimate.

    Locally the sample's deals are searched one at a time with ``jobs`` threads each (default: the core
    count; the sample is small, its deals are the slow ones); on a Dask cluster (``scheduler``) one deal
    per task. The rows are stored under ``followup_rules``; deals already followed up at these limits are
    taken from the store.

    ``enough(tp)``, when given, is asked after each batch that searched a deal, with the estimate over the
    sample done so far (a prefix of the sampling order): once it says yes the pass stops there, and the
    estimate is over that prefix (``winrate --target`` stops at its target, not at the end of a round).
    """
    played: Rules | GameKey = rules if isinstance(rules, GameKey) else get_rules(rules)
    kept = played if isinstance(played, GameKey) else stored_rules(played, settings.numbering)
    chosen = draw_sample(_unknown(store, kept, SeedSet.of(seeds), first), settings.followup, settings.followup_seed)
    f = _Followup(kept, chosen, first, progress)
    # In sampling order, a batch at a time, so that an interrupted follow-up leaves (nearly) a prefix of the
    # sample done: the part ``complete_prefix`` counts from the store alone.
    batch = 1 if settings.scheduler else 4
    threads = 1 if settings.scheduler else (settings.jobs or os.cpu_count() or 1)
    each = settings.followup_pass(threads=threads, store_as=followup_rules(kept))
    for i in range(0, len(f.chosen), batch):
        fw = run_study(played, f.chosen[i:i + batch], each, store=store, progress=f.teller(i))
        f.add(fw)
        # Asked only after a batch that searched (a stop inside the reused part would search nothing new).
        if enough is not None and fw.searched and i + batch < len(f.chosen) and enough(f.estimate()):
            f.asked = len(f.rows)
            break
    return f.result(settings.followup_seconds, settings.followup_nodes)


def _unknown(store: "Store | None", kept: "Rules | GameKey", wanted: SeedSet, first: WinRate) -> list[int]:
    """The first pass's unknown deals: from the store where there is one, else from ``first``'s rows."""
    if store is not None:
        return store.unknown_in(kept, wanted.ranges())
    if first.results or not first.unknown:
        return [r.seed for r in first.results if r.verdict == Verdict.UNKNOWN]
    raise CanfieldError("a follow-up of a study this large needs a result store (--db or --parquet-dir)")


class _Followup:
    """One follow-up pass: its sample (``chosen``, in sampling order), the rows its batches found, their counts
    (``before``: what the progress goes on from) and what they spent (``done``)."""

    def __init__(self, kept: "Rules | GameKey", chosen: list[int], first: WinRate, progress: ProgressFn | None):
        self.kept, self.chosen, self.first, self.progress = kept, chosen, first, progress
        self.asked = len(chosen)
        self.rows: list[StoredResult] = []
        self.before: dict[str, int] = {}
        self.done = {"searched": 0, "reused": 0, "wall": 0.0, "search": 0.0}
        self.t0 = time.perf_counter()

    def teller(self, at: int) -> ProgressFn:
        """The progress of the batch that starts at ``at`` of the sample, as the whole pass's progress."""
        def tell(n: int, total: int, counts: dict[str, int], elapsed: float) -> None:
            if self.progress is not None:
                before = self.before
                whole = {k: before.get(k, 0) + counts.get(k, 0) for k in set(before) | set(counts)}
                self.progress(at + n, len(self.chosen), whole, time.perf_counter() - self.t0)
        return tell

    def add(self, fw: WinRate) -> None:
        """A batch's study: its rows, counts and seconds added to the pass's."""
        for row in fw.results:
            self.before[row.verdict] = self.before.get(row.verdict, 0) + 1
        self.before["searched"] = self.before.get("searched", 0) + fw.searched
        self.before["reused"] = self.before.get("reused", 0) + fw.reused
        self.done["searched"] += fw.searched
        self.done["reused"] += fw.reused
        self.done["wall"] += fw.wall_seconds
        self.done["search"] += fw.search_seconds
        self.rows.extend(fw.results)

    def estimate(self) -> TwoPhase:
        """The two-phase estimate over the rows so far, as if the sample ended there (``enough`` reads it)."""
        f = self.first
        return _make(self.kept.name, (f.won, f.lost, f.unknown), len(self.rows), self.rows)

    def result(self, max_seconds: float | None, max_nodes: int | None) -> TwoPhase:
        """The pass's estimate, with its limits and what it spent."""
        f, d = self.first, self.done
        return _make(self.kept.name, (f.won, f.lost, f.unknown), self.asked, self.rows, first_seconds=f.max_seconds,
                     followup_seconds=max_seconds, followup_nodes=max_nodes, searched=d["searched"],
                     reused=d["reused"], wall_seconds=d["wall"], search_seconds=d["search"])


def stored_two_phase(kept: RulesKey, seeds: "SeedSet | range | Iterable[int]", *, db: "str | os.PathLike[str] | None" = None,
                     parquet: "str | os.PathLike[str] | None" = None, sample_seed: int = 0) -> TwoPhase | None:
    """The two-phase estimate recounted from a result store (``db``) or a ``--parquet-dir`` dataset alone:
    the first pass's rows of ``kept`` over ``seeds``, and as the sample the longest run of its unknowns in
    sampling order (``complete_prefix``) that has follow-up rows. ``None`` when there is no such row."""
    wanted = SeedSet.of(seeds)
    st = open_stored(db, parquet)
    if st is None:
        return None  # a one-file export: recount the first pass only
    with closing(st):
        tp = recount(st, kept, wanted.ranges(), sample_seed)
    return tp if tp is not None and tp.sample_size else None


def recount(st: "Store", kept: RulesKey, ranges: "Iterable[tuple[int, int]]", sample_seed: int = 0) -> TwoPhase | None:
    """The two-phase estimate of ``kept`` over ``ranges`` from an open store: the first pass's counts, and as
    the sample the complete prefix of its unknowns' sampling order (possibly empty); None without first-pass
    rows."""
    ranges = list(ranges)
    c = st.count_verdicts(kept, ranges)
    first = (c[Verdict.SOLVED.value], c[Verdict.UNSOLVABLE.value], c[Verdict.UNKNOWN.value])
    if sum(first) == 0:
        return None
    unknown = st.unknown_in(kept, ranges)
    followed = {r.seed: r for r in st.results_in(followup_rules(kept), ranges)}
    rows = [followed[s] for s in complete_prefix(unknown, set(followed), sample_seed)]
    return _make(kept.name, first, len(rows), rows)


def run_two_phase(
    rules: "str | Rules",
    seeds: "SeedSet | range | Iterable[int]",
    settings: StudySettings | None = None,
    *,
    store: StoreOrPath = None,
    progress: ProgressFn | None = None,
    followup_progress: ProgressFn | None = None,
    **fields: "Unpack[SettingsFields]",
) -> WinRate:
    """A two-phase study: ``run_study`` (the first pass, at the study's limits), then ``run_followup`` of
    ``followup`` of its unknowns at the follow-up limits; the first pass's ``WinRate`` with the estimate in
    ``two_phase``. Both passes resume from the store like any study.

    ``settings``: a ``StudySettings``, or its fields as keywords (``max_seconds``, ``jobs``, ``followup``,
    ``followup_seconds``, ...); ``store`` may be a path, opened once for both passes.
    """
    from dataclasses import replace

    s = settings_of(settings, fields)
    with store_at(store) as st:  # a path opened once for both passes
        first = run_study(rules, seeds, s, store=st, progress=progress)
        tp = run_followup(rules, seeds, first, s, store=st, progress=followup_progress)
    return replace(first, two_phase=tp)
