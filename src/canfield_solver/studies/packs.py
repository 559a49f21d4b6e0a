"""Deal packs for app makers: winnable deals with their answers, one JSON object per line.

A pack line (``pack_entry``)::

    {"numbering": "spec", "number": 42, "rules": "canfield",
     "deal": {...SPEC deal JSON...}, "verdict": "solved", "moves": ["draw", ...],
     "rating": "easy", "metrics": {...}}

``numbering`` is ``"spec"`` (SPEC §2 seeds) or ``"pysolfc"`` (PySolFC game
numbers); ``deal`` is the layout itself, so a game can load it without this
package. ``write_pack`` writes lines (or, ``fmt="csv"``, a short table);
``verify_pack`` re-checks every line with the reference engine: the deal is
the one its number deals, and the winning line is legal and wins.
"""

from __future__ import annotations

import csv
import json
import os
from dataclasses import dataclass
from typing import IO, Iterable, Iterator, TypedDict

from ..engine.deal import Deal
from ..engine.position import replay
from ..engine.rules import Rules
from ..errors import CanfieldError
from ..formats import numbered_deal
from ..solver import Verdict, solve
from .stores.sqlite import StoredResult

__all__ = ["PackEntry", "pack_entry", "write_pack", "verify_pack", "PackFile", "PackProblem", "CSV_COLUMNS"]

CSV_COLUMNS = ("numbering", "number", "rules", "verdict", "rating", "solution_length", "redeals", "nodes")


class PackEntry(TypedDict):
    """One line of a deal pack (docs/formats.md): the deal, its number, and a winning line."""

    numbering: str                  # "spec" or "pysolfc"
    number: int                     # the deal's number in that numbering
    rules: str                      # the rules preset's name
    deal: dict[str, object]         # the SPEC deal JSON (without its number)
    verdict: str                    # always "solved"
    moves: list[str]                # a winning line, SPEC §4 moves
    rating: str | None              # the difficulty rating, where the study rated it
    metrics: dict[str, object]      # the difficulty metrics (empty where none)


def pack_entry(row: StoredResult, rules: "str | Rules", numbering: str = "spec") -> PackEntry:
    """One pack line for a solved study row: the deal, its number, and a winning line.

    The winning line is found again by the same deterministic search (its node
    count is known from the row, so no time limit is needed).
    """
    deal = numbered_deal(numbering, row.seed, rules)
    res = solve(deal, max_nodes=2 * row.nodes + 10_000)
    if res.limit == "interrupted":  # Ctrl-C during the search: an interrupt, not a failure to find the line
        raise KeyboardInterrupt
    if not res.solved:
        raise CanfieldError(f"{numbering} {row.seed}: the search did not find the winning line again")
    d = deal.to_dict()
    d.pop("seed", None)
    d.pop("pysolfc_game", None)
    return {
        "numbering": numbering,
        "number": row.seed,
        "rules": deal.rules.name,
        "deal": d,
        "verdict": Verdict.SOLVED.value,
        "moves": list(res.moves),
        "rating": row.rating,
        "metrics": row.metrics or {},
    }


def write_pack(entries: Iterable[PackEntry], out: IO[str], fmt: str = "jsonl") -> int:
    """Write pack entries as JSON lines or (``fmt="csv"``) a short table; the number written."""
    n = 0
    if fmt == "csv":
        w = csv.writer(out)
        w.writerow(CSV_COLUMNS)
        for e in entries:
            m = e.get("metrics") or {}
            w.writerow([e["numbering"], e["number"], e["rules"], e["verdict"], e.get("rating"),
                        len(e["moves"]), sum(mv == "redeal" for mv in e["moves"]), m.get("nodes")])
            n += 1
        return n
    if fmt != "jsonl":
        raise CanfieldError(f"pack format must be jsonl or csv, not {fmt!r}")
    for e in entries:
        out.write(json.dumps(e, ensure_ascii=False) + "\n")
        out.flush()
        n += 1
    return n


class PackFile:
    """A pack written to ``path`` as its deals come (``add``), in ``fmt`` (jsonl or csv).

    The lines go to ``path.part``; a finished pack (``finish``) replaces
    ``path``. A pack stopped before the end (``stop``: an interrupt or an
    error) loses neither an older file nor a pick: with no deal in it, it
    leaves nothing behind; where no file ``path`` exists, it becomes that
    file; otherwise it stays as ``path.part`` beside the older file, which is
    left as it was. Use it as a context manager: a block that ends normally
    finishes the pack, one that raises stops it.
    """

    def __init__(self, path: str, fmt: str = "jsonl"):
        if fmt not in ("jsonl", "csv"):
            raise CanfieldError(f"pack format must be jsonl or csv, not {fmt!r}")
        self.path, self.fmt, self.part = path, fmt, f"{path}.part"
        self.entries: list[PackEntry] = []
        self._fh: IO[str] | None = open(self.part, "w", encoding="utf-8", newline="")  # noqa: SIM115

    def add(self, entry: PackEntry) -> None:
        assert self._fh is not None, "the pack is closed"
        if self.fmt == "jsonl":
            write_pack([entry], self._fh)
            self._fh.flush()  # each pick on disk as it comes: a kill loses none of the lines written
        self.entries.append(entry)

    def _complete(self) -> None:
        assert self._fh is not None, "the pack is closed"
        if self.fmt == "csv":
            write_pack(self.entries, self._fh, "csv")
        self._fh.close()
        self._fh = None

    def finish(self) -> int:
        """Write the table (csv), close, and put the pack in place; the number of deals in it."""
        self._complete()
        os.replace(self.part, self.path)
        return len(self.entries)

    def stop(self) -> str | None:
        """End a pack before its count: where its deals were put (``path``, or ``path.part`` when an older
        ``path`` exists, which stays as it was), or None when it held none (no file is left behind)."""
        if self._fh is None:
            return None
        if not self.entries:
            self._fh.close()
            self._fh = None
            os.remove(self.part)
            return None
        if not os.path.exists(self.path):
            self.finish()
            return self.path
        self._complete()
        return self.part

    def close(self) -> None:
        """Stop a pack that was neither finished nor stopped (see ``stop``)."""
        self.stop()

    def __enter__(self) -> "PackFile":
        return self

    def __exit__(self, exc_type: type[BaseException] | None, *rest: object) -> None:
        if exc_type is None and self._fh is not None:
            self.finish()
        self.stop()


@dataclass(frozen=True)
class PackProblem:
    """A pack line whose stored answer does not hold."""

    line: int
    number: int | str | None
    reason: str

    def __str__(self) -> str:
        return f"line {self.line}" + ("" if self.number is None else f" (deal {self.number})") + f": {self.reason}"


def _check_line(text: str) -> str | None:
    """None when the line holds, else why not."""
    try:
        e = json.loads(text)
    except json.JSONDecodeError as err:
        return f"not valid JSON: {err.msg}"
    except RecursionError:
        return "not a pack line: JSON nested too deeply"
    if not isinstance(e, dict):
        return "not a JSON object"
    missing = [k for k in ("numbering", "number", "rules", "deal", "verdict", "moves") if k not in e]
    if missing:
        return f"missing field {missing[0]!r}"
    try:
        deal = Deal.from_dict(e["deal"], e["rules"])
        if isinstance(e["number"], bool) or not isinstance(e["number"], int):
            return f"'number' must be an integer, not {e['number']!r}"
        dealt = numbered_deal(e["numbering"], e["number"], e["rules"])
    except CanfieldError as err:
        return str(err)
    if deal != dealt:
        return f"the stored deal is not the deal of {e['numbering']} number {e['number']}"
    if e["verdict"] != Verdict.SOLVED:
        return f"verdict {e['verdict']!r}: a pack holds winnable deals only"
    moves = e["moves"]
    if not isinstance(moves, list) or not all(isinstance(m, str) for m in moves):
        return "'moves' must be a list of move strings"
    res = replay(deal, moves, strict=False)
    if not res.legal:
        return f"the winning line is illegal: {res.error}"
    if not res.position.is_won():
        return f"the winning line ends with {res.position.score} cards home, not a won game"
    return None


def verify_pack(lines: Iterable[str]) -> Iterator[tuple[int, object, str | None]]:
    """(line number, number, None or the reason it fails) for every non-blank line of a pack."""
    for i, text in enumerate(lines, 1):
        if not text.strip():
            continue
        try:
            number = json.loads(text).get("number")
        except (json.JSONDecodeError, AttributeError, RecursionError):
            number = None
        yield i, number, _check_line(text)
