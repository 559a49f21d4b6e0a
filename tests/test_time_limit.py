"""The time limit kept inside a search: a table's growth is not begun when it would end past the deadline,
and a growth that took the time left ends the search (a 2-s study stored 2.3 s for rainbow deals whose last
growth came as the deadline fell)."""

from __future__ import annotations

import time

import pytest

from canfield_solver import Deal, solve
from canfield_solver.budget import Deadline, Limit, Limits, Pace, Step, drive
from canfield_solver.search import arrays

from helpers import needs_jit


def test_a_deadline_affords_what_ends_before_it():
    d = Deadline(0.5)
    assert d.affords(0.1) and not d.affords(5.0)
    assert Deadline(None).affords(1e9)


def test_a_growth_that_took_the_time_left_ends_the_search():
    """A search that only ever grows: before, ``drive`` called it again at once after each growth without
    looking at the clock, for ever."""
    calls = [0]

    def call(budget: int) -> Step:
        calls[0] += 1
        time.sleep(0.01)
        return Step.GROWN

    t = time.perf_counter()
    limit = drive(call, lambda: 0, Limits(Deadline(0.1)), Pace(100))
    assert limit is Limit.SECONDS and time.perf_counter() - t < 1.0 and calls[0] >= 5


def test_no_time_for_a_growth_is_the_seconds_limit():
    assert drive(lambda budget: Step.NO_TIME, lambda: 0, Limits(Deadline(10.0)), Pace(100)) is Limit.SECONDS


@needs_jit
@pytest.mark.parametrize("workers", [1, 2])
def test_a_growth_too_long_for_the_time_left_is_not_begun(monkeypatch, workers):
    """Seed 205 searches for minutes and grows its tables early; with growth priced at a second a row, the
    first growth would end past any deadline, so the search stops there, long before its 20 s."""
    monkeypatch.setattr(arrays, "ROW_SECONDS", 1.0)
    t = time.perf_counter()
    res = solve(Deal.from_seed(205), max_seconds=20, workers=workers, method="depth-first")
    assert res.verdict.value == "unknown" and res.limit == "seconds"
    assert time.perf_counter() - t < 10, res.seconds
    assert res.stats["table_rows"] <= 2 * (arrays.INITIAL_SHORT + arrays.INITIAL_LONG)  # never grown


@needs_jit
def test_a_node_limit_search_is_the_same_with_any_growth_price(monkeypatch):
    """Without a time limit growth is never priced: the same nodes and verdict whatever it is said to cost."""
    before = solve(Deal.from_seed(6), max_nodes=400_000, method="depth-first")
    monkeypatch.setattr(arrays, "ROW_SECONDS", 1.0)
    after = solve(Deal.from_seed(6), max_nodes=400_000, method="depth-first")
    assert (after.verdict, after.nodes, after.limit) == (before.verdict, before.nodes, before.limit)


@needs_jit
def test_the_random_players_games_end_with_the_analysis_time_limit():
    """``analyze`` played every random game asked for after its limit: 40,475 of them took 130 s past a 2-s
    limit (the generated CLI tier's slowest call). The games now stop with the limit and say how many ran."""
    from canfield_solver import analyze

    t = time.perf_counter()
    a = analyze(40475, max_seconds=1.0, probe_nodes=50, playouts=40_475)
    assert time.perf_counter() - t < 3.0
    assert 0 <= a.playouts < 40_475 and a.random_wins <= a.playouts
    full = analyze(40475, max_seconds=30, probe_nodes=50, playouts=20)
    assert full.playouts == 20  # with time enough, every game asked for
