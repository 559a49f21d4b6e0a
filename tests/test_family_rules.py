"""The family presets (issues 5 and 6): a hand-built position for every rule that differs from `canfield`,
and every preset's deal from a seed in SPEC §2 step 5 order."""

import pytest

from canfield_solver import Deal, IllegalMoveError, Position, get_rules, preset_names
from canfield_solver.engine.cards import card_name, rank_of
from canfield_solver.engine.deal import shuffled_deck

from helpers import make


def names(pile):
    return [card_name(c) for c in pile]


# --- Deals from seeds ------------------------------------------------------------------------------


@pytest.mark.parametrize("preset", preset_names())
@pytest.mark.parametrize("seed", [0, 1, 42, 2**64 - 1])
def test_seed_deal_follows_spec_order(preset, seed):
    """Reserve's R cards, then the base card if any, then one card per column, the rest the stock (top first)."""
    r = get_rules(preset)
    deck = shuffled_deck(seed, r)
    d = Deal.from_seed(seed, preset)
    if r.base_removed:
        assert sorted(d.foundations) == sorted((c,) for c in deck if rank_of(c) == r.base)
        deck = [c for c in deck if rank_of(c) != r.base]
    k = r.reserve_size
    assert list(d.reserve) == deck[:k]
    if r.has_base_card:
        assert d.foundations == ((deck[k],),) and d.base_rank == rank_of(deck[k])
        k += 1
    elif not r.base_removed:
        assert d.foundations == () and d.base_rank == r.base
    assert [list(c) for c in d.tableau] == [[deck[k + i]] for i in range(r.columns)]
    k += r.columns
    assert list(reversed(d.stock)) == deck[k:]
    assert len(d.stock) == r.stock_size
    assert Deal.from_json(d.to_json(), preset) == d


def test_storehouse_seed_0_layout():
    # The canfield deal of seed 0 with its four 2s taken out (2S, 2D from the reserve, 2C from the tableau,
    # 2H from the stock), the rest in order: the stock's top card is AH, its bottom card TH.
    d = Deal.from_seed(0, "storehouse")
    assert names(d.reserve) == "8S JH 9C QD 6S TC 3D AC JC 7C 9H 8C QS".split()
    assert [names(c) for c in d.tableau] == [["KH"], ["5H"], ["3H"], ["5C"]]
    assert names(d.foundations[i][0] for i in range(4)) == ["2C", "2D", "2H", "2S"]
    assert len(d.stock) == 31 and card_name(d.stock[0]) == "TH" and card_name(d.stock[-1]) == "AH"
    data = d.to_dict()
    assert data["foundations"] == [["2C"], ["2D"], ["2H"], ["2S"]] and "foundation" not in data


def test_storehouse_deal_json_needs_the_four_twos():
    d = Deal.from_seed(3, "storehouse").to_dict()
    d.pop("foundations")
    with pytest.raises(ValueError, match="start all four foundations with the 2s"):
        Deal.from_dict(d, "storehouse")


def test_chameleon_seed_layout():
    d = Deal.from_seed(7, "chameleon")
    assert len(d.reserve) == 12 and len(d.tableau) == 3 and len(d.stock) == 36
    assert len(d.foundations) == 1


# --- canfield-sequences -----------------------------------------------------------------------------


def test_sequences_move_any_run():
    p = make(rules="canfield-sequences", tableau=[["9S", "8H", "7C"], ["9C"], ["2C"], ["3C"]],
             foundations=[["5S"]], reserve=["4D"])
    assert "T1:2>T2" in p.legal_moves()
    p.play("T1:2>T2")
    assert names(p.tableau[1]) == ["9C", "8H", "7C"]
    assert names(p.tableau[0]) == ["9S"]


def test_canfield_refuses_a_run_that_sequences_allows():
    p = make(tableau=[["9S", "8H", "7C"], ["9C"], ["2C"], ["3C"]], foundations=[["5S"]], reserve=["4D"])
    with pytest.raises(IllegalMoveError, match="only the top card or the whole column"):
        p.play("T1:2>T2")


def test_sequences_gap_takes_a_column_part_once_the_reserve_is_empty():
    p = make(rules="canfield-sequences", tableau=[["9S", "8H", "7C"], ["TD"], [], ["3C"]], foundations=[["5S"]])
    assert {"T1>T3", "T1:2>T3"} <= set(p.legal_moves())
    p.play("T1:2>T3")
    assert names(p.tableau[2]) == ["8H", "7C"]
    canfield = make(tableau=[["9S", "8H", "7C"], ["TD"], [], ["3C"]], foundations=[["5S"]])
    with pytest.raises(IllegalMoveError, match="takes only the waste top"):
        canfield.play("T1>T3")


# --- canfield-draw1 ---------------------------------------------------------------------------------


def test_draw1_turns_one_card():
    d = Deal.from_seed(0, "canfield-draw1")
    p = Position(d)
    p.play("draw")
    assert len(p.waste) == 1 and len(p.stock) == 33
    p3 = Position(Deal.from_seed(0))
    p3.play("draw")
    assert len(p3.waste) == 3


# --- superior-canfield ------------------------------------------------------------------------------


def test_superior_gaps_are_not_filled_automatically_and_take_any_card():
    p = make(rules="superior-canfield", reserve=["4D", "JS"], tableau=[["9S", "8H"], ["TD"], [], ["3C"]],
             foundations=[["5S"]], waste=["QC"])
    assert p.tableau[2] == []  # the reserve did not fill it
    legal = set(p.legal_moves())
    assert {"R>T3", "W>T3", "T1>T3"} <= legal
    p.play("T1>T3")
    assert names(p.tableau[2]) == ["8H"] and len(p.reserve) == 2
    with pytest.raises(ValueError, match="empty while the reserve has cards"):
        make(reserve=["4D"], tableau=[["9S"], ["TD"], [], ["3C"]], foundations=[["5S"]])


# --- rainbow and chameleon ----------------------------------------------------------------------------


@pytest.mark.parametrize("preset", ["rainbow", "chameleon"])
def test_build_regardless_of_suit_draw1_no_redeal(preset):
    cols = [["6H"], ["5H"], ["5D"], ["9S"]][: get_rules(preset).columns]
    p = make(rules=preset, tableau=cols, foundations=[["2C"]], reserve=["KC"])
    p.play("T2>T1")  # 5H on 6H: same colour, same suit
    assert names(p.tableau[0]) == ["6H", "5H"]
    q = make(rules=preset, tableau=[["6H"], ["4H"], ["7C"]] + [["9S"]][: get_rules(preset).columns - 3],
             foundations=[["2C"]], reserve=["KC"])
    with pytest.raises(IllegalMoveError, match="does not fit"):
        q.play("T2>T1")
    r = make(rules=preset, tableau=cols, foundations=[["2C"]], reserve=["KC"])
    while r.stock:
        r.play("draw")
    assert "redeal" not in r.legal_moves()
    with pytest.raises(IllegalMoveError, match="no redeals left"):
        r.play("redeal")


# --- storehouse ---------------------------------------------------------------------------------------


def test_storehouse_foundations_run_2_to_k_then_a():
    p = make(rules="storehouse", reserve=["AH", "KH"], tableau=[["9C"], ["5D"], ["7S"], ["JC"]],
             foundations=[["2C"], ["2D"], "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH".split(), ["2S"]])
    p.play("R>F")  # KH
    p.play("R>F")  # AH after the K
    assert p.foundations[2] == 13


def test_storehouse_builds_in_suit_with_wrap():
    p = make(rules="storehouse", reserve=["KS", "JD"], tableau=[["6H"], ["5H"], ["5D"], ["AS"]],
             foundations=[["2C"], ["2D"], ["2H"], ["2S"]])
    with pytest.raises(IllegalMoveError, match="5D does not fit on 6H"):
        p.play("T3>T1")
    p.play("T2>T1")
    p.play("R>T4")  # K on A: columns wrap
    assert names(p.tableau[3]) == ["AS", "KS"]


def test_storehouse_allows_two_redeals():
    p = make(rules="storehouse", reserve=["KS"], tableau=[["6H"], ["5H"], ["5D"], ["AS"]],
             foundations=[["2C"], ["2D"], ["2H"], ["2S"]], redeals_used=1)
    while p.stock:
        p.play("draw")
    p.play("redeal")
    while p.stock:
        p.play("draw")
    with pytest.raises(IllegalMoveError, match="no redeals left"):
        p.play("redeal")


# --- solvitaire-canfield (issue 6) --------------------------------------------------------------------


def test_solvitaire_part_moves_only_when_it_frees_a_foundation_card():
    # Base 5: the clubs foundation holds 5C 6C, so 7C may go up next.
    frees = make(rules="solvitaire-canfield", tableau=[["7C", "6H", "5S"], ["7S"], ["2D"], ["3D"]],
                 foundations=[["5C", "6C"]], reserve=["4D"])
    assert "T1:2>T2" in frees.legal_moves()      # uncovers 7C, which fits its foundation
    frees.play("T1:2>T2")
    assert names(frees.tableau[1]) == ["7S", "6H", "5S"] and "T1>F" in frees.legal_moves()
    stuck = make(rules="solvitaire-canfield", tableau=[["8C", "7H", "6S"], ["8S"], ["2D"], ["3D"]],
                 foundations=[["5C", "6C"]], reserve=["4D"])
    assert "T1:2>T2" not in stuck.legal_moves() and "T1>T2" not in stuck.legal_moves()
    with pytest.raises(IllegalMoveError, match="only when the card it uncovers, 8C, can go to its foundation"):
        stuck.play("T1:2>T2")
    # The whole column always moves onto a column it fits.
    whole = make(rules="solvitaire-canfield", tableau=[["7H", "6S"], ["8C"], ["2D"], ["3D"]],
                 foundations=[["5C"]], reserve=["4D"])
    assert "T1*>T2" in whole.legal_moves()


def test_solvitaire_gap_takes_any_part_of_a_column():
    p = make(rules="solvitaire-canfield", tableau=[["8C", "7H", "6S"], ["9D"], [], ["3D"]],
             foundations=[["5C"]])
    legal = set(p.legal_moves())
    assert {"T1>T3", "T1:2>T3"} <= legal  # into a gap no foundation condition applies


def test_solvitaire_wraps_relative_to_the_base():
    # Base 5: a 4 (base-1) never goes on a 5 (base); K goes on A.
    p = make(rules="solvitaire-canfield", tableau=[["5H"], ["4C"], ["AD"], ["KS"]], foundations=[["5C"]],
             reserve=["QD"])
    with pytest.raises(IllegalMoveError, match="4C does not fit on 5H"):
        p.play("T2>T1")
    p.play("T4>T3")
    full = make(tableau=[["5H"], ["4C"], ["AD"], ["KS"]], foundations=[["5C"]], reserve=["QD"])
    full.play("T2>T1")  # under full wrap it does


def test_kernel_generates_the_same_freeing_moves():
    from test_kernel import kernel_moves, reference_moves

    for tableau, foundations in [
        ([["7C", "6H", "5S"], ["7S"], ["2D"], ["3D"]], [["5C", "6C"]]),
        ([["8C", "7H", "6S"], ["8S"], ["2D"], ["3D"]], [["5C", "6C"]]),
        ([["8C", "7H", "6S"], ["9D"], [], ["3D"]], [["5C"]]),
    ]:
        reserve = ["4D"] if all(tableau) else []
        p = make(rules="solvitaire-canfield", tableau=tableau, foundations=foundations, reserve=reserve)
        assert kernel_moves(p) == reference_moves(p)
