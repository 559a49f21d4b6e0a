"""Beam searches (``search.beam``): a search for wins only, so its promises are that a win is a real line (the
reference engine replays it to every card home), that a limit ends it unknown and never wrong, that the
same seed makes the same searches however its calls are cut, and that a layer keeps its best children."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from canfield_solver import Deal, Position, get_rules
from canfield_solver.budget import Limit, Limits
from canfield_solver.engine.position import replay
from canfield_solver.search import beam, schedule
from canfield_solver.search.arrays import LoneSearch
from canfield_solver.search.beam import kernel as BK
from canfield_solver.solver import Verdict, solve

from helpers import needs_jit

SUPERIOR = get_rules("superior-canfield")


@needs_jit
def test_a_win_is_a_real_line_where_the_exact_search_found_none():
    # superior-canfield 810020: unknown at 2 s before this phase (the exact search and the policy adaptation
    # both); the first beam (64 wide) wins it in about 120,000 children, a line of some 500 moves.
    deal = Deal.from_seed(810020, SUPERIOR)
    assert solve(deal, max_nodes=2_000_000, method="depth-first").verdict is Verdict.UNKNOWN
    o = beam.beam(Position(deal), Limits(nodes=1_000_000))
    assert o.won and o.limit is None and o.best_score == 52 and len(o.solution) > 300
    chk = replay(deal, o.decode(o.solution), strict=True)
    assert chk.legal and chk.position.is_won()


@needs_jit
def test_the_solver_runs_it_where_gaps_wait_and_replays_its_win():
    assert [r.phase for r in schedule.rows_for(SUPERIOR)].count("beam") == 1
    r = solve(Deal.from_seed(810027, SUPERIOR), max_nodes=3_000_000)
    assert r.verdict is Verdict.SOLVED and r.stats["decided_by"] == "beam"
    assert [p["phase"] for p in r.stats["phases"]] == ["probe", "adapt", "beam"]


@needs_jit
def test_a_node_limit_ends_it_unknown():
    deal = Deal.from_seed(810020, SUPERIOR)
    o = beam.beam(Position(deal), Limits(nodes=5_000))
    assert not o.won and o.limit is Limit.NODES and o.solution == [] and 5_000 <= o.nodes < 40_000
    assert solve(deal, max_nodes=150_000).verdict is Verdict.UNKNOWN  # probe 100,000, the beam short of its win


def _kernel_run(start: Position, budgets: list[int], width: int = 64) -> tuple[int, np.ndarray, np.ndarray]:
    prob = LoneSearch(start)
    s = beam._Beam(prob, width, len(prob.talon_list))
    bw = BK.BeamWork(np.zeros(prob.moves.shape[1], np.int64), prob.scratch, np.zeros(4, np.uint64),
                     np.zeros(BK.VALUE_LIMIT << BK.NOISE_BITS, np.int64), np.array([12345], np.uint64),
                     np.array(beam.WEIGHTS, np.int64), np.zeros(beam.LAYERS, np.int64))
    stats = np.zeros(BK.NBSTATS, np.int64)
    stats[BK.B_SEARCHES] = stats[BK.B_STAMP] = stats[BK.B_LAYERS] = 1
    r = 0
    for b in budgets:
        r = BK.search(prob.deal, s.slots, s.arrays, bw, stats, width, len(prob.talon_list), b)
        if r:
            break
    return r, stats.copy(), bw.line[:int(stats[BK.B_WON_LEN])].copy()


@needs_jit
def test_the_same_seed_makes_the_same_search_however_the_calls_are_cut():
    start = Position(Deal.from_seed(810031, SUPERIOR))
    whole = _kernel_run(start, [10**9])
    cut = _kernel_run(start, list(range(1, 400_000, 997)) + [10**9])
    assert whole[0] == cut[0] == 1
    assert (whole[1] == cut[1]).all() and (whole[2] == cut[2]).all()


@needs_jit
@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 300), min_size=1, max_size=200), st.integers(1, 64))
def test_a_layer_keeps_its_best_children(values, width):
    cand = np.zeros((len(values), 3), np.int64)
    cand[:, 0] = values
    cand[:, 1] = np.arange(len(values))
    count = np.zeros(512, np.int64)
    kept = BK._select(cand, len(values), count, width)
    assert kept == min(width, len(values))
    assert sorted(cand[:kept, 0], reverse=True) == sorted(values, reverse=True)[:kept]
    assert len(set(cand[:kept, 1])) == kept  # each child once, with its own parent and move
    assert all(values[i] == v for v, i in cand[:kept, :2])
