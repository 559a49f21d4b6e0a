"""The Numba solver against the exhaustive reference search on reduced decks.

Reduced decks (few ranks, 1-2 reserve cards, 2-4 columns) make an exhaustive
plain-Python search finish quickly, so the fast solver's verdict can be
compared with the truth on many deals for every preset.
"""

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from canfield_solver import Deal, get_rules, preset_names
from canfield_solver.solver import Verdict, solve
from reference_search import exhaustive_winnable

SHAPES = [(3, 1, 2), (3, 2, 3), (4, 1, 2), (4, 2, 3), (4, 1, 3), (5, 2, 2), (5, 1, 3), (5, 2, 4), (6, 2, 2)]


def reduced(preset, shape):
    ranks, reserve, columns = shape
    return get_rules(preset).replace(name=f"{preset}-{ranks}r{reserve}c{columns}", ranks=ranks,
                                     reserve_size=reserve, columns=columns)


def check_agreement(preset, shape, seed):
    deal = Deal.from_seed(seed, reduced(preset, shape))
    try:
        truth = exhaustive_winnable(deal, max_states=40_000)
    except RuntimeError:
        assume(False)
    res = solve(deal)
    assert res.verdict is not Verdict.UNKNOWN
    assert (res.verdict is Verdict.SOLVED) == truth, (preset, shape, seed, res.verdict)
    if res.solved:
        assert len(res.moves) > 0 or deal.rules.ranks * 4 == sum(deal.foundation_counts())


@pytest.mark.parametrize("preset", preset_names())
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.filter_too_much,
                                                                   HealthCheck.too_slow])
@given(shape=st.sampled_from(SHAPES), seed=st.integers(0, 2**64 - 1))
def test_verdicts_equal_exhaustive_search(preset, shape, seed):
    check_agreement(preset, shape, seed)


@pytest.mark.slow
@pytest.mark.parametrize("preset", preset_names())
@settings(max_examples=2500, deadline=None, suppress_health_check=[HealthCheck.filter_too_much,
                                                                    HealthCheck.too_slow])
@given(shape=st.sampled_from(SHAPES), seed=st.integers(0, 2**64 - 1))
def test_verdicts_equal_exhaustive_search_many(preset, shape, seed):
    check_agreement(preset, shape, seed)
