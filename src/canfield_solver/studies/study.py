"""Studies: solve many seeds on worker processes (or a Dask cluster), store every result, report a win rate.

```python
>>> from canfield_solver.studies.study import wilson_interval
>>> [round(x, 4) for x in wilson_interval(81, 263)]
[0.2553, 0.3662]
```
"""

from __future__ import annotations

import math
import os
import sys
import threading
import time
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import closing, suppress
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Protocol, Sequence

from .. import memory
from ..engine.rules import Rules, get_rules
from ..errors import CanfieldError, install_hint
from ..formats import NUMBERINGS, numbered_deal, parse_pysolfc_number, pysolfc_deal
from ..games import GameKey, study_result
from ..play.difficulty import analyze
from ..processes import ignore_interrupts, spawning_quietly, stop_pool
from ..solver import DEFAULT_MEMORY_MB, Verdict, load_kernel, solve, verdict_counts
from .seeds import SeedSet, parse_seeds
from .settings import SettingsError, StudySettings, settings_of
from .stores import Store, StoreOrPath, open_stored, store_at
from .stores.sqlite import RulesKey, StoredResult, owner_id

if TYPE_CHECKING:  # the keywords' type for checkers (PEP 692); nothing reads it at run time
    from typing_extensions import Unpack

    from .settings import SettingsFields

__all__ = [
    "SettingsError",
    "StudyError",
    "StudySettings",
    "WinRate",
    "estimate_win_rate",
    "parse_seeds",
    "run_study",
    "stored_win_rate",
    "summarize",
    "wilson_interval",
]

Z95 = 1.959963984540054
MAX_POOL_RESTARTS = 3
WINDOW = 4096         # seeds whose done-or-not is read from the store at once
KEEP_ROWS = 200_000   # a study of more seeds keeps counts, not rows, in memory
DASK_CONNECT_TIMEOUT = "20s"


class StudyError(CanfieldError):
    """A study could not go on (e.g. worker processes keep dying); what finished is in the store."""


def wilson_interval(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for ``k`` successes in ``n`` trials (95% by default).

    ``(0.0, 1.0)`` when ``n`` is 0.
    """
    if n < 0 or not 0 <= k <= n:
        raise ValueError(f"need 0 <= k <= n, got k={k}, n={n}")
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    z2 = z * z
    centre = p + z2 / (2 * n)
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    den = 1 + z2 / n
    return (max(0.0, (centre - half) / den), min(1.0, (centre + half) / den))


class SecondPass(Protocol):
    """What a ``WinRate`` holds of its two-phase estimate (``two_phase.TwoPhase``, which builds on this module:
    no import back): its interval, what its pass spent, a dict for ``--json``, and its lines for ``str``."""

    @property
    def interval(self) -> tuple[float, float]: ...

    @property
    def searched(self) -> int: ...

    @property
    def reused(self) -> int: ...

    @property
    def wall_seconds(self) -> float: ...

    def to_dict(self) -> dict[str, Any]: ...


@dataclass(frozen=True)
class WinRate:
    """A study's answer.

    ``rate`` and ``interval`` are over the decided deals (95% Wilson);
    ``interval_all`` counts every unknown deal both ways: its low end as if
    all unknowns were lost, its high end as if all were won (as published
    studies do). Unknowns are never folded into lost.
    """

    rules: str
    deals: int
    won: int
    lost: int
    unknown: int
    rate: float | None
    interval: tuple[float, float]
    interval_all: tuple[float, float]
    max_seconds: float | None
    searched: int = 0
    reused: int = 0
    wall_seconds: float = 0.0
    search_seconds: float = 0.0
    results: tuple[StoredResult, ...] = field(default=(), repr=False, compare=False)
    two_phase: SecondPass | None = field(default=None, compare=False)  # a two_phase.TwoPhase

    @property
    def decided(self) -> int:
        return self.won + self.lost

    def to_dict(self) -> dict[str, object]:
        return {
            "rules": self.rules,
            "deals": self.deals,
            "won": self.won,
            "lost": self.lost,
            "unknown": self.unknown,
            "win_rate": self.rate,
            "ci95": list(self.interval),
            "ci95_unknowns_both_ways": list(self.interval_all),
            "max_seconds": self.max_seconds,
            "searched": self.searched,
            "reused": self.reused,
            "wall_seconds": round(self.wall_seconds, 3),
            "search_seconds": round(self.search_seconds, 3),
            "two_phase": None if self.two_phase is None else self.two_phase.to_dict(),
        }

    def __str__(self) -> str:
        lo, hi = self.interval
        alo, ahi = self.interval_all
        rate = "n/a" if self.rate is None else f"{100 * self.rate:.2f}%"
        text = (f"{self.rules}: {self.deals} deals: won {self.won}, lost {self.lost}, unknown {self.unknown}\n"
                f"win rate of the decided deals {rate} (95% CI {100 * lo:.2f}%..{100 * hi:.2f}%; "
                f"{100 * alo:.2f}%..{100 * ahi:.2f}% counting unknowns both ways)")
        return text if self.two_phase is None else f"{text}\n{self.two_phase}"


def summarize(rules: str, rows: Sequence[StoredResult], max_seconds: float | None = None, **extra: Any) -> WinRate:
    won = sum(r.verdict == Verdict.SOLVED for r in rows)
    lost = sum(r.verdict == Verdict.UNSOLVABLE for r in rows)
    unknown = sum(r.verdict == Verdict.UNKNOWN for r in rows)
    return summarize_counts(rules, won, lost, unknown, max_seconds, results=tuple(rows), **extra)


def _counted(c: dict[str, int]) -> tuple[int, int, int]:
    """Won, lost, unknown from counts keyed by verdict."""
    return c[Verdict.SOLVED.value], c[Verdict.UNSOLVABLE.value], c[Verdict.UNKNOWN.value]


def summarize_counts(rules: str, won: int, lost: int, unknown: int, max_seconds: float | None = None,
                     **extra: Any) -> WinRate:
    """A WinRate from verdict counts alone (a study too large to hold its rows)."""
    n = won + lost + unknown
    decided = won + lost
    lo_all = wilson_interval(won, n)[0] if n else 0.0
    hi_all = wilson_interval(won + unknown, n)[1] if n else 1.0
    return WinRate(rules, n, won, lost, unknown, won / decided if decided else None,
                   wilson_interval(won, decided), (lo_all, hi_all), max_seconds, **extra)


def stored_win_rate(rules: RulesKey, seeds: "SeedSet | range | Iterable[int]", *, db: "str | os.PathLike[str] | None" = None,
                    parquet: "str | os.PathLike[str] | None" = None) -> WinRate:
    """The win rate of ``rules`` (as stored: ``stored_rules``) over ``seeds``, recounted from a result store
    (``db``) or from ``parquet``: an export file or a ``--parquet-dir`` dataset. Nothing is searched;
    seeds without a stored row are left out."""
    from .stores.parquet import parquet_verdicts

    if (db is None) == (parquet is None):
        raise StudyError("give exactly one of a result store or a Parquet file or dataset")
    ranges = list(SeedSet.of(seeds).ranges())
    try:
        st = open_stored(db, parquet)
    except CanfieldError as e:
        raise StudyError(str(e)) from None
    if st is not None:
        with closing(st):
            c = st.count_verdicts(rules, ranges)
    else:
        assert parquet is not None
        c = parquet_verdicts(os.fspath(parquet), rules, ranges)
    return summarize_counts(rules.name, *_counted(c), None)


def stored_rules(rules: "str | Rules", numbering: str = "spec") -> Rules:
    """The rules a study's rows are stored under: ``rules`` itself for SPEC seeds, ``<name>@pysolfc`` for
    PySolFC game numbers, so the two numberings never share a row. Refuses, at once, rules PySolFC does
    not deal and a missing pysol-cards package."""
    r = get_rules(rules)
    if numbering == "spec":
        return r
    if numbering != "pysolfc":
        raise CanfieldError(f"numbering must be one of {', '.join(NUMBERINGS)}, not {numbering!r}")
    pysolfc_deal(1, r)
    return r.replace(name=f"{r.name}@pysolfc")


# Work done in a worker process (local pool or Dask worker) ---------------------------------------------
def _solve_game_chunk(key: GameKey, seeds: Sequence[int], max_seconds: float | None, max_nodes: int | None,
                      name: str, max_memory_mb: int | None = None) -> list[StoredResult]:
    """A chunk of one of the other games of docs/games-spec.md (``games.study_result``); ``best_score`` is not tracked (0)."""
    out = []
    for seed in seeds:
        r, metrics = study_result(key.name, seed, max_nodes=max_nodes, max_seconds=max_seconds,
                                  max_memory_mb=max_memory_mb or DEFAULT_MEMORY_MB)
        out.append(StoredResult(name, seed, r.verdict.value, r.nodes, r.seconds, 0, len(r.moves), 0, max_seconds,
                                r.limit, None, metrics or None, max_nodes=max_nodes, threads=1))
    return out


def _solve_chunk(rules: "Rules | GameKey", seeds: Sequence[int], settings: StudySettings) -> list[StoredResult]:
    """A chunk of deals searched in a worker; ``settings`` as ``run_study`` resolved them (``store_as`` the rules
    the rows are kept under)."""
    s = settings
    name = (s.store_as or rules).name
    if isinstance(rules, GameKey):
        return _solve_game_chunk(rules, seeds, s.max_seconds, s.max_nodes, name, s.max_memory_mb)
    cap_mb = s.max_memory_mb or DEFAULT_MEMORY_MB  # a Dask worker's, or an analysis's: the fixed default
    out = []
    for seed in seeds:
        deal = numbered_deal(s.numbering, seed, rules)
        if s.with_metrics:
            a = analyze(deal, max_seconds=s.max_seconds, max_memory_mb=cap_mb, **(s.analyze_options or {}))
            out.append(StoredResult(name, seed, a.verdict, a.nodes, a.seconds, a.best_score, a.solution_length,
                                    a.redeals, s.max_seconds, a.limit, a.rating, a.metrics(), threads=1))
            continue
        r = solve(deal, max_seconds=s.max_seconds, max_nodes=s.max_nodes, max_memory_mb=cap_mb, workers=s.threads)
        out.append(StoredResult(
            rules=name, seed=seed, verdict=r.verdict.value, nodes=r.nodes, seconds=r.seconds,
            best_score=r.best_score, solution_length=len(r.moves), redeals=sum(m == "redeal" for m in r.moves),
            max_seconds=s.max_seconds, limit_hit=r.limit, max_nodes=s.max_nodes, threads=s.threads,
        ))
    return out


def _warm() -> None:
    """Worker start-up: exit when the parent dies (even by kill -9), load the compiled kernel."""
    ignore_interrupts()  # Ctrl-C is the parent's to handle: it stops the pool
    parent = os.getppid()

    def watch() -> None:
        while True:
            time.sleep(1.0)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, daemon=True, name="canfield-parent-watch").start()
    load_kernel()


ProgressFn = Callable[[int, int, dict[str, int], float], None]


def run_study(
    rules: "str | Rules | GameKey",
    seeds: Iterable[int],
    settings: StudySettings | None = None,
    *,
    store: StoreOrPath = None,
    progress: ProgressFn | None = None,
    on_row: Callable[[StoredResult], None] | None = None,
    **fields: "Unpack[SettingsFields]",
) -> WinRate:
    """Solve every seed (skipping those the store already decided) and summarize them.

    ``rules``: a preset, ``Rules``, or a ``games.GameKey`` for one of the other games (docs/games-spec.md;
    its rows kept apart under its name). ``settings``: how each deal is searched, where, and how the seeds
    are numbered (``StudySettings``), or its fields as keywords (``run_study(rules, seeds, max_seconds=2,
    jobs=2)``), not both. ``numbering="pysolfc"``: the numbers are PySolFC game numbers
    (``formats.pysolfc_deal``), stored apart from SPEC seeds as ``<name>@pysolfc``. ``store``: a
    ``ResultStore`` or its path (opened and closed here), or a ``ParquetResults`` dataset (``stores.parquet``:
    cluster-scale runs, one writer, no re-search). ``store_as``: the rules the rows are kept under when not
    ``stored_rules(rules, numbering)`` (a two-phase study's follow-up, ``studies.two_phase``).

    ``jobs`` local worker processes (default: the core count), or the Dask cluster at ``scheduler``
    (``tcp://host:port``); ``threads`` search threads a deal (``solve(workers=...)``). Each deal is a task
    (``chunk`` seeds a task if given), stored as it finishes, so an interrupt loses only the deals in
    flight; the ``KeyboardInterrupt`` that ends a study carries ``kept``, the deals this run stored.

    ``progress(done, total, counts, elapsed)`` as results arrive (``done`` and the counts include deals
    taken from the store; ``counts`` also holds ``"searched"`` and ``"reused"``). ``on_row(row)`` with each
    deal's row as it is stored or taken from the store; an exception it raises ends the study there (how
    ``pick`` stops), what finished being stored. ``seeds`` (a ``SeedSet`` or ``range``) are never listed: the
    store is asked ``WINDOW`` seeds at a time; ``WinRate.results`` holds rows for at most ``KEEP_ROWS`` seeds.
    """
    s = settings_of(settings, fields)
    rules_played, r = _played_and_kept(rules, s.numbering, s.with_metrics, s.store_as)
    wanted = SeedSet.of(seeds)
    if s.numbering == "pysolfc" and len(wanted):  # the lowest and the highest number are game numbers, or say why not
        parse_pysolfc_number(next(wanted.ranges())[0])
        parse_pysolfc_number(list(wanted.ranges())[-1][1] - 1)
    cap = s.max_memory_mb
    if cap is None and not s.scheduler and not s.with_metrics and not isinstance(rules, GameKey):
        # A share of this machine's free memory for each search that runs at once (``memory``); a Dask
        # cluster's machines are not this one, and analyses keep the fixed default.
        cap = memory.machine_cap(s.jobs or os.cpu_count() or 1).mb
    # One deal a task by default: each finished deal reaches the parent, and the store, as it finishes (a chunk
    # of several held its finished deals back until its slowest was done, and lost them to a Ctrl-C); a task
    # costs the parent well under a millisecond against 0.28 core-s for the mean deal at 2 s
    # (benchmarks/bench_study.py). ``chunk=`` trades that back for clusters of very fast deals.
    resolved = s.replace(max_memory_mb=cap, store_as=r, chunk=s.chunk or 1)
    with store_at(store) as st:  # a path opened here (and closed at the end), a store as given
        return _Study(rules_played, wanted, st, resolved, progress, on_row).run()


def _played_and_kept(rules: "str | Rules | GameKey", numbering: str, with_metrics: bool,
                     store_as: RulesKey | None) -> "tuple[Rules | GameKey, RulesKey]":
    """The rules a study plays and the rules its rows are kept under (``store_as``, else ``stored_rules``)."""
    if isinstance(rules, GameKey):  # one of the other games of docs/games-spec.md: SPEC seeds, no difficulty metrics
        if numbering != "spec" or with_metrics:
            raise StudyError(f"{rules.name}: a study of this game takes SPEC seeds and no difficulty metrics")
        return rules, store_as or rules
    played = get_rules(rules)
    return played, store_as or stored_rules(played, numbering)


class _Study:
    """One run of ``run_study``: the seeds still to search asked of the store a window at a time, claimed
    chunk by chunk, searched by the chosen workers, each chunk's rows stored as they come; then the seeds
    other studies held, waited for or taken over; then the summary. Its fields are what those steps share;
    ``settings`` as ``run_study`` resolved them (``store_as`` the rules the rows are kept under, ``chunk`` and
    ``max_memory_mb`` set)."""

    def __init__(self, rules_played: "Rules | GameKey", wanted: SeedSet, st: "Store | None", settings: StudySettings,
                 progress: ProgressFn | None, on_row: Callable[[StoredResult], None] | None):
        assert settings.store_as is not None and settings.chunk is not None
        self.rules_played, self.r, self.wanted, self.st, self.settings = rules_played, settings.store_as, wanted, st, settings
        self.size, self.progress, self.on_row = settings.chunk, progress, on_row
        self.keep_rows = len(wanted) <= KEEP_ROWS
        self.t0 = time.perf_counter()
        self.started = time.time()  # rows stored from now on count as done whatever their verdict
        self.owner = owner_id()
        self.lease = (float(os.environ.get("CANFIELD_CLAIM_LEASE", "0"))
                      or 60.0 + 3.0 * self.size * (settings.max_seconds or 600.0))
        self.mem: dict[int, StoredResult] = {}  # the rows, for a study without a store (or a small one)
        self.counts = verdict_counts()
        self.searched = self.reused = 0
        self.seconds = 0.0
        self.deferred: list[int] = []  # seeds another study held when we came to them: bounded by its claims

    def report(self) -> None:
        if self.progress is not None:
            self.progress(self.searched + self.reused, len(self.wanted),
                          {**self.counts, "searched": self.searched, "reused": self.reused},
                          time.perf_counter() - self.t0)

    def record(self, rows: list[StoredResult]) -> None:
        """A chunk's rows, as they come: stored (the claims of the chunks in flight renewed), counted, told."""
        if self.st is not None:
            self.st.put_many(self.r, rows)
            self.st.renew(self.r, self.owner, self.lease)  # alive: keep the claims of the chunks still in flight
        for row in rows:
            if self.keep_rows:
                self.mem[row.seed] = row
            self.counts[row.verdict] += 1
            self.searched += 1
            self.seconds += row.seconds
        self.report()
        if self.on_row is not None:
            for row in rows:
                self.on_row(row)

    def todo(self) -> Iterator[int]:
        """The seeds still to search, asked of the store one window at a time (memory: one window); seeds
        another study on the same store has claimed are deferred, not searched."""
        st, r, s = self.st, self.r, self.settings
        for lo, hi in self.wanted.blocks(WINDOW):
            done: set[int] = set()
            held: set[int] = set()
            if st is not None:
                done = st.done_in(r, s.max_seconds, lo, hi, rated=s.with_metrics, max_nodes=s.max_nodes)
                held = st.held_by_others(r, self.owner, lo, hi) - done
                self.deferred.extend(sorted(held))
            if done:
                self.reused += len(done)
                for row in st.results_in(r, [(lo, hi)]) if st is not None else []:
                    if row.seed in done:  # counted as found: the progress's counts end at the study's
                        self.counts[row.verdict] += 1
                        if self.on_row is not None:
                            self.on_row(row)
                self.report()
            for seed in range(lo, hi):
                if seed not in done and seed not in held:
                    yield seed

    def claimed(self, chunks: Iterable[list[int]]) -> Iterator[list[int]]:
        """The chunks, each cut to the seeds this study could claim (the rest deferred)."""
        s = self.settings
        for c in chunks:
            if self.st is None:
                yield c
                continue
            got = self.st.claim(self.r, c, self.owner, self.lease, s.max_seconds, rated=s.with_metrics,
                                since=self.started, max_nodes=s.max_nodes)
            if len(got) < len(c):
                self.deferred.extend(sorted(set(c) - set(got)))
            if got:
                yield got

    def search(self, seeds: Iterable[int]) -> None:
        """``seeds`` claimed a chunk at a time and searched on the Dask cluster, in this process, or on the
        local worker processes."""
        chunks = self.claimed(_batched(iter(seeds), self.size))
        workers = self.settings.jobs or os.cpu_count() or 1
        if self.settings.scheduler:
            _run_dask(self.settings.scheduler, self.rules_played, chunks, self.settings, self.record)
        elif workers == 1:
            _run_inline(self.rules_played, chunks, self.settings, self.record)
        else:
            _run_local(workers, self.rules_played, chunks, self.settings, self.record)

    def take_over_deferred(self) -> None:
        """What other studies held: wait until they store it, or take it over once their claims run out."""
        st, s = self.st, self.settings
        while st is not None and self.deferred:
            pending = sorted(set(self.deferred))
            self.deferred.clear()
            done, held = st.status(self.r, pending, self.owner, s.max_seconds, rated=s.with_metrics,
                                   since=self.started, max_nodes=s.max_nodes)
            free = [x for x in pending if x not in done and x not in held]
            self.deferred.extend(x for x in pending if x in held and x not in done)
            if free:
                self.search(free)
            elif self.deferred:
                time.sleep(min(2.0, self.lease / 4))

    def run(self) -> WinRate:
        try:
            self.search(self.todo())
            self.take_over_deferred()
        except KeyboardInterrupt as e:  # every finished deal is stored already, as it came: say how many
            e.kept = self.searched  # type: ignore[attr-defined]
            raise
        finally:
            if self.st is not None:
                self.st.release(self.r, self.owner)
        return self.summary()

    def summary(self) -> WinRate:
        extra: dict[str, Any] = dict(searched=self.searched, reused=self.reused,
                                     wall_seconds=time.perf_counter() - self.t0, search_seconds=self.seconds)
        if self.st is not None:
            c = self.st.count_verdicts(self.r, self.wanted.ranges())
            rows = self.st.results_in(self.r, self.wanted.ranges()) if self.keep_rows else []
        else:
            c = self.counts
            rows = sorted(self.mem.values(), key=lambda x: x.seed)
        return summarize_counts(self.r.name, *_counted(c), self.settings.max_seconds, results=tuple(rows), **extra)


def _batched(it: Iterator[int], size: int) -> Iterator[list[int]]:
    batch: list[int] = []
    for x in it:
        batch.append(x)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def estimate_win_rate(
    rules: "str | Rules | GameKey",
    seeds: Iterable[int],
    settings: StudySettings | None = None,
    *,
    store: StoreOrPath = None,
    progress: ProgressFn | None = None,
    **fields: "Unpack[SettingsFields]",
) -> WinRate:
    """The win rate of ``rules`` over ``seeds``, with 95% Wilson intervals (see ``WinRate``): ``run_study``,
    its settings a ``StudySettings`` or its fields as keywords (``jobs``, ``max_seconds``, ``max_nodes``,
    ``scheduler``, ...).

    >>> estimate_win_rate("canfield", range(4), jobs=1, max_seconds=5).won  # doctest: +SKIP
    2
    """
    return run_study(rules, seeds, settings_of(settings, fields), store=store, progress=progress)


def _run_inline(rules: "Rules | GameKey", chunks: Iterable[list[int]], settings: StudySettings, record: Callable[[list[StoredResult]], None]) -> None:
    """One worker: the deals searched in this process (no pool to start, so any script, stdin, ``python -c``
    or a notebook can run it), each recorded as it finishes. Ctrl-C stops the study: a deal it cut short is
    not recorded."""
    for c in chunks:
        for seed in c:
            rows = _solve_chunk(rules, [seed], settings)
            if any(r.limit_hit == "interrupted" for r in rows):
                raise KeyboardInterrupt
            record(rows)


def main_reimport_problem() -> str | None:
    """Why worker processes could not start from this program, or None. Local workers are started with
    "spawn", which runs the main program's file again in each worker: a file whose study is not under
    ``if __name__ == "__main__":`` would start the study again in every worker, and a main program read
    from standard input has no file to run. Said before any worker starts."""
    import ast
    import inspect

    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    if main is None or path is None:  # a notebook, python -c, the interactive prompt: nothing is re-run
        return None
    name = getattr(getattr(main, "__spec__", None), "name", None)
    if name is not None and (name == "__main__" or name.endswith(".__main__")):
        return None  # python -m PACKAGE: multiprocessing never runs a package's __main__ again
    fix = 'run it with jobs=1 (--jobs 1), or from a script file with the study under if __name__ == "__main__":'
    if not os.path.isfile(path):
        return f"worker processes cannot start from a program read from {path!r}: {fix}"
    lines = [fr.f_lineno for fr in (f.frame for f in inspect.stack(0))
             if fr.f_globals is main.__dict__ and fr.f_code.co_name == "<module>"]
    if not lines:
        return None  # called from a function of the script: it runs only when called
    try:
        tree = ast.parse(open(path, encoding="utf-8").read(), path)
    except (OSError, SyntaxError, UnicodeDecodeError):
        return None

    def guarded(node: ast.AST) -> bool:
        t = getattr(node, "test", None)
        return isinstance(node, ast.If) and isinstance(t, ast.Compare) and "__name__" in ast.unparse(t) \
            and "__main__" in ast.unparse(t)

    spans = [(n.lineno, n.end_lineno or n.lineno) for n in ast.walk(tree) if isinstance(n, ast.If) and guarded(n)]
    if any(a <= lines[-1] <= b for a, b in spans):
        return None
    return (f"{os.path.basename(path)} runs a study with worker processes at its top level, which each worker "
            f"would run again: {fix}")


def _pool_died(ex: ProcessPoolExecutor, restarts: int, unfinished: int) -> None:
    """A worker process died (the pool is broken): say so and go on with a new pool, or, past
    ``MAX_POOL_RESTARTS``, end the study with how the workers ended (the finished deals are stored)."""
    codes = sorted({p.exitcode for p in (getattr(ex, "_processes", None) or {}).values()
                    if p.exitcode not in (None, 0)})
    if restarts > MAX_POOL_RESTARTS:
        how = ("killed (SIGKILL: out of memory, or by hand)" if -9 in codes else
               f"exit codes {', '.join(map(str, codes))}" if codes else "no exit code")
        raise StudyError(f"worker processes died {restarts} times ({how}); the finished deals are "
                         "stored: run the study again to resume") from None
    print(f"canfield: a worker process died; restarting the pool and re-running {unfinished} unfinished deals",
          file=sys.stderr)


def _run_local(jobs: int, rules: "Rules | GameKey", chunks: Iterable[list[int]], settings: StudySettings,
               record: Callable[[list[StoredResult]], None]) -> None:
    import multiprocessing as mp

    problem = main_reimport_problem()
    if problem is not None:
        raise StudyError(problem)
    source = iter(chunks)
    retry: list[list[int]] = []  # chunks of a pool that died, run again first

    def take() -> list[int] | None:
        return retry.pop() if retry else next(source, None)

    first = take()
    if first is None:
        return  # nothing to search: no pool to start
    retry.append(first)
    restarts = 0
    window = jobs * 2
    more = True
    while more or retry:
        ex = ProcessPoolExecutor(max_workers=jobs, mp_context=mp.get_context("spawn"), initializer=_warm)
        inflight: dict[Future[list[StoredResult]], list[int]] = {}
        try:
            while True:
                with spawning_quietly():             # submit spawns the workers it needs
                    while len(inflight) < window:
                        c = take()
                        if c is None:
                            more = False
                            break
                        inflight[ex.submit(_solve_chunk, rules, c, settings)] = c
                if not inflight:
                    break
                finished, _ = wait(list(inflight), return_when=FIRST_COMPLETED)
                for f in finished:
                    rows = f.result()  # raises BrokenProcessPool while the chunk is still in flight
                    del inflight[f]
                    record(rows)
        except BrokenProcessPool:
            restarts += 1
            retry.extend(inflight.values())
            _pool_died(ex, restarts, sum(map(len, inflight.values())))
        except BaseException as exc:
            if isinstance(exc, KeyboardInterrupt):  # deals finished before the interrupt, not yet taken: kept
                with suppress(Exception):
                    for f in [f for f in inflight if f.done() and not f.cancelled() and f.exception() is None]:
                        del inflight[f]
                        record(f.result())
            stop_pool(ex)  # the workers and the pool's manager thread ended before the interrupt goes on
            raise
        finally:
            ex.shutdown(wait=True, cancel_futures=True)


def _run_dask(address: str, rules: "Rules | GameKey", chunks: Iterable[list[int]], settings: StudySettings,
              record: Callable[[list[StoredResult]], None]) -> None:
    try:
        from dask.distributed import Client, as_completed
    except ImportError:
        raise StudyError("--scheduler needs Dask: " + install_hint("dask")) from None
    try:
        client = Client(address, timeout=DASK_CONNECT_TIMEOUT)
    except (OSError, TimeoutError) as e:
        raise StudyError(f"cannot reach the Dask scheduler at {address}: {e}") from None
    try:
        nthreads = sum(client.nthreads().values()) or 1
        window = nthreads * 2
        source = iter(chunks)
        ac = as_completed()
        for c in source:
            ac.add(client.submit(_solve_chunk, rules, c, settings, pure=False))
            if ac.count() >= window:
                break
        for fut in ac:
            record(fut.result())
            fut.release()
            nxt = next(source, None)
            if nxt is not None:
                c = nxt
                ac.add(client.submit(_solve_chunk, rules, c, settings, pure=False))
    finally:
        client.close()
