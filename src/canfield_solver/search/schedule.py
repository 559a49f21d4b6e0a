"""The schedule of one search: which searches run, in what order, each in its share of what is left, as rows
of data; and the one loop that runs them, the exact search included.

A rule family (``family``) has a schedule, a list of ``Row``: a phase (``PHASES``), its share of what is
left of the time and the nodes when it starts, a cap in seconds, a share of the memory cap, and a condition
from a closed set (``CONDITIONS``, with ``min_left`` seconds). The rows are data, ``schedules.json`` beside
this module, which ``benchmarks/schedule_census.py`` writes from what it measured; ``canfield rules NAME``
prints a preset's (``describe``).

``search`` runs them in order. The probe is the exact search's first nodes: a deal it decides is answered
node for node as the exact search alone answers it; one it leaves goes on through the phases, and the exact
search then goes on from where the probe stopped (one thread: its tables and stack are kept; several
threads search again). A phase that wins or proves the deal lost ends the search; the exact search, the
last row, gets what they leave. Every phase's line is in ``stats["phases"]`` (phase, ended, nodes,
seconds), which ``solve --json`` gives as ``phases``.

What a node is in each phase, for ``max_nodes`` (which counts them all): the exact search's and the probe's
an expanded position; the nested searches' and the adaptation's a move played in a playout; the beam
search's a child made; the game over
ranks' (``prove``, ``find``) an expanded abstract position.
"""

from __future__ import annotations

import functools
import json
import time
from dataclasses import dataclass, replace
from importlib import resources
from typing import TYPE_CHECKING

from ..budget import Limit, Limits
from ..engine.position import Position
from ..engine.rules import Rules
from .outcome import Outcome

if TYPE_CHECKING:
    from .depth_first import Search
    from .portfolio import Phases

PHASES = ("probe", "nested", "adapt", "beam", "prove", "find", "exact")
CONDITIONS = ("always", "abstract-won", "abstract-unfinished")
UNIT = {"nested": "nested", "adapt": "adapt", "beam": "beam", "prove": "ranks", "find": "ranks"}  # a phase's compile
FAMILIES = ("any-suit", "gaps-wait", "exact")


@dataclass(frozen=True)
class Row:
    """One row of a schedule.

    phase
        One of ``PHASES``.
    share
        Of what is left of the time (and of the nodes) when the row starts.
    cap
        Seconds at most (None: no cap).
    memory
        Share of the memory cap (None: as the search's).
    when
        One of ``CONDITIONS``: always; only where the game over ranks was won (a sign, no proof, that the deal
        may be won); only where it stopped at its share, unfinished.
    min_left
        Run only when at least this many seconds are left (0: always; always without a time limit).
    nodes
        The probe's nodes.
    rounds
        The nested searches' count at most.
    """

    phase: str
    share: float = 1.0
    cap: float | None = None
    memory: float | None = None
    when: str = "always"
    min_left: float = 0.0
    nodes: int = 0
    rounds: int = 0

    def __post_init__(self) -> None:
        if self.phase not in PHASES or self.when not in CONDITIONS or not 0.0 <= self.share <= 1.0:
            raise ValueError(f"a schedule row names no phase, condition or share it can run: {self}")

    @property
    def unit(self) -> str | None:
        """The compile its search needs (``compiles.NAMES``; None for the exact search and its probe)."""
        return UNIT.get(self.phase)

    def to_dict(self) -> dict:
        """The row as ``schedules.json`` writes it: the fields that differ from their defaults."""
        return {k: v for k, v in self.__dict__.items() if k == "phase" or v != getattr(Row, k)}


def family(rules: Rules) -> str:
    """The schedule's family: ``any-suit`` where any suit builds (and no move reads a card's identity:
    ``ranks.classes``), ``gaps-wait`` where gaps wait for a move, else ``exact``."""
    if rules.build == "any" and rules.column_moves != "whole-or-freeing":
        return "any-suit"
    return "gaps-wait" if not rules.gap_autofill else "exact"


def parse(data: dict) -> dict[str, tuple[Row, ...]]:
    """The schedules of ``schedules.json``'s ``families``, checked: each family's last row is the exact search,
    a probe comes first if at all."""
    out = {}
    for name, rows in data["families"].items():
        sched = tuple(Row(**r) for r in rows)
        phases = [r.phase for r in sched]
        if name not in FAMILIES or not phases or phases[-1] != "exact" or "exact" in phases[:-1] \
                or "probe" in phases[1:]:
            raise ValueError(f"schedule {name!r}: the exact search last, a probe first if at all: {phases}")
        out[name] = sched
    return out


@functools.cache
def _loaded() -> dict[str, tuple[Row, ...]]:
    return parse(json.loads(resources.files(__package__).joinpath("schedules.json").read_text()))


EXACT_ONLY = (Row("exact"),)  # ``method="depth-first"``: the exact search alone, whatever the rules
SCHEDULES: dict[str, tuple[Row, ...]] = {}  # a family's rows in place of the file's (tests, measurements)


def rows_for(rules: Rules) -> tuple[Row, ...]:
    """The schedule ``rules`` search by (``SCHEDULES`` first, then ``schedules.json``)."""
    name = family(rules)
    return SCHEDULES.get(name) or _loaded()[name]


def changed(rows: tuple[Row, ...], phase: str, **fields: object) -> tuple[Row, ...]:
    """``rows`` with every row of ``phase`` changed (``share=0`` leaves it out)."""
    return tuple(replace(r, **fields) if r.phase == phase else r for r in rows)  # type: ignore[arg-type]


def units(rows: tuple[Row, ...]) -> tuple[str, ...]:
    """The compiles (``compiles.NAMES``) the phases of ``rows`` need, in ``portfolio.UNITS``' order."""
    from .portfolio import UNITS

    need = {UNIT[r.phase] for r in rows if r.phase in UNIT and r.share > 0}
    return tuple(u for u in UNITS if u in need)


_WHAT = {"probe": "the exact search's first look", "nested": "nested Monte Carlo searches, for wins",
         "adapt": "policy adaptation (playouts under a learned policy), for wins",
         "beam": "beam searches (each layer's best positions kept, widening), for wins",
         "prove": "the game over ranks, for a proof of loss", "find": "the real moves under the key of ranks, for wins",
         "exact": "the exact depth-first search (with --jobs N, N threads), with what is left"}


def describe(rules: Rules) -> list[str]:
    """The schedule of ``rules`` for a person, a line a row (``canfield rules NAME``)."""
    lines = [f"schedule ({family(rules)}; the searches in order, each in its share of what is left):"]
    for i, r in enumerate(rows_for(rules), 1):
        if r.phase == "probe":
            terms = [f"{r.nodes:,} nodes (a deal they leave goes on below, the exact search then continuing "
                     "from them)"]
        elif r.phase == "exact":
            terms = []
        else:
            terms = [f"{r.share:.0%} of the time and nodes left"]
            if r.cap is not None:
                terms.append(f"at most {r.cap:g} s")
            if r.rounds:
                terms.append(f"at most {r.rounds} searches")
            if r.memory is not None:
                terms.append(f"{r.memory:.0%} of the memory cap")
            if r.when != "always":
                terms.append("only if the game over ranks was " +
                             ("won" if r.when == "abstract-won" else "stopped at its share, unfinished"))
            if r.min_left:
                terms.append(f"only with at least {r.min_left:g} s left")
        lines.append(f"  {i}. {r.phase:<8s}{_WHAT[r.phase]}" + (f": {', '.join(terms)}" if terms else ""))
    return lines


class _Exact:
    """The exact search of one deal, run in parts: one thread's goes on from where its last part stopped
    (``depth_first.Search``), several threads' search again (``parallel``). Each part's Outcome counts that
    part's nodes and seconds; its positions and best line are the whole search's."""

    def __init__(self, start: Position, memory_mb: int, compile_seconds: float):
        self.start, self.memory_mb, self.compile_seconds = start, memory_mb, compile_seconds
        self.lone: Search | None = None

    def __call__(self, limits: Limits) -> Outcome:
        if limits.workers > 1:
            from . import parallel

            return parallel.search(self.start, limits, self.compile_seconds)
        from . import depth_first

        if self.lone is None:
            self.lone = depth_first.Search(self.start, self.memory_mb, self.compile_seconds)
        nodes, seconds = self.lone.nodes(), self.lone.seconds
        out = self.lone.run(limits)
        return replace(out, nodes=out.nodes - nodes, seconds=out.seconds - seconds)


def search(start: Position, limits: Limits, compile_seconds: float = 0.0,
           rows: tuple[Row, ...] | None = None) -> Outcome:
    """Run ``rows`` (the schedule of ``start``'s rules by default) within ``limits``; the Outcome that decided,
    or the exact search's with every phase's nodes counted."""
    from . import portfolio

    rows = rows_for(start.rules) if rows is None else rows
    exact = _Exact(start, limits.memory_mb, compile_seconds)
    if len(rows) == 1:
        return exact(limits)
    t0 = time.perf_counter()
    probed = None
    if rows[0].phase == "probe" and rows[0].nodes > 0:
        probed = exact(limits.share(nodes=rows[0].nodes))
        if probed.limit is not Limit.NODES or (limits.nodes is not None and probed.nodes >= limits.nodes):
            return probed  # decided, or ended by the caller's limits (time, nodes, memory, Ctrl-C)
    spent = 0 if probed is None else probed.nodes
    need = units(rows)
    pending = portfolio.not_ready(limits.spent(spent), need)
    if need and len(pending) == len(need):  # no phase ready: the exact search alone, with what is left
        out = exact(limits.spent(spent))
        return replace(out, nodes=out.nodes + spent, seconds=time.perf_counter() - t0,
                       stats={**out.stats, "compiling": list(pending)})
    run = portfolio.Phases(start, limits, probed=probed, t0=t0, pending=pending)
    for row in rows:
        if row.phase in ("probe", "exact") or row.share <= 0 or not _holds(row, run):
            continue
        decided = _step(run, row)
        if decided is not None:
            return decided
    return run.rest(exact)


def _step(run: "Phases", row: Row) -> Outcome | None:
    """One row: its search in its share of what is left (skipped while its compile is pending, or when the
    share is too small to start); the Outcome when it decided the deal (or an interrupt ended it)."""
    if row.unit in run.pending:
        return None
    memory = None if row.memory is None else max(16, int(run.limits.memory_mb * row.memory))
    lim = run.share(row.share, row.cap, memory)
    return None if lim is None else run.run(row.phase, lim, row.rounds)


def _holds(row: Row, run: "Phases") -> bool:
    """Whether ``row``'s condition holds now."""
    if row.when == "abstract-won" and not run.abstract_win:
        return False
    if row.when == "abstract-unfinished" and not run.abstract_unfinished:
        return False
    return row.min_left <= 0 or run.left(row.min_left)
