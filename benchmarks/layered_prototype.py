"""A measurement prototype of the layered loss proof (issue 28, after step 1): memory and time, not a product
(the product's layered phase is search/layered/; this is kept as the record behind
benchmarks/results/layered-prototype.txt).

Positions are processed in order of m (solver notes §9). A layer's entries (short keys with their
waste position, from the layers below) are sorted and deduplicated; the layer is then closed with a
table of its own: each entry is inserted with the kernel's own covering insert, expanded with the
kernel's own move generation, safe moves and stuck test, children of the same m (column moves) go
into the layer's table and its work list, children of a higher m into the pending lists of layers
m+1 and m+2. When a layer is done its table is dropped. A won child ends the run as won (no line:
this is a loss-proof measurement); an empty last layer proves the deal lost.

It prints, per deal: the verdict, positions expanded, distinct rows over all layers, time, and the
peak of what it held at once (the pending entries of the layers above, one 16-byte row a key with its
cover field; the layer's entries,
its table and its work list at its high-water mark; the children it wrote out), beside the depth-first
search's own figures from one run of ``solve`` (its table's bytes; its growth also holds the old copy).

    python benchmarks/layered_prototype.py --seeds 0,6,263
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from numba import njit

from canfield_solver import Deal, Position, get_rules, solve
from canfield_solver.search import codec as C
from canfield_solver.search import kernel as K
from canfield_solver.search import rows as R
from canfield_solver.search.problem import _LoneSearch

DONE, WON, TABLE_FULL, OUT_FULL, LONG_KEY = 0, 1, 2, 3, 4
CHUNK = 1 << 16  # entries expanded between two sorts of the children


@njit(cache=True)
def _run_layer(entries, ts, work, out, params, reserve, talon, lut, bm, ranks, full_score, counts, stats):
    """Close one layer from its entries (k0, k1, wp). Children of higher m go to ``out`` (k0, k1, wp, dm).
    counts: [0] nodes, [1] expanded, [2] out used, [3] work high-water, [4] rows inserted."""
    cols = np.zeros((2, C.MAXCOLS, C.COLCAP), np.int8)
    sc = np.zeros((2, C.NSC), np.int64)
    mask = np.zeros(2, np.uint64)
    moves = np.zeros(512, np.int64)
    scratch = np.zeros(512, np.int64)
    prefix = np.zeros((C.MAXCOLS, C.COLCAP), np.uint64)
    row = np.zeros(8, np.uint64)
    ctl = np.zeros(C.NCTL, np.int64)
    tt = np.zeros((1, 4), np.uint64)
    nwork = 0
    nout = 0
    grow_at = np.int64(ts.shape[0] * 0.8)
    tb = params[C.P_TALON_BITS]
    field = ((np.uint64(1) << np.uint64(params[C.P_WPOS_BITS])) - np.uint64(1)) << np.uint64(tb)
    draw = params[C.P_DRAW]
    b = params[C.P_COVER_BITS]
    reps = np.zeros(8, np.int64)
    for e in range(entries.shape[0]):
        f = (entries[e, 1] & field) >> np.uint64(tb)
        nrep = K._waste_positions(f, True, draw, b, reps)
        for q in range(nrep):
            row[0] = entries[e, 0]
            row[1] = entries[e, 1] & ~field
            for x in range(2, 8):
                row[x] = np.uint64(0)
            h = K._slot(K._hash(row), ts.shape[0])
            if K._insert_key(ts, tt, row, h, True, reps[q], params, stats, ctl) != 0:
                if nwork >= work.shape[0]:
                    return TABLE_FULL
                work[nwork, 0] = row[0]
                work[nwork, 1] = row[1]
                work[nwork, 2] = np.uint64(reps[q])
                nwork += 1
            if stats[C.ST_TTCOUNT] >= grow_at:
                return TABLE_FULL
    while nwork > 0:
        nwork -= 1
        k0 = work[nwork, 0]
        k1 = work[nwork, 1]
        wp = np.int64(work[nwork, 2])
        pm = R.level_from_row(k0, k1, params, reserve, talon, lut, cols, sc, mask, ranks)
        R.set_waste(sc, mask, wp)
        counts[1] += 1
        n = K._gen(cols, sc, mask, 0, params, reserve, talon, lut, bm, moves, True, scratch, -1, -1, -1)
        K._copy_cards(cols, sc, 0)
        for k in range(n):
            K._reset_level(cols, sc, mask, 0)
            K._apply(cols, sc, mask, 1, moves[k], params, reserve, talon)
            counts[0] += 1
            score = K._score(sc, 1)
            if score == full_score:
                return WON
            if K._child_is_stuck(cols, sc, 0, moves[k], params, reserve, talon, bm, prefix):
                continue
            for x in range(8):
                row[x] = np.uint64(0)
            nb = K._key(cols, sc, mask, 1, params, row, scratch)
            if not K._compact(row, nb, params, sc, 1):
                return LONG_KEY
            cwp = K._take_wpos(row, True, params)
            cm = 2 * score
            for c in range(params[C.P_NCOLS]):
                cm += sc[1, C.SC_LEN + c]
            if cm == pm:  # the same layer, the same block: into this layer's table and work list
                h = K._slot(K._hash(row), ts.shape[0])
                if K._insert_key(ts, tt, row, h, True, cwp, params, stats, ctl) != 0:
                    if nwork >= work.shape[0]:
                        return TABLE_FULL
                    work[nwork, 0] = row[0]
                    work[nwork, 1] = row[1]
                    work[nwork, 2] = np.uint64(cwp)
                    nwork += 1
                    if nwork > counts[3]:
                        counts[3] = nwork
                if stats[C.ST_TTCOUNT] >= grow_at:
                    return TABLE_FULL
            else:
                if nout >= out.shape[0]:
                    return OUT_FULL
                out[nout, 0] = row[0]
                out[nout, 1] = row[1]
                out[nout, 2] = np.uint64(cwp)
                out[nout, 3] = np.uint64(cm - pm)
                nout += 1
    counts[2] = nout
    counts[4] = stats[C.ST_TTCOUNT]
    return DONE


def _merge_triples(a: np.ndarray, tb: int, draw: int, b: int) -> np.ndarray:
    """(k0, k1, wp) children as rows of 16 bytes (k0, k1 with the cover field, solver notes §6): one row a
    key, holding the draw cycle's bit and the least waste position of each residue it was reached at."""
    if len(a) == 0:
        return np.zeros((0, 2), np.uint64)
    wp = a[:, 2].astype(np.int64)
    res = np.where(wp == 0, 0, wp % draw)
    order = np.lexsort((wp, res, a[:, 1], a[:, 0]))
    a, wp, res = a[order], wp[order], res[order]
    first = np.ones(len(a), bool)  # the least waste position of each (key, residue)
    first[1:] = (a[1:, 0] != a[:-1, 0]) | (a[1:, 1] != a[:-1, 1]) | (res[1:] != res[:-1])
    a, wp, res = a[first], wp[first], res[first]
    bits = np.where(res == 0, 1, (wp // draw + 1) << (1 + b * (np.maximum(res, 1) - 1))).astype(np.uint64)
    start = np.ones(len(a), bool)
    start[1:] = (a[1:, 0] != a[:-1, 0]) | (a[1:, 1] != a[:-1, 1])
    idx = np.flatnonzero(start)
    field = np.bitwise_or.reduceat(bits, idx)
    out = a[idx, :2].copy()
    out[:, 1] |= field << np.uint64(tb)
    return out


def _merge_rows(rows: np.ndarray, tb: int, wb: int, draw: int, b: int) -> np.ndarray:
    """Rows of 16 bytes with cover fields, one row a key: duplicates merged (the cycle bit ORed, the least
    waste position of each residue kept)."""
    if len(rows) == 0:
        return rows
    fmask = np.uint64(((1 << wb) - 1) << tb)
    k1 = rows[:, 1] & ~fmask
    f = (rows[:, 1] & fmask) >> np.uint64(tb)
    order = np.lexsort((k1, rows[:, 0]))
    k0, k1, f = rows[order, 0], k1[order], f[order]
    start = np.ones(len(k0), bool)
    start[1:] = (k0[1:] != k0[:-1]) | (k1[1:] != k1[:-1])
    idx = np.flatnonzero(start)
    field = np.bitwise_or.reduceat(f & np.uint64(1), idx)
    ones = np.uint64((1 << b) - 1)
    for r in range(1, draw):
        sh = np.uint64(1 + b * (r - 1))
        v = ((f >> sh) & ones).astype(np.int64)
        v = np.where(v == 0, 1 << 40, v)
        least = np.minimum.reduceat(v, idx)
        least = np.where(least == 1 << 40, 0, least).astype(np.uint64)
        field |= least << sh
    out = np.empty((len(idx), 2), np.uint64)
    out[:, 0] = k0[idx]
    out[:, 1] = k1[idx] | (field << np.uint64(tb))
    return out


def layered(seed: int, rules: str, max_seconds: float) -> dict:
    r = get_rules(rules)
    pos = Position(Deal.from_seed(seed, r))
    prob = _LoneSearch(pos)
    p = prob.params
    row = np.zeros(8, np.uint64)
    nb = K._key(prob.cols, prob.sc, prob.mask, 0, p, row, prob.scratch)
    assert K._compact(row, nb, p, prob.sc, 0), "the prototype keeps short keys only"
    wp = K._take_wpos(row, True, p)
    m0 = 2 * sum(pos.foundations) + sum(len(c) for c in pos.tableau)
    tb, wb, draw, b = int(p[C.P_TALON_BITS]), int(p[C.P_WPOS_BITS]), int(p[C.P_DRAW]), int(p[C.P_COVER_BITS])
    assert p[C.P_COVER] == 1, "the prototype keeps cover fields (draw > 1, unlimited redeals)"
    pending: dict[int, list[np.ndarray]] = {
        m0: [_merge_triples(np.array([[row[0], row[1], np.uint64(wp)]], np.uint64), tb, draw, b)]}
    t0 = time.perf_counter()
    nodes = expanded = rows = 0
    peak = 0
    parts: dict = {}
    m = m0
    verdict = "lost"
    while pending:
        m = min(pending)
        entries = _merge_rows(np.concatenate(pending.pop(m)), tb, wb, draw, b)
        held_pending = sum(a.nbytes for lst in pending.values() for a in lst)
        size = max(1024, 2 * len(entries))  # rows: entries are rows, plus the few of the layer's own moves
        outmult = 8
        while True:  # the layer in chunks of entries, its children sorted and deduplicated after each chunk
            ts = np.zeros((size, 2), np.uint64)
            work = np.zeros((size, 3), np.uint64)
            stats = np.zeros(C.NSTATS, np.int64)
            counts = np.zeros(8, np.int64)
            outs: dict[int, list[np.ndarray]] = {1: [], 2: []}
            out_peak = 0
            status = DONE
            for lo in range(0, len(entries), CHUNK):
                chunk = entries[lo:lo + CHUNK]
                outcap = max(4096, outmult * len(chunk))
                while True:
                    out = np.zeros((outcap, 4), np.uint64)
                    c = np.zeros(8, np.int64)
                    status = _run_layer(chunk, ts, work, out, p, prob.reserve, prob.talon, prob.lut, prob.bm,
                                        r.ranks, 4 * r.ranks, c, stats)
                    break
                counts[0] += c[0]
                counts[1] += c[1]
                counts[3] = max(counts[3], c[3])
                if status != DONE:
                    break
                o = out[: int(c[2])]
                for dm in (1, 2):
                    part = o[o[:, 3] == dm][:, :3]
                    if len(part):
                        outs[dm].append(_merge_triples(part, tb, draw, b))
                        if len(outs[dm]) > 4:  # merge the runs so far
                            outs[dm] = [_merge_rows(np.concatenate(outs[dm]), tb, wb, draw, b)]
                out_peak = max(out_peak, o.nbytes + sum(a.nbytes for lst in outs.values() for a in lst))
                del out, o
            if status == TABLE_FULL:
                size *= 2
                continue
            if status == OUT_FULL:  # the layer again, with room for more children a chunk
                outmult *= 4
                continue
            break
        counts[4] = stats[C.ST_TTCOUNT]
        nodes += int(counts[0])
        expanded += int(counts[1])
        if status == WON:
            verdict = "won"
            break
        if status == LONG_KEY:
            verdict = "unknown (a long key)"
            break
        rows += int(counts[4])
        # What a built phase must hold: the other layers' pending entries, this layer's entries, its table
        # (capacity: at most 80% full), its work list at its high-water mark, and the children written out
        # (one chunk's raw children beside the sorted runs).
        held = held_pending + entries.nbytes + ts.nbytes + int(counts[3]) * 24 + out_peak
        if held > peak:
            peak = held
            parts = {"pending above": held_pending, "entries": entries.nbytes, "layer table": ts.nbytes,
                     "work list": int(counts[3]) * 24, "children written": out_peak, "m": m}
        for dm in (1, 2):
            if outs[dm]:
                pending.setdefault(m + dm, []).append(_merge_rows(np.concatenate(outs[dm]), tb, wb, draw, b))
                if len(pending[m + dm]) > 1:
                    pending[m + dm] = [_merge_rows(np.concatenate(pending[m + dm]), tb, wb, draw, b)]
        del ts, work
        if time.perf_counter() - t0 > max_seconds:
            verdict = "unknown (seconds)"
            break
    return {"verdict": verdict, "seconds": time.perf_counter() - t0, "nodes": nodes, "expanded": expanded,
            "rows": rows, "peak_bytes": peak, "last_m": m, "peak_parts": parts}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", default="0,6")
    ap.add_argument("--rules", default="canfield")
    ap.add_argument("--max-seconds", type=float, default=1800.0)
    ap.add_argument("--max-memory", type=int, default=6000, help="the depth-first search's table cap, MiB")
    a = ap.parse_args()
    solve(2)  # load the kernel
    layered(0, a.rules, 60)  # compile the prototype once, outside the timings
    for s in a.seeds.split(","):
        seed = int(s)
        d = solve(seed, a.rules, max_memory_mb=a.max_memory, max_seconds=a.max_seconds)
        L = layered(seed, a.rules, a.max_seconds)
        print(f"seed {seed} · {a.rules}: depth-first {d.verdict} in {d.seconds:.1f} s, {d.nodes:,} nodes, "
              f"{d.stats['table_keys']:,} rows ({d.stats['table_rows'] * 16 / 2**20:,.0f} MiB of table)", flush=True)
        print(f"   layered {L['verdict']} in {L['seconds']:.1f} s, {L['nodes']:,} nodes, {L['expanded']:,} expanded, "
              f"{L['rows']:,} rows over all layers; peak held {L['peak_bytes'] / 2**20:,.0f} MiB = "
              f"{L['peak_bytes'] / (d.stats['table_rows'] * 16):.1%} of the depth-first table as it grew under "
              f"--max-memory, {L['peak_bytes'] / (d.stats['table_keys'] * 16):.1%} of its rows' 16 bytes each (the "
              f"least any table of them takes)", flush=True)
        print("   at the peak (MiB): " + ", ".join(f"{k} {v / 2**20:,.1f}" if k != "m" else f"layer m = {v}"
                                               for k, v in L["peak_parts"].items()), flush=True)


if __name__ == "__main__":
    main()
