"""``--game NAME`` on ``deal``, ``solve``, ``check``, ``hint``, ``show`` and ``analyze``: the other patiences of docs/games-spec.md (``games``).

Canfield's commands call these when ``--game`` names another game; what a command can do for Canfield
alone (deal files, PySolFC numbers, rules presets, threads, the layered method) is refused in one line.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Callable, Sequence, TypeVar, cast

import click

from ...formats import read_moves
from ...games import GameError, get_game
from ...games.base import names, replay
from ...play.transcript import pretty_card
from ...solver import Verdict
from .common import EXIT_CODES, UserError, why_stopped

if TYPE_CHECKING:
    from ...games.base import AnyGame
    from ..replay_page import ReplayPage

__all__ = ["game_option", "game_deal", "game_solve", "game_check", "game_hint", "game_show", "game_analyze",
           "refuse_canfield_only"]


_F = TypeVar("_F", bound=Callable[..., object])


def game_option(f: _F) -> _F:
    from ...games import game_names

    return click.option("--game", "game", type=click.Choice(["canfield", *game_names()]), default="canfield",
                        show_default=True, help="The patience: Canfield, or one of the other games of docs/games-spec.md.")(f)


def refuse_canfield_only(game: str, **given: object) -> None:
    """One line for the first Canfield-only option given with another game."""
    for option, value in given.items():
        unset = value is None or value is False or value == () or value == "auto" or \
            (value == 1 and not isinstance(value, bool))  # --jobs 1 is its default
        if not unset:
            raise UserError(f"--{option.replace('_', '-')} is for Canfield; {game} takes a SEED")


def _start(game: str, seed: int | None) -> "tuple[AnyGame, Any]":
    if seed is None:
        raise UserError(f"{game}: give a SEED (deal files are for Canfield)")
    m = get_game(game)
    return m, m.deal(seed, game if game in m.VARIANTS else None)


def game_deal(game: str, seed: int | None, as_json: bool) -> int:
    m, p = _start(game, seed)
    if as_json:
        d = p.to_dict() if hasattr(p, "to_dict") else {"line": names(p)}
        d["game"], d["seed"] = game, seed
        click.echo(json.dumps(d))
    else:
        click.echo(f"Seed {seed} · {game}")
        click.echo(m.render(p))
    return 0


def game_steps(m: "AnyGame", p: object, moves: Sequence[str]) -> str:
    """A game's moves as numbered steps naming their cards (``  3. P4+P6  (7♣ 7♦)``); ``check`` and ``hint``
    read them back (the text after two spaces is the cards, not the move)."""
    lines = []
    for i, mv in enumerate(moves, 1):
        cards = " ".join(pretty_card(c) for c in m.cards_moved(p, mv))
        lines.append(f"{i:3d}. {mv}" + (f"  ({cards})" if cards else ""))
        p = m.play(p, mv)
    return "\n".join(lines)


def game_solve(game: str, seed: int | None, max_seconds: float | None, max_nodes: int | None,
               max_memory_mb: int | None, show_moves: bool, as_json: bool) -> int:
    m, p = _start(game, seed)
    r = m.solve(p, max_nodes=max_nodes, max_seconds=max_seconds,
                max_memory_mb=max_memory_mb, seed=seed)
    if as_json:
        out = r.to_dict()
        out["game"] = game
        click.echo(json.dumps(out))
    else:
        work = f"{r.extra['removals']} removals" if "removals" in r.extra else f"{r.nodes:,} nodes"
        line = f"seed {seed} · {game}: {r.verdict.value} in {r.seconds:.3f} s, {work}"
        if r.verdict is Verdict.SOLVED and r.moves:
            line += f"; winning line of {len(r.moves)} moves"
        elif r.verdict is Verdict.UNKNOWN:
            line += f"; stopped by the {r.limit} limit"
        click.echo(line)
        if "left_after_rounds" in r.extra:
            left = cast("list[int]", r.extra["left_after_rounds"])  # suit-neighbours' figure (games.suit_neighbours)
            click.echo("cards left after each round: " + ", ".join(map(str, left)))
        if show_moves and r.moves:
            click.echo(game_steps(m, p, r.moves))
        elif show_moves and m.CHOICES:
            click.echo("no winning line: every line from here loses." if r.verdict is Verdict.UNSOLVABLE
                       else "no winning line found within the limits.")
    return EXIT_CODES[r.verdict]


def _seed_and_moves(game: str, args: tuple[str, ...], verb: str) -> "tuple[AnyGame, Any, int, list[str]]":
    if len(args) != 2:
        raise UserError(f"expected SEED MOVES (2 arguments), got {len(args)}")
    try:
        seed = int(args[0])
    except ValueError:
        raise UserError(f"{game}: DEAL must be a seed number, not {args[0]!r}") from None
    m, p = _start(game, seed)                  # a seed out of range: engine.deal.check_seed's one line
    if not m.CHOICES:
        raise UserError(f"{game} has no moves to {verb}: the deal alone decides it (canfield solve --game {game})")
    return m, p, seed, read_moves(args[1], game=True)


def game_hint(game: str, args: tuple[str, ...], max_seconds: float | None, max_nodes: int | None,
              max_memory_mb: int | None, as_json: bool) -> int:
    """Can the game after MOVES still be won, and what to play next."""
    m, p, seed, played = _seed_and_moves(game, args, "hint")
    try:
        p = replay(m.play, p, played)
    except GameError as e:
        raise UserError(str(e)) from None
    r = m.solve(p, max_nodes=max_nodes, max_seconds=max_seconds,
                max_memory_mb=max_memory_mb, seed=seed)
    after = f"after {len(played)} move{'' if len(played) == 1 else 's'}"
    if as_json:
        click.echo(json.dumps({"game": game, "seed": seed, "moves_played": len(played), "verdict": r.verdict.value,
                               "won": m.won(p), "stalled": m.stalled(p), "next": list(r.moves[:1]),
                               "line": list(r.moves), "nodes": r.nodes, "limit": r.limit}))
    elif m.won(p):
        click.echo(f"{after}: won already")
    elif r.verdict is Verdict.SOLVED:
        click.echo(f"{after}: can still be won — a winning line of {len(r.moves)} more moves")
        click.echo(f"next: {r.moves[0]}")
    elif r.verdict is Verdict.UNSOLVABLE:
        why = "the game is stalled: no move is left" if m.stalled(p) else \
            f"no move sequence from here wins (exhaustive search: {r.nodes:,} nodes)"
        click.echo(f"{after}: lost — {why}")
    else:
        stopped = why_stopped(r.limit)
        click.echo(f"{after}: unknown — {stopped} after {r.nodes:,} nodes")
    return EXIT_CODES[r.verdict]


def game_check(game: str, args: tuple[str, ...], as_json: bool) -> int:
    m, p, seed, moves = _seed_and_moves(game, args, "check")
    error, played = None, 0
    for mv in moves:
        try:
            p = replay(m.play, p, [mv])
        except GameError as e:
            error = f"move {played + 1} ({mv!r}): {str(e).split(': ', 1)[-1]}"
            break
        played += 1
    won, stalled = m.won(p), m.stalled(p)
    if as_json:
        click.echo(json.dumps({"game": game, "seed": seed, "legal": error is None, "played": played,
                               "total": len(moves), "error": error, "won": won, "stalled": stalled}))
    else:
        click.echo(f"legal: all {len(moves)} moves" if error is None else f"illegal: {error}")
        click.echo(f"won: {'yes' if won else 'no'}")
        click.echo(f"stalled: {'yes — no move is left' if stalled else 'no'}")
    return 0 if error is None else 1


def game_show(game: str, seed: int | None, moves: list[str] | None, max_seconds: float | None) -> "ReplayPage":
    """The replay page of a game (``surfaces.game_page.show_game``); an illegal move is one line."""
    from ..game_page import show_game

    if seed is None:
        raise UserError(f"{game}: give --seed N (deal files are for Canfield)")
    try:
        return show_game(game, seed, moves, max_seconds=30.0 if max_seconds is None else max_seconds)
    except GameError as e:
        raise UserError(str(e)) from None


def game_analyze(game: str, seed: int | None, max_seconds: float | None, probe_nodes: int, as_json: bool) -> int:
    from ...games import analyze_game

    if seed is None:
        raise UserError(f"{game}: give --seed N (deal files are for Canfield)")
    a = analyze_game(game, seed, max_seconds=max_seconds,
                     probe_nodes=probe_nodes)
    if as_json:
        click.echo(json.dumps(a))
        return 0
    click.echo(f"seed {seed} · {game}: {a['verdict']} in {a['seconds']:.3f} s, {a['nodes']:,} nodes")
    labels = {"solution_length": "winning line", "critical_positions": "critical positions on it (some move loses)",
              "losing_moves": "losing moves met along it", "advice_won": "the page's advice wins",
              "placements_won": "placements of the last two cards that win (of 90)",
              "left_after_rounds": "cards left after each round", "positions": "positions reached"}
    for k, text in labels.items():
        if k in a:
            v = a[k]
            v = "yes" if v is True else ("no" if v is False else v)
            click.echo(f"  {text}: {v}")
    return 0
