"""The meter's searches: "is the game still winnable?" after every move, in worker processes.

A fixed number of worker processes (``workers``) run the exact solver (``solver.decide``) on the
position after the moves played, at most ``max_seconds`` each; at most ``queue_limit`` searches are
queued or running at once (beyond that a game waits, one place each, oldest first, for a search to
finish; its meter says so), and each game has at most one: a newer move cancels the older search, queued (never started)
or running (its generation in shared memory changes, and the search stops at its next look at the
clock, within a few tens of milliseconds: ``search.depth_first`` reads a ``KeyboardInterrupt`` from its
progress call as a stop, verdict unknown).

When the position is lost, the search goes back along the game for the move that lost it: the
positions after 0, 1, ... moves are winnable up to some move and lost from it on (a lost position's
successors are lost), so a bisection between the last position known winnable and the first known lost
finds the move after which the game could no longer be won, each step one more search, all of them
within one more ``max_seconds`` (past it the meter gives the range of moves the losing one lies in).
"""

from __future__ import annotations

import multiprocessing as mp
import threading
import time
from concurrent.futures import Future, ProcessPoolExecutor
from typing import TYPE_CHECKING, Callable

from ...processes import ignore_interrupts, spawning_quietly, stop_pool

if TYPE_CHECKING:
    from multiprocessing.sharedctypes import SynchronizedArray

    from ...solver import Result
    from .session import Job, Reading, Tracked

# The search of the position after k of a job's moves within a number of seconds: its result, and whether
# that position is stalled (no progress move can ever be reached).
Search = Callable[[int, float], "tuple[Result, bool]"]

__all__ = ["Meter", "measure"]

SLOTS = 1024          # games whose searches can be cancelled at once (more games share slots: see _slot)
_GEN: "SynchronizedArray[int] | None" = None      # in a worker: the current generation of each slot's game


def _init(gen: "SynchronizedArray[int]") -> None:
    global _GEN
    ignore_interrupts()  # Ctrl-C is the server's to handle: it ends the pool
    _GEN = gen
    from ...solver import load_kernel

    load_kernel()      # before the first search: a search's time limit does not pay for the compile


def _warm() -> bool:
    return True


class Cancelled(Exception):
    """A newer move of the same game: this search's reading would be dropped, so it stops."""


def _canfield_search(job: Job, max_memory_mb: int, progress: Callable[[int, float], None]) -> Search:
    from ...engine.deal import Deal
    from ...engine.position import replay
    from ...solver import decide

    deal = Deal.from_dict(job["deal"])
    moves = list(job["moves"])

    def search(k: int, seconds: float) -> tuple[Result, bool]:
        r = decide(replay(deal, moves[:k]).position, max_seconds=seconds, max_memory_mb=max_memory_mb,
                   progress=progress)
        if r.limit == "interrupted":
            raise Cancelled
        return r, r.stalled

    return search


def measure(job: Job, slot: int | None, max_seconds: float, max_memory_mb: int) -> Reading:
    """The meter's reading for ``job`` (``session.CanfieldGame.job`` or ``patience.PatienceGame.job``): run in a
    worker, or inline (``slot`` None, no cancelling). Returns ``{"state": "cancelled"}`` when a newer move
    stopped it. A Canfield search stops within milliseconds of the newer move; a search of one of the other
    games (whose solvers take no progress call) runs to its own limit, and the search back stops before
    its next step."""
    gen = job["generation"]

    def stale() -> bool:
        return slot is not None and _GEN is not None and _GEN[slot] != gen

    def progress(nodes: int, seconds: float) -> None:
        if stale():
            raise KeyboardInterrupt   # depth_first stops: limit "interrupted"

    if "game" in job:
        from .patience import game_search

        search = game_search(job, max_memory_mb)
    else:
        search = _canfield_search(job, max_memory_mb, progress)
    try:
        return _reading(search, job, max_seconds, stale)
    except Cancelled:
        return {"state": "cancelled"}


def _reading(search: Search, job: Job, max_seconds: float, stale: Callable[[], bool]) -> Reading:
    from ...solver import Verdict

    n = len(job["moves"])
    deadline = time.monotonic() + 2 * max_seconds    # the search back shares one more limit's worth

    def verdict_after(k: int) -> Result:
        return searched(k)[0]

    def searched(k: int) -> tuple[Result, bool]:
        if stale():
            raise Cancelled
        return search(k, max(0.05, min(max_seconds, deadline - time.monotonic())))

    res, stalled = searched(n)
    known: dict[int, str] = {}
    out: Reading = {"nodes": res.nodes, "seconds": res.seconds, "limit": res.limit}
    if res.verdict is Verdict.SOLVED:
        known[n] = "winnable"
        nxt = []
        for m in res.moves:
            nxt.append(m)
            if m not in ("draw", "redeal"):
                break
        out.update({"state": "winnable", "next_moves": nxt, "solution": list(res.moves)})
    elif res.verdict is Verdict.UNSOLVABLE:
        known[n] = "lost"
        out.update({"state": "lost", "stalled": stalled})
        good, first = job["last_winnable"], job["first_lost"]
        lo = -1 if good is None or good >= n else good
        hi = n if first is None else min(n, first)
        while hi - lo > 1 and time.monotonic() < deadline:   # bisect: winnable after lo moves, lost after hi
            mid = (lo + hi) // 2
            r = verdict_after(mid)
            if r.verdict is Verdict.SOLVED:
                lo, known[mid] = mid, "winnable"
            elif r.verdict is Verdict.UNSOLVABLE:
                hi, known[mid] = mid, "lost"
            else:
                break
        if hi - lo == 1:
            out["lost_at"] = max(hi, 0)            # 0: the deal itself cannot be won
        else:
            out["lost_between"] = [lo + 1, hi]
    else:
        out.update({"state": "unknown", "why": "the search was interrupted" if res.limit == "interrupted"
                    else f"the search stopped at its {res.limit} limit"})
    out["known"] = {str(k): v for k, v in known.items()}
    return out


class Meter:
    """The worker processes and the bookkeeping of searches in flight. ``start(game)`` begins the
    search of the game's current position (cancelling its older one); the reading lands in
    ``game.meter`` when it finishes (``session.CanfieldGame.take_reading``)."""

    def __init__(self, workers: int = 1, max_seconds: float = 10.0, max_memory_mb: int = 256,
                 queue_limit: int | None = None):
        ctx = mp.get_context("spawn")               # the server has threads: never fork it
        self._gen = ctx.Array("q", SLOTS, lock=False)
        self.workers, self.max_seconds, self.max_memory_mb = workers, max_seconds, max_memory_mb
        self.queue_limit = queue_limit if queue_limit is not None else 4 * workers
        self._pool = ProcessPoolExecutor(workers, mp_context=ctx, initializer=_init, initargs=(self._gen,))
        self._lock = threading.RLock()
        self._inflight = 0
        self._futures: dict[str, Future] = {}
        self._waiting: dict[str, Tracked] = {}             # games whose search waits for room, oldest first
        self._slots: dict[str, int] = {}
        self._free = list(range(SLOTS - 1, -1, -1))
        self.on_reading: Callable[[Tracked], None] | None = None

    def warm(self) -> None:
        """Start every worker (each loads the solver's compiled kernel), without waiting."""
        with spawning_quietly():
            for _ in range(self.workers):
                self._pool.submit(_warm)

    @property
    def inflight(self) -> int:
        return self._inflight

    def _slot(self, game_id: str) -> int:
        s = self._slots.get(game_id)
        if s is None:   # more games than slots (the server holds far fewer): two share one, and cancel more
            s = self._slots[game_id] = self._free.pop() if self._free else hash(game_id) % SLOTS
        return s

    def forget(self, game_id: str) -> None:
        with self._lock:
            f = self._futures.pop(game_id, None)
            s = self._slots.pop(game_id, None)
            self._waiting.pop(game_id, None)
        if f is not None:
            f.cancel()
        if s is not None:
            self._gen[s] = -1
            if s not in self._slots.values():
                self._free.append(s)

    def cancel(self, game: Tracked) -> None:
        """Stop the game's search, queued or running (its position changed to one the meter knows)."""
        with self._lock:
            self._waiting.pop(game.id, None)
            old = self._futures.pop(game.id, None)
            if game.id in self._slots:
                self._gen[self._slots[game.id]] = game.generation
        if old is not None:
            old.cancel()

    def start(self, game: Tracked) -> bool:
        """Search the game's current position; False (the reading says busy) when the queue is full."""
        with self._lock:
            old = self._futures.pop(game.id, None)
            slot = self._slot(game.id)
            self._gen[slot] = game.generation          # a running older search of this game stops
        if old is not None:
            old.cancel()                               # a queued one never starts (its callback runs here)
        with self._lock:
            if self._inflight >= self.queue_limit:     # wait (one place a game) for a search to finish
                self._waiting.pop(game.id, None)
                self._waiting[game.id] = game
                game.meter.why = "waiting for a free worker"
                return False
            self._waiting.pop(game.id, None)
            job = game.job()
            self._inflight += 1
            with spawning_quietly():                   # a worker spawned here starts deaf to Ctrl-C
                fut = self._pool.submit(measure, job, slot, self.max_seconds, self.max_memory_mb)
            self._futures[game.id] = fut
        fut.add_done_callback(lambda f: self._done(game, job["generation"], f))
        return True

    def _done(self, game: Tracked, generation: int, fut: Future) -> None:
        with self._lock:
            self._inflight -= 1
            if self._futures.get(game.id) is fut:
                del self._futures[game.id]
            nxt = next(iter(self._waiting.values()), None) if self._inflight < self.queue_limit else None
        if nxt is not None:
            with nxt.lock:
                if nxt.meter.state == "pending":
                    self.start(nxt)
                else:
                    self._waiting.pop(nxt.id, None)
        if fut.cancelled():
            return
        exc = fut.exception()
        if exc is not None:
            reading: Reading = {"state": "unknown", "why": f"the search failed: {type(exc).__name__}: {exc}"}
        else:
            reading = fut.result()
        if reading.get("state") == "cancelled":
            return
        with game.lock:
            game.take_reading(generation, reading)

    def close(self) -> None:
        """Stop every search and end the worker processes (and so multiprocessing's resource tracker): the
        server leaves nothing running, whether Ctrl-C or SIGTERM stopped it."""
        for s in range(SLOTS):
            self._gen[s] = -2                          # every running search stops
        stop_pool(self._pool)
