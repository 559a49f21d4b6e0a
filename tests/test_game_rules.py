"""One or more tests for every clause of SPEC §3, each on a hand-built position."""

import pytest

from canfield_solver import Deal, IllegalMoveError, Position, replay
from canfield_solver.engine.cards import card_name, parse_card

from helpers import make, make_deal, progress_reachable


def tops(p):
    return [card_name(c[-1]) if c else None for c in p.tableau]


# Foundations ---------------------------------------------------------------

def test_empty_foundation_refuses_ace_when_base_is_6():
    p = make(reserve=["AH"], tableau=[["2C"], ["3C"], ["4C"], ["9D"]], foundations=[["6C"]])
    with pytest.raises(IllegalMoveError, match="cannot start a foundation: foundations start with rank 6"):
        p.play("R>F")


def test_empty_foundation_takes_base_rank():
    p = make(reserve=["6H"], tableau=[["2C"], ["3C"], ["4C"], ["9D"]], foundations=[["6C"]])
    p.play("R>F")
    assert p.foundations == [1, 0, 1, 0]


def test_foundation_builds_in_suit_and_wraps_k_to_a():
    p = make(reserve=["AC", "KC"], tableau=[["2D"], ["3D"], ["4D"], ["9D"]],
             foundations=[["6C", "7C", "8C", "9C", "TC", "JC", "QC"]])
    p.play("R>F")  # KC
    p.play("R>F")  # AC after K: the clubs foundation runs 6..K, A..5
    assert p.foundations[0] == 9


def test_foundation_refuses_wrong_suit():
    p = make(reserve=["7D"], tableau=[["2S"], ["3S"], ["4S"], ["9S"]], foundations=[["6C"], ["6D"]])
    p.play("R>F")
    p2 = make(reserve=["7H"], tableau=[["2S"], ["3S"], ["4S"], ["9S"]], foundations=[["6C"], ["6D"]])
    with pytest.raises(IllegalMoveError, match="cannot start a foundation"):
        p2.play("R>F")


def test_foundation_ends_with_13_cards():
    full = "6C 7C 8C 9C TC JC QC KC AC 2C 3C 4C 5C".split()
    p = make(tableau=[["2D"], ["3D"], ["4D"], ["9D"]], foundations=[full])
    assert p.foundations[0] == 13
    assert not p.fits_foundation(5)  # 6C again: the pile is complete


# Tableau -------------------------------------------------------------------

def test_builds_down_in_alternate_colour():
    p = make(tableau=[["5H"], ["6D"], ["6C"], ["9S"]], foundations=[["2C"]])
    with pytest.raises(IllegalMoveError, match="5H does not fit on 6D"):
        p.play("T1>T2")
    p.play("T1>T3")
    assert [card_name(c) for c in p.tableau[2]] == ["6C", "5H"]


def test_king_goes_on_ace():
    p = make(tableau=[["AC"], ["KH"], ["3S"], ["9S"]], foundations=[["6C"]])
    assert "T2>T1" in p.legal_moves()
    p.play("T2>T1")
    assert [card_name(c) for c in p.tableau[0]] == ["AC", "KH"]


def test_top_card_moves_to_column_and_foundation():
    p = make(tableau=[["8S", "7H"], ["8C"], ["7D"], ["JS"]], foundations=[["6H"]])
    assert "T1>T2" in p.legal_moves() and "T1>F" in p.legal_moves()
    p.play("T1>F")
    assert p.foundations[2] == 2 and tops(p)[0] == "8S"


def test_whole_column_moves_onto_fitting_column():
    p = make(tableau=[["9H", "8S", "7H"], ["TC"], ["2D"], ["JS"]], reserve=["3C"], foundations=[["6C"]])
    p.play("T1*>T2")
    assert [card_name(c) for c in p.tableau[1]] == ["TC", "9H", "8S", "7H"]
    assert [card_name(c) for c in p.tableau[0]] == ["3C"]  # the gap took the reserve top at once


def test_part_of_a_column_never_moves():
    p = make(tableau=[["9H", "8S", "7H"], ["9C"], ["2D"], ["JS"]], foundations=[["6C"]])
    assert not any(m.startswith("T1:") for m in p.legal_moves())
    with pytest.raises(IllegalMoveError, match="only the top card or the whole column"):
        p.play("T1:2>T2")


def test_whole_column_must_fit_at_its_bottom():
    p = make(tableau=[["9H", "8S"], ["9C"], ["2D"], ["JS"]], foundations=[["6C"]])
    with pytest.raises(IllegalMoveError, match="9H does not fit on 9C"):
        p.play("T1*>T2")


# Reserve -------------------------------------------------------------------

def test_reserve_top_to_foundation_and_column():
    p = make(reserve=["4D", "7D"], tableau=[["8S"], ["3C"], ["2D"], ["JS"]], foundations=[["6D"]])
    assert {"R>F", "R>T1"} <= set(p.legal_moves())
    p.play("R>T1")
    assert tops(p)[0] == "7D" and card_name(p.reserve[-1]) == "4D"


def test_cards_never_go_back_to_the_reserve():
    p = make(reserve=["4D"], tableau=[["8S"], ["3C"], ["2D"], ["JS"]], foundations=[["6D"]])
    assert not any(m.endswith(">R") for m in p.legal_moves())
    from canfield_solver import MoveError
    with pytest.raises(MoveError):
        p.play("T1>R")


def test_only_reserve_top_is_playable():
    p = make(reserve=["7C", "4D"], tableau=[["8H"], ["3C"], ["2D"], ["JS"]], foundations=[["6D"]])
    assert "R>T1" not in p.legal_moves()  # 7C is under 4D


# Gaps ----------------------------------------------------------------------

def test_gap_is_filled_from_reserve_before_anything_else():
    p = make(reserve=["KS", "QD"], tableau=[["7D"], ["3C"], ["2D"], ["JS"]], foundations=[["6D"]])
    p.play("T1>F")
    assert tops(p)[0] == "QD" and len(p.reserve) == 1


def test_gap_filled_after_whole_column_moves_and_dealt_positions_have_no_gap():
    from canfield_solver import DealError

    with pytest.raises(DealError, match="empty while the reserve has cards"):
        Deal.from_dict({
            "reserve": ["KS", "QD"], "tableau": [[], ["3C"], ["2D"], ["JS"]], "foundations": [["6D"]],
            "stock": [card_name(c) for c in range(52) if card_name(c) not in {"KS", "QD", "3C", "2D", "JS", "6D"}],
            "waste": []})
    p = make(reserve=["KS", "QD"], tableau=[["8H", "7S"], ["9C"], ["2D"], ["JS"]], foundations=[["6D"]])
    p.play("T1*>T2")
    assert tops(p)[0] == "QD" and len(p.reserve) == 1


def test_no_tableau_card_may_fill_a_gap():
    p = make(tableau=[["7D", "6S"], ["3C"], [], ["JS"]], waste=["KH"], foundations=[["6D"]])
    ms = p.legal_moves()
    assert "W>T3" in ms
    assert not any(m.endswith(">T3") and m.startswith("T") for m in ms)
    with pytest.raises(IllegalMoveError, match="an empty column takes only the waste top once the reserve is empty"):
        p.play("T1>T3")
    with pytest.raises(IllegalMoveError, match="only the waste top"):
        p.play("T1*>T3")


def test_gap_may_stay_empty():
    p = make(tableau=[["7D"], ["3C"], [], ["JS"]], stock=["KH", "5C"], foundations=[["6D"]])
    p.play("draw")  # legal with a gap open
    p.play("T1>F")
    assert p.tableau[0] == [] and p.tableau[2] == []


# Stock ---------------------------------------------------------------------

def test_draw_turns_three_keeping_order_third_on_top():
    p = make(tableau=[["7D"], ["3C"], ["4C"], ["JS"]], stock=["2H", "3H", "4H", "5H"], foundations=[["6D"]])
    p.play("draw")
    # stock bottom..top 2H 3H 4H 5H: 5H, 4H, 3H are turned, 3H (the third) on top.
    assert [card_name(c) for c in p.waste] == ["5H", "4H", "3H"]
    assert card_name(p.stock[-1]) == "2H"


def test_last_short_packet_is_turned_as_it_is():
    p = make(tableau=[["7D"], ["3C"], ["4C"], ["JS"]], foundations=[["6D"]])
    n = len(p.stock)
    assert n % 3 == 2  # 52 - 5 placed = 47 cards: the last packet holds two
    while len(p.stock) > 2:
        p.play("draw")
    before, rest = list(p.waste), list(p.stock)
    p.play("draw")
    assert p.stock == [] and p.waste == before + rest[::-1] and len(p.waste) == n


def test_only_waste_top_playable_and_playing_frees_beneath():
    p = make(tableau=[["9S"], ["3C"], ["4C"], ["JS"]], stock=["8D", "8H", "KD"], foundations=[["6D"]])
    p.play("draw")  # waste KD 8H 8D: 8D on top
    assert "W>T1" in p.legal_moves()
    p.play("W>T1")
    assert card_name(p.waste[-1]) == "8H"
    assert "W>T1" not in p.legal_moves()  # 9S is covered now, 8H fits nowhere


def test_redeal_keeps_the_order_and_is_unlimited():
    p = make(tableau=[["7D"], ["3C"], ["4C"], ["JS"]], foundations=[["6D"]])
    first = list(p.stock)
    for _ in range(3):
        while p.stock:
            assert "redeal" not in p.legal_moves()
            p.play("draw")
        with pytest.raises(IllegalMoveError, match="the stock is empty"):
            p.play("draw")
        p.play("redeal")
        assert p.stock == first and p.waste == []
    assert p.redeals_used == 3


def test_redeal_needs_empty_stock():
    p = make(tableau=[["7D"], ["3C"], ["4C"], ["JS"]], foundations=[["6D"]])
    with pytest.raises(IllegalMoveError, match="redeal needs an empty stock"):
        p.play("redeal")


def test_passes_never_reveal_reserve_cards():
    p = Position(Deal.from_seed(3))
    reserve = list(p.reserve)
    for _ in range(30):
        p.play("draw" if p.stock else "redeal")
    assert p.reserve == reserve


# Win, score, progress, stalled ---------------------------------------------

def test_win_and_score():
    piles = [[card_name(s * 13 + (5 + i) % 13) for i in range(13)] for s in range(4)]
    piles[3] = piles[3][:-1]  # 5S still out
    p = make(tableau=[["5S"]], foundations=piles)
    assert p.score == 51 and not p.is_won()
    p.play("T1>F")
    assert p.score == 52 and p.is_won() and p.legal_moves() == []
    assert not p.is_stalled()


def test_stalled_found_by_play_agrees_with_brute_force():
    # Random legal play from seed 0 ends in positions where only draws,
    # redeals and column shuffles remain; is_stalled must agree with a brute
    # force walk of the non-progress closure.
    import random
    rng = random.Random(7)
    stalled_seen = 0
    for seed in range(6):
        p = Position(Deal.from_seed(seed))
        for _ in range(300):
            ms = p.legal_moves()
            if not ms:
                break
            p.play(rng.choice(ms))
        brute = not progress_reachable(p)
        assert p.is_stalled() == brute
        stalled_seen += brute
    assert stalled_seen >= 3


def test_gap_with_waste_is_never_stalled():
    f = [[card_name(0 * 13 + i) for i in range(13)], [card_name(1 * 13 + i) for i in range(13)],
         [card_name(2 * 13 + i) for i in range(9)], [card_name(3 * 13 + i) for i in range(9)]]
    p = make(tableau=[["KH"], ["KS"], ["QH"], []], stock=["TH", "TS", "JH", "JS", "QS"], foundations=f)
    assert not p.is_stalled()  # the waste top can always fill the gap


def test_draw_cycle_reaches_progress_so_not_stalled():
    f = [[card_name(0 * 13 + i) for i in range(13)], [card_name(1 * 13 + i) for i in range(13)],
         [card_name(2 * 13 + i) for i in range(9)], [card_name(3 * 13 + i) for i in range(9)]]
    # TH is the third card drawn: it goes home after one draw.
    p = make(tableau=[["KH"], ["KS"], ["QH"], ["JS"]], stock=["QS", "JH", "TS", "TH", "KS"][:0] + ["QS", "TH", "JH", "TS"],
             foundations=f)
    assert not p.is_stalled()


# Variants that differ from the strict profile -------------------------------

def test_whole_pile_lone_top_card_moves_only_to_foundation():
    p = make(rules="canfield-whole-pile", tableau=[["9H", "8S", "7H"], ["8C"], ["TC"], ["JS"]], foundations=[["5H"]])
    ms = p.legal_moves()
    assert "T1>T2" not in ms and "T1*>T3" in ms and "T1>F" not in ms
    with pytest.raises(IllegalMoveError, match="a lone top card moves only to a foundation"):
        p.play("T1>T2")
    single = make(rules="canfield-whole-pile", tableau=[["7H"], ["8C"], ["TC"], ["JS"]], foundations=[["2H"]])
    assert "T1>T2" in single.legal_moves()  # a one-card column is a whole column


def test_storehouse_aces_rules():
    p = make(rules="storehouse-aces", tableau=[["AH"], ["8C"], ["7C"], ["KD"]], reserve=["2D"], stock=["AD", "3C"])
    ms = p.legal_moves()
    assert "T1>F" in ms                      # aces start the foundations
    assert "T3>T2" in ms                     # in suit
    assert "R>T4" not in ms                  # 2D does not go on KD
    p.play("T1>F")
    assert tops(p)[0] == "2D"                # the gap took the reserve top
    p.play("draw")
    assert card_name(p.waste[-1]) == "3C"    # draw 1
    q = make(rules="storehouse-aces", tableau=[["AS"], ["KC"], ["7C"], ["KD"]])
    assert "T2>T1" not in q.legal_moves()    # no wrap: K does not go on A


def test_storehouse_redeal_limits():
    for name, allowed in (("storehouse-aces", 2), ("storehouse-aces-strict", 0)):
        p = make(rules=name, tableau=[["2H"], ["8C"], ["7D"], ["KD"]])
        for _ in range(allowed):
            while p.stock:
                p.play("draw")
            p.play("redeal")
        while p.stock:
            p.play("draw")
        assert "redeal" not in p.legal_moves()
        with pytest.raises(IllegalMoveError, match="no redeals left"):
            p.play("redeal")


# Undo and replay ------------------------------------------------------------

def test_undo_restores_exactly():
    p = Position(Deal.from_seed(5))
    keys = [p.key()]
    for _ in range(12):
        m = p.legal_moves()[0]
        p.play(m)
        keys.append(p.key())
    for k in reversed(keys[:-1]):
        p.undo()
        assert p.key() == k
    with pytest.raises(IllegalMoveError, match="nothing to undo"):
        p.undo()


def test_replay_reports_first_illegal_move_by_index():
    d = Deal.from_seed(0)
    res = replay(d, ["draw", "W>T4", "T1>T4"], strict=False)
    assert not res.legal and res.index == 2 and "does not fit" in res.error
    with pytest.raises(IllegalMoveError) as e:
        replay(d, ["draw", "W>T4", "T1>T4"])
    assert e.value.index == 2 and e.value.move == "T1>T4"


# Compatibility rules of the published solver (issue 6 parameters) ----------

def test_relative_wrap_base_minus_one_never_goes_on_a_base_card():
    # Base 6: a 5 is the last rank, so it may not sit on a 6; K on A is fine.
    strict = make(tableau=[["6C"], ["5H"], ["AC"], ["KH"]], foundations=[["6D"]])
    assert "T2>T1" in strict.legal_moves()        # full wrap: 5H on 6C, as ranks
    rel = make(rules="solvitaire-canfield-strict", tableau=[["6C"], ["5H"], ["AC"], ["KH"]], foundations=[["6D"]])
    assert "T2>T1" not in rel.legal_moves()
    assert "T4>T3" in rel.legal_moves()            # K on A: the base is not A
    with pytest.raises(IllegalMoveError, match="5H does not fit on 6C"):
        rel.play("T2>T1")


def test_no_column_moves_while_a_gap_is_open():
    cols = [["9C"], ["8H"], [], ["TD"]]
    free = make(rules="canfield-whole-pile", tableau=cols, waste=["KS"], foundations=[["2D"]])
    assert "T2>T1" in free.legal_moves()
    locked = make(rules="solvitaire-canfield-strict", tableau=cols, waste=["KS"], foundations=[["2D"]])
    ms = locked.legal_moves()
    assert "T2>T1" not in ms and "T1>T4" not in ms and "W>T3" in ms
    with pytest.raises(IllegalMoveError, match="while a gap is open"):
        locked.play("T2>T1")
    locked.play("W>T3")                             # the gap is filled: columns move again
    assert "T2>T1" in locked.legal_moves()


@pytest.mark.parametrize("rules", ["superior-canfield", "pysolfc-canfield"])
def test_a_whole_column_or_a_lone_card_may_move_into_a_gap_where_a_gap_takes_any_card(rules):
    """Issue 63: check refused a one-card column's card (T1>T3) and a whole column (T2*>T3) moved into a gap
    ("changes nothing"), which PySolFC lets a player make (Canfield_AC_RowStack takes one card or a whole
    pile from a row, and an empty row takes any card): a person's legal line was refused."""
    pos = Position(make_deal(reserve=[], tableau=[["9H"], ["KS", "QH"], []], waste=["2C"], foundations=[["6C"]], rules=rules))
    pos.play("T1>T3")
    assert pos.tableau[0] == [] and pos.tableau[2] == [parse_card("9H")]
    pos.play("T2*>T1")
    assert pos.tableau[1] == [] and [card_name(c) for c in pos.tableau[0]] == ["KS", "QH"]
    assert "T3*>T2" not in pos.legal_moves()  # legal, but it only renumbers the columns: not listed
    strict = Position(make_deal(reserve=[], tableau=[["9H"], ["KS", "QH"], []], waste=["2C"], foundations=[["6C"]]))
    with pytest.raises(IllegalMoveError, match="only the waste top"):
        strict.play("T1>T3")
