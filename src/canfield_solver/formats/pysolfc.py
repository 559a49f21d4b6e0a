"""PySolFC game numbers: the deal PySolFC puts on the table for game N.

    ``pysolfc_deal(number, rules)`` is the deal PySolFC puts on the table for
    game ``number`` of the Canfield-family game that plays ``rules``. It
    follows PySolFC's own code (pysollib, read for this module):

    - ``pysolrandom.construct_random``: a game number 0 <= n < 32000 uses
      ``LCRandom31`` (the Microsoft FreeCell generator), any larger number
      the Mersenne Twister ``MTRandom`` (game 0 cannot be dealt: LCRandom31
      refuses seed 0).
    - ``Game.shuffle``: the cards in creation order (suits clubs, spades,
      hearts, diamonds, each ace to king), put in Microsoft order by
      ``ms_rearrange`` for ``LCRandom31`` only, shuffled, passed through the
      game's ``_shuffleHook``, and stacked on the talon: the last card is the
      top, dealt first.
    - ``games/canfield.py``, ``Canfield.startGame``: the talon top becomes
      the base card (its rank is the base of every foundation); then 13
      cards one at a time to the reserve (the last one is the face-up top);
      then one card to each row, right to left (``dealRow(reverse=1)``); then
      ``dealCards()`` turns the first ``num_deal`` cards (3 in Canfield) from
      the talon to the waste. A PySolFC deal therefore starts with cards in
      the waste: in SPEC terms, a mid-game position. Storehouse first moves
      the four 2s to the top of the talon (``_shuffleHookMoveToTop``) and
      deals them to the foundations; Chameleon has 12 reserve cards and 3
      rows; Rainbow, Storehouse and Chameleon turn one card at a time.

    The shuffle comes from ``pysol-cards`` (the ``pysolfc`` extra:
    ``pip install '.[pysolfc]'``), the PySolFC project's own library for
    reproducing its deals. Checked against eight deals printed by PySolFC
    3.6.1 itself (tests/test_foreign.py).
"""

from __future__ import annotations

import re
from typing import Any

from ..engine.cards import SUITS, card_id, rank_of
from ..engine.deal import Deal
from ..engine.rules import Rules, get_rules
from ..errors import CanfieldError, DealError, install_hint

__all__ = ["PySolFCGame", "pysolfc_game", "pysolfc_deal", "parse_pysolfc_number"]

MS_LIMIT = 32000          # construct_random: 0 <= n < 32000 -> LCRandom31
MT_MAX = 10**20           # MTRandom.MAX_SEED (20 digits)


class PySolFCGame:
    """How PySolFC deals one Canfield-family game."""

    def __init__(self, title: str, reserve: int, rows: int, num_deal: int, twos_to_foundations: bool = False):
        self.title = title
        self.reserve = reserve
        self.rows = rows
        self.num_deal = num_deal
        self.twos_to_foundations = twos_to_foundations


CANFIELD = PySolFCGame("Canfield", 13, 4, 3)
_GAMES = {
    # Our presets whose deal is PySolFC's Canfield deal (13 reserve cards, 4 rows, a random base, draw 3).
    "canfield": CANFIELD,
    "pysolfc-canfield": CANFIELD,
    "canfield-whole-pile": CANFIELD,
    "canfield-sequences": CANFIELD,
    "solvitaire-canfield-strict": CANFIELD,
    "solvitaire-canfield": CANFIELD,
    "superior-canfield": PySolFCGame("Superior Canfield", 13, 4, 3),
    "rainbow": PySolFCGame("Rainbow", 13, 4, 1),
    "storehouse": PySolFCGame("Storehouse", 13, 4, 1, twos_to_foundations=True),
    "chameleon": PySolFCGame("Chameleon", 12, 3, 1),
}


def pysolfc_game(rules: "str | Rules") -> PySolFCGame:
    """The PySolFC game whose deal ``rules`` plays, or ``DealError`` saying PySolFC has none."""
    r = get_rules(rules)
    game = _GAMES.get(r.name)
    if game is None or r.ranks != 13 or r.reserve_size != game.reserve or r.columns != game.rows \
            or r.draw != game.num_deal:
        known = ", ".join(sorted(_GAMES))
        raise DealError(f"PySolFC has no game that deals like rules {r.name!r}; PySolFC numbers deal with: {known}")
    return game


def parse_pysolfc_number(text: "str | int") -> int:
    """A PySolFC game number as players write it: ``123456``, ``#123456``, ``#00000000000000040000``,
    or ``ms123`` (the same deal as 123; the ``ms`` form is accepted below 32000 only)."""
    if isinstance(text, bool):
        raise DealError("a PySolFC game number is a whole number like 123456")
    s = re.sub(r"[\s#_,.]", "", str(text).lower())
    ms = s.startswith("ms")
    if ms:
        s = s[2:]
    if not s.isdigit():
        raise DealError(f"PySolFC game number {text!r} is not a number like 123456")
    n = int(s)
    if ms and not 1 <= n < MS_LIMIT:
        raise DealError(f"PySolFC game number {text!r}: ms numbers from ms{MS_LIMIT} up are not supported")
    if not 1 <= n < MT_MAX:
        raise DealError(f"PySolFC game number {n} is out of range 1..{MT_MAX - 1}")
    return n


def _shuffled(number: int) -> list[Any]:
    try:
        from pysol_cards.cards import createCards, ms_rearrange
        from pysol_cards.random import LCRandom31, MTRandom
    except ImportError:
        raise CanfieldError("PySolFC game numbers need the pysol-cards package: " + install_hint("pysolfc")) from None
    cards = createCards(1)
    if number < MS_LIMIT:
        return list(LCRandom31(number).shuffle(ms_rearrange(cards)))
    return list(MTRandom(number).shuffle(cards))


def _ours(card: Any) -> int:
    """A pysol-cards card (rank 1..13, suit index into 'CSHD') as our card id."""
    return card_id(card.rank - 1, SUITS.index(card.suit_s()))


def pysolfc_deal(number: "int | str", rules: "str | Rules" = "pysolfc-canfield") -> Deal:
    """The deal PySolFC shows for game ``number`` of the game that plays ``rules`` (see the module docstring)."""
    r = get_rules(rules)
    game = pysolfc_game(r)
    n = parse_pysolfc_number(number)
    talon = _shuffled(n)
    if game.twos_to_foundations:
        # _shuffleHookMoveToTop: the 2s go to the top, the other cards keep their order.
        talon = [c for c in talon if c.rank != 2] + [c for c in talon if c.rank == 2]
    cards = [_ours(c) for c in talon]
    foundations: list[tuple[int, ...]] = []
    if game.twos_to_foundations:
        for _ in range(4):
            foundations.append((cards.pop(),))
        base_rank = 1
    else:
        base = cards.pop()
        foundations.append((base,))
        base_rank = rank_of(base)
    reserve = tuple(cards.pop() for _ in range(game.reserve))
    rows: list[tuple[int, ...]] = [()] * game.rows
    for i in reversed(range(game.rows)):
        rows[i] = (cards.pop(),)
    waste = tuple(cards.pop() for _ in range(game.num_deal))
    stock = tuple(cards)  # bottom..top; the last card is dealt next
    return Deal(r, reserve, tuple(rows), stock, base_rank, waste, tuple(foundations), 0, pysolfc_game=n)
