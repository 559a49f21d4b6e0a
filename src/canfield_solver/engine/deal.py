"""Deals (SPEC §2): from a seed, from and to JSON, with validation.

A ``Deal`` is a whole layout: a fresh deal, or a mid-game position (with a
waste and foundation piles). Piles are tuples of card ids, bottom to top.
``check_seed`` checks a deal number and ``as_deal`` reads what the public
functions take for a deal (a ``Deal`` or a seed number).
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Iterator

from ..errors import CanfieldError, DealError
from . import display
from .cards import RANKS, SUITS, card_name, parse_card, rank_of, suit_of
from .rules import PRESETS, Rules, get_rules

__all__ = ["Deal", "splitmix64", "shuffled_deck", "read_text", "parse_deal_json", "MAX_FILE_CHARS"]

_MASK64 = (1 << 64) - 1
Cards = tuple[int, ...]  # a pile of card ids, bottom first


MAX_FILE_CHARS = 1 << 20  # a deal, moves or rules file is a few KiB; refuse anything past 1 MiB


def parse_deal_json(text: str) -> object:
    """The JSON value of a deal's text; malformed JSON is one ``DealError``."""
    try:
        return json.loads(text)
    except RecursionError:
        raise DealError("deal JSON nests too deeply to be a deal") from None
    except json.JSONDecodeError as e:
        raise DealError(f"deal is not valid JSON: {e.msg} at line {e.lineno} column {e.colno}") from None


def read_text(path: str, kind: str = "deal", holds: str = "a deal", error: type = DealError,
              dash_is_stdin: bool = False) -> str:
    """The text of a small input file (``-`` for standard input if ``dash_is_stdin``), at most
    ``MAX_FILE_CHARS`` characters.

    Every failure is one ``error`` that names the file: "cannot read {kind} file ...", "{kind} file ... is
    not UTF-8 text", "... is too large to be {holds}".
    """
    import sys

    try:
        if dash_is_stdin and path == "-":
            text = sys.stdin.read(MAX_FILE_CHARS + 1)
        else:
            with open(path, encoding="utf-8") as fh:
                text = fh.read(MAX_FILE_CHARS + 1)
    except OSError as e:
        raise error(f"cannot read {kind} file {path!r}: {e.strerror}") from None
    except UnicodeDecodeError:
        raise error(f"{kind} file {path!r} is not UTF-8 text") from None
    if len(text) > MAX_FILE_CHARS:
        raise error(f"{kind} file {path!r} is too large to be {holds} (over {MAX_FILE_CHARS:,} characters)")
    return text


def splitmix64(seed: int) -> Iterator[int]:
    """SplitMix64 outputs for ``seed`` (SPEC §2 step 2)."""
    state = seed & _MASK64
    while True:
        state = (state + 0x9E3779B97F4A7C15) & _MASK64
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
        yield z ^ (z >> 31)


def check_seed(seed: object) -> int:
    """``seed`` if it is a deal number (an int in 0 <= seed < 2**64: SPEC §2's SplitMix64 state), else
    ``DealError`` naming the problem; every game's deals and every surface check seeds here."""
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise DealError(f"seed must be an integer, not {seed!r}")
    if not 0 <= seed < 2**64:
        raise DealError(f"seed {seed} is out of range (0 <= seed < 2**64)")
    return seed


def shuffled_deck(seed: int, rules: Rules) -> list[int]:
    """The deck after the Fisher–Yates shuffle of SPEC §2 step 3."""
    deck = rules.deck
    rng = splitmix64(check_seed(seed))
    for i in range(len(deck) - 1, 0, -1):
        j = next(rng) % (i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def _names(cards: tuple[int, ...] | list[int]) -> list[str]:
    return [card_name(c) for c in cards]


@dataclass(frozen=True)
class Deal:
    """A layout to play or solve. Build it with ``from_seed`` or ``from_json``."""

    rules: Rules
    reserve: tuple[int, ...]
    tableau: tuple[tuple[int, ...], ...]
    stock: tuple[int, ...]
    base_rank: int
    waste: tuple[int, ...] = ()
    foundations: tuple[tuple[int, ...], ...] = ()
    redeals_used: int = 0
    seed: int | None = field(default=None, compare=False)
    pysolfc_game: int | None = field(default=None, compare=False)  # set by formats.pysolfc_deal

    def __post_init__(self) -> None:
        _validate(self)
        # One order for the foundation piles (by suit) so equal positions compare equal.
        object.__setattr__(self, "foundations", tuple(sorted(self.foundations, key=lambda p: suit_of(p[0]))))

    def __repr__(self) -> str:
        """A seeded deal of a preset as the call that makes it again (``eval(repr(d)) == d``); any other by
        its rules and its cards counted."""
        if self.seed is not None and PRESETS.get(self.rules.name) == self.rules:
            return f"Deal.from_seed({self.seed}, {self.rules.name!r})"
        return f"<Deal {self.describe()}>"

    def _repr_html_(self) -> str | None:
        """In a notebook: the layout drawn as the replay page draws it (``display``)."""
        return display.html(self)

    def describe(self) -> str:
        """The deal in a few words: its rules, where it came from, its cards counted by pile."""
        where = f"PySolFC game {self.pysolfc_game}, " if self.pysolfc_game is not None else \
            f"seed {self.seed}, " if self.seed is not None else ""
        home = sum(len(p) for p in self.foundations)
        return (f"{self.rules.name!r}: {where}reserve {len(self.reserve)}, {len(self.tableau)} columns of "
                f"{sum(map(len, self.tableau))}, stock {len(self.stock)}, waste {len(self.waste)}, {home} home")

    # Construction --------------------------------------------------------
    @classmethod
    def from_seed(cls, seed: int, rules: "str | Rules" = "canfield") -> "Deal":
        """The deal of ``seed`` (SPEC §2): reserve, base card, columns, stock."""
        r = get_rules(rules)
        deck = shuffled_deck(seed, r)
        foundations: tuple[tuple[int, ...], ...] = ()
        if r.base_removed:  # the base-rank cards start the foundations; the rest keep their order
            foundations = tuple((c,) for c in deck if rank_of(c) == r.base)
            deck = [c for c in deck if rank_of(c) != r.base]
        k = r.reserve_size
        reserve = tuple(deck[:k])
        if r.has_base_card:
            foundations = ((deck[k],),)
            base_rank = rank_of(deck[k])
            k += 1
        else:
            base_rank = int(r.base)
        tableau = tuple((deck[k + i],) for i in range(r.columns))
        k += r.columns
        stock = tuple(reversed(deck[k:]))  # deck[k] is the top, drawn first
        return cls(r, reserve, tableau, stock, base_rank, (), foundations, 0, seed)

    @classmethod
    def from_dict(cls, data: object, rules: "str | Rules | None" = None) -> "Deal":
        if not isinstance(data, dict):
            raise DealError("a deal must be a JSON object with 'reserve', 'tableau' and 'stock'")
        if "tableau piles" in data:  # the published solver's deal format: formats.read_deal takes either
            raise DealError("this is the published solver's deal format ('tableau piles'): read it with "
                            "canfield_solver.formats.from_solvitaire or formats.read_deal")
        unknown = sorted(set(data) - _DEAL_FIELDS)
        if unknown:
            raise DealError(f"unknown deal field {unknown[0]!r}; known fields: {', '.join(sorted(_DEAL_FIELDS))}")
        if rules is None:
            rules = data.get("rules", "canfield")
        r = get_rules(rules)
        reserve = _pile("reserve", data.get("reserve", []))
        stock = _pile("stock", data.get("stock", []))
        waste = _pile("waste", data.get("waste", []))
        tab = data.get("tableau")
        if not isinstance(tab, list):
            raise DealError("deal field 'tableau' must be a list of columns, each a list of cards")
        tableau = tuple(_pile(f"tableau column {i + 1}", col) for i, col in enumerate(tab))
        foundations, base_rank = _foundations(data, r)
        seed = data.get("seed")
        if seed is not None:
            seed = check_seed(seed)
        redeals_used = data.get("redeals_used", 0)
        if isinstance(redeals_used, bool) or not isinstance(redeals_used, int) or redeals_used < 0:
            raise DealError(f"'redeals_used' must be a non-negative integer, not {redeals_used!r}")
        if _declared_fresh(data, r, foundations):
            _check_cards(r, reserve, stock, waste, tableau, tuple(foundations))
            _check_fresh_sizes(r, reserve, tableau, stock)
            if seed is not None:  # a 'seed' that is not these cards' seed does not name the deal
                ref = cls.from_seed(seed, r)
                if (ref.reserve, ref.tableau, ref.stock, ref.base_rank) != (reserve, tableau, stock, base_rank):
                    seed = None
        game = data.get("pysolfc_game")
        if game is not None and (isinstance(game, bool) or not isinstance(game, int) or game < 1):
            raise DealError(f"'pysolfc_game' must be a positive integer, not {game!r}")
        return cls(r, reserve, tableau, stock, base_rank, waste, tuple(foundations), redeals_used, seed, game)

    @classmethod
    def from_json(cls, text: str, rules: "str | Rules | None" = None) -> "Deal":
        return cls.from_dict(parse_deal_json(text), rules)

    @classmethod
    def from_file(cls, path: str, rules: "str | Rules | None" = None) -> "Deal":
        """A deal from a SPEC deal JSON file (``formats.read_deal`` also reads the published solver's)."""
        return cls.from_json(read_text(path), rules)

    # Output --------------------------------------------------------------
    @property
    def is_fresh(self) -> bool:
        """True for a deal as dealt (no waste, no card played yet)."""
        r = self.rules
        if r.base_removed:
            base_only = len(self.foundations) == 4 and all(len(p) == 1 for p in self.foundations)
        elif r.has_base_card:
            base_only = len(self.foundations) == 1 and len(self.foundations[0]) == 1
        else:
            base_only = not self.foundations
        return base_only and not self.waste and self.redeals_used == 0 and all(len(c) == 1 for c in self.tableau) \
            and len(self.reserve) == self.rules.reserve_size

    def to_dict(self) -> dict[str, object]:
        d: dict[str, object] = {}
        if self.seed is not None:
            d["seed"] = self.seed
        if self.pysolfc_game is not None:
            d["pysolfc_game"] = self.pysolfc_game
        d["rules"] = self.rules.name
        d["reserve"] = _names(self.reserve)
        fresh = self.is_fresh
        if fresh and self.rules.has_base_card:
            d["foundation"] = card_name(self.foundations[0][0])
        elif not fresh or self.rules.base_removed:
            d["foundations"] = [_names(p) for p in self.foundations]  # already in suit order
        d["tableau"] = [_names(c) for c in self.tableau]
        d["stock"] = _names(self.stock)
        if not fresh:
            d["waste"] = _names(self.waste)
        if self.redeals_used:
            d["redeals_used"] = self.redeals_used
        return d

    def to_json(self, indent: int | None = None) -> str:
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)

    def foundation_counts(self) -> list[int]:
        """Cards on each suit's foundation, indexed by suit (C, D, H, S)."""
        counts = [0, 0, 0, 0]
        for p in self.foundations:
            counts[suit_of(p[0])] = len(p)
        return counts


def _check_cards(r: Rules, reserve: Cards, stock: Cards, waste: Cards, tableau: tuple[Cards, ...],
                 foundations: tuple[Cards, ...]) -> None:
    """Each card of the deck exactly once, and no card from outside it."""
    n = r.ranks
    piles: list[tuple[str, tuple[int, ...]]] = [("reserve", reserve), ("stock", stock), ("waste", waste)]
    piles += [(f"tableau column {i + 1}", c) for i, c in enumerate(tableau)]
    piles += [(f"foundation {card_name(p[0])[1]}", p) for p in foundations if p]
    deck = set(r.deck)
    seen: Counter[int] = Counter()
    for where, pile in piles:
        for c in pile:
            if c not in deck:
                raise DealError(f"{card_name(c)} in the {where} is not in this deck ({n} ranks per suit)")
            seen[c] += 1
    dup = sorted(c for c, k in seen.items() if k > 1)
    if dup:
        raise DealError(f"duplicate card {card_name(dup[0])}: it appears {seen[dup[0]]} times")
    missing = sorted(deck - set(seen))
    if missing:
        more = f" and {len(missing) - 1} more" if len(missing) > 1 else ""
        raise DealError(f"missing card {card_name(missing[0])}{more}: a deal holds each of the {len(deck)} cards once")


def _check_fresh_sizes(r: Rules, reserve: Cards, tableau: tuple[Cards, ...], stock: Cards) -> None:
    """A deal as dealt: every pile has the size the rules deal."""
    if len(tableau) != r.columns:
        raise DealError(f"the deal has {len(tableau)} tableau columns; rules {r.name!r} have {r.columns}")
    if len(reserve) != r.reserve_size:
        raise DealError(f"the reserve holds {len(reserve)} cards; rules {r.name!r} deal {r.reserve_size}")
    for i, col in enumerate(tableau):
        if len(col) != 1:
            raise DealError(f"tableau column {i + 1} holds {len(col)} cards; a fresh deal has 1 per column")
    if len(stock) != r.stock_size:
        raise DealError(f"the stock holds {len(stock)} cards; rules {r.name!r} deal {r.stock_size}")


def _validate(d: Deal) -> None:
    r = d.rules
    n = r.ranks
    if len(d.tableau) != r.columns:
        raise DealError(f"the deal has {len(d.tableau)} tableau columns; rules {r.name!r} have {r.columns}")
    if not 0 <= d.base_rank < n:
        raise DealError(f"base rank index {d.base_rank} is outside this deck's {n} ranks")
    if not r.has_base_card and d.base_rank != r.base:
        raise DealError(f"rules {r.name!r} start every foundation at {RANKS[int(r.base)]}")
    _check_cards(r, d.reserve, d.stock, d.waste, d.tableau, d.foundations)
    # Foundations: one suit each, from the base up, wrapping K→A.
    suits_seen: set[int] = set()
    for p in d.foundations:
        s = suit_of(p[0])
        if s in suits_seen:
            raise DealError(f"two foundation piles of suit {SUITS[s]}")
        suits_seen.add(s)
        if len(p) > n:
            raise DealError(f"foundation {SUITS[s]} holds {len(p)} cards; at most {n}")
        for i, c in enumerate(p):
            if suit_of(c) != s or rank_of(c) != (d.base_rank + i) % n:
                raise DealError(
                    f"foundation {SUITS[s]} must build up in suit from the base rank; "
                    f"{card_name(c)} is out of place"
                )
    if d.redeals_used < 0 or (r.redeals is not None and d.redeals_used > r.redeals):
        raise DealError(f"redeals_used is {d.redeals_used}; rules {r.name!r} allow {r.redeals}")
    if len(d.reserve) > r.reserve_size:
        raise DealError(f"the reserve holds {len(d.reserve)} cards; rules {r.name!r} deal only {r.reserve_size}")
    for i, col in enumerate(d.tableau):
        if not col and d.reserve and r.gap_autofill:
            raise DealError(f"tableau column {i + 1} is empty while the reserve has cards (gaps fill at once)")
        for j in range(1, len(col)):
            if not r.fits_tableau(d.base_rank, col[j], col[j - 1]):
                raise DealError(
                    f"tableau column {i + 1}: {card_name(col[j])} does not fit on {card_name(col[j - 1])}"
                )
    if r.has_base_card and not d.foundations:
        raise DealError("the deal has no base card on a foundation")
    if r.base_removed and len(d.foundations) != 4:
        raise _base_cards_missing(r)


def _base_cards_missing(r: Rules) -> DealError:
    """The error for a deal of ``base_removed`` rules without its four base cards on the foundations."""
    rank = RANKS[int(r.base)]
    return DealError(f"rules {r.name!r} start all four foundations with the {rank}s: give 'foundations', "
                     f"e.g. [[\"{rank}C\"], [\"{rank}D\"], [\"{rank}H\"], [\"{rank}S\"]]")


def as_deal(value: object, what: str = "deal") -> Deal:
    """What the public functions take for a deal: a ``Deal``, or a seed number (its strict-profile deal, as
    ``solve(2)`` reads it); anything else is a ``DealError`` that names ``what`` it was given for."""
    if isinstance(value, Deal):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return Deal.from_seed(value)
    raise DealError(f"{what} must be a Deal or a seed number, not {type(value).__name__}")


_DEAL_FIELDS = {"reserve", "foundation", "foundations", "tableau", "stock", "waste", "rules", "seed", "redeals_used",
                "pysolfc_game"}


def _pile(key: str, value: object) -> tuple[int, ...]:
    """A deal field's list of cards, parsed; a ``DealError`` naming the field otherwise."""
    if not isinstance(value, list):
        raise DealError(f"deal field {key!r} must be a list of cards like ['QH', '5C']")
    try:
        return tuple(parse_card(c) for c in value)
    except CanfieldError as e:
        raise DealError(f"{key}: {e}") from None


def _foundations(data: dict[str, object], r: Rules) -> tuple[list[tuple[int, ...]], int]:
    """The deal's foundation piles (its 'foundation' card, or its 'foundations' piles less the empty ones) and
    the base rank they give (the rules' own where the deal has no base card)."""
    foundations: list[tuple[int, ...]] = []
    if r.base_removed and "foundations" not in data:
        raise _base_cards_missing(r)
    if "foundation" in data and "foundations" in data:
        raise DealError("give either 'foundation' (the base card) or 'foundations' (the piles), not both")
    if "foundation" in data:
        if not isinstance(data["foundation"], str):
            raise DealError("deal field 'foundation' must be one card, like '8C'")
        try:
            foundations = [(parse_card(data["foundation"]),)]
        except CanfieldError as e:
            raise DealError(f"foundation: {e}") from None
    elif "foundations" in data:
        fs = data["foundations"]
        if not isinstance(fs, list):
            raise DealError("deal field 'foundations' must be a list of piles, each a list of cards")
        foundations = [p for p in (_pile(f"foundation pile {i + 1}", p) for i, p in enumerate(fs)) if p]
    if foundations:
        return foundations, rank_of(foundations[0][0])
    if r.has_base_card:
        raise DealError("the deal has no base card: give 'foundation', e.g. \"foundation\": \"8C\"")
    return foundations, int(r.base)


def _declared_fresh(data: dict[str, object], r: Rules, foundations: list[tuple[int, ...]]) -> bool:
    """Whether the deal's fields describe a deal as dealt (no waste, no redeal used, only base cards home):
    such a deal's cards and pile sizes are checked as a new deal's."""
    if "waste" in data or "redeals_used" in data:
        return False
    if r.base_removed:
        return all(len(p) == 1 for p in foundations)
    return "foundation" in data or (not r.has_base_card and "foundations" not in data)
