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
from ._search.layout import DEFAULT_MEMORY_MB

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
@click.argument("deal_file", metavar="DEAL.json", type=click.Path(dir_okay=False), callback=_not_blank)
@click.argument("moves_file", metavar="MOVES", type=click.Path(dir_okay=False, allow_dash=True), callback=_not_blank)
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
@click.option("--deal", "deal_file", type=click.Path(dir_okay=False), default=None, callback=_not_blank,
              help="Deal or position JSON file.")
@_rules_option
@click.option("--moves-played", "played_file", type=click.Path(dir_okay=False, allow_dash=True), default=None,
              callback=_not_blank,
              help="Solve from the position after these moves (one per line, or a JSON list).")
@click.option("--max-seconds", type=click.FloatRange(min=0, min_open=True), default=60.0, show_default=True,
              help="Stop with 'unknown' after this long.")
@click.option("--max-nodes", type=click.IntRange(min=1), default=None, help="Stop with 'unknown' after this many nodes.")
@click.option("--max-memory", "max_memory_mb", type=click.IntRange(min=16), default=DEFAULT_MEMORY_MB, show_default=True,
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
    import os

    return os.cpu_count() or 1


@cli.command()
@_rules_option
@click.option("--seeds", "seeds_text", default="0:1000", show_default=True, metavar="START:STOP", callback=_not_blank,
              help="Seeds to study: START:STOP (STOP excluded), a seed, or a comma list.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None,
              help="Local worker processes (default: the core count).")
@click.option("--max-seconds", type=click.FloatRange(min=0, min_open=True), default=30.0, show_default=True,
              help="Time limit per deal; a deal that hits it counts as unknown.")
@click.option("--max-nodes", type=click.IntRange(min=1), default=None,
              help="Node limit per deal (reproducible, unlike time); a deal that hits it counts as unknown.")
@click.option("--max-memory", "max_memory_mb", type=click.IntRange(min=16), default=DEFAULT_MEMORY_MB, show_default=True,
              help="Transposition table cap per worker in MiB.")
@click.option("--db", "db", type=click.Path(dir_okay=False), default=None, callback=_not_blank,
              help="SQLite result store: finished deals are saved as they come and skipped when run again.")
@click.option("--scheduler", default=None, metavar="tcp://HOST:PORT", callback=_not_blank,
              help="Run on this Dask distributed cluster instead of local processes (needs the 'dask' extra).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
def winrate(rules_name: str | None, rules_file: str | None, seeds_text: str, jobs: int | None, max_seconds: float,
            max_nodes: int | None, max_memory_mb: int, db: str | None, scheduler: str | None, as_json: bool, quiet: bool) -> int:
    """Win rate over many seeds, with 95% Wilson intervals; unknowns are counted both ways."""
    from .store import ResultStore
    from .study import estimate_win_rate, parse_seeds

    r = _resolve_rules(rules_name, rules_file)
    seeds = parse_seeds(seeds_text)
    store = ResultStore(db) if db else None
    prog = _Progress(r.name, enabled=not quiet)
    try:
        if store is not None and not quiet:
            done = len(store.done_seeds(r, max_seconds) & set(seeds))
            if done:
                click.echo(f"{db}: {done} of {len(seeds)} deals already done; resuming", err=True)
        wr = estimate_win_rate(r, seeds, jobs=jobs, max_seconds=max_seconds, store=store, scheduler=scheduler,
                               progress=prog, max_nodes=max_nodes, max_memory_mb=max_memory_mb)
    except KeyboardInterrupt:
        saved = f"; finished deals are saved in {db}: run again to resume" if db else ""
        click.echo(f"\ncanfield: interrupted{saved}", err=True)
        return 130
    finally:
        if store is not None:
            store.close()
    if as_json:
        click.echo(json.dumps(wr.to_dict()))
    else:
        click.echo(str(wr))
        click.echo(f"{wr.searched} deals searched, {wr.reused} taken from the store, {wr.wall_seconds:.1f} s wall, "
                   f"{max_seconds:g} s per deal limit")
    return 0


@cli.command()
@click.option("--db", "db", type=click.Path(dir_okay=False, exists=True), required=True, callback=_not_blank,
              help="The result store.")
@click.option("--csv", "csv_out", type=click.Path(dir_okay=False), required=True, callback=_not_blank,
              help="CSV file to write.")
def export(db: str, csv_out: str) -> int:
    """Write every stored result to CSV (one row per rules and seed)."""
    from .store import ResultStore

    with ResultStore(db, create=False) as st:
        n = st.export_csv(csv_out)
    click.echo(f"wrote {n} rows to {csv_out}", err=True)
    return 0


def _analysis_lines(a: Any, full: int) -> list[str]:
    where = f"seed {a.seed}" if a.seed is not None else "deal"
    lines = [f"{where} · {a.rules}: {a.verdict}, rated {a.rating}"]
    lines.append(f"  search            {a.nodes:,} nodes, {a.seconds:.2f} s in all"
                 + (f" (stopped by the {a.limit} limit)" if a.limit else ""))
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
@click.option("--seed", type=click.IntRange(0, 2**64 - 1), default=None, help="Deal number.")
@click.option("--deal", "deal_file", type=click.Path(dir_okay=False), default=None, callback=_not_blank,
              help="Deal JSON file.")
@_rules_option
@click.option("--max-seconds", type=click.FloatRange(min=0, min_open=True), default=30.0, show_default=True,
              help="Time limit of the main search.")
@click.option("--probe-nodes", type=click.IntRange(min=1), default=20_000, show_default=True,
              help="Node limit of each search behind the first-move and critical-position counts.")
@click.option("--playouts", type=click.IntRange(min=0), default=50, show_default=True,
              help="Random-player games.")
@click.option("--playout-seed", type=click.IntRange(min=0), default=0, show_default=True,
              help="Seed of the random player (same seed, same games).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def analyze(seed: int | None, deal_file: str | None, rules_name: str | None, rules_file: str | None,
            max_seconds: float, probe_nodes: int, playouts: int, playout_seed: int, as_json: bool) -> int:
    """How hard a deal is: search effort, solution, critical positions, greedy and random players, rating."""
    from .analysis import analyze as _analyze

    d = _load_deal(seed, deal_file, rules_name, rules_file)
    a = _analyze(d, max_seconds=max_seconds, probe_nodes=probe_nodes, playouts=playouts, playout_seed=playout_seed)
    if as_json:
        click.echo(json.dumps(a.to_dict()))
    else:
        click.echo("\n".join(_analysis_lines(a, 4 * d.rules.ranks)))
    return 0


@cli.command()
@_rules_option
@click.option("--difficulty", type=click.Choice(["easy", "medium", "hard", "very-hard", "any"]), default="any",
              show_default=True, help="Rating of the deals to print (see 'canfield analyze').")
@click.option("--count", type=click.IntRange(min=1), default=10, show_default=True, help="How many seeds.")
@click.option("--start", type=click.IntRange(0, 2**64 - 1), default=0, show_default=True,
              help="First seed to consider.")
@click.option("--max-candidates", type=click.IntRange(min=1), default=None,
              help="Give up after analysing this many seeds (default: 200 x --count).")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None, help="Local worker processes.")
@click.option("--max-seconds", type=click.FloatRange(min=0, min_open=True), default=10.0, show_default=True,
              help="Time limit per deal.")
@click.option("--db", "db", type=click.Path(dir_okay=False), default=None, callback=_not_blank,
              help="Result store: analysed deals are saved and reused.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list of {seed, rating, ...}.")
def pick(rules_name: str | None, rules_file: str | None, difficulty: str, count: int, start: int,
         max_candidates: int | None, jobs: int | None, max_seconds: float, db: str | None, as_json: bool) -> int:
    """Print winnable seeds of a given difficulty rating, one per line."""
    from .store import ResultStore
    from .study import run_study

    r = _resolve_rules(rules_name, rules_file)
    want = difficulty.replace("-", " ")
    limit = max_candidates or 200 * count
    store = ResultStore(db) if db else None
    picked: list[Any] = []
    seed = start
    batch = max(2 * (jobs or _jobs_default()), min(count * 4, 64))
    try:
        while len(picked) < count and seed - start < limit:
            seeds = list(range(seed, min(seed + batch, start + limit)))
            seed += len(seeds)
            wr = run_study(r, seeds, jobs=jobs, max_seconds=max_seconds, store=store, with_metrics=True)
            for row in wr.results:
                ok = row.verdict == "solved" and (want == "any" or row.rating == want)
                if ok and len(picked) < count:
                    picked.append(row)
                    if not as_json:
                        click.echo(f"{row.seed}\t{row.rating}")
    finally:
        if store is not None:
            store.close()
    if as_json:
        click.echo(json.dumps([{"seed": p.seed, "rating": p.rating, "nodes": p.nodes,
                                "solution_length": p.solution_length} for p in picked]))
    if len(picked) < count:
        click.echo(f"canfield: found {len(picked)} of {count} {difficulty} deals in {seed - start} seeds "
                   f"from {start}; raise --max-candidates", err=True)
        return 1
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
