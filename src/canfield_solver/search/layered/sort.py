"""The layered proof's sorted runs and their merge: 16-byte rows (a short key, its cover field in word 1) in
the order of the 128-bit keys; a chunk's children sorted into a run for each layer above (``sorted_run``),
a layer's runs merged into its entries, one row a key with their cover fields merged (``kway``), split into
key ranges that workers merge at once (``cuts``)."""

from __future__ import annotations

import numpy as np

from ...jit import CACHED, IR_INLINE_CACHED, THREADED, njit
from .. import kernel as K

# The formats' function is codec's, compiled once in the kernel (inlined where it is called).
_merge_field = K.merge_cover


@njit(**IR_INLINE_CACHED)
def compare(a0, a1, b0, b1):
    """-1, 0, 1: row (a0, a1) before, equal to, after (b0, b1), cover fields already cleared: the order of
    the 128-bit keys.

    Parameters
    ----------
    a0 : uint64
        Word 0 of the first row.
    a1 : uint64
        Word 1 of the first row.
    b0 : uint64
        Word 0 of the second row.
    b1 : uint64
        Word 1 of the second row.
    """
    if a0 != b0:
        return -1 if a0 < b0 else 1
    if a1 != b1:
        return -1 if a1 < b1 else 1
    return 0



@njit(**IR_INLINE_CACHED)
def _row_before(a, i, j):
    """Whether row ``i`` of ``a`` comes before row ``j`` (words 0 and 1: the order of the keys).

    Parameters
    ----------
    a : uint64[n, width]
        The rows.
    i : int
        One row.
    j : int
        The other.
    """
    return a[i, 0] < a[j, 0] or (a[i, 0] == a[j, 0] and a[i, 1] < a[j, 1])


@njit(**IR_INLINE_CACHED)
def _swap_rows(a, i, j):
    """Swap rows ``i`` and ``j`` of ``a``.

    Parameters
    ----------
    a : uint64[n, width]
        The rows.
    i : int
        One row.
    j : int
        The other.
    """
    for c in range(a.shape[1]):
        t = a[i, c]
        a[i, c] = a[j, c]
        a[j, c] = t


@njit(**CACHED)
def sort_rows(a):
    """Rows of ``a`` sorted in place by (word 0, word 1): a quicksort (median of three, the smaller part
    first, so the stack stays short) that leaves parts of up to 16 rows to one insertion sort at the end.

    Parameters
    ----------
    a : uint64[n, width]
        The rows, sorted in place.
    """
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


@njit(**THREADED)
def sorted_run(buf, n, dm, field, tb, cover, draw, cb):
    """The children of ``buf[:n]`` (k0, k1 without cover field, cover field, m step; one row a key, as
    ``close_entries`` writes them) whose step is ``dm`` as a run: rows (k0, k1 with cover field) in ``compare``
    order.

    Parameters
    ----------
    buf : uint64[rows, 4]
        The children: k0, k1, cover field, m step.
    n : int
        How many rows of ``buf`` hold children.
    dm : int
        The m step of the children taken.
    field : uint64
        The cover field's bits in word 1 of a row (0 without covering).
    tb : int
        The cover field's shift in word 1 (the talon field's width).
    cover : bool
        Whether rows carry a cover field (``P_COVER``).
    draw : int
        Cards a draw (``P_DRAW``), for merging cover fields.
    cb : int
        Bits a residue in a cover field (``P_COVER_BITS``).
    """
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
    sort_rows(rows)
    out = np.empty((k, 2), np.uint64)
    m = 0
    for j in range(k):  # equal keys (none, as close_entries writes them) merged all the same
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



@njit(**IR_INLINE_CACHED)
def _before(rows, cur, keep, a, b):
    """Whether run ``a``'s current row comes before run ``b``'s (``compare`` order).

    Parameters
    ----------
    rows : uint64[n, 2]
        The runs' rows.
    cur : int64[runs]
        Each run's current row.
    keep : uint64
        The bits of word 1 compared (all but the cover field).
    a : int
        One run.
    b : int
        The other.
    """
    return compare(rows[cur[a], 0], rows[cur[a], 1] & keep, rows[cur[b], 0], rows[cur[b], 1] & keep) < 0


@njit(**THREADED)
def kway(rows, los, his, field, tb, cover, draw, cb, out):
    """Runs ``rows[los[i]:his[i]]`` merged into ``out`` (or only counted, when ``out`` has no rows): one row
    a key, in ``compare`` order, cover fields merged; the rows written. A binary heap of the runs' cursors, so
    the runs are read once, front to back (they may lie on disk).

    Parameters
    ----------
    rows : uint64[n, 2]
        The runs, one after the other.
    los : int64[runs]
        Where each run begins in ``rows``.
    his : int64[runs]
        Where each ends.
    field : uint64
        The cover field's bits in word 1 of a row (0 without covering).
    tb : int
        The cover field's shift in word 1 (the talon field's width).
    cover : bool
        Whether rows carry a cover field (``P_COVER``).
    draw : int
        Cards a draw (``P_DRAW``), for merging cover fields.
    cb : int
        Bits a residue in a cover field (``P_COVER_BITS``).
    out : uint64[m, 2]
        Receives the merged rows (no rows: count only).
    """
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


@njit(**THREADED)
def cuts(rows, offsets, keep, parts):
    """Where ``parts`` key ranges begin in each run ``rows[offsets[i]:offsets[i + 1]]``: row ``p`` of the
    result holds each run's first row not before the ``p``-th pivot (row 0 the runs' starts, row ``parts``
    their ends). The pivots are rows of the longest run at even steps, so the ranges hold about as many
    rows each; a key's rows all fall in one range, which ``kway`` can merge on its own.

    Parameters
    ----------
    rows : uint64[n, 2]
        The runs, one after the other.
    offsets : int64[runs + 1]
        Where each run begins in ``rows``, and the end.
    keep : uint64
        The bits of word 1 compared (all but the cover field).
    parts : int
        The key ranges wanted.
    """
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
                if compare(rows[mid, 0], rows[mid, 1] & keep, p0, p1) < 0:
                    lo = mid + 1
                else:
                    hi = mid
            cuts[p, r] = lo
    return cuts

