"""A layer's entries closed in chunks by one or several workers (``Closing``), each with a ``Slot`` of its
own, a chunk's node budget shared among them, their results queued for the driver."""

from __future__ import annotations

import queue
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Generator

import numpy as np

from .close import C_BEST, DONE
from .phase import Phase
from .slot import CHUNK, Slot

MIN_CHUNK = 256       # entries a chunk at least (the tests make it 1, so that several workers share small layers)


_Result = tuple[Slot, int, list[tuple[int, np.ndarray]], np.ndarray]  # slot, status, runs, its counts


class Closing:
    """A layer's entries closed in chunks by ``workers`` slots: in this thread for one worker (chunk after
    chunk, as the caller asks for results), otherwise each slot in a thread of ``pool`` taking chunk after
    chunk until none is left or ``halt`` is set, its results queued for the caller. A chunk's budget is
    what is left of the node limit (``left()``, the chunks being closed counted at their whole budgets)
    shared among the workers."""

    def __init__(self, ph: Phase, entries: np.ndarray, starts: np.ndarray, workers: int, halt: np.ndarray,
                 left: Callable[[], int | None]):
        self.ph, self.entries, self.starts, self.halt, self.left = ph, entries, starts, halt, left
        self.workers = workers
        self.slots = [Slot(len(entries) // workers, halt) for _ in range(workers)]
        # a small layer in small chunks (small buffers), and some chunks a worker, so they end together
        self.chunk = min(CHUNK, max(MIN_CHUNK, len(entries) // (8 * (workers + 1))))
        self.todo = iter(range(0, len(entries), self.chunk))
        self.lock = threading.Lock()
        self.reserved: dict[int, int] = {}  # slot index -> the budget of the chunk it is closing
        self.queue: queue.SimpleQueue[_Result | BaseException | None] = queue.SimpleQueue()

    def _take(self, i: int) -> tuple[int, int] | None:
        """The next chunk's first entry and budget for slot ``i``, or None when none is left."""
        with self.lock:
            lo = next(self.todo, None)
            if lo is None:
                return None
            left = self.left()
            if left is None:
                return lo, 2**62
            budget = min(-(-(left - sum(self.reserved.values())) // self.workers), 2**62)  # an int64 for close_entries
            self.reserved[i] = max(budget, 0)
            return lo, budget

    def _chunk(self, i: int, lo: int, budget: int) -> _Result:
        slot = self.slots[i]
        slot.counts[:] = 0
        slot.counts[C_BEST] = self.ph.counts[C_BEST]
        hi = min(lo + self.chunk, len(self.entries))
        status, nout, _found = self.ph.close(self.entries, self.starts, lo, hi, slot, budget=budget)
        runs = self.ph.sorted_runs(slot, nout) if status == DONE else []
        return slot, status, runs, slot.counts.copy()

    def done(self, slot: Slot) -> None:
        """The caller has counted ``slot``'s result: its budget is no longer reserved."""
        with self.lock:
            self.reserved.pop(self.slots.index(slot), None)

    def _thread(self, i: int) -> None:
        try:
            while self.halt[0] == 0:
                got = self._take(i)
                if got is None:
                    break
                result = self._chunk(i, *got)
                self.queue.put(result)
                if result[1] != DONE:
                    break
        except BaseException as e:  # handed to the caller, which raises it
            self.queue.put(e)
        finally:
            self.queue.put(None)  # this slot has stopped

    def results(self, pool: ThreadPoolExecutor | None) -> Generator[_Result, None, None]:
        """Each chunk's result as it ends, until every slot has stopped."""
        if pool is None:
            while self.halt[0] == 0:
                got = self._take(0)
                if got is None:
                    return
                yield self._chunk(0, *got)
            return
        for i in range(self.workers):
            pool.submit(self._thread, i)
        running = self.workers
        while running:
            r = self.queue.get()
            if r is None:
                running -= 1
            elif isinstance(r, BaseException):
                self.halt[0] = 1
                raise r
            else:
                yield r
