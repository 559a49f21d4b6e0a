"""The layered proof: positions expanded in order of progress m, one layer at a time, each layer's positions
dropped once it is closed (solver notes §9).

m = 2 × (cards home) + (cards on the tableau); no move lowers it, and a move raises it by at most 2. A
layer's *entries* (positions reached by a move from a lower layer) wait in sorted runs of 16-byte rows
(a short key with its cover field, solver notes §6); when the layer's turn comes its runs are merged
into one sorted array, and every entry is expanded with the kernel's own move generation, safe moves
and stuck-card test (the positions its m-keeping moves reach go into a small table of the layer's own,
and are expanded too), while every child of a higher m is written to a buffer that is sorted and merged
into the runs of layer m + 1 or m + 2. Nothing of a closed layer is consulted again, so the memory is
the runs of the next two layers, one layer's entries and its small table: not the whole history, as in
the depth-first search. A deal is lost when the last layer is closed without a win.

Wins: the phase stops at the first won child, and its line is found again from each layer's entries,
which are kept on disk (in a temporary directory, removed at the end) for that purpose: the won layer
is closed again keeping a log of who reached whom, which leads back to one of its entries; that entry
was a child of a position of layer m - 1 or m - 2, found by closing that layer again with the entry as
its target; and so on down to the deal. The line is then the kernel's moves along that chain, their
columns renamed from key order to the position's own (``_engine_code``), checked by the reference
engine in ``solver`` like every line.

Only short keys: under rules that build regardless of suit no key is short, and ``search`` refuses them
(``UnsupportedRules``); a later position whose key does not fit one ends the phase as if its memory were
full (``unknown``), never with a verdict.
"""

from __future__ import annotations

import functools
import os
import queue
import shutil
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Generator

import numpy as np

from .. import compiles
from ..budget import Limit, Step, drive, interrupt_inside
from ..engine.game import Position
from ..errors import CanfieldError, SolverBugError
from . import codec as C
from . import kernel as K
from . import rows as R
from .jit import njit
from .outcome import Outcome
from .problem import _max_moves, _Problem, decode

DONE, WON, FOUND, LONG_KEY, BUDGET = 0, 1, 2, 3, 4
CHUNK = 1 << 14       # entries closed between two looks at the limits and two sorts of the children, at most
MIN_CHUNK = 256       # ... and at least (the tests make it 1, so that several workers share small layers)
TABLE_LOAD = 0.7      # a layer's own table doubles at this load
# counts[] of _close: nodes, positions expanded, stuck children cut, best score
C_NODES, C_EXPANDED, C_STUCK, C_BEST = range(4)


@njit(cache=True)
def _cmp(a0, a1, b0, b1):
    """-1, 0, 1: row (a0, a1) before, equal to, after (b0, b1), cover fields already cleared: the order of
    the 128-bit keys."""
    if a0 != b0:
        return -1 if a0 < b0 else 1
    if a1 != b1:
        return -1 if a1 < b1 else 1
    return 0


# The formats' functions are codec's, compiled once in the kernel (inlined where they are called).
_merge_field = K._merge_cover
_covers = K._covers
_cover_bits = K._cover_bits
_cover_field_at = K._cover_field_at
_short_fields = K._short_fields


@njit(cache=True)
def _row_before(a, i, j):
    """Whether row ``i`` of ``a`` comes before row ``j`` (words 0 and 1: the order of the keys)."""
    return a[i, 0] < a[j, 0] or (a[i, 0] == a[j, 0] and a[i, 1] < a[j, 1])


@njit(cache=True)
def _swap_rows(a, i, j):
    for c in range(a.shape[1]):
        t = a[i, c]
        a[i, c] = a[j, c]
        a[j, c] = t


@njit(cache=True)
def _sort_rows(a):
    """Rows of ``a`` sorted in place by (word 0, word 1): a quicksort (median of three, the smaller part
    first, so the stack stays short) that leaves parts of up to 16 rows to one insertion sort at the end."""
    stack = np.empty((128, 2), np.int64)
    top = 0
    lo = 0
    hi = a.shape[0] - 1
    while True:
        while hi - lo > 16:
            mid = (lo + hi) // 2
            if _row_before(a, mid, lo):
                _swap_rows(a, mid, lo)
            if _row_before(a, hi, mid):
                _swap_rows(a, hi, mid)
                if _row_before(a, mid, lo):
                    _swap_rows(a, mid, lo)
            p0 = a[mid, 0]
            p1 = a[mid, 1]
            i = lo
            j = hi
            while i <= j:
                while a[i, 0] < p0 or (a[i, 0] == p0 and a[i, 1] < p1):
                    i += 1
                while a[j, 0] > p0 or (a[j, 0] == p0 and a[j, 1] > p1):
                    j -= 1
                if i <= j:
                    _swap_rows(a, i, j)
                    i += 1
                    j -= 1
            if j - lo < hi - i:  # the smaller part now, the larger later
                stack[top, 0] = i
                stack[top, 1] = hi
                hi = j
            else:
                stack[top, 0] = lo
                stack[top, 1] = j
                lo = i
            top += 1
        if top == 0:
            break
        top -= 1
        lo = stack[top, 0]
        hi = stack[top, 1]
    for i in range(1, a.shape[0]):
        j = i
        while j > 0 and _row_before(a, j, j - 1):
            _swap_rows(a, j, j - 1)
            j -= 1


@njit(cache=True, nogil=True)
def _sorted_run(buf, n, dm, field, tb, cover, draw, cb):
    """The children of ``buf[:n]`` (k0, k1 without cover field, cover field, m step; one row a key, as
    ``_close`` writes them) whose step is ``dm`` as a run: rows (k0, k1 with cover field) in ``_cmp``
    order."""
    k = 0
    for i in range(n):
        if buf[i, 3] == np.uint64(dm):
            k += 1
    rows = np.empty((k, 3), np.uint64)
    k = 0
    for i in range(n):
        if buf[i, 3] == np.uint64(dm):
            rows[k, 0] = buf[i, 0]
            rows[k, 1] = buf[i, 1]
            rows[k, 2] = buf[i, 2]
            k += 1
    _sort_rows(rows)
    out = np.empty((k, 2), np.uint64)
    m = 0
    for j in range(k):  # equal keys (none, as _close writes them) merged all the same
        k0 = rows[j, 0]
        k1 = rows[j, 1]
        f = rows[j, 2] if cover else np.uint64(0)
        if m > 0 and out[m - 1, 0] == k0 and (out[m - 1, 1] & ~field) == k1:
            if cover:
                old = (out[m - 1, 1] & field) >> np.uint64(tb)
                out[m - 1, 1] = k1 | (_merge_field(old, f, draw, cb) << np.uint64(tb))
        else:
            out[m, 0] = k0
            out[m, 1] = k1 | (f << np.uint64(tb))
            m += 1
    return out[:m].copy()


@njit(cache=True)
def _mix(k0, k1):
    """A hash of a key's two words (for ``_close``'s table of the children it has written)."""
    h = (k0 ^ (k1 * np.uint64(0x9E3779B97F4A7C15))) * np.uint64(0xBF58476D1CE4E5B9)
    return h ^ (h >> np.uint64(31))


@njit(cache=True)
def _grown_out(out, nout, seen):
    """``out`` doubled, and ``seen`` (its rows' places by key) made again for it."""
    bigger = np.empty((2 * out.shape[0], 4), np.uint64)
    bigger[:nout] = out[:nout]
    seen = np.zeros(2 * seen.shape[0], np.int64)
    mask = np.uint64(seen.shape[0] - 1)
    for j in range(nout):
        h = _mix(bigger[j, 0], bigger[j, 1]) & mask
        while seen[h] != 0:
            h = (h + np.uint64(1)) & mask
        seen[h] = j + 1
    return bigger, seen


@njit(cache=True)
def _before(rows, cur, keep, a, b):
    """Whether run ``a``'s current row comes before run ``b``'s (``_cmp`` order)."""
    return _cmp(rows[cur[a], 0], rows[cur[a], 1] & keep, rows[cur[b], 0], rows[cur[b], 1] & keep) < 0


@njit(cache=True, nogil=True)
def _kway(rows, los, his, field, tb, cover, draw, cb, out):
    """Runs ``rows[los[i]:his[i]]`` merged into ``out`` (or only counted, when ``out`` has no rows): one row
    a key, in ``_cmp`` order, cover fields merged; the rows written. A binary heap of the runs' cursors, so
    the runs are read once, front to back (they may lie on disk)."""
    keep = ~field
    k = los.shape[0]
    heap = np.empty(k, np.int64)  # run numbers, ordered by their current row
    cur = los.copy()
    n = 0
    for r in range(k):
        if cur[r] < his[r]:
            heap[n] = r
            n += 1
            c = n - 1
            while c > 0:  # sift up
                p = (c - 1) // 2
                a = heap[c]
                b = heap[p]
                if not _before(rows, cur, keep, a, b):
                    break
                heap[c] = b
                heap[p] = a
                c = p
    m = 0
    last0 = np.uint64(0)
    last1 = np.uint64(0)
    write = out.shape[0] > 0
    while n > 0:
        r = heap[0]
        k0 = rows[cur[r], 0]
        k1 = rows[cur[r], 1]
        if m > 0 and last0 == k0 and (last1 & keep) == (k1 & keep):
            if cover:
                f = _merge_field((last1 & field) >> np.uint64(tb), (k1 & field) >> np.uint64(tb), draw, cb)
                last1 = (k1 & keep) | (f << np.uint64(tb))
                if write:
                    out[m - 1, 1] = last1
        else:
            last0 = k0
            last1 = k1
            if write:
                out[m, 0] = k0
                out[m, 1] = k1
            m += 1
        cur[r] += 1
        if cur[r] == his[r]:
            n -= 1
            heap[0] = heap[n]
        c = 0
        while True:  # sift down
            left = 2 * c + 1
            if left >= n:
                break
            best = left
            if left + 1 < n and _before(rows, cur, keep, heap[left + 1], heap[left]):
                best = left + 1
            a = heap[best]
            b = heap[c]
            if not _before(rows, cur, keep, a, b):
                break
            heap[c] = a
            heap[best] = b
            c = best
    return m


@njit(cache=True, nogil=True)
def _cuts(rows, offsets, keep, parts):
    """Where ``parts`` key ranges begin in each run ``rows[offsets[i]:offsets[i + 1]]``: row ``p`` of the
    result holds each run's first row not before the ``p``-th pivot (row 0 the runs' starts, row ``parts``
    their ends). The pivots are rows of the longest run at even steps, so the ranges hold about as many
    rows each; a key's rows all fall in one range, which ``_kway`` can merge on its own."""
    k = offsets.shape[0] - 1
    cuts = np.empty((parts + 1, k), np.int64)
    cuts[0] = offsets[:-1]
    cuts[parts] = offsets[1:]
    longest = 0
    for r in range(k):
        if offsets[r + 1] - offsets[r] > offsets[longest + 1] - offsets[longest]:
            longest = r
    size = offsets[longest + 1] - offsets[longest]
    for p in range(1, parts):
        at = offsets[longest] + (size * p) // parts
        p0 = rows[at, 0]
        p1 = rows[at, 1] & keep
        for r in range(k):
            lo = max(offsets[r], cuts[p - 1, r])  # pivots do not decrease
            hi = offsets[r + 1]
            while lo < hi:
                mid = (lo + hi) // 2
                if _cmp(rows[mid, 0], rows[mid, 1] & keep, p0, p1) < 0:
                    lo = mid + 1
                else:
                    hi = mid
            cuts[p, r] = lo
    return cuts


INDEX_BITS = 18  # a layer's entries are found through their key's top bits (below the constant bit 63), at most


@njit(cache=True, nogil=True)
def _index(entries):
    """Where each bucket of the top bits of word 0 (below bit 63) starts in ``entries``: about one bucket
    for every four entries, at most 2**INDEX_BITS; the bucket count is the array's length less one."""
    bits = 4
    while bits < INDEX_BITS and (1 << (bits + 2)) < entries.shape[0]:
        bits += 1
    nb = 1 << bits
    starts = np.zeros(nb + 1, np.int64)
    for i in range(entries.shape[0]):
        starts[((entries[i, 0] >> np.uint64(63 - bits)) & np.uint64(nb - 1)) + np.uint64(1)] += 1
    for b in range(nb):
        starts[b + 1] += starts[b]
    return starts


@njit(cache=True)
def _find(entries, starts, k0, k1, keep):
    """The index of the entry with key (k0, k1) (cover fields aside), or -1: a binary search within its
    bucket of ``starts``."""
    nb = starts.shape[0] - 1
    bits = 0
    while (1 << bits) < nb:
        bits += 1
    b = (k0 >> np.uint64(63 - bits)) & np.uint64(nb - 1)
    lo = starts[b]
    hi = starts[b + np.uint64(1)]
    while lo < hi:
        mid = (lo + hi) // 2
        c = _cmp(entries[mid, 0], entries[mid, 1] & keep, k0, k1)
        if c == 0:
            return mid
        if c < 0:
            lo = mid + 1
        else:
            hi = mid
    return -1


@njit(cache=True, nogil=True)
def _close(entries, starts, lo, hi, table, out, seen, logk, logp, params, reserve, talon, lut, bm, ranks, full_score, width,
           recover, target, found, budget, halt, counts, stats):
    """Expand entries ``lo:hi`` of a layer and every position their m-keeping moves reach.

    Each entry stands for the waste positions its cover field names (a residue's least position; the
    cycle's only where no residue is there, as a position part-way through a pass has its moves, solver
    notes §6). Children of the same m that no entry covers go into ``table`` (kernel._insert_key, with
    covering) and are expanded when new; children of a higher m are written to ``out`` (k0, k1, cover
    field, m step), one row a key (``seen``, an open-addressed table twice ``out``'s size, finds a key's row
    again, and a repeat's cover field is merged into it); stuck children are cut (kernel._child_is_stuck);
    safe moves as in the search.

    Positions to expand wait in a log (``logk``: k0, k1, waste position; ``logp``: the index of the one
    that reached it, -1 for an entry, and the move). Without ``recover`` the log is emptied after each
    entry; with it, it is kept for the whole call, so ``found`` (the log index of the position whose move
    ``found[1]`` won, or reached ``target``: k0, k1, waste position, in a lower layer's closure) leads back
    to an entry. The arrays grow here as needed; the ones in use are returned. Stops with BUDGET between two
    entries once ``counts[C_NODES]`` reaches ``budget``.
    """
    cols = np.zeros((2, C.MAXCOLS, C.COLCAP), np.int8)
    sc = np.zeros((2, C.NSC), np.int64)
    mask = np.zeros(2, np.uint64)
    moves = np.zeros(width, np.int64)
    scratch = np.zeros(C.SCRATCH_SIZE, np.int64)
    prefix = np.zeros((C.MAXCOLS, C.COLCAP), np.uint64)
    row = np.zeros(C.CK_WIDTH, np.uint64)
    words = np.zeros(4, np.uint64)
    ctl = np.zeros(C.NCTL, np.int64)
    tt = np.zeros((1, 4), np.uint64)
    tb = params[C.P_TALON_BITS]
    wb = params[C.P_WPOS_BITS]
    cover = params[C.P_COVER] == 1
    draw = params[C.P_DRAW]
    cb = params[C.P_COVER_BITS]
    ncols = params[C.P_NCOLS]
    ws = np.uint64(_short_fields(params)[2])  # where a short key's waste position (or cover field) starts
    wmask = (np.uint64(1) << np.uint64(wb)) - np.uint64(1)
    field = _cover_field_at(True, cover, tb, wb)[2]
    keep = ~field
    reps = np.zeros(8, np.int64)
    nout = 0
    seen[:] = 0
    have = False  # level 0 holds the key (last0, last1), decoded
    last0 = np.uint64(0)
    last1 = np.uint64(0)
    pm = 0
    nlog = 0
    grow_at = np.int64(table.shape[0] * TABLE_LOAD)
    for e in range(lo, hi):
        if counts[C_NODES] >= budget or halt[0] != 0:
            return BUDGET, nout, nlog, table, out, seen, logk, logp
        if not recover:
            nlog = 0
        read = nlog
        f = (entries[e, 1] >> ws) & wmask
        nrep = K._waste_positions(f, cover, draw, cb, reps)
        for q in range(nrep):
            if cover and q > 0 and reps[q] == 0:
                continue  # the cycle's position: a residue's reaches it and has its moves
            if nlog == logk.shape[0]:
                logk, logp = _grown_log(logk, logp)
            logk[nlog, 0] = entries[e, 0]
            logk[nlog, 1] = entries[e, 1] & keep
            logk[nlog, 2] = np.uint64(reps[q])
            logp[nlog, 0] = -1
            logp[nlog, 1] = 0
            nlog += 1
        while read < nlog:
            if not (have and logk[read, 0] == last0 and logk[read, 1] == last1):
                # decoded once for all the waste positions of a key that follow one another in the log
                # (an entry's); level 0 is left as decoded, only its waste boundary moves
                pm = R.level_from_row(logk[read, 0], logk[read, 1], params, reserve, talon, lut, cols, sc, mask,
                                      ranks)
                last0 = logk[read, 0]
                last1 = logk[read, 1]
                have = True
            R.set_waste(sc, mask, np.int64(logk[read, 2]))
            counts[C_EXPANDED] += 1
            n = K._gen(cols, sc, mask, 0, params, reserve, talon, lut, bm, moves, True, scratch, -1, -1, -1)
            K._copy_cards(cols, sc, 0)
            for k in range(n):
                K._reset_level(cols, sc, mask, 0)
                K._apply(cols, sc, mask, 1, moves[k], params, reserve, talon)
                counts[C_NODES] += 1
                score = K._score(sc, 1)
                if score > counts[C_BEST]:
                    counts[C_BEST] = score
                if score == full_score:
                    if not recover or target[3] == np.uint64(1):
                        found[0] = read
                        found[1] = moves[k]
                        return WON, nout, nlog, table, out, seen, logk, logp
                    continue
                if K._child_is_stuck(cols, sc, 0, moves[k], params, reserve, talon, bm, prefix):
                    counts[C_STUCK] += 1
                    continue
                for x in range(C.CK_WIDTH):
                    row[x] = np.uint64(0)
                nb = K._key(cols, sc, mask, 1, params, row, scratch)
                if not K._compact(row, nb, params, sc, 1):
                    return LONG_KEY, nout, nlog, table, out, seen, logk, logp
                cwp = K._take_wpos(row, True, params)
                if not cover:
                    cwp = np.int64((row[1] >> ws) & wmask)
                r0 = row[0]
                r1 = row[1]
                if recover and target[3] == np.uint64(0) and r0 == target[0] and r1 == target[1] \
                        and cwp == np.int64(target[2]):
                    found[0] = read
                    found[1] = moves[k]
                    return FOUND, nout, nlog, table, out, seen, logk, logp
                cm = 2 * score
                for c in range(ncols):
                    cm += sc[1, C.SC_LEN + c]
                if cm == pm:  # the same layer: expanded here unless an entry or a row of the layer covers it
                    i = _find(entries, starts, r0, r1, keep)
                    if i >= 0 and (not cover or _covers((entries[i, 1] & field) >> ws, cwp, draw, cb)):
                        continue
                    if stats[C.ST_TTCOUNT] >= grow_at:
                        bigger = np.zeros((2 * table.shape[0], 2), np.uint64)
                        K._tt_rehash(table, bigger, words, field, 1)
                        table = bigger
                        grow_at = np.int64(table.shape[0] * TABLE_LOAD)
                    h = K._slot(K._hash(row), table.shape[0])
                    if K._insert_key(table, tt, row, h, True, cwp if cover else -1, params, stats, ctl) != 0:
                        if nlog == logk.shape[0]:
                            logk, logp = _grown_log(logk, logp)
                        logk[nlog, 0] = r0
                        logk[nlog, 1] = r1
                        logk[nlog, 2] = np.uint64(cwp)
                        logp[nlog, 0] = read
                        logp[nlog, 1] = moves[k]
                        nlog += 1
                elif not recover:
                    f = _cover_bits(np.uint64(0), cwp, draw, cb) if cover else np.uint64(0)
                    smask = np.uint64(seen.shape[0] - 1)
                    h = _mix(r0, r1) & smask
                    j = seen[h] - 1
                    while j >= 0 and not (out[j, 0] == r0 and out[j, 1] == r1):
                        h = (h + np.uint64(1)) & smask
                        j = seen[h] - 1
                    if j >= 0:  # written already by this call: one row, the cover fields merged
                        if cover:
                            out[j, 2] = _merge_field(out[j, 2], f, draw, cb)
                        continue
                    if nout == out.shape[0]:
                        out, seen = _grown_out(out, nout, seen)
                        smask = np.uint64(seen.shape[0] - 1)
                        h = _mix(r0, r1) & smask
                        while seen[h] != 0:
                            h = (h + np.uint64(1)) & smask
                    seen[h] = nout + 1
                    out[nout, 0] = r0
                    out[nout, 1] = r1
                    out[nout, 2] = f
                    out[nout, 3] = np.uint64(cm - pm)
                    nout += 1
            read += 1
    return DONE, nout, nlog, table, out, seen, logk, logp


@njit(cache=True)
def _grown_log(logk, logp):
    k = np.empty((2 * logk.shape[0], 3), np.uint64)
    p = np.empty((2 * logp.shape[0], 2), np.int64)
    k[: logk.shape[0]] = logk
    p[: logp.shape[0]] = logp
    return k, p


@njit(cache=True)
def _level_of(k0, k1, wp, params, reserve, talon, lut, ranks, cols, sc, mask):
    """Level 0 of ``cols``/``sc``/``mask`` made the position (k0, k1, waste position)."""
    R.level_from_row(k0, k1, params, reserve, talon, lut, cols, sc, mask, ranks)
    R.set_waste(sc, mask, wp)


class UnsupportedRules(CanfieldError):
    """The layered phase cannot search under these rules (no short keys)."""


class _Layers:
    """The phase's temporary directory: the runs waiting for each layer (one file a layer, appended run by
    run) and each layer's merged entries (one file a layer, mapped into memory while the layer is closed,
    and kept for finding a won line again: ``keeping`` turns off, and the kept files go, when the disk is
    nearly full). So the memory holds one layer's index, its own table and one chunk's children, and the
    pages of the mapped layer the system keeps in its cache."""

    def __init__(self) -> None:
        self.dir = tempfile.mkdtemp(prefix="canfield-layers-")
        self.offsets: dict[int, list[int]] = {}  # layer -> where each run waiting for it starts, in rows
        self.kept: dict[int, tuple[str, int]] = {}  # layer -> its entries' file and rows
        self.keeping = True

    def __bool__(self) -> bool:
        return bool(self.offsets)

    def first(self) -> int:
        return min(self.offsets)

    def _runs(self, m: int) -> str:
        return os.path.join(self.dir, f"pending-{m}.bin")

    def add(self, m: int, run: np.ndarray) -> None:
        """A sorted run for layer ``m``."""
        if len(run) == 0:
            return
        offs = self.offsets.setdefault(m, [0])
        with open(self._runs(m), "ab") as f:
            f.write(run.tobytes())
        offs.append(offs[-1] + len(run))

    def take(self, m: int, merge: Callable[[np.ndarray, np.ndarray, np.ndarray], int]) -> np.ndarray:
        """Layer ``m``'s entries: its runs merged (one row a key) into a file of its own, mapped; the runs'
        file removed. OSError when the disk cannot hold them."""
        offs = np.array(self.offsets.pop(m), np.int64)
        runs = self._runs(m)
        rows = np.memmap(runs, dtype=np.uint64, mode="c").reshape(-1, 2)  # "c": typed as a writable array
        n = merge(rows, offs, np.empty((0, 2), np.uint64))
        path = os.path.join(self.dir, f"layer-{m}.bin")
        with open(path, "wb") as f:  # the room taken now, so that a full disk is an OSError, not a SIGBUS
            os.posix_fallocate(f.fileno(), 0, max(16, 16 * n))
        mapped = np.memmap(path, dtype=np.uint64, mode="r+", shape=(max(n, 1), 2))
        entries = mapped[:n]
        merge(rows, offs, entries)
        mapped.flush()
        del rows
        os.remove(runs)
        if self.keeping and shutil.disk_usage(self.dir).free < (1 << 30):
            self.keeping = False
            for old, _n in self.kept.values():
                os.remove(old)
            self.kept = {}
        if self.keeping:
            self.kept[m] = (path, n)
        else:
            os.remove(path)  # the mapping stays readable until it is dropped
        return entries

    def rows(self) -> int:
        return sum(o[-1] for o in self.offsets.values())

    def load(self, m: int) -> np.ndarray | None:
        if m not in self.kept:
            return None
        path, n = self.kept[m]
        return np.memmap(path, dtype=np.uint64, mode="c", shape=(max(n, 1), 2))[:n]

    def disk_bytes(self) -> int:
        return sum(e.stat().st_size for e in os.scandir(self.dir))

    def close(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)


class _Phase:
    """One layered search of a position: its arrays, the runs waiting for each layer, its counters."""

    def __init__(self, start: Position):
        self.start = start
        self.prob = _Problem(start)
        p = self.prob.params
        self.params = p
        self.rules = start.rules
        self.tb = int(p[C.P_TALON_BITS])
        self.cover = bool(p[C.P_COVER] == 1)
        self.draw = int(p[C.P_DRAW])
        self.cb = int(p[C.P_COVER_BITS])
        self.field = np.uint64(C.cover_field_at(True, self.cover, self.tb, int(p[C.P_WPOS_BITS]))[2])
        self.width = _max_moves(self.rules, len(self.prob.talon_list))
        self.full = 4 * self.rules.ranks
        self.counts = np.zeros(8, np.int64)
        self.counts[C_BEST] = start.score
        self.pending: _Layers | None = None  # set by search: the runs waiting and the layers' files
        self.rows = 0
        self.disk = 0  # the most bytes its directory held (runs waiting, layers kept), looked at now and then
        self.workers = 1
        self.pool: ThreadPoolExecutor | None = None  # set by search for several workers
        self._part_rows: list[int] = []  # _merge's count of each key range, for its writing pass

    def start_item(self) -> tuple[int, int, int, int] | None:
        """(k0, k1, waste position, m) of the start; None when its key is not short."""
        prob, p = self.prob, self.params
        row = np.zeros(C.CK_WIDTH, np.uint64)
        nb = K._key(prob.cols, prob.sc, prob.mask, 0, p, row, prob.scratch)
        if not K._compact(row, nb, p, prob.sc, 0):
            return None
        wp = int(K._take_wpos(row, True, p))
        if not self.cover:
            wp = C.unpack_short(int(row[0]), int(row[1]), p)["wpos"]
        m = 2 * self.start.score + sum(len(c) for c in self.start.tableau)
        return int(row[0]), int(row[1]), wp, m

    @property
    def layers(self) -> _Layers:
        """The runs waiting and the layers' files (``search`` sets them before closing any layer)."""
        if self.pending is None:
            raise SolverBugError("the layered phase's runs were used before search set them")
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
        cuts = _cuts(rows, offsets, ~self.field, parts)
        at = np.concatenate(([0], np.cumsum(self._part_rows))) if len(out) else None

        def merge(p: int) -> int:
            part = out if at is None else out[at[p]:at[p + 1]]
            return _kway(rows, cuts[p], cuts[p + 1], self.field, self.tb, self.cover, self.draw, self.cb, part)

        counts = list(pool.map(merge, range(parts)) if pool is not None and parts > 1 else map(merge, range(parts)))
        if at is None:
            self._part_rows = counts  # for the writing pass
        return sum(counts)

    def pending_rows(self) -> int:
        return self.layers.rows()

    def close(self, entries: np.ndarray, starts: np.ndarray, lo: int, hi: int, slot: _Slot, recover: bool = False,
              target: tuple[int, int, int, int] | None = None, budget: int = 2**62) -> tuple[int, int, np.ndarray]:
        """Entries ``lo:hi`` closed with ``slot``'s arrays (grown ones kept there) and counters: (status, the
        children written to ``slot.out``, ``found``)."""
        found = np.zeros(2, np.int64)
        tgt = np.zeros(4, np.uint64) if target is None else np.array(target, np.uint64)
        prob = self.prob
        status, nout, _nlog, slot.table, slot.out, slot.seen, slot.logk, slot.logp = _close(
            entries, starts, lo, hi, slot.table, slot.out, slot.seen, slot.logk, slot.logp, self.params, prob.reserve,
            prob.talon, prob.lut, prob.bm, self.rules.ranks, self.full, self.width, recover, tgt, found, budget,
            slot.halt, slot.counts, slot.stats)
        return status, nout, found

    def sorted_runs(self, slot: _Slot, nout: int) -> list[tuple[int, np.ndarray]]:
        """The children ``close`` wrote to ``slot.out``, as one sorted run for each layer above."""
        return [(dm, _sorted_run(slot.out, nout, dm, self.field, self.tb, self.cover, self.draw, self.cb))
                for dm in (1, 2)]


def _arrays(n_entries: int) -> tuple[np.ndarray, ...]:
    rows = 1024
    while rows < n_entries // 8:
        rows *= 2
    return (np.zeros((rows, 2), np.uint64), np.empty((min(CHUNK, 64 + 8 * n_entries), 4), np.uint64),
            np.empty((4096, 3), np.uint64), np.empty((4096, 2), np.int64))


def _padded(n: int) -> np.ndarray:
    """``n`` zeros with a cache line free on either side, so that counters one thread writes at every node
    share no cache line with another thread's (a precaution: measured, it made no difference here)."""
    return np.zeros(n + 16, np.int64)[8:8 + n]


class _Slot:
    """One worker's arrays while a layer is closed: its own table of the layer's positions (kept across its
    chunks of the layer), its children's buffer, its log, its counters (``counts``, the kernel's ``stats``)
    and the flag that stops it between two entries (``halt``, shared by a layer's slots)."""

    def __init__(self, n_entries: int, halt: np.ndarray, counts: np.ndarray | None = None):
        self.table, self.out, self.logk, self.logp = _arrays(n_entries)
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


_Result = tuple[_Slot, int, list[tuple[int, np.ndarray]], np.ndarray]  # slot, status, runs, its counts


class _Closing:
    """A layer's entries closed in chunks by ``workers`` slots: in this thread for one worker (chunk after
    chunk, as the caller asks for results), otherwise each slot in a thread of ``pool`` taking chunk after
    chunk until none is left or ``halt`` is set, its results queued for the caller. A chunk's budget is
    what is left of the node limit (``left()``, the chunks being closed counted at their whole budgets)
    shared among the workers."""

    def __init__(self, ph: _Phase, entries: np.ndarray, starts: np.ndarray, workers: int, halt: np.ndarray,
                 left: Callable[[], int | None]):
        self.ph, self.entries, self.starts, self.halt, self.left = ph, entries, starts, halt, left
        self.workers = workers
        self.slots = [_Slot(len(entries) // workers, halt) for _ in range(workers)]
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
            budget = min(-(-(left - sum(self.reserved.values())) // self.workers), 2**62)  # an int64 for _close
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

    def done(self, slot: _Slot) -> None:
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


def search(start: Position, max_nodes: int | None, max_seconds: float | None, max_memory_mb: int,
           progress: Callable[..., None] | None, compile_seconds: float, workers: int = 1) -> Outcome:
    """Search ``start`` layer by layer until it is won, every layer is closed, or a limit (or Ctrl-C) stops
    it. ``progress`` is called between chunks with (nodes, seconds) and, if it takes a ``phase`` keyword,
    a line naming the layer and the rows waiting. Raises ``UnsupportedRules`` where the start has no short
    key (rules that build regardless of suit: kernel._key does not measure their column stream).

    ``workers`` threads close each layer's chunks at once, each with a table of its own (solver notes §9,
    "a layer on several workers"): the same verdict; the node counts and the won line may vary."""
    ph = _Phase(start)
    first = ph.start_item()
    if first is None:
        raise UnsupportedRules(f"the layered proof keeps short keys only, and no position under rules "
                               f"{start.rules.name!r} has one; solve it with method 'depth-first' or 'auto'")
    t_compile = time.perf_counter()
    warm_up()
    compiled = time.perf_counter() - t_compile
    compile_seconds += compiled
    if max_seconds is not None:  # the caller's limit bounds what it waits for, this compile included
        max_seconds = max(0.0, max_seconds - compiled)
    t0 = time.perf_counter()
    layers = _Layers()
    ph.pending = layers
    cap = max_memory_mb * (1 << 20)
    won_at: list[int] = []  # the layer of the first won child, once found
    peak = held = 0
    nlayers = 0
    m = -1
    halt = np.zeros(1, np.int64)  # set: every chunk being closed stops at its next entry

    def left() -> int | None:  # what is left of the node limit (None: no limit)
        return None if max_nodes is None else max_nodes - int(ph.counts[C_NODES])

    def chunks() -> Generator[Step, None, None]:
        """Close the layers in order, a chunk of entries a step (one ``Step`` each, as each chunk ends)."""
        nonlocal peak, held, nlayers, m
        pool = ThreadPoolExecutor(workers, thread_name_prefix="canfield-layer") if workers > 1 else None
        ph.pool, ph.workers = pool, workers
        try:
            while ph.pending:
                m = ph.layers.first()
                entries = ph.entries(m)
                starts = _index(entries)
                nlayers += 1
                closing = _Closing(ph, entries, starts, workers, halt, left)
                end: Step | None = None  # how the phase ends in this layer, if it does
                closed = 0
                for slot, status, runs, c in closing.results(pool):
                    ph.counts[C_NODES:C_STUCK + 1] += c[C_NODES:C_STUCK + 1]
                    ph.counts[C_BEST] = max(ph.counts[C_BEST], c[C_BEST])
                    closing.done(slot)
                    if end is not None:
                        continue  # a chunk stopped by the halt: the phase is ending anyway
                    if status == WON:
                        won_at.append(m)
                        end = Step.DONE
                    elif status == LONG_KEY:
                        end = Step.NO_MEMORY
                    elif status == BUDGET:
                        end = Step.NO_ROOM
                    for dm, run in runs:
                        ph.add_run(m + dm, run)
                    closed += 1
                    held = starts.nbytes + sum(sl.nbytes for sl in closing.slots)
                    peak = max(peak, held)
                    if closed % 16 == 0:
                        ph.disk = max(ph.disk, layers.disk_bytes())
                    if held > cap and end is None:
                        end = Step.NO_MEMORY
                    if end is not None:
                        halt[0] = 1  # the other slots stop at their next entry; their results are drained
                        continue
                    yield Step.GOING
                ph.rows += len(entries) + sum(int(sl.stats[C.ST_TTCOUNT]) for sl in closing.slots)
                del entries, closing
                if end is not None:
                    yield end
                    return
            yield Step.DONE  # every layer closed without a win: lost
        finally:
            halt[0] = 1  # closed early (a limit, Ctrl-C, an error): no thread goes on after the phase
            if pool is not None:
                pool.shutdown(wait=True)

    steps = chunks()

    def call(budget: int) -> Step:  # the budget is the chunks' own (left() shared among the workers)
        return next(steps)

    shown = -1.0
    talks = progress is not None and _takes_phase(progress)

    def report(nodes: int, elapsed: float) -> None:
        nonlocal shown
        if progress is None or elapsed < shown + 0.2:  # at most five times a second
            return
        shown = elapsed
        if talks:
            on = f", {workers} workers" if workers > 1 else ""
            progress(nodes, elapsed,
                     phase=f"layer {m}, {ph.pending_rows():,} waiting, {held / 2**20:,.0f} MiB{on}")
        else:
            progress(nodes, elapsed)

    try:
        if start.score == ph.full:
            return _outcome(ph, True, None, [], t0, compile_seconds, peak, nlayers)
        k0, k1, wp, m0 = first
        f = int(C.cover_bits(np.uint64(0), wp, ph.draw, ph.cb)) << ph.tb if ph.cover else 0
        ph.add_run(m0, np.array([[k0, k1 | f]], np.uint64))
        limit = drive(call, lambda: int(ph.counts[C_NODES]), max_nodes=max_nodes, max_seconds=max_seconds,
                      chunk=2**62, t0=t0, progress=report)
        steps.close()
        if won_at:
            line = _won_line(ph, layers, won_at[0], first)
            if line is None:  # the layers' files could not be kept: winnable, but no line to show
                return _outcome(ph, False, Limit.MEMORY, [], t0, compile_seconds, peak, nlayers,
                                note="no room on disk")
            return _outcome(ph, True, None, line, t0, compile_seconds, peak, nlayers)
        return _outcome(ph, False, limit, [], t0, compile_seconds, peak, nlayers)
    except KeyboardInterrupt:
        return _outcome(ph, False, Limit.INTERRUPTED, [], t0, compile_seconds, peak, nlayers)
    except SystemError as e:  # Ctrl-C inside a compiled function (``budget.interrupt_inside``)
        if interrupt_inside(e):
            return _outcome(ph, False, Limit.INTERRUPTED, [], t0, compile_seconds, peak, nlayers)
        raise
    except OSError as e:  # the runs waiting could not be written: the phase's memory on disk is full
        return _outcome(ph, False, Limit.MEMORY, [], t0, compile_seconds, peak, nlayers, note=f"disk: {e}")
    finally:
        steps.close()
        layers.close()


def _takes_phase(progress: Callable[..., None]) -> bool:
    import inspect

    try:
        return "phase" in inspect.signature(progress).parameters
    except (TypeError, ValueError):
        return False


def _outcome(ph: _Phase, won: bool, limit: Limit | None, line: list[int], t0: float, compile_seconds: float,
             peak: int, nlayers: int, note: str | None = None) -> Outcome:
    c = ph.counts
    stats: dict[str, object] = {"layered_layers": nlayers, "layered_peak_mb": round(peak / 2**20, 1), "layered_rows": ph.rows,
             "layered_expanded": int(c[C_EXPANDED]), "stuck_prunes": int(c[C_STUCK]),
             "compile_seconds": compile_seconds}
    if note:
        stats["layered_note"] = note
    stats["layered_best_score"] = int(c[C_BEST])
    stats["layered_disk_mb"] = round(ph.disk / 2**20, 1)
    prob, start = ph.prob, ph.start
    return Outcome(won=won, limit=limit, truncated=False, solution=line, best_score=int(c[C_BEST]) if won else
                   start.score, best_path=[], nodes=int(c[C_NODES]), max_depth=len(line),
                   positions=int(c[C_EXPANDED]), seconds=time.perf_counter() - t0,
                   decode=lambda path: decode(prob, start, path), stats=stats)


def _won_line(ph: _Phase, layers: _Layers, m_won: int, first: tuple[int, int, int, int]) -> list[int] | None:
    """The kernel's moves from the start to a win found in layer ``m_won``, their columns the position's own."""
    steps: list[tuple[int, int, int, int]] = []  # (k0, k1, waste position, move), from the start on
    target: tuple[int, int, int, int] = (0, 0, 0, 1)  # a won child
    m = m_won
    start_item = first[:3]
    while True:
        for dm in ((0,) if target[3] == 1 else (1, 2)):
            entries = layers.load(m - dm)
            if not layers.keeping:
                return None
            if entries is None:  # no such layer (below the start's)
                continue
            slot = _Slot(len(entries), np.zeros(1, np.int64), counts=ph.counts)
            slot.logk = np.empty((max(4096, 2 * len(entries)), 3), np.uint64)
            slot.logp = np.empty((slot.logk.shape[0], 2), np.int64)
            status, _nout, found = ph.close(entries, _index(entries), 0, len(entries), slot, recover=True,
                                            target=target)
            logk, logp = slot.logk, slot.logp
            if status in (WON, FOUND):
                break
        else:
            raise SolverBugError(f"the layered search lost the way back from layer {m}")
        chain: list[tuple[int, int, int, int]] = []
        i, mv = int(found[0]), int(found[1])
        while True:
            chain.append((int(logk[i, 0]), int(logk[i, 1]), int(logk[i, 2]), mv))
            if logp[i, 0] < 0:
                break
            i, mv = int(logp[i, 0]), int(logp[i, 1])
        steps = chain[::-1] + steps
        entry = chain[-1][:3]
        m -= dm
        if entry == start_item and m == first[3]:
            break
        target = (*entry, 0)
    return _engine_codes(ph, steps)


def _engine_codes(ph: _Phase, steps: list[tuple[int, int, int, int]]) -> list[int]:
    """Kernel moves made on decoded levels (columns in key order) as moves on the game's own columns: each
    column named by the cards it holds (an empty one by the first empty column of the position)."""
    prob = ph.prob
    cols = np.zeros((2, C.MAXCOLS, C.COLCAP), np.int8)
    sc = np.zeros((2, C.NSC), np.int64)
    mask = np.zeros(2, np.uint64)
    pos = ph.start.copy()
    codes = []
    for k0, k1, wp, mv in steps:
        _level_of(np.uint64(k0), np.uint64(k1), wp, ph.params, prob.reserve, prob.talon, prob.lut, ph.rules.ranks,
                  cols, sc, mask)
        decoded = [[int(x) for x in cols[0, c, : sc[0, C.SC_LEN + c]]] for c in range(ph.rules.columns)]
        mv &= C.MOVE_BITS
        kind, src, dst, _cnt, _rd = C.unpack_move(mv)

        def own(c: int, avoid: int = -1) -> int:
            want = decoded[c]  # noqa: B023 (called in this iteration only)
            for j, col in enumerate(pos.tableau):
                if j != avoid and list(col) == want:
                    return j
            raise SolverBugError(f"column {want} of a decoded position is not in the game")

        if kind in (C.K_TF, C.K_TT):
            s = own(src)
            mv = C.move_with_src(mv, s)
            if kind == C.K_TT:
                mv = C.move_with_dst(mv, own(dst, avoid=s))
        elif kind in (C.K_RT, C.K_WT):
            mv = C.move_with_dst(mv, own(dst))
        codes.append(mv)
        for spec in decode(prob, pos, [mv]):
            pos.play(spec)
    return codes


def after(first: Outcome, start: Position, max_nodes: int | None, max_seconds: float | None, max_memory_mb: int,
          progress: Callable[..., None] | None, compile_seconds: float, workers: int = 1) -> Outcome:
    """The layered phase after a depth-first search ``first`` that stopped for memory: with what is left of
    the node and time limits and the same memory cap; one outcome of the two (nodes, time and positions
    added; the best line the depth-first search's, which ``first.decode`` replays)."""
    nodes = None if max_nodes is None else max_nodes - first.nodes
    seconds = None if max_seconds is None else max_seconds - first.seconds
    if (nodes is not None and nodes <= 0) or (seconds is not None and seconds <= 0):
        return first
    try:
        second = search(start, nodes, seconds, max_memory_mb, progress, compile_seconds, workers)
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


ENTRY_POINTS = (_close, _sorted_run, _kway, _cuts, _index, _find, _level_of)  # what warm_up compiles


@functools.cache  # once a process
def warm_up() -> None:
    """Compile (or load from Numba's cache) the layered phase's functions, on a throwaway deal: once a
    machine, told to ``compiles.listeners`` when it compiles."""
    with compiles.compiling("layered", lambda: compiles.in_cache(*ENTRY_POINTS)):
        _warm_up()


def _warm_up() -> None:
    from ..engine.deal import Deal
    from ..engine.rules import get_rules

    ph = _Phase(Position(Deal.from_seed(0, get_rules("canfield"))))
    first = ph.start_item()
    if first is None:  # every canfield position has a short key
        raise SolverBugError("the layered phase's warm-up deal has no short key")
    k0, k1, wp, _m = first
    f = int(C.cover_bits(np.uint64(0), wp, ph.draw, ph.cb)) << ph.tb
    entries = np.array([[k0, k1 | f]], np.uint64)
    slot = _Slot(1, np.zeros(1, np.int64))
    _s, nout, _f = ph.close(entries, _index(entries), 0, 0, slot)
    ph.sorted_runs(slot, nout)
    _kway(entries, np.array([0], np.int64), np.array([1], np.int64), ph.field, ph.tb, ph.cover, ph.draw, ph.cb,
          np.empty((1, 2), np.uint64))
    _cuts(entries, np.array([0, 1], np.int64), ~ph.field, 2)
    _find(entries, _index(entries), np.uint64(k0), np.uint64(k1), ~ph.field)
    _level_of(np.uint64(k0), np.uint64(k1), 0, ph.params, ph.prob.reserve, ph.prob.talon, ph.prob.lut, 13,
              np.zeros((2, C.MAXCOLS, C.COLCAP), np.int8), np.zeros((2, C.NSC), np.int64), np.zeros(2, np.uint64))
