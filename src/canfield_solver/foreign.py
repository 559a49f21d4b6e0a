"""Deals from other programs: PySolFC game numbers and the published solver's deal files.

PySolFC
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

    The shuffle comes from ``pysol-cards`` (``pip install
    'canfield-solver[pysolfc]'``), the PySolFC project's own library for
    reproducing its deals. Checked against eight deals printed by PySolFC
    3.6.1 itself (tests/test_foreign.py).

Solvitaire
    ``from_solvitaire`` / ``to_solvitaire`` read and write the published C++
    solver's Canfield deal files: ``"tableau piles"`` (lists), and flat lists
    ``"foundations"``, ``"reserve"``, ``"stock"`` and optionally ``"waste"``,
    every list bottom to top (the last stock card is dealt next, the last
    reserve card is playable), tens written ``10``.
"""

from __future__ import annotations

import json
import re
from typing import Any

from .cards import SUITS, card_id, card_name, parse_card, rank_of, suit_of
from .deal import Deal
from .errors import CanfieldError, DealError
from .rules import Rules, get_rules

__all__ = ["PySolFCGame", "pysolfc_game", "pysolfc_deal", "parse_pysolfc_number", "from_solvitaire",
           "to_solvitaire"]

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
        raise CanfieldError("PySolFC game numbers need the pysol-cards package: "
                            "pip install 'canfield-solver[pysolfc]'") from None
    cards = createCards(1)
    if number < MS_LIMIT:
        return LCRandom31(number).shuffle(ms_rearrange(cards))
    return MTRandom(number).shuffle(cards)


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


# --- Solvitaire deal files ---------------------------------------------------------------


def _sv_name(card: int) -> str:
    name = card_name(card)
    return ("10" + name[1]) if name[0] == "T" else name


def _sv_card(text: Any, where: str) -> int:
    if not isinstance(text, str):
        raise DealError(f"solvitaire deal: {where} holds {text!r}, not a card like '10H'")
    t = text.strip().upper()
    if t.startswith("10"):
        t = "T" + t[2:]
    try:
        return parse_card(t)
    except CanfieldError as e:
        raise DealError(f"solvitaire deal: {where}: {e}") from None


def from_solvitaire(data: "str | dict", rules: "str | Rules" = "canfield") -> Deal:
    """A deal from the published solver's Canfield deal JSON (text or parsed); see the module docstring."""
    if isinstance(data, str):
        try:
            data = json.loads(data)
        except RecursionError:
            raise DealError("solvitaire deal JSON nests too deeply to be a deal") from None
        except json.JSONDecodeError as e:
            raise DealError(f"solvitaire deal is not valid JSON: {e.msg} at line {e.lineno}") from None
    if not isinstance(data, dict):
        raise DealError("a solvitaire deal is a JSON object with 'tableau piles', 'foundations', 'reserve', 'stock'")
    known = {"tableau piles", "foundations", "reserve", "stock", "waste"}
    unknown = sorted(set(data) - known)
    if unknown:
        raise DealError(f"solvitaire deal: unknown field {unknown[0]!r}; known: {', '.join(sorted(known))}")
    r = get_rules(rules)

    def flat(key: str, required: bool = True) -> tuple[int, ...]:
        if key not in data:
            if required:
                raise DealError(f"solvitaire deal: missing field {key!r}")
            return ()
        v = data[key]
        if not isinstance(v, list):
            raise DealError(f"solvitaire deal: {key!r} must be a list of cards like ['10H', 'AS']")
        return tuple(_sv_card(c, f"{key}[{i}]") for i, c in enumerate(v))

    piles = data.get("tableau piles")
    if not isinstance(piles, list) or not all(isinstance(p, list) for p in piles):
        raise DealError("solvitaire deal: 'tableau piles' must be a list of lists of cards")
    tableau = tuple(tuple(_sv_card(c, f"tableau piles[{i}][{j}]") for j, c in enumerate(p))
                    for i, p in enumerate(piles))
    found = flat("foundations")
    by_suit: dict[int, list[int]] = {}
    for c in found:
        by_suit.setdefault(suit_of(c), []).append(c)
    if r.has_base_card:
        if not found:
            raise DealError("solvitaire deal: 'foundations' is empty, so the base card is unknown")
        base_rank = rank_of(found[0])
    else:
        base_rank = int(r.base)
    return Deal(r, flat("reserve"), tableau, flat("stock"), base_rank, flat("waste", required=False),
                tuple(tuple(p) for p in by_suit.values()), 0)


def to_solvitaire(deal: Deal) -> dict[str, Any]:
    """The published solver's deal JSON for ``deal`` (write it with ``json.dumps``)."""
    out: dict[str, Any] = {
        "tableau piles": [[_sv_name(c) for c in col] for col in deal.tableau],
        "foundations": [_sv_name(c) for pile in deal.foundations for c in pile],
        "reserve": [_sv_name(c) for c in deal.reserve],
        "stock": [_sv_name(c) for c in deal.stock],
    }
    if deal.waste:
        out["waste"] = [_sv_name(c) for c in deal.waste]
    return out
