"""Trust at the edges: limits of 0 end a search at once with unknown (never an error), every move list the
program prints it reads back, and the messages a new user meets say what they mean."""

import json

import pytest
from click.testing import CliRunner

from canfield_solver import CanfieldError, Deal, Limit, Position, analyze, decide, hint, solve
from canfield_solver.games import get_game
from canfield_solver.surfaces.cli import cli


@pytest.mark.parametrize("kw", [dict(max_nodes=0), dict(max_seconds=0), dict(max_nodes=0, workers=2),
                                dict(max_seconds=0, workers=2), dict(max_nodes=0, method="layered"),
                                dict(max_seconds=0, method="layered"), dict(max_nodes=0, method="depth-first")])
def test_a_limit_of_zero_ends_at_once_unknown(kw):
    r = solve(2, **kw)  # deal 2 is won in 222 nodes: any search at all would solve it
    assert r.verdict.value == "unknown" and r.nodes == 0 and r.moves == ()
    assert r.limit == (Limit.NODES if "max_nodes" in kw else Limit.SECONDS)
    assert r.best_score == Position(Deal.from_seed(2)).score


def test_zero_limits_in_hint_analyze_decide_and_the_games():
    d = Deal.from_seed(2)
    assert hint(d, [], max_nodes=0).verdict.value == "unknown"
    assert analyze(d, max_nodes=0).verdict == "unknown"
    assert decide(Position(d), max_seconds=0).verdict.value == "unknown"
    for name in ("aces-and-kings", "nine-packets", "ten-columns-dealt"):
        g = get_game(name)
        assert g.solve(g.deal(0), max_seconds=0).verdict.value == "unknown", name


def test_one_mib_is_the_least_memory_and_is_honoured():
    assert solve(2, max_memory_mb=1).verdict.value == "solved"
    with pytest.raises(CanfieldError, match="max_memory_mb must be a positive integer"):
        solve(2, max_memory_mb=0)


def run(*args):
    r = CliRunner().invoke(cli, list(args))
    return r.exit_code, r.output


def test_check_and_hint_read_what_solve_and_analyze_print(tmp_path):
    for cmd in (["solve", "--seed", "2", "--moves"], ["analyze", "--seed", "2", "--moves", "--playouts", "2"]):
        code, out = run(*cmd)
        assert code == 0, out
        f = tmp_path / "moves.txt"
        f.write_text(out)
        code, out = run("check", "2", str(f))
        assert code == 0 and "legal: all 180 moves" in out and "won: yes" in out, out
        code, out = run("hint", "2", str(f))
        assert code == 0 and "won already" in out, out


def test_a_lost_deal_says_there_is_no_winning_line_and_prints_the_best(tmp_path):
    code, out = run("solve", "--seed", "20", "--moves")
    assert code == 1 and "no winning line: every line from here loses" in out and "the best line found" in out
    f = tmp_path / "best.txt"
    f.write_text(out)
    code, checked = run("check", "20", str(f))
    assert code == 0 and "score: 14/52" in checked, checked  # the best line reaches 14 cards home


@pytest.mark.parametrize("game,seed", [("nine-packets", 3), ("aces-and-kings", 3), ("bisley", 3),
                                       ("ten-columns", 0), ("ten-columns-dealt", 3)])
def test_game_steps_name_their_cards_and_read_back(tmp_path, game, seed):
    code, out = run("solve", "--game", game, "--seed", str(seed), "--moves")
    f = tmp_path / "moves.txt"
    f.write_text(out)
    steps = [ln for ln in out.splitlines() if ln.strip()[:1].isdigit()]
    if code == 0:
        assert steps and all("(" in ln and ")" in ln for ln in steps), out  # each step names its cards
    else:
        assert not steps and "no winning line" in out
    code, checked = run("check", "--game", game, str(seed), str(f))
    assert code == 0 and f"legal: all {len(steps)} moves" in checked, checked
    assert ("won: yes" in checked) == bool(steps)


def test_hint_names_the_move_that_threw_the_game_away(tmp_path):
    import random

    rng = random.Random(0)
    pos, ms = Position(Deal.from_seed(8)), []
    for _ in range(60):  # tests/test_play.py's player: winnable at first, lost after move 32
        m = rng.choice(pos.legal_moves())
        pos.play(m)
        ms.append(m)
    f = tmp_path / "game.json"
    f.write_text(json.dumps(ms))
    code, out = run("hint", "8", str(f))
    assert code == 1 and f"the game was lost at move 32 ({ms[31]})" in out, out


def test_messages_say_what_they_mean(tmp_path):
    code, out = run("deal", "-1")
    assert code == 2 and "-1 is not a seed" in out and "No such option" not in out
    code, out = run("solve", "--seed", "abc")
    assert code == 2 and "'abc' is not a valid whole number" in out
    f = tmp_path / "one.json"
    f.write_text('["draw"]')
    code, out = run("check", "2", str(f))
    assert "none in 1 moves" not in out and "none yet (1 move played, none of them progress)" in out
    code, out = run("rules")
    assert "--game NAME on deal, solve, check, hint, show, analyze, winrate" in out
    assert "whole column)" not in out
    code, out = run("pick", "--help")
    assert "deal file's" not in out
    d = Deal.from_seed(5).to_dict()
    d["seed"] = 7  # a seed field that is not these cards' seed
    f = tmp_path / "deal.json"
    f.write_text(json.dumps(d))
    code, out = run("solve", "--deal", str(f))
    assert code == 0 and not out.startswith("seed 7")
    assert Deal.from_dict(d).seed is None and Deal.from_dict(Deal.from_seed(5).to_dict()).seed == 5


def test_analyze_seconds_is_the_search_and_total_seconds_the_analysis():
    a = analyze(2, playouts=5)
    r = solve(2)
    assert 0 < a.seconds <= a.total_seconds and a.nodes == r.nodes
    assert "total_seconds" in a.to_dict()
