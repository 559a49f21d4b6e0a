"""The games' move codes (games/codes.py): each move gives back its fields, and the compiled reading (the
functions the games' kernels inline) agrees with the plain one on every code."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from canfield_solver.games import codes
from canfield_solver.jit import njit

_pair_move = njit(codes.pair_move)
_pair_first = njit(codes.pair_first)
_pair_second = njit(codes.pair_second)
_ak_move = njit(codes.ak_move)
_ak_card = njit(codes.ak_card)
_ak_source = njit(codes.ak_source)
_ak_target = njit(codes.ak_target)


def test_every_pair_round_trips_and_the_codes_are_distinct():
    seen = set()
    for a in range(10):
        for b in range(a + 1, 10):
            m = codes.pair_move(a, b)
            assert (codes.pair_first(m), codes.pair_second(m)) == (a, b)
            seen.add(m)
    assert len(seen) == 45  # C(10, 2): ten-columns' every pair of columns


def test_every_aces_and_kings_move_round_trips_and_the_codes_are_distinct():
    seen = set()
    for card in range(52):
        for source in range(13):
            for target in [*range(13), codes.A_PILE, codes.K_PILE]:
                m = codes.ak_move(card, source, target)
                assert (codes.ak_card(m), codes.ak_source(m), codes.ak_target(m)) == (card, source, target)
                seen.add(m)
    assert len(seen) == 52 * 13 * 15


@settings(deadline=None)  # the first example compiles
@given(st.integers(0, 9), st.integers(0, 9))
def test_compiled_pair_codes_agree_with_plain(a, b):
    m = codes.pair_move(a, b)
    assert _pair_move(np.int64(a), np.int64(b)) == m
    assert (_pair_first(np.int64(m)), _pair_second(np.int64(m))) == (a, b)


@settings(deadline=None)
@given(st.integers(0, 51), st.integers(0, 12), st.sampled_from([*range(13), codes.A_PILE, codes.K_PILE]))
def test_compiled_aces_and_kings_codes_agree_with_plain(card, source, target):
    m = codes.ak_move(card, source, target)
    assert _ak_move(np.int64(card), np.int64(source), np.int64(target)) == m
    got = (_ak_card(np.int64(m)), _ak_source(np.int64(m)), _ak_target(np.int64(m)))
    assert got == (card, source, target)
