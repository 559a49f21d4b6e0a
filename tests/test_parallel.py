"""Several worker threads searching one deal (parallel.py): the verdicts of one worker, sooner."""


import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_solver_agreement import CUSTOM, HARD_SHAPES, SHAPES, check_agreement

from canfield_solver import CanfieldError, solve
from canfield_solver.solver import Verdict
from canfield_solver.surfaces.cli import cli

from helpers import examples, needs_jit


@pytest.mark.exhaustive
@pytest.mark.parametrize("preset", ["canfield", "canfield-whole-pile", "storehouse", "rainbow", "runs-any-gap"])
@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
@given(data=st.data(), seed=st.integers(0, 2**64 - 1), workers=st.sampled_from([2, 3]))
def test_workers_give_the_exhaustive_verdict_on_reduced_decks(preset, data, seed, workers):
    shape = data.draw(st.sampled_from(HARD_SHAPES if preset in CUSTOM else SHAPES))
    check_agreement(preset, shape, seed, 12_000, workers=workers)


@needs_jit
@pytest.mark.parametrize("rules", ["canfield", "canfield-whole-pile"])
def test_workers_agree_with_one_worker_on_full_deals(rules):
    """Every deal of seeds 0-59 that one worker decides within 300,000 nodes, two decide the same way."""
    compared = 0
    for seed in range(60):
        one = solve(seed, rules, max_nodes=300_000)
        if one.verdict is Verdict.UNKNOWN:
            continue
        two = solve(seed, rules, workers=2, max_nodes=3_000_000)
        assert two.verdict is one.verdict, seed
        compared += 1
    assert compared >= 40


@needs_jit
def test_a_lost_deal_is_shared_out_and_still_exhausted():
    """Seed 0 is lost after 1.4 M nodes: three workers hand positions to each other and prove the loss in
    about as many nodes, with the same best score."""
    one = solve(0)
    three = solve(0, workers=3)
    assert one.verdict is three.verdict is Verdict.UNSOLVABLE
    assert three.stats["donated"] > 0 and three.stats["workers"] == 3
    assert 0.8 * one.nodes < three.nodes < 1.2 * one.nodes
    assert three.best_score == one.best_score and len(three.best_line) > 0


@needs_jit
def test_limits_end_a_search_of_several_workers_unknown():
    by_nodes = solve(6, workers=2, max_nodes=20_000)
    assert by_nodes.verdict is Verdict.UNKNOWN and by_nodes.limit == "nodes"
    by_memory = solve(6, workers=2, max_memory_mb=1)
    assert by_memory.verdict is Verdict.UNKNOWN and by_memory.limit == "memory"
    by_time = solve(6, workers=2, max_seconds=0.2)
    assert by_time.verdict is Verdict.UNKNOWN and by_time.limit == "seconds"


@pytest.mark.parametrize("bad", [0, -1, True, 1.5, "2"])
def test_workers_must_be_a_positive_integer(bad):
    with pytest.raises(CanfieldError, match="workers"):
        solve(2, workers=bad)


def test_the_command_line_searches_with_several_threads():
    res = CliRunner().invoke(cli, ["solve", "--seed", "2", "--jobs", "2", "--moves"])
    assert res.exit_code == 0 and "solved" in res.output
    res = CliRunner().invoke(cli, ["solve", "--seed", "2", "-j", "0"])
    assert res.exit_code == 2 and "--jobs" in res.output and "Traceback" not in res.output
