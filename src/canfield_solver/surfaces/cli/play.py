"""``canfield play``: the local web app (``surfaces.web``), served by uvicorn."""

from __future__ import annotations

import ipaddress
import os
import random
import socket
import threading
import webbrowser

import click

from ... import startup
from ...errors import install_hint
from .common import FINITE_SECONDS, UserError, Whole, cli, deal_source, load_deal
from .other_games import game_option, refuse_canfield_only


def _loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


def _canfield_initial(seed: int | None, deal_file: str | None, pysolfc: str | None, rules_name: str | None,
                      rules_file: str | None) -> tuple[dict, str, str]:
    """What the server starts with for a Canfield deal, how to name it, and its rules."""
    d = load_deal(seed, deal_file, rules_name, rules_file, pysolfc)   # bad input: one line, before serving
    if seed is not None and not rules_file:
        initial: dict = {"seed": seed, "rules": d.rules.name}
    elif pysolfc is not None and not rules_file:
        initial = {"pysolfc": pysolfc, "rules": d.rules.name}
    else:
        initial = {"deal": d.to_dict()}
    what = f"seed {seed}" if seed is not None else (f"PySolFC game {pysolfc}" if pysolfc else str(deal_file))
    return initial, what, d.rules.name


def _game_initial(game: str, seed: int) -> tuple[dict, str, str]:
    """What the server starts with for one of the other games: its deal of ``seed``."""
    from ...games import deal_of
    from ...games.base import GameError

    try:
        deal_of(game, seed)                          # a seed out of range: one line, before serving
    except GameError as e:
        raise UserError(str(e)) from None
    return {"game": game, "seed": seed}, f"seed {seed}", game


@cli.command()
@game_option
@deal_source("any")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to serve on. Anything but a loopback address lets other machines play on this one.")
@click.option("--port", type=Whole(0, 65535), default=8765, show_default=True,
              help="Port to serve on (0: any free port).")
@click.option("--no-browser", is_flag=True, help="Do not open the page in a browser.")
@click.option("--meter-seconds", type=FINITE_SECONDS, default=10.0, show_default=True,
              help="Time limit of each search of the meter; past it the meter says 'not yet known'.")
@click.option("--workers", type=Whole(min=1), default=None,
              help="Worker processes for the meter's searches (default: the cores but one, at least one).")
def play(game: str, seed: int | None, deal_file: str | None, pysolfc: str | None, rules_name: str | None,
         rules_file: str | None, host: str, port: int, no_browser: bool, meter_seconds: float,
         workers: int | None) -> int:
    """Play a deal in the browser, with a live "still winnable?" meter after every move.

    Starts a local web app (the 'web' extra: pip install '.[web]') and opens it. Without
    --seed, --deal or --pysolfc, a random seed. --game NAME starts one of the other games
    (nine-packets, aces-and-kings, bisley, suit-neighbours, ten-columns, ten-columns-dealt);
    the page's chooser starts any of them. Ctrl-C stops the server.
    """
    startup.settle()  # a server runs for hours: the collector runs as usual (startup.py)
    try:
        import uvicorn

        from ..web.app import create_app
    except ImportError:
        raise UserError("canfield play needs the 'web' extra: " + install_hint("web")) from None
    if game != "canfield":
        refuse_canfield_only(game, deal=deal_file, pysolfc=pysolfc, rules=rules_name, rules_file=rules_file)
    if seed is None and deal_file is None and pysolfc is None:
        seed = random.randrange(2**32)
    if game != "canfield":
        assert seed is not None
        initial, what, rules = _game_initial(game, seed)
    else:
        initial, what, rules = _canfield_initial(seed, deal_file, pysolfc, rules_name, rules_file)
    if not _loopback(host):
        click.echo(f"warning: serving on {host}, not a loopback address: other machines on the network can "
                   "reach this server and play on it", err=True)
    if port:
        with socket.socket() as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                s.bind((host, port))
            except OSError as e:
                raise UserError(f"cannot serve on {host}:{port}: {e.strerror} (try --port 0)") from None
    else:
        with socket.socket() as s:
            s.bind((host, 0))
            port = s.getsockname()[1]
    n = workers or max(1, (os.cpu_count() or 2) - 1)
    app = create_app(initial, workers=n, max_seconds=meter_seconds)
    url = f"http://{host if ':' not in host else '[' + host + ']'}:{port}/"
    click.echo(f"Playing {what} ({rules}) at {url}  (Ctrl-C to stop)")
    if not no_browser:
        threading.Timer(1.0, lambda: webbrowser.open(url)).start()
    uvicorn.run(app, host=host, port=port, log_level="warning")
    return 0
