"""The second design (issue 70): where any suit builds, searches of another kind run before the exact one,
each in a share of the caller's limits, and the exact search gets what they leave.

1. **Wins**: nested Monte Carlo searches of level 1 (``search.playout``), ``NESTED_SHARE`` of the time, at
   most ``NESTED_ROUNDS`` searches. They win most of the deals the depth-first search walks past under
   these rules in milliseconds (issue 70's count: 43 of `rainbow`'s seeds 1000-1099 within 0.5 s, where
   the exact search decides 19 in 2 s). Then nested rollout policy adaptation (``search.adapt``),
   ``ADAPT_SHARE`` of what is left, at most ``ADAPT_MAX_SECONDS``: playouts under a policy learned from
   the best lines, which win deals the nested searches and the exact search leave at 6 s (8 of 30
   `rainbow` deals unknown at 2 s, each in under 1 s; Solvitaire's rainbow 1016 in its first playouts).
   At 2 s it leaves `rainbow` 145 unknown of 300 deals where the build without it left 173, `chameleon`
   (mostly lost deals) 191 against 198 (benchmarks/results/issue70-adapt.txt).
2. **Losses**: the abstract game over ranks (``search.ranks``, ``PROVE``), ``PROVE_SHARE`` of the time and
   of the memory; it ends early when it wins abstractly (which proves nothing), and what it leaves of its
   share goes on. An exhausted abstract game proves the deal lost (solver notes, "Loss
   proofs over ranks"): on `chameleon` it proves lost in seconds deals the exact search leaves unknown
   after 10 s.
3. **More wins** where the abstract game was won: the real moves under the key of ranks (``ranks.find``),
   ``FIND_SHARE`` of what is left (Solvitaire's rainbow 1016: won in 0.4 s, which the nested searches do
   not win in 10 s); and where it stopped at its share unfinished, ``FIND_UNFINISHED_SHARE`` of what is
   left, when ``FIND_UNFINISHED_LEFT`` seconds are left (1016 again: its abstract game runs past a 5-s
   share). At 2 s that share would win nothing and cost ``chameleon`` the exact search's last quarter
   second (300 deals each: `rainbow` 0 changed, `chameleon` 4 proofs fewer), so it waits for longer limits.
4. The exact search (``depth_first``, or ``parallel`` with several workers) with what is left.

Before them all the exact search looks for ``PROBE_NODES`` nodes (``probe``): a deal it decides at once is
answered at once, node for node as before.

Under other rules (alternate colours, in suit) the count found nothing worth their time
(benchmarks/second_design_census.py: 0-2 of each preset's 2-s unknowns), and ``wanted`` is False: the
solver runs the exact search alone, node for node as before, except where gaps wait for a move
(``search.wins_first``: the policy adaptation after a probe of the exact search, with this module's
``Phases``).

``search`` returns the ``Outcome`` that decided (a win's line, replayed by the solver as every line is; a
proof of loss) or the exact search's, with every phase's nodes counted and said in ``stats["phases"]``.
"""

from __future__ import annotations

import functools
import os
import time
from typing import TYPE_CHECKING, Callable

from .. import compiles
from ..budget import Limit, Limits, takes_keyword
from ..engine.position import Position
from ..engine.rules import Rules
from . import kernel_load
from .outcome import Outcome

if TYPE_CHECKING:
    from .playout import PlayoutOutcome

NESTED_SHARE = 0.05   # of the time limit, for the nested searches
NESTED_MAX_SECONDS = 3.0  # and at most this many seconds of it
NESTED_ROUNDS = 16    # nested searches at most (each a few milliseconds on a 52-card deal)
ADAPT_SHARE = 0.2     # of what is left, for the policy adaptation
ADAPT_MAX_SECONDS = 1.5  # and at most this many seconds of it (a lost deal waits this long for its proof)
PROVE_SHARE = 0.5     # of the time limit (and of the memory cap), for the abstract game over ranks
FIND_SHARE = 0.25     # of what is left, for the class-key search once the abstract game is won abstractly
FIND_FIRST_SHARE = 0.0  # of the time, for the class-key search before the abstract game (0: not run there)
FIND_UNFINISHED_SHARE = 0.25  # of what is left, for it where the abstract game stopped at its share, unwon,
FIND_UNFINISHED_LEFT = 2.0    # when at least this many seconds are left (or no time limit)
MIN_SECONDS = 0.01    # a phase given less time than this is not run
PROBE_NODES = 100_000  # the exact search's first look, before any phase (about 0.04 s; 0: none)
# The phases' compiles (``compiles.NAMES``), one each, in the order a background compile takes them: the
# nested searches first (most wins at 2 s), the game over ranks (5 s), the policy adaptation.
UNITS = ("nested", "ranks", "adapt")
BACKGROUND_NICE = 5  # a background compile of the phases yields to the kernel's, which every search needs


def wanted(r: Rules) -> bool:
    """Whether the phases run before the exact search under these rules: where any suit builds (and no move
    reads an identity: ``ranks.classes``). Asked without importing the phases' kernels."""
    return r.build == "any" and r.column_moves != "whole-or-freeing"


@functools.cache
def _kernels() -> tuple:
    """The phases' modules, imported (and their kernels registered with ``compiles``) on first use."""
    from . import adapt, playout, ranks

    compiles.entry_points("nested", *playout.ENTRY_POINTS)
    compiles.entry_points("ranks", *ranks.ENTRY_POINTS)
    compiles.entry_points("adapt", *adapt.ENTRY_POINTS)
    return playout, ranks, adapt


def _throwaway(what: str) -> None:
    """Run the kernels of ``what`` (one of ``UNITS``) on a throwaway deal, which compiles or loads them. A Ctrl-C
    meanwhile ends these searches "interrupted": it is the caller's, passed on as ``KeyboardInterrupt``."""
    from ..engine.deal import Deal
    from ..engine.rules import get_rules

    playout, ranks, adapt = _kernels()
    start = Position(Deal.from_seed(0, get_rules("rainbow")))
    if what == "nested":
        ended = playout.nested(start, Limits(nodes=1), rounds=1).limit
    elif what == "ranks":  # its rehash last: the cache index of that function says both are compiled
        ended = ranks.prove(start, Limits(nodes=1, memory_mb=16)).limit
        ranks.warm_up_rehash()
    else:
        ended = adapt.policy(start, Limits(nodes=1)).limit
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


def _event(progress: Callable[..., None] | None, nodes: int, seconds: float, text: str) -> None:
    if progress is not None and takes_keyword(progress, "event"):
        progress(nodes, seconds, event=text)


def search(start: Position, limits: Limits, exact: Callable[[Limits], Outcome]) -> Outcome:
    """The phases, then ``exact(limits left)``; the Outcome that decided.

    The phases run only when their kernels are compiled or their first compile fits the time left
    (``compiles.estimate``); otherwise the exact search runs alone with the whole limit.
    """
    run = probe(start, limits, exact, UNITS)
    if isinstance(run, Outcome):
        return run
    return (run.wins() or run.adapted() or (FIND_FIRST_SHARE > 0 and run.find(FIND_FIRST_SHARE)) or run.losses()
            or (run.abstract_win and FIND_SHARE > 0 and run.find(FIND_SHARE))
            or (run.abstract_unfinished and run.left(FIND_UNFINISHED_LEFT) and FIND_UNFINISHED_SHARE > 0
                and run.find(FIND_UNFINISHED_SHARE))
            or run.rest(exact))


def probe(start: Position, limits: Limits, exact: Callable[[Limits], Outcome],
          units: tuple[str, ...]) -> "Outcome | Phases":
    """The exact search's first ``PROBE_NODES`` nodes, before any phase: its Outcome when they decided the deal
    (or the caller's limits ended it), else the ``Phases`` that go on from there, the probe's nodes and best
    line counted in them. A deal the exact search decides at once is so searched node for node as the exact
    search alone searches it, and waits for no phase (`chameleon` deals it proves lost in milliseconds took
    1.5 s, the adaptation's cap, before); a deal it does not decide has lost at most ``PROBE_NODES`` nodes
    (about 0.04 s), searched again by the exact search after the phases. ``units``: the compiles the caller's
    phases need (of ``UNITS``); a phase whose kernels are not compiled, and whose compile does not fit the
    time left, is skipped (named in ``stats["compiling"]``), and where none is ready the exact search runs alone
    with what is left."""
    t0 = time.perf_counter()
    first = exact(limits.share(nodes=PROBE_NODES)) if PROBE_NODES > 0 else None
    if first is not None and (first.limit is not Limit.NODES
                              or (limits.nodes is not None and first.nodes >= limits.nodes)):
        return first  # decided, or ended by the caller's limits (time, nodes, memory, Ctrl-C)
    spent = 0 if first is None else first.nodes
    pending = not_ready(limits.spent(spent), units)
    if len(pending) == len(units):
        out = exact(limits.spent(spent))
        out.nodes += spent
        out.seconds = time.perf_counter() - t0
        out.stats = {**out.stats, "compiling": list(pending)}
        return out
    if first is None:
        return Phases(start, limits, pending=pending)
    return Phases(start, limits, probed=first, t0=t0, pending=pending)


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
    ``search`` runs them in this module's order; ``search.wins_first`` runs its own. Made by ``probe`` after
    the exact search's first look (``probed``, the Outcome it ended with, and ``t0``, when it began), whose
    nodes, time and best line count as the phases' own."""

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

    def wins(self) -> Outcome | None:
        """The nested searches: the Outcome when one wins (or an interrupt ends them), else None."""
        playout, _ranks, _adapt = _kernels()
        lim = self.share(NESTED_SHARE, NESTED_MAX_SECONDS)
        if lim is None or "nested" in self.pending:
            return None
        return self.played("nested", "a nested search", playout.nested(self.start, lim, rounds=NESTED_ROUNDS))

    def adapted(self, part: float | None = None, most: float | None = None) -> Outcome | None:
        """The policy adaptation, ``part`` of what is left (``ADAPT_SHARE``), at most ``most`` seconds
        (``ADAPT_MAX_SECONDS``): the Outcome when it wins (or an interrupt ends it), else None."""
        _playout, _ranks, adapt = _kernels()
        part = ADAPT_SHARE if part is None else part
        lim = self.share(part, ADAPT_MAX_SECONDS if most is None else most)
        if lim is None or part <= 0 or "adapt" in self.pending:
            return None
        return self.played("adapt", "the policy adaptation", adapt.policy(self.start, lim))

    def played(self, phase: str, who: str, w: PlayoutOutcome) -> Outcome | None:
        """A search by playouts ended: its line in ``phases``, its best line kept when it went further than the
        best so far; the Outcome when it won (or an interrupt ended it), else None."""
        self.spent += w.steps
        self.phases.append({"phase": phase, "ended": "won" if w.won else str(w.limit or "rounds"),
                            "nodes": w.steps, "rounds": w.rounds, "seconds": round(w.seconds, 4)})
        if self.best is None or w.best_score > self.best[0]:
            self.best = (w.best_score, w.best_path, w.decode)
        if w.won:
            _event(self.limits.progress, self.spent, time.perf_counter() - self.t0,
                   f"{who} won in {w.seconds:.2f} s")
            return self.outcome(True, None, w.solution)
        if w.limit is Limit.INTERRUPTED:
            return self.outcome(False, Limit.INTERRUPTED, [])
        return None

    def losses(self) -> Outcome | None:
        """The abstract game over ranks: the Outcome when it proves the deal lost (or an interrupt ends it),
        else None (won abstractly, or stopped by its share)."""
        _playout, ranks, _adapt = _kernels()
        lim = self.share(PROVE_SHARE, memory_mb=max(16, int(self.limits.memory_mb * PROVE_SHARE)))
        if lim is None or "ranks" in self.pending:
            return None
        p = ranks.prove(self.start, lim)
        self.spent += p.nodes
        self.phases.append({"phase": "prove", "ended": "lost" if p.proved_lost else p.ended if p.limit is None
                            else str(p.limit), "nodes": p.nodes, "rows": p.rows, "seconds": round(p.seconds, 4)})
        if p.proved_lost:
            _event(self.limits.progress, self.spent, time.perf_counter() - self.t0,
                   f"the game over ranks is lost: the deal is lost ({p.rows:,} positions, {p.seconds:.2f} s)")
            return self.outcome(False, None, [], positions=p.rows, decode=p.decode)
        if p.limit is Limit.INTERRUPTED:
            return self.outcome(False, Limit.INTERRUPTED, [], decode=p.decode)
        self.abstract_win = p.ended == "won"
        self.abstract_unfinished = p.limit is not None
        return None

    def find(self, part: float) -> Outcome | None:
        """The real moves under the class key (the published solver's streamliner, ``ranks.find``), ``part``
        of what is left; the Outcome when it wins (or an interrupt ends it)."""
        _playout, ranks, _adapt = _kernels()
        lim = self.share(part, memory_mb=max(16, int(self.limits.memory_mb * PROVE_SHARE)))
        if lim is None or "ranks" in self.pending:
            return None
        f = ranks.find(self.start, lim)
        self.spent += f.nodes
        self.phases.append({"phase": "find", "ended": f.ended if f.limit is None else str(f.limit),
                            "nodes": f.nodes, "rows": f.rows, "seconds": round(f.seconds, 4)})
        if f.won:
            _event(self.limits.progress, self.spent, time.perf_counter() - self.t0,
                   f"the search under a key of ranks won in {f.seconds:.2f} s")
            self.best = (4 * self.start.rules.ranks, f.solution, f.decode)
            return self.outcome(True, None, f.solution)
        if f.limit is Limit.INTERRUPTED:
            return self.outcome(False, Limit.INTERRUPTED, [])
        return None

    def rest(self, exact: Callable[[Limits], Outcome]) -> Outcome:
        """The exact search with what the phases left; its Outcome, with their nodes and lines added."""
        out = exact(self.limits.spent(self.spent))
        out.nodes += self.spent
        out.stats = {**out.stats, "phases": self.phases + [{"phase": "exact", "nodes": out.nodes - self.spent,
                                                            "seconds": round(out.seconds, 4)}],
                     "compiling": list(self.pending)}
        out.seconds = time.perf_counter() - self.t0
        if not out.won and self.best is not None and self.best[0] > out.best_score:
            out.best_score, out.best_path, out.decode = self.best
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
