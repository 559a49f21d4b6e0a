"""What stops a search (``Limit``), the time limit fixed once (``Deadline``: what is left of it, asked by every
phase of a search), and the one loop that drives every compiled search in budgets (``drive``).

Canfield's depth-first search (one thread or several), its layered proof and the games' compiled searches
all run the same way: a compiled call searches for at most a budget of nodes and returns; between calls
the driver grows what has to grow (unless the growth would end past the deadline: ``Deadline.affords``,
``Step.NO_TIME``), looks at the node limit, the clock and Ctrl-C, and reports progress.
That loop is written here once. A search says how a call ended with a ``Step``; ``drive`` turns limits
into a ``Limit`` (or None when the search ended by itself: won or exhausted). A Ctrl-C that lands inside a
compiled call reaches Python as a ``SystemError`` around the ``KeyboardInterrupt`` (``interrupt_inside``), and
ends the search as any Ctrl-C does. Nothing here knows a kernel.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Callable, NamedTuple

from .errors import CanfieldError


class Limit(str, Enum):
    """Why a search ended ``unknown``. A ``str``: ``Limit.NODES == "nodes"``, and it prints and serialises as
    its value."""

    NODES = "nodes"              # the node limit (or the next expansion would not fit what is left of it)
    SECONDS = "seconds"          # the time limit
    MEMORY = "memory"            # the memory cap (a table or stack could not grow within it)
    DEPTH = "depth"              # a line reached the stack's depth (an exhausted search then proves nothing)
    INTERRUPTED = "interrupted"  # Ctrl-C

    def __str__(self) -> str:
        return str(self.value)

    def __format__(self, spec: str) -> str:
        return format(str(self.value), spec)


class Deadline:
    """A time limit fixed once, when it starts: ``left()`` is what remains of it at any moment (None: no
    limit). Every phase of one search (the first compile, the interpreted start, the depth-first search, the
    layered proof, the won line) asks it instead of subtracting the phases before it."""

    __slots__ = ("at",)

    def __init__(self, seconds: float | None, start: float | None = None):
        self.at = None if seconds is None else (time.perf_counter() if start is None else start) + seconds

    def left(self) -> float | None:
        return None if self.at is None else max(0.0, self.at - time.perf_counter())

    def affords(self, seconds: float) -> bool:
        """Whether ``seconds`` of work started now would end by the deadline (always, with no limit): a
        table's growth, which cannot stop midway, is not begun when it would end past it."""
        return self.at is None or time.perf_counter() + seconds <= self.at

    def sooner(self, seconds: float | None) -> "Deadline":
        """This deadline, or ``seconds`` from now if that comes first (a phase's share of a search's time)."""
        if seconds is None:
            return self
        mine = Deadline(seconds)
        return mine if self.at is None or (mine.at is not None and mine.at < self.at) else self


@dataclass(frozen=True)
class Limits:
    """What bounds one search, made once where the search starts (``solver.solve`` from its arguments, which
    the CLI's options and a study's settings become) and passed whole through every phase and driver to
    ``drive``.

    deadline
        The time limit, fixed when the search starts (``Deadline``): every phase asks what is left of it.
    nodes
        The node limit; None for none.
    memory_mb
        The transposition tables' cap, in MiB.
    workers
        Threads on the one deal.
    progress
        Called as the search goes with (nodes, seconds), and with a ``phase`` or ``event`` keyword where the
        callback takes it (``takes_keyword``).
    """

    deadline: Deadline = field(default_factory=lambda: Deadline(None))
    nodes: int | None = None
    memory_mb: int = 720
    workers: int = 1
    progress: Callable[..., None] | None = None

    @property
    def seconds(self) -> float | None:
        """What is left of the time limit now; None for no limit."""
        return self.deadline.left()

    def spent(self, nodes: int) -> "Limits":
        """These limits after ``nodes`` nodes were searched (the node limit less them)."""
        return self if self.nodes is None else replace(self, nodes=max(0, self.nodes - nodes))

    def share(self, seconds: float | None = None, nodes: int | None = None, memory_mb: int | None = None,
              workers: int | None = None) -> "Limits":
        """A phase's part of these limits: at most ``seconds`` of the time left, ``nodes`` of the nodes, and
        the memory cap and workers given (each None: as these)."""
        n = self.nodes if nodes is None else nodes if self.nodes is None else min(nodes, self.nodes)
        return Limits(self.deadline.sooner(seconds), n, self.memory_mb if memory_mb is None else memory_mb,
                      self.workers if workers is None else workers, self.progress)


class Pace(NamedTuple):
    """How ``drive`` deals out budgets: ``chunk`` nodes a call, doubled up to ``max_chunk`` after each call
    shorter than ``fast`` seconds (None: never), the node limit shared among ``split`` workers; progress
    seconds counted from ``t0`` (None: when ``drive`` starts)."""

    chunk: int
    max_chunk: int | None = None
    fast: float = 0.02
    split: int = 1
    t0: float | None = None


class Step(Enum):
    """How one compiled call ended, as its search tells ``drive``."""

    GOING = 0      # it used its budget (or paused for the driver): check the limits, then call again
    DONE = 1       # won or exhausted: the search is over
    GROWN = 2      # it stopped for a table or stack that has now grown: call again at once
    NO_ROOM = 3    # it could not go on within what is left of the node limit
    NO_MEMORY = 4  # what it needs to grow would pass the memory cap
    NO_TIME = 5    # what it needs to grow would take past the deadline (``Deadline.affords``)


def drive(call: Callable[[int], Step], nodes: Callable[[], int], limits: Limits, pace: Pace) -> Limit | None:
    """Call ``call(budget)`` until the search ends by itself (None) or a limit ends it (the ``Limit``).

    ``nodes()`` counts the nodes so far against ``limits.nodes``; a budget is ``pace.chunk`` nodes, at most
    what is left of the node limit shared among ``pace.split`` workers (and at least 1), doubling as
    ``Pace`` says. After each call that went on, ``limits.progress(nodes, seconds)`` is called and the
    deadline looked at; after a growth, only the deadline (a growth takes time: ``Step.NO_TIME`` when it
    would end past it); and once before the first call, so a deadline already past ends the search at once,
    as a node limit of 0 does. Ctrl-C ends it with ``Limit.INTERRUPTED``.
    """
    start = time.perf_counter() if pace.t0 is None else pace.t0
    size = pace.chunk
    max_nodes, progress, deadline = limits.nodes, limits.progress, limits.deadline
    try:
        if deadline.at is not None and time.perf_counter() >= deadline.at:
            return Limit.SECONDS  # no time at all (max_seconds 0): ends at once, as max_nodes 0 does
        while True:
            budget = size
            if max_nodes is not None:
                left = max_nodes - nodes()
                if left <= 0:
                    return Limit.NODES
                budget = max(1, min(budget, -(-left // pace.split)))
            t = time.perf_counter()
            step = call(budget)
            if step is Step.DONE:
                return None
            if step is Step.NO_ROOM:
                return Limit.NODES
            if step is Step.NO_MEMORY:
                return Limit.MEMORY
            if step is Step.NO_TIME:
                return Limit.SECONDS
            now = time.perf_counter()
            if step is Step.GROWN:  # call again at once, unless the growth took the time that was left
                if deadline.at is not None and now >= deadline.at:
                    return Limit.SECONDS
                continue
            if progress is not None:
                progress(nodes(), now - start)
            if deadline.at is not None and now >= deadline.at:
                return Limit.SECONDS
            if pace.max_chunk is not None and now - t < pace.fast:
                size = min(2 * size, pace.max_chunk)
    except KeyboardInterrupt:
        return Limit.INTERRUPTED
    except SystemError as e:
        if interrupt_inside(e):
            return Limit.INTERRUPTED
        raise


def interrupt_inside(e: BaseException) -> bool:
    """Whether ``e`` is a Ctrl-C that arrived while a compiled function ran: Numba's wrappers then return
    with the interrupt pending, which Python reports as a ``SystemError`` ("returned a result with an
    exception set", possibly several deep) whose first cause is the ``KeyboardInterrupt``."""
    seen = 0
    cur: BaseException | None = e
    while cur is not None and seen < 32:
        if isinstance(cur, KeyboardInterrupt):
            return True
        cur = cur.__cause__ or cur.__context__
        seen += 1
    return False


def takes_keyword(progress: Callable[..., None], name: str) -> bool:
    """Whether a progress callback takes the keyword ``name`` (``phase``, ``event``): the extra lines a
    search can say are passed only to callbacks that ask for them."""
    import inspect

    try:
        return name in inspect.signature(progress).parameters
    except (TypeError, ValueError):
        return False


def tell_event(progress: Callable[..., None] | None, nodes: int, seconds: float, text: str) -> None:
    """Tell ``progress`` of a phase change of the search (``event=`` keyword), where it takes one."""
    if progress is not None and takes_keyword(progress, "event"):
        progress(nodes, seconds, event=text)


def check_limits(max_nodes: int | None, max_seconds: float | None) -> None:
    """The node and time limits every search takes, checked once for all of them: ``CanfieldError`` naming
    the bad one."""
    if max_nodes is not None and (isinstance(max_nodes, bool) or not isinstance(max_nodes, int) or max_nodes < 0):
        raise CanfieldError(f"max_nodes must be a non-negative integer, not {max_nodes!r}")
    if max_seconds is not None and (isinstance(max_seconds, bool) or not isinstance(max_seconds, (int, float))
                                    or not max_seconds >= 0):  # NaN fails >= too
        raise CanfieldError(f"max_seconds must be a non-negative number (None for no limit), not {max_seconds!r}")


def check_counts(**counts: tuple[object, int]) -> None:
    """Each count (``name=(value, least)``) a whole number of at least its least, or a ``CanfieldError`` naming
    it (an analysis's probes and games, a study's threads and follow-ups)."""
    for name, (value, least) in counts.items():
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            raise CanfieldError(f"{name} must be a whole number of at least {least}, not {value!r}")
