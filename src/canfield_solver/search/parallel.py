"""One deal searched by several worker threads that share the transposition tables.

``solver.solve(..., workers=N)`` comes here (through ``search.schedule``'s exact search) when N > 1. The search kernel releases
the GIL, so N threads run N depth-first searches at once over one pair of
tables (kernel.py, ``ctl[CTL_PAR]``): a position is stored once, by the
worker whose expansion made it, and that worker is the one that expands it
later; any other worker that meets it skips it, as a search alone skips a
position it has stored. Work moves between workers as positions: while the
queue of positions nobody has started is short, busy workers hand over the
positions they would search later, shallowest first (kernel.donate), and an
idle worker takes one as the start of a search of its own.

The verdict is the one a search alone gives: a win found by any worker is
replayed by the reference engine as always, and "unsolvable" needs every
worker's search to have ended exhausted with nothing left in the queue, which
happens only when every stored position has been expanded (docs/solver-notes.md
§8). Which worker reaches a position first depends on timing, so node counts
and the winning line may differ from run to run; the limits end the search
with ``unknown`` as they do for one worker (the node limit after the round
that passes it, so by up to a round of nodes more).
"""

from __future__ import annotations

import threading
import time
from collections import deque
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ..budget import Deadline, Limit, Limits, Pace, Step, drive
from ..engine.position import Position
from . import arrays as S
from . import codec as C
from . import kernel as K
from .outcome import Outcome

ROUND_NODES = 1 << 17   # nodes each worker searches between two looks at the tables and the limits
IDLE = -1               # run(): the worker had nothing to search
DONATE = 32             # positions a worker can hand over in one round


class _Item:
    """A position nobody has expanded yet: its level-0 arrays and the kernel moves that lead to it."""

    __slots__ = ("cols", "sc", "mask", "path")

    def __init__(self, cols: np.ndarray, sc: np.ndarray, mask: np.uint64, path: list[int]):
        self.cols, self.sc, self.mask, self.path = cols, sc, mask, path


class _Worker(S._Stack):
    """One thread's search arrays (one level more than a search alone: kernel.donate's scratch)."""

    def __init__(self, base: "S.LoneSearch"):
        super().__init__(S.MAX_LEVELS + 1, base.moves.shape[1], DONATE)
        self.base = base
        self.item: _Item | None = None

    def load(self, item: _Item) -> None:
        self.item = item
        self.cols[0] = item.cols
        self.sc[0] = item.sc
        self.mask[0] = item.mask
        unshared = self.stats[C.ST_UNSHARED], self.stats[C.ST_UNSHARED_LONG]  # rows stored, not yet counted
        self.stats[:] = 0
        self.stats[C.ST_UNSHARED], self.stats[C.ST_UNSHARED_LONG] = unshared

    def search(self, tables: "S.SearchTables", ctl: np.ndarray, budget: int) -> int:
        return K.search(*self.kernel_args(self.base, tables, budget, ctl))

    def path_to(self, depth: int) -> list[int]:
        """Kernel moves from the deal to this worker's level ``depth``."""
        assert self.item is not None
        return self.item.path + [int(self.moves[k, self.midx[k] - 1]) & C.MOVE_BITS for k in range(depth)]

    def take_donations(self) -> list[_Item]:
        assert self.item is not None
        cols, sc, mask, path = self.donated
        out = [_Item(cols[i].copy(), sc[i].copy(), mask[i],
                     self.item.path + [int(m) for m in path[i, 1:1 + path[i, 0]]])
               for i in range(int(self.stats[C.ST_DONATED]))]
        self.stats[C.ST_DONATED] = 0
        return out


class _Totals:
    """What the finished searches of all workers add up to, and the best position any of them reached."""

    SUMMED = (C.ST_NODES, C.ST_TTCOUNT, C.ST_MERGED, C.ST_STUCK, C.ST_SHORT, C.ST_SEEN, C.ST_COVERED)

    def __init__(self, start_score: int):
        self.stats = np.zeros(C.NSTATS, np.int64)  # the SUMMED counters, as one search's would be
        self.max_depth = self.donated = 0
        self.truncated = False
        self.best = start_score
        self.best_line: list[int] = []

    @property
    def nodes(self) -> int:
        return int(self.stats[C.ST_NODES])

    def add(self, w: _Worker) -> None:
        """Count the search ``w`` has made from its position (ended, or stopped with the rest)."""
        st = w.stats
        for i in self.SUMMED:
            self.stats[i] += st[i]
        self.truncated |= bool(st[C.ST_TRUNCATED])
        path = w.item.path if w.item is not None else []
        self.max_depth = max(self.max_depth, len(path) + int(st[C.ST_MAXDEPTH]))
        if int(st[C.ST_BEST]) > self.best:
            self.best = int(st[C.ST_BEST])
            self.best_line = path + [int(m) for m in w.best_path[:int(st[C.ST_BEST_LEN])]]


def search(start: Position, limits: Limits, compile_seconds: float = 0.0) -> Outcome:
    """``depth_first.search`` with ``limits.workers`` threads (see the module docstring)."""
    workers = limits.workers
    t0 = time.perf_counter()
    sh = _Shared(start, workers, limits.nodes, limits.memory_mb, limits.deadline)
    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="canfield-search")
    try:
        limit = drive(lambda budget: sh.call(pool, budget), sh.nodes_so_far, limits,
                      Pace(ROUND_NODES, split=workers, t0=t0))
        if limit is Limit.INTERRUPTED:
            sh.ctl[C.CTL_STOP] = 1
    finally:
        sh.ctl[C.CTL_STOP] = 1
        pool.shutdown(wait=True)
    return sh.outcome(start, limit, time.perf_counter() - t0, compile_seconds)


class _Shared:
    """What the workers of one deal share: the tables, the control words, the queue of positions handed over
    and the condition that guards it, the totals of the finished searches, and the flags of a round
    (``searching``: workers inside the kernel now; ``over``: a worker ended the round)."""

    def __init__(self, start: Position, workers: int, max_nodes: int | None, max_memory_mb: int,
                 deadline: Deadline):
        self.base = S.LoneSearch(start, passes_cover=True)
        self.tables = S.SearchTables(S.key_words(start.rules), max_memory_mb * (1 << 20), self.base.cover_fields())
        self.ctl = np.zeros(C.NCTL, np.int64)
        self.ctl[C.CTL_PAR] = 1
        self.queue = deque([_Item(self.base.cols[0].copy(), self.base.sc[0].copy(), self.base.mask[0], [])])
        self.cond = threading.Condition()
        self.ws = [_Worker(self.base) for _ in range(workers)]
        self.totals = _Totals(start.score)
        self.max_nodes = max_nodes
        self.deadline = deadline  # a growth that would end past it is not begun
        self.searching = 0
        self.over = False
        self.winner: list[_Worker] = []  # the worker that won, once one has

    def run(self, w: _Worker, budget: int) -> int:
        """One worker's round: search its position, take the next from the queue when it is done, or wait for
        one while another worker is searching (and so can hand one over); ``IDLE`` when there is none."""
        spent = 0
        cond, queue, ctl = self.cond, self.queue, self.ctl
        while True:
            with cond:
                if w.item is None:
                    while not queue and not self.over:
                        if self.searching == 0:
                            return IDLE
                        ctl[C.CTL_HUNGRY] = max(int(ctl[C.CTL_HUNGRY]), 1)
                        cond.wait(0.05)
                    if self.over:
                        return IDLE
                    w.load(queue.popleft())
                if self.over or spent >= budget:
                    return C.RUNNING
                self.searching += 1
            before = int(w.stats[C.ST_NODES])
            status = w.search(self.tables, ctl, budget - spent)  # the kernel releases the GIL
            gained = int(w.stats[C.ST_NODES]) - before
            spent += gained
            if status == C.RUNNING and gained == 0 and w.stats[C.ST_DONATED] == 0:
                spent = budget  # the next expansion does not fit what is left of this round's budget
            with cond:
                self.searching -= 1
                given = w.take_donations()
                self.totals.donated += len(given)
                queue.extend(given)
                if status == C.EXHAUSTED:
                    self.totals.add(w)
                    w.item = None
                elif status != C.RUNNING or ctl[C.CTL_STOP]:
                    self.over = True
                cond.notify_all()
                if self.over:
                    return status

    def nodes_so_far(self) -> int:
        """Nodes of the finished searches and of the ones still held by a worker."""
        return self.totals.nodes + sum(int(w.stats[C.ST_NODES]) for w in self.ws if w.item is not None)

    def call(self, pool: ThreadPoolExecutor, budget: int) -> Step:
        """One round: every worker searches up to ``budget`` nodes (or until one wins or a table is full)."""
        ws, ctl, queue = self.ws, self.ctl, self.queue
        if not queue and all(w.item is None for w in ws):
            return Step.DONE  # every stored position has been expanded: exhausted
        done = self.nodes_so_far()
        ctl[C.CTL_HUNGRY] = max(0, 4 * len(ws) - len(queue)) if len(queue) < len(ws) else 0
        self.over = False
        statuses = list(pool.map(lambda w: self.run(w, budget), ws))
        for w in ws:  # the rows each stored since its last batch (kernel.ROWS_BATCH), into the shared counts
            for mine, total in ((C.ST_UNSHARED, C.CTL_ROWS), (C.ST_UNSHARED_LONG, C.CTL_ROWS_LONG)):
                ctl[total] += w.stats[mine]
                w.stats[mine] = 0
        if C.SOLVED in statuses:
            self.winner.append(ws[statuses.index(C.SOLVED)])
            return Step.DONE
        grew = False
        for grow, which in ((C.GROW, "short"), (C.GROW_LONG, "long")):
            if grow in statuses:
                if not self.deadline.affords(self.tables.grow_seconds(which)):
                    return Step.NO_TIME
                if not self.tables.grow(which, self.base.words):
                    return Step.NO_MEMORY
                table = getattr(self.tables, which)
                ctl[C.CTL_ROWS if which == "short" else C.CTL_ROWS_LONG] = int(np.count_nonzero(table[:, 0]))
                grew = True
        if grew:
            return Step.GROWN
        if self.nodes_so_far() == done and self.max_nodes is not None:
            return Step.NO_ROOM  # no worker's next expansion fits what is left of the node limit
        return Step.GOING

    def outcome(self, start: Position, limit: Limit | None, seconds: float, compile_seconds: float) -> Outcome:
        totals = self.totals
        for w in self.ws:
            if w.item is not None:
                totals.add(w)
        winner = self.winner
        won = bool(winner)
        base = self.base
        return Outcome(
            won=won,
            limit=limit,
            truncated=totals.truncated,
            solution=winner[0].path_to(int(winner[0].stats[C.ST_SOLVED_DEPTH])) if winner else [],
            best_score=4 * start.rules.ranks if won else totals.best,
            best_path=totals.best_line,
            nodes=totals.nodes,
            max_depth=totals.max_depth,
            positions=S.positions(totals.stats),
            seconds=seconds,
            decode=lambda path: S.decode(base, start, path),
            stats={**S.result_stats(totals.stats, self.tables, compile_seconds), "workers": len(self.ws),
                   "donated": totals.donated},
        )
