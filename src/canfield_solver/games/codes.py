"""The move codes of the games' compiled searches, defined once, read by the compiled kernels and by plain
Python alike.

- A pair (nine-packets and ten-columns, ``pairs_kernel``): the two columns whose top cards go out together,
  ``pair_move(first, second)``: the first column above ``PAIR_SHIFT``, the second below it.
- A move of aces-and-kings and bisley (``aces_and_kings/kernel``): ``ak_move(card, source, target)``: the
  card (0-51) above ``AK_CARD_SHIFT``, its source column above ``AK_SOURCE_SHIFT``, and its target in the
  low bits: a column (0-12), ``A_PILE`` (the ace foundations) or ``K_PILE`` (the king foundations).

Nothing here imports Numba. The small functions are written in the subset Numba compiles and call no other
function of this module (a compiled function can only call compiled ones): the kernels compile these very
functions (``jit.njit``, whose cache stamp covers this file, so an edit here is never loaded stale), and
tests/test_games_codes.py checks the compiled reading against the plain one and each move against its fields.
"""

from __future__ import annotations

# Pairs: two column indices, 4 bits each (ten columns at most).
PAIR_SHIFT = 4
PAIR_MASK = (1 << PAIR_SHIFT) - 1

# Aces-and-kings: a target and a source of 4 bits each (13 columns and the two foundation piles), the card above.
AK_SOURCE_SHIFT = 4
AK_CARD_SHIFT = 8
AK_PILE_MASK = (1 << AK_SOURCE_SHIFT) - 1
A_PILE, K_PILE = 13, 14  # targets besides a column index (game.ACE / game.KING)


def pair_move(first: int, second: int) -> int:
    return (first << PAIR_SHIFT) | second


def pair_first(m: int) -> int:
    return m >> PAIR_SHIFT


def pair_second(m: int) -> int:
    return m & PAIR_MASK


def ak_move(card: int, source: int, target: int) -> int:
    return (card << AK_CARD_SHIFT) | (source << AK_SOURCE_SHIFT) | target


def ak_card(m: int) -> int:
    return m >> AK_CARD_SHIFT


def ak_source(m: int) -> int:
    return (m >> AK_SOURCE_SHIFT) & AK_PILE_MASK


def ak_target(m: int) -> int:
    return m & AK_PILE_MASK
