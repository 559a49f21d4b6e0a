"""Moves (SPEC §4): one move is one string.

| text        | meaning                                                    |
| ----------- | ---------------------------------------------------------- |
| ``draw``    | turn up to ``draw`` cards from the stock onto the waste     |
| ``redeal``  | the stock is empty: turn the waste over into the stock      |
| ``W>F``     | waste top to its foundation (also ``R>F``, ``T3>F``)        |
| ``W>T2``    | waste top onto column 2 (also ``R>T2``, ``T1>T2``)          |
| ``T1*>T2``  | the whole of column 1 onto column 2                         |
| ``T1:3>T2`` | the top 3 cards of column 1 onto column 2 (``runs`` rules)  |

Columns are numbered from 1 in deal order and keep their numbers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import MoveError

__all__ = ["Move", "parse_move"]

_MOVE_RE = re.compile(r"^(?:(W|R)|T(\d+)(\*|:(\d+))?)>(?:(F)|T(\d+))$")


@dataclass(frozen=True)
class Move:
    """A parsed move. ``src`` is one of ``draw redeal W R T``; ``dst`` is ``F`` or ``T``.

    For a tableau source, ``count`` is the number of cards moved from the top:
    1 for the top card, ``None`` for the whole column.
    """

    src: str
    src_col: int = 0
    dst: str = ""
    dst_col: int = 0
    count: int | None = 1

    def __str__(self) -> str:
        if self.src in ("draw", "redeal"):
            return self.src
        if self.src == "T":
            if self.count is None:
                s = f"T{self.src_col}*"
            elif self.count == 1:
                s = f"T{self.src_col}"
            else:
                s = f"T{self.src_col}:{self.count}"
        else:
            s = self.src
        d = "F" if self.dst == "F" else f"T{self.dst_col}"
        return f"{s}>{d}"

    @property
    def is_stock(self) -> bool:
        return self.src in ("draw", "redeal")


def parse_move(text: "str | Move") -> Move:
    """Parse SPEC §4 move text; spaces and letter case are ignored."""
    if isinstance(text, Move):
        return text
    if not isinstance(text, str):
        raise MoveError(f"a move must be text like 'W>T2', not {text!r}")
    t = re.sub(r"\s+", "", text).upper()
    if t in ("DRAW", "REDEAL"):
        return Move(t.lower())
    m = _MOVE_RE.match(t)
    if not m:
        raise MoveError(
            f"unknown move {text!r} (expected draw, redeal, W>F, R>F, T3>F, W>T2, R>T2, T1>T2, T1*>T2 or T1:3>T2)"
        )
    rsrc, tcol, tmod, tcount, fdst, tdst = m.groups()
    count: int | None
    if rsrc:
        src, src_col, count = rsrc, 0, 1
    else:
        src, src_col = "T", int(tcol)
        count = None if tmod == "*" else (int(tcount) if tcount else 1)
        if src_col < 1:
            raise MoveError(f"unknown move {text!r}: columns are numbered from 1")
        if count is not None and count < 1:
            raise MoveError(f"unknown move {text!r}: a run holds at least 1 card")
    if fdst:
        if src == "T" and count != 1:
            raise MoveError(f"unknown move {text!r}: only one card at a time goes to a foundation")
        return Move(src, src_col, "F", 0, count)
    dst_col = int(tdst)
    if dst_col < 1:
        raise MoveError(f"unknown move {text!r}: columns are numbered from 1")
    return Move(src, src_col, "T", dst_col, count)
