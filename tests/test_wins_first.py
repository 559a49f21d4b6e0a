"""Wins first where gaps wait for a move (the ``gaps-wait`` schedule of ``search.schedule``): the exact search's
probe, the policy adaptation, the beam search, the exact search going on. Its promises: it runs only under the rules it was measured on, a deal the
probe decides is searched node for node as the exact search alone searches it, a win it finds is a real line,
a limit ends it unknown and never wrong, and no verdict differs from the exhaustive search's."""

from __future__ import annotations

import pytest

from canfield_solver import Deal, Position, get_rules
from canfield_solver.engine.position import replay
from canfield_solver.engine.rules import PRESETS
from canfield_solver.search import schedule
from canfield_solver.solver import Verdict, solve

from helpers import needs_jit
from reference_search import exhaustive_winnable

SUPERIOR = get_rules("superior-canfield")


def test_it_runs_where_gaps_wait_for_a_move_and_nowhere_else():
    chosen = {name for name, r in PRESETS.items() if schedule.family(r) == "gaps-wait"}
    assert chosen == {"superior-canfield"}
    # The strict profile searches as before: no phases, the exact search's nodes.
    r = solve(Position(Deal.from_seed(650002, get_rules("canfield"))), max_nodes=200_000)
    assert "phases" not in r.stats and r.nodes <= 200_000 + 10_000


@needs_jit
def test_a_deal_the_probe_decides_is_searched_node_for_node_as_before():
    for seed in (660000, 660001):  # decided by the exact search in 5 k and 74 k nodes
        start = Position(Deal.from_seed(seed, SUPERIOR))
        auto, alone = solve(start), solve(start, method="depth-first")
        assert auto.verdict is alone.verdict is not Verdict.UNKNOWN
        assert (auto.nodes, auto.moves, auto.positions) == (alone.nodes, alone.moves, alone.positions)
        assert "phases" not in auto.stats


@needs_jit
def test_the_adaptation_wins_a_deal_the_probe_leaves_and_says_so(monkeypatch):
    # superior-canfield 650034: unknown at 2 s before this phase; the adaptation wins it in a few hundred playouts
    # (the beam search before it, left out here, wins it too).
    monkeypatch.setitem(schedule.SCHEDULES, "gaps-wait", schedule.changed(schedule.rows_for(SUPERIOR), "beam", share=0))
    deal = Deal.from_seed(650034, SUPERIOR)
    r = solve(Position(deal), max_nodes=2_000_000)
    assert r.verdict is Verdict.SOLVED and r.stats["decided_by"] == "adapt", r.stats
    assert [p["phase"] for p in r.stats["phases"]] == ["probe", "adapt"]
    assert r.stats["phases"][0]["nodes"] <= schedule.rows_for(SUPERIOR)[0].nodes
    chk = replay(deal, list(r.moves), strict=True)
    assert chk.legal and chk.position.is_won()


@needs_jit
def test_a_node_limit_ends_it_unknown_within_the_limit_with_a_real_best_line():
    deal = Deal.from_seed(650002, SUPERIOR)
    r = solve(Position(deal), max_nodes=500_000)
    assert r.verdict is Verdict.UNKNOWN and r.limit == "nodes"
    assert [p["phase"] for p in r.stats["phases"]] == ["probe", "adapt", "beam", "exact"]
    assert r.nodes <= 500_000 + 10_000
    assert replay(deal, list(r.best_line), strict=False).position.score == r.best_score
    small = solve(Position(deal), max_nodes=50_000)  # a limit below the probe's: the exact search's alone
    assert small.verdict is Verdict.UNKNOWN and small.limit == "nodes" and "phases" not in small.stats


@needs_jit
@pytest.mark.parametrize("phase", ["adapt", "beam"])
@pytest.mark.parametrize("shape", [(4, 3, 1), (4, 2, 2)])
def test_on_reduced_decks_every_verdict_through_a_search_for_wins_is_the_exhaustive_searchs(monkeypatch, shape,
                                                                                            phase):
    """With no probe every deal goes through the search for wins first (the adaptation, or the beam search;
    the other left out): of 40 deals of a shape (those small enough for the oracle), each verdict equals the
    exhaustive search's, each win replays, and the search decides some of them (the path is reached) while
    some are lost (the exact search after it is reached too)."""
    rows = schedule.changed(schedule.rows_for(SUPERIOR), "probe", nodes=0)
    rows = schedule.changed(rows, "beam" if phase == "adapt" else "adapt", share=0)
    monkeypatch.setitem(schedule.SCHEDULES, "gaps-wait", schedule.changed(rows, phase, cap=0.05))  # a lost deal
    # waits this long for the exact search
    ranks, reserve, columns = shape
    rules = SUPERIOR.replace(name=f"superior-{ranks}r{reserve}c{columns}", ranks=ranks, reserve_size=reserve,
                             columns=columns)
    by_phase = lost = compared = 0
    for seed in range(40):
        deal = Deal.from_seed(seed, rules)
        try:
            truth = exhaustive_winnable(deal, max_states=40_000)
        except RuntimeError:  # too large for the plain-Python oracle
            continue
        r = solve(deal)
        compared += 1
        assert (r.verdict is Verdict.SOLVED) == truth, seed
        assert r.verdict is not Verdict.UNKNOWN
        lost += r.verdict is Verdict.UNSOLVABLE
        if r.solved:
            assert replay(deal, list(r.moves), strict=True).position.is_won(), seed
            by_phase += r.stats.get("decided_by") == phase
    print(f"{shape}: {by_phase} won by {phase}, {lost} lost, of {compared} compared")  # -rP shows it
    assert compared >= 30 and by_phase >= 10 and lost >= 1, (compared, by_phase, lost)
