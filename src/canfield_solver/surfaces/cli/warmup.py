"""``canfield warmup``: every first compile made now (``canfield_solver.warmup``), with progress."""

from __future__ import annotations

import click

from ...warmup import ALL, name, warm_up
from .common import cli


@cli.command()
@click.option("--only", "only", type=click.Choice(ALL), multiple=True,
              help="Compile only this (repeat for several); default: all of them.")
def warmup(only: tuple[str, ...]) -> None:
    """Compile everything a search may run, now (a minute or two, once an install).

    Later commands then never wait for a compile nor answer 'unknown' while one runs in the background:
    for a Docker image or a CI job, run it once after `pip install`. What is compiled already is loaded
    from the cache in a moment.
    """

    def progress(what: str, number: int, count: int, seconds: float | None) -> None:
        if seconds is None:
            click.echo(f"[{number}/{count}] {name(what)}...", err=True)
        else:
            click.echo(f"[{number}/{count}] {name(what)}: ready ({seconds:.1f} s)", err=True)

    took = warm_up(only or ALL, progress)
    click.echo(f"warmed up: {len(took)} compiled or loaded in {sum(took.values()):.1f} s; "
               "later commands start at once")
