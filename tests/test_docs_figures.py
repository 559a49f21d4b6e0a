"""The win-rate figures that the docs repeat agree with the one table they come from.

docs/win-rates.md's first table is what ``benchmarks/winrate_table.py table`` prints from the committed
dataset; the README's table, the rules grid and the count of rows at their target restate it. A row
measured again and pasted into one place only (the grid kept 44.72% for a row the table said 46.78%)
fails here.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WIN_RATES = (ROOT / "docs" / "win-rates.md").read_text()
README = (ROOT / "README.md").read_text()

ESTIMATE = re.compile(r"(\d+\.\d\d)% \((\d+\.\d\d)–(\d+\.\d\d)%?\)")
WORDS = {"thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
         "nineteen": 19, "twenty": 20}


def _rows(text: str, header_start: str) -> dict[str, list[str]]:
    """The rows of every Markdown table whose header starts with ``header_start``, by their first cell."""
    rows: dict[str, list[str]] = {}
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if not line.startswith(header_start):
            continue
        for row in lines[i + 2:]:
            if not row.startswith("|"):
                break
            cells = [c.strip() for c in row.strip("|").split("|")]
            name = re.sub(r" \(published .*\)$", "", cells[0]).strip("`")
            rows[name] = cells
    return rows


def _estimate(cell: str) -> tuple[str, str, str]:
    found = ESTIMATE.search(cell)
    assert found, cell
    return found.group(1), found.group(2), found.group(3)


TABLE = _rows(WIN_RATES, "| rules | deals | won / lost / unknown (2 s)")


def test_the_table_holds_every_row():
    assert len(TABLE) == 19, sorted(TABLE)
    assert "strict, draw 1, 2 passes" in TABLE and "canfield" in TABLE


def test_the_readme_table_restates_it():
    readme = _rows(README, "| rules | deals | won / lost / unknown at 2 s")
    assert set(readme) == set(TABLE)
    for name, cells in readme.items():
        assert cells[1] == TABLE[name][1], name                       # deals
        assert cells[2] == TABLE[name][2], name                       # won / lost / unknown
        if TABLE[name][6] != "–":
            assert _estimate(cells[5]) == _estimate(TABLE[name][6]), name


def test_the_rules_grid_restates_it():
    grid = _rows(WIN_RATES, "| passes through the stock | draw 3 | draw 1 |")
    assert set(grid) == {"1", "2", "3", "unlimited"}

    def row(passes: str, draw: int) -> str:
        if passes == "unlimited":
            return "canfield" if draw == 3 else "canfield-draw1"
        return f"strict, draw {draw}, {passes} pass{'es' if passes != '1' else ''}"

    for passes, cells in grid.items():
        for draw, cell in ((3, cells[1]), (1, cells[2])):
            name = row(passes, draw)
            assert _estimate(cell) == _estimate(TABLE[name][6]), (passes, draw)
            assert cell.endswith(f"{TABLE[name][1]} deals"), (passes, draw)


def test_the_rows_at_target_are_counted_right():
    reached = sum(cells[-1] == "reached" for cells in TABLE.values())
    for text in (WIN_RATES, README):
        said = re.search(r"\b(\w+) of the nineteen rows", text, re.IGNORECASE)
        assert said, "the count of rows at their target is gone"
        assert WORDS[said.group(1).lower()] == reached, said.group(0)


def test_the_parser_reads_what_a_drifted_page_would_say():
    drifted = WIN_RATES.replace("| 2 | 0.65% (0.38–1.11), 2,000 deals | 46.78%", "| 2 | 0.65% (0.38–1.11), 2,000 deals | 44.72%")
    grid = _rows(drifted, "| passes through the stock | draw 3 | draw 1 |")
    assert _estimate(grid["2"][2]) != _estimate(TABLE["strict, draw 1, 2 passes"][6])
