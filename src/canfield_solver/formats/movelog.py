"""Move logs: the files ``check``, ``hint``, ``show`` and ``solve --moves-played`` read.

A moves file holds one SPEC §4 move per line (``#`` starts a comment), a JSON
list of move strings, or the numbered steps ``solve --moves`` prints
(``play.transcript.format_steps``), which ``parse_steps`` reads back.
"""

from __future__ import annotations

import json
import re

from ..engine.deal import read_text
from ..engine.moves import parse_move
from ..errors import MoveError

__all__ = ["read_moves", "parse_moves", "parse_steps", "looks_like_steps"]


def read_moves(path: str) -> list[str]:
    """The moves in the file at ``path`` (``-``: standard input); any problem is one ``MoveError``."""
    return parse_moves(read_text(path, "moves", "a game", MoveError, dash_is_stdin=True), path)


def parse_moves(text: str, path: str = "<moves>") -> list[str]:
    """Moves from a moves file's text: printed steps, a JSON list, or one move per line (not yet checked)."""
    stripped = text.strip()
    if looks_like_steps(stripped):  # the numbered steps `solve --moves` prints
        return parse_steps(stripped)
    if stripped.startswith("["):
        try:
            data = json.loads(stripped)
        except RecursionError:
            raise MoveError(f"moves file {path!r} nests too deeply to be a move list") from None
        except json.JSONDecodeError as e:
            raise MoveError(f"moves file {path!r} is not a valid JSON list: {e.msg} at line {e.lineno}") from None
        if not isinstance(data, list) or not all(isinstance(m, str) for m in data):
            raise MoveError(f"moves file {path!r}: every move must be a string like 'W>T2'")
        return list(data)
    moves = []
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            moves.append(line)
    return moves


_DRAWS = re.compile(r"^draw\s*(?:[×x*]\s*(\d+))?(?:\s|$)", re.IGNORECASE)
_NUMBER = re.compile(r"^\d+\.\s*")


def parse_steps(text: str) -> list[str]:
    """SPEC §4 moves from ``format_steps`` text (``draw ×3`` → three draws; card names and headings ignored).

    A line that is not a step, a heading, a comment or blank raises ``MoveError``.
    """
    out: list[str] = []
    for lineno, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line or line.startswith("--"):
            continue
        line = _NUMBER.sub("", line)
        d = _DRAWS.match(line)
        if d:
            out.extend(["draw"] * int(d.group(1) or 1))
            continue
        word = line.split()[0].rstrip(";,")
        try:
            out.append(str(parse_move(word)))
        except MoveError as e:
            raise MoveError(f"line {lineno}: {e}") from None
    return out


def looks_like_steps(text: str) -> bool:
    """True for text written by ``format_steps`` (numbered lines), False for one SPEC move per line."""
    return any(_NUMBER.match(line.strip()) for line in text.splitlines())
