"""Rules as data (SPEC §6): one frozen dataclass, presets found by name.

Every member of the family is a set of parameters; the reference engine and
the Numba kernel read the same parameters, so a preset is never a copy of
the code.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from typing import Any, TypeGuard

from ..errors import RulesError
from .cards import rank_of, suit_of

__all__ = ["Rules", "PRESETS", "get_rules", "preset_names"]

BUILDS = ("alternate", "suit", "any")
TABLEAU_WRAPS = ("full", "relative-to-base", "none")
COLUMN_MOVES = ("top-and-whole", "whole", "runs", "whole-or-freeing")
GAP_FILLS = ("waste", "any")

# Limits of the packed search state (search/codec.py: the key's fields are sized for them).
MAX_COLUMNS = 6
MAX_STOCK = 40
MAX_RESERVE = 40
MAX_REDEALS = 14


@dataclass(frozen=True)
class Rules:
    """The parameters of one Canfield-family game.

    name
        The preset name, or a name of your choice for custom rules.
    ranks
        Ranks per suit (13 for a real deck; fewer make reduced decks A..n,
        used to check the solver against an exhaustive search).
    reserve_size
        Cards dealt to the reserve (only its top card is playable).
    columns
        Number of tableau columns, one card each at the deal.
    base
        ``"random"``: a card is dealt to start the first foundation and its
        rank is the base of all four. An int: every foundation starts at that
        rank index (0 = ace) and no base card is dealt.
    build
        How columns build down: ``"alternate"`` colours, same ``"suit"``, or
        ``"any"`` suit.
    tableau_wrap
        ``"full"``: any card goes on the next rank up, K on A included.
        ``"relative-to-base"``: ranks count from the base, so a base-1 card
        never goes on a base card. ``"none"``: no K on A.
    column_moves
        What may move between non-empty columns: ``"top-and-whole"`` (the top
        card alone or the whole column), ``"whole"`` (whole columns only; a
        lone top card goes only to a foundation), ``"runs"`` (any part of a
        column from some card to the top), ``"whole-or-freeing"`` (the whole
        column, or a part of it only when the card it uncovers can then go
        to its foundation; with ``gap_fill="any"`` any part may go into a gap).
    gap_fill
        Once the reserve is empty, what may fill a gap: ``"waste"`` (the waste
        top only) or ``"any"`` (the waste top, or cards from another column).
    gap_autofill
        Gaps are filled at once from the reserve while it has cards.
    draw
        Cards turned per draw.
    redeals
        Redeals allowed; ``None`` for unlimited.
    moves_while_gap_open
        ``False``: while a column is empty (after the reserve ran out), no
        card moves from column to column until the gap is filled.
    base_removed
        With an int ``base``: the four cards of that rank are taken out of
        the shuffled deck before the deal (the rest keep their order) and
        start the four foundations (Storehouse's 2s).
    """

    name: str = "canfield"
    ranks: int = 13
    reserve_size: int = 13
    columns: int = 4
    base: str | int = "random"
    build: str = "alternate"
    tableau_wrap: str = "full"
    column_moves: str = "top-and-whole"
    gap_fill: str = "waste"
    gap_autofill: bool = True
    draw: int = 3
    redeals: int | None = None
    moves_while_gap_open: bool = True
    base_removed: bool = False
    description: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        def bad(fieldname: str, allowed: str) -> RulesError:
            value = getattr(self, fieldname)
            return RulesError(f"rules field {fieldname!r} is {value!r}; allowed: {allowed}")

        def is_int(v: object) -> TypeGuard[int]:
            return isinstance(v, int) and not isinstance(v, bool)

        if not isinstance(self.name, str) or not self.name:
            raise bad("name", "a non-empty string")
        if not is_int(self.ranks) or not 3 <= self.ranks <= 13:
            raise bad("ranks", "an integer 3..13")
        if not is_int(self.columns) or not 1 <= self.columns <= MAX_COLUMNS:
            raise bad("columns", f"an integer 1..{MAX_COLUMNS}")
        if not is_int(self.reserve_size) or not 0 <= self.reserve_size <= MAX_RESERVE:
            raise bad("reserve_size", f"an integer 0..{MAX_RESERVE}")
        if self.base != "random" and not (is_int(self.base) and 0 <= self.base < self.ranks):
            raise bad("base", f"'random' or a rank index 0..{self.ranks - 1}")
        if self.build not in BUILDS:
            raise bad("build", ", ".join(BUILDS))
        if self.tableau_wrap not in TABLEAU_WRAPS:
            raise bad("tableau_wrap", ", ".join(TABLEAU_WRAPS))
        if self.column_moves not in COLUMN_MOVES:
            raise bad("column_moves", ", ".join(COLUMN_MOVES))
        if self.gap_fill not in GAP_FILLS:
            raise bad("gap_fill", ", ".join(GAP_FILLS))
        if not isinstance(self.gap_autofill, bool):
            raise bad("gap_autofill", "true or false")
        if not is_int(self.draw) or not 1 <= self.draw <= 5:
            raise bad("draw", "an integer 1..5")
        if self.redeals is not None and not (is_int(self.redeals) and 0 <= self.redeals <= MAX_REDEALS):
            raise bad("redeals", f"null (unlimited) or an integer 0..{MAX_REDEALS}")
        if not isinstance(self.moves_while_gap_open, bool):
            raise bad("moves_while_gap_open", "true or false")
        if not isinstance(self.base_removed, bool):
            raise bad("base_removed", "true or false")
        if self.base_removed and self.base == "random":
            raise RulesError("rules field 'base_removed' needs an int 'base' (the rank taken out to start the foundations)")
        if not 0 <= self.stock_size <= MAX_STOCK:
            dealt_out = 1 if self.has_base_card else 4 if self.base_removed else 0
            parts = (f"'ranks' {self.ranks} make {self.deck_size} cards; 'reserve_size' {self.reserve_size} and "
                     f"'columns' {self.columns}" + (f" and the {dealt_out} dealt to the foundations" if dealt_out else "")
                     + " take")
            raise RulesError(f"rules fields 'ranks', 'reserve_size' and 'columns' leave {self.stock_size} cards for "
                             f"the stock ({parts} {self.deck_size - self.stock_size}); allowed: 0..{MAX_STOCK}")

    # Derived sizes -------------------------------------------------------
    @property
    def deck_size(self) -> int:
        return 4 * self.ranks

    @property
    def has_base_card(self) -> bool:
        return self.base == "random"

    @property
    def stock_size(self) -> int:
        dealt_out = 1 if self.has_base_card else 4 if self.base_removed else 0
        return self.deck_size - self.reserve_size - self.columns - dealt_out

    @property
    def deck(self) -> list[int]:
        """Card ids of this deck, in id order (SPEC §2 step 1)."""
        return [s * 13 + r for s in range(4) for r in range(self.ranks)]

    # The building rule ----------------------------------------------------
    def fits_tableau(self, base_rank: int, card: int, host: int) -> bool:
        """Whether ``card`` may be built on ``host`` in a column (SPEC §3, §6), the base rank being ``base_rank``."""
        n = self.ranks
        r, h = rank_of(card), rank_of(host)
        if self.tableau_wrap == "full":
            ok_rank = (r + 1) % n == h
        elif self.tableau_wrap == "none":
            ok_rank = r + 1 == h
        else:  # relative-to-base
            ok_rank = (r - base_rank) % n + 1 == (h - base_rank) % n
        if not ok_rank:
            return False
        if self.build == "alternate":
            return (suit_of(card) in (1, 2)) != (suit_of(host) in (1, 2))
        if self.build == "suit":
            return suit_of(card) == suit_of(host)
        return True

    # Serialisation -------------------------------------------------------
    def to_dict(self) -> dict[str, object]:
        d = dataclasses.asdict(self)
        d.pop("description", None)
        return d

    @classmethod
    def from_dict(cls, data: object) -> "Rules":
        if not isinstance(data, dict):
            raise RulesError("a rules file must hold a JSON object of Rules parameters")
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise RulesError(
                f"unknown rules field {unknown[0]!r}; known fields: {', '.join(sorted(known - {'description'}))}"
            )
        return cls(**data)

    @classmethod
    def from_json_file(cls, path: str) -> "Rules":
        try:
            with open(path, encoding="utf-8") as fh:
                data = json.load(fh)
        except OSError as e:
            raise RulesError(f"cannot read rules file {path!r}: {e.strerror}") from None
        except UnicodeDecodeError:
            raise RulesError(f"rules file {path!r} is not UTF-8 text") from None
        except json.JSONDecodeError as e:
            raise RulesError(f"rules file {path!r} is not valid JSON: {e.msg} at line {e.lineno}") from None
        except RecursionError:
            raise RulesError(f"rules file {path!r} nests too deeply to be a rules file") from None
        return cls.from_dict(data)

    def replace(self, **changes: Any) -> "Rules":
        return dataclasses.replace(self, **changes)


PRESETS: dict[str, Rules] = {
    r.name: r
    for r in (
        Rules(
            name="canfield",
            description="strict profile (SPEC §3): top card or whole column moves; gaps from the reserve, then the waste",
        ),
        Rules(
            name="canfield-whole-pile",
            column_moves="whole",
            description="Hoyle: only whole columns move between columns; a lone top card moves only to a foundation",
        ),
        Rules(
            name="canfield-sequences",
            column_moves="runs",
            gap_fill="any",
            description="Politaire's Canfield: any built run moves; once the reserve is empty a gap takes "
                        "the waste top or any part of another column",
        ),
        Rules(
            name="pysolfc-canfield",
            gap_fill="any",
            description="PySolFC's Canfield: as canfield, but once the reserve is empty a gap takes the waste "
                        "top or a column's top card",
        ),
        Rules(
            name="canfield-draw1",
            draw=1,
            description="strict profile with the stock dealt one card at a time",
        ),
        Rules(
            name="superior-canfield",
            gap_autofill=False,
            gap_fill="any",
            description="reserve face up; gaps are not filled automatically and take any available card "
                        "(reserve top, waste top, or a column's top card)",
        ),
        Rules(
            name="rainbow",
            build="any",
            draw=1,
            redeals=0,
            description="build down regardless of suit, stock one card at a time, no redeal",
        ),
        Rules(
            name="storehouse",
            base=1,
            base_removed=True,
            build="suit",
            draw=1,
            redeals=2,
            description="the four 2s start the foundations (2..K, A); columns build down in suit with wrap; "
                        "draw 1, 2 redeals",
        ),
        Rules(
            name="chameleon",
            reserve_size=12,
            columns=3,
            build="any",
            draw=1,
            redeals=0,
            description="12-card reserve, 3 columns, build down regardless of suit, draw 1, no redeal",
        ),
        Rules(
            name="solvitaire-canfield-strict",
            column_moves="whole",
            tableau_wrap="relative-to-base",
            moves_while_gap_open=False,
            description="the published solver's canfield-strict: whole columns only, ranks wrap relative to "
                        "the base, no column moves while a gap is open",
        ),
        Rules(
            name="solvitaire-canfield",
            column_moves="whole-or-freeing",
            gap_fill="any",
            tableau_wrap="relative-to-base",
            description="the published solver's canfield: ranks wrap relative to the base; whole columns move, "
                        "a part only when the card it uncovers can go to its foundation; once the reserve is "
                        "empty a gap takes the waste top or any part of a column",
        ),
        Rules(
            name="storehouse-aces",
            base=0,
            build="suit",
            tableau_wrap="none",
            draw=1,
            redeals=2,
            description="'Необычный склад': foundations from aces without wrap, columns down in suit, draw 1, 2 redeals",
        ),
        Rules(
            name="storehouse-aces-strict",
            base=0,
            build="suit",
            tableau_wrap="none",
            draw=1,
            redeals=0,
            description="'Необычный склад', strict mode: as storehouse-aces with no redeal",
        ),
    )
}

# PySolFC's games of the family where its rules differ from our preset of the same game (games/canfield.py,
# 3.6.1): an emptied row is filled from the reserve inside every move, and once the reserve is empty a row
# stack of base rank ANY takes any card another pile may give (the waste top, a column's top card or whole).
for _game in ("rainbow", "storehouse", "chameleon"):
    PRESETS[f"pysolfc-{_game}"] = PRESETS[_game].replace(
        name=f"pysolfc-{_game}", gap_fill="any",
        description=f"PySolFC's {_game.capitalize()}: as {_game}, but once the reserve is empty a gap takes the "
                    "waste top or a column's top card")

ALIASES = {
    "strict": "canfield",
    "hoyle": "canfield-whole-pile",
    "whole-pile": "canfield-whole-pile",
    "sequences": "canfield-sequences",
    "politaire": "canfield-sequences",
    "draw1": "canfield-draw1",
    "superior": "superior-canfield",
    "pysolfc": "pysolfc-canfield",
}


def preset_names() -> list[str]:
    return list(PRESETS)


def get_rules(rules: "str | Rules") -> Rules:
    """A preset by name (case-insensitive; aliases allowed), or ``rules`` itself."""
    if isinstance(rules, Rules):
        return rules
    if not isinstance(rules, str):
        raise RulesError(f"rules must be a preset name or a Rules object, not {rules!r}")
    key = rules.strip().lower().replace("_", "-")
    key = ALIASES.get(key, key)
    if key not in PRESETS:
        hint = (f"; did you mean --rules-file {rules.strip()} (a rules file)?" if key.endswith(".json")
                else f"; known presets: {', '.join(PRESETS)}")
        raise RulesError(f"unknown rules {rules!r}{hint}")
    return PRESETS[key]
