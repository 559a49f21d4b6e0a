"""Deals from other programs: PySolFC game numbers, the pysolfc-canfield preset, Solvitaire files, deal packs."""

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from canfield_solver import Deal, Position, solve
from canfield_solver.engine.cards import card_name
from canfield_solver.errors import DealError
from canfield_solver.formats import from_solvitaire, parse_pysolfc_number, pysolfc_deal, read_deal, to_solvitaire
from canfield_solver.surfaces.cli import cli

from helpers import make

pytest.importorskip("pysol_cards")

DATA = Path(__file__).resolve().parent / "data" / "pysolfc-canfield-deals.jsonl"


def invoke(*args):
    return CliRunner().invoke(cli, list(args))


def _names(cards):
    return [card_name(c).replace("T", "10") for c in cards]


def _printed_by_pysolfc():
    """Eight deals PySolFC 3.6.1 itself printed (a copy of shared/data/pysolfc-canfield-deals.jsonl)."""
    return [json.loads(line) for line in DATA.read_text().splitlines() if line.strip()]


def test_deals_match_what_pysolfc_itself_printed():
    rows = _printed_by_pysolfc()
    assert len(rows) == 8
    for row in rows:
        d = pysolfc_deal(row["game"])
        assert d.pysolfc_game == row["game"] and d.rules.name == "pysolfc-canfield"
        assert _names(d.reserve) == row["reserve"]
        assert [_names(c) for c in d.tableau] == row["tableau"]
        assert _names(d.waste) == row["waste"] and _names(d.stock) == row["stock"]
        assert [_names(p) for p in d.foundations] == [[row["base"]]]


def test_game_numbers_as_players_write_them():
    assert parse_pysolfc_number("#00000000000000040000") == 40000
    assert parse_pysolfc_number("ms5") == parse_pysolfc_number("#5") == 5
    for bad in ("0", "ms0", "ms32000", str(10**20), "abc", "-5", ""):
        with pytest.raises(DealError):
            parse_pysolfc_number(bad)


def test_generator_switches_at_32000_as_pysolfc_construct_random_does():
    from pysol_cards.cards import createCards, ms_rearrange
    from pysol_cards.random import LCRandom31, MTRandom

    def top(cards):  # the talon top: PySolFC's base card
        c = cards[-1]
        return "A23456789TJQK"[c.rank - 1] + c.suit_s()

    lc = lambda n: top(LCRandom31(n).shuffle(ms_rearrange(createCards(1))))  # noqa: E731
    mt = lambda n: top(MTRandom(n).shuffle(createCards(1)))  # noqa: E731
    base = lambda n: card_name(pysolfc_deal(n).foundations[0][0])  # noqa: E731
    assert base(31999) == lc(31999)
    assert base(32000) == mt(32000)
    assert lc(32000) != mt(32000) or lc(32001) != mt(32001)  # the check can tell the two apart
    assert base(32001) == mt(32001)


def test_family_games_deal_their_own_shapes():
    st = pysolfc_deal(123, "storehouse")
    assert sorted(card_name(p[0]) for p in st.foundations) == ["2C", "2D", "2H", "2S"]
    assert len(st.waste) == 1 and len(st.reserve) == 13
    ch = pysolfc_deal(123, "chameleon")
    assert len(ch.reserve) == 12 and len(ch.tableau) == 3 and len(ch.waste) == 1
    assert len(pysolfc_deal(123, "rainbow").waste) == 1
    assert len(pysolfc_deal(123, "superior-canfield").waste) == 3
    # Same shuffle, same layout whatever Canfield rules are played on it.
    assert pysolfc_deal(77, "canfield").to_dict()["tableau"] == pysolfc_deal(77).to_dict()["tableau"]
    for name in ("canfield-draw1", "storehouse-aces"):
        with pytest.raises(DealError, match="PySolFC has no game"):
            pysolfc_deal(5, name)


def test_pysolfc_canfield_gap_takes_a_row_top_card_once_the_reserve_is_empty():
    kw = dict(tableau=[["9S", "8H"], [], ["QD"], ["5C"]], waste=["4H"], foundations=[[], [], ["AH"], []])
    pf = make(rules="pysolfc-canfield", **kw)
    strict = make(rules="canfield", **kw)
    assert pf.is_legal("T1>T2") and not strict.is_legal("T1>T2")  # 8♥ alone into the gap
    assert "T1>T2" in pf.legal_moves() and "T1>T2" not in strict.legal_moves()
    # A whole column (a lone card too) into a gap only renumbers the columns: legal, as PySolFC lets a player
    # make it (its row takes one card or a whole row from another row), but not offered as a move.
    assert pf.is_legal("T3>T2") and pf.is_legal("T1*>T2") and not strict.is_legal("T3>T2")
    assert "T3>T2" not in pf.legal_moves() and "T1*>T2" not in pf.legal_moves()
    assert pf.is_legal("W>T2") and strict.is_legal("W>T2")
    # While the reserve has cards, a gap is filled from it at once under both.
    kw2 = dict(reserve=["7D", "KS"], tableau=[["9S"], ["2H"], ["QD"], ["5C"]], foundations=[[], [], ["AH"], []])
    p = make(rules="pysolfc-canfield", **kw2)
    p.play("T2>F")
    assert [card_name(c) for c in p.tableau[1]] == ["KS"] and [card_name(c) for c in p.reserve] == ["7D"]


def test_pysolfc_study_rows_are_kept_apart_from_seeds(tmp_path):
    from canfield_solver.studies.study import run_study

    db = str(tmp_path / "r.sqlite")
    a = run_study("pysolfc-canfield", [5, 17], jobs=1, max_nodes=50_000, store=db, numbering="pysolfc")
    b = run_study("pysolfc-canfield", [5, 17], jobs=1, max_nodes=50_000, store=db)
    assert a.rules == "pysolfc-canfield@pysolfc" and b.rules == "pysolfc-canfield"
    assert a.searched == 2 and b.searched == 2  # nothing reused across numberings
    for row in a.results:
        r = solve(pysolfc_deal(row.seed), max_nodes=50_000)
        assert r.verdict.value == row.verdict and r.nodes == row.nodes


def test_solvitaire_files_round_trip_and_bad_ones_are_one_line(tmp_path):
    for seed, preset in ((0, "canfield"), (7, "solvitaire-canfield-strict"), (3, "canfield-whole-pile")):
        d = Deal.from_seed(seed, preset)
        text = json.dumps(to_solvitaire(d))
        assert "T" not in "".join(json.loads(text)["stock"])  # tens are written 10
        assert from_solvitaire(text, preset) == d
    mid = Position(Deal.from_seed(2))
    for m in ["draw"] * 7 + ["W>F"]:
        mid.play(m)
    md = mid.to_deal()
    assert from_solvitaire(to_solvitaire(md)) == md
    r = invoke("deal", "3", "--format", "solvitaire")
    f = tmp_path / "sv.json"
    f.write_text(r.output)
    assert read_deal(str(f)) == Deal.from_seed(3)
    with pytest.raises(DealError, match="published solver's deal format"):
        Deal.from_file(str(f))  # our own format's reader names the other one
    assert invoke("solve", "--deal", str(f), "--json").exit_code == 0
    bad = json.loads(r.stdout)
    bad["stock"][0] = "11H"
    f.write_text(json.dumps(bad))
    r = invoke("solve", "--deal", str(f))
    lines = [ln for ln in r.output.splitlines() if ln.strip()]
    assert r.exit_code == 2 and len(lines) == 1 and "stock[0]" in lines[0]
    bad = json.loads(invoke("deal", "3", "--format", "solvitaire").stdout)
    bad["stock"].append(bad["reserve"][0])
    f.write_text(json.dumps(bad))
    r = invoke("solve", "--deal", str(f))
    assert r.exit_code == 2 and "Traceback" not in r.output


def test_cli_pysolfc_everywhere(tmp_path):
    r = invoke("solve", "--pysolfc", "5", "--json")
    out = json.loads(r.stdout)
    assert out["pysolfc_game"] == 5 and out["rules"] == "pysolfc-canfield" and r.exit_code in (0, 1)
    assert "PySolFC game 5" in invoke("deal", "--pysolfc", "5").output
    moves = tmp_path / "m.txt"
    moves.write_text("draw\n")
    assert invoke("check", "--pysolfc", "5", str(moves)).exit_code == 0
    r = invoke("check", "--pysolfc", "5")
    assert r.exit_code == 2 and "expected --pysolfc N MOVES" in r.output
    r = invoke("winrate", "--pysolfc", "1:4", "--max-nodes", "20000", "--jobs", "1", "--json", "-q")
    assert r.exit_code == 0 and json.loads(r.stdout)["deals"] == 3
    r = invoke("winrate", "--pysolfc", "1:4", "--seeds", "0:3")
    assert r.exit_code == 2 and "not both" in r.output


@pytest.mark.integration
def test_pack_written_verified_then_tampered_with(tmp_path):
    pack = tmp_path / "pack.jsonl"
    r = invoke("pick", "--pysolfc", "1", "--count", "2", "--jobs", "1", "--max-seconds", "5", "--out", str(pack))
    assert r.exit_code == 0, r.output
    lines = pack.read_text().splitlines()
    assert len(lines) == 2
    first = json.loads(lines[0])
    assert first["numbering"] == "pysolfc" and first["rules"] == "pysolfc-canfield" and first["moves"]
    assert Deal.from_dict(first["deal"], first["rules"]) == pysolfc_deal(first["number"])
    r = invoke("verify", str(pack))
    assert r.exit_code == 0 and "2 deals hold, 0 do not" in r.output
    # One move changed: the line no longer holds.
    i = next(k for k, m in enumerate(first["moves"]) if m.startswith("W>"))
    first["moves"][i] = "R>F" if first["moves"][i] != "R>F" else "T1>F"
    pack.write_text(json.dumps(first) + "\n" + lines[1] + "\n")
    r = invoke("verify", str(pack))
    assert r.exit_code == 1 and "line 1" in r.output and "1 deals hold, 1 do not" in r.output
    # A deal that is not its number's deal is refused too.
    second = json.loads(lines[1])
    second["number"] += 1
    pack.write_text(lines[0] + "\n" + json.dumps(second) + "\n")
    r = invoke("verify", str(pack))
    assert r.exit_code == 1 and "line 2" in r.output and "not the deal of" in r.output
    csv_out = tmp_path / "pack.csv"
    r = invoke("pick", "--count", "2", "--jobs", "1", "--max-seconds", "5", "--out", str(csv_out), "--format", "csv")
    assert r.exit_code == 0 and csv_out.read_text().splitlines()[0].startswith("numbering,number,rules")
