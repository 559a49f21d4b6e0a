"""The first answer while the kernel compiles.

On a machine whose Numba cache does not hold the kernel yet, ``solve`` would wait for the compile
(``compiles.MEASURED``: some 19 s on the development machine) before its first node. Instead it starts the
compile in a process of its own (``python -m canfield_solver.search.kernel_load``, which fills the cache
under the machine's compile lock and goes on if this process ends first, so the next run loads the
kernel), and beside it the compile of the phases that run before the exact search where any suit builds
(``portfolio.start_background``: every first compile a ``solve`` may need starts in the first run, and
neither waits for the other), and meanwhile searches with the same kernel interpreted (``interpreted``):
the same nodes in the same order, some 4,000 a second, which decides most deals within a second or two.
The interpreted search stops, and the compiled search takes over from the start, when the compile is done
or after ``QUICK_NODES`` nodes, whichever comes first; it never changes a verdict, only when it arrives.

Only the run that starts a compile says so ("the first run of this install"); a run that finds it going in
another process says nothing on its way, and its result names what it searched without
(``stats["compiling"]``, which the command line puts on its verdict line).
"""

from __future__ import annotations

import subprocess
import time
from dataclasses import replace

import numpy as np

from .. import compiles, jit
from ..budget import Limit, Limits
from ..engine.position import Position
from ..engine.rules import Rules
from . import depth_first, interpreted, portfolio, schedule
from . import kernel_load as kc
from .outcome import Outcome

QUICK_NODES = 50_000  # interpreted nodes at most (about 12 s on the development machine) before waiting
QUICK_CHUNK = 512     # nodes between two looks at the compile, the clock and the limits (about 0.1 s)


def wanted() -> bool:
    """Whether a search now would wait for a compile: the kernel neither loaded here nor in the cache. False
    without a disk cache (``jit.DISK_CACHE``): no other process could compile it for this one."""
    from numba import config

    return not config.DISABLE_JIT and jit.DISK_CACHE and not compiles.compiled("kernel")


def _start_compile() -> subprocess.Popen | None:
    """The background compiles: the kernel's (``kernel_load.background``; its process is returned, None when
    another process is compiling it already or it cannot be started: the kernel is then compiled here, after
    the interpreted search) and the phases' (``portfolio.start_background``), each told to the listeners by
    this run only when this run started it."""
    proc = kc.background()
    if proc is not None:
        secs, source = compiles.estimate("kernel")
        compiles.tell(compiles.Notice("kernel", "background", secs, source))
    portfolio.tell_background(portfolio.start_background())
    return proc


def needs(rules: Rules) -> tuple[str, ...]:
    """The phases' compiles (``portfolio.UNITS``) that a ``solve`` under ``rules`` runs with ``method="auto"``."""
    return schedule.units(schedule.rows_for(rules))


class _CompileDone(Exception):
    pass


def search(start: Position, limits: Limits) -> tuple[Outcome | None, float]:
    """Search ``start`` interpreted while the kernel compiles elsewhere: (the outcome, seconds spent).
    The outcome is None when the compiled kernel should search instead (the compile is done, or the
    interpreted search reached ``QUICK_NODES`` before the caller's own limits); otherwise it is final:
    decided, or ended by one of the caller's limits."""
    t0 = time.perf_counter()
    proc = _start_compile()
    max_nodes, progress = limits.nodes, limits.progress
    cap = QUICK_NODES if max_nodes is None else min(max_nodes, QUICK_NODES)

    def compile_done() -> bool:
        return proc.poll() is not None if proc is not None else not compiles.busy("kernel")

    def watch(nodes: int, seconds: float) -> None:
        if progress is not None:
            progress(nodes, seconds)
        if compile_done():
            raise _CompileDone

    try:
        with np.errstate(all="ignore"):  # uint64 arithmetic wraps, as compiled; numpy warns of it
            outcome = depth_first.search(start, replace(limits, nodes=cap, progress=watch), 0.0,
                                         depth_first.How(interpreted.kernel(), QUICK_CHUNK))
    except _CompileDone:
        return None, time.perf_counter() - t0
    spent = time.perf_counter() - t0
    if outcome.limit is Limit.MEMORY or (outcome.limit is Limit.NODES and (max_nodes is None or max_nodes > cap)):
        return None, spent  # our own cap, not the caller's limit; or memory, where "auto" goes on layered
    compiling = ["kernel", *(w for w in needs(start.rules) if not compiles.compiled(w))]
    return replace(outcome, stats={**outcome.stats, "interpreted": True, "compiling": compiling}), spent
