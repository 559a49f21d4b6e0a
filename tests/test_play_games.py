"""``canfield play`` for the other games of docs/games-spec.md (issue 41): every endpoint with every game through the ASGI
test client, the meter after every move of won lines, losing moves named, undo, suit-neighbours stepped
to its end, and the bad inputs (one line, 4xx, never a 5xx)."""

import pytest

pytest.importorskip("starlette", reason="needs the 'web' extra (Starlette, uvicorn)")
pytest.importorskip("httpx2", reason="Starlette's test client needs httpx2 (the 'test' extra)")

from click.testing import CliRunner  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

from canfield_solver.engine.cards import card_name  # noqa: E402
from canfield_solver.games import deal_of, get_game  # noqa: E402
from canfield_solver.games import suit_neighbours as SN  # noqa: E402
from canfield_solver.games.base import replay  # noqa: E402
from canfield_solver.surfaces.cli import cli  # noqa: E402
from canfield_solver.surfaces.web.app import create_app  # noqa: E402
from canfield_solver.surfaces.web.patience import PLAYABLE  # noqa: E402

# A won deal of each game with choices, and a move on its winning line's way that throws the win away
# (found by the games' solvers: benchmarks aside, test_games checks those solvers against exhaustive ones).
WON = {"nine-packets": 0, "aces-and-kings": 2, "bisley": 0, "ten-columns": 1, "ten-columns-dealt": 8}
LOSING = {"nine-packets": (0, 0, "P1+P9"), "aces-and-kings": (0, 12, "C2>C5"), "bisley": (0, 0, "C8>C5"),
          "ten-columns": (1, 0, "place 1 2"), "ten-columns-dealt": (8, 3, "C3+C4")}


@pytest.fixture(scope="module")
def client():
    """The API with the meter measuring inline at each request (its worker processes are test_play's)."""
    with TestClient(create_app(meter=False, max_seconds=20)) as c:
        yield c


def new(c, **spec):
    r = c.post("/api/games", json=spec)
    assert r.status_code == 201, r.text
    return r.json()


def move(c, gid, mv):
    r = c.post(f"/api/games/{gid}/moves", json={"move": mv})
    assert r.status_code == 200, r.text
    return r.json()


@pytest.mark.parametrize("game", sorted(WON))
def test_a_won_deal_played_along_the_solvers_line_is_winnable_after_every_move(client, game, tmp_path):
    s = new(client, game=game, seed=WON[game])
    assert s["game"] == game and s["meter"]["state"] == "winnable" and not s["won"]
    line = get_game(game).solve(deal_of(game, WON[game])).moves
    assert s["meter"]["next_moves"] == [line[0]] or s["meter"]["next_moves"][0] in s["legal"]
    for k, mv in enumerate(line, 1):
        assert mv in s["legal"]
        s = move(client, s["id"], mv)
        assert s["meter"]["state"] == "winnable", (k, mv, s["meter"])
    assert s["won"] and not s["legal"] and s["board"]["sc"] == s["full"]
    # The export is what `canfield check --game` reads, and it says the game is won.
    text = client.get(f"/api/games/{s['id']}/export").text
    assert text.splitlines() == list(line)
    (tmp_path / "moves.txt").write_text(text)
    r = CliRunner().invoke(cli, ["check", "--game", game, str(WON[game]), str(tmp_path / "moves.txt")])
    assert r.exit_code == 0 and "legal: all" in r.output and "won: yes" in r.output, r.output
    page = client.get(f"/api/games/{s['id']}/replay")
    assert page.status_code == 200 and page.text.lstrip().lower().startswith("<!doctype html")
    assert f"{game}-seed-{WON[game]}-replay.html" in page.headers["content-disposition"]


@pytest.mark.parametrize("game", sorted(LOSING))
def test_a_losing_move_turns_the_meter_lost_and_is_named_and_undo_restores_it(client, game):
    seed, k, bad = LOSING[game]
    s = new(client, game=game, seed=seed)
    for mv in get_game(game).solve(deal_of(game, seed)).moves[:k]:
        s = move(client, s["id"], mv)
    assert s["meter"]["state"] == "winnable"
    s = move(client, s["id"], bad)
    assert s["meter"]["state"] == "lost" and s["meter"]["lost_at"] == k + 1, s["meter"]
    hint = client.get(f"/api/games/{s['id']}/hint").json()
    assert hint["hint"] is None and "cannot be won" in hint["why"]
    r = client.get(f"/api/games/{s['id']}/solution")
    assert r.status_code == 409 and "lost" in r.json()["error"]
    s = client.post(f"/api/games/{s['id']}/undo").json()
    assert s["meter"]["state"] == "winnable" and s["can_redo"] and len(s["moves"]) == k
    s = client.post(f"/api/games/{s['id']}/redo").json()
    assert s["meter"]["state"] == "lost" and s["meter"]["lost_at"] == k + 1 and s["moves"][-1] == bad


@pytest.mark.parametrize("game", PLAYABLE)
def test_every_endpoint_with_every_game(client, game):
    s = new(client, game=game, seed=3)
    gid = s["id"]
    rows = s["board"]["rows"]
    assert rows and all("piles" in r for r in rows)
    assert client.get(f"/api/games/{gid}").json()["generation"] == s["generation"]
    first = s["legal"][0]
    after = move(client, gid, first)
    assert len(after["moves"]) == 1 and after["can_undo"] and not after["can_redo"]
    assert client.post(f"/api/games/{gid}/undo").json()["moves"] == []
    assert len(client.post(f"/api/games/{gid}/redo").json()["moves"]) == 1
    assert client.get(f"/api/games/{gid}/hint").status_code == 200
    sol = client.get(f"/api/games/{gid}/solution")
    assert sol.status_code in (200, 409, 400)
    if sol.status_code == 200:                  # the line from here, with a frame before each move and after
        body = sol.json()
        assert len(body["frames"]) == len(body["moves"]) + 1
    assert client.get(f"/api/games/{gid}/export").status_code == 200
    assert client.get(f"/api/games/{gid}/replay").status_code == 200
    assert client.delete(f"/api/games/{gid}").status_code == 204
    assert client.get(f"/api/games/{gid}").status_code == 404


def test_the_games_boards_follow_their_layouts(client):
    np_ = new(client, game="nine-packets", seed=0)["board"]
    assert [len(r["piles"]) for r in np_["rows"]] == [1, 3, 5]            # the 1-3-5 pyramid
    assert all(p["down"] == 3 and len(p["cards"]) == 1 for r in np_["rows"] for p in r["piles"])
    ak = new(client, game="bisley", seed=0)["board"]
    assert [r.get("kind") for r in ak["rows"]] == ["kings", "aces", None]  # kings row above the aces row
    assert [p["id"] for p in ak["rows"][2]["piles"]] == [f"C{i}" for i in range(1, 14)]
    tc = new(client, game="ten-columns", seed=0)["board"]
    assert tc["rows"][0]["piles"][0]["id"] == "place" and len(tc["rows"][0]["piles"][0]["cards"]) == 2
    assert "place" not in str(new(client, game="ten-columns-dealt", seed=0)["board"]["rows"][0])


def test_nine_packets_gives_the_pages_advice_beside_the_solvers_hint(client):
    from canfield_solver.games.nine_packets import game as NP

    s = new(client, game="nine-packets", seed=5)
    assert s["advice"] == NP.format_move(*NP.advice_move(deal_of("nine-packets", 5)))


def test_moves_are_written_as_the_game_writes_them(client):
    s = new(client, game="nine-packets", seed=0)
    a, b = s["legal"][0].split("+")
    s = move(client, s["id"], f" {b.lower()} + {a} ")   # either order, any case, spaces
    assert s["moves"] == [f"{a}+{b}"]


@pytest.mark.parametrize("seed", [20, 0])
def test_suit_neighbours_stepped_to_its_end_with_the_referees_verdict(client, seed):
    tr = SN.play_out(deal_of("suit-neighbours", seed))
    s = new(client, game="suit-neighbours", seed=seed)
    assert s["meter"]["state"] == ("winnable" if tr.won else "lost")
    assert s["legal"] == ["step"]
    removed = []
    while s["legal"]:
        s = move(client, s["id"], "step")
        removed += s["removed"]
        assert s["meter"]["state"] == ("winnable" if tr.won else "lost")
    assert len(removed) == len(tr.removals) == s["board"]["sc"]
    assert [x.split(" (")[0] for x in removed] == [f"{r.rule} removes {card_name(r.card)}" for r in tr.removals]
    left = [p["cards"][0] for p in s["board"]["rows"][0]["piles"]]
    assert len(left) == len(tr.left) and s["won"] is tr.won and s["over"] and s["stalled"] is (not tr.won)
    assert f"{len(tr.left)} cards left" in s["board"]["note"]
    r = client.post(f"/api/games/{s['id']}/moves", json={"move": "step"})
    assert r.status_code == 400 and "the game is over" in r.json()["error"]
    s = client.post(f"/api/games/{s['id']}/undo").json()
    assert not s["over"] and s["legal"] == ["step"]


@pytest.mark.parametrize("body, status, says", [
    ({"game": "klondike", "seed": 1}, 422, "unknown game 'klondike'"),
    ({"game": 7}, 422, "game must be a game's name"),
    ({"game": "bisley", "pysolfc": 3}, 422, "bisley takes a seed only, not 'pysolfc'"),
    ({"game": "nine-packets", "rules": "canfield"}, 422, "takes a seed only, not 'rules'"),
    ({"game": "ten-columns", "deal": {}}, 422, "takes a seed only, not 'deal'"),
    ({"game": "suit-neighbours", "seed": "3"}, 422, "seed must be an integer"),
    ({"game": "aces-and-kings", "seed": 2**64}, 422, "out of range"),
    ({"game": "canfield", "seed": 3, "color": 1}, 422, "unknown field 'color'"),
])
def test_bad_new_games_get_one_line_errors(client, body, status, says):
    r = client.post("/api/games", json=body)
    assert r.status_code == status and says in r.json()["error"], r.text
    assert "\n" not in r.json()["error"]


@pytest.mark.parametrize("game, bad, says", [
    ("nine-packets", "P1+P1", "names packet 1 twice"),
    ("nine-packets", "P2+P3", "are not of one rank"),
    ("aces-and-kings", "C1>C14", "no column 14"),
    ("aces-and-kings", "C1>A", "does not go on its ace pile"),
    ("ten-columns", "C1+C2", "the first move places the last two cards"),
    ("ten-columns", "place 3 3", "two different columns"),
    ("ten-columns-dealt", "place 1 2", "already placed"),
    ("suit-neighbours", "C1+C2", "one move, 'step'"),
    ("bisley", 5, "a move is a string"),
])
def test_illegal_moves_are_refused_with_the_reason(client, game, bad, says):
    s = new(client, game=game, seed=0)
    r = client.post(f"/api/games/{s['id']}/moves", json={"move": bad})
    assert r.status_code == 400 and says in r.json()["error"], r.text
    assert client.get(f"/api/games/{s['id']}").json()["moves"] == []


def test_the_server_starts_with_the_game_it_was_given():
    with TestClient(create_app({"game": "bisley", "seed": 3}, meter=False)) as c:
        s = c.post("/api/games").json()
        assert s["game"] == "bisley" and s["label"] == "seed 3"
        assert c.post("/api/games", json={"seed": 5}).json()["game"] == "canfield"   # the page's Canfield deal
        assert c.post("/api/games", json={"game": "nine-packets"}).json()["label"] == "seed 0"
        assert replay(get_game("bisley").play, deal_of("bisley", 3), []) == deal_of("bisley", 3)
