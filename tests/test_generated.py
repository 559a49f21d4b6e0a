"""Generated inputs as a test tier (CI's exhaustive tier): at least 10,000 Python API calls (Canfield and the
games), 10,000 CLI invocations in-process and 2,000 play-server requests through the ASGI client.

Hypothesis draws limits, deal JSON (valid, mutated, hostile), move texts and rule parameters. The only
exception an API call may raise is a ``CanfieldError`` (bad input, said in one line); anything else fails
the run with the shrunken input in Hypothesis' report. Every CLI invocation ends with a documented exit code
(0-3), errors in one line on stderr and never a traceback (test_cli_fuzz's ``_check``); every server answer
is below 500. Each tier runs in parts (different seeds) so the two CI workers share it; each part counts
the calls it made and fails if fewer than its share ran.
"""

from __future__ import annotations

import json
import math
import random

import pytest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from canfield_solver import CanfieldError, Deal, Position, Rules, analyze, decide, hint, replay, solve
from canfield_solver.engine.rules import PRESETS
from canfield_solver.games import game_names, get_game

from helpers import examples, needs_jit

pytestmark = [pytest.mark.exhaustive, needs_jit]

API_CALLS = 10_000
CLI_CALLS = 10_000
PLAY_REQUESTS = 2_000
PARTS = 4

SETTINGS = dict(deadline=None, database=None, suppress_health_check=list(HealthCheck))

# --- strategies -------------------------------------------------------------------------------------------

limit_nodes = st.one_of(st.none(), st.integers(0, 3000), st.sampled_from([-1, 2**70, True, 1.5, "5"]))
limit_seconds = st.one_of(st.none(), st.floats(0, 0.05), st.sampled_from([-1.0, math.nan, math.inf, "1", 0]))
limit_memory = st.one_of(st.integers(1, 64), st.sampled_from([0, -5, 2**40, 1.5, None, "64"]))
preset = st.one_of(st.sampled_from(sorted(PRESETS)), st.sampled_from(["", "nope", "CANFIELD", None]))
move_text = st.one_of(
    st.sampled_from(["draw", "redeal", "W>F", "R>F", "T1>F", "W>T2", "R>T3", "T1>T2", "T1*>T2", "T1:2>T3", "T9>T1",
                     "T0>T1", "T1:0>T2", "T1:99>T2", "W>T", "", "  ", "x", "T1>>T2", "w>f", "DRAW", "P1+P2",
                     "C1>A", "place 1 2", "\x00", "é"]),
    st.text(max_size=8))


def _mutate(d: dict, rng: random.Random) -> object:
    """A deal's JSON changed in one of the ways a hand-edited or hostile file is."""
    d = json.loads(json.dumps(d))
    keys = list(d)
    k = rng.choice(keys)
    how = rng.randrange(10)
    if how == 0:
        d.pop(k)
    elif how == 1:
        d[k] = rng.choice([None, 7, -1, "x", [], {}, [[]], ["ZZ"], 2**70, True])
    elif how == 2 and isinstance(d.get("tableau"), list) and d["tableau"] and d["tableau"][0]:
        d["tableau"][0][0] = rng.choice(d["stock"] or ["AS"])  # a duplicate card
    elif how == 3 and d.get("stock"):
        d["stock"].pop()  # a missing card
    elif how == 4:
        d["rules"] = rng.choice(["nope", "", 5, {"name": "x", "draw": 0}, {"name": "y", "columns": 9}])
    elif how == 5:
        d["seed"] = rng.choice([-1, 2**64, "3", 3.5, 0])
    elif how == 6:
        d["waste"] = d.get("stock", [])[:3]
    elif how == 7:
        d["redeals_used"] = rng.choice([-1, 1.5, 99, "2"])
    elif how == 8:
        return rng.choice([[], "deal", 5, None, {"tableau": "x"}, "[" * 50])
    else:
        d[rng.choice(["extra", "foundation", "foundations"])] = rng.choice(["8C", ["8C"], [["8C"]], 8])
    return d


@st.composite
def deal_text(draw):
    s = draw(st.integers(0, 2**64 - 1))
    name = draw(st.sampled_from(sorted(PRESETS)))
    d = Deal.from_seed(s, name).to_dict()
    kind = draw(st.sampled_from(["valid", "mutated", "mutated", "hostile"]))
    if kind == "valid":
        return json.dumps(d)
    if kind == "mutated":
        return json.dumps(_mutate(d, random.Random(draw(st.integers(0, 2**32)))))
    return draw(st.sampled_from(["", "{", "[" * 10_000 + "]" * 10_000, '{"tableau": 1e999}', "\x00" * 10,
                                 json.dumps({"reserve": ["AS"] * 13}), "null", '"deal"', "[1, 2]"]))


rules_params = st.fixed_dictionaries({"name": st.sampled_from(["g", "", 5])}, optional={
    "draw": st.one_of(st.integers(-1, 5), st.just("1")),
    "redeals": st.one_of(st.none(), st.integers(-1, 4)),
    "columns": st.integers(0, 8),
    "ranks": st.integers(1, 14),
    "reserve_size": st.integers(-1, 20),
    "build": st.sampled_from(["alternate", "suit", "any", "colour"]),
    "tableau_wrap": st.sampled_from(["full", "none", "relative-to-base", "x"]),
    "column_moves": st.sampled_from(["top-and-whole", "whole", "runs", "whole-or-freeing", "some"]),
    "gap_fill": st.sampled_from(["waste", "any", "none"]),
    "base": st.one_of(st.sampled_from(["random"]), st.integers(-1, 13)),
})


@st.composite
def api_call(draw):
    """One call of the public API, as (name, zero-argument callable)."""
    which = draw(st.sampled_from(["solve", "solve", "deal", "replay", "decide", "hint", "analyze", "game", "game",
                                  "rules"]))
    nodes, secs, mem = draw(limit_nodes), draw(limit_seconds), draw(limit_memory)
    if nodes == 2**70 and (secs is None or secs == math.inf):
        secs = 0.05  # a valid limit of no bound at all would search a hard deal to its end (16 s a call)
    if which == "solve":
        target = draw(st.one_of(st.integers(0, 2**64 - 1), st.integers(-5, -1), st.just(2**64)))
        kw = dict(max_nodes=nodes if nodes is not None else 2000, max_seconds=secs, max_memory_mb=mem,
                  workers=draw(st.sampled_from([1, 1, 2, 0, -1])),
                  method=draw(st.sampled_from(["auto", "depth-first", "layered", "x"])))
        rules = draw(preset)
        return which, lambda: solve(target, rules, **kw)
    if which == "deal":
        text = draw(deal_text())
        return which, lambda: Deal.from_json(text)
    seed_ = draw(st.integers(0, 1000))
    if which == "rules":
        params = draw(rules_params)
        return which, lambda: solve(Deal.from_seed(seed_, Rules.from_dict(params)), max_nodes=500)
    moves = draw(st.lists(move_text, max_size=6))
    strict = draw(st.booleans())
    if which == "replay":
        return which, lambda: replay(Deal.from_seed(seed_), moves, strict=strict)
    if which == "decide":
        return which, lambda: decide(_played(seed_, moves), max_nodes=nodes if nodes is not None else 2000,
                                     max_seconds=secs, max_memory_mb=mem)
    if which == "hint":
        return which, lambda: hint(Deal.from_seed(seed_), moves, max_nodes=nodes if nodes is not None else 2000,
                                   max_seconds=secs, max_memory_mb=mem)
    if which == "analyze":
        return which, lambda: analyze(seed_, max_nodes=nodes if nodes is not None else 2000, max_seconds=secs,
                                      probe_nodes=200, playouts=2)
    name = draw(st.sampled_from(game_names() + ["canfield", "nope"]))
    gmoves = draw(st.lists(move_text, max_size=4))
    gmem = draw(st.one_of(st.none(), st.integers(1, 64), st.sampled_from([0, -1])))
    gnodes = nodes if nodes is not None else 2000

    def game() -> object:
        g = get_game(name)
        p = g.deal(seed_)
        for m in gmoves:
            p = g.play(p, m)
        return g.solve(p, max_nodes=gnodes, max_seconds=secs, max_memory_mb=gmem)

    return which, game


def _played(seed_: int, moves: list[str]) -> Position:
    pos = Position(Deal.from_seed(seed_))
    for m in moves:
        pos.play(m)
    return pos


def _api_part(part: int) -> int:
    calls = [0]

    @seed(20261202 + part)
    @settings(max_examples=examples(API_CALLS // PARTS), **SETTINGS)
    @given(call=api_call())
    def run(call):
        name, fn = call
        calls[0] += 1
        try:
            fn()
        except CanfieldError:
            pass  # bad input, said in one line: the documented answer

    run()
    return calls[0]


@pytest.mark.parametrize("part", range(PARTS))
def test_generated_api_calls_raise_only_canfield_errors(part):
    assert _api_part(part) >= examples(API_CALLS // PARTS)


@pytest.mark.parametrize("part", range(PARTS))
def test_generated_cli_invocations_end_in_one_line(part, files):
    from test_cli_fuzz import _check, invocation

    calls = [0]

    @seed(7000 + part)
    @settings(max_examples=examples(CLI_CALLS // PARTS), **SETTINGS)
    @given(data=st.data())
    def run(data):
        calls[0] += 1
        _check(files, data.draw(invocation(files)))

    run()
    assert calls[0] >= examples(CLI_CALLS // PARTS)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    from test_cli_fuzz import make_files

    return make_files(tmp_path_factory.mktemp("generated"))


ENDPOINTS = [("POST", "/api/games"), ("GET", "/api/games/{id}"), ("DELETE", "/api/games/{id}"),
             ("POST", "/api/games/{id}/moves"), ("POST", "/api/games/{id}/undo"), ("POST", "/api/games/{id}/redo"),
             ("GET", "/api/games/{id}/hint"), ("GET", "/api/games/{id}/solution"), ("GET", "/api/games/{id}/export"),
             ("GET", "/api/games/{id}/replay"), ("GET", "/api"), ("PUT", "/api/games"), ("GET", "/nope")]

json_value = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70),
                                    st.floats(allow_nan=False, allow_infinity=False),
                                    st.text(max_size=6)),
                          lambda v: st.one_of(st.lists(v, max_size=3), st.dictionaries(st.text(max_size=6), v,
                                                                                        max_size=3)),
                          max_leaves=8)


def _loads(text: str) -> object:
    """A generated deal text as the JSON a client would send (the text itself where it is not JSON)."""
    try:
        value = json.loads(text)
        json.dumps(value, allow_nan=False)  # 1e999 reads as inf, which a client cannot send as JSON
        return value
    except (ValueError, RecursionError):
        return text


# The other games' moves (docs/play.md), legal or not, for the live games of each kind.
game_move = st.sampled_from(["P1+P2", "p3 + P7", "P1+P1", "C5>A", "C5>K", "C1>C2", "C14>A", "place 1 7", "place 3 3",
                             "C3+C8", "step", "C0+C1"])


@st.composite
def request_(draw):
    method, path = draw(st.sampled_from(ENDPOINTS))
    gid = draw(st.sampled_from(["{live}", "{live}", "{game}", "{game}", "nope", "", "0" * 40, "%00", "../x"]))
    kind = draw(st.sampled_from(["spec", "move", "json", "text"]))
    if kind == "spec":
        body: object = draw(st.fixed_dictionaries({}, optional={
            "seed": st.one_of(st.integers(-1, 2**65), st.text(max_size=4)),
            "pysolfc": st.one_of(st.integers(-1, 10**7), st.just("x")),
            "rules": preset, "deal": st.one_of(st.just({}), st.builds(_loads, deal_text()), json_value),
            "game": st.sampled_from(game_names() + ["canfield", "x"])}))
    elif kind == "move":
        body = {"move": draw(st.one_of(move_text, json_value, game_move))}
    elif kind == "json":
        body = draw(json_value)
    else:
        body = draw(st.one_of(st.text(max_size=20), st.binary(max_size=20)))
    return method, path, gid, kind, body


@pytest.mark.parametrize("part", range(PARTS))
def test_generated_play_requests_never_answer_5xx(part):
    pytest.importorskip("starlette")
    pytest.importorskip("httpx2")
    from starlette.testclient import TestClient

    from canfield_solver.surfaces.web.app import create_app

    calls = [0]
    with TestClient(create_app({"seed": 40}, meter=False, max_seconds=0.05, game_rate=(10**6, 10**6),
                               new_rate=(10**6, 10**6))) as c:
        live = c.post("/api/games", json={}).json()["id"]
        others = [c.post("/api/games", json={"game": g, "seed": 1}).json()["id"] for g in game_names()]

        @seed(9000 + part)
        @settings(max_examples=examples(PLAY_REQUESTS // PARTS), **SETTINGS)
        @given(req=request_(), other=st.sampled_from(others))
        def run(req, other):
            method, path, gid, kind, body = req
            url = path.replace("{id}", {"{live}": live, "{game}": other}.get(gid, gid))
            calls[0] += 1
            if kind == "text":
                r = c.request(method, url, content=body if isinstance(body, bytes) else body.encode())
            else:
                r = c.request(method, url, json=body)
            assert r.status_code < 500, (method, url, body, r.status_code, r.text[:300])
            if r.status_code >= 400:
                msg = r.json().get("error", "") if "json" in r.headers.get("content-type", "") else r.text
                assert msg and "\n" not in msg.strip() and "Traceback" not in msg, (method, url, body, msg)

        run()
    assert calls[0] >= examples(PLAY_REQUESTS // PARTS)
