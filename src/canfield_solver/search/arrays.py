"""The arrays a search works on: a search's stack (``_Stack``); the deal's arrays together with the stack of
the search that runs alone (``LoneSearch``, a ``_Stack`` with the deal beside it: the parallel workers take
the deal's arrays from it and bring stacks of their own); and the two transposition tables (``SearchTables``,
which also price their next growth: ``grow_seconds``), all built from a ``Position`` and its ``Rules``; and
``decode``, which turns the kernel's move codes back into SPEC §4 moves.

The depth-first drivers (``depth_first``, ``parallel``) run ``kernel.search`` over these arrays.
"""

from __future__ import annotations

import functools
import time
from types import ModuleType

import numpy as np

from ..engine.position import Position
from ..engine.rules import Rules
from ..errors import SolverBugError
from . import codec as C
from . import kernel as K

MAX_LEVELS = 1500
ROW_SECONDS = 35e-9  # a table's growth, a row of the new table: 0.19-0.32 s for 8.4 M rows (2-core machine)
INITIAL_SHORT = 1 << 17  # rows of the short table (two words) at the start; it grows fourfold
INITIAL_LONG = 1 << 15   # rows of the long table (three or four words)
MAX_ROWS = 1 << 32  # rows of one table at most (kernel.slot scales a 32-bit hash)
LOAD = 0.7         # grow a table at this load
FULL_LOAD = 0.85   # when a table cannot grow within the cap, stop with "unknown" (memory) at this load
BASE_CAP = 720 * 2**20  # bytes: up to this cap the tables grow as under the old fixed default (SearchTables)
FOUNDATION_KEYS = True  # short keys hold foundation heights instead of the talon mask where narrower; off only in tests
SHORT_KEYS = True  # keys that fit 127 bits go to the short table (kernel.compact); off only in tests
PASSES_COVER = True  # covering of limited passes in the depth-first searches; off only in tests and comparisons
COVER = True  # a new child part-way through a pass enters its end-of-pass position as seen; off only in tests
SAFE_ANY = True  # where any suit builds, a card goes home once every foundation holds r - 1 cards (kernel.is_safe)
POOL = True  # with draw 1 and unlimited redeals, talon cards go onto columns only to be built on (_pool_chain)


_COLMOVES = {"top-and-whole": 0, "whole": 1, "runs": 2, "whole-or-freeing": 3}


def _safe_mode(r: Rules) -> int:
    if r.build == "alternate" and r.tableau_wrap == "full":
        return 1
    if r.build == "alternate" and (r.tableau_wrap == "relative-to-base" or (r.tableau_wrap == "none" and r.base == 0)):
        return 2
    if r.build == "any" and SAFE_ANY:
        return 4 if r.tableau_wrap == "relative-to-base" else 5
    return 3


def _params(r: Rules, passes_cover: bool = False) -> np.ndarray:
    p = np.zeros(C.NPARAMS, np.int64)
    p[C.P_RANKS] = r.ranks
    p[C.P_NCOLS] = r.columns
    p[C.P_BUILD] = C.BUILD_CODES[r.build]
    p[C.P_COLMOVES] = _COLMOVES[r.column_moves]
    p[C.P_GAPFILL] = 0 if r.gap_fill == "waste" else 1
    p[C.P_AUTOFILL] = 1 if r.gap_autofill else 0
    p[C.P_DRAW] = r.draw
    p[C.P_REDEALS] = -1 if r.redeals is None else r.redeals
    p[C.P_SAFE] = _safe_mode(r)
    # The stuck-card test needs: a tableau card leaves its place only for a
    # foundation or a host on a non-empty column, never for a gap; and only
    # alone (its column's top) or with its whole column, so that no move
    # carries a card off the cards it covers (docs/solver-notes.md §2).
    p[C.P_STUCK] = 1 if r.gap_fill == "waste" and r.column_moves in ("top-and-whole", "whole") else 0
    p[C.P_GAPLOCK] = 0 if r.moves_while_gap_open else 1
    p[C.P_SUITBITS] = C.SUIT_BITS[C.BUILD_CODES[r.build]]
    # Covering end-of-pass positions needs every pass to end in the one cycle key: unlimited redeals,
    # more than one card a draw (draw 1 has no position off the cycle).
    p[C.P_COVER] = 1 if COVER and r.redeals is None and r.draw > 1 else 0
    # Covering of limited passes (kernel.take_wpos, docs/solver-notes.md "Limited passes"): one card a draw and a
    # redeal or more, asked for by the depth-first searches (the layered proof's rows do not carry it).
    if passes_cover and PASSES_COVER and r.draw == 1 and r.redeals:
        p[C.P_COVER] = C.COVER_PASSES
    # The talon as a pool (kernel.pool_chain): every talon card can be played at any time, and a play
    # moved later changes no other move (no gap lock; columns move only as a top card or whole).
    p[C.P_POOL] = 1 if (POOL and r.draw == 1 and r.redeals is None and r.moves_while_gap_open
                        and r.column_moves in ("top-and-whole", "whole")) else 0
    return p


def _key_widths(params: np.ndarray, ntalon: int, nreserve: int, redeals: int | None) -> None:
    """Word 0's field widths in a short key (kernel.compact) for this search.

    With ``SHORT_KEYS`` off the talon field is made too wide for any key to
    fit, so every position goes to the long table (a test switch).
    """
    params[C.P_TALON_BITS] = ntalon if SHORT_KEYS else 128
    # The four foundation heights name the talon as well as its mask does (kernel.compact); where they
    # are narrower they take its place, so longer column streams still fit a short key.
    heights = 4 * C.HEIGHT_BITS
    params[C.P_FKEY] = 1 if SHORT_KEYS and FOUNDATION_KEYS and heights < ntalon else 0
    if params[C.P_FKEY]:
        params[C.P_TALON_BITS] = heights
    # Covering keeps a cover field where a short key has its waste position: one bit, then for each
    # residue of the waste position modulo the draw, enough bits for 1 + position // draw
    # (kernel.cover_insert_at); never narrower than the waste position itself, which _compact writes there.
    params[C.P_WPOS_BITS] = ntalon.bit_length()
    if params[C.P_COVER] == C.COVER_PASSES:  # 1 + (redeals used, waste position) as one number
        params[C.P_WPOS_BITS] = max(ntalon.bit_length(), C.passes_index(int(params[C.P_REDEALS]), ntalon).bit_length())
    elif params[C.P_COVER]:
        draw = int(params[C.P_DRAW])
        params[C.P_COVER_BITS] = (ntalon // draw + 1).bit_length()
        params[C.P_WPOS_BITS] = max(1 + (draw - 1) * int(params[C.P_COVER_BITS]), ntalon.bit_length())
    params[C.P_RES_BITS] = nreserve.bit_length()
    params[C.P_RDL_BITS] = 0 if redeals is None else redeals.bit_length()


def key_words(r: Rules) -> int:
    """Table row width: 3 words when the column stream (codec.py) always fits in 128 bits."""
    suit_bits = C.SUIT_BITS[C.BUILD_CODES[r.build]]
    stream = r.columns * C.COL_HEADER_BITS + suit_bits * (r.deck_size - 1)
    return 3 if stream <= 128 else 4


def move_width(r: Rules, ntalon: int) -> int:
    """An upper bound on the moves the kernel generates in one position (the row width)."""
    n = r.columns
    longest = 4 * r.ranks  # no column is longer than the deck
    run_lengths = {"top-and-whole": 1, "whole": 0, "runs": longest, "whole-or-freeing": longest}[r.column_moves]
    reserve = 1 + n
    waste = ntalon * (1 + n)
    tableau = n + n * (n - 1) * (1 + run_lengths)
    return reserve + waste + tableau + 8


@functools.lru_cache(maxsize=64)
def _lookup_table(r: Rules, base_rank: int) -> np.ndarray:
    """The kernel's card table (codec.LUT_*): fits, rank from the base, guests and hosts.

    Cached (never written to): many small searches of one deal (``analyze``) share it.
    """
    lut = np.full((52, C.LUT_WIDTH), -1, np.int64)
    lut[:, :52] = 0
    deck = r.deck
    for c in deck:
        lut[c, C.LUT_REL] = (c % 13 - base_rank) % r.ranks
        guests = [x for x in deck if r.fits_tableau(base_rank, x, c)]
        hosts = [x for x in deck if r.fits_tableau(base_rank, c, x)]
        lut[c, hosts] = 1
        lut[c, C.LUT_GUESTS:C.LUT_GUESTS + len(guests)] = guests
        lut[c, C.LUT_HOSTS:C.LUT_HOSTS + len(hosts)] = hosts
    return lut


@functools.lru_cache(maxsize=64)
def _card_masks(r: Rules, base_rank: int) -> np.ndarray:
    """The kernel's card bit masks (codec.BM_*): lower cards of each suit, hosts, home cards.

    Cached (never written to), like the lookup table.
    """
    lut = _lookup_table(r, base_rank)
    bm = np.zeros(C.BM_SIZE, np.uint64)
    for c in r.deck:
        rel = int(lut[c, C.LUT_REL])
        lower = [x for x in r.deck if x // 13 == c // 13 and int(lut[x, C.LUT_REL]) < rel]
        hosts = [int(h) for h in lut[c, C.LUT_HOSTS:C.LUT_HOSTS + 4] if h >= 0]
        guests = [int(g) for g in lut[c, C.LUT_GUESTS:C.LUT_GUESTS + 4] if g >= 0]
        bm[C.BM_LOWER + c] = np.uint64(sum(1 << x for x in lower))
        bm[C.BM_HOSTS + c] = np.uint64(sum(1 << h for h in hosts))
        bm[C.BM_GUESTS + c] = np.uint64(sum(1 << g for g in guests))
    for s in range(4):
        suit = sorted((x for x in r.deck if x // 13 == s), key=lambda x: int(lut[x, C.LUT_REL]))
        for f in range(len(suit) + 1):
            bm[C.BM_HOME + s * C.BM_HOME_STRIDE + f] = np.uint64(sum(1 << x for x in suit[:f]))
    return bm


class SearchTables:
    """The short and the long transposition table (kernel.compact), grown within one memory cap.

    Up to ``BASE_CAP`` (the old fixed 720 MiB) a table grows as it always
    did: fourfold (twofold if that is all the cap allows) while the old copy
    is still held, the cap counting both tables and that copy; while the other
    table has never grown, the growth after which a table could not grow
    fourfold again goes instead to the most rows the cap allows (rows need
    not be a power of two, kernel.slot): the short table of a search whose
    keys are all short (every 52-card preset's) ends at 38.7 M rows instead of
    2**25 = 33.6 M, 15% more positions, and is then let fill to ``FULL_LOAD``.

    A larger cap (the machine-sized default) only adds steps after those:
    twofold, never straight to the cap, so a deal that fits in 720 MiB takes
    the same tables, nodes, memory and time under any cap, and one that does
    not takes about twice what it needs at most, not the whole cap.
    """

    def __init__(self, long_words: int, cap_bytes: int, cover_fields: tuple[int, int] = (0, 0), kernel: ModuleType = K):
        self.cap = cap_bytes
        self.kernel = kernel  # the compiled kernel, or interpreted.kernel()
        self.cover_fields = cover_fields  # (short, long): the bits of word 1 / word 0 a row is hashed without
        self.row_seconds = ROW_SECONDS  # what a row of growth took, measured at each growth

        def first(rows: int, width: int, share: int) -> int:
            while rows > 1024 and rows * width * 8 > cap_bytes // share:
                rows //= 2
            return rows

        self.short = np.zeros((first(INITIAL_SHORT, 2, 2), 2), np.uint64)
        self.long = np.zeros((first(INITIAL_LONG, long_words, 4), long_words), np.uint64)
        self.initial = (self.short.shape[0], self.long.shape[0])

    def _grown_within(self, table: np.ndarray, cap: int) -> int:
        """Rows for the next size of ``table`` by the fourfold steps within ``cap``; 0 when none fits."""
        other_table = self.long if table is self.short else self.short
        other = other_table.nbytes
        row = table.shape[1] * 8
        rows = table.shape[0]
        again = other + row * rows * 4 * 5 <= cap and rows * 16 <= MAX_ROWS  # fourfold twice over
        if not again and other_table.shape[0] <= self.initial[1 if table is self.short else 0]:
            # The other table never grew (for most rules every key is short): this growth is the last
            # one, so it goes to the most rows the cap allows beside the old copy, leaving the other
            # table room to grow fourfold or an eighth of the cap, whichever is more.
            room = min((cap - other - table.nbytes) // row, (cap - max(5 * other, cap // 8)) // row, MAX_ROWS)
            if room >= rows + rows // 4:
                return room
        for f in (4, 2):
            if other + table.nbytes * (1 + f) <= cap and rows * f <= MAX_ROWS:
                return rows * f
        return 0

    def _grown_beyond(self, table: np.ndarray) -> int:
        """Rows for a step past the base cap's last size: twofold, or the most the cap allows when twofold
        does not fit but a quarter more does; 0 when the cap allows neither."""
        other = (self.long if table is self.short else self.short).nbytes
        row = table.shape[1] * 8
        rows = table.shape[0]
        if other + table.nbytes * 3 <= self.cap and rows * 2 <= MAX_ROWS:
            return rows * 2
        room = min((self.cap - other - table.nbytes) // row, MAX_ROWS)
        return room if room >= rows + rows // 4 else 0

    def _grown_rows(self, table: np.ndarray) -> int:
        """Rows for the next size of ``table`` within the cap; 0 when it cannot grow."""
        if self.cap <= BASE_CAP:
            return self._grown_within(table, self.cap)
        return self._grown_within(table, BASE_CAP) or self._grown_beyond(table)

    def grow_at(self, table: np.ndarray) -> int:
        # A table fills to FULL_LOAD when the base cap lets it grow no more, as it did under that cap,
        # before a larger cap grows it further (so the base cap's search is unchanged).
        return int(table.shape[0] * (LOAD if self._grown_within(table, min(self.cap, BASE_CAP)) else FULL_LOAD))

    def grow_seconds(self, which: str) -> float:
        """About how long growing the short or the long table would take: its next size's rows at the
        seconds a row the last growth of these tables took (``ROW_SECONDS`` at least: a
        larger table misses the cache more)."""
        return self._grown_rows(getattr(self, which)) * max(self.row_seconds, ROW_SECONDS)

    def grow(self, which: str, words: np.ndarray) -> bool:
        """Grow the short or the long table; False when the cap does not allow it."""
        old = getattr(self, which)
        rows = self._grown_rows(old)
        if not rows:
            return False
        t = time.perf_counter()
        new = np.zeros((rows, old.shape[1]), np.uint64)
        short = which == "short"
        self.kernel.tt_rehash(old, new, words, np.uint64(self.cover_fields[0 if short else 1]), 1 if short else 0)
        setattr(self, which, new)
        self.row_seconds = (time.perf_counter() - t) / rows
        return True


class _Stack:
    """One search's own arrays: its stack of ``levels`` levels of up to ``width`` moves, counters and scratch,
    and room for ``donate`` positions handed over (kernel.donate); the rest of kernel.search's arguments
    belong to the deal (held by LoneSearch) and the tables (SearchTables)."""

    def __init__(self, levels: int, width: int, donate: int = 1):
        self.cols = np.zeros((levels, C.MAXCOLS, C.COLCAP), np.int8)
        self.sc = np.zeros((levels, C.NSC), np.int64)
        self.mask = np.zeros(levels, np.uint64)
        self.moves = np.zeros((levels, width), np.int64)
        self.nmoves = np.zeros(levels, np.int64)
        self.midx = np.zeros(levels, np.int64)
        self.stats = np.zeros(C.NSTATS, np.int64)
        self.words = np.zeros(4, np.uint64)
        self.scratch = np.zeros(C.SCRATCH_SIZE, np.int64)
        self.prefix = np.zeros((C.MAXCOLS, C.COLCAP), np.uint64)
        self.child_keys = np.zeros((width, C.CK_WIDTH), np.uint64)
        self.best_path = np.zeros(levels, np.int64)
        # kernel.donate's buffers: cards, scalars, talon masks, paths (length first)
        self.donated = C.DonatedArrays(np.zeros((donate, C.MAXCOLS, C.COLCAP), np.int8),
                                       np.zeros((donate, C.NSC), np.int64), np.zeros(donate, np.uint64),
                                       np.zeros((donate, levels + 1), np.int64))
        self.stack = C.StackArrays(self.cols, self.sc, self.mask, self.moves, self.nmoves, self.midx)
        self.work = C.WorkArrays(self.words, self.scratch, self.prefix, self.child_keys)

    def kernel_args(self, prob: "LoneSearch", tables: "SearchTables", budget: int, ctl: np.ndarray) -> tuple:
        """The arguments of ``kernel.search`` for this stack searching ``prob``'s deal."""
        return (prob.deal, self.stack, C.TableArrays(tables.short, tables.long), self.work, self.donated,
                self.stats, self.best_path, ctl, budget, tables.grow_at(tables.short), tables.grow_at(tables.long))


class LoneSearch(_Stack):
    """A search alone: the deal's arrays (params, reserve, talon, lookup table, card masks), and the stack it
    searches with (its ``_Stack`` part). Parallel workers read the deal's arrays from one and search with
    stacks of their own (``parallel._Worker``)."""

    def __init__(self, pos: Position, init_codes: bool = True, kernel: ModuleType = K, passes_cover: bool = False):
        r = pos.rules
        self.rules = r
        self.reserve = np.array(pos.reserve, np.int64) if pos.reserve else np.zeros(1, np.int64)
        talon_list = list(pos.waste) + list(reversed(pos.stock))
        self.talon_list = talon_list
        self.talon = np.array(talon_list + [0], np.int64)
        self.params = _params(r, passes_cover)
        _key_widths(self.params, len(talon_list), len(pos.reserve), r.redeals)
        self.lut = _lookup_table(r, pos.base_rank)
        self.bm = _card_masks(r, pos.base_rank)
        self.deal = C.DealArrays(self.params, self.reserve, self.talon, self.lut, self.bm)
        super().__init__(MAX_LEVELS, move_width(r, len(talon_list)))
        self.sc[0, C.SC_RES] = len(pos.reserve)
        self.sc[0, C.SC_WB] = len(pos.waste)
        self.sc[0, C.SC_RDL] = pos.redeals_used
        for s in range(4):
            self.sc[0, C.SC_F + s] = pos.foundations[s]
        for c, col in enumerate(pos.tableau):
            self.sc[0, C.SC_LEN + c] = len(col)
            self.cols[0, c, : len(col)] = col
        self.mask[0] = np.uint64((1 << len(talon_list)) - 1)
        if init_codes:
            kernel.init_codes(self.cols, self.sc, 0, self.params)
        self.ctl = np.zeros(C.NCTL, np.int64)  # a search alone: no shared tables, nothing handed over

    def cover_fields(self) -> tuple[int, int]:
        """codec.cover_field_at: the cover field of a short row (in word 1) and of a long row (in word 0);
        0 where that table's rows have none."""
        p = [int(x) for x in self.params]
        fields = [int(C.cover_field_at(short, p[C.P_COVER] != 0, p[C.P_TALON_BITS], p[C.P_WPOS_BITS])[2])
                  for short in (True, False)]
        return fields[0], fields[1]

    def search_args(self, tables: "SearchTables", budget: int) -> tuple:
        """The arguments of ``kernel.search`` for the search alone."""
        return self.kernel_args(self, tables, budget, self.ctl)


def decode(prob: LoneSearch, start: Position, path: list[int]) -> list[str]:
    """Kernel move codes to SPEC §4 moves, with the draws and redeals written out (played on ``start``'s
    copy by the reference engine, so an illegal code raises its ``IllegalMoveError``)."""
    pos = start.copy()
    out: list[str] = []

    def play(m: str) -> None:
        pos.play(m)
        out.append(m)

    for mv in path:
        kind, src, dst, cnt, _redeal = C.unpack_move(mv)
        if kind in (C.K_WF, C.K_WT):
            card = prob.talon_list[src]
            guard = 0
            while not (pos.waste and pos.waste[-1] == card):
                play("draw" if pos.stock else "redeal")
                guard += 1
                if guard > 200:
                    raise SolverBugError(f"waste card {card} never reached by draws")
            play("W>F" if kind == C.K_WF else f"W>T{dst + 1}")
        elif kind == C.K_RF:
            play("R>F")
        elif kind == C.K_RT:
            play(f"R>T{dst + 1}")
        elif kind == C.K_TF:
            play(f"T{src + 1}>F")
        else:
            n = len(pos.tableau[src])
            if cnt == 1:
                play(f"T{src + 1}>T{dst + 1}")
            elif cnt == n:
                play(f"T{src + 1}*>T{dst + 1}")
            else:
                play(f"T{src + 1}:{cnt}>T{dst + 1}")
    return out


def positions(st: np.ndarray) -> int:
    """Distinct positions stored: rows, and waste positions merged into a row (covering)."""
    return int(st[C.ST_TTCOUNT] + st[C.ST_MERGED])


def result_stats(st: np.ndarray, tables: SearchTables, compile_seconds: float) -> dict:
    """``SolveResult.stats`` from a search's counters (kernel.ST_*)."""
    return {"stuck_prunes": int(st[C.ST_STUCK]), "short_keys": int(st[C.ST_SHORT]),
            "table_rows": tables.short.shape[0] + tables.long.shape[0],
            "seen_children": int(st[C.ST_SEEN]), "covered": int(st[C.ST_COVERED]),
            "table_keys": int(st[C.ST_TTCOUNT]), "compile_seconds": compile_seconds}
