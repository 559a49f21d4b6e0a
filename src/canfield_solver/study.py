"""Studies: solve many seeds on worker processes (or a Dask cluster), store every result, report a win rate.

>>> from canfield_solver.study import wilson_interval
>>> [round(x, 4) for x in wilson_interval(81, 263)]
[0.2553, 0.3662]
"""

from __future__ import annotations

import math
import os
import sys
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Sequence

from .deal import Deal
from .errors import CanfieldError
from .rules import Rules, get_rules
from .store import ResultStore, StoredResult

__all__ = [
    "StudyError",
    "WinRate",
    "estimate_win_rate",
    "parse_seeds",
    "run_study",
    "summarize",
    "wilson_interval",
]

Z95 = 1.959963984540054
MAX_POOL_RESTARTS = 3
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


def parse_seeds(text: str) -> list[int]:
    """``"0:10000"`` (start:stop, stop excluded), ``"7"``, or ``"1,5,9"`` (mixable: ``"0:10,42"``)."""
    seeds: list[int] = []
    for part in str(text).split(","):
        part = part.strip()
        try:
            bounds = [int(x) for x in part.split(":")]
        except ValueError:
            raise CanfieldError(f"bad seeds {text!r}: expected START:STOP, a seed, or a comma list") from None
        if len(bounds) == 1:
            seeds.append(bounds[0])
        elif len(bounds) == 2:
            if bounds[1] < bounds[0]:
                raise CanfieldError(f"seed range {part!r} is empty: stop must not be below start")
            seeds.extend(range(bounds[0], bounds[1]))
        else:
            raise CanfieldError(f"bad seeds {text!r}: expected START:STOP, a seed, or a comma list")
    for s in seeds:
        if not 0 <= s < 2**64:
            raise CanfieldError(f"seed {s} is out of range 0..2**64-1")
    return list(dict.fromkeys(seeds))


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

    @property
    def decided(self) -> int:
        return self.won + self.lost

    def to_dict(self) -> dict[str, Any]:
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
        }

    def __str__(self) -> str:
        lo, hi = self.interval
        alo, ahi = self.interval_all
        rate = "n/a" if self.rate is None else f"{100 * self.rate:.2f}%"
        return (f"{self.rules}: {self.deals} deals: won {self.won}, lost {self.lost}, unknown {self.unknown}\n"
                f"win rate {rate} (95% CI {100 * lo:.2f}%..{100 * hi:.2f}% over decided deals; "
                f"{100 * alo:.2f}%..{100 * ahi:.2f}% counting unknowns both ways)")


def summarize(rules: str, rows: Sequence[StoredResult], max_seconds: float | None = None, **extra: Any) -> WinRate:
    won = sum(r.verdict == "solved" for r in rows)
    lost = sum(r.verdict == "unsolvable" for r in rows)
    unknown = sum(r.verdict == "unknown" for r in rows)
    n = len(rows)
    decided = won + lost
    lo_all = wilson_interval(won, n)[0] if n else 0.0
    hi_all = wilson_interval(won + unknown, n)[1] if n else 1.0
    return WinRate(rules, n, won, lost, unknown, won / decided if decided else None,
                   wilson_interval(won, decided), (lo_all, hi_all), max_seconds, results=tuple(rows), **extra)


def stored_rules(rules: "str | Rules", numbering: str = "spec") -> Rules:
    """The rules a study's rows are stored under: ``rules`` itself for SPEC seeds, ``<name>@pysolfc`` for
    PySolFC game numbers, so the two numberings never share a row. Refuses, at once, rules PySolFC does
    not deal and a missing pysol-cards package."""
    r = get_rules(rules)
    if numbering == "spec":
        return r
    if numbering != "pysolfc":
        raise CanfieldError(f"numbering must be one of {', '.join(NUMBERINGS)}, not {numbering!r}")
    Deal.from_pysolfc(1, r)
    return r.replace(name=f"{r.name}@pysolfc")


# Work done in a worker process (local pool or Dask worker) ---------------------------------------------
def _solve_chunk(rules: Rules, seeds: Sequence[int], max_seconds: float | None, max_nodes: int | None,
                 max_memory_mb: int | None, with_metrics: bool, analyze_options: dict | None = None,
                 numbering: str = "spec") -> list[StoredResult]:
    from .solver import DEFAULT_MEMORY_MB, solve

    import dataclasses

    name = rules.name if numbering == "spec" else f"{rules.name}@{numbering}"
    out = []
    for seed in seeds:
        deal = Deal.from_seed(seed, rules) if numbering == "spec" else Deal.from_pysolfc(seed, rules)
        if with_metrics:
            from .analysis import analyze

            a = analyze(deal, max_seconds=max_seconds, max_memory_mb=max_memory_mb or DEFAULT_MEMORY_MB,
                        **(analyze_options or {}))
            out.append(dataclasses.replace(a.to_stored(max_seconds), rules=name, seed=seed))
            continue
        r = solve(deal, max_seconds=max_seconds, max_nodes=max_nodes,
                  max_memory_mb=max_memory_mb or DEFAULT_MEMORY_MB)
        out.append(StoredResult(
            rules=name, seed=seed, verdict=r.verdict.value, nodes=r.nodes, seconds=r.seconds,
            best_score=r.best_score, solution_length=len(r.moves), redeals=sum(m == "redeal" for m in r.moves),
            max_seconds=max_seconds, limit_hit=r.limit,
        ))
    return out


def _warm() -> None:
    """Worker start-up: exit when the parent dies (even by kill -9), load the compiled kernel."""
    import signal
    import threading

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle: it stops the pool
    parent = os.getppid()

    def watch() -> None:
        while True:
            time.sleep(1.0)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, daemon=True, name="canfield-parent-watch").start()
    from .solver import load_kernel

    load_kernel()


NUMBERINGS = ("spec", "pysolfc")
ProgressFn = Callable[[int, int, dict, float], None]


def run_study(
    rules: "str | Rules",
    seeds: Iterable[int],
    *,
    jobs: int | None = None,
    max_seconds: float | None = 30.0,
    max_nodes: int | None = None,
    max_memory_mb: int | None = None,
    store: "ResultStore | str | os.PathLike | None" = None,
    scheduler: str | None = None,
    progress: ProgressFn | None = None,
    chunk: int | None = None,
    with_metrics: bool = False,
    analyze_options: dict | None = None,
    numbering: str = "spec",
) -> WinRate:
    """Solve every seed (skipping those the store already decided) and summarize them.

    ``numbering="pysolfc"``: the numbers are PySolFC game numbers
    (``Deal.from_pysolfc``); the store keeps those rows apart from SPEC
    seeds under the rules name ``<name>@pysolfc``.

    ``jobs`` local worker processes (default: the core count), or the Dask
    cluster at ``scheduler`` (``tcp://host:port``). Each finished chunk of
    seeds is written to the store at once, in its own transaction.
    ``progress(done, total, counts, elapsed)`` is called as results arrive.
    """
    rules_played = get_rules(rules)
    r = stored_rules(rules_played, numbering)
    seeds = list(dict.fromkeys(seeds))
    own_store = not isinstance(store, ResultStore) and store is not None
    st: ResultStore | None = ResultStore(store) if own_store else store  # type: ignore[arg-type]
    t0 = time.perf_counter()
    try:
        done = st.done_seeds(r, max_seconds) if st is not None else set()
        if with_metrics and st is not None:
            done = {row.seed for row in st.results(r, seeds) if row.seed in done and row.rating is not None}
        todo = [s for s in seeds if s not in done]
        mem: dict[int, StoredResult] = {}
        counts = {"solved": 0, "unsolvable": 0, "unknown": 0}
        search_seconds = 0.0

        def record(rows: list[StoredResult]) -> None:
            nonlocal search_seconds
            if st is not None:
                st.put_many(r, rows)
            for row in rows:
                mem[row.seed] = row
                counts[row.verdict] += 1
                search_seconds += row.seconds
            if progress is not None:
                progress(len(mem), len(todo), dict(counts), time.perf_counter() - t0)

        if todo:
            size = chunk or _chunk_size(len(todo), jobs, with_metrics)
            chunks = [todo[i:i + size] for i in range(0, len(todo), size)]
            args = (max_seconds, max_nodes, max_memory_mb, with_metrics, analyze_options, numbering)
            if scheduler:
                _run_dask(scheduler, rules_played, chunks, args, record)
            else:
                _run_local(jobs or os.cpu_count() or 1, rules_played, chunks, args, record)
        if st is not None:
            rows = st.results(r, seeds)
        else:
            rows = [mem[s] for s in seeds if s in mem]
        rows.sort(key=lambda x: x.seed)
        return summarize(r.name, rows, max_seconds, searched=len(mem), reused=len(seeds) - len(todo),
                         wall_seconds=time.perf_counter() - t0, search_seconds=search_seconds)
    finally:
        if own_store and st is not None:
            st.close()


def estimate_win_rate(
    rules: "str | Rules",
    seeds: Iterable[int],
    *,
    jobs: int | None = None,
    max_seconds: float | None = 30.0,
    store: "ResultStore | str | os.PathLike | None" = None,
    scheduler: str | None = None,
    progress: ProgressFn | None = None,
    **kwargs: Any,
) -> WinRate:
    """The win rate of ``rules`` over ``seeds``, with 95% Wilson intervals (see ``WinRate``).

    >>> estimate_win_rate("canfield", range(4), jobs=1, max_seconds=5).won  # doctest: +SKIP
    2
    """
    return run_study(rules, seeds, jobs=jobs, max_seconds=max_seconds, store=store, scheduler=scheduler,
                     progress=progress, **kwargs)


def _chunk_size(n: int, jobs: int | None, with_metrics: bool) -> int:
    if with_metrics:
        return 1
    workers = jobs or os.cpu_count() or 1
    # Small chunks keep a kill cheap and the load even; 8 seeds make the per-task overhead negligible.
    return max(1, min(8, n // (workers * 8) or 1))


def _run_local(jobs: int, rules: Rules, chunks: list[list[int]], args: tuple, record: Callable) -> None:
    import multiprocessing as mp

    pending = list(reversed(chunks))
    restarts = 0
    window = jobs * 2
    while pending:
        ex = ProcessPoolExecutor(max_workers=jobs, mp_context=mp.get_context("spawn"), initializer=_warm)
        inflight: dict[Any, list[int]] = {}
        try:
            while pending or inflight:
                while pending and len(inflight) < window:
                    c = pending.pop()
                    inflight[ex.submit(_solve_chunk, rules, c, *args)] = c
                finished, _ = wait(list(inflight), return_when=FIRST_COMPLETED)
                for f in finished:
                    rows = f.result()  # raises BrokenProcessPool while the chunk is still in flight
                    del inflight[f]
                    record(rows)
        except BrokenProcessPool:
            restarts += 1
            pending.extend(inflight.values())
            if restarts > MAX_POOL_RESTARTS:
                raise StudyError(
                    f"worker processes died {restarts} times (out of memory? killed?); the finished deals are "
                    "stored: run the study again to resume") from None
            print(f"canfield: a worker process died; restarting the pool and re-running "
                  f"{sum(map(len, inflight.values()))} unfinished deals", file=sys.stderr)
        except BaseException:
            procs = list((getattr(ex, "_processes", None) or {}).values())
            ex.shutdown(wait=False, cancel_futures=True)
            for p in procs:
                p.terminate()
            raise
        finally:
            ex.shutdown(wait=True, cancel_futures=True)


def _run_dask(address: str, rules: Rules, chunks: list[list[int]], args: tuple, record: Callable) -> None:
    try:
        from dask.distributed import Client, as_completed
    except ImportError:
        raise StudyError("--scheduler needs Dask: pip install 'canfield-solver[dask]'") from None
    try:
        client = Client(address, timeout=DASK_CONNECT_TIMEOUT)
    except (OSError, TimeoutError) as e:
        raise StudyError(f"cannot reach the Dask scheduler at {address}: {e}") from None
    try:
        nthreads = sum(client.nthreads().values()) or 1
        window = nthreads * 2
        pending = list(reversed(chunks))
        ac = as_completed()
        inflight = 0
        while pending and inflight < window:
            ac.add(client.submit(_solve_chunk, rules, pending.pop(), *args, pure=False))
            inflight += 1
        for fut in ac:
            record(fut.result())
            fut.release()
            inflight -= 1
            if pending:
                ac.add(client.submit(_solve_chunk, rules, pending.pop(), *args, pure=False))
                inflight += 1
    finally:
        client.close()
