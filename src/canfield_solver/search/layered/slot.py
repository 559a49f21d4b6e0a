"""One worker's arrays while a layer is closed (``Slot``): its own table, its children's buffer, its log
and its counters."""

from __future__ import annotations

import numpy as np

from .. import codec as C

CHUNK = 1 << 14       # entries closed between two looks at the limits and two sorts of the children, at most


def slot_arrays(n_entries: int) -> tuple[np.ndarray, ...]:
    rows = 1024
    while rows < n_entries // 8:
        rows *= 2
    return (np.zeros((rows, 2), np.uint64), np.empty((min(CHUNK, 64 + 8 * n_entries), 4), np.uint64),
            np.empty((4096, 3), np.uint64), np.empty((4096, 2), np.int64))


def _padded(n: int) -> np.ndarray:
    """``n`` zeros with a cache line free on either side, so that counters one thread writes at every node
    share no cache line with another thread's (a precaution: measured, it made no difference here)."""
    return np.zeros(n + 16, np.int64)[8:8 + n]


class Slot:
    """One worker's arrays while a layer is closed: its own table of the layer's positions (kept across its
    chunks of the layer), its children's buffer, its log, its counters (``counts``, the kernel's ``stats``)
    and the flag that stops it between two entries (``halt``, shared by a layer's slots)."""

    def __init__(self, n_entries: int, halt: np.ndarray, counts: np.ndarray | None = None):
        self.table, self.out, self.logk, self.logp = slot_arrays(n_entries)
        size = 2
        while size < 2 * self.out.shape[0]:
            size *= 2
        self.seen = np.zeros(size, np.int64)  # at least twice out's rows, a power of two
        self.counts = _padded(8) if counts is None else counts
        self.stats = _padded(C.NSTATS)
        self.halt = halt

    @property
    def nbytes(self) -> int:
        return self.table.nbytes + self.out.nbytes + self.seen.nbytes + self.logk.nbytes + self.logp.nbytes

