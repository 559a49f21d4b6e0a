"""Old verdicts are sacred: every deal the solver decided before the hard-tail work is decided the same way now.

``tests/data/verdicts.csv`` was written by ``benchmarks/make_verdict_table.py``
with the solver as it stood before the kernel was rebuilt (seeds 0-299 of
three presets, at most 2,000,000 nodes each). A faster or better-pruned
search must reach the same verdict on every row that says ``solved`` or
``unsolvable``; rows that say ``unknown`` recorded no verdict, so any answer
is new information there. Each deal gets a node budget of four times what
the old solver needed plus 100,000, so a search that has lost its way (or a
prune that cuts a win) shows up as a wrong verdict or as ``unknown``.
"""

import csv
from pathlib import Path

import pytest

from canfield_solver import solve

TABLE = Path(__file__).parent / "data" / "verdicts.csv"
ROWS = [r for r in csv.DictReader(TABLE.open()) if r["verdict"] != "unknown"]


def check(rows):
    wrong = []
    for row in rows:
        old = int(row["nodes"])
        res = solve(int(row["seed"]), row["rules"], max_nodes=4 * old + 100_000)
        if res.verdict.value != row["verdict"]:
            wrong.append((row["rules"], row["seed"], row["verdict"], res.verdict.value, old, res.nodes))
    assert not wrong, f"verdicts changed (rules, seed, old, new, old nodes, new nodes): {wrong}"


def test_table_covers_every_preset_and_both_verdicts():
    for rules in ("canfield", "canfield-whole-pile", "solvitaire-canfield-strict"):
        got = {r["verdict"] for r in ROWS if r["rules"] == rules}
        assert got == {"solved", "unsolvable"}


def test_decided_deals_keep_their_verdicts():
    """Every row the old solver decided within 300,000 nodes (about nine in ten of them)."""
    rows = [r for r in ROWS if int(r["nodes"]) <= 300_000]
    assert len(rows) > 600
    check(rows)


@pytest.mark.slow
def test_every_decided_deal_keeps_its_verdict():
    check(ROWS)
