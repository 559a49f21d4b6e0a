"""The layered proof's driver: ``search`` closes the layers in order under the limits, with progress and
workers, and returns its ``Outcome``; ``after`` goes on from a depth-first search whose table filled;
``warm_up`` compiles the package's entry points once a process."""

from __future__ import annotations

import functools
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import Generator

import numpy as np

from ... import compiles
from ...budget import Limit, Limits, Pace, Step, drive, interrupt_inside, takes_keyword
from ...engine.position import Position
from ...errors import CanfieldError, SolverBugError
from .. import codec as C
from ..arrays import decode
from ..outcome import Outcome
from .close import (
    BUDGET,
    C_BEST,
    C_EXPANDED,
    C_NODES,
    C_STUCK,
    LONG_KEY,
    WON,
    close_entries,
    find,
    index,
    level_of,
)
from .phase import Phase
from .slot import Slot
from .sort import cuts, kway, sorted_run
from .store import Layers
from .wonline import LineLate, won_line
from .workers import Closing


class UnsupportedRules(CanfieldError):
    """The layered phase cannot search from this start (its key does not fit a short key)."""


def search(start: Position, limits: Limits, compile_seconds: float = 0.0) -> Outcome:
    """Search ``start`` layer by layer until it is won, every layer is closed, or a limit (or Ctrl-C) stops
    it. ``limits.progress`` is called between chunks with (nodes, seconds) and, if it takes a ``phase``
    keyword, a line naming the layer and the rows waiting. Raises ``UnsupportedRules`` where the start's key
    is too long for a short key (a position met later with one ends the phase ``unknown``, memory).

    ``limits.workers`` threads close each layer's chunks at once, each with a table of its own (solver notes §9,
    "a layer on several workers"): the same verdict; the node counts and the won line may vary."""
    ph = Phase(start)
    first = ph.start_item()
    if first is None:
        raise UnsupportedRules(f"the layered proof keeps short keys only, and no position under rules "
                               f"{start.rules.name!r} has one; solve it with method 'depth-first' or 'auto'")
    deadline = limits.deadline  # the caller's limit bounds what it waits for, this compile included
    t_compile = time.perf_counter()
    warm_up()
    run = _Run(ph, limits, compile_seconds + time.perf_counter() - t_compile)
    steps = run.chunks()
    try:
        if start.score == ph.full:
            return run.outcome(True, None)
        k0, k1, wp, m0 = first
        f = int(C.cover_bits(np.uint64(0), wp, ph.draw, ph.cb)) << ph.tb if ph.cover else 0
        ph.add_run(m0, np.array([[k0, k1 | f]], np.uint64))
        # The budget is the chunks' own (run.left() shared among the workers): a call closes the next chunk.
        limit = drive(lambda budget: next(steps), lambda: int(ph.counts[C_NODES]),
                      replace(limits, progress=run.report), Pace(2**62, t0=run.t0))
        steps.close()
        if run.won_at:
            try:  # within the caller's time limit too: the user waits for the line as for the proof
                line = won_line(ph, run.layers, run.won_at[0], first, deadline.left())
            except LineLate:
                return run.outcome(False, Limit.SECONDS,
                                   note="won, but the time limit came before the won line was found again")
            if line is None:  # the layers' files could not be kept: winnable, but no line to show
                return run.outcome(False, Limit.MEMORY, note="no room on disk")
            return run.outcome(True, None, line)
        return run.outcome(False, limit)
    except KeyboardInterrupt:
        return run.outcome(False, Limit.INTERRUPTED)
    except SystemError as e:  # Ctrl-C inside a compiled function (``budget.interrupt_inside``)
        if interrupt_inside(e):
            return run.outcome(False, Limit.INTERRUPTED)
        raise
    except OSError as e:  # the runs waiting could not be written: the phase's memory on disk is full
        return run.outcome(False, Limit.MEMORY, note=f"disk: {e}")
    finally:
        steps.close()
        run.layers.close()


class _Run:
    """One layered phase's state: the layers waiting (``layers``), the layer being closed (``m``), the memory
    it holds now and at most (``held``, ``peak``), the layer of the first won child (``won_at``), the halt
    flag every chunk looks at, and the progress line's state."""

    def __init__(self, ph: Phase, limits: Limits, compile_seconds: float):
        self.ph, self.max_nodes, self.workers, self.progress = ph, limits.nodes, limits.workers, limits.progress
        self.compile_seconds = compile_seconds
        self.t0 = time.perf_counter()
        self.layers = Layers()
        ph.store_in(self.layers)
        self.cap = limits.memory_mb * (1 << 20)
        self.won_at: list[int] = []  # the layer of the first won child, once found
        self.peak = self.held = 0
        self.nlayers = 0
        self.m = -1
        self.halt = np.zeros(1, np.int64)  # set: every chunk being closed stops at its next entry
        self.shown = -1.0
        self.talks = self.progress is not None and takes_keyword(self.progress, "phase")

    def left(self) -> int | None:
        """What is left of the node limit (None: no limit)."""
        return None if self.max_nodes is None else self.max_nodes - int(self.ph.counts[C_NODES])

    def chunks(self) -> Generator[Step, None, None]:
        """Close the layers in order, a chunk of entries a step (one ``Step`` each, as each chunk ends)."""
        ph, workers = self.ph, self.workers
        pool = ThreadPoolExecutor(workers, thread_name_prefix="canfield-layer") if workers > 1 else None
        ph.run_on(pool, workers)
        try:
            while ph.pending:
                end = yield from self.close_layer(pool)
                if end is not None:
                    yield end
                    return
            yield Step.DONE  # every layer closed without a win: lost
        finally:
            self.halt[0] = 1  # closed early (a limit, Ctrl-C, an error): no thread goes on after the phase
            if pool is not None:
                pool.shutdown(wait=True)

    def close_layer(self, pool: ThreadPoolExecutor | None) -> Generator[Step, None, Step | None]:
        """Close the first layer waiting, a chunk a step; how the phase ends in it (None: it goes on)."""
        ph = self.ph
        self.m = m = ph.layers.first()
        entries = ph.entries(m)
        starts = index(entries)
        self.nlayers += 1
        closing = Closing(ph, entries, starts, self.workers, self.halt, self.left)
        end: Step | None = None  # how the phase ends in this layer, if it does
        closed = 0
        for slot, status, runs, c in closing.results(pool):
            ph.counts[C_NODES:C_STUCK + 1] += c[C_NODES:C_STUCK + 1]
            ph.counts[C_BEST] = max(ph.counts[C_BEST], c[C_BEST])
            closing.done(slot)
            if end is not None:
                continue  # a chunk stopped by the halt: the phase is ending anyway
            if status == WON:
                self.won_at.append(m)
                end = Step.DONE
            elif status == LONG_KEY:
                end = Step.NO_MEMORY
            elif status == BUDGET:
                end = Step.NO_ROOM
            for dm, run in runs:
                ph.add_run(m + dm, run)
            closed += 1
            self.held = starts.nbytes + sum(sl.nbytes for sl in closing.slots)
            self.peak = max(self.peak, self.held)
            if closed % 16 == 0:
                ph.disk = max(ph.disk, self.layers.disk_bytes())
            if self.held > self.cap and end is None:
                end = Step.NO_MEMORY
            if end is not None:
                self.halt[0] = 1  # the other slots stop at their next entry; their results are drained
                continue
            yield Step.GOING
        ph.rows += len(entries) + sum(int(sl.stats[C.ST_TTCOUNT]) for sl in closing.slots)
        return end

    def report(self, nodes: int, elapsed: float) -> None:
        """The progress line, at most five times a second."""
        if self.progress is None or elapsed < self.shown + 0.2:
            return
        self.shown = elapsed
        if self.talks:
            on = f", {self.workers} workers" if self.workers > 1 else ""
            self.progress(nodes, elapsed, phase=f"layer {self.m}, {self.ph.pending_rows():,} waiting, "
                                                f"{self.held / 2**20:,.0f} MiB{on}")
        else:
            self.progress(nodes, elapsed)

    def outcome(self, won: bool, limit: Limit | None, line: list[int] | None = None,
                note: str | None = None) -> Outcome:
        """How the phase ended: won with ``line`` (the kernel's path), or ``limit``; ``note`` says why where a
        limit needs it (the disk, a line found too late)."""
        ph, line = self.ph, line or []
        c = ph.counts
        stats: dict[str, object] = {
            "layered_layers": self.nlayers, "layered_peak_mb": round(self.peak / 2**20, 1), "layered_rows": ph.rows,
            "layered_expanded": int(c[C_EXPANDED]), "stuck_prunes": int(c[C_STUCK]),
            "compile_seconds": self.compile_seconds}
        if note:
            stats["layered_note"] = note
        stats["layered_best_score"] = int(c[C_BEST])
        stats["layered_disk_mb"] = round(ph.disk / 2**20, 1)
        prob, start = ph.prob, ph.start
        return Outcome(won=won, limit=limit, truncated=False, solution=line, best_score=int(c[C_BEST]) if won else
                       start.score, best_path=[], nodes=int(c[C_NODES]), max_depth=len(line),
                       positions=int(c[C_EXPANDED]), seconds=time.perf_counter() - self.t0,
                       decode=lambda path: decode(prob, start, path), stats=stats)


def after(first: Outcome, start: Position, limits: Limits, compile_seconds: float = 0.0) -> Outcome:
    """The layered phase after a depth-first search ``first`` that stopped for memory: with what is left of
    the node limit and of the caller's deadline, and the same memory cap; one outcome of the two (nodes,
    time and positions added; the best line the depth-first search's, which ``first.decode`` replays)."""
    rest = limits.spent(first.nodes)
    left = rest.seconds
    if (rest.nodes is not None and rest.nodes <= 0) or (left is not None and left <= 0):
        return first
    try:
        second = search(start, rest, compile_seconds)
    except UnsupportedRules:
        return first
    stats = {**first.stats, **{k: v for k, v in second.stats.items() if k.startswith("layered")}}
    stats["depth_first_nodes"] = first.nodes
    stats["depth_first_seconds"] = round(first.seconds, 3)
    won = second.won
    return Outcome(won=won, limit=second.limit, truncated=False, solution=second.solution,
                   best_score=second.best_score if won else first.best_score,
                   best_path=[] if won else first.best_path, nodes=first.nodes + second.nodes,
                   max_depth=max(first.max_depth, second.max_depth), positions=first.positions + second.positions,
                   seconds=first.seconds + second.seconds, decode=second.decode if won else first.decode,
                   stats=stats)


ENTRY_POINTS = (close_entries, sorted_run, kway, cuts, index, find, level_of)  # what warm_up compiles
compiles.entry_points("layered", *ENTRY_POINTS)


@functools.cache  # once a process
def warm_up() -> None:
    """Compile (or load from Numba's cache) the layered phase's functions, on a throwaway deal: once a
    machine, told to ``compiles.listeners`` when it compiles."""
    with compiles.compiling("layered"):
        _warm_up()


def _warm_up() -> None:
    from ...engine.deal import Deal
    from ...engine.rules import get_rules

    ph = Phase(Position(Deal.from_seed(0, get_rules("canfield"))))
    first = ph.start_item()
    if first is None:  # every canfield position has a short key
        raise SolverBugError("the layered phase's warm-up deal has no short key")
    k0, k1, wp, _m = first
    f = int(C.cover_bits(np.uint64(0), wp, ph.draw, ph.cb)) << ph.tb
    entries = np.array([[k0, k1 | f]], np.uint64)
    slot = Slot(1, np.zeros(1, np.int64))
    _s, nout, _f = ph.close(entries, index(entries), 0, 0, slot)
    ph.sorted_runs(slot, nout)
    kway(entries, np.array([0], np.int64), np.array([1], np.int64), ph.field, ph.tb, ph.cover, ph.draw, ph.cb,
          np.empty((1, 2), np.uint64))
    cuts(entries, np.array([0, 1], np.int64), ~ph.field, 2)
    find(entries, index(entries), np.uint64(k0), np.uint64(k1), ~ph.field)
    level_of(np.uint64(k0), np.uint64(k1), 0, ph.params, ph.prob.reserve, ph.prob.talon, ph.prob.lut, 13,
              np.zeros((2, C.MAXCOLS, C.COLCAP), np.int8), np.zeros((2, C.NSC), np.int64), np.zeros(2, np.uint64))
