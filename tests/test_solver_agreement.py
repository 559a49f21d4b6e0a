"""The Numba solver against the exhaustive reference search on reduced decks.

Reduced decks (few ranks, 1-2 reserve cards, 2-4 columns) make an exhaustive
plain-Python search finish quickly, so the fast solver's verdict can be
compared with the truth on many deals for every preset.
"""

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from canfield_solver import Deal, Rules, get_rules, preset_names
from canfield_solver.errors import RulesError
from canfield_solver.solver import Verdict, solve

from helpers import examples
from reference_search import exhaustive_winnable

# Rule parameters no preset uses yet, so that every branch of the kernel's
# move generation meets the oracle: runs, gaps taking any card, gaps not
# filled from the reserve, any-suit building, draw 1 with no redeal.
CUSTOM = {
    "runs-any-gap": Rules(name="runs-any-gap", column_moves="runs", gap_fill="any"),
    "no-autofill": Rules(name="no-autofill", gap_autofill=False, gap_fill="any"),
    "any-suit-draw1": Rules(name="any-suit-draw1", build="any", draw=1, redeals=0),
    "gap-lock-runs": Rules(name="gap-lock-runs", column_moves="runs", moves_while_gap_open=False,
                           tableau_wrap="relative-to-base"),
    # Parts of columns moving while gaps take only the waste top: the stuck-card test must stay off
    # (a moved part carries cards off the cards they cover; see the test at the end).
    "runs-waste-gap": Rules(name="runs-waste-gap", column_moves="runs", gap_fill="waste"),
    "freeing-waste-gap": Rules(name="freeing-waste-gap", column_moves="whole-or-freeing", gap_fill="waste"),
}
ALL_RULES = preset_names() + list(CUSTOM)

SHAPES = [(3, 1, 2), (3, 2, 3), (4, 1, 2), (4, 2, 3), (4, 1, 3), (5, 2, 2), (5, 1, 3), (5, 2, 4), (6, 2, 2)]
# The liberal custom rules win almost every deal of the shapes above; with
# one or two columns about a quarter of the deals are lost, so both verdicts
# get checked.
HARD_SHAPES = [(5, 2, 1), (6, 2, 1), (4, 2, 2), (5, 2, 2)]
# The custom rules draw from these and two larger shapes: a prune that is unsound under moving parts
# (runs, whole-or-freeing) first showed on deals of 3 columns or 6 ranks.
CUSTOM_SHAPES = HARD_SHAPES + [(5, 2, 3), (6, 2, 2)]


def reduced(preset, shape):
    ranks, reserve, columns = shape
    base = CUSTOM[preset] if preset in CUSTOM else get_rules(preset)
    return base.replace(name=f"{preset}-{ranks}r{reserve}c{columns}", ranks=ranks, reserve_size=reserve,
                        columns=columns)


def check_agreement(preset, shape, seed, max_states, workers=1):
    return check_deal(Deal.from_seed(seed, reduced(preset, shape)), max_states, workers, (preset, shape, seed))


def check_deal(deal, max_states, workers=1, label=None):
    """The solver's verdict on ``deal`` equals the exhaustive search's (deals too big for it are skipped);
    the verdict, True for won."""
    try:
        truth = exhaustive_winnable(deal, max_states=max_states)
    except RuntimeError:
        assume(False)
    res = solve(deal, workers=workers)
    assert res.verdict is not Verdict.UNKNOWN
    assert (res.verdict is Verdict.SOLVED) == truth, (label, res.verdict)
    if res.solved:
        assert len(res.moves) > 0 or deal.rules.ranks * 4 == sum(deal.foundation_counts())
    return truth


def agreement_test(max_examples, max_states):
    """The agreement check over ``max_examples`` Hypothesis deals for each rule set.

    Deals whose state space exceeds ``max_states`` for the plain-Python
    oracle are skipped (``assume``); the deals compared are counted, and the
    test fails if fewer than half the examples asked for were compared (a
    property that skips most of its deals checks little). The count and the
    lost deals among them are printed (``pytest -rP`` shows them) and in the failure message."""

    @pytest.mark.parametrize("preset", ALL_RULES)
    def test(preset):
        asked = examples(max_examples)
        compared = lost = 0

        @settings(max_examples=asked, deadline=None,
                  suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
        @given(data=st.data(), seed=st.integers(0, 2**64 - 1))
        def agree(data, seed):
            nonlocal compared, lost
            shape = data.draw(st.sampled_from(CUSTOM_SHAPES if preset in CUSTOM else SHAPES))
            won = check_agreement(preset, shape, seed, max_states)
            compared += 1
            lost += not won

        agree()
        print(f"{preset}: {compared} deals compared with the exhaustive search, {lost} of them lost")  # -rP shows it
        assert compared >= max(1, asked // 2), f"{preset}: {compared} deals compared ({lost} lost) of {asked} asked"

    return test


# A quick sample of every rule set in the default run; 120 deals each in the exhaustive tier; 2,500 under -m slow.
test_verdicts_equal_exhaustive_search_sample = agreement_test(20, 12_000)
test_verdicts_equal_exhaustive_search = pytest.mark.exhaustive(agreement_test(120, 12_000))
test_verdicts_equal_exhaustive_search_many = pytest.mark.slow(agreement_test(2500, 40_000))


# Presets whose random reduced deals of SHAPES are almost all won (the agreement properties above compared no
# lost deal of them in 120): with one column and a reserve of three or four a deal of four ranks is lost often
# enough (3-12 of these 80 per preset, as the exhaustive search finds them) to check the lost verdicts too.
LOSING_SHAPES = [(4, 3, 1), (4, 4, 1)]


@pytest.mark.exhaustive
@pytest.mark.parametrize("preset", ["canfield-draw1", "storehouse", "storehouse-aces", "rainbow", "chameleon"])
def test_lost_verdicts_equal_exhaustive_search_where_random_deals_are_won(preset):
    """Every deal of LOSING_SHAPES, seeds 0-39: the solver's verdict equals the exhaustive search's, and at
    least three of the deals compared are lost (the deals are chosen by shape, never by their verdict)."""
    compared = lost = 0
    for shape in LOSING_SHAPES:
        for seed in range(40):
            deal = Deal.from_seed(seed, reduced(preset, shape))
            truth = exhaustive_winnable(deal, max_states=12_000)  # every one fits: none is skipped
            res = solve(deal)
            assert (res.verdict is Verdict.SOLVED) == truth and res.verdict is not Verdict.UNKNOWN, (shape, seed)
            compared += 1
            lost += not truth
    print(f"{preset}: {compared} deals compared with the exhaustive search, {lost} of them lost")  # -rP shows it
    assert compared == 80 and lost >= 3, (compared, lost)


@pytest.mark.parametrize("preset", ["canfield", "canfield-whole-pile", "storehouse", "rainbow", "runs-any-gap"])
@settings(max_examples=examples(25), deadline=None,
          suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
@pytest.mark.exhaustive
@given(data=st.data(), seed=st.integers(0, 2**64 - 1))
def test_long_keys_alone_give_the_same_verdicts(preset, data, seed):
    """Reduced decks always fit the short table; with short keys switched off the long table does the work."""
    from unittest import mock

    import canfield_solver.search.arrays as solver_module
    shape = data.draw(st.sampled_from(CUSTOM_SHAPES if preset in CUSTOM else SHAPES))
    with mock.patch.object(solver_module, "SHORT_KEYS", False):
        check_agreement(preset, shape, seed, 12_000)


@pytest.mark.parametrize("preset, seed", [("canfield", 141), ("canfield-whole-pile", 12), ("storehouse", 3),
                                          ("rainbow", 5), ("pysolfc-canfield", 8)])
def test_foundation_heights_in_short_keys_name_the_same_positions(preset, seed):
    """Short keys with the four foundation heights in place of the talon mask (docs/solver-notes.md §3)
    are exact: the same search node for node and position for position, with as many keys short or more
    (rainbow's any-suit columns take two bits a card and never fit a short key either way)."""
    from unittest import mock

    import canfield_solver.search.arrays as solver_module
    on = solve(seed, preset, max_nodes=400_000)
    with mock.patch.object(solver_module, "FOUNDATION_KEYS", False):
        off = solve(seed, preset, max_nodes=400_000)
    assert (on.verdict, on.nodes, on.positions, on.moves) == (off.verdict, off.nodes, off.positions, off.moves)
    assert on.stats["short_keys"] >= off.stats["short_keys"]
    if preset == "canfield":  # seed 141's long columns: beside the mask some keys did not fit; now all do
        assert off.stats["short_keys"] < off.stats["table_keys"] == on.stats["short_keys"]


# Covering (docs/solver-notes.md §6): one short row for every waste position of a position, and a child is
# cut when a position earlier in the same pass was reached. It works only with draw > 1 and unlimited redeals.
COVER_RULES = ["canfield", "canfield-whole-pile", "pysolfc-canfield", "canfield-sequences"]
# One or two columns and a longer talon: covering fires on about half of these deals (a few percent of
# the shapes above), and about a third of them are lost.
COVER_SHAPES = [(6, 2, 1), (7, 2, 1), (6, 2, 2), (7, 2, 2)]


def oracle_on_off(deal, switch, workers=1):
    """(the exhaustive search's verdict, True for won; ``solve`` with ``search.arrays``'s ``switch`` on; with it
    off) for one deal, both searches held to the oracle's verdict and the first to a decided one; None where
    the oracle cannot decide the deal."""
    from unittest import mock

    import canfield_solver.search.arrays as solver_module

    try:
        truth = exhaustive_winnable(deal, max_states=12_000)
    except RuntimeError:
        return None
    on = solve(deal, workers=workers)
    with mock.patch.object(solver_module, switch, False):
        off = solve(deal, workers=workers)
    assert (on.verdict is Verdict.SOLVED) == truth == (off.verdict is Verdict.SOLVED), (deal.rules.name, deal.seed)
    assert on.verdict is not Verdict.UNKNOWN
    return truth, on, off


def check_covering(preset, seeds):
    """The oracle, the search with covering and the search without it agree on every deal; covering cuts
    children on a fair share of them (so the agreement is not vacuous) and never grows a proof of loss."""
    checked = fired = 0
    for seed in seeds:
        shape = COVER_SHAPES[seed % len(COVER_SHAPES)]
        got = oracle_on_off(Deal.from_seed(seed, reduced(preset, shape)), "COVER")
        if got is None:
            continue
        truth, with_cover, without = got
        assert without.stats["covered"] == 0
        checked += 1
        fired += with_cover.stats["covered"] > 0
        if not truth:
            assert with_cover.positions <= without.positions, seed
    return checked, fired


@pytest.mark.exhaustive
@pytest.mark.parametrize("preset", COVER_RULES)
def test_covering_keeps_every_verdict_and_cuts_children(preset):
    checked, fired = check_covering(preset, range(120))
    assert checked >= 80 and fired >= checked // 5, (checked, fired)


@pytest.mark.slow
@pytest.mark.parametrize("preset", COVER_RULES)
def test_covering_keeps_every_verdict_many(preset):
    checked, fired = check_covering(preset, range(120, 2120))
    assert checked >= 1500 and fired >= checked // 5, (checked, fired)


# Covering of limited passes (docs/solver-notes.md, "Limited passes"): with draw 1 and a redeal or more, a row
# keeps the least (redeals used, waste position) its position was reached at, and a later one is cut.
PASSES_RULES = {
    "storehouse": get_rules("storehouse"),
    "draw1-two-passes": get_rules("canfield").replace(name="draw1-two-passes", draw=1, redeals=1),
    "draw1-three-passes": get_rules("canfield").replace(name="draw1-three-passes", draw=1, redeals=2),
}
# Reserves this large against so few columns lose a fair share of the deals (the liberal shapes above lose
# almost none with a second pass), and the oracle still decides most of them.
PASSES_SHAPES = [(6, 4, 1), (7, 4, 1), (6, 5, 2), (7, 6, 2)]  # ranks, reserve, columns


def check_passes_cover(name, seeds, workers=1):
    """The oracle, the search with covering of limited passes and the search without it agree on every deal
    the oracle decides; covering cuts children on a share of them and never grows a proof of loss. (checked,
    deals where it cut, lost)."""
    checked = fired = lost = 0
    for seed in seeds:
        ranks, reserve, columns = PASSES_SHAPES[seed % len(PASSES_SHAPES)]
        deal = Deal.from_seed(seed, PASSES_RULES[name].replace(ranks=ranks, reserve_size=reserve, columns=columns))
        got = oracle_on_off(deal, "PASSES_COVER", workers)
        if got is None:
            continue
        truth, with_cover, without = got
        assert without.stats["covered"] == 0
        checked += 1
        fired += with_cover.stats["covered"] > 0
        lost += not truth
        if not truth and workers == 1:
            assert with_cover.positions <= without.positions, seed
    return checked, fired, lost


def test_passes_cover_keeps_every_verdict_sample():
    checked, fired, lost = check_passes_cover("draw1-two-passes", range(24))
    assert checked >= 10 and fired >= 3 and lost >= 3, (checked, fired, lost)


@pytest.mark.exhaustive
@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("name", sorted(PASSES_RULES))
def test_passes_cover_keeps_every_verdict(name, workers):
    checked, fired, lost = check_passes_cover(name, range(100), workers)
    assert checked >= 40 and fired >= 5 and lost >= 3, (checked, fired, lost)


# The talon as a pool (kernel.pool_chain, docs/solver-notes.md): with draw 1 and unlimited redeals a talon
# card goes onto a column only where a chain of talon cards from it ends at a card a move can put on it next.
POOL_RULES = {
    "canfield-draw1": get_rules("canfield-draw1"),
    "whole-pile-draw1": get_rules("canfield-whole-pile").replace(name="whole-pile-draw1", draw=1),
    "any-suit-draw1-unlimited": Rules(name="any-suit-draw1-unlimited", build="any", draw=1),
}
# One column and a big reserve make lost deals (the any-suit rules lose none of these: checked for wins alone).
POOL_SHAPES = [(4, 4, 1), (4, 3, 1), (5, 4, 1), (6, 4, 1), (5, 2, 2), (6, 2, 2)]
POOL_LOST = {"canfield-draw1": 8, "whole-pile-draw1": 8, "any-suit-draw1-unlimited": 0}  # at least, of 200


def check_pool(name, seeds, workers=1):
    """The oracle, the search with the pool rule and the search without it agree on every deal; the rule
    changes the search on a fair share of them, and never grows a proof of loss. (checked, lost, changed)"""
    checked = lost = changed = 0
    for seed in seeds:
        ranks, reserve, columns = POOL_SHAPES[seed % len(POOL_SHAPES)]
        deal = Deal.from_seed(seed, POOL_RULES[name].replace(ranks=ranks, reserve_size=reserve, columns=columns))
        got = oracle_on_off(deal, "POOL", workers)
        if got is None:
            continue
        truth, with_pool, without = got
        checked += 1
        changed += (with_pool.nodes, with_pool.positions) != (without.nodes, without.positions)
        if not truth:
            lost += 1
            if workers == 1:
                assert with_pool.positions <= without.positions, seed
    return checked, lost, changed


def test_the_pool_rule_keeps_every_verdict_sample():
    checked, lost, changed = check_pool("canfield-draw1", range(36))
    assert checked >= 30 and lost >= 2 and changed >= checked // 5, (checked, lost, changed)


@pytest.mark.exhaustive
@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("name", list(POOL_RULES))
def test_the_pool_rule_keeps_every_verdict(name, workers):
    checked, lost, changed = check_pool(name, range(200), workers)
    assert checked >= 150 and lost >= POOL_LOST[name] and changed >= checked // 5, (checked, lost, changed)


@pytest.mark.exhaustive
@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("preset", ["canfield", "canfield-whole-pile"])
def test_agreement_where_stuck_children_are_left_out(preset, workers):
    """Fixed reduced deals, some lost, on which the stuck-card test cuts children when they are made
    (kernel.expand, docs/solver-notes.md §2): the verdicts still equal the exhaustive search's, alone and
    with two workers, and the prune fired on the lost deals themselves."""
    lost = stuck_on_lost = 0
    for shape in [(5, 2, 2), (6, 2, 2)]:
        for seed in range(30):
            deal = Deal.from_seed(seed, reduced(preset, shape))
            try:
                truth = exhaustive_winnable(deal, max_states=40_000)
            except RuntimeError:
                continue
            res = solve(deal, workers=workers)
            assert res.verdict is not Verdict.UNKNOWN
            assert (res.verdict is Verdict.SOLVED) == truth, (preset, shape, seed, res.verdict)
            if not truth:
                lost += 1
                stuck_on_lost += res.stats["stuck_prunes"]
    assert lost > 0 and stuck_on_lost > 0


@pytest.mark.parametrize("column_moves, shape, seed", [("runs", (5, 2, 3), 247), ("whole-or-freeing", (6, 2, 3), 80)])
def test_no_stuck_card_test_where_parts_of_columns_move(column_moves, shape, seed):
    """A won deal that the stuck-card test once called lost: with parts of columns moving, a part can
    carry a card of the "stuck" set off the card it covered, which SOLVER-NOTES §2 assumes never happens.
    The kernel must not apply the test under such rules (solver._params), whatever the gap rule."""
    ranks, reserve, columns = shape
    rules = Rules(name="parts-waste", column_moves=column_moves, gap_fill="waste",
                  ranks=ranks, reserve_size=reserve, columns=columns)
    deal = Deal.from_seed(seed, rules)
    assert exhaustive_winnable(deal, max_states=40_000)
    res = solve(deal)
    assert res.verdict is Verdict.SOLVED
    assert res.stats["stuck_prunes"] == 0


@st.composite
def any_rules(draw):
    """A rule set with every field drawn (reduced sizes), so that combinations no preset or fixed custom
    rule set has meet the exhaustive search too."""
    ranks = draw(st.integers(4, 6))
    base = draw(st.one_of(st.just("random"), st.integers(0, ranks - 1)))
    fields = dict(
        name="any", ranks=ranks, reserve_size=draw(st.integers(0, 2)), columns=draw(st.integers(1, 3)),
        base=base, build=draw(st.sampled_from(["alternate", "suit", "any"])),
        tableau_wrap=draw(st.sampled_from(["full", "relative-to-base", "none"])),
        column_moves=draw(st.sampled_from(["top-and-whole", "whole", "runs", "whole-or-freeing"])),
        gap_fill=draw(st.sampled_from(["waste", "any"])), gap_autofill=draw(st.booleans()),
        draw=draw(st.integers(1, 3)), redeals=draw(st.sampled_from([None, 0, 1, 2])),
        moves_while_gap_open=draw(st.booleans()),
        base_removed=base != "random" and draw(st.booleans()))
    try:
        return Rules(**fields)
    except RulesError:
        assume(False)


def any_rules_test(max_examples, max_states):
    @settings(max_examples=examples(max_examples), deadline=None,
              suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
    @given(rules=any_rules(), seed=st.integers(0, 2**64 - 1))
    def test(rules, seed):
        check_deal(Deal.from_seed(seed, rules), max_states, label=(rules, seed))

    return test


test_random_rule_sets_equal_exhaustive_search_sample = any_rules_test(30, 12_000)
test_random_rule_sets_equal_exhaustive_search = pytest.mark.exhaustive(any_rules_test(300, 12_000))
test_random_rule_sets_equal_exhaustive_search_many = pytest.mark.slow(any_rules_test(4000, 30_000))


# The waste's top home as the only move (docs/solver-notes.md, "The waste's top home"): where the draw is 1 or
# no redeal is left, outside a pool. Reduced decks, so that the oracle can decide every deal.
WASTE_TOP_RULES = {
    "draw1-two-passes": get_rules("canfield").replace(name="draw1-two-passes", draw=1, redeals=1),
    "any-suit-draw1-one-pass": get_rules("rainbow"),
    "draw3-one-pass": get_rules("canfield").replace(name="draw3-one-pass", redeals=0),
}
WASTE_TOP_SHAPES = [(5, 2, 2), (6, 2, 2), (5, 3, 1), (6, 4, 2)]  # ranks, reserve, columns


def _forced_waste_top(pos) -> bool:
    """Whether the search's safe-move list at ``pos`` is the waste's top home alone, where more moves exist."""
    import numpy as np

    from canfield_solver.search import codec as C
    from canfield_solver.search import kernel as K
    from canfield_solver.search.arrays import LoneSearch

    prob = LoneSearch(pos)
    out = np.zeros(C.SCRATCH_SIZE, np.int64)
    n = K.gen(prob.deal, prob.cols, prob.sc, prob.mask, 0, out, True, prob.scratch, -1, -1, -1)
    if n != 1 or int(out[0]) & 15 != C.K_WF:
        return False
    return K.gen(prob.deal, prob.cols, prob.sc, prob.mask, 0, out, False, prob.scratch, -1, -1, -1) > 1


@pytest.mark.exhaustive
@pytest.mark.parametrize("name", sorted(WASTE_TOP_RULES))
def test_the_waste_top_home_keeps_every_verdict_and_is_reached(name):
    """Every reduced deal the oracle decides gets its verdict, and the rule is met on the way (a position on
    random lines from those deals where the search plays the waste's top home alone)."""
    import random

    from canfield_solver import Position

    checked = reached = 0
    rng = random.Random(7)
    for seed in range(60):
        ranks, reserve, columns = WASTE_TOP_SHAPES[seed % len(WASTE_TOP_SHAPES)]
        deal = Deal.from_seed(seed, WASTE_TOP_RULES[name].replace(ranks=ranks, reserve_size=reserve, columns=columns))
        try:
            truth = exhaustive_winnable(deal, max_states=12_000)
        except RuntimeError:
            continue
        res = solve(deal)
        assert res.verdict is not Verdict.UNKNOWN and (res.verdict is Verdict.SOLVED) == truth, (name, seed)
        checked += 1
        pos = Position(deal)
        for _ in range(40):
            reached += _forced_waste_top(pos)
            moves = pos.legal_moves()
            if not moves:
                break
            pos = pos.copy()
            pos.play(rng.choice(moves))
    assert checked >= 30 and reached >= 3, (checked, reached)
