"""Move logs: the files ``check``, ``hint``, ``show`` and ``solve --moves-played`` read.

A moves file holds one SPEC §4 move per line (``#`` starts a comment), a JSON
list of move strings, or the numbered steps ``solve --moves`` and ``analyze --moves`` print
(``play.transcript.format_steps``), which ``parse_steps`` reads back, the lines those commands print
before the first step (the verdict, the best score, the analysis) included. A game's moves
(``game=True``) are read the same way, each step's move text kept as it is (``P1+P6``, ``place 1 2``)
for the game's own ``play`` to check.
"""

from __future__ import annotations

import json
import re

from ..engine.deal import read_text
from ..engine.moves import parse_move
from ..errors import MoveError

__all__ = ["read_moves", "parse_moves", "parse_steps", "parse_game_steps", "looks_like_steps"]


def read_moves(path: str, game: bool = False) -> list[str]:
    """The moves in the file at ``path`` (``-``: standard input); any problem is one ``MoveError``. With
    ``game``, the moves of one of the other games (their texts are not SPEC §4 moves)."""
    return parse_moves(read_text(path, "moves", "a game", MoveError, dash_is_stdin=True), path, game)


def parse_moves(text: str, path: str = "<moves>", game: bool = False) -> list[str]:
    """Moves from a moves file's text: printed steps, a JSON list, or one move per line (not yet checked)."""
    stripped = text.strip()
    if looks_like_steps(stripped):  # the numbered steps `solve --moves` prints
        return parse_game_steps(stripped) if game else parse_steps(stripped)
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


def _step_lines(text: str) -> list[tuple[int, str]]:
    """(line number, text) of each step of printed steps, its number taken off: the lines before the first
    step or pass heading are the printout's header (the verdict, the best score, an analysis) and are
    skipped; after it, headings, comments and blank lines are."""
    out: list[tuple[int, str]] = []
    started = False
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not started and not (_NUMBER.match(line) or line.startswith("--")):
            continue
        started = True
        if not line or line.startswith("--"):
            continue
        out.append((lineno, _NUMBER.sub("", line)))
    return out


def parse_game_steps(text: str) -> list[str]:
    """A game's moves from printed steps: each step's move text, up to the cards it names (after two spaces
    or an opening bracket)."""
    return [re.split(r"\s{2,}|\s*\(", line, maxsplit=1)[0].strip() for _n, line in _step_lines(text)]


def parse_steps(text: str) -> list[str]:
    """SPEC §4 moves from ``format_steps`` text (``draw ×3`` → three draws; card names and headings ignored).

    A line after the first step that is not a step, a heading, a comment or blank raises ``MoveError``.
    """
    out: list[str] = []
    for lineno, line in _step_lines(text):
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


_HEADER = re.compile(r"^\S.* · \S.*: (solved|unsolvable|unknown)\b")  # the first line `solve` prints


def looks_like_steps(text: str) -> bool:
    """True for text written by ``format_steps`` (numbered lines) or by ``solve`` (its verdict line first,
    and no step where no line was found), False for one SPEC move per line."""
    lines = text.splitlines()
    return bool(lines and _HEADER.match(lines[0].strip())) or any(_NUMBER.match(line.strip()) for line in lines)
