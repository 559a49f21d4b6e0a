"""``canfield pysolfc``: put a solver into PySolFC (``canfield_solver.pysolfc``): install, remove, status, and
``winnable`` (more proven-winnable game numbers for the "(Winnable)" variants, picked by ``studies.pick``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from ...formats.pysolfc import PYSOLFC_RULES
from ...pysolfc.install import (
    WINNABLE_FILE,
    add_winnable,
    default_plugin_dir,
    install_plugin,
    plugin_status,
    uninstall_plugin,
)
from ...studies.pick import DIFFICULTIES, pick_deals
from ...studies.settings import StudySettings
from .common import FINITE_SECONDS, Whole, cli

_DIR = click.option("--dir", "plugin_dir", type=click.Path(file_okay=False), default=None,
                    help=f"PySolFC's plugin folder [default: {default_plugin_dir()}].")


@cli.group()
def pysolfc() -> None:
    """PySolFC's Canfield, Superior Canfield, Rainbow, Storehouse and Chameleon get this solver: in its
    Solver dialog (Assist > Solver...) and its demo. PySolFC 3.6 (Tk) loads the plugin at start-up."""


@pysolfc.command("install-plugin")
@_DIR
def install(plugin_dir: str | None) -> None:
    """Write the plugin into PySolFC's plugin folder (again, to update it). Its searches run on this
    interpreter, whatever Python PySolFC runs on."""
    path = install_plugin(plugin_dir)
    click.echo(f"installed {path}")
    click.echo("Restart PySolFC; the games above then have Assist > Solver... (PySolFC --noplugins skips it).")


@pysolfc.command("uninstall-plugin")
@_DIR
def uninstall(plugin_dir: str | None) -> None:
    """Remove the plugin; PySolFC starts as before it."""
    st = plugin_status(plugin_dir)
    if uninstall_plugin(plugin_dir):
        click.echo(f"removed {st.path}")
    else:
        click.echo(f"nothing to remove: {st.path} is not canfield-solver's plugin")


@pysolfc.command("status")
@_DIR
def status(plugin_dir: str | None) -> None:
    """Whether the plugin is installed, which version wrote it, which interpreter it runs, for which games.
    Exits 1 where it is not installed or its interpreter is gone."""
    st = plugin_status(plugin_dir)
    click.echo(st.describe())
    if not st.installed or not st.python_found:
        raise SystemExit(1)


@pysolfc.command("winnable")
@click.argument("title", type=click.Choice(list(PYSOLFC_RULES)), metavar="GAME")
@click.option("--count", type=Whole(1, 100_000), default=20, show_default=True, help="Winnable numbers to add.")
@click.option("--difficulty", type=click.Choice(DIFFICULTIES), default="any", show_default=True,
              help="Only deals of this rating (see 'canfield analyze').")
@click.option("--start", type=Whole(1, 10**20 - 1), default=None,
              help="First game number to look at [default: a random 17-digit number, as PySolFC deals].")
@click.option("--max-seconds", type=FINITE_SECONDS, default=5.0, show_default=True, help="Search limit a deal.")
@click.option("-j", "--jobs", type=Whole(min=1), default=None, help="Local worker processes.")
@click.option("--file", "path", type=click.Path(dir_okay=False), default=None,
              help=f"The numbers file [default: {WINNABLE_FILE} in the plugin folder, which the plugin reads].")
@_DIR
def winnable(title: str, count: int, difficulty: str, start: int | None, max_seconds: float, jobs: int | None,
             path: str | None, plugin_dir: str | None) -> None:
    """Find COUNT more PySolFC game numbers of GAME that the solver proves winnable under PySolFC's rules, and
    add them to the numbers the plugin's "GAME (Winnable)" deals from (with the numbers it ships)."""
    import random

    first = start if start is not None else random.SystemRandom().randrange(10**16, 10**19)
    target = Path(path) if path else Path(plugin_dir or default_plugin_dir()) / WINNABLE_FILE
    settings = StudySettings(max_seconds=max_seconds, jobs=jobs, numbering="pysolfc")
    picker = pick_deals(PYSOLFC_RULES[title], settings, difficulty=difficulty, count=count, first=first)
    picks = []

    def found(row: Any) -> None:
        picks.append((row.seed, row.rating))
        click.echo(f"{row.seed}  {row.rating}")

    picker.run(found)
    total = add_winnable(target, title, picks)
    click.echo(f"{len(picks)} winnable {title} numbers added ({picker.looked} looked at from {first}); "
               f"{target} now holds {total}")
