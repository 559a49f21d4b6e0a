"""The ``canfield`` command: a thin click layer over the Python API.

Exit codes: 0 success (``solve``: solved), 1 a negative answer (``solve``:
unsolvable; ``check``: an illegal move), 2 bad input, 3 ``solve``: unknown.
Errors are one line on stderr, never a traceback.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from . import __version__
from .deal import Deal
from .errors import CanfieldError, MoveError
from .game import Position, render, replay
from .rules import PRESETS, Rules, get_rules

EXIT_BAD_INPUT = 2


class UserError(click.ClickException):
    exit_code = EXIT_BAD_INPUT


class _Group(click.Group):
    """Turns every usage error and ``CanfieldError`` into one line and exit code 2."""

    def main(self, args: Any = None, prog_name: Any = None, complete_var: Any = None,
             standalone_mode: bool = True, **extra: Any) -> Any:
        try:
            rv = super().main(args, prog_name or "canfield", complete_var, standalone_mode=False, **extra)
        except click.exceptions.Abort:
            click.echo("canfield: interrupted", err=True)
            sys.exit(130)
        except click.ClickException as e:
            click.echo(f"canfield: error: {e.format_message()}", err=True)
            sys.exit(e.exit_code)
        except CanfieldError as e:
            click.echo(f"canfield: error: {e}", err=True)
            sys.exit(EXIT_BAD_INPUT)
        sys.exit(rv if isinstance(rv, int) else 0)


def _rules_option(f: Any) -> Any:
    f = click.option(
        "--rules-file", "rules_file", type=click.Path(dir_okay=False), default=None,
        help="A JSON file of Rules parameters (overrides --rules).",
    )(f)
    return click.option(
        "--rules", "-r", "rules_name", default=None, metavar="PRESET",
        help=f"Rules preset: {', '.join(PRESETS)} (default canfield, or the deal file's).",
    )(f)


def _resolve_rules(rules_name: str | None, rules_file: str | None, fallback: str | None = None) -> Rules:
    if rules_file:
        return Rules.from_json_file(rules_file)
    return get_rules(rules_name or fallback or "canfield")


def _load_deal(seed: int | None, deal_file: str | None, rules_name: str | None, rules_file: str | None) -> Deal:
    if (seed is None) == (deal_file is None):
        raise UserError("give exactly one of --seed N or --deal FILE")
    if seed is not None:
        return Deal.from_seed(seed, _resolve_rules(rules_name, rules_file))
    assert deal_file is not None
    if rules_name or rules_file:
        return Deal.from_file(deal_file, _resolve_rules(rules_name, rules_file))
    return Deal.from_file(deal_file)


def _read_moves(path: str) -> list[str]:
    """Moves from a file: a JSON list of strings, or one move per line (# starts a comment)."""
    try:
        if path == "-":
            text = sys.stdin.read()
        else:
            with open(path, encoding="utf-8") as fh:
                text = fh.read()
    except OSError as e:
        raise UserError(f"cannot read moves file {path!r}: {e.strerror}") from None
    except UnicodeDecodeError:
        raise UserError(f"moves file {path!r} is not UTF-8 text") from None
    stripped = text.strip()
    if stripped.startswith("["):
        try:
            data = json.loads(stripped)
        except json.JSONDecodeError as e:
            raise UserError(f"moves file {path!r} is not a valid JSON list: {e.msg} at line {e.lineno}") from None
        if not all(isinstance(m, str) for m in data):
            raise UserError(f"moves file {path!r}: every move must be a string like 'W>T2'")
        return list(data)
    moves = []
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            moves.append(line)
    return moves


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="canfield")
def cli() -> None:
    """Decide Canfield solitaire deals, show winning moves, prove lost ones lost."""


@cli.command()
@click.argument("seed", type=click.IntRange(0, 2**64 - 1))
@_rules_option
@click.option("--json", "as_json", is_flag=True, help="Print the deal as SPEC JSON.")
def deal(seed: int, rules_name: str | None, rules_file: str | None, as_json: bool) -> None:
    """Show the deal of SEED."""
    d = Deal.from_seed(seed, _resolve_rules(rules_name, rules_file))
    if as_json:
        click.echo(d.to_json())
        return
    click.echo(f"Seed {seed} · rules {d.rules.name}")
    click.echo(render(Position(d)))


@cli.command()
@click.argument("deal_file", metavar="DEAL.json", type=click.Path(dir_okay=False))
@click.argument("moves_file", metavar="MOVES", type=click.Path(dir_okay=False, allow_dash=True))
@_rules_option
@click.option("--json", "as_json", is_flag=True, help="Print the result as one JSON object.")
def check(deal_file: str, moves_file: str, rules_name: str | None, rules_file: str | None, as_json: bool) -> int:
    """Replay MOVES (one per line, or a JSON list) from DEAL.json and report the result.

    Exits 0 when every move is legal, 1 at the first illegal move.
    """
    d = _load_deal(None, deal_file, rules_name, rules_file)
    moves = _read_moves(moves_file)
    try:
        res = replay(d, moves, strict=False)
    except MoveError as e:  # pragma: no cover - replay reports these itself
        raise UserError(str(e)) from None
    pos = res.position
    won, stalled = pos.is_won(), pos.is_stalled()
    if as_json:
        click.echo(json.dumps({
            "legal": res.legal, "played": res.played, "total": len(moves),
            "error": res.error, "illegal_index": res.index,
            "score": pos.score, "won": won, "stalled": stalled,
        }))
    else:
        if res.legal:
            click.echo(f"legal: all {len(moves)} moves")
        else:
            click.echo(f"illegal: {res.error}")
        click.echo(f"score: {pos.score}/{4 * d.rules.ranks}")
        click.echo(f"won: {'yes' if won else 'no'}")
        click.echo(f"stalled: {'yes' if stalled else 'no'}")
    return 0 if res.legal else 1


@cli.command()
def rules() -> None:
    """List the rules presets."""
    for name, r in PRESETS.items():
        click.echo(f"{name:24s} {r.description}")


def main() -> None:
    cli.main(prog_name="canfield")
