"""Where deals and games come from and go to, beside our own JSON: numbers, files, other programs.

- ``read_deal`` reads a deal file in either JSON this tool knows: SPEC deal
  JSON (``Deal.from_json``) or the published solver's (``solvitaire``).
- ``numbered_deal`` is the deal of a number in one of the two numberings:
  ``spec`` (SPEC §2 seeds, ``Deal.from_seed``) or ``pysolfc`` (PySolFC game
  numbers, ``pysolfc.pysolfc_deal``).
- ``movelog`` reads the moves files of ``check``, ``hint`` and ``show``.
- ``pysolfc`` also reads a live PySolFC table as a deal and writes one back (``table_deal``,
  ``deal_table``), for the PySolFC plugin (``canfield_solver.pysolfc``).
"""

from __future__ import annotations

from ..engine.deal import Deal, parse_deal_json, read_text
from ..engine.rules import Rules
from ..errors import CanfieldError
from .movelog import looks_like_steps, parse_moves, parse_steps, read_moves
from .pysolfc import parse_pysolfc_number, pysolfc_deal, pysolfc_game
from .solvitaire import from_solvitaire, to_solvitaire

__all__ = ["NUMBERINGS", "deal_from_data", "looks_like_steps", "numbered_deal", "parse_moves", "parse_pysolfc_number",
           "parse_steps", "pysolfc_deal", "pysolfc_game", "read_deal", "read_moves", "from_solvitaire",
           "to_solvitaire"]

NUMBERINGS = ("spec", "pysolfc")


def deal_from_data(data: object, rules: "str | Rules | None" = None) -> Deal:
    """A deal from parsed JSON: the published solver's (it has ``"tableau piles"``) or SPEC's."""
    if isinstance(data, dict) and "tableau piles" in data:
        return from_solvitaire(data, rules or "canfield")
    return Deal.from_dict(data, rules)


def read_deal(path: str, rules: "str | Rules | None" = None) -> Deal:
    """The deal in the file at ``path``, SPEC deal JSON or the published solver's; rules from the file's
    ``"rules"`` field (SPEC JSON) unless ``rules`` is given."""
    return deal_from_data(parse_deal_json(read_text(path)), rules)


def numbered_deal(numbering: str, number: "int | str", rules: "str | Rules") -> Deal:
    """The deal of ``number`` in ``numbering`` (``spec`` or ``pysolfc``) under ``rules``."""
    if numbering == "spec":
        return Deal.from_seed(number, rules)  # type: ignore[arg-type]
    if numbering == "pysolfc":
        return pysolfc_deal(number, rules)
    raise CanfieldError(f"numbering must be one of {', '.join(NUMBERINGS)}, not {numbering!r}")
