"""The layered proof (search/layered/, solver notes §9) against the exhaustive reference search.

Reduced decks of every rule set, the layered phase alone and after a depth-first search that filled its
memory cap; every line it finds is replayed by the reference engine in ``solve``; its limits end in
``unknown``. Reduced decks have short talons, so their keys hold the talon mask (not the foundation
heights, which a 52-card deal's keys hold): both decoders meet the oracle here and on full deals.
"""

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from test_solver_agreement import ALL_RULES, reduced

from canfield_solver import Deal, Position, get_rules
from canfield_solver.budget import Limits
from canfield_solver.engine.position import replay
from canfield_solver.errors import CanfieldError
from canfield_solver.solver import Verdict, solve

from helpers import examples
from reference_search import exhaustive_winnable

# Wins come late in the layered order (every position below the win's layer is expanded first), so the
# phase alone meets the oracle on shapes of one or two columns, where that costs a tenth of a second.
LAYER_SHAPES = [(3, 1, 2), (4, 1, 2), (4, 2, 2), (5, 2, 2), (5, 2, 1), (6, 2, 1)]
# Rules that build regardless of suit have no short keys, which the layered phase keeps (its own error).
SHORT_RULES = ALL_RULES  # every rule set's keys fit a short key where they can, any-suit columns included


def _truth(deal, max_states):
    try:
        return exhaustive_winnable(deal, max_states=max_states)
    except RuntimeError:
        assume(False)


@pytest.mark.parametrize("preset", SHORT_RULES)
@settings(max_examples=examples(6), deadline=None, suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
@given(data=st.data(), seed=st.integers(0, 2**64 - 1))
def test_layered_alone_agrees_with_the_exhaustive_search(preset, data, seed):
    shape = data.draw(st.sampled_from(LAYER_SHAPES))
    deal = Deal.from_seed(seed, reduced(preset, shape))
    truth = _truth(deal, 20_000)
    res = solve(deal, method="layered")
    assert res.verdict is not Verdict.UNKNOWN, res.limit
    assert (res.verdict is Verdict.SOLVED) == truth, (preset, shape, seed, res.verdict)
    assert res.stats["layered_layers"] >= 1


@pytest.mark.exhaustive
@pytest.mark.parametrize("preset", SHORT_RULES)
def test_layered_alone_agrees_on_fixed_deals(preset):
    """60 fixed deals of each rule set (the liberal ones win them all), and the won lines replay.

    Each proof has 4 M nodes: a win comes late in the layered order, and where any suit builds and the stock
    turns for ever a few won deals take 10-100 M nodes (three minutes of the tier for one rule set). A
    proof the node limit stops is ``unknown`` (never a verdict) and is not counted; at least 30 are decided.
    """
    won = lost = 0
    for shape in LAYER_SHAPES:
        for seed in range(10):
            deal = Deal.from_seed(seed, reduced(preset, shape))
            try:
                truth = exhaustive_winnable(deal, max_states=40_000)
            except RuntimeError:
                continue
            res = solve(deal, method="layered", max_nodes=4_000_000)
            if res.verdict is Verdict.UNKNOWN:
                assert res.limit == "nodes", (shape, seed, res.limit)
                continue
            assert (res.verdict is Verdict.SOLVED) == truth, (shape, seed)
            if truth:
                assert replay(deal, list(res.moves)).won
            won += truth
            lost += not truth
    assert won > 0 and won + lost >= 30, (won, lost)


@pytest.mark.parametrize("preset", ["canfield", "canfield-whole-pile", "storehouse", "canfield-draw1"])
def test_the_layered_phase_after_a_depth_first_budget_agrees(preset):
    """``layered.after`` (what "auto" runs once the depth-first table is full) on the outcome of a depth-first
    search cut short by a node budget: the verdict of the two together equals the exhaustive search's, and
    the nodes, time and positions are the sums of the two phases'."""
    from canfield_solver.search import depth_first, layered

    checked = 0
    for shape in LAYER_SHAPES:
        for seed in range(10):
            deal = Deal.from_seed(seed, reduced(preset, shape))
            try:
                truth = exhaustive_winnable(deal, max_states=20_000)
            except RuntimeError:
                continue
            start = Position(deal)
            first = depth_first.search(start, Limits(nodes=20, memory_mb=64))
            if first.limit is None:
                continue
            both = layered.after(first, start, Limits(memory_mb=64))
            assert both.limit is None and both.won == truth, (shape, seed)
            assert both.nodes > first.nodes and both.stats["depth_first_nodes"] == first.nodes
            line = both.decode(both.solution if both.won else both.best_path)
            end = replay(deal, line, strict=False)
            assert end.legal and (end.won if truth else end.position.score == both.best_score == first.best_score)
            checked += 1
    assert checked >= 20, checked


def test_auto_hands_a_full_depth_first_table_to_the_layered_phase():
    """Seed 0 at a 2-MiB cap: the depth-first table fills (unknown, memory), and "auto" then proves the deal
    lost layer by layer within the same cap."""
    alone = solve(0, method="depth-first", max_memory_mb=2)
    assert alone.verdict is Verdict.UNKNOWN and alone.limit == "memory"
    res = solve(0, max_memory_mb=2)
    assert res.verdict is Verdict.UNSOLVABLE and res.limit is None
    assert res.stats["depth_first_nodes"] == alone.nodes and res.nodes > alone.nodes
    assert res.stats["layered_peak_mb"] <= 2
    assert res.best_score == alone.best_score


def test_a_full_deal_lost_layer_by_layer():
    """Seed 0 (lost, SPEC numbering): the layered phase alone proves it, holding far less than the
    depth-first table's rows, with a node count close to the depth-first search's."""
    dfs = solve(0, method="depth-first")
    lay = solve(0, method="layered")
    assert dfs.verdict is Verdict.UNSOLVABLE and lay.verdict is Verdict.UNSOLVABLE
    assert lay.stats["layered_peak_mb"] * 2**20 < dfs.stats["table_keys"] * 16 / 2
    assert 0.5 * dfs.nodes < lay.nodes < 1.5 * dfs.nodes


@pytest.mark.exhaustive
def test_a_full_deal_won_layer_by_layer():
    """Seed 1 (won): the layered phase finds a win late in its order, and its line, found again from the
    layers kept on disk, replays to a win."""
    res = solve(1, method="layered")
    assert res.verdict is Verdict.SOLVED
    assert replay(Deal.from_seed(1, get_rules("canfield")), list(res.moves)).won


@pytest.mark.parametrize("limits, limit", [({"max_nodes": 1000}, "nodes"), ({"max_seconds": 0}, "seconds"),
                                           ({"max_memory_mb": 1}, "memory")])
def test_layered_limits_end_unknown(limits, limit):
    res = solve(6, method="layered", **limits)
    assert res.verdict is Verdict.UNKNOWN and res.limit == limit
    assert res.best_line == ()


def test_the_won_line_is_found_within_the_time_limit_or_the_verdict_is_unknown(monkeypatch):
    """Finding the won line again after the proof counts against --max-seconds (it can be a large share of the
    proof's time): it is given what is left of the limit, and when that runs out the verdict is ``unknown``
    (seconds), never a ``solved`` that came late. Here the limit is made to run out as the proof ends."""
    from canfield_solver.search.layered import driver

    deal = Deal.from_seed(0, reduced("canfield", (5, 2, 2)))
    assert solve(deal, method="layered", max_seconds=600).verdict is Verdict.SOLVED
    left: list[float] = []
    real = driver.won_line

    def out_of_time(ph, layers, m_won, first, seconds):
        left.append(seconds)
        return real(ph, layers, m_won, first, 0.0)

    monkeypatch.setattr(driver, "won_line", out_of_time)
    res = solve(deal, method="layered", max_seconds=600)
    assert res.verdict is Verdict.UNKNOWN and res.limit == "seconds" and res.moves == ()
    assert "won, but the time limit came" in res.stats["layered_note"]
    assert len(left) == 1 and 500 < left[0] < 600


@pytest.mark.filterwarnings("error::pytest.PytestUnhandledThreadExceptionWarning")
def test_a_time_limit_past_what_a_timer_can_wait_finds_the_won_line():
    """A limit of 10^12 s is no limit for finding the won line again: its timer once raised OverflowError in its
    thread (the generated API calls met it), which this test turns into a failure."""
    deal = Deal.from_seed(0, reduced("canfield", (5, 2, 2)))
    res = solve(deal, method="layered", max_seconds=1e12)
    assert res.verdict is Verdict.SOLVED and replay(deal, list(res.moves)).won


@pytest.mark.parametrize("preset", ["rainbow", "canfield"])
def test_a_start_without_a_short_key_refuses_the_layered_phase_alone_and_auto_keeps_depth_first(preset):
    from unittest import mock

    import canfield_solver.search.arrays as solver_module

    with mock.patch.object(solver_module, "SHORT_KEYS", False):  # every key long, as a huge talon would make it
        with pytest.raises(CanfieldError, match="keeps short keys only"):
            solve(0, preset, method="layered")
        deal = Deal.from_seed(3, reduced(preset, (5, 2, 3)))
        res = solve(deal, max_memory_mb=1)
    assert "layered_layers" not in res.stats


@pytest.mark.parametrize("preset", ["rainbow", "chameleon"])
def test_any_suit_columns_take_short_keys_and_the_layered_phase(preset):
    """Building regardless of suit takes two bits a card, and a key that fits 127 bits is short all the same
    (kernel.key measures that stream too): most of a real deal's rows are short. (The layered phase takes
    these rules now; the agreement properties above hold it to the exhaustive search on them.)"""
    res = solve(0, preset, max_nodes=200_000)
    assert res.stats["short_keys"] > 0.5 * res.stats["table_keys"]


def test_a_bad_method_is_refused():
    with pytest.raises(CanfieldError, match="method must be one of auto, depth-first, layered"):
        solve(0, method="breadth")
