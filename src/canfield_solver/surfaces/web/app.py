"""The play server: a Starlette (ASGI) app over ``session.CanfieldGame`` and the ``meter``'s worker processes.

``PlayServer`` holds the server's state (the games, the rate buckets, the meter) and answers each route as
a method; ``create_app`` builds one and returns its app.

The JSON API (docs/play.md lists every endpoint; ``GET /api`` too) holds one game per browser tab in
memory; it reads and writes no files. Every request is checked: a body over ``MAX_BODY`` bytes gets
413, malformed JSON 400, a wrong type or an unknown field 422, an unknown game 404, an illegal move 400
with the engine's reason, too many requests for one game (or too many new games from one client) 429;
every error is ``{"error": "one line"}``, never a traceback, and the server keeps serving.
"""

from __future__ import annotations

import contextlib
import json
import secrets
import threading
import time
from importlib import resources
from typing import AsyncIterator, Awaitable, Callable, cast

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from ...engine.deal import Deal
from ...errors import CanfieldError, install_hint
from .meter import Meter, measure
from .patience import PLAYABLE, start_game
from .session import CanfieldGame, Tracked

__all__ = ["API", "MAX_BODY", "MAX_GAMES", "PlayServer", "create_app"]

MAX_BODY = 64 * 1024     # bytes: a deal is under 2 KiB
MAX_GAMES = 256          # games held at once; the least recently used one goes when a new one needs room
GAME_RATE = (120, 60.0)  # per game: a burst of 120 requests, then 60 a second (a person plays a few a second)
NEW_RATE = (60, 5.0)     # per client address: a burst of 60 new games, then 5 a second

API = [
    ("GET", "/api", "this list"),
    ("POST", "/api/games", "start a game: {} (the server's deal), {\"seed\": N}, {\"pysolfc\": N} or "
                           "{\"deal\": {...SPEC deal JSON...}}, each with an optional \"rules\": preset; or "
                           "{\"game\": NAME, \"seed\": N} for nine-packets, aces-and-kings, bisley, "
                           "suit-neighbours, ten-columns, ten-columns-dealt; 201 and the state"),
    ("GET", "/api/games/{id}", "the state: layout, legal moves, moves played, meter"),
    ("POST", "/api/games/{id}/moves", "play {\"move\": \"W>F\"} (SPEC §4 notation; the game's own for the "
                                      "others: P3+P7, C5>A, place 1 7, C3+C8, step): the new state, or 400 and why"),
    ("POST", "/api/games/{id}/undo", "take back the last move"),
    ("POST", "/api/games/{id}/redo", "play again the last move taken back"),
    ("GET", "/api/games/{id}/hint", "the next step of a winning line, when the meter has one"),
    ("GET", "/api/games/{id}/solution", "the winning line from here and its frames, when the meter has one"),
    ("GET", "/api/games/{id}/export", "the moves played, one a line, as `canfield check` reads them"),
    ("GET", "/api/games/{id}/replay", "the game's replay page (one HTML file)"),
    ("DELETE", "/api/games/{id}", "end the game"),
]


class _Bucket:
    """A token bucket: ``take()`` is False once the burst is spent faster than the rate refills it."""

    def __init__(self, burst: int, rate: float):
        self.burst, self.rate, self.tokens, self.t = burst, rate, float(burst), time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.t) * self.rate)
        self.t = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


class _Fail(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status, self.message = status, message


def _asset(name: str) -> str:
    base = resources.files("canfield_solver.surfaces")
    return (base / "web" / name).read_text(encoding="utf-8") if name.startswith("play") else \
        (base / name).read_text(encoding="utf-8")


class PlayServer:
    """The play server's state and its routes: the games held (``games``, by id, under ``games_lock``), the
    rate buckets, the meter (its worker processes, started and stopped by ``lifespan``) and the settings
    each request reads. ``app`` is the Starlette app over it; ``create_app`` builds both."""

    def __init__(self, initial: dict[str, object] | None = None, *, workers: int = 1, max_seconds: float = 10.0,
                 max_memory_mb: int = 256, meter: bool = True, game_rate: tuple[int, float] = GAME_RATE,
                 new_rate: tuple[int, float] = NEW_RATE) -> None:
        self.initial: dict[str, object] = dict(initial or {"seed": 0})     # or {"game": NAME, "seed": N}
        self.workers, self.max_seconds, self.max_memory_mb = workers, max_seconds, max_memory_mb
        self.metered, self.game_rate, self.new_rate = meter, game_rate, new_rate
        self.games: dict[str, Tracked] = {}
        self.games_lock = threading.Lock()
        self.buckets: dict[str, _Bucket] = {}
        self.new_buckets: dict[str, _Bucket] = {}
        self.meter: Meter | None = None  # while the app runs, with ``metered``
        self.app = self._app()

    # --- what a request asks for, checked ---------------------------------------------------------

    def game_of_spec(self, gid: str, spec: dict[str, object]) -> Tracked:
        """The game a ``POST /api/games`` body asks for: Canfield's deal (``deal_of``), or one of the
        other games (``{"game": NAME, "seed": N}``)."""
        initial = self.initial
        game = spec["game"] if "game" in spec else (initial.get("game", "canfield") if not spec else "canfield")
        if not isinstance(game, str):
            raise _Fail(422, f"game must be a game's name (a string), not {game!r}")
        if game == "canfield":
            deal, label = self.deal_of({k: v for k, v in spec.items() if k != "game"})
            return CanfieldGame(gid, label, deal=deal)
        if game not in PLAYABLE:
            raise _Fail(422, f"unknown game {game!r}; games: {', '.join(('canfield',) + PLAYABLE)}")
        extra = set(spec) - {"game", "seed"}
        if extra:
            raise _Fail(422, f"{game} takes a seed only, not {sorted(extra)[0]!r} (deal files, PySolFC "
                             "numbers and rules are Canfield's)")
        seed = spec["seed"] if "seed" in spec else (initial.get("seed", 0) if initial.get("game") == game else 0)
        try:                                     # start_game checks the seed (one line, 422)
            return start_game(gid, game, cast(int, seed))  # a JSON value: start_game's check_seed refuses a non-seed
        except CanfieldError as e:
            raise _Fail(422, str(e)) from None

    def deal_of(self, spec: dict[str, object]) -> tuple[Deal, str]:
        """Canfield's deal a body asks for (one of seed, pysolfc and deal, with optional rules; none: the
        server's own) and its label."""
        allowed = {"seed", "pysolfc", "deal", "rules"}
        extra = set(spec) - allowed
        if extra:
            raise _Fail(422, f"unknown field {sorted(extra)[0]!r} (fields: game, seed, pysolfc, deal, rules)")
        given = [k for k in ("seed", "pysolfc", "deal") if k in spec]
        if len(given) > 1:
            raise _Fail(422, f"give one of seed, pysolfc and deal, not {' and '.join(given)}")
        if not given:
            base = self.initial if "game" not in self.initial else {"seed": 0}
            spec = {**base, **({"rules": spec["rules"]} if "rules" in spec else {})}
            given = [k for k in ("seed", "pysolfc", "deal") if k in spec]
        rules = spec.get("rules")
        if rules is not None and not isinstance(rules, str):
            raise _Fail(422, f"rules must be a preset name (a string), not {rules!r}")
        kind = given[0]
        value = spec[kind]
        try:
            if kind == "seed":  # Deal.from_seed checks it (engine.deal.check_seed): a DealError, 422 below
                return Deal.from_seed(cast(int, value), rules or "canfield"), f"seed {value}"  # checked there
            if kind == "pysolfc":
                from ...formats import pysolfc_deal

                if isinstance(value, bool) or not isinstance(value, (int, str)):
                    raise _Fail(422, f"pysolfc must be a game number, not {value!r}")
                return pysolfc_deal(value, rules or "pysolfc-canfield"), f"PySolFC game {value}"
            if not isinstance(value, dict):
                raise _Fail(422, "deal must be a SPEC deal JSON object")
            from ...formats import deal_from_data

            return deal_from_data(value, rules), "deal"
        except ImportError:
            raise _Fail(422, "PySolFC game numbers need the 'pysolfc' extra: " + install_hint("pysolfc")) from None
        except CanfieldError as e:
            raise _Fail(422, str(e)) from None

    @staticmethod
    async def body(request: Request) -> dict[str, object]:
        """The request's JSON object (``{}`` for an empty body), at most ``MAX_BODY`` bytes."""
        size = request.headers.get("content-length")
        if size is not None and (not size.isdigit() or int(size) > MAX_BODY):
            raise _Fail(413, f"the request body is over {MAX_BODY} bytes")
        raw = b""
        async for chunk in request.stream():
            raw += chunk
            if len(raw) > MAX_BODY:
                raise _Fail(413, f"the request body is over {MAX_BODY} bytes")
        if not raw.strip():
            return {}
        try:
            data = json.loads(raw)
        except (ValueError, UnicodeDecodeError) as e:
            raise _Fail(400, f"malformed JSON: {str(e).splitlines()[0]}") from None
        if not isinstance(data, dict):
            raise _Fail(422, f"the body must be a JSON object, not {type(data).__name__}")
        return data

    def game_of(self, request: Request) -> Tracked:
        """The game a request's path names, after its rate bucket allows the request."""
        gid = request.path_params["id"]
        with self.games_lock:
            g = self.games.get(gid)
        if g is None:
            raise _Fail(404, f"no game {gid!r} (it ended, or the server restarted)")
        b = self.buckets.setdefault(gid, _Bucket(*self.game_rate))
        if not b.take():
            raise _Fail(429, "too many requests for this game; slow down")
        g.last_used = time.monotonic()
        return g

    def measure_now(self, g: Tracked) -> None:
        """Start measuring ``g``'s position: on the meter's workers, or inline without a meter."""
        if not g.searched:      # suit-neighbours: the deal alone decides it, known at once
            return
        if self.meter is not None:
            self.meter.start(g)
        elif not self.metered:
            g.take_reading(g.generation, measure(g.job(), None, self.max_seconds, self.max_memory_mb))

    def forget(self, gid: str) -> None:
        """Drop game ``gid`` (the caller holds ``games_lock``): its bucket and the meter's work on it."""
        self.games.pop(gid, None)
        self.buckets.pop(gid, None)
        if self.meter is not None:
            self.meter.forget(gid)

    # --- the routes ---------------------------------------------------------------------------------

    async def api(self, request: Request) -> Response:
        return JSONResponse({"endpoints": [{"method": m, "path": p, "does": d} for m, p, d in API]})

    async def new_game(self, request: Request) -> Response:
        spec = await self.body(request)
        client = request.client.host if request.client else "?"
        if not self.new_buckets.setdefault(client, _Bucket(*self.new_rate)).take():
            raise _Fail(429, "too many new games; slow down")
        g = self.game_of_spec(secrets.token_urlsafe(9), spec)
        with self.games_lock:
            while len(self.games) >= MAX_GAMES:
                self.forget(min(self.games.values(), key=lambda x: x.last_used).id)
            self.games[g.id] = g
        with g.lock:
            self.measure_now(g)
            return JSONResponse(g.state(), status_code=201)

    async def get_game(self, request: Request) -> Response:
        g = self.game_of(request)
        with g.lock:
            return JSONResponse(g.state())

    async def play(self, request: Request) -> Response:
        g = self.game_of(request)
        data = await self.body(request)
        if set(data) != {"move"}:
            raise _Fail(422, 'give the move as {"move": "W>F"}')
        with g.lock:
            g.play(data["move"])
            self.measure_now(g)
            return JSONResponse(g.state())

    async def undo(self, request: Request) -> Response:
        return await self._change(request, "undo")

    async def redo(self, request: Request) -> Response:
        return await self._change(request, "redo")

    async def _change(self, request: Request, what: str) -> Response:
        g = self.game_of(request)
        await self.body(request)
        with g.lock:
            getattr(g, what)()
            if g.meter.state == "pending":
                self.measure_now(g)
            elif self.meter is not None:
                self.meter.cancel(g)
            return JSONResponse(g.state())

    async def hint(self, request: Request) -> Response:
        g = self.game_of(request)
        with g.lock:
            m = g.meter
            if m.state == "winnable":
                return JSONResponse({"hint": list(m.next_moves), "meter": m.to_dict()})
            why = {"pending": "the search of this position is still running; ask again in a moment",
                   "lost": "this position cannot be won: no move leads to a win",
                   "unknown": m.why or "the search stopped at its limit"}[m.state]
            return JSONResponse({"hint": None, "why": why, "meter": m.to_dict()})

    async def solution(self, request: Request) -> Response:
        g = self.game_of(request)
        with g.lock:
            if g.meter.state != "winnable":
                raise _Fail(409, "no winning line known from this position (the meter says "
                                 f"{g.meter.state})")
            return JSONResponse(g.solution_frames())

    async def export(self, request: Request) -> Response:
        g = self.game_of(request)
        with g.lock:
            text, name = g.export_text(), g.file_stem
        return PlainTextResponse(text, headers={"Content-Disposition": f'attachment; filename="{name}-moves.txt"'})

    async def replay(self, request: Request) -> Response:
        g = self.game_of(request)
        with g.lock:
            html, name = g.replay_html(), g.file_stem
        return HTMLResponse(html, headers={"Content-Disposition": f'attachment; filename="{name}-replay.html"'})

    async def end_game(self, request: Request) -> Response:
        g = self.game_of(request)
        with self.games_lock:
            self.forget(g.id)
        return Response(status_code=204)

    # --- the app ------------------------------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def lifespan(self, app: Starlette) -> AsyncIterator[None]:
        """The meter's worker processes, from the app's start to its end."""
        if self.metered:
            m = Meter(workers=self.workers, max_seconds=self.max_seconds, max_memory_mb=self.max_memory_mb)
            m.warm()
            self.meter = m
        try:
            yield
        finally:
            if self.meter is not None:
                self.meter.close()
                self.meter = None

    def _app(self) -> Starlette:
        api = [("/api", self.api, "GET"), ("/api/games", self.new_game, "POST"),
               ("/api/games/{id}", self.get_game, "GET"), ("/api/games/{id}", self.end_game, "DELETE"),
               ("/api/games/{id}/moves", self.play, "POST"), ("/api/games/{id}/undo", self.undo, "POST"),
               ("/api/games/{id}/redo", self.redo, "POST"), ("/api/games/{id}/hint", self.hint, "GET"),
               ("/api/games/{id}/solution", self.solution, "GET"), ("/api/games/{id}/export", self.export, "GET"),
               ("/api/games/{id}/replay", self.replay, "GET")]
        pages = [("/", "play.html", "text/html"), ("/play.js", "play.js", "text/javascript"),
                 ("/play_games.js", "play_games.js", "text/javascript"), ("/play.css", "play.css", "text/css"),
                 ("/page.css", "page.css", "text/css")]
        routes = [Route(path, _static(name, media), methods=["GET"]) for path, name, media in pages]
        routes += [Route(path, _answering(fn), methods=[method]) for path, fn, method in api]
        app = Starlette(routes=routes, lifespan=self.lifespan,
                        exception_handlers={HTTPException: _http_error, Exception: _server_error})
        app.state.games = self.games
        app.state.server = self
        return app


def create_app(initial: dict[str, object] | None = None, *, workers: int = 1, max_seconds: float = 10.0,
               max_memory_mb: int = 256, meter: bool = True, game_rate: tuple[int, float] = GAME_RATE,
               new_rate: tuple[int, float] = NEW_RATE) -> Starlette:
    """The app (``PlayServer(...).app``). ``initial``: what ``POST /api/games`` with an empty body starts
    (``{"seed": N}``, ``{"pysolfc": N}`` or ``{"deal": {...}}``, optional ``"rules"``, or ``{"game": NAME,
    "seed": N}``; default seed 0 of Canfield). ``meter=False`` measures inline at each request instead of in
    worker processes (for tests of the API alone)."""
    return PlayServer(initial, workers=workers, max_seconds=max_seconds, max_memory_mb=max_memory_mb, meter=meter,
                      game_rate=game_rate, new_rate=new_rate).app


def _answering(fn: Callable[[Request], Awaitable[Response]]) -> Callable[[Request], Awaitable[Response]]:
    """A route that answers every refusal (``_Fail``, and the engine's errors as 400) with one JSON line."""
    async def run(request: Request) -> Response:
        try:
            return await fn(request)
        except _Fail as e:
            return _error(e.status, e.message)
        except CanfieldError as e:
            return _error(400, str(e).splitlines()[0])
    return run


def _static(name: str, media: str) -> Callable[[Request], Awaitable[Response]]:
    text = _asset(name)

    async def run(request: Request) -> Response:
        return Response(text, media_type=media, headers={"Cache-Control": "no-cache"})
    return run


async def _http_error(request: Request, exc: Exception) -> Response:
    status = getattr(exc, "status_code", 500)
    detail = getattr(exc, "detail", "") or ""
    msg = {404: f"no such page or endpoint: {request.url.path}",
           405: f"{request.method} is not allowed on {request.url.path}"}.get(status, str(detail))
    return _error(status, msg)


async def _server_error(request: Request, exc: Exception) -> Response:
    return _error(500, f"internal error: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}")
