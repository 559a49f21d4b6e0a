"""Every packed format of Canfield's search, defined once: named widths, shifts and offsets, the small
functions that pack and unpack each format, and plain-Python ``pack_*``/``unpack_*`` of the keys.

The formats (each section below owns one):

- the rule parameters (``P_*``, one int64 array a search),
- the card lookup table (``LUT_*``) and the card bit masks (``BM_*``),
- a stack level's scalars (``SC_*``), the search's statistics (``ST_*``), the shared control words of the
  workers of one deal (``CTL_*``), the kernel's status codes,
- the move code (``MV_*``: kind, source, destination, count, redeal; ``move_*`` functions),
- the long key (``KEY_*``/``COL_*``: four uint64 words; ``pack_long``/``unpack_long``),
- the short key (``short_fields``: two words, widths set per search; ``pack_short``/``unpack_short``),
- the cover field (``cover_field_at``, ``cover_bits``, ``covers``, ``merge_cover``, ``waste_positions``; for
  limited passes ``COVER_PASSES`` and ``passes_index``),
- the kernel's work space: ``scratch`` offsets (``SCR_*``) and the columns of a child-key row (``CK_*``),
- the kernel's argument groups: the arrays that travel together, as named tuples (``DealArrays``,
  ``StackArrays``, ``TableArrays``, ``WorkArrays``, ``DonatedArrays``; Numba passes a named tuple of arrays
  as one argument and reads its fields by name).

Nothing here imports Numba, so the parent of worker processes can read a format without loading a
compiler. The small functions are written in the subset Numba compiles, and call no other function of this
module (a compiled function can only call compiled ones): the kernel compiles these very functions
(``base._jit``, under these same names), so the compiled and the plain-Python reading of a format are one text, and
tests/test_codec.py checks them against each other and each ``pack`` against its ``unpack``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple, Sequence

import numpy as np

if TYPE_CHECKING:
    from ..engine.rules import Rules

# Rule parameters (one int64 array a search) ---------------------------------------------------------------
# (Ranks, wrap and build order reach the kernel through the card lookup table.)
P_RANKS = 0
P_NCOLS = 1
P_BUILD = 2       # 0 alternate colours, 1 same suit, 2 any suit (BUILD_CODES)
P_COLMOVES = 3    # 0 top card or whole column, 1 whole column only, 2 runs, 3 whole or freeing parts
P_GAPFILL = 4     # once the reserve is empty: 0 waste top only, 1 any card
P_AUTOFILL = 5    # 1: gaps are filled at once from the reserve
P_DRAW = 6
P_REDEALS = 7     # -1 unlimited
P_SAFE = 8        # safe foundation moves: 0 off, 1 alt/full-wrap table, 2 alt standard, 3 guests home,
                  # 4 any suit, relative wrap, 5 any suit, other wraps (heights >= r - 1)
P_STUCK = 9       # 1: apply the stuck-card test
P_GAPLOCK = 10    # 1: no column-to-column move while a gap is open
P_SUITBITS = 11   # key bits per card above a column's bottom (SUIT_BITS): 1 alternate, 0 same suit, 2 any
P_TALON_BITS = 12     # widths of the low fields of a short key (short_fields): talon cards (or heights, P_FKEY),
P_WPOS_BITS = 13      # waste position (or cover field),
P_RES_BITS = 14       # reserve count,
P_RDL_BITS = 15       # redeals used (0 when unlimited)
P_COVER = 16      # 1: rows merge the waste positions of one position and cover the later ones (cover field);
#                   COVER_PASSES: the same for the (redeals used, waste position) of limited passes
P_COVER_BITS = 17     # bits per residue in a row's cover field
P_FKEY = 18       # 1: a short key's first field holds the foundation heights instead of the talon mask
P_POOL = 19       # 1: the talon is a pool (draw 1, unlimited redeals): a talon card goes onto a column only when a
                  # chain of talon cards from it ends at a card that can be put on it next (kernel.pool_chain)
NPARAMS = 20

# Card lookup table (int64[52, LUT_WIDTH]), built once per search in Python: lut[c, h] for h < 52 is 1 when
# card c may be built on card h; then the card's rank counted from the base, and the -1 padded lists of the
# cards that may be built on it (guests) and that it may be built on (hosts).
LUT_REL = 52
LUT_GUESTS = 53
LUT_HOSTS = 57
LUT_WIDTH = 64

# Card bit masks (uint64[BM_SIZE], bit c = card c): for each card the cards of its suit below it (counted from
# the base), its hosts and its guests; for each suit and foundation height f the mask of the f cards home.
BM_LOWER = 0
BM_HOSTS = 52
BM_GUESTS = 104
BM_HOME = 156     # + suit * BM_HOME_STRIDE + height
BM_HOME_STRIDE = 16
BM_SIZE = 220
ALL_CARDS = np.uint64(0xFFFFFFFFFFFFFFFF)

# A stack level's scalars (one int64 row a level) -----------------------------------------------------------
SC_RES = 0        # reserve cards left (the top is reserve[SC_RES - 1])
SC_WB = 1         # waste boundary: the waste is the present talon cards with index < SC_WB
SC_RDL = 2        # redeals used
SC_F = 3          # 4 foundation counts, by suit
SC_LEN = 7        # column lengths (up to MAXCOLS columns)
SC_CB = 13        # per column, the key's suit codes of the cards above its bottom, newest lowest
                  # (kept only when they fit 64 bits: P_SUITBITS <= 1)
SC_TAB = 19       # the cards in the columns, as a mask (bit c = card c)
NSC = 20

MAXCOLS = 6
COLCAP = 53

# Search statistics and resumable state (int64[NSTATS]) --------------------------------------------------
ST_NODES = 0
ST_MAXDEPTH = 1
ST_BEST = 2
ST_DEPTH = 3
ST_STARTED = 4
ST_TRUNCATED = 5
ST_TTCOUNT = 6
ST_STUCK = 7
ST_SOLVED_DEPTH = 8
ST_SEEN = 9       # children already in the table when made
ST_SHORT = 10     # rows of the short table (ST_TTCOUNT counts the rows of both)
ST_BEST_LEN = 11  # moves in best_path: the path to the first position with the best score
ST_COVERED = 12   # children cut because a position earlier in the same pass was reached (cover field)
ST_MERGED = 13    # positions added to a row that already held another waste position of theirs
ST_DONATED = 14   # positions handed over to other workers, in the donation buffers (kernel.donate)
ST_UNSHARED = 15  # rows of the short table this worker stored and has not added to ctl[CTL_ROWS] yet
ST_UNSHARED_LONG = 16  # the same for the long table
ST_NEXT_DONATE = 17  # after a look for positions to hand over found none: the node count to look again at
NSTATS = 18

# Shared control of the workers that search one deal together (int64[NCTL], parallel.py). The row counts,
# which every worker adds to, sit on cache lines of their own: a worker reads the flags at every step, and a
# line that another core keeps writing would miss every time.
CTL_PAR = 0       # 1: the tables are shared with other workers (atomic inserts, shared row counts)
CTL_STOP = 1      # set by a worker that won, or by the coordinator: every worker returns at its next step
CTL_HUNGRY = 2    # positions the coordinator asks the workers to hand over (kernel.donate)
CTL_ROWS = 8      # rows of the short table, all workers together (each adds its own in batches)
CTL_ROWS_LONG = 16  # rows of the long table, all workers together
NCTL = 24

# The kernel's status codes (kernel.search) ----------------------------------------------------------------
RUNNING = 0
SOLVED = 1
EXHAUSTED = 2
GROW = 3          # the short table is due to grow
GROW_LONG = 4     # the long table is due to grow

# The move code: kind | src << MV_SRC_SHIFT | dst << MV_DST_SHIFT | count << MV_CNT_SHIFT | redeal << ... ---
K_RF = 0          # reserve to foundation
K_RT = 1          # reserve to column dst
K_WF = 2          # waste card at talon index src (reached by draws) to foundation
K_WT = 3          # the same to column dst
K_TF = 4          # top of column src to foundation
K_TT = 5          # count cards of column src onto column dst
MV_KIND_BITS = 4
MV_FIELD_BITS = 8
MV_SRC_SHIFT = 4
MV_DST_SHIFT = 12
MV_CNT_SHIFT = 20
MV_RDL_SHIFT = 28  # 1: the card is reached only after a redeal
MV_KIND_MASK = (1 << MV_KIND_BITS) - 1
MV_FIELD_MASK = (1 << MV_FIELD_BITS) - 1
MOVE_BITS = (1 << (MV_RDL_SHIFT + 1)) - 1  # the bits of a move; flags above them (SEEN)
SEEN = 1 << 40    # flag on a stored move: its child was already in the table, or stuck, when it was made


def move_code(kind, src, dst, count, redeal):
    """A move as one integer (the kernel's ``moves`` rows, paths and lines)."""
    return kind | (src << MV_SRC_SHIFT) | (dst << MV_DST_SHIFT) | (count << MV_CNT_SHIFT) | (redeal << MV_RDL_SHIFT)


def move_kind(mv):
    return mv & MV_KIND_MASK


def move_src(mv):
    return (mv >> MV_SRC_SHIFT) & MV_FIELD_MASK


def move_dst(mv):
    return (mv >> MV_DST_SHIFT) & MV_FIELD_MASK


def move_count(mv):
    return (mv >> MV_CNT_SHIFT) & MV_FIELD_MASK


def move_redeal(mv):
    return (mv >> MV_RDL_SHIFT) & 1


def move_with_src(mv, src):
    """``mv`` with another source column."""
    return (mv & ~(MV_FIELD_MASK << MV_SRC_SHIFT)) | (src << MV_SRC_SHIFT)


def move_with_dst(mv, dst):
    """``mv`` with another destination column."""
    return (mv & ~(MV_FIELD_MASK << MV_DST_SHIFT)) | (dst << MV_DST_SHIFT)


def unpack_move(mv: int) -> tuple[int, int, int, int, int]:
    """(kind, src, dst, count, redeal) of a move code (flags above ``MOVE_BITS`` ignored)."""
    mv = int(mv) & MOVE_BITS
    return move_kind(mv), move_src(mv), move_dst(mv), move_count(mv), move_redeal(mv)


# The long key -----------------------------------------------------------------------------------------------
# A key is four uint64 words and names a position exactly (the table keeps only three when the column stream
# fits in 128 bits: word 3 is then zero) (foundations follow from the other piles, so they take no bits):
#
# word 0
#     bits  0..39  talon mask: bit i set while the i-th card of the talon order (the stock in draw order when
#                  the search started, waste first) is still in the stock or waste
#     bits 40..45  waste position: how many of those cards are in the waste, folded to 0 for every position
#                  of the main draw cycle when redeals are unlimited (they all reach each other by draws and
#                  one redeal, so they are the same position)
#     bits 46..51  reserve count: the top ``count`` cards of the reserve order are still there
#     bits 52..55  redeals used (0 when redeals are unlimited); with covering, bits 52..62 hold the cover
#                  field of a long row instead (LONG_COVER_*)
#     bit  63      always set, so no key is all zeros (the empty table slot)
# words 1..3
#     the columns as one bit stream, sorted by bottom card, empty columns first (columns are
#     interchangeable): per column COL_CARD_BITS bits bottom card + 1 (0 = empty column), COL_LEN_BITS bits
#     length, then per card above the bottom ``suit_bits`` bits that say which suit it is (its rank follows
#     from the card below it): alternate colours: 1 bit (0 = C or D, 1 = H or S); same suit: 0 bits; any
#     suit: 2 bits (the suit index).
MASK_BITS = 40
WPOS_SHIFT = 40
WPOS_BITS = 6
RES_SHIFT = 46
RES_BITS = 6
RDL_SHIFT = 52
RDL_BITS = 4
MARK_BIT = 63
COL_CARD_BITS = 6
COL_LEN_BITS = 6
COL_HEADER_BITS = COL_CARD_BITS + COL_LEN_BITS
COL_STREAM_BITS = 192
LONG_COVER_SHIFT = 52  # a long row's cover field, in word 0's redeal bits (unused when covering: unlimited redeals)
LONG_COVER_BITS = 11

BUILD_CODES = {"alternate": 0, "suit": 1, "any": 2}
SUIT_BITS = {0: 1, 1: 0, 2: 2}
_M64 = (1 << 64) - 1


def suit_code(card, sb):
    """The key's code of a card above a column's bottom, ``sb`` bits wide (``SUIT_BITS``)."""
    s = card // 13
    if sb == 1:
        return 1 if s >= 2 else 0
    return s if sb == 2 else 0


def suit_from_code(sb, host_suit, code):
    """The suit of a card above a column's bottom from its code and its host's suit (``suit_code``'s inverse)."""
    if sb == 1:  # the other colour: black C/S = 0/3, red D/H = 1/2
        if host_suit == 1 or host_suit == 2:
            return 3 if code else 0
        return 2 if code else 1
    if sb == 2:
        return code
    return host_suit


def column_header(card, length):
    """A column's header in the stream: its bottom card + 1 (0 for an empty column), then its length."""
    return ((card + 1) << COL_LEN_BITS) | length


def column_code(col: Sequence[int], build: int) -> tuple[int, int]:
    """(value, nbits) of one column in the stream, value read most significant bit first."""
    if not col:
        return 0, COL_HEADER_BITS
    sb = SUIT_BITS[build]
    v = column_header(col[0], len(col))
    n = COL_HEADER_BITS
    for c in col[1:]:
        v = (v << sb) | suit_code(c, sb)
        n += sb
    return v, n


def canonical_wpos(p: int, n: int, draw: int, unlimited: bool) -> int:
    """Fold every waste position on the main draw cycle to 0 when redeals are unlimited."""
    if unlimited and (p % draw == 0 or p == n):
        return 0
    return p


def column_stream(tableau: Sequence[Sequence[int]], build: int) -> tuple[int, int]:
    """(value, nbits) of the columns, sorted by bottom card, as one stream."""
    codes = [column_code(c, build) for c in sorted(tableau, key=lambda c: c[0] + 1 if c else 0)]
    stream, nbits = 0, 0
    for v, k in codes:
        stream = (stream << k) | v
        nbits += k
    return stream, nbits


def pack_long(*, reserve_count: int, talon_order: Sequence[int], stock: Sequence[int], waste: Sequence[int],
              tableau: Sequence[Sequence[int]], redeals_used: int, rules: "Rules") -> list[int]:
    """The long key of a position, exactly as the kernel computes it (kernel.key); ``rules`` give the building
    rule, the draw and whether redeals are unlimited."""
    build, draw, unlimited = BUILD_CODES[rules.build], rules.draw, rules.redeals is None
    present = set(stock) | set(waste)
    mask = 0
    for i, c in enumerate(talon_order):
        if c in present:
            mask |= 1 << i
    n = len(present)
    w0 = mask | (canonical_wpos(len(waste), n, draw, unlimited) << WPOS_SHIFT)
    w0 |= reserve_count << RES_SHIFT
    w0 |= (0 if unlimited else redeals_used) << RDL_SHIFT
    w0 |= 1 << MARK_BIT
    stream, nbits = column_stream(tableau, build)
    if nbits > COL_STREAM_BITS:
        raise ValueError("columns do not fit the key")
    stream <<= COL_STREAM_BITS - nbits  # left-aligned in words 1..3
    words = [w0 & _M64]
    for i in range(3):
        words.append((stream >> (128 - 64 * i)) & _M64)
    return words


def _read_columns(stream: int, top: int, ncols: int, ranks: int, build: int) -> list[list[int]]:
    """The columns of a stream whose first bit is bit ``top - 1`` of ``stream``."""
    pos = top

    def take(k: int) -> int:
        nonlocal pos
        pos -= k
        return (stream >> pos) & ((1 << k) - 1)

    sb = SUIT_BITS[build]
    cols: list[list[int]] = []
    for _ in range(ncols):
        bottom = take(COL_CARD_BITS)
        length = take(COL_LEN_BITS)
        if bottom == 0:
            cols.append([])
            continue
        col = [bottom - 1]
        for _ in range(length - 1):
            host = col[-1]
            r = (host % 13 - 1) % ranks  # one below its host (ranks wrap where the rules let a column wrap)
            col.append(suit_from_code(sb, host // 13, take(sb)) * 13 + r)
        cols.append(col)
    return cols


def _heights(on_table: set, ranks: int, base_rank: int) -> list[int]:
    found = [0, 0, 0, 0]
    for s in range(4):
        for i in range(ranks):
            if s * 13 + (base_rank + i) % ranks not in on_table:
                found[s] += 1
            else:
                break
    return found


def unpack_long(words: Sequence[int], *, ncols: int, ranks: int, base_rank: int, build: int,
                reserve_order: Sequence[int], talon_order: Sequence[int]) -> dict:
    """The canonical position a long key names: reserve, talon split, sorted columns, foundation counts."""
    w0 = int(words[0])
    mask = w0 & ((1 << MASK_BITS) - 1)
    p = (w0 >> WPOS_SHIFT) & ((1 << WPOS_BITS) - 1)
    rc = (w0 >> RES_SHIFT) & ((1 << RES_BITS) - 1)
    rdl = (w0 >> RDL_SHIFT) & ((1 << RDL_BITS) - 1)
    talon = [c for i, c in enumerate(talon_order) if mask >> i & 1]
    stream = (int(words[1]) << 128) | (int(words[2]) << 64) | int(words[3])
    cols = _read_columns(stream, COL_STREAM_BITS, ncols, ranks, build)
    reserve = list(reserve_order[:rc])
    on_table = set(reserve) | set(talon) | {c for col in cols for c in col}
    return {"reserve": reserve, "waste": talon[:p], "stock": talon[p:], "tableau": cols,
            "foundations": _heights(on_table, ranks, base_rank), "redeals_used": rdl}


# The short key ------------------------------------------------------------------------------------------------
# One 128-bit number hi:lo (two words, word 0 = hi): bit 127 set (no short key is zero, the empty row), then
# the column stream exactly as in the long key from bit 126 down, and in the lowest bits, at their true widths
# for this search (P_TALON_BITS, P_WPOS_BITS, P_RES_BITS, P_RDL_BITS): the talon mask, or with P_FKEY the
# four foundation heights (HEIGHT_BITS each) in its place, then the waste position (a cover field in a table
# with covering), the reserve count and the redeals used. The heights name the same talon as the mask: every
# card is in a column, the reserve, a foundation or the talon. A key fits when its stream and the low fields
# together take at most SHORT_BITS bits.
SHORT_BITS = 127
HEIGHT_BITS = 4


def short_fields(params):
    """(shift, width) of the talon (or heights), waste position, reserve and redeal fields of a short key,
    counted from its lowest bit, as four pairs in one tuple."""
    tb = params[P_TALON_BITS]
    wb = params[P_WPOS_BITS]
    rb = params[P_RES_BITS]
    db = params[P_RDL_BITS]
    return 0, tb, tb, wb, tb + wb, rb, tb + wb + rb, db


def short_low(talon_or_heights, wpos, reserve, redeals, params):
    """The low fields of a short key as one number (each value already within its width)."""
    ws = params[P_TALON_BITS]  # short_fields' shifts, written out: a compiled function calls no plain one
    rs = ws + params[P_WPOS_BITS]
    ds = rs + params[P_RES_BITS]
    return (np.uint64(talon_or_heights) | (np.uint64(wpos) << np.uint64(ws)) | (np.uint64(reserve) << np.uint64(rs))
            | (np.uint64(redeals) << np.uint64(ds)))


def pack_heights(f0, f1, f2, f3):
    """The four foundation heights as one field (suit 0 lowest), where a short key has them (``P_FKEY``)."""
    return f0 | (f1 << HEIGHT_BITS) | (f2 << (2 * HEIGHT_BITS)) | (f3 << (3 * HEIGHT_BITS))


def unpack_heights(v) -> list[int]:
    return [int((int(v) >> (HEIGHT_BITS * s)) & ((1 << HEIGHT_BITS) - 1)) for s in range(4)]


def pack_short(long_words: Sequence[int], nbits: int, params: "Sequence[int] | np.ndarray",
               heights: Sequence[int] | None = None) -> tuple[int, int] | None:
    """The short key (hi, lo) of a position from its long key and its stream's length (kernel.compact); None
    when it does not fit. ``heights`` are the foundation heights, needed with ``P_FKEY``."""
    _ts, tb, _ws, wb, _rs, rb, _ds, db = (int(x) for x in short_fields(params))
    if int(long_words[3]) != 0 or nbits + tb + wb + rb + db > SHORT_BITS:
        return None
    w0 = int(long_words[0])
    if params[P_FKEY] == 1:
        if heights is None:
            raise ValueError("a short key with heights needs the heights")
        first = pack_heights(*heights)
    else:
        first = w0 & ((1 << tb) - 1)
    low = int(short_low(first, (w0 >> WPOS_SHIFT) & ((1 << WPOS_BITS) - 1), (w0 >> RES_SHIFT) & ((1 << RES_BITS) - 1),
                    (w0 >> RDL_SHIFT) & ((1 << RDL_BITS) - 1), [int(x) for x in params]))
    stream = (int(long_words[1]) << 64) | int(long_words[2])  # left-aligned 128 bits
    v = (1 << SHORT_BITS) | (stream >> 1) | low
    return v >> 64, v & _M64


def unpack_short(hi: int, lo: int, params: "Sequence[int] | np.ndarray", *, ranks: int = 13) -> dict:
    """The fields of a short key: ``first`` (talon mask, or heights with ``P_FKEY``), ``wpos`` (the waste
    position, or the cover field with covering), ``reserve``, ``redeals`` and the sorted ``tableau``."""
    p = [int(x) for x in params]
    ts, tw, ws, ww, rs, rw, ds, dw = short_fields(p)
    v = (int(hi) << 64) | int(lo)
    if not v >> SHORT_BITS & 1:
        raise ValueError("not a short key: bit 127 is clear")

    def field(shift: int, width: int) -> int:
        return (v >> shift) & ((1 << width) - 1)

    build = {1: 0, 0: 1, 2: 2}[p[P_SUITBITS]]
    return {"first": field(ts, tw), "wpos": field(ws, ww), "reserve": field(rs, rw), "redeals": field(ds, dw),
            "tableau": _read_columns(v, SHORT_BITS, p[P_NCOLS], ranks, build)}


# The cover field ----------------------------------------------------------------------------------------------
# With covering (P_COVER), one row stands for every waste position of one position: where a key has its waste
# position, a row has its cover field: bit 0 set when the draw cycle's position (waste position 0 folded) was
# reached, then for each residue r = 1 .. draw - 1 of the waste position modulo the draw, P_COVER_BITS bits
# holding 1 + (the least waste position of that residue reached) // draw, or 0 for none. In a short row the
# field is in word 1 at P_TALON_BITS (the waste position's place, P_WPOS_BITS wide); in a long row in word 0
# at LONG_COVER_SHIFT, where it fits LONG_COVER_BITS. Under covering of limited passes (COVER_PASSES, one card a
# draw) the field holds passes_index of the least (redeals used, waste position) reached, and the key's redeals
# field is cleared too; a position at a later one is covered (solver notes, "Limited passes").

def cover_field_at(short, cover, talon_bits, wpos_bits):
    """(word, shift, mask) of the cover field in a row of the short (``short``) or the long table; mask 0 when
    that table's rows have none (covering off, or a field too wide for the long key's spare bits)."""
    width = np.uint64(wpos_bits)
    if not cover:
        return 0, np.uint64(0), np.uint64(0)
    if short:
        if talon_bits >= 64:  # no key is short (a test switch): no field
            return 1, np.uint64(0), np.uint64(0)
        shift = np.uint64(talon_bits)
        return 1, shift, ((np.uint64(1) << width) - np.uint64(1)) << shift
    if wpos_bits > LONG_COVER_BITS:
        return 0, np.uint64(0), np.uint64(0)
    shift = np.uint64(LONG_COVER_SHIFT)
    return 0, shift, ((np.uint64(1) << width) - np.uint64(1)) << shift


COVER_PASSES = 2  # P_COVER's value for covering of limited passes
PASSES_STRIDE = 64  # a talon state of limited passes as one number: redeals used * PASSES_STRIDE + waste position


def passes_index(redeals_used, wpos):
    """1 + (redeals used, waste position) as one number, in their lexicographic order: what a row's cover field
    holds under covering of limited passes (0: none)."""
    return 1 + redeals_used * PASSES_STRIDE + wpos


def cover_bits(c, wp, draw, b):
    """Cover field ``c`` with waste position ``wp`` taken in (it is the least of its residue now)."""
    if wp == 0:
        return c | np.uint64(1)
    off = np.uint64(1 + b * (wp % draw - 1))  # where wp's residue keeps its least position
    ones = (np.uint64(1) << np.uint64(b)) - np.uint64(1)
    return (c & ~(ones << off)) | (np.uint64(wp // draw + 1) << off)


def cover_least(c, wp, draw, b):
    """What the field holds for ``wp``'s residue: 1 + the least position of it reached // draw, 0 for none."""
    off = np.uint64(1 + b * (wp % draw - 1))
    return np.int64((c >> off) & ((np.uint64(1) << np.uint64(b)) - np.uint64(1)))


def covers(c, wp, draw, b):
    """Whether cover field ``c`` holds waste position ``wp`` or an earlier one of its pass: the position at
    ``wp`` then has no move a position already reached lacks (solver notes §6)."""
    if wp == 0:
        return c != np.uint64(0)
    off = np.uint64(1 + b * (wp % draw - 1))
    least = np.int64((c >> off) & ((np.uint64(1) << np.uint64(b)) - np.uint64(1)))
    return least != 0 and least <= wp // draw + 1


def merge_cover(f, g, draw, b):
    """Two cover fields of one key as one: the cycle bit ORed, the least waste position of each residue kept."""
    r = (f | g) & np.uint64(1)
    ones = (np.uint64(1) << np.uint64(b)) - np.uint64(1)
    for q in range(1, draw):
        sh = np.uint64(1 + b * (q - 1))
        x = (f >> sh) & ones
        y = (g >> sh) & ones
        v = x
        if v == np.uint64(0) or (y != np.uint64(0) and y < v):
            v = y
        r |= v << sh
    return r


def waste_positions(f, cover, draw, b, reps):
    """The waste positions a row's field ``f`` names, into ``reps``; how many. Without covering the field is
    the waste position itself; with it, the residues come first (a position part-way through a pass has
    every move of the cycle's position, solver notes §6, so a caller may skip the cycle's when a residue is
    there), then the cycle's position 0 if its bit is set."""
    if not cover:
        reps[0] = np.int64(f)
        return 1
    n = 0
    for r in range(1, draw):
        v = (f >> np.uint64(1 + b * (r - 1))) & ((np.uint64(1) << np.uint64(b)) - np.uint64(1))
        if v != np.uint64(0):
            reps[n] = (np.int64(v) - 1) * draw + r
            n += 1
    if f & np.uint64(1):
        reps[n] = 0
        n += 1
    return n


# The kernel's work space ----------------------------------------------------------------------------------------
# scratch (int64[SCRATCH_SIZE]) of one search: the waste targets' talon indices and redeal flags and the
# present talon cards (kernel.waste_targets), the key's column order and headers (kernel.key).
SCR_QIDX = 256
SCR_QRD = 320
SCR_PRES = 384
SCR_ORDER = 448
SCR_CODES = 456
SCRATCH_SIZE = 512
# A child-key row (uint64[CK_WIDTH]) of kernel.expand: the key in columns 0..3, then its table's probe start,
# the child's score, which table (CK_SHORT_ROW, CK_LONG_ROW, or CK_STUCK_ROW for a stuck child never stored)
# and 1 + its waste position taken out for covering (0 for none).
CK_HASH = 4
CK_SCORE = 5
CK_TABLE = 6
CK_WPOS = 7
CK_WIDTH = 8
CK_LONG_ROW = np.uint64(0)
CK_SHORT_ROW = np.uint64(1)
CK_STUCK_ROW = np.uint64(2)


# The kernel's argument groups ---------------------------------------------------------------------------
# Arrays that every call passes together, passed as one named tuple each (kernel.search and the functions
# it calls; the layered close kernel takes the deal's). Made in Python (arrays.py) and never allocated in
# compiled code. The fields keep the names the kernel's functions give them.


class DealArrays(NamedTuple):
    """The deal's arrays, read by every kernel function that makes moves; made once a search."""

    params: np.ndarray   #: int64[NPARAMS], the rule parameters and key widths (``P_*``)
    reserve: np.ndarray  #: int64[max(1, reserve size)], the reserve's cards, bottom first
    talon: np.ndarray    #: int64[talon size + 1], the waste (bottom first) then the stock (top first), and a 0
    lut: np.ndarray      #: int64[52, LUT_WIDTH], the card lookup table (``LUT_*``)
    bm: np.ndarray       #: uint64[BM_SIZE], the card bit masks (``BM_*``)


class StackArrays(NamedTuple):
    """One search's stack of levels: level ``d`` holds a whole position and the moves made from it."""

    cols: np.ndarray     #: int8[levels, MAXCOLS, COLCAP], each level's columns (cards bottom first)
    sc: np.ndarray       #: int64[levels, NSC], each level's scalars (``SC_*``)
    mask: np.ndarray     #: uint64[levels], each level's talon mask (bit i: talon card i still in the talon)
    moves: np.ndarray    #: int64[levels, width], each level's moves (``MV_*`` codes, the SEEN flag above them)
    nmoves: np.ndarray   #: int64[levels], how many moves each level has (-1: reached, not yet expanded)
    midx: np.ndarray     #: int64[levels], the index of each level's next move to walk


class TableArrays(NamedTuple):
    """The transposition tables: every position seen, by its full key (codec's long or short key)."""

    short: np.ndarray    #: uint64[rows, 2], positions whose key fits two words (``short_fields``)
    long: np.ndarray     #: uint64[rows, 4], the others (the long key)


class WorkArrays(NamedTuple):
    """Work space of one search, overwritten at every node."""

    words: np.ndarray       #: uint64[4], a key being made (the root's)
    scratch: np.ndarray     #: int64[SCRATCH_SIZE], the key's and the move generator's scratch (``SCR_*``)
    prefix: np.ndarray      #: uint64[MAXCOLS, COLCAP], the stuck test's card masks of each column's prefix
    child_keys: np.ndarray  #: uint64[width, CK_WIDTH], one row a child of the level being expanded (``CK_*``)


class DonatedArrays(NamedTuple):
    """Positions a parallel worker hands over (kernel.donate), one row each."""

    cols: np.ndarray     #: int8[n, MAXCOLS, COLCAP], their columns
    sc: np.ndarray       #: int64[n, NSC], their scalars
    mask: np.ndarray     #: uint64[n], their talon masks
    path: np.ndarray     #: int64[n, levels + 1], the moves from the worker's level 0 to each (count first)
