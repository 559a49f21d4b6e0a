"""One layered search of a position (``Phase``): the deal's arrays, the counters, the runs waiting for
each layer, and the calls of the close kernel and of the sort and merge on them."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ...engine.position import Position
from ...errors import SolverBugError
from .. import codec as C
from .. import kernel as K
from ..arrays import LoneSearch, move_width
from .close import C_BEST, CloseBuffers, Counters, Layer, PhaseShape, close_entries
from .slot import Slot
from .sort import cuts, kway, sorted_run
from .store import Layers


class Phase:
    """One layered search of a position: its arrays, the runs waiting for each layer, its counters."""

    def __init__(self, start: Position):
        self.start = start
        self.prob = LoneSearch(start)
        p = self.prob.params
        self.params = p
        self.rules = start.rules
        self.tb = int(p[C.P_TALON_BITS])
        self.cover = bool(p[C.P_COVER] == 1)
        self.draw = int(p[C.P_DRAW])
        self.cb = int(p[C.P_COVER_BITS])
        self.field = np.uint64(C.cover_field_at(True, self.cover, self.tb, int(p[C.P_WPOS_BITS]))[2])
        self.width = move_width(self.rules, len(self.prob.talon_list))
        self.full = 4 * self.rules.ranks
        self.counts = np.zeros(8, np.int64)
        self.counts[C_BEST] = start.score
        self.pending: Layers | None = None  # the runs waiting and the layers' files (``store_in``)
        self.rows = 0
        self.disk = 0  # the most bytes its directory held (runs waiting, layers kept), looked at now and then
        self.workers = 1
        self.pool: ThreadPoolExecutor | None = None  # several workers' threads (``run_on``)
        self._part_rows: list[int] = []  # _merge's count of each key range, for its writing pass

    def store_in(self, layers: Layers) -> None:
        """Keep the runs waiting and the layers' files in ``layers`` (before any layer is closed)."""
        self.pending = layers

    def run_on(self, pool: ThreadPoolExecutor | None, workers: int) -> None:
        """Close each layer's chunks on ``workers`` threads of ``pool`` (None: one worker, this thread)."""
        self.pool, self.workers = pool, workers

    def start_item(self) -> tuple[int, int, int, int] | None:
        """(k0, k1, waste position, m) of the start; None when its key is not short."""
        prob, p = self.prob, self.params
        row = np.zeros(C.CK_WIDTH, np.uint64)
        nb = K.key(prob.cols, prob.sc, prob.mask, 0, p, row, prob.scratch)
        if not K.compact(row, nb, p, prob.sc, 0):
            return None
        wp = int(K.take_wpos(row, True, p))
        if not self.cover:
            wp = C.unpack_short(int(row[0]), int(row[1]), p)["wpos"]
        m = 2 * self.start.score + sum(len(c) for c in self.start.tableau)
        return int(row[0]), int(row[1]), wp, m

    @property
    def layers(self) -> Layers:
        """The runs waiting and the layers' files (``store_in``, before any layer is closed)."""
        if self.pending is None:
            raise SolverBugError("the layered phase's runs were used before they were stored (store_in)")
        return self.pending

    def add_run(self, m: int, run: np.ndarray) -> None:
        self.layers.add(m, run)

    def entries(self, m: int) -> np.ndarray:
        return self.layers.take(m, self._merge)

    def _merge(self, rows: np.ndarray, offsets: np.ndarray, out: np.ndarray) -> int:
        """The runs ``rows[offsets[i]:offsets[i + 1]]`` merged into ``out`` (counted only when ``out`` has no
        rows), in as many key ranges as there are workers, each merged by one: the rows written."""
        pool = self.pool
        parts = self.workers if pool is not None and offsets[-1] >= 1 << 16 else 1
        bounds = cuts(rows, offsets, ~self.field, parts)
        at = np.concatenate(([0], np.cumsum(self._part_rows))) if len(out) else None

        def merge(p: int) -> int:
            part = out if at is None else out[at[p]:at[p + 1]]
            return kway(rows, bounds[p], bounds[p + 1], self.field, self.tb, self.cover, self.draw, self.cb, part)

        counts = list(pool.map(merge, range(parts)) if pool is not None and parts > 1 else map(merge, range(parts)))
        if at is None:
            self._part_rows = counts  # for the writing pass
        return sum(counts)

    def pending_rows(self) -> int:
        return self.layers.rows()

    def close(self, entries: np.ndarray, starts: np.ndarray, lo: int, hi: int, slot: Slot, recover: bool = False,
              target: tuple[int, int, int, int] | None = None, budget: int = 2**62) -> tuple[int, int, np.ndarray]:
        """Entries ``lo:hi`` closed with ``slot``'s arrays (grown ones kept there) and counters: (status, the
        children written to ``slot.out``, ``found``)."""
        found = np.zeros(2, np.int64)
        tgt = np.zeros(4, np.uint64) if target is None else np.array(target, np.uint64)
        prob = self.prob
        status, nout, _nlog, slot.table, slot.out, slot.seen, slot.logk, slot.logp = close_entries(
            Layer(entries, starts), lo, hi, CloseBuffers(slot.table, slot.out, slot.seen, slot.logk, slot.logp),
            C.DealArrays(self.params, prob.reserve, prob.talon, prob.lut, prob.bm),
            PhaseShape(self.rules.ranks, self.full, self.width), recover, tgt, found, budget,
            Counters(slot.counts, slot.stats, slot.halt))
        return status, nout, found

    def sorted_runs(self, slot: Slot, nout: int) -> list[tuple[int, np.ndarray]]:
        """The children ``close`` wrote to ``slot.out``, as one sorted run for each layer above."""
        return [(dm, sorted_run(slot.out, nout, dm, self.field, self.tb, self.cover, self.draw, self.cb))
                for dm in (1, 2)]
