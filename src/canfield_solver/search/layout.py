"""The packed position key: bit layout defined once, plus plain-Python pack/unpack.

A key is four uint64 words and names a position exactly (the table keeps
only three when the column stream fits in 128 bits: word 3 is then zero) (foundations follow
from the other piles, so they take no bits):

word 0
    bits  0..39  talon mask: bit i set while the i-th card of the talon order
                 (the stock in draw order when the search started, waste first)
                 is still in the stock or waste
    bits 40..45  waste position: how many of those cards are in the waste,
                 folded to 0 for every position of the main draw cycle when
                 redeals are unlimited (they all reach each other by draws
                 and one redeal, so they are the same position)
    bits 46..51  reserve count: the top ``count`` cards of the reserve order
                 are still there
    bits 52..55  redeals used (0 when redeals are unlimited)
    bit  63      always set, so no key is all zeros (the empty table slot)
words 1..3
    the columns as one bit stream, sorted by bottom card, empty columns first
    (columns are interchangeable): per column 6 bits bottom card + 1 (0 = empty column),
    6 bits length, then per card above the bottom ``suit_bits`` bits that say
    which suit it is (its rank follows from the card below it):
    alternate colours: 1 bit (0 = C or D, 1 = H or S); same suit: 0 bits;
    any suit: 2 bits (the suit index).
"""

from __future__ import annotations

from typing import Sequence

KEY_WORDS = 4
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
COL_STREAM_BITS = 192

BUILD_CODES = {"alternate": 0, "suit": 1, "any": 2}
SUIT_BITS = {0: 1, 1: 0, 2: 2}
_M64 = (1 << 64) - 1


def suit_code(build: int, suit: int) -> int:
    if build == 0:
        return 1 if suit >= 2 else 0
    if build == 2:
        return suit
    return 0


def suit_from_code(build: int, host_suit: int, code: int) -> int:
    if build == 0:  # the other colour: black C/S = 0/3, red D/H = 1/2
        red_host = host_suit in (1, 2)
        if red_host:
            return 3 if code else 0
        return 2 if code else 1
    if build == 2:
        return code
    return host_suit


def column_code(col: Sequence[int], build: int) -> tuple[int, int]:
    """(value, nbits) of one column in the stream, value read most significant bit first."""
    if not col:
        return 0, COL_CARD_BITS + COL_LEN_BITS
    sb = SUIT_BITS[build]
    v = ((col[0] + 1) << COL_LEN_BITS) | len(col)
    n = COL_CARD_BITS + COL_LEN_BITS
    for c in col[1:]:
        v = (v << sb) | suit_code(build, c // 13)
        n += sb
    return v, n


def canonical_wpos(p: int, n: int, draw: int, unlimited: bool) -> int:
    """Fold every waste position on the main draw cycle to 0 when redeals are unlimited."""
    if unlimited and (p % draw == 0 or p == n):
        return 0
    return p


def pack(*, reserve_count: int, talon_order: Sequence[int], stock: Sequence[int], waste: Sequence[int],
         tableau: Sequence[Sequence[int]], redeals_used: int, build: int, draw: int, unlimited: bool) -> list[int]:
    """The key of a position, exactly as the kernel computes it."""
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
    # Canonical order: by bottom card (empty columns first); bottoms are distinct.
    codes = [column_code(c, build) for c in sorted(tableau, key=lambda c: c[0] + 1 if c else 0)]
    stream, nbits = 0, 0
    for v, k in codes:
        stream = (stream << k) | v
        nbits += k
    if nbits > COL_STREAM_BITS:
        raise ValueError("columns do not fit the key")
    stream <<= COL_STREAM_BITS - nbits  # left-aligned in words 1..3
    words = [w0 & _M64]
    for i in range(3):
        words.append((stream >> (128 - 64 * i)) & _M64)
    return words


def unpack(words: Sequence[int], *, ncols: int, ranks: int, base_rank: int, wrap: int, build: int,
           reserve_order: Sequence[int], talon_order: Sequence[int]) -> dict:
    """The canonical position a key names: reserve, talon split, sorted columns, foundation counts."""
    w0 = words[0]
    mask = w0 & ((1 << MASK_BITS) - 1)
    p = (w0 >> WPOS_SHIFT) & ((1 << WPOS_BITS) - 1)
    rc = (w0 >> RES_SHIFT) & ((1 << RES_BITS) - 1)
    rdl = (w0 >> RDL_SHIFT) & ((1 << RDL_BITS) - 1)
    talon = [c for i, c in enumerate(talon_order) if mask >> i & 1]
    stream = (words[1] << 128) | (words[2] << 64) | words[3]
    pos = COL_STREAM_BITS

    def take(k: int) -> int:
        nonlocal pos
        pos -= k
        return (stream >> pos) & ((1 << k) - 1)

    sb = SUIT_BITS[build]
    cols = []
    for _ in range(ncols):
        bottom = take(COL_CARD_BITS)
        length = take(COL_LEN_BITS)
        if bottom == 0:
            cols.append([])
            continue
        col = [bottom - 1]
        for _ in range(length - 1):
            host = col[-1]
            hr = host % 13
            if wrap == 0:
                r = (hr - 1) % ranks
            elif wrap == 2:
                r = hr - 1
            else:  # relative to the base
                r = (hr - 1) % ranks
            s = suit_from_code(build, host // 13, take(sb))
            col.append(s * 13 + r)
        cols.append(col)
    reserve = list(reserve_order[:rc])
    on_table = set(reserve) | set(talon) | {c for col in cols for c in col}
    found = [0, 0, 0, 0]
    for s in range(4):
        for i in range(ranks):
            if s * 13 + (base_rank + i) % ranks not in on_table:
                found[s] += 1
            else:
                break
    return {"reserve": reserve, "waste": talon[:p], "stock": talon[p:], "tableau": cols,
            "foundations": found, "redeals_used": rdl}
