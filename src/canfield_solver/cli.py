"""The ``canfield`` command: a thin click layer over the Python API.

Exit codes: 0 success (``solve``: solved), 1 a negative answer (``solve``:
unsolvable; ``check``: an illegal move), 2 bad input, 3 ``solve``: unknown,
130 interrupted, 70 a bug. Errors are one line on stderr, never a traceback.
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
from typing import Any

import click

from . import __version__
from .deal import Deal
from .errors import CanfieldError
from .game import Position, render, replay
from .rules import PRESETS, Rules, get_rules
from .transcript import format_steps, looks_like_steps, parse_steps, review, steps
from ._search.layout import DEFAULT_MEMORY_MB

EXIT_BAD_INPUT = 2
EXIT_INTERNAL = 70  # a bug (sysexits EX_SOFTWARE): reported in one line, never as a traceback


class UserError(click.ClickException):
    exit_code = EXIT_BAD_INPUT


class _Seconds(click.FloatRange):
    """A positive time limit in seconds; ``inf`` means none, ``nan`` is refused."""

    name = "seconds"

    def convert(self, value: Any, param: Any, ctx: Any) -> Any:
        v = super().convert(value, param, ctx)
        if v != v:
            self.fail("must be a number of seconds, not nan", param, ctx)
        return v


SECONDS = _Seconds(min=0, min_open=True)


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
        except sqlite3.Error as e:  # the result store failed half-way: locked, disk full, removed
            click.echo(f"canfield: error: result store: {e}; the deals finished before this are kept", err=True)
            sys.exit(EXIT_BAD_INPUT)
        except OSError as e:  # a file the user named turned out unusable half-way (full disk, removed, ...)
            where = f" {e.filename!r}" if e.filename else ""
            click.echo(f"canfield: error: cannot use{where}: {e.strerror or e}", err=True)
            sys.exit(EXIT_BAD_INPUT)
        except Exception as e:  # never a traceback; this is a bug to report
            click.echo(f"canfield: internal error ({type(e).__name__}: {e}); please report it", err=True)
            sys.exit(EXIT_INTERNAL)
        sys.exit(rv if isinstance(rv, int) else 0)


def _not_blank(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
    """Refuse an empty or blank text value (``--rules ""`` would otherwise mean the default)."""
    if isinstance(value, str) and not value.strip():
        raise click.BadParameter("must not be empty")
    return value


def _rules_option(f: Any) -> Any:
    f = click.option(
        "--rules-file", "rules_file", type=click.Path(dir_okay=False), default=None, callback=_not_blank,
        help="A JSON file of Rules parameters (overrides --rules).",
    )(f)
    return click.option(
        "--rules", "-r", "rules_name", default=None, metavar="PRESET", callback=_not_blank,
        help=f"Rules preset: {', '.join(PRESETS)} (default canfield, or the deal file's).",
    )(f)


def _resolve_rules(rules_name: str | None, rules_file: str | None, fallback: str | None = None) -> Rules:
    if rules_file:
        return Rules.from_json_file(rules_file)
    return get_rules(rules_name or fallback or "canfield")


def _load_deal(seed: int | None, deal_file: str | None, rules_name: str | None, rules_file: str | None,
               pysolfc: str | None = None) -> Deal:
    if sum(x is not None for x in (seed, deal_file, pysolfc)) != 1:
        raise UserError("give exactly one of --seed N, --deal FILE or --pysolfc N")
    if seed is not None:
        return Deal.from_seed(seed, _resolve_rules(rules_name, rules_file))
    if pysolfc is not None:
        return Deal.from_pysolfc(pysolfc, _resolve_rules(rules_name, rules_file, fallback="pysolfc-canfield"))
    assert deal_file is not None
    if rules_name or rules_file:
        return Deal.from_file(deal_file, _resolve_rules(rules_name, rules_file))
    return Deal.from_file(deal_file)


def _deal_argument(text: str, rules_name: str | None, rules_file: str | None) -> Deal:
    """DEAL as a deal JSON file (ours or the published solver's) or, when no such file exists, a seed number."""
    if text.strip().isdigit() and not os.path.exists(text):
        seed = int(text)
        if seed >= 2**64:
            raise UserError(f"DEAL: seed {seed} is out of range 0..2^64-1")
        return Deal.from_seed(seed, _resolve_rules(rules_name, rules_file))
    return _load_deal(None, text, rules_name, rules_file)


def _deal_and_moves(args: tuple[str, ...], pysolfc: str | None, rules_name: str | None,
                    rules_file: str | None) -> tuple[Deal, str]:
    """``[DEAL] MOVES``: DEAL is left out exactly when --pysolfc N gives the deal."""
    want = 1 if pysolfc is not None else 2
    if len(args) != want:
        usage = "--pysolfc N MOVES" if pysolfc is not None else "DEAL MOVES"
        raise UserError(f"expected {usage} ({want} argument{'s' if want > 1 else ''}), got {len(args)}")
    for name, value in zip(("DEAL", "MOVES")[2 - want:], args):
        if not value.strip():
            raise UserError(f"Invalid value for '{name}': must not be empty")
    if pysolfc is not None:
        return _load_deal(None, None, rules_name, rules_file, pysolfc), args[0]
    return _deal_argument(args[0], rules_name, rules_file), args[1]


def _pysolfc_option(f: Any) -> Any:
    return click.option(
        "--pysolfc", "pysolfc", default=None, metavar="N", callback=_not_blank,
        help="PySolFC game number N (needs the 'pysolfc' extra); rules default to pysolfc-canfield.",
    )(f)


def _deal_source_options(f: Any) -> Any:
    """--seed N | --deal FILE | --pysolfc N, and the rules options: the deal sources of solve, analyze, show."""
    f = _rules_option(f)
    f = _pysolfc_option(f)
    f = click.option("--deal", "deal_file", type=click.Path(dir_okay=False), default=None, callback=_not_blank,
                     help="Deal or position JSON file (ours, or the published solver's).")(f)
    return click.option("--seed", "-s", type=click.IntRange(0, 2**64 - 1), default=None,
                        help="Deal number (SPEC §2).")(f)


def _search_limit_options(f: Any) -> Any:
    """--max-seconds, --max-nodes, --max-memory: the limits of one search (solve, hint)."""
    f = click.option("--max-memory", "max_memory_mb", type=click.IntRange(min=16), default=DEFAULT_MEMORY_MB,
                     show_default=True,
                     help="Transposition table cap in MiB (growth included); a full table stops with 'unknown'.")(f)
    f = click.option("--max-nodes", type=click.IntRange(min=1), default=None,
                     help="Stop with 'unknown' after this many nodes.")(f)
    return click.option("--max-seconds", type=SECONDS, default=60.0, show_default=True,
                        help="Stop with 'unknown' after this long.")(f)


def _where(d: Deal, fallback: str = "deal") -> str:
    if d.pysolfc_game is not None:
        return f"PySolFC game {d.pysolfc_game}"
    return f"seed {d.seed}" if d.seed is not None else fallback


def _prepare_kernel() -> None:
    """Load the search kernel; when this process must compile it first, say so on stderr (stdout stays clean)."""
    from ._search.layout import COMPILE_SECONDS
    from .solver import kernel_ready, load_kernel

    if kernel_ready():
        load_kernel()
        return
    click.echo(f"compiling the search kernel, first run only (~{COMPILE_SECONDS} s)...", err=True)
    secs = load_kernel()
    click.echo(f"compiled in {secs:.1f} s; later runs load it from the cache", err=True)


def _workers_compile_notice() -> None:
    """For commands whose searches run in worker processes: say so when they must compile first.

    The parent stays free of Numba (its memory stays small); whether a
    compiled kernel is cached is judged from Numba's cache index files alone.
    """
    import glob

    from . import _search

    env = os.environ.get("NUMBA_CACHE_DIR")
    roots = [env] if env else [os.path.join(os.path.dirname(_search.__file__), "__pycache__"),
                               os.path.expanduser("~/.cache/numba")]
    if not any(glob.glob(os.path.join(r, "**", "kernel._search-*.nbi"), recursive=True) for r in roots):
        from ._search.layout import COMPILE_SECONDS

        click.echo(f"compiling the search kernel in the worker processes, first run only (~{COMPILE_SECONDS} s)...",
                   err=True)


def _read_moves(path: str) -> list[str]:
    """Moves from a file: a JSON list of strings, one move per line (# starts a comment), or printed steps."""
    from .deal import MAX_FILE_CHARS

    try:
        if path == "-":
            text = sys.stdin.read(MAX_FILE_CHARS + 1)
        else:
            with open(path, encoding="utf-8") as fh:
                text = fh.read(MAX_FILE_CHARS + 1)
    except OSError as e:
        raise UserError(f"cannot read moves file {path!r}: {e.strerror}") from None
    except UnicodeDecodeError:
        raise UserError(f"moves file {path!r} is not UTF-8 text") from None
    if len(text) > MAX_FILE_CHARS:
        raise UserError(f"moves file {path!r} is too large to be a game (over {MAX_FILE_CHARS:,} characters)")
    stripped = text.strip()
    if looks_like_steps(stripped):  # the numbered steps `solve --moves` prints
        return parse_steps(stripped)
    if stripped.startswith("["):
        try:
            data = json.loads(stripped)
        except RecursionError:
            raise UserError(f"moves file {path!r} nests too deeply to be a move list") from None
        except json.JSONDecodeError as e:
            raise UserError(f"moves file {path!r} is not a valid JSON list: {e.msg} at line {e.lineno}") from None
        if not isinstance(data, list) or not all(isinstance(m, str) for m in data):
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
@click.argument("seed", type=click.IntRange(0, 2**64 - 1), required=False)
@_pysolfc_option
@_rules_option
@click.option("--format", "fmt", type=click.Choice(["text", "json", "solvitaire"]), default="text", show_default=True,
              help="text: a picture; json: SPEC deal JSON; solvitaire: the published solver's deal file.")
@click.option("--json", "as_json", is_flag=True, help="Same as --format json.")
def deal(seed: int | None, pysolfc: str | None, rules_name: str | None, rules_file: str | None, fmt: str,
         as_json: bool) -> None:
    """Show the deal of SEED (or of PySolFC game --pysolfc N)."""
    if (seed is None) == (pysolfc is None):
        raise UserError("give exactly one of SEED or --pysolfc N")
    d = _load_deal(seed, None, rules_name, rules_file, pysolfc)
    if as_json or fmt == "json":
        click.echo(d.to_json())
        return
    if fmt == "solvitaire":
        click.echo(json.dumps(d.to_solvitaire()))
        return
    where = _where(d)
    click.echo(f"{where[0].upper()}{where[1:]} · rules {d.rules.name}")
    click.echo(render(Position(d)))


@cli.command()
@click.argument("args", nargs=-1, metavar="[DEAL] MOVES")
@_pysolfc_option
@_rules_option
@click.option("--moves", "show_moves", is_flag=True, help="Print the legal moves as numbered steps naming each card.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as one JSON object.")
def check(args: tuple[str, ...], pysolfc: str | None, rules_name: str | None, rules_file: str | None,
          show_moves: bool, as_json: bool) -> int:
    """Replay MOVES from DEAL (a deal JSON file, a seed number, or --pysolfc N) and report the result.

    MOVES: one per line, a JSON list, or the steps `solve --moves` prints.
    Also says where the last progress move was, how many passes through the
    stock went by since, and whether the log went round in a circle.
    Exits 0 when every move is legal, 1 at the first illegal move.
    """
    d, moves_file = _deal_and_moves(args, pysolfc, rules_name, rules_file)
    moves = _read_moves(moves_file)
    res = replay(d, moves, strict=False)
    legal = moves[: res.played]
    log = review(d, legal)
    pos = res.position
    won, stalled = pos.is_won(), pos.is_stalled()
    if as_json:
        click.echo(json.dumps({
            "legal": res.legal, "played": res.played, "total": len(moves),
            "error": res.error, "illegal_index": res.index,
            "score": pos.score, "won": won, "stalled": stalled,
            "last_progress": log.last_progress, "passes_since_progress": log.passes_since_progress,
            "repeat": list(log.repeat) if log.repeat else None,
        }))
        return 0 if res.legal else 1
    if show_moves and legal:
        click.echo(format_steps(steps(d, legal)))
    if res.legal:
        click.echo(f"legal: all {len(moves)} moves")
    else:
        click.echo(f"illegal: {res.error}")
    click.echo(f"score: {pos.score}/{4 * d.rules.ranks}")
    click.echo(f"won: {'yes' if won else 'no'}")
    click.echo(f"stalled: {'yes — no progress move can ever be reached again' if stalled else 'no'}")
    for line in log.lines():
        click.echo(line)
    if not won and not stalled and (log.repeat or log.passes_since_progress >= 2):
        click.echo("to see whether it can still be won and what to play: canfield hint DEAL MOVES")
    return 0 if res.legal else 1


EXIT_CODES = {"solved": 0, "unsolvable": 1, "unknown": 3}


@cli.command()
@click.argument("args", nargs=-1, metavar="[DEAL] MOVES")
@_pysolfc_option
@_rules_option
@_search_limit_options
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def hint(args: tuple[str, ...], pysolfc: str | None, rules_name: str | None, rules_file: str | None,
         max_seconds: float, max_nodes: int | None, max_memory_mb: int, as_json: bool) -> int:
    """Mid-game: can the game after MOVES still be won, and what to play next.

    DEAL is a deal JSON file or a seed number (or give --pysolfc N); MOVES the moves played so far
    (one per line, a JSON list, or printed steps). Exits 0 when it can still
    be won, 1 when it cannot, 3 when a limit stopped the search, 2 on bad input.
    """
    from .advice import hint as _hint

    d, moves_file = _deal_and_moves(args, pysolfc, rules_name, rules_file)
    played = _read_moves(moves_file)
    _prepare_kernel()
    h = _hint(d, played, max_seconds=max_seconds, max_nodes=max_nodes, max_memory_mb=max_memory_mb)
    if as_json:
        click.echo(json.dumps(h.to_dict()))
        return EXIT_CODES[h.verdict.value]
    where = f"after {len(played)} moves"
    res = h.result
    if h.stalled:
        click.echo(f"{where}: lost — the game is stalled: no progress move can ever be reached again")
    elif res is not None and not res.moves and h.verdict.value == "solved":
        click.echo(f"{where}: won already")
    elif h.verdict.value == "solved":
        assert res is not None
        click.echo(f"{where}: can still be won — a winning line of {len(res.moves)} more moves "
                   f"(found in {res.seconds:.3f} s)")
        click.echo("next:")
        for s in h.next_steps:
            click.echo(f"  {s.number}. {s.text}")
    elif h.verdict.value == "unsolvable":
        assert res is not None
        click.echo(f"{where}: lost — no move sequence from here wins (exhaustive search: {res.nodes:,} nodes, "
                   f"{res.seconds:.3f} s)")
    else:
        assert res is not None
        click.echo(f"{where}: unknown — the {res.limit} limit stopped the search after {res.nodes:,} nodes")
        further = _go_further(res.limit, max_seconds, max_nodes, max_memory_mb, None)
        if further:
            click.echo(further)
    for line in h.log.lines():
        click.echo(line)
    return EXIT_CODES[h.verdict.value]


@cli.command()
@_deal_source_options
@click.option("--moves-played", "played_file", type=click.Path(dir_okay=False, allow_dash=True), default=None,
              callback=_not_blank,
              help="Solve from the position after these moves (one per line, or a JSON list).")
@_search_limit_options
@click.option("--jobs", "-j", "workers", type=click.IntRange(1, 256), default=1, show_default=True,
              help="Threads that search this one deal together, sharing one table (--max-memory): the same "
                   "verdict sooner on several cores; node counts and the winning line vary from run to run.")
@click.option("--moves", "show_moves", is_flag=True, help="Print the winning moves.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def solve(seed: int | None, deal_file: str | None, pysolfc: str | None, rules_name: str | None, rules_file: str | None,
          played_file: str | None, max_seconds: float, max_nodes: int | None, max_memory_mb: int, workers: int,
          show_moves: bool, as_json: bool) -> int:
    """Decide a deal: solved (exit 0), unsolvable (1), unknown (3); bad input exits 2."""
    from .solver import Verdict, solve as _solve

    d = _load_deal(seed, deal_file, rules_name, rules_file, pysolfc)
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
        _prepare_kernel()
        result = _solve(start, max_nodes=max_nodes, max_seconds=max_seconds, max_memory_mb=max_memory_mb,
                        progress=progress, workers=workers)
        if progress is not None:
            click.echo("\r" + " " * 48 + "\r", err=True, nl=False)
    full = 4 * d.rules.ranks
    if as_json:
        out = result.to_dict()
        out["seed"] = d.seed
        if d.pysolfc_game is not None:
            out["pysolfc_game"] = d.pysolfc_game
        if played_file is not None:
            out["moves_played"] = len(played)
            out["stalled"] = stalled
        click.echo(json.dumps(out))
    else:
        where = _where(d, deal_file or "deal")
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
                line += f"; {_why_stopped(result.limit)}"
            click.echo(line)
            click.echo(f"best score: {result.best_score}/{full}")
            further = v == "unknown" and _go_further(result.limit, max_seconds, max_nodes, max_memory_mb, workers)
            if further:
                click.echo(further)
        if show_moves and result.moves:
            click.echo(format_steps(steps(start, result.moves)))
    return EXIT_CODES[result.verdict.value]


class _Progress:
    """A one-line progress bar on stderr: deals done, rate, counts so far, ETA.

    On a terminal it redraws in place; otherwise it prints a line every 10 s.
    """

    def __init__(self, label: str, enabled: bool = True):
        self.label = label
        self.enabled = enabled
        self.tty = sys.stderr.isatty()
        self.last = 0.0

    def __call__(self, done: int, total: int, counts: dict, elapsed: float) -> None:
        if not self.enabled:
            return
        if not self.tty and elapsed - self.last < 10 and done < total:
            return
        self.last = elapsed
        rate = done / elapsed if elapsed > 0 else 0.0
        eta = (total - done) / rate if rate > 0 else float("inf")
        eta_s = "?" if eta == float("inf") else _duration(eta)
        width = 24
        fill = int(width * done / total) if total else width
        bar = "#" * fill + "." * (width - fill)
        line = (f"{self.label} [{bar}] {done}/{total} deals, {rate:.1f}/s, won {counts.get('solved', 0)} "
                f"lost {counts.get('unsolvable', 0)} unknown {counts.get('unknown', 0)}, ETA {eta_s}")
        if self.tty:
            click.echo("\r" + line + " " * 4, err=True, nl=done >= total)
        else:
            click.echo(line, err=True)


def _duration(sec: float) -> str:
    sec = int(sec)
    if sec < 60:
        return f"{sec}s"
    if sec < 3600:
        return f"{sec // 60}m{sec % 60:02d}s"
    return f"{sec // 3600}h{sec % 3600 // 60:02d}m"


def _jobs_default() -> int:
    return os.cpu_count() or 1


@cli.command()
@_rules_option
@click.option("--seeds", "seeds_text", default="0:1000", show_default=True, metavar="START:STOP", callback=_not_blank,
              help="Seeds to study: START:STOP (STOP excluded), a seed, or a comma list.")
@click.option("--pysolfc", "pysolfc", default=None, metavar="START:STOP", callback=_not_blank,
              help="Study PySolFC game numbers instead of seeds (rules default to pysolfc-canfield).")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None,
              help="Local worker processes (default: the core count).")
@click.option("--max-seconds", type=SECONDS, default=30.0, show_default=True,
              help="Time limit per deal; a deal that hits it counts as unknown.")
@click.option("--max-nodes", type=click.IntRange(min=1), default=None,
              help="Node limit per deal (reproducible, unlike time); a deal that hits it counts as unknown.")
@click.option("--max-memory", "max_memory_mb", type=click.IntRange(min=16), default=DEFAULT_MEMORY_MB, show_default=True,
              help="Transposition table cap per worker in MiB.")
@click.option("--db", "db", type=click.Path(dir_okay=False), default=None, callback=_not_blank,
              help="SQLite result store: finished deals are saved as they come and skipped when run again.")
@click.option("--parquet-dir", "parquet_dir", type=click.Path(), default=None, callback=_not_blank,
              help="Write results as a partitioned Parquet dataset instead of --db (cluster-scale runs; "
                   "deals already in it are skipped, never searched again; one study writes it at a time).")
@click.option("--scheduler", default=None, metavar="tcp://HOST:PORT", callback=_not_blank,
              help="Run on this Dask distributed cluster instead of local processes (needs the 'dask' extra).")
@click.option("--chunk", type=click.IntRange(1, 100_000), default=None,
              help="Deals per task sent to a worker (default: up to 8, fewer for small studies).")
@click.option("--summary", is_flag=True,
              help="Search nothing: recompute the win rate from --db or --parquet for these rules and seeds.")
@click.option("--parquet", "parquet_in", type=click.Path(exists=True), default=None,
              callback=_not_blank, help="With --summary: a Parquet export or a --parquet-dir dataset "
                                        "instead of --db.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
def winrate(rules_name: str | None, rules_file: str | None, seeds_text: str, pysolfc: str | None, jobs: int | None,
            max_seconds: float, max_nodes: int | None, max_memory_mb: int, db: str | None, parquet_dir: str | None,
            scheduler: str | None, chunk: int | None, summary: bool, parquet_in: str | None, as_json: bool,
            quiet: bool) -> int:
    """Win rate over many seeds, with 95% Wilson intervals; unknowns are counted both ways."""
    from .store import ResultStore
    from .study import estimate_win_rate, parse_seeds, stored_rules

    numbering = "spec"
    if pysolfc is not None:
        if click.get_current_context().get_parameter_source("seeds_text") is not click.core.ParameterSource.DEFAULT:
            raise UserError("give --seeds or --pysolfc, not both")
        seeds_text, numbering = pysolfc, "pysolfc"
    r = _resolve_rules(rules_name, rules_file, fallback="pysolfc-canfield" if pysolfc else None)
    seeds = parse_seeds(seeds_text)
    kept = stored_rules(r, numbering)
    if summary or parquet_in:
        if parquet_dir:
            raise UserError("--summary reads a dataset with --parquet DIR, not --parquet-dir")
        return _summary(kept, seeds, db, parquet_in, as_json)
    if db and parquet_dir:
        raise UserError("give --db FILE or --parquet-dir DIR, not both")
    saved_in = db or parquet_dir
    store: Any = None
    if parquet_dir:
        from .dataset import ParquetResults

        store = ParquetResults(parquet_dir)
    elif db:
        store = ResultStore(db)
    prog = _Progress(kept.name, enabled=not quiet)
    if scheduler is None and not quiet:
        _workers_compile_notice()
    try:
        if store is not None and not quiet:
            done = store.count_done(kept, max_seconds, seeds.ranges(), max_nodes=max_nodes)
            if done:
                click.echo(f"{saved_in}: {done} of {len(seeds)} deals already done; resuming", err=True)
        wr = estimate_win_rate(r, seeds, jobs=jobs, max_seconds=max_seconds, store=store, scheduler=scheduler,
                               progress=prog, max_nodes=max_nodes, max_memory_mb=max_memory_mb,
                               numbering=numbering, chunk=chunk)
    except KeyboardInterrupt:
        saved = f"; finished deals are saved in {saved_in}: run again to resume" if saved_in else ""
        click.echo(f"\ncanfield: interrupted{saved}", err=True)
        return 130
    finally:
        if store is not None:
            store.close()
    if as_json:
        click.echo(json.dumps(wr.to_dict()))
    else:
        click.echo(str(wr))
        limits = f"{max_seconds:g} s" + (f" and {max_nodes:,} nodes" if max_nodes else "")
        click.echo(f"{wr.searched} deals searched, {wr.reused} taken from the store, {wr.wall_seconds:.1f} s wall, "
                   f"limit per deal {limits}")
    return 0


def _summary(rules: Rules, seeds: Any, db: str | None, parquet_in: str | None, as_json: bool) -> int:
    """``winrate --summary``: the intervals recounted from a store or a Parquet export, nothing searched."""
    from .study import stored_win_rate

    if (db is None) == (parquet_in is None):
        raise UserError("--summary needs exactly one of --db FILE or --parquet FILE")
    wr = stored_win_rate(rules, seeds, db=db, parquet=parquet_in)
    if as_json:
        click.echo(json.dumps(wr.to_dict()))
    else:
        click.echo(str(wr))
        missing = len(seeds) - wr.deals
        if missing:
            click.echo(f"{missing:,} of the {len(seeds):,} seeds asked for have no stored result")
    return 0


@cli.command()
@click.option("--db", "db", type=click.Path(dir_okay=False, exists=True), required=True, callback=_not_blank,
              help="The result store.")
@click.option("--csv", "csv_out", type=click.Path(dir_okay=False), default=None, callback=_not_blank,
              help="CSV file to write.")
@click.option("--parquet", "parquet_out", type=click.Path(dir_okay=False), default=None, callback=_not_blank,
              help="Parquet file to write (streamed; needs the 'parquet' extra).")
def export(db: str, csv_out: str | None, parquet_out: str | None) -> int:
    """Write every stored result to CSV or Parquet (one row per rules and seed)."""
    from .store import ResultStore

    if (csv_out is None) == (parquet_out is None):
        raise UserError("give exactly one of --csv FILE or --parquet FILE")
    with ResultStore(db, create=False) as st:
        out = csv_out or parquet_out
        n = st.export_csv(csv_out) if csv_out else st.export_parquet(str(parquet_out))
    click.echo(f"wrote {n} rows to {out}", err=True)
    return 0


def _why_stopped(limit: str) -> str:
    """Why a search ended ``unknown``, for a person: Ctrl-C, or the limit that stopped it."""
    return "interrupted (Ctrl-C)" if limit == "interrupted" else f"stopped by the {limit} limit"


def _go_further(limit: str | None, max_seconds: float, max_nodes: int | None, max_memory_mb: int,
                workers: int | None) -> str | None:
    """The options to run an ``unknown`` search again with, for a person; None when no limit stopped it
    or the one that did cannot go up.

    The limit that stopped the search goes up four times, memory at most to half of this machine's
    memory; a larger table also takes longer to fill, so seconds go up with memory. With ``workers`` 1
    (``solve``), idle cores are offered with --jobs (None: the command has no --jobs).
    """
    opts = []
    if limit == "nodes" and max_nodes is not None:
        opts.append(f"--max-nodes {4 * max_nodes}")
    elif limit == "memory":
        try:
            half = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2 ** 21
        except (ValueError, OSError, AttributeError):
            half = 4 * max_memory_mb
        more = min(4 * max_memory_mb, half)
        if more <= max_memory_mb:
            return None
        opts += [f"--max-memory {more}", f"--max-seconds {max_seconds * 4:g}"]
    elif limit == "seconds":
        opts.append(f"--max-seconds {max_seconds * 4:g}")
    else:
        return None
    cores = os.cpu_count() or 1
    if workers == 1 and cores > 1:
        opts.append(f"--jobs {cores}")
    return "to go further: " + " ".join(opts)


def _analysis_lines(a: Any, full: int, where: str) -> list[str]:
    lines = [f"{where} · {a.rules}: {a.verdict}, rated {a.rating}"]
    lines.append(f"  search            {a.nodes:,} nodes, {a.seconds:.2f} s in all"
                 + (f" ({_why_stopped(a.limit)})" if a.limit else ""))
    if a.verdict == "solved":
        lines.append(f"  solution          {a.solution_length} moves, {a.redeals} redeals")
        lines.append(f"  critical          {a.critical_positions} positions on the solution where a move "
                     f"loses ({a.positions_probed} alternatives probed)")
    lines.append(f"  first moves       {a.winning_first_moves} of {a.first_moves} win"
                 + (f" ({a.unknown_first_moves} undecided by the probe)" if a.unknown_first_moves else ""))
    lines.append(f"  best score        {a.best_score}/{full}")
    lines.append(f"  greedy player     {'won' if a.greedy_won else 'lost'} ({a.greedy_score}/{full})")
    if a.playouts:
        lines.append(f"  random player     won {a.random_wins} of {a.playouts} games "
                     f"(best {a.random_best_score}/{full})")
    return lines


@cli.command()
@_deal_source_options
@click.option("--max-seconds", type=SECONDS, default=30.0, show_default=True,
              help="Time limit of the main search.")
@click.option("--probe-nodes", type=click.IntRange(1, 10**10), default=20_000, show_default=True,
              help="Node limit of each search behind the first-move and critical-position counts.")
@click.option("--playouts", type=click.IntRange(0, 100_000), default=50, show_default=True,
              help="Random-player games.")
@click.option("--playout-seed", type=click.IntRange(min=0), default=0, show_default=True,
              help="Seed of the random player (same seed, same games).")
@click.option("--moves", "show_moves", is_flag=True, help="Print the winning line as numbered steps.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def analyze(seed: int | None, deal_file: str | None, pysolfc: str | None, rules_name: str | None,
            rules_file: str | None,
            max_seconds: float, probe_nodes: int, playouts: int, playout_seed: int, show_moves: bool,
            as_json: bool) -> int:
    """How hard a deal is: search effort, solution, critical positions, greedy and random players, rating."""
    from .analysis import analyze as _analyze

    d = _load_deal(seed, deal_file, rules_name, rules_file, pysolfc)
    _prepare_kernel()
    a = _analyze(d, max_seconds=max_seconds, probe_nodes=probe_nodes, playouts=playouts, playout_seed=playout_seed)
    if as_json:
        out = a.to_dict()
        if d.pysolfc_game is not None:
            out["pysolfc_game"] = d.pysolfc_game
        click.echo(json.dumps(out))
    else:
        click.echo("\n".join(_analysis_lines(a, 4 * d.rules.ranks, _where(d))))
        if show_moves and a.moves:
            click.echo(format_steps(steps(d, a.moves)))
    return 0


@cli.command()
@_rules_option
@click.option("--difficulty", type=click.Choice(["easy", "medium", "hard", "very-hard", "any"]), default="any",
              show_default=True, help="Rating of the deals to print (see 'canfield analyze').")
@click.option("--count", type=click.IntRange(1, 1_000_000), default=10, show_default=True, help="How many seeds.")
@click.option("--start", type=click.IntRange(0, 2**64 - 1), default=None,
              help="First seed to consider (default 0).")
@click.option("--pysolfc", "pysolfc", type=click.IntRange(1, 10**20 - 1), default=None, metavar="START",
              help="Pick PySolFC game numbers from START instead of seeds (rules default to pysolfc-canfield).")
@click.option("--max-candidates", type=click.IntRange(min=1), default=None,
              help="Give up after analysing this many seeds (default: 200 x --count).")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None, help="Local worker processes.")
@click.option("--max-seconds", type=SECONDS, default=10.0, show_default=True,
              help="Time limit per deal.")
@click.option("--db", "db", type=click.Path(dir_okay=False), default=None, callback=_not_blank,
              help="Result store: analysed deals are saved and reused.")
@click.option("--out", "out", type=click.Path(dir_okay=False, writable=True), default=None, callback=_not_blank,
              help="Also write a deal pack: each deal with its layout, winning line, rating and metrics.")
@click.option("--format", "fmt", type=click.Choice(["jsonl", "csv"]), default="jsonl", show_default=True,
              help="Pack format for --out: JSON lines (loadable into a game) or a short CSV table.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list of {seed, rating, ...}.")
def pick(rules_name: str | None, rules_file: str | None, difficulty: str, count: int, start: int | None,
         pysolfc: int | None, max_candidates: int | None, jobs: int | None, max_seconds: float, db: str | None,
         out: str | None, fmt: str, as_json: bool) -> int:
    """Print winnable seeds of a given difficulty rating, one per line (and write them as a pack with --out)."""
    from .packs import pack_entry, write_pack
    from .store import ResultStore
    from .study import run_study, stored_rules

    if start is not None and pysolfc is not None:
        raise UserError("give --start or --pysolfc, not both")
    numbering = "pysolfc" if pysolfc is not None else "spec"
    first = pysolfc if pysolfc is not None else (start or 0)
    r = _resolve_rules(rules_name, rules_file, fallback="pysolfc-canfield" if pysolfc is not None else None)
    stored_rules(r, numbering)  # refuses rules PySolFC does not deal before any work
    key = "pysolfc_game" if numbering == "pysolfc" else "seed"
    want = difficulty.replace("-", " ")
    limit = max_candidates or 200 * count
    store = ResultStore(db) if db else None
    part = f"{out}.part" if out else None
    fh = open(part, "w", encoding="utf-8", newline="") if part else None  # noqa: SIM115 - closed below
    entries: list[dict] = []
    picked: list[Any] = []
    seed = first
    batch = max(2 * (jobs or _jobs_default()), min(count * 4, 64))
    if out:
        _prepare_kernel()  # the pack's winning lines are found again in this process
    else:
        _workers_compile_notice()
    try:
        while len(picked) < count and seed - first < limit:
            seeds = list(range(seed, min(seed + batch, first + limit)))
            seed += len(seeds)
            wr = run_study(r, seeds, jobs=jobs, max_seconds=max_seconds, store=store, with_metrics=True,
                           numbering=numbering)
            for row in wr.results:
                ok = row.verdict == "solved" and (want == "any" or row.rating == want)
                if ok and len(picked) < count:
                    picked.append(row)
                    if fh is not None:
                        entry = pack_entry(row, r, numbering)
                        if fmt == "jsonl":
                            write_pack([entry], fh)
                        entries.append(entry)
                    if not as_json:
                        click.echo(f"{row.seed}\t{row.rating}")
        if fh is not None and fmt == "csv":
            write_pack(entries, fh, "csv")
    finally:
        if store is not None:
            store.close()
        if fh is not None:
            fh.close()
    if out and part:
        os.replace(part, out)  # the old file, if any, is replaced only by a finished pack
        click.echo(f"wrote {len(picked)} deals to {out}", err=True)
    if as_json:
        click.echo(json.dumps([{key: p.seed, "rating": p.rating, "nodes": p.nodes,
                                "solution_length": p.solution_length} for p in picked]))
    if len(picked) < count:
        click.echo(f"canfield: found {len(picked)} of {count} {difficulty} deals in {seed - first} numbers "
                   f"from {first}; raise --max-candidates", err=True)
        return 1
    return 0


@cli.command()
@click.argument("pack", type=click.Path(dir_okay=False, allow_dash=True), callback=_not_blank)
def verify(pack: str) -> int:
    """Re-check a deal pack (from `pick --out`): every deal is its number's deal and its winning line wins.

    Prints each line that fails and why; exits 0 when all hold, 1 otherwise.
    """
    from .packs import verify_pack

    try:
        fh = sys.stdin if pack == "-" else open(pack, encoding="utf-8")  # noqa: SIM115
    except OSError as e:
        raise UserError(f"cannot read pack {pack!r}: {e.strerror}") from None
    good = bad = 0
    try:
        for line, number, why in verify_pack(fh):
            if why is None:
                good += 1
            else:
                bad += 1
                click.echo(f"line {line} ({number}): {why}")
    except UnicodeDecodeError:
        raise UserError(f"pack {pack!r} is not UTF-8 text") from None
    finally:
        if fh is not sys.stdin:
            fh.close()
    click.echo(f"{good} deals hold, {bad} do not")
    return 0 if bad == 0 and good > 0 else 1


@cli.command()
@_deal_source_options
@click.option("--moves", "moves_file", type=click.Path(dir_okay=False, allow_dash=True), default=None,
              callback=_not_blank, help="Show this game (one move per line, a JSON list, or printed steps).")
@click.option("--out", "out", default=None, callback=_not_blank, metavar="FILE.html",
              help="Where to write the page ('-' for stdout; default canfield-<deal>.html).")
@click.option("--max-seconds", type=SECONDS, default=30.0, show_default=True,
              help="Time limit of the search (and of each probe for a player's game).")
def show(seed: int | None, deal_file: str | None, pysolfc: str | None, rules_name: str | None,
         rules_file: str | None, moves_file: str | None, out: str | None, max_seconds: float) -> int:
    """Write a self-contained HTML page to step through the winning line, the best line, or your game."""
    from .replay_page import show as _show

    d = _load_deal(seed, deal_file, rules_name, rules_file, pysolfc)
    moves = _read_moves(moves_file) if moves_file else None
    _prepare_kernel()
    pg = _show(d, moves, max_seconds=max_seconds)
    if out == "-":
        click.echo(pg.html, nl=False)
        return 0
    if out is None:
        out = ("canfield-pysolfc-{}.html".format(d.pysolfc_game) if d.pysolfc_game is not None
               else f"canfield-seed-{d.seed}.html" if d.seed is not None else "canfield-game.html")
    try:
        pg.save(out)
    except OSError as e:
        raise UserError(f"cannot write {out!r}: {e.strerror}") from None
    click.echo(f"{pg.title}\nwrote {out}", err=True)
    return 0


@cli.command()
def rules() -> None:
    """List the rules presets."""
    for name, r in PRESETS.items():
        click.echo(f"{name:24s} {r.description}")


def main() -> None:
    cli.main(prog_name="canfield")


if __name__ == "__main__":
    main()
