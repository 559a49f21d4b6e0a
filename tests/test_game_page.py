"""The games' replay page (canfield show --game): frames from the reference engines, and a real browser."""

import json
import re

import pytest
from click.testing import CliRunner
from test_replay_page import browser  # noqa: F401  (the headless Chromium fixture)

from canfield_solver.games import aces_and_kings as A
from canfield_solver.games import nine_packets as N
from canfield_solver.games import suit_neighbours as S
from canfield_solver.games import ten_columns as T
from canfield_solver.games.base import GameError, names, replay
from canfield_solver.surfaces.cli import cli
from canfield_solver.surfaces.game_page import game_frames, game_page, show_game


def _data(pg):
    return json.loads(re.search(r"const DATA = (.*?);\n", pg.html).group(1).replace("<\\/", "</"))


def _codes(cards):
    return [n.replace("T", "10") if n[0] == "T" else n for n in names(cards)]


def test_frames_follow_the_reference_engines():
    p = N.deal(0)
    line = N.solve(p).moves
    fr = game_frames("nine-packets", p, line)
    assert len(fr) == len(line) + 1 and fr[-1]["sc"] == 36 and fr[0]["sc"] == 0
    q = replay(N.play, p, line[:5])
    piles = [pl for row in fr[5]["rows"] for pl in row["piles"]]
    assert [pl["down"] + len(pl["cards"]) for pl in piles] == [len(pk) for pk in q.packets]
    assert [pl["cards"] for pl in piles] == [_codes(pk[-1:]) for pk in q.packets]
    assert fr[5]["mark"] == line[5].split("+")
    t = T.deal(0, "ten-columns-dealt")
    assert [pl["cards"] for pl in game_frames("ten-columns-dealt", t, [])[0]["rows"][0]["piles"]] == \
        [_codes(c) for c in t.columns]
    a = A.deal(2)
    r = A.solve(a, max_nodes=100_000)
    assert r.solved
    f0 = game_frames("aces-and-kings", a, r.moves)
    assert f0[0]["sc"] == 4 and f0[-1]["sc"] == 52
    with pytest.raises(GameError, match="move 1"):
        game_frames("ten-columns", T.deal(0), ["C1+C2"])


def test_suit_neighbours_page_steps_through_every_removal():
    tr = S.play_out(S.deal(0))
    d = _data(game_page("suit-neighbours", 0))
    assert len(d["moves"]) == len(tr.removals) and d["moves"][0] == "round 1, card 6: R1 removes QD"
    first = [pl["cards"][0] for pl in d["frames"][0]["rows"][0]["piles"]]
    assert first == _codes(S.deal(0)[:6])  # the line as laid when QD lands beside 2D
    assert d["frames"][0]["mark"] == ["L5"]
    assert [pl["cards"][0] for pl in d["frames"][-1]["rows"][0]["piles"]] == _codes(tr.left)


def test_show_game_picks_the_line():
    won = show_game("nine-packets", 0)
    assert won.moves == N.solve(N.deal(0)).moves and "won: a winning line of 18 moves" in won.html
    lost_seed = next(s for s in range(20) if not N.solve(N.deal(s)).solved)
    lost = show_game("nine-packets", lost_seed)
    assert list(lost.moves) == N.play_advice(N.deal(lost_seed))[1] and "advice" in lost.html
    mine = show_game("ten-columns", 3, ["place 1 2"])
    assert mine.moves == ("place 1 2",) and "your game: 1 moves" in mine.html


def test_cli_show_writes_a_game_page(tmp_path):
    out = tmp_path / "p.html"
    r = CliRunner().invoke(cli, ["show", "--seed", "2", "--game", "aces-and-kings", "--out", str(out)])
    assert r.exit_code == 0 and out.exists() and "<script>" in out.read_text()
    assert "http" not in re.sub(r"https?://www\.w3\.org/2000/svg", "", out.read_text())  # nothing from outside
    r = CliRunner().invoke(cli, ["show", "--game", "nine-packets"])
    assert r.exit_code == 2 and "give --seed N" in r.output


@pytest.mark.integration
@pytest.mark.parametrize("game,seed", [("nine-packets", 0), ("ten-columns", 4), ("bisley", 0), ("suit-neighbours", 0)])
def test_the_browser_draws_the_engine_position(browser, tmp_path, game, seed):  # noqa: F811
    pg = show_game(game, seed, max_seconds=10)
    f = tmp_path / f"{game}.html"
    pg.save(str(f))
    d = _data(pg)
    browser.get(f.as_uri())
    forward = browser.find_element("id", "forward")
    by = "css selector"
    n_moves = len(pg.moves)
    done = 0
    for n in sorted({0, 1, n_moves // 2, n_moves}):
        while done < n:
            forward.click()
            done += 1
        want = [[pl["cards"] for pl in row["piles"]] for row in d["frames"][n]["rows"]]
        got = []
        for row in browser.find_elements(by, "#rows > div"):
            got.append([[c.get_attribute("data-card") for c in pile.find_elements(by, ".card:not(.back)")]
                        for pile in row.find_elements(by, ".pile")])
        assert got == want, (game, n)
        assert browser.find_element("id", "status").text.startswith(f"Move {n} of {n_moves}")
