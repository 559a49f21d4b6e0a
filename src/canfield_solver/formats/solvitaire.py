"""The published C++ solver's (Solvitaire's) Canfield deal files.

``from_solvitaire`` / ``to_solvitaire`` read and write the published C++
solver's Canfield deal files: ``"tableau piles"`` (lists), and flat lists
``"foundations"``, ``"reserve"``, ``"stock"`` and optionally ``"waste"``,
every list bottom to top (the last stock card is dealt next, the last
reserve card is playable), tens written ``10``.
"""

from __future__ import annotations

import json

from ..engine.cards import card_name, parse_card, rank_of, suit_of
from ..engine.deal import Deal
from ..engine.rules import Rules, get_rules
from ..errors import CanfieldError, DealError

__all__ = ["from_solvitaire", "to_solvitaire"]


def _sv_name(card: int) -> str:
    name = card_name(card)
    return ("10" + name[1]) if name[0] == "T" else name


def _sv_card(text: object, where: str) -> int:
    if not isinstance(text, str):
        raise DealError(f"solvitaire deal: {where} holds {text!r}, not a card like '10H'")
    t = text.strip().upper()
    if t.startswith("10"):
        t = "T" + t[2:]
    try:
        return parse_card(t)
    except CanfieldError as e:
        raise DealError(f"solvitaire deal: {where}: {e}") from None


def from_solvitaire(data: "str | dict[str, object]", rules: "str | Rules" = "canfield") -> Deal:
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


def to_solvitaire(deal: Deal) -> dict[str, object]:
    """The published solver's deal JSON for ``deal`` (write it with ``json.dumps``)."""
    out: dict[str, object] = {
        "tableau piles": [[_sv_name(c) for c in col] for col in deal.tableau],
        "foundations": [_sv_name(c) for pile in deal.foundations for c in pile],
        "reserve": [_sv_name(c) for c in deal.reserve],
        "stock": [_sv_name(c) for c in deal.stock],
    }
    if deal.waste:
        out["waste"] = [_sv_name(c) for c in deal.waste]
    return out
