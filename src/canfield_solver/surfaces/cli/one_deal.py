"""The commands about one deal: ``deal``, ``check``, ``hint``, ``solve``, ``analyze``, ``show``, ``rules``."""

from __future__ import annotations

import json
import shlex
import sys
from typing import TYPE_CHECKING, NamedTuple

import click

from ...engine.deal import Deal
from ...engine.position import Position, render, replay
from ...engine.rules import PRESETS
from ...formats import read_moves, to_solvitaire
from ...games import DESCRIPTIONS
from ...play.transcript import format_steps, review, steps
from ...solver import DEFAULT_MEMORY_MB, METHODS, SolveResult, Verdict, decide, schedule_of
from ...solver import solve as solve_deal
from .common import (
    EXIT_CODES,
    SECONDS,
    UserError,
    Whole,
    cli,
    clock,
    command_seconds,
    compiling_words,
    deal_and_moves,
    deal_source,
    go_further,
    load_deal,
    mostly_undecided,
    next_command,
    not_blank,
    prepare_kernel,
    resolve_rules,
    run_state,
    search_limit_options,
    time_left,
    where,
    why_stopped,
)
from .other_games import (
    game_analyze,
    game_check,
    game_deal,
    game_hint,
    game_option,
    game_show,
    game_solve,
    refuse_canfield_only,
)

if TYPE_CHECKING:  # the analysis, hint and replay page are imported by their commands: solve needs none of them
    from ...play.difficulty import Analysis
    from ..replay_page import ReplayPage


@cli.command()
@deal_source("seed")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "solvitaire"]), default="text", show_default=True,
              help="text: a picture; json: SPEC deal JSON; solvitaire: the published solver's deal file.")
@click.option("--json", "as_json", is_flag=True, help="Same as --format json.")
@game_option
def deal(seed: int | None, seed_opt: int | None, pysolfc: str | None, rules_name: str | None, rules_file: str | None,
         fmt: str, as_json: bool, game: str) -> int | None:
    """Show the deal of SEED (or of PySolFC game --pysolfc N)."""
    if seed is not None and seed_opt is not None:
        raise UserError("give the seed once: SEED or --seed N")
    seed = seed if seed is not None else seed_opt
    if game != "canfield":
        refuse_canfield_only(game, pysolfc=pysolfc, rules=rules_name, rules_file=rules_file,
                             format=None if fmt in ("text", "json") else fmt)
        return game_deal(game, seed, as_json or fmt == "json")
    if (seed is None) == (pysolfc is None):
        raise UserError("give exactly one of SEED or --pysolfc N")
    d = load_deal(seed, None, rules_name, rules_file, pysolfc)
    if as_json or fmt == "json":
        click.echo(d.to_json())
        return None
    if fmt == "solvitaire":
        click.echo(json.dumps(to_solvitaire(d)))
        return None
    name = where(d)
    click.echo(f"{name[0].upper()}{name[1:]} · rules {d.rules.name}")
    click.echo(render(Position(d)))
    return None


@cli.command()
@deal_source("moves")
@click.option("--moves", "show_moves", is_flag=True, help="Print the legal moves as numbered steps naming each card.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as one JSON object.")
@game_option
def check(args: tuple[str, ...], seed: int | None, pysolfc: str | None, rules_name: str | None,
          rules_file: str | None, show_moves: bool, as_json: bool, game: str) -> int:
    """Replay MOVES from DEAL (a deal JSON file, a seed number, or --pysolfc N) and report the result.

    MOVES: one per line, a JSON list, or the steps `solve --moves` prints.
    Also says where the last progress move was, how many passes through the
    stock went by since, and whether the log went round in a circle.
    Exits 0 when every move is legal, 1 at the first illegal move.
    """
    if game != "canfield":
        refuse_canfield_only(game, pysolfc=pysolfc, rules=rules_name, rules_file=rules_file, moves=show_moves)
        return game_check(game, args if seed is None else (str(seed), *args), as_json)
    d, moves_file = deal_and_moves(args, pysolfc, rules_name, rules_file, seed)
    moves = read_moves(moves_file)
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
        again = ["canfield", "hint"] + (["--pysolfc", pysolfc] if pysolfc is not None else []) + \
            (["--rules", rules_name] if rules_name else []) + (["--rules-file", rules_file] if rules_file else []) + \
            list(args)
        click.echo(f"to see whether it can still be won and what to play: {shlex.join(again)}")
    return 0 if res.legal else 1


@cli.command()
@deal_source("moves")
@search_limit_options
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@game_option
def hint(args: tuple[str, ...], seed: int | None, pysolfc: str | None, rules_name: str | None, rules_file: str | None,
         max_seconds: float | None, max_nodes: int | None, max_memory_mb: int | None, as_json: bool, game: str) -> int:
    """Mid-game: can the game after MOVES still be won, and what to play next.

    DEAL is a deal JSON file or a seed number (or give --pysolfc N); MOVES the moves played so far
    (one per line, a JSON list, or printed steps). Exits 0 when it can still
    be won, 1 when it cannot, 3 when a limit stopped the search, 2 on bad input.
    """
    if game != "canfield":
        refuse_canfield_only(game, pysolfc=pysolfc, rules=rules_name, rules_file=rules_file)
        return game_hint(game, args if seed is None else (str(seed), *args), max_seconds, max_nodes,
                         max_memory_mb or DEFAULT_MEMORY_MB, as_json)
    d, moves_file = deal_and_moves(args, pysolfc, rules_name, rules_file, seed)
    played = read_moves(moves_file)
    from ...play.hint import hint as hint_for  # here, not at the top: a solve need not import it

    h = hint_for(d, played, max_seconds=time_left(max_seconds), max_nodes=max_nodes, max_memory_mb=max_memory_mb)
    if as_json:
        click.echo(json.dumps(h.to_dict()))
        return EXIT_CODES[h.verdict]
    after = f"after {len(played)} move{'' if len(played) == 1 else 's'}"
    res = h.result
    if h.stalled:
        click.echo(f"{after}: lost — the game is stalled: no progress move can ever be reached again")
    elif res is not None and not res.moves and h.verdict is Verdict.SOLVED:
        click.echo(f"{after}: won already")
    elif h.verdict is Verdict.SOLVED:
        assert res is not None
        click.echo(f"{after}: can still be won — a winning line of {len(res.moves)} more moves "
                   f"(found in {clock(res.stats.get('search_seconds'))})")
        click.echo(f"next, from move {len(played) + 1} on:" if played else "next:")
        for i, s in enumerate(h.next_steps, 1):  # this line's own steps, counted from here
            click.echo(f"  {i}. {s.text}")
    elif h.verdict is Verdict.UNSOLVABLE:
        assert res is not None
        click.echo(f"{after}: lost — no move sequence from here wins (exhaustive search: {res.nodes:,} nodes, "
                   f"{clock(res.stats.get('search_seconds'))})")
    else:
        assert res is not None
        waiting = compiling_words(res.compiling_now())
        click.echo(f"{after}: unknown — {why_stopped(res.limit)} after {res.nodes:,} nodes, {clock()}"
                   + (f"; {waiting[0]}" if waiting else ""))
        further = go_further(res.limit, max_seconds, max_nodes, res.stats.get("memory_cap_mb", max_memory_mb), None)
        if waiting:
            click.echo(waiting[1])
        elif further:
            click.echo(further)
    if played and h.verdict is Verdict.UNSOLVABLE:  # which move threw the game away, as show marks it
        from ...play.hint import losing_move

        turning, why = losing_move(d, played, time_left(max_seconds))
        click.echo(f"the game was lost at move {turning} ({played[turning - 1]}): {why}" if turning else why)
    for line in h.log.lines():
        click.echo(line)
    return EXIT_CODES[h.verdict]


@cli.command()
@deal_source("any")
@click.option("--moves-played", "played_file", type=click.Path(dir_okay=False, allow_dash=True), default=None,
              callback=not_blank,
              help="Solve from the position after these moves (one per line, or a JSON list).")
@search_limit_options
@click.option("--jobs", "-j", "workers", type=Whole(1, 256), default=1, show_default=True,
              help="Threads that search this one deal together, sharing one table (--max-memory), and that "
                   "close each layer of the layered proof together: the same verdict sooner on several cores; "
                   "node counts and the winning line vary from run to run.")
@click.option("--method", type=click.Choice(METHODS), default="auto", show_default=True,
              help="auto: where any suit builds, searches for wins and a proof over ranks first, each in a "
                   "share of the limits; the depth-first search, then, if its table fills --max-memory, the layered proof "
                   "(positions kept a few layers of progress at a time) with the time and nodes left; "
                   "depth-first: never switch; layered: the layered proof alone.")
@click.option("--moves", "show_moves", is_flag=True, help="Print the winning moves.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@game_option
def solve(seed: int | None, deal_file: str | None, pysolfc: str | None, rules_name: str | None, rules_file: str | None,
          played_file: str | None, max_seconds: float | None, max_nodes: int | None, max_memory_mb: int | None, workers: int,
          method: str, show_moves: bool, as_json: bool, game: str) -> int:
    """Decide a deal: solved (exit 0), unsolvable (1), unknown (3); bad input exits 2."""
    if game != "canfield":
        refuse_canfield_only(game, deal=deal_file, pysolfc=pysolfc, rules=rules_name, rules_file=rules_file,
                             moves_played=played_file, jobs=workers, method=method)
        return game_solve(game, seed, max_seconds, max_nodes, max_memory_mb or DEFAULT_MEMORY_MB, show_moves,
                          as_json)
    d = load_deal(seed, deal_file, rules_name, rules_file, pysolfc)
    start: Deal | Position = d
    played: list[str] = []
    if played_file is not None:  # a position in the middle of a game: a stalled one is lost without a search
        played = read_moves(played_file)
        res = replay(d, played, strict=False)
        if not res.legal:
            raise UserError(f"--moves-played: {res.error}")
        start = res.position
    with _SearchProgress(enabled=not as_json and sys.stderr.isatty()) as bar:
        left = time_left(max_seconds)  # the command's limit, its start-up counted
        if isinstance(start, Position):
            result = decide(start, max_nodes=max_nodes, max_seconds=left, max_memory_mb=max_memory_mb,
                            progress=bar.update, workers=workers, method=method)
        else:
            result = solve_deal(start, max_nodes=max_nodes, max_seconds=left, max_memory_mb=max_memory_mb,
                                progress=bar.update, workers=workers, method=method)
    if as_json:
        _say_json(d, result, played if played_file is not None else None)
    else:
        _say_text(d, start, result, f"{where(d, deal_file or 'deal')}{_after(played)}",
                  _Asked(max_seconds, max_nodes, max_memory_mb, None if method == "layered" else workers,
                         show_moves))
    return EXIT_CODES[result.verdict]


class _Asked(NamedTuple):
    """What a ``solve`` run asked for that its text answer reads: the limits (to say how to go further) and
    whether to print the moves."""

    max_seconds: float | None
    max_nodes: int | None
    max_memory_mb: int | None
    workers: int | None  # None: the layered proof alone (--jobs has no "more" to suggest)
    show_moves: bool


def _after(played: list[str]) -> str:
    return f" after {len(played)} move{'' if len(played) == 1 else 's'}" if played else ""


def _say_json(d: Deal, result: SolveResult, played: list[str] | None) -> None:
    """``solve --json``: the result's object with the deal's numbers (and, from a position, the moves played
    and whether it is stalled)."""
    out = result.to_dict()
    out["command_seconds"] = round(command_seconds(), 3)  # the clock --max-seconds bounds, start-up included
    out["seed"] = d.seed
    if d.pysolfc_game is not None:
        out["pysolfc_game"] = d.pysolfc_game
    if played is not None:
        out["moves_played"] = len(played)
        out["stalled"] = result.stalled
    click.echo(json.dumps(out))


def _say_text(d: Deal, start: "Deal | Position", result: SolveResult, name: str, asked: _Asked) -> None:
    """``solve``'s lines: the verdict, the best score, how to go further when unknown, and the moves."""
    full = 4 * d.rules.ranks
    v = result.verdict
    if result.stalled:
        click.echo(f"{name} · {d.rules.name}: unsolvable — the position is stalled "
                   f"(no progress move can ever be reached); score {result.best_score}/{full}")
    else:
        line = f"{name} · {d.rules.name}: {v.value} in {clock(result.stats.get('search_seconds'))}, {result.nodes:,} nodes"
        waiting = compiling_words(result.compiling_now()) if v is Verdict.UNKNOWN else None
        if v is Verdict.SOLVED:
            line += f"; winning line of {len(result.moves)} moves"
            if asked.show_moves:  # --moves prints steps, a run of draws one step: say both counts
                line += f" ({len(steps(start, result.moves))} steps below)"
        elif v is Verdict.UNKNOWN:
            line += f"; {why_stopped(result.limit)}"
            if result.stats.get("layered_note"):  # e.g. a win found, its line not found again in time
                line += f" ({result.stats['layered_note']})"
            if waiting:
                line += f"; {waiting[0]}"
        click.echo(line)
        click.echo(f"best score: {result.best_score}/{full}")
        if waiting:
            click.echo(waiting[1] + ": " + next_command(run_state().argv, {}))
        further = v is Verdict.UNKNOWN and not waiting and go_further(result.limit, asked.max_seconds, asked.max_nodes,
                                                      result.stats.get("memory_cap_mb", asked.max_memory_mb),
                                                      asked.workers)
        if further:
            click.echo(further)
            hard = mostly_undecided(d.rules)
            if hard:
                click.echo(hard)
    if asked.show_moves:
        _say_moves(start, result, full)


def _say_moves(start: "Deal | Position", result: SolveResult, full: int) -> None:
    """``solve --moves``: the winning line as steps, or why there is none and the best line found."""
    if result.moves:
        click.echo(format_steps(steps(start, result.moves)))
        return
    why = ("no winning line: every line from here loses" if result.verdict is Verdict.UNSOLVABLE else
           "no winning line found within the limits")
    if result.best_line:
        click.echo(f"{why}; the best line found, {len(result.best_line)} moves to "
                   f"{result.best_score}/{full} (canfield show writes it as a page):")
        click.echo(format_steps(steps(start, result.best_line)))
    else:
        click.echo(f"{why}.")


class _SearchProgress:
    """The nodes searched so far and the time, on one line of stderr redrawn in place (a terminal only)."""

    def __init__(self, enabled: bool):
        self.enabled = enabled
        self.drawn = False
        self.width = 0

    def update(self, nodes: int, elapsed: float, phase: str | None = None, event: str | None = None) -> None:
        """The line; ``phase`` from the layered proof: its layer, the rows waiting and the memory held;
        ``event``, a change of phase, gets a line of its own (on a terminal or not: it is not progress)."""
        if event is not None:
            self.clear()
            click.echo(event, err=True)
        if self.enabled:
            line = f"searching: {nodes / 1e6:7.1f} M nodes, {elapsed:6.1f} s" + (f" · {phase}" if phase else "")
            click.echo("\r" + line.ljust(self.width), err=True, nl=False)
            self.width = len(line)
            self.drawn = True

    def clear(self) -> None:
        """Erase the line (a notice is about to be printed; the next update draws it again)."""
        if self.drawn:
            click.echo("\r" + " " * max(48, self.width) + "\r", err=True, nl=False)
            self.drawn = False
            self.width = 0

    def __enter__(self) -> "_SearchProgress":
        self._live = run_state().live
        self._live.append(self)
        return self

    def __exit__(self, *exc: object) -> None:
        self._live.remove(self)
        self.clear()


def _analysis_lines(a: Analysis, full: int, name: str, asked: int) -> list[str]:
    lines = [f"{name} · {a.rules}: {a.verdict}, rated {a.rating}"]
    lines.append(f"  search            {a.nodes:,} nodes in {a.seconds:.3f} s; the analysis {a.total_seconds:.2f} s "
                 "in all" + (f" ({why_stopped(a.limit)})" if a.limit else ""))
    if a.verdict == Verdict.SOLVED:
        lines.append(f"  solution          {a.solution_length} moves, {a.redeals} redeals")
        lines.append(f"  critical          {a.critical_positions} positions on the solution where a move "
                     f"loses ({a.positions_probed} alternatives probed)")
    lines.append(f"  first moves       {a.winning_first_moves} of {a.first_moves} win"
                 + (f" ({a.unknown_first_moves} undecided by the probe)" if a.unknown_first_moves else ""))
    lines.append(f"  best score        {a.best_score}/{full}")
    lines.append(f"  greedy player     {'won' if a.greedy_won else 'lost'} ({a.greedy_score}/{full})")
    if a.playouts:
        lines.append(f"  random player     won {a.random_wins} of {a.playouts} games "
                     f"(best {a.random_best_score}/{full})"
                     + (f"; the time limit ended them at {a.playouts} of {asked}" if a.playouts < asked else ""))
    elif asked:
        lines.append(f"  random player     no game played: the time limit ended the analysis first ({asked} asked)")
    return lines


@cli.command()
@deal_source("any")
@click.option("--max-seconds", type=SECONDS, default=30.0, show_default=True,
              help="Time limit of the whole command, from its start (a first compile included): the main search "
                   "may take all of it, the probes run in what it leaves.")
@click.option("--probe-nodes", type=Whole(1, 10**10), default=20_000, show_default=True,
              help="Node limit of each search behind the first-move and critical-position counts.")
@click.option("--playouts", type=Whole(0, 100_000), default=50, show_default=True,
              help="Random-player games.")
@click.option("--playout-seed", type=Whole(min=0), default=0, show_default=True,
              help="Seed of the random player (same seed, same games).")
@click.option("--moves", "show_moves", is_flag=True, help="Print the winning line as numbered steps.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@game_option
def analyze(seed: int | None, deal_file: str | None, pysolfc: str | None, rules_name: str | None,
            rules_file: str | None,
            max_seconds: float | None, probe_nodes: int, playouts: int, playout_seed: int, show_moves: bool,
            as_json: bool, game: str) -> int:
    """How hard a deal is: search effort, solution, critical positions, greedy and random players, rating.

    Exits as solve does: 0 solved, 1 unsolvable, 3 when a limit stopped the search, 2 on bad input.
    """
    if game != "canfield":
        refuse_canfield_only(game, deal=deal_file, pysolfc=pysolfc, rules=rules_name, rules_file=rules_file,
                             moves=show_moves)
        return game_analyze(game, seed, max_seconds, probe_nodes, as_json)
    d = load_deal(seed, deal_file, rules_name, rules_file, pysolfc)
    from ...play.difficulty import analyze as analyze_deal

    with _SearchProgress(enabled=not as_json and sys.stderr.isatty()) as bar:
        a = analyze_deal(d, max_seconds=time_left(max_seconds), probe_nodes=probe_nodes, playouts=playouts,
                         playout_seed=playout_seed, progress=bar.update)
    if as_json:
        out = a.to_dict()
        if d.pysolfc_game is not None:
            out["pysolfc_game"] = d.pysolfc_game
        click.echo(json.dumps(out))
    else:
        click.echo("\n".join(_analysis_lines(a, 4 * d.rules.ranks, where(d), playouts)))
        if show_moves and a.moves:
            click.echo(format_steps(steps(d, a.moves)))
        further = a.verdict == Verdict.UNKNOWN.value and go_further(a.limit, max_seconds, None, None, None)
        if further:
            click.echo(further)
    return EXIT_CODES[Verdict(a.verdict)]  # as solve: 0 solved, 1 unsolvable, 3 unknown


def _page_name(d: Deal) -> str:
    if d.pysolfc_game is not None:
        return f"canfield-pysolfc-{d.pysolfc_game}.html"
    return f"canfield-seed-{d.seed}.html" if d.seed is not None else "canfield-game.html"


@cli.command()
@deal_source("any")
@click.option("--moves", "moves_file", type=click.Path(dir_okay=False, allow_dash=True), default=None,
              callback=not_blank, help="Show this game (one move per line, a JSON list, or printed steps).")
@click.option("--out", "out", default=None, callback=not_blank, metavar="FILE.html",
              help="Where to write the page ('-' for stdout; default canfield-<deal>.html).")
@click.option("--max-seconds", type=SECONDS, default=30.0, show_default=True,
              help="Time limit of the search (and of each probe for a player's game).")
@game_option
def show(seed: int | None, deal_file: str | None, pysolfc: str | None, rules_name: str | None,
         rules_file: str | None, moves_file: str | None, out: str | None, max_seconds: float | None, game: str) -> int:
    """Write a self-contained HTML page to step through the winning line, the best line, or your game."""
    moves = read_moves(moves_file) if moves_file else None
    if game != "canfield":
        refuse_canfield_only(game, deal=deal_file, pysolfc=pysolfc, rules=rules_name, rules_file=rules_file)
        pg = game_show(game, seed, moves, max_seconds)
        return _write_page(pg, out or f"{game}-seed-{seed}.html")
    d = load_deal(seed, deal_file, rules_name, rules_file, pysolfc)
    prepare_kernel()
    from ..replay_page import show as show_page

    pg = show_page(d, moves, max_seconds=max_seconds)
    return _write_page(pg, out or _page_name(d))


def _write_page(pg: "ReplayPage", out: str) -> int:
    if out == "-":
        click.echo(pg.html, nl=False)
        return 0
    try:
        pg.save(out)
    except OSError as e:
        raise UserError(f"cannot write {out!r}: {e.strerror}") from None
    click.echo(f"{pg.title}\nwrote {out}", err=True)
    return 0


@cli.command()
@click.argument("name", required=False, metavar="[PRESET]")
@click.option("--rules-file", type=click.Path(dir_okay=False), default=None, callback=not_blank,
              help="A rules JSON file to show instead of a preset.")
def rules(name: str | None, rules_file: str | None) -> None:
    """List the rules presets of Canfield, then the other games (--game NAME); with a PRESET (or
    --rules-file), its rules and the searches a solve runs under them, in order, with their shares."""
    if name is not None or rules_file is not None:
        if name is not None and rules_file is not None:
            raise UserError("give a PRESET or --rules-file, not both")
        r = resolve_rules(name, rules_file)
        click.echo(f"{r.name}: {r.description}" if r.description else r.name)
        fields = {k: v for k, v in r.to_dict().items() if k not in ("name", "description")}
        width = 2 + max(map(len, fields))
        for key, value in fields.items():
            click.echo(f"  {key:<{width}s}{json.dumps(value)}")
        click.echo("\n".join(schedule_of(r)))
        return
    width = 2 + max(len(n) for n in [*PRESETS, *DESCRIPTIONS])  # the longest name keeps a gap after it
    for name, r in PRESETS.items():
        click.echo(f"{name:{width}s}{r.description}")
    click.echo("\nother games (--game NAME on deal, solve, check, hint, show, analyze, winrate, play):")
    for name, text in DESCRIPTIONS.items():
        click.echo(f"{name:{width}s}{text}")
