"""search/rows.py, the decoder the layered proof expands every position from, against the positions themselves:
positions reached by random play (full deals of every rule set with short keys, and reduced ones whose
columns wrap K on A), packed by the kernel (``_key``, ``_compact``) and decoded again. The decoded level must
hold the same columns (in key order), foundations, reserve count, redeals, talon, and the key codes and
tableau mask that ``kernel.init_codes`` computes from its cards (the decoder reads them from the key)."""

from __future__ import annotations

import random

import numpy as np
import pytest
from test_layered import SHORT_RULES
from test_solver_agreement import CUSTOM, reduced

from canfield_solver import Deal, Position, get_rules
from canfield_solver.search import codec as C
from canfield_solver.search import kernel as K
from canfield_solver.search import rows as R
from canfield_solver.search.arrays import LoneSearch

from helpers import needs_jit


def _decoded(prob: LoneSearch) -> tuple[np.ndarray, np.ndarray, np.ndarray, int] | None:
    """Level 0 of ``prob`` packed to a short key and decoded into fresh arrays; None if the key is long."""
    p = prob.params
    row = np.zeros(C.CK_WIDTH, np.uint64)
    nb = K.key(prob.cols, prob.sc, prob.mask, 0, p, row, prob.scratch)
    if not K.compact(row, nb, p, prob.sc, 0):
        return None
    K.take_wpos(row, True, p)  # the waste field leaves the key, as the layered proof stores it
    cols = np.full((2, C.MAXCOLS, C.COLCAP), -1, np.int8)
    sc = np.full((2, C.NSC), -7, np.int64)
    mask = np.zeros(2, np.uint64)
    m = R.level_from_row(row[0], row[1], p, prob.reserve, prob.talon, prob.lut, cols, sc, mask, prob.rules.ranks)
    return cols, sc, mask, m


def _check(pos: Position) -> bool:
    prob = LoneSearch(pos)
    got = _decoded(prob)
    if got is None:
        return False
    cols, sc, mask, m = got
    r = pos.rules
    ncols = r.columns
    want = sorted((list(c) for c in pos.tableau), key=lambda c: c[0] + 1 if c else 0)
    have = [[int(x) for x in cols[0, c, :sc[0, C.SC_LEN + c]]] for c in range(ncols)]
    assert have == want, (have, want)
    assert m == 2 * pos.score + sum(len(c) for c in pos.tableau)
    for s in range(4):
        assert sc[0, C.SC_F + s] == prob.sc[0, C.SC_F + s]
    assert sc[0, C.SC_RES] == len(pos.reserve)
    if r.redeals is not None:  # unlimited redeals: the key does not count them
        assert sc[0, C.SC_RDL] == prob.sc[0, C.SC_RDL]
    assert mask[0] == prob.mask[0]
    assert sc[0, C.SC_TAB] == prob.sc[0, C.SC_TAB]
    codes = sc[0, C.SC_CB:C.SC_CB + ncols].copy()
    K.init_codes(cols, sc, 0, prob.params)  # the codes computed from the decoded cards
    assert list(codes) == list(sc[0, C.SC_CB:C.SC_CB + ncols])
    return True


def _walk(deal: Deal, rng: random.Random, steps: int) -> int:
    """Random play from ``deal``, every position checked; the positions checked."""
    pos = Position(deal)
    checked = 0
    for _ in range(steps):
        checked += _check(pos)
        moves = pos.legal_moves()
        if not moves:
            break
        pos.play(rng.choice(moves))
    return checked


@needs_jit
@pytest.mark.parametrize("preset", [r for r in SHORT_RULES if r not in CUSTOM])
def test_a_decoded_short_key_is_the_position(preset):
    rng = random.Random(preset)
    checked = sum(_walk(Deal.from_seed(seed, get_rules(preset)), rng, 120) for seed in range(5))
    assert checked >= 150, checked


@needs_jit
@pytest.mark.parametrize("preset", ["canfield", "runs-any-gap", "gap-lock-runs"])
def test_a_decoded_short_key_is_the_position_on_reduced_decks(preset):
    """Reduced decks: columns that wrap K on A and ranks fewer than 13, where a card's rank below its host
    wraps to the top rank."""
    rng = random.Random(preset)
    checked = 0
    for shape in ((3, 1, 2), (4, 2, 3), (5, 1, 3)):
        for seed in range(6):
            checked += _walk(Deal.from_seed(seed, reduced(preset, shape)), rng, 60)
    assert checked >= 300, checked
