"""Cards (SPEC §1): ids, parsing and printing.

A card id is ``suit_index * 13 + rank_index`` with suits C, D, H, S and ranks
A..K, so ``AC`` is 0, ``KC`` is 12, ``AD`` is 13 and ``KS`` is 51.
Diamonds and hearts are red; clubs and spades are black.
"""

from __future__ import annotations

from ..errors import CardError

RANKS = "A23456789TJQK"
SUITS = "CDHS"
SUIT_SYMBOLS = {"♣": "C", "♦": "D", "♥": "H", "♠": "S"}
NUM_RANKS = 13
NUM_CARDS = 52

__all__ = [
    "RANKS",
    "SUITS",
    "card_id",
    "card_name",
    "parse_card",
    "rank_of",
    "suit_of",
    "is_red",
    "color_of",
]


def card_id(rank: int, suit: int) -> int:
    """The id of the card of ``rank`` (0 = A .. 12 = K) and ``suit`` (0 = C .. 3 = S)."""
    if not (0 <= rank < NUM_RANKS and 0 <= suit < 4):
        raise CardError(f"no card with rank index {rank!r} and suit index {suit!r}")
    return suit * NUM_RANKS + rank


def rank_of(card: int) -> int:
    return card % NUM_RANKS


def suit_of(card: int) -> int:
    return card // NUM_RANKS


def is_red(card: int) -> bool:
    return suit_of(card) in (1, 2)


def color_of(card: int) -> int:
    """0 for black (clubs, spades), 1 for red (diamonds, hearts)."""
    return 1 if suit_of(card) in (1, 2) else 0


def card_name(card: int) -> str:
    """``card_name(0) == 'AC'``; always the two-character form."""
    if not isinstance(card, int) or not 0 <= card < NUM_CARDS:
        raise CardError(f"no card with id {card!r} (expected 0..51)")
    return RANKS[rank_of(card)] + SUITS[suit_of(card)]


def parse_card(text: str) -> int:
    """Parse ``'QH'``, ``'10h'``, ``'q♥'`` into a card id; refuse anything else."""
    if not isinstance(text, str):
        raise CardError(f"a card must be text like 'QH', not {text!r}")
    s = text.strip()
    if len(s) < 2:
        raise CardError(f"unknown card {text!r} (expected rank {RANKS} then suit {SUITS}, e.g. 'QH')")
    suit_text = s[-1]
    rank_text = s[:-1].upper()
    suit_char = SUIT_SYMBOLS.get(suit_text, suit_text.upper())
    if rank_text == "10":
        rank_text = "T"
    if len(rank_text) != 1 or rank_text not in RANKS or suit_char not in SUITS:
        raise CardError(f"unknown card {text!r} (expected rank {RANKS} then suit {SUITS}, e.g. 'QH')")
    return card_id(RANKS.index(rank_text), SUITS.index(suit_char))
