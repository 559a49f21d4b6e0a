"""The searches that run before the exact one (solver notes §10), each in a share of the caller's limits:
their compiles, and ``Phases``, which runs them one row of a schedule at a time. The order, the shares and
the conditions are data (``search.schedule``, ``schedules.json``); this module only runs a row.

- ``nested``: nested Monte Carlo searches of level 1 (``search.playout``), for wins: they win most of the
  deals the depth-first search walks past where any suit builds, in milliseconds.
- ``adapt``: nested rollout policy adaptation (``search.adapt``): playouts under a policy learned from the
  best lines, for wins the nested searches and the exact search leave (where any suit builds, and where gaps
  wait for a move: `superior-canfield`, whose exact search spends most of its moves filling gaps).
- ``beam``: beam searches (``search.beam``), the positions a layer at a time and the best of each kept, for
  wins where gaps wait for a move (the layer's positions ranked by the reserve cards played).
- ``prove``: the abstract game over ranks (``search.ranks``, ``PROVE``), for losses: an exhausted abstract
  game proves the deal lost (solver notes, "Loss proofs over ranks"); it ends early when it wins
  abstractly, which proves nothing, and says so (``abstract_win``), or when its share ends
  (``abstract_unfinished``).
- ``find``: the real moves under the key of ranks (``ranks.find``, the published solver's streamliner), for
  wins, where the abstract game was won or left unfinished.

Their kernels compile in four parts (``UNITS``: ``nested``, ``ranks``, ``adapt``, ``beam``), each once a machine;
a phase whose compile does not fit the time left is skipped (``not_ready``, named in
``stats["compiling"]``) while a process of its own compiles it (``start_background``).

Every win is a real line, replayed by the solver as every line is; every phase's nodes, time and outcome are
in ``stats["phases"]``.
"""

from __future__ import annotations

import functools
import os
import time
from dataclasses import replace
from typing import Callable

from .. import compiles
from ..budget import Limit, Limits, tell_event
from ..engine.position import Position
from . import kernel_load
from .outcome import Outcome

MIN_SECONDS = 0.01    # a phase given less time than this is not run
# The phases' compiles (``compiles.NAMES``), one each, in the order a background compile takes them: the
# nested searches first (most wins at 2 s), the game over ranks (5 s), the policy adaptation, the beam search.
UNITS = ("nested", "ranks", "adapt", "beam")
BACKGROUND_NICE = 5  # a background compile of the phases yields to the kernel's, which every search needs


@functools.cache
def _kernels() -> tuple:
    """The phases' modules, imported (and their kernels registered with ``compiles``) on first use."""
    from . import adapt, beam, playout, ranks

    compiles.entry_points("nested", *playout.ENTRY_POINTS)
    compiles.entry_points("ranks", *ranks.ENTRY_POINTS)
    compiles.entry_points("adapt", *adapt.ENTRY_POINTS)
    compiles.entry_points("beam", *beam.ENTRY_POINTS)
    return playout, ranks, adapt, beam


def _throwaway(what: str) -> None:
    """Run the kernels of ``what`` (one of ``UNITS``) on a throwaway deal, which compiles or loads them. A Ctrl-C
    meanwhile ends these searches "interrupted": it is the caller's, passed on as ``KeyboardInterrupt``."""
    from ..engine.deal import Deal
    from ..engine.rules import get_rules

    playout, ranks, adapt, beam = _kernels()
    start = Position(Deal.from_seed(0, get_rules("rainbow")))
    if what == "nested":
        ended = playout.nested(start, Limits(nodes=1), rounds=1).limit
    elif what == "ranks":  # its rehash last: the cache index of that function says both are compiled
        ended = ranks.prove(start, Limits(nodes=1, memory_mb=16)).limit
        ranks.warm_up_rehash()
    elif what == "adapt":
        ended = adapt.policy(start, Limits(nodes=1)).limit
    else:
        ended = beam.beam(start, Limits(nodes=1)).limit
    if ended is Limit.INTERRUPTED:
        raise KeyboardInterrupt


@functools.cache  # once a process
def warm_up_one(what: str) -> float:
    """Compile (or load) the kernels of ``what`` (one of ``UNITS``), once a machine; the seconds it took."""
    t0 = time.perf_counter()
    with compiles.compiling(what):
        _throwaway(what)
    return time.perf_counter() - t0


def warm_up() -> float:
    """Compile (or load) every phase's kernels on a throwaway deal, once a machine; the seconds it took."""
    return sum(warm_up_one(what) for what in UNITS)


def start_background() -> tuple[str, ...]:
    """Start compiling, in a process of its own (``kernel_load.background``), every phase that is neither
    compiled nor being compiled; the phases it will compile (none when it could not start, or when there is
    nothing to compile or no disk cache to fill)."""
    _kernels()
    todo = tuple(w for w in UNITS if not compiles.compiled(w))
    if not todo or any(compiles.busy(w) for w in todo):
        return ()
    return todo if kernel_load.background(todo[0], __name__) is not None else ()


def _background_compile() -> None:
    """``python -m canfield_solver.search.portfolio``: every phase not yet compiled, in ``UNITS``' order, each
    lock taken first and let go as soon as that phase is compiled (``compiles.compile_in_turn``), at a lower
    priority than the kernel's compile (``BACKGROUND_NICE``)."""
    try:
        os.nice(BACKGROUND_NICE)
    except (OSError, AttributeError):
        pass
    _kernels()
    compiles.compile_in_turn([(w, functools.partial(_throwaway, w)) for w in UNITS if not compiles.compiled(w)])


def not_ready(limits: Limits, units: tuple[str, ...] = UNITS) -> tuple[str, ...]:
    """Of ``units``, the phases whose kernels are neither compiled nor compiled now because their first compile
    fits the time left (``compiles.estimate``: twice the figure, all of them together). Those that do not
    fit compile in a process of their own (``start_background``, unless one is compiling them already),
    which fills Numba's cache for the searches after this one; this search runs without them."""
    _kernels()
    missing = tuple(w for w in units if not compiles.compiled(w))
    if not missing:
        return ()
    left = limits.seconds
    if left is None or left >= 2 * sum(compiles.estimate(w)[0] for w in missing):
        for w in missing:
            warm_up_one(w)
        return ()
    tell_background(start_background())
    return missing


def tell_background(started: tuple[str, ...]) -> None:
    """Tell the listeners, in one notice, that a background compile of the phases ``started`` has begun."""
    if started:
        figures = [compiles.estimate(w) for w in started]
        source = "this machine" if all(src == "this machine" for _, src in figures) else "the development machine"
        compiles.tell(compiles.Notice("phases", "background", sum(secs for secs, _ in figures), source))


Decode = Callable[[list[int]], list[str]]


class Phases:
    """One deal's phases: what they have spent (nodes, ``phases``: a line each for ``stats``) and the best
    real line the searches by playouts followed, which stands for the deal's best line where nothing wins.
    ``schedule.search`` makes it after the exact search's first look (``probed``, the Outcome it ended with,
    and ``t0``, when it began), whose nodes, time and best line count as the phases' own, and runs a search at
    a time (``run``) in the share the schedule's row gives it (``share``)."""

    def __init__(self, start: Position, limits: Limits, probed: Outcome | None = None, t0: float | None = None,
                 pending: tuple[str, ...] = ()):
        self.start, self.limits, self.pending = start, limits, pending
        self.t0 = time.perf_counter() if t0 is None else t0
        self.spent = 0 if probed is None else probed.nodes
        self.phases: list[dict] = [] if probed is None else [
            {"phase": "probe", "ended": "nodes", "nodes": probed.nodes, "seconds": round(probed.seconds, 4)}]
        self.best: tuple[int, list[int], Decode] | None = (
            None if probed is None else (probed.best_score, probed.best_path, probed.decode))
        self.abstract_win = False  # the abstract game was won: a sign, no proof, that the deal may be won
        self.abstract_unfinished = False  # it stopped at its share (time, nodes or memory), neither won nor lost

    def run(self, phase: str, lim: Limits, rounds: int = 0) -> Outcome | None:
        """Run one search (``nested``, ``adapt``, ``beam``, ``prove``, ``find``) within ``lim`` (``rounds``: the
        nested searches' count at most): the Outcome when it decided the deal (or an interrupt ended it), else
        None."""
        playout, ranks, adapt, beam = _kernels()
        if phase == "nested":
            return self.played("nested", "a nested search", playout.nested(self.start, lim, rounds=rounds))
        if phase == "adapt":
            return self.played("adapt", "the policy adaptation", adapt.policy(self.start, lim))
        if phase == "beam":
            return self.played("beam", "the beam search", beam.beam(self.start, lim))
        if phase == "prove":
            return self.losses(ranks.prove(self.start, lim))
        return self.find(ranks.find(self.start, lim))

    def share(self, part: float, most: float | None = None, memory_mb: int | None = None) -> Limits | None:
        """``part`` of what is left of the time (at most ``most`` seconds) and of the nodes; None when that is
        too little to start a phase."""
        now = self.limits.spent(self.spent)
        secs = now.seconds
        s = most if secs is None else (secs * part if most is None else min(secs * part, most))
        if s is not None and s < MIN_SECONDS:
            return None
        nodes = None if now.nodes is None else int(now.nodes * part)
        return now.share(seconds=s, nodes=nodes, memory_mb=memory_mb)

    def left(self, seconds: float) -> bool:
        """Whether at least ``seconds`` of the time limit are left (always, without one)."""
        now = self.limits.spent(self.spent).seconds
        return now is None or now >= seconds

    def played(self, phase: str, who: str, w: Outcome) -> Outcome | None:
        """A search by playouts ended: its line in ``phases``, its best line kept when it went further than the
        best so far; the Outcome when it won (or an interrupt ended it), else None."""
        self.spent += w.nodes
        self.phases.append({"phase": phase, "ended": w.ended, "nodes": w.nodes, "rounds": w.stats["rounds"],
                            "seconds": round(w.seconds, 4)})
        if self.best is None or w.best_score > self.best[0]:
            self.best = (w.best_score, w.best_path, w.decode)
        if w.won:
            tell_event(self.limits.progress, self.spent, time.perf_counter() - self.t0,
                   f"{who} won in {w.seconds:.2f} s")
            return self.outcome(True, None, w.solution)
        if w.limit is Limit.INTERRUPTED:
            return self.outcome(False, Limit.INTERRUPTED, [])
        return None

    def losses(self, p: Outcome) -> Outcome | None:
        """The abstract game over ranks ended: the Outcome when it proved the deal lost (or an interrupt ended
        it), else None (won abstractly, or stopped by its share: ``abstract_win``, ``abstract_unfinished``)."""
        self.spent += p.nodes
        self.phases.append({"phase": "prove", "ended": "lost" if p.proved_lost else p.ended, "nodes": p.nodes,
                            "rows": p.positions, "seconds": round(p.seconds, 4)})
        if p.proved_lost:
            tell_event(self.limits.progress, self.spent, time.perf_counter() - self.t0,
                       f"the game over ranks is lost: the deal is lost ({p.positions:,} positions, {p.seconds:.2f} s)")
            return self.outcome(False, None, [], positions=p.positions, decode=p.decode)
        if p.limit is Limit.INTERRUPTED:
            return self.outcome(False, Limit.INTERRUPTED, [], decode=p.decode)
        self.abstract_win = p.ended == "won"
        self.abstract_unfinished = p.limit is not None
        return None

    def find(self, f: Outcome) -> Outcome | None:
        """The real moves under the class key (the published solver's streamliner, ``ranks.find``) ended: the
        Outcome when they won (or an interrupt ended them)."""
        self.spent += f.nodes
        self.phases.append({"phase": "find", "ended": f.ended, "nodes": f.nodes, "rows": f.positions,
                            "seconds": round(f.seconds, 4)})
        if f.won:
            tell_event(self.limits.progress, self.spent, time.perf_counter() - self.t0,
                   f"the search under a key of ranks won in {f.seconds:.2f} s")
            self.best = (4 * self.start.rules.ranks, f.solution, f.decode)
            return self.outcome(True, None, f.solution)
        if f.limit is Limit.INTERRUPTED:
            return self.outcome(False, Limit.INTERRUPTED, [])
        return None

    def rest(self, exact: Callable[[Limits], Outcome]) -> Outcome:
        """The exact search with what the phases left; its Outcome, with their nodes and lines added."""
        out = exact(self.limits.spent(self.spent))
        ended = str(out.limit) if out.limit is not None else "won" if out.won else "exhausted"
        stats = {**out.stats, "phases": self.phases + [{"phase": "exact", "ended": ended, "nodes": out.nodes,
                                                        "seconds": round(out.seconds, 4)}],
                 "compiling": list(self.pending)}
        out = replace(out, nodes=out.nodes + self.spent, stats=stats, seconds=time.perf_counter() - self.t0)
        if not out.won and self.best is not None and self.best[0] > out.best_score:
            score, path, dec = self.best
            out = replace(out, best_score=score, best_path=path, decode=dec)
        return out

    def outcome(self, won: bool, limit: Limit | None, solution: list[int], positions: int = 0,
                decode: Decode | None = None) -> Outcome:
        """An Outcome a phase decided (or an interrupt ended): a win's line, or the best line followed."""
        if won or self.best is not None:
            score, path, dec = self.best if self.best is not None else (0, [], decode)
        else:
            score, path, dec = self.start.score, [], decode
        assert dec is not None
        if won:
            score, path = 4 * self.start.rules.ranks, solution
        return Outcome(won=won, limit=limit, truncated=False, solution=solution, best_score=score, best_path=path,
                       nodes=self.spent, max_depth=len(solution or path), positions=positions,
                       seconds=time.perf_counter() - self.t0, decode=dec,
                       stats={"phases": self.phases, "decided_by": self.phases[-1]["phase"] if limit is None
                              else None, "compiling": list(self.pending)})


if __name__ == "__main__":  # python -m canfield_solver.search.portfolio: fill the cache (``start_background``)
    _background_compile()
