import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from canfield_solver import Deal, DealError, Rules, RulesError, card_name, get_rules, parse_card, preset_names
from canfield_solver.errors import CardError

from helpers import examples

# Cards (SPEC §1) -----------------------------------------------------------

@pytest.mark.parametrize("text,cid", [("AC", 0), ("KC", 12), ("AD", 13), ("KS", 51), ("QH", 37), ("10h", 35),
                                      ("Q♥", 37), ("q♥", 37), ("tS", 48), (" 7d ", 19), ("10♣", 9)])
def test_parse_card(text, cid):
    assert parse_card(text) == cid


@pytest.mark.parametrize("text", ["", "Q", "1H", "11H", "QX", "HQ", "QHH", "0C", "♥Q"])
def test_parse_card_refuses(text):
    with pytest.raises(CardError, match="unknown card"):
        parse_card(text)


def test_card_names_round_trip():
    assert [card_name(c) for c in (0, 9, 12, 13, 51)] == ["AC", "TC", "KC", "AD", "KS"]
    assert all(parse_card(card_name(c)) == c for c in range(52))


# Rules (SPEC §6) -----------------------------------------------------------

def test_presets_found_case_insensitively():
    assert get_rules("CANFIELD").name == "canfield"
    assert get_rules("Canfield-Whole-Pile").column_moves == "whole"
    assert get_rules("storehouse_aces").draw == 1
    assert set(preset_names()) >= {"canfield", "canfield-whole-pile", "storehouse-aces", "storehouse-aces-strict"}


def test_unknown_preset_lists_known():
    with pytest.raises(RulesError, match="known presets: canfield, canfield-whole-pile"):
        get_rules("klondike")


def test_strict_profile_parameters():
    r = get_rules("canfield")
    assert (r.reserve_size, r.columns, r.base, r.build, r.tableau_wrap, r.draw, r.redeals) == (
        13, 4, "random", "alternate", "full", 3, None)
    assert r.stock_size == 34
    s = get_rules("storehouse-aces")
    assert (s.base, s.build, s.tableau_wrap, s.draw, s.redeals, s.stock_size) == (0, "suit", "none", 1, 2, 35)
    assert get_rules("storehouse-aces-strict").redeals == 0


@pytest.mark.parametrize("field,value", [("build", "diagonal"), ("draw", 0), ("columns", 9), ("ranks", 2),
                                         ("redeals", -1), ("tableau_wrap", "half"), ("base", 13)])
def test_bad_rules_field_named(field, value):
    with pytest.raises(RulesError, match=repr(field)):
        Rules(**{field: value})


def test_rules_file(tmp_path):
    p = tmp_path / "r.json"
    p.write_text(json.dumps({**Rules().to_dict(), "name": "mine", "draw": 1}))
    assert Rules.from_json_file(str(p)).draw == 1
    p.write_text(json.dumps({"name": "x", "drow": 1}))
    with pytest.raises(RulesError, match="unknown rules field 'drow'"):
        Rules.from_json_file(str(p))


# Deals (SPEC §2) -----------------------------------------------------------

def names(cards):
    return [card_name(c) for c in cards]


def test_seed_0_vector():
    d = Deal.from_seed(0)
    assert names(d.reserve) == "8S JH 9C 2S 2D QD 6S TC 3D AC JC 7C 9H".split()
    assert names(d.foundations[0]) == ["8C"]
    assert [names(c) for c in d.tableau] == [["QS"], ["KH"], ["5H"], ["2C"]]
    assert names(d.stock) == ("TH KC 4H 6D 5S 7H 4C KS 6H JS 7D 9S 7S AS KD 3C 9D 2H 4D 3S JD QC TS QH AD 8D 8H "
                              "5D TD 4S 6C AH 5C 3H").split()


def test_seed_1_vector():
    d = Deal.from_seed(1)
    assert names(d.reserve) == "7D 9C 4D 8H 8D 5S JD 6D 9S JC 5D KD 3C".split()
    assert names(d.foundations[0]) == ["2D"]
    assert [names(c)[0] for c in d.tableau] == ["JH", "5H", "7H", "4H"]
    assert card_name(d.stock[-1]) == "2C" and card_name(d.stock[0]) == "7S"


def test_seed_42_vector():
    d = Deal.from_seed(42)
    assert card_name(d.foundations[0][0]) == "4S"
    assert [names(c)[0] for c in d.tableau] == ["6H", "5D", "2D", "5S"]
    assert card_name(d.reserve[-1]) == "2H"


def test_layout_without_base_card_deals_in_order():
    # SPEC §2 step 5: reserve, then (no base card) one card per column, then the stock.
    a = Deal.from_seed(0, "canfield")
    b = Deal.from_seed(0, "storehouse-aces")
    assert b.reserve == a.reserve
    assert [c[0] for c in b.tableau] == [a.foundations[0][0]] + [c[0] for c in a.tableau[:3]]
    assert b.stock[-1] == a.tableau[3][0] and b.stock[:-1] == a.stock
    assert b.foundations == ()


def test_reduced_deck_deal():
    r = Rules(name="tiny", ranks=4, reserve_size=2, columns=2)
    d = Deal.from_seed(7, r)
    assert len(d.stock) == 16 - 2 - 1 - 2
    assert all(c % 13 < 4 for c in d.stock)


@pytest.mark.parametrize("seed", [-1, 2**64, "3", 1.5, True])
def test_seed_out_of_range(seed):
    with pytest.raises(DealError, match="seed"):
        Deal.from_seed(seed)


@settings(max_examples=examples(60), deadline=None)
@given(st.integers(0, 2**64 - 1), st.sampled_from(preset_names()))
def test_json_round_trip(seed, preset):
    d = Deal.from_seed(seed, preset)
    again = Deal.from_json(d.to_json())
    assert again == d and again.seed == seed and again.rules == d.rules


def base_json():
    return json.loads(Deal.from_seed(0).to_json())


@pytest.mark.parametrize("mutate,message", [
    (lambda d: d["stock"].pop(), "missing card 3H"),
    (lambda d: d["stock"].__setitem__(0, "9H"), "duplicate card 9H"),
    (lambda d: d["stock"].__setitem__(0, "XX"), "unknown card 'XX'"),
    (lambda d: d["stock"].extend(d["tableau"].pop()), "3 tableau columns"),
    (lambda d: d["tableau"][0].append(d["stock"].pop()), "column 1 holds 2 cards"),
    (lambda d: d["stock"].append(d["reserve"].pop()), "reserve holds 12 cards"),
    (lambda d: d.__setitem__("colour", 1), "unknown deal field 'colour'"),
    (lambda d: d.pop("foundation"), "no base card"),
    (lambda d: d.__setitem__("tableau", "QS"), "list of columns"),
])
def test_bad_deals_named(mutate, message):
    d = base_json()
    mutate(d)
    with pytest.raises(DealError, match=message):
        Deal.from_dict(d)


def test_bad_json_text():
    with pytest.raises(DealError, match="not valid JSON"):
        Deal.from_json("{reserve: ")


def test_midgame_validation():
    from helpers import make_deal
    with pytest.raises(DealError, match="5H does not fit on 7C"):
        make_deal(tableau=[["7C", "5H"]], foundations=[["8C"]])
    with pytest.raises(DealError, match="foundation H must build up"):
        make_deal(foundations=[["8C"], ["8H", "TH"]])
    with pytest.raises(DealError, match="empty while the reserve has cards"):
        make_deal(reserve=["2C"], tableau=[[]], foundations=[["8C"]])
