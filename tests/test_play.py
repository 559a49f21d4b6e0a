"""``canfield play``'s server (``surfaces.web``): every endpoint and every bad input through the ASGI test
client, with the meter's worker process for real."""

import json
import random
import time

import pytest

pytest.importorskip("starlette", reason="needs the 'web' extra (Starlette, uvicorn)")
pytest.importorskip("httpx2", reason="Starlette's test client needs httpx2 (the 'test' extra)")

from starlette.testclient import TestClient  # noqa: E402

from canfield_solver import Deal, Position, replay  # noqa: E402
from canfield_solver.surfaces.web.app import MAX_BODY, create_app  # noqa: E402


@pytest.fixture(scope="module")
def client():
    with TestClient(create_app({"seed": 40}, workers=1, max_seconds=20)) as c:
        yield c


def settled(c, gid, timeout=60.0):
    """The game's state once the meter has finished with the current position."""
    t0 = time.monotonic()
    while True:
        s = c.get(f"/api/games/{gid}").json()
        if s["meter"]["state"] != "pending" or time.monotonic() - t0 > timeout:
            return s
        time.sleep(0.05)


def new(c, **spec):
    r = c.post("/api/games", json=spec)
    assert r.status_code == 201, r.text
    return r.json()


def players_game():
    """60 random legal moves on deal 8: winnable at first, lost after move 32 (test_replay_page)."""
    rng = random.Random(0)
    pos, ms = Position(Deal.from_seed(8)), []
    for _ in range(60):
        m = rng.choice(pos.legal_moves())
        pos.play(m)
        ms.append(m)
    return ms


def stalling_game():
    """Moves on deal 0 that end in a stalled position (SPEC §3), found by a seeded random player."""
    rng = random.Random(0)
    pos, ms = Position(Deal.from_seed(0)), []
    while not pos.is_stalled():
        lm = pos.legal_moves()
        prog = [m for m in lm if m not in ("draw", "redeal")]
        m = rng.choice(prog) if prog and rng.random() < 0.7 else ("draw" if "draw" in lm else
                                                                  ("redeal" if "redeal" in lm else rng.choice(lm)))
        pos.play(m)
        ms.append(m)
    return ms


def test_the_page_and_the_api_list(client):
    page = client.get("/")
    assert page.status_code == 200 and "<script src=\"/play.js\">" in page.text
    assert "http://" not in page.text and "https://" not in page.text     # nothing from outside: works offline
    js = client.get("/play.js").text
    assert "fetch(" in js and "http" not in js.replace("HTTP ", "")
    assert client.get("/play.css").status_code == client.get("/page.css").status_code == 200
    paths = {e["path"] for e in client.get("/api").json()["endpoints"]}
    assert {"/api/games", "/api/games/{id}/moves", "/api/games/{id}/hint", "/api/games/{id}/replay"} <= paths


def test_deals_by_seed_pysolfc_json_and_the_default(client):
    s = new(client)
    assert s["label"] == "seed 40" and s["frame"] and s["moves"] == [] and not s["won"]
    d = Deal.from_seed(5, "canfield-draw1")
    s = new(client, seed=5, rules="canfield-draw1")
    assert s["rules"] == "canfield-draw1" and s["legal"] == Position(d).legal_moves()
    s2 = new(client, deal=d.to_dict())
    assert s2["frame"] == s["frame"] and s2["label"] == "deal"
    pytest.importorskip("pysol_cards")
    s = new(client, pysolfc="1")
    assert s["label"] == "PySolFC game 1" and s["rules"] == "pysolfc-canfield"


@pytest.mark.parametrize("body, status, says", [
    (b"{not json", 400, "malformed JSON"),
    (b"[1, 2]", 422, "must be a JSON object"),
    (b'{"seed": "x"}', 422, "seed must be an integer"),
    (b'{"seed": -1}', 422, "out of range"),
    (b'{"seed": 1, "deal": {}}', 422, "give one of seed, pysolfc and deal"),
    (b'{"colour": 1}', 422, "unknown field 'colour'"),
    (b'{"rules": "nope"}', 422, "unknown rules 'nope'"),
    (b'{"rules": 7}', 422, "rules must be a preset name"),
    (b'{"deal": {"reserve": []}}', 422, ""),
    (b'{"deal": 3}', 422, "deal must be a SPEC deal JSON object"),
])
def test_bad_new_games_get_one_line_errors(client, body, status, says):
    r = client.post("/api/games", content=body, headers={"content-type": "application/json"})
    assert r.status_code == status, r.text
    err = r.json()["error"]
    assert says in err and "\n" not in err and "Traceback" not in err


def test_bad_requests_everywhere(client):
    gid = new(client)["id"]
    huge = b'{"move": "' + b"x" * MAX_BODY + b'"}'
    cases = [
        (client.post(f"/api/games/{gid}/moves", content=huge), 413, "over"),
        (client.post(f"/api/games/{gid}/moves", json={"move": "T1>T9"}), 400, "no column 9"),
        (client.post(f"/api/games/{gid}/moves", json={"move": "T1>F"}), 400, "T1>F"),
        (client.post(f"/api/games/{gid}/moves", json={"move": "fly"}), 400, "fly"),
        (client.post(f"/api/games/{gid}/moves", json={"move": 3}), 400, "a move is a string"),
        (client.post(f"/api/games/{gid}/moves", json={"moves": "draw"}), 422, '{"move": "W>F"}'),
        (client.post(f"/api/games/{gid}/undo"), 400, "nothing to undo"),
        (client.post(f"/api/games/{gid}/redo"), 400, "nothing to redo"),
        (client.get("/api/games/nope"), 404, "no game 'nope'"),
        (client.post("/api/games/nope/moves", json={"move": "draw"}), 404, "no game"),
        (client.get("/nowhere"), 404, "no such page"),
        (client.put("/api/games"), 405, "PUT is not allowed"),
        (client.delete(f"/api/games/{gid}/moves"), 405, "not allowed"),
    ]
    for r, status, says in cases:
        assert r.status_code == status, (r.request.url, r.text)
        assert says in r.json()["error"], r.json()
    assert client.get(f"/api/games/{gid}").json()["moves"] == []   # nothing refused was played
    assert client.delete(f"/api/games/{gid}").status_code == 204
    assert client.get(f"/api/games/{gid}").status_code == 404


def test_moves_undo_redo_follow_the_engine(client):
    s = new(client, seed=2)
    gid = s["id"]
    pos = Position(Deal.from_seed(2))
    for m in ["draw", "draw", pos.legal_moves()[0]]:
        s = client.post(f"/api/games/{gid}/moves", json={"move": m}).json()
    expect = replay(Deal.from_seed(2), s["moves"]).position
    assert s["legal"] == expect.legal_moves() and s["can_undo"] and not s["can_redo"]
    s = client.post(f"/api/games/{gid}/undo").json()
    assert len(s["moves"]) == 2 and s["can_redo"]
    s = client.post(f"/api/games/{gid}/redo").json()
    assert len(s["moves"]) == 3 and s["frame"] == client.get(f"/api/games/{gid}").json()["frame"]


def test_meter_winnable_then_lost_naming_the_move_and_undo_restores_it(client):
    ms = players_game()
    gid = new(client, seed=8)["id"]
    assert settled(client, gid)["meter"]["state"] == "winnable"
    for m in ms[:31]:
        client.post(f"/api/games/{gid}/moves", json={"move": m})
    before = settled(client, gid)
    assert before["meter"]["state"] == "winnable" and before["meter"]["next_moves"]
    client.post(f"/api/games/{gid}/moves", json={"move": ms[31]})
    s = settled(client, gid)
    assert s["meter"]["state"] == "lost" and s["meter"]["lost_at"] == 32 and not s["meter"]["stalled"]
    h = client.get(f"/api/games/{gid}/hint").json()
    assert h["hint"] is None and "cannot be won" in h["why"]
    assert client.get(f"/api/games/{gid}/solution").status_code == 409
    back = client.post(f"/api/games/{gid}/undo").json()        # the meter as it was, at once
    assert back["meter"]["state"] == "winnable" and back["meter"]["next_moves"] == before["meter"]["next_moves"]
    # Played on past the losing move, fast (the meter's searches cancelled one after another): still
    # lost, and the losing move still found by the search back along the game.
    for m in ms[31:45]:
        client.post(f"/api/games/{gid}/moves", json={"move": m})
    s = settled(client, gid)
    assert s["meter"]["state"] == "lost" and s["meter"]["lost_at"] == 32 and s["meter"]["moves"] == 45


def test_meter_says_stalled_and_circles_are_seen(client):
    ms = stalling_game()
    gid = new(client, seed=0)["id"]
    for m in ms:
        client.post(f"/api/games/{gid}/moves", json={"move": m})
    s = settled(client, gid)
    assert s["meter"]["state"] == "lost" and s["meter"]["stalled"]
    # Round in circles: seed 2, a whole pass of draws and a redeal come back to the deal's position.
    gid = new(client, seed=2)["id"]
    s = client.get(f"/api/games/{gid}").json()
    n = 0
    while s["frame"]["s"]:
        s = client.post(f"/api/games/{gid}/moves", json={"move": "draw"}).json()
        assert s["circle"] is None
        n += 1
    s = client.post(f"/api/games/{gid}/moves", json={"move": "redeal"}).json()
    assert s["circle"] == 0 and n == 12


def test_hint_solution_export_and_replay(client, tmp_path):
    from click.testing import CliRunner

    from canfield_solver.surfaces.cli import cli

    gid = new(client, seed=40)["id"]
    s = settled(client, gid)
    h = client.get(f"/api/games/{gid}/hint").json()
    assert h["hint"] and h["hint"] == s["meter"]["next_moves"]
    sol = client.get(f"/api/games/{gid}/solution").json()
    assert len(sol["frames"]) == len(sol["moves"]) + 1
    assert replay(Deal.from_seed(40), sol["moves"]).position.is_won()
    for m in sol["moves"][:20]:
        client.post(f"/api/games/{gid}/moves", json={"move": m})
    text = client.get(f"/api/games/{gid}/export").text
    assert text.splitlines() == sol["moves"][:20]
    f = tmp_path / "moves.txt"
    f.write_text(text)
    r = CliRunner().invoke(cli, ["check", "40", str(f)])
    assert r.exit_code == 0, r.output
    page = client.get(f"/api/games/{gid}/replay")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert json.dumps(sol["moves"][0]) in page.text


def test_a_flooding_client_is_refused_and_others_are_not():
    # rates of one request in 1,000 s: no refill during the test however slow the machine, so the counts are exact
    with TestClient(create_app({"seed": 1}, meter=False, game_rate=(5, 0.001), new_rate=(3, 0.001))) as c:
        a = c.post("/api/games", json={}).json()["id"]
        b = c.post("/api/games", json={}).json()["id"]
        codes = [c.get(f"/api/games/{a}").status_code for _ in range(20)]
        assert codes == [200] * 5 + [429] * 15
        assert c.get(f"/api/games/{b}").status_code == 200           # another game keeps being served
        assert "slow down" in c.get(f"/api/games/{a}").json()["error"]
        codes = [c.post("/api/games", json={}).status_code for _ in range(4)]
        assert codes == [201, 429, 429, 429]                          # the burst of 3 new games, 2 spent above


def test_a_rate_bucket_refills_at_its_rate(monkeypatch):
    from canfield_solver.surfaces.web import app as web_app

    now = [100.0]
    monkeypatch.setattr(web_app.time, "monotonic", lambda: now[0])
    b = web_app._Bucket(2, 4.0)
    assert [b.take(), b.take(), b.take()] == [True, True, False]
    now[0] += 0.2                                                     # 0.8 of a token: still none
    assert not b.take()
    now[0] += 0.1                                                     # 1.2 tokens since: one
    assert [b.take(), b.take()] == [True, False]
    now[0] += 60                                                      # never more than the burst
    assert [b.take(), b.take(), b.take()] == [True, True, False]


def test_the_command_refuses_bad_input_in_one_line():
    import socket

    from click.testing import CliRunner

    from canfield_solver.surfaces.cli import cli

    for args, says in ((["--seed", "5", "--rules", "nope"], "unknown rules 'nope'"),
                       (["--seed", "5", "--deal", "x.json"], "give exactly one of"),
                       (["--port", "70000"], "70000")):
        r = CliRunner().invoke(cli, ["play", "--no-browser", *args])
        assert r.exit_code == 2 and says in r.output and "Traceback" not in r.output, r.output
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        r = CliRunner().invoke(cli, ["play", "--seed", "1", "--no-browser", "--port", str(s.getsockname()[1])])
        assert r.exit_code == 2 and "cannot serve on" in r.output and "--port 0" in r.output
