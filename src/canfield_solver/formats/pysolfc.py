"""PySolFC game numbers and tables: the deal PySolFC puts on the table for game N, and a live PySolFC
table read as our position and back.

    ``table_deal(table)`` reads the table the PySolFC plugin sends (``canfield_solver.pysolfc``: every pile
    bottom to top, cards as PySolFC's ``[suit, rank]``) as a ``Deal`` under the game's PySolFC rules
    (``PYSOLFC_RULES``: title to preset); ``deal_table`` writes a ``Deal`` back as such a table.

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
from typing import Protocol

from ..engine.cards import SUITS, card_id, rank_of
from ..engine.deal import Deal
from ..engine.rules import Rules, get_rules
from ..errors import CanfieldError, DealError, install_hint

__all__ = ["PYSOLFC_RULES", "PySolFCGame", "card_from_pysolfc", "card_to_pysolfc", "deal_table", "parse_pysolfc_number",
           "pysolfc_deal", "pysolfc_game", "table_deal"]

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
_GAMES["pysolfc-rainbow"] = _GAMES["rainbow"]
_GAMES["pysolfc-storehouse"] = _GAMES["storehouse"]
_GAMES["pysolfc-chameleon"] = _GAMES["chameleon"]

# The rules each PySolFC game plays, by its title (PySolFC's own rules: checked against games/canfield.py).
PYSOLFC_RULES = {
    "Canfield": "pysolfc-canfield",
    "Superior Canfield": "superior-canfield",
    "Rainbow": "pysolfc-rainbow",
    "Storehouse": "pysolfc-storehouse",
    "Chameleon": "pysolfc-chameleon",
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


class _PysolCard(Protocol):
    """A card of pysol-cards (what ``_shuffled`` deals)."""

    rank: int

    def suit_s(self) -> str: ...


def _shuffled(number: int) -> "list[_PysolCard]":
    try:
        from pysol_cards.cards import createCards, ms_rearrange
        from pysol_cards.random import LCRandom31, MTRandom
    except ImportError:
        raise CanfieldError("PySolFC game numbers need the pysol-cards package: " + install_hint("pysolfc")) from None
    cards = createCards(1)
    if number < MS_LIMIT:
        return list(LCRandom31(number).shuffle(ms_rearrange(cards)))
    return list(MTRandom(number).shuffle(cards))


def _ours(card: _PysolCard) -> int:
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


# A PySolFC table as the plugin (``canfield_solver.pysolfc``) reads it from the live game: every pile's cards
# bottom to top, each card as ``[suit, rank]`` in PySolFC's numbering (suit indexes "CSHD", rank 0 is the ace).
PYSOLFC_SUITS = "CSHD"
_PILES = ("talon", "waste", "reserve", "rows", "foundations")


def card_from_pysolfc(card: object) -> int:
    """Our card id for PySolFC's ``[suit, rank]`` (suit indexes "CSHD", rank 0..12 with the ace 0)."""
    try:
        suit, rank = (int(x) for x in card)  # type: ignore[attr-defined]  # a TypeError when it is no pair
    except (TypeError, ValueError):
        raise DealError(f"a PySolFC card is [suit, rank], not {card!r}") from None
    if not (0 <= suit < 4 and 0 <= rank < 13):
        raise DealError(f"PySolFC card {card!r} is out of range (suit 0..3, rank 0..12)")
    return card_id(rank, SUITS.index(PYSOLFC_SUITS[suit]))


def card_to_pysolfc(card: int) -> list[int]:
    """PySolFC's ``[suit, rank]`` for our card id."""
    return [PYSOLFC_SUITS.index(SUITS[card // 13]), rank_of(card)]


def table_deal(table: object, rules: "str | Rules | None" = None) -> Deal:
    """Our position for a PySolFC table: a mapping with the game's ``title`` (it picks the rules unless
    ``rules`` is given; see ``PYSOLFC_RULES``), ``base_rank`` (the foundations' base, PySolFC's rank
    numbering), ``round`` (PySolFC's talon round, 1 before any redeal) and the piles ``talon``, ``waste``,
    ``reserve``, ``rows`` (a list of columns, left to right) and ``foundations`` (a list of piles), each
    bottom to top. Cards face down count as cards: the solver sees every card (SPEC §5)."""
    if not isinstance(table, dict):
        raise DealError("a PySolFC table is a JSON object with its piles")
    missing = [k for k in _PILES + ("base_rank",) if k not in table]
    if missing:
        raise DealError(f"the PySolFC table lacks {', '.join(missing)}")
    if rules is None:
        title = table.get("title")
        if title not in PYSOLFC_RULES:
            raise DealError(f"no solver for PySolFC's {title!r}; it solves {', '.join(PYSOLFC_RULES)}")
        rules = PYSOLFC_RULES[title]
    r = get_rules(rules)

    def pile(name: str, cards: object) -> tuple[int, ...]:
        if not isinstance(cards, list):
            raise DealError(f"the PySolFC table's {name} is not a list of cards")
        return tuple(card_from_pysolfc(c) for c in cards)

    rows = table["rows"]
    if not isinstance(rows, list) or len(rows) != r.columns:
        raise DealError(f"the PySolFC table has {len(rows) if isinstance(rows, list) else 'no'} rows; "
                        f"{r.name} has {r.columns}")
    founds = table["foundations"]
    if not isinstance(founds, list):
        raise DealError("the PySolFC table's foundations are not a list of piles")
    base = table["base_rank"]
    if not isinstance(base, int) or not 0 <= base < 13:
        raise DealError(f"the PySolFC table's base_rank {base!r} is not a rank 0..12")
    rnd = table.get("round", 1)
    if not isinstance(rnd, int) or rnd < 1:
        raise DealError(f"the PySolFC table's round {rnd!r} is not a whole number from 1")
    redeals = rnd - 1
    if r.redeals is not None:
        redeals = min(redeals, r.redeals)
    return Deal(
        r,
        pile("reserve", table["reserve"]),
        tuple(pile(f"row {i + 1}", c) for i, c in enumerate(rows)),
        pile("talon", table["talon"]),
        base,
        pile("waste", table["waste"]),
        tuple(p for p in (pile("foundation", f) for f in founds) if p),
        redeals,
        pysolfc_game=table.get("game_number") if isinstance(table.get("game_number"), int) else None,
    )


def deal_table(deal: Deal, title: "str | None" = None) -> dict[str, object]:
    """The PySolFC table of ``deal`` (the inverse of ``table_deal``). Foundations are listed one per suit in
    PySolFC's suit order, as Canfield lays them out (``ALIGN_FOUNDATIONS``)."""
    if title is None:
        by_rules = {v: k for k, v in PYSOLFC_RULES.items()}
        title = by_rules.get(deal.rules.name, deal.rules.name)
    founds: list[list[list[int]]] = [[] for _ in range(4)]
    for p in deal.foundations:
        if p:
            founds[card_to_pysolfc(p[0])[0]] = [card_to_pysolfc(c) for c in p]
    return {
        "title": title,
        "base_rank": deal.base_rank,
        "round": deal.redeals_used + 1,
        "talon": [card_to_pysolfc(c) for c in deal.stock],
        "waste": [card_to_pysolfc(c) for c in deal.waste],
        "reserve": [card_to_pysolfc(c) for c in deal.reserve],
        "rows": [[card_to_pysolfc(c) for c in col] for col in deal.tableau],
        "foundations": founds,
        **({"game_number": deal.pysolfc_game} if deal.pysolfc_game is not None else {}),
    }
