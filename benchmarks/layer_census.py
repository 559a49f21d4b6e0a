"""Step 1 of the layered loss proof (issue 28): where a finished depth-first proof's positions lie in m.

m = cards on foundations + cards gone from the reserve + cards gone from the talon; no move lowers it,
and the moves that keep it keep the *block* (foundation heights, reserve count, and so the talon set:
the cards on the tableau). For each seed this runs the depth-first search to its end (one thread, a
large memory cap), then decodes every row of the final short table (kernel._compact's layout: the
column stream from bit 126 down, the foundation heights, waste position, reserve count and redeals in
the lowest bits) and prints:

- the rows of each layer m, and the blocks in it (distinct foundation heights, reserve count and
  tableau card set);
- rows per block: median, mean, largest;
- what the m order would hold at once while it closes a block of layer m: the entries waiting for
  layers m+1 and m+2, the entries of layer m's blocks not closed yet, and the block being closed.
  Entries are the rows first reached from a lower layer; a table alone does not say which rows those
  are, so the census gives a bound and an estimate: every row of the layer an entry (an upper bound:
  rows(m) + rows(m+1) + rows(m+2)) and one entry a block (a low estimate: largest block(m) + blocks(m)
  + blocks(m+1) + blocks(m+2)), each as a share of the table's rows;
- the re-expansions of today's search: positions minus table rows (waste positions merged into a row
  after it was expanded, solver notes §6).

    python benchmarks/layer_census.py --seeds 6,35,110,263 --max-memory 6000 --out census.txt
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
from numba import njit

from canfield_solver import Deal, Position, get_rules
from canfield_solver.search import depth_first
from canfield_solver.search import kernel as K
from canfield_solver.search.layout import COL_CARD_BITS, COL_LEN_BITS


@njit(cache=True)
def _take(hi, lo, pos, k):
    """Bits [pos - k, pos) of the 128-bit number hi:lo."""
    low = pos - k
    m = (np.uint64(1) << np.uint64(k)) - np.uint64(1)
    if low >= 64:
        return (hi >> np.uint64(low - 64)) & m
    if pos <= 64:
        return (lo >> np.uint64(low)) & m
    below = 64 - low  # bits taken from lo
    return (((hi << np.uint64(below)) | (lo >> np.uint64(low))) & m)


@njit(cache=True)
def _decode(short, ncols, suit_bits, ranks, tb, wb, full_wrap, out_m, out_hr, out_tab):
    """For every row of the short table: m, (heights | reserve count << 16), tableau card mask. Rows used."""
    n = 0
    for i in range(short.shape[0]):
        hi = short[i, 0]
        lo = short[i, 1]
        if hi == np.uint64(0):
            continue
        heights = int(lo & np.uint64(0xFFFF))
        res = int((lo >> np.uint64(tb + wb)) & np.uint64(63))
        h_total = (heights & 15) + ((heights >> 4) & 15) + ((heights >> 8) & 15) + ((heights >> 12) & 15)
        pos = 127
        tab = np.uint64(0)
        t = 0
        for _c in range(ncols):
            bottom = int(_take(hi, lo, pos, COL_CARD_BITS))
            pos -= COL_CARD_BITS
            length = int(_take(hi, lo, pos, COL_LEN_BITS))
            pos -= COL_LEN_BITS
            if bottom == 0:
                continue
            card = bottom - 1
            tab |= np.uint64(1) << np.uint64(card)
            t += length
            for _k in range(length - 1):
                code = int(_take(hi, lo, pos, suit_bits)) if suit_bits else 0
                pos -= suit_bits
                hs = card // 13
                hr = card % 13
                r = (hr - 1) % ranks if full_wrap else hr - 1
                if suit_bits == 1:  # alternate colours: the other colour's two suits
                    s = (3 if code else 0) if hs in (1, 2) else (2 if code else 1)
                elif suit_bits == 2:
                    s = code
                else:
                    s = hs
                card = s * 13 + r
                tab |= np.uint64(1) << np.uint64(card)
        out_m[n] = 2 * h_total + t
        out_hr[n] = heights | (res << 16)
        out_tab[n] = tab
        n += 1
    return n


def _check_sample(rows, r, deal, p, m, hr, tab, k: int = 2000) -> None:
    """The Numba decoder against layout.unpack on ``k`` rows: the same columns, heights and reserve count."""
    from canfield_solver.search.layout import unpack

    used = np.flatnonzero(rows[:, 0])
    rng = np.random.default_rng(0)
    low_bits = int(p[K.P_TALON_BITS] + p[K.P_WPOS_BITS] + p[K.P_RES_BITS] + p[K.P_RDL_BITS])
    for j in rng.choice(len(used), size=min(k, len(used)), replace=False):
        hi, lo = int(rows[used[j], 0]), int(rows[used[j], 1])
        n128 = ((hi & ~(1 << 63)) << 64) | (lo & ~((1 << low_bits) - 1))
        stream = n128 << 65  # the 192-bit column stream, left-aligned as in a long key
        words = [0, (stream >> 128) & (2**64 - 1), (stream >> 64) & (2**64 - 1), stream & (2**64 - 1)]
        u = unpack(words, ncols=r.columns, ranks=r.ranks, base_rank=deal.base_rank, wrap=0, build=0,
                   reserve_order=[], talon_order=[])
        cards = [c for col in u["tableau"] for c in col]
        assert int(tab[j]) == sum(1 << c for c in cards), "tableau cards"
        heights = hr[j] & 0xFFFF
        h = sum((heights >> (4 * s)) & 15 for s in range(4))
        assert m[j] == 2 * h + len(cards), "m"


def census(seed: int, rules: str, max_memory: int, max_seconds: float, out) -> None:
    r = get_rules(rules)
    deal = Deal.from_seed(seed, r)
    kept: dict = {}
    t0 = time.perf_counter()
    o = depth_first.search(Position(deal), None, max_seconds, max_memory, None, 0.0, keep=kept)
    secs = time.perf_counter() - t0
    prob, tables = kept["problem"], kept["tables"]
    p = prob.params
    verdict = "won" if o.won else ("lost" if o.limit is None and not o.truncated else f"stopped ({o.limit})")
    long_rows = int(np.count_nonzero(tables.long[:, 0]))
    print(f"== seed {seed} · {r.name}: {verdict} in {secs:.1f} s, {o.nodes:,} nodes, {o.positions:,} positions, "
          f"{o.stats['table_keys']:,} table rows ({long_rows:,} long)", file=out, flush=True)
    if not p[K.P_FKEY] or long_rows:
        print("  (census needs every row short with foundation heights: skipped)", file=out)
        return
    rows = tables.short
    m = np.zeros(rows.shape[0], np.int64)
    hr = np.zeros(rows.shape[0], np.int64)
    tab = np.zeros(rows.shape[0], np.uint64)
    n = _decode(rows, r.columns, int(p[K.P_SUITBITS]), r.ranks, int(p[K.P_TALON_BITS]), int(p[K.P_WPOS_BITS]),
                r.tableau_wrap != "none", m, hr, tab)
    m, hr, tab = m[:n], hr[:n], tab[:n]
    if r.build == "alternate" and r.tableau_wrap == "full":
        _check_sample(rows, r, deal, p, m, hr, tab)
    m += r.reserve_size + r.stock_size - r.deck_size  # m = 2H + T + reserve + stock - deck
    kept.clear()
    del rows
    order = np.lexsort((tab, hr, m))
    m, hr, tab = m[order], hr[order], tab[order]
    new_block = np.ones(n, bool)
    new_block[1:] = (m[1:] != m[:-1]) | (hr[1:] != hr[:-1]) | (tab[1:] != tab[:-1])
    starts = np.flatnonzero(new_block)
    sizes = np.diff(np.append(starts, n))
    block_m = m[starts]
    lo_m, hi_m = int(m.min()), int(m.max())
    layers = np.arange(lo_m, hi_m + 3)
    rows_m = np.array([np.count_nonzero(m == k) for k in layers])
    blocks_m = np.array([np.count_nonzero(block_m == k) for k in layers])
    largest_m = np.array([sizes[block_m == k].max() if np.any(block_m == k) else 0 for k in layers])
    print(f"  rows decoded {n:,} (table rows {o.stats['table_keys']:,}); re-expansions (positions - rows) "
          f"{o.positions - o.stats['table_keys']:,} ({(o.positions - o.stats['table_keys']) / max(n, 1):.1%} of rows)",
          file=out)
    print(f"  m spans {lo_m}..{hi_m} ({hi_m - lo_m + 1} layers); {len(sizes):,} blocks; rows per block: median "
          f"{np.median(sizes):.0f}, mean {sizes.mean():.1f}, largest {sizes.max():,} ({sizes.max() / n:.2%} of rows)",
          file=out)
    upper = rows_m[:-2] + rows_m[1:-1] + rows_m[2:]
    lower = largest_m[:-2] + blocks_m[:-2] + blocks_m[1:-1] + blocks_m[2:]
    iu, il = int(np.argmax(upper)), int(np.argmax(lower))
    print(f"  held at once in m order: at most {upper[iu]:,} rows = {upper[iu] / n:.1%} of today's (layers "
          f"{layers[iu]}..{layers[iu] + 2}, every row an entry); low estimate {lower[il]:,} = {lower[il] / n:.2%} "
          f"(layer {layers[il]}, one entry a block)", file=out)
    print(f"  largest layer {rows_m.max():,} rows = {rows_m.max() / n:.1%} (m = {layers[int(np.argmax(rows_m))]})",
          file=out)
    print("  m: rows / blocks / largest block", file=out)
    for k, rw, b, lg in zip(layers, rows_m, blocks_m, largest_m):
        if rw:
            print(f"    {k:3d}: {rw:>11,} / {b:>9,} / {lg:>9,}", file=out)
    out.flush()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", default="6,35,110,263")
    ap.add_argument("--rules", default="canfield")
    ap.add_argument("--max-memory", type=int, default=6000, help="table cap in MiB (the proofs need 1-4 GiB)")
    ap.add_argument("--max-seconds", type=float, default=900.0)
    ap.add_argument("--out", default=None, help="also append the report to this file")
    a = ap.parse_args()

    class Tee:
        def __init__(self, *fs):
            self.fs = fs

        def write(self, s):
            for f in self.fs:
                f.write(s)

        def flush(self):
            for f in self.fs:
                f.flush()

    files = [sys.stdout] + ([open(a.out, "a", encoding="utf-8")] if a.out else [])
    out = Tee(*files)
    print(f"# layer_census.py --seeds {a.seeds} --rules {a.rules} --max-memory {a.max_memory} "
          f"--max-seconds {a.max_seconds:g}", file=out)
    for s in a.seeds.split(","):
        census(int(s), a.rules, a.max_memory, a.max_seconds, out)


if __name__ == "__main__":
    main()
