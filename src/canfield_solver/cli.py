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


EXIT_CODES = {"solved": 0, "unsolvable": 1, "unknown": 3}


@cli.command()
@click.option("--seed", "-s", type=click.IntRange(0, 2**64 - 1), default=None, help="Deal number (SPEC §2).")
@click.option("--deal", "deal_file", type=click.Path(dir_okay=False), default=None, help="Deal or position JSON file.")
@_rules_option
@click.option("--moves-played", "played_file", type=click.Path(dir_okay=False, allow_dash=True), default=None,
              help="Solve from the position after these moves (one per line, or a JSON list).")
@click.option("--max-seconds", type=click.FloatRange(min=0, min_open=True), default=60.0, show_default=True,
              help="Stop with 'unknown' after this long.")
@click.option("--max-nodes", type=click.IntRange(min=1), default=None, help="Stop with 'unknown' after this many nodes.")
@click.option("--max-memory", "max_memory_mb", type=click.IntRange(min=16), default=640, show_default=True,
              help="Transposition table cap in MiB (growth included); a full table stops with 'unknown'.")
@click.option("--moves", "show_moves", is_flag=True, help="Print the winning moves.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def solve(seed: int | None, deal_file: str | None, rules_name: str | None, rules_file: str | None,
          played_file: str | None, max_seconds: float, max_nodes: int | None, max_memory_mb: int,
          show_moves: bool, as_json: bool) -> int:
    """Decide a deal: solved (exit 0), unsolvable (1), unknown (3); bad input exits 2."""
    from .solver import Verdict, solve as _solve

    d = _load_deal(seed, deal_file, rules_name, rules_file)
    start: Any = d
    played: list[str] = []
    stalled = False
    if played_file is not None:
        played = _read_moves(played_file)
        res = replay(d, played, strict=False)
        if not res.legal:
            raise UserError(f"--moves-played: {res.error}")
        start = res.position
        stalled = res.position.is_stalled()
    progress = None
    if not as_json and sys.stderr.isatty():
        def progress(nodes: int, elapsed: float) -> None:
            click.echo(f"\rsearching: {nodes / 1e6:7.1f} M nodes, {elapsed:6.1f} s", err=True, nl=False)
    if stalled:
        from .solver import SolveResult

        result = SolveResult(Verdict.UNSOLVABLE, (), 0, 0.0, 0, start.score, 0, d.rules.name, d.seed)
    else:
        result = _solve(start, max_nodes=max_nodes, max_seconds=max_seconds, max_memory_mb=max_memory_mb,
                        progress=progress)
        if progress is not None:
            click.echo("\r" + " " * 48 + "\r", err=True, nl=False)
    full = 4 * d.rules.ranks
    if as_json:
        out = result.to_dict()
        out["seed"] = d.seed
        if played_file is not None:
            out["moves_played"] = len(played)
            out["stalled"] = stalled
        click.echo(json.dumps(out))
    else:
        where = f"seed {d.seed}" if d.seed is not None else (deal_file or "deal")
        if played:
            where += f" after {len(played)} moves"
        v = result.verdict.value
        if stalled:
            click.echo(f"{where} · {d.rules.name}: unsolvable — the position is stalled "
                       f"(no progress move can ever be reached); score {result.best_score}/{full}")
        else:
            line = f"{where} · {d.rules.name}: {v} in {result.seconds:.3f} s, {result.nodes:,} nodes"
            if v == "solved":
                line += f"; winning line of {len(result.moves)} moves"
            elif v == "unknown":
                line += f"; stopped by the {result.limit} limit"
            click.echo(line)
            click.echo(f"best score: {result.best_score}/{full}")
        if show_moves and result.moves:
            click.echo(" ".join(result.moves))
    return EXIT_CODES[result.verdict.value]


@cli.command()
def rules() -> None:
    """List the rules presets."""
    for name, r in PRESETS.items():
        click.echo(f"{name:24s} {r.description}")


def main() -> None:
    cli.main(prog_name="canfield")


if __name__ == "__main__":
    main()
