"""The replay page of the other games of docs/games-spec.md: one self-contained HTML file to step through a game.

``game_page(game, seed, moves)`` replays ``moves`` on the game's reference engine (an illegal move is
refused before anything is written) and draws the layout after every move: ``nine-packets`` as the
page's pyramid of packets (face-down cards as backs), ``ten-columns`` as ten fanned columns and the two
cards to place, ``aces-and-kings`` and ``bisley`` as the eight foundation piles over thirteen columns,
and ``suit-neighbours`` as its line, stepping through every removal. The same controls as Canfield's
page (``replay_page``): buttons, a slider, arrow keys, the move list, a chart; no network.

``show_game(game, seed)`` picks the line: the winning line of a won deal; otherwise the page's advice
(``nine-packets``), the first legal removal each time until the game stalls (``ten-columns``), or the
deal alone (``aces-and-kings``); ``suit-neighbours`` always shows its removals.
"""

from __future__ import annotations

import html
import json
from typing import TYPE_CHECKING, Sequence, cast

from ..engine.cards import SUITS, card_name, suit_of
from ..games import deal_of, get_game
from ..games import nine_packets as NP
from ..games import suit_neighbours as SN
from ..games.base import GameError, replay
from .replay_page import ReplayPage, template

if TYPE_CHECKING:
    from ..games.aces_and_kings.game import Position as AKPosition
    from ..games.nine_packets.game import Position as NPPosition
    from ..games.ten_columns.game import Position as TCPosition

__all__ = ["board", "card_code", "game_frames", "game_page", "line_frame", "show_game"]


def card_code(card: int) -> str:
    """A card as the pages write it: rank (10 for ten) and suit letter."""
    name = card_name(card)
    return ("10" if name[0] == "T" else name[0]) + SUITS[suit_of(card)]


def _pile(pid: str, label: str, cards: Sequence[int], *, down: int = 0, fan: bool = False) -> dict[str, object]:
    return {"id": pid, "label": label, "cards": [card_code(c) for c in cards], "down": down, "fan": fan}


def _nine_packets(p: NPPosition) -> dict[str, object]:
    piles = [_pile(f"P{k + 1}", f"P{k + 1}", pk[-1:], down=max(0, len(pk) - 1), fan=True)
             for k, pk in enumerate(p.packets)]
    return {"rows": [{"piles": piles[0:1]}, {"piles": piles[1:4]}, {"piles": piles[4:9]}],
            "sc": 36 - sum(len(pk) for pk in p.packets)}


def _ten_columns(p: TCPosition) -> dict[str, object]:
    rows = [{"piles": [_pile(f"C{c + 1}", f"C{c + 1}", col, fan=True) for c, col in enumerate(p.columns)]}]
    if p.to_place:
        rows.insert(0, {"piles": [_pile("place", "to place", p.to_place)]})
    return {"rows": rows, "sc": 52 - sum(len(c) for c in p.columns) - len(p.to_place)}


def _aces_and_kings(p: AKPosition) -> dict[str, object]:
    """The kings row (built down) above the aces row (built up), the thirteen columns below."""
    kings = [_pile(f"K{s}", SUITS[s] + " down", [s * 13 + 13 - p.down[s]] if p.down[s] else [])
             for s in range(4)]
    aces = [_pile(f"A{s}", SUITS[s] + " up", [s * 13 + p.up[s] - 1]) for s in range(4)]
    cols = [_pile(f"C{i + 1}", f"C{i + 1}", col, fan=True) for i, col in enumerate(p.columns)]
    return {"rows": [{"piles": kings, "kind": "kings"}, {"piles": aces, "kind": "aces"}, {"piles": cols}],
            "sc": p.home}


def board(game: str, p: object) -> dict[str, object]:
    """The layout of position ``p`` of ``game`` (not ``suit-neighbours``) as the pages draw it: rows of
    piles, each pile its id (the move notation's: ``P3``, ``C5``, ``A0``/``K0`` by suit, ``place``), face-up
    cards and face-down count; ``sc`` the cards removed or home."""
    name = get_game(game).NAME        # each drawer is given positions of its own game only
    if name == "nine-packets":
        return _nine_packets(cast("NPPosition", p))
    if name == "ten-columns":
        return _ten_columns(cast("TCPosition", p))
    if name == "aces-and-kings":
        return _aces_and_kings(cast("AKPosition", p))
    raise GameError(f"{game} has no board of piles")


def _marks(game: str, move: str) -> list[str]:
    if game == "nine-packets":
        return [x.strip().upper() for x in move.split("+")]
    if game.startswith("ten-columns"):
        return ["place"] if move.startswith("place") else [x.strip().upper() for x in move.split("+")]
    return [move.split(">")[0].strip().upper()]


def game_frames(game: str, start: object, moves: Sequence[str]) -> list[dict[str, object]]:
    """The position before the first move and after every move, as the page draws them."""
    m = get_game(game)
    out, p = [], start
    for i, mv in enumerate(moves, 1):
        f = board(game, p)
        f["mark"] = _marks(m.NAME, mv)
        out.append(f)
        try:
            p = m.play(p, mv)
        except GameError as e:
            raise GameError(f"move {i} ({mv!r}): {e}") from None
    f = board(game, p)
    f["mark"] = []
    out.append(f)
    return out


def line_frame(line: Sequence[int], removed_at: int | None, sc: int, note: str,
               beneath: Sequence[int] = ()) -> dict[str, object]:
    """suit-neighbours' line as one row of piles; ``beneath``: the cards this step removed, drawn below it."""
    piles = [_pile(f"L{i}", "", (c,)) for i, c in enumerate(line)]
    rows: list[dict[str, object]] = [{"piles": piles, "line": True}]
    if beneath:
        rows.append({"piles": [_pile("removed", "removed by this card", beneath)]})
    return {"rows": rows, "sc": sc, "note": note, "mark": [] if removed_at is None else [f"L{removed_at}"]}


def _render(title: str, summary: str, data: dict[str, object], moves: Sequence[str]) -> ReplayPage:
    body = template("game_page.html", "Cards gone or home after each move")
    for k, v in {"%TITLE%": html.escape(title), "%SUMMARY%": html.escape(summary),
                 "%DATA%": json.dumps(data, separators=(",", ":")).replace("</", "<\\/")}.items():
        body = body.replace(k, v)
    return ReplayPage(body, title, tuple(moves))


def game_page(game: str, seed: int, moves: Sequence[str] = (), *, summary: str = "") -> ReplayPage:
    """The page of ``moves`` from the deal of ``seed`` in ``game`` (``suit-neighbours``: its removals)."""
    start = deal_of(game, seed)
    title = f"Seed {seed} · {game}"
    if get_game(game) is SN:
        tr = SN.play_out(start)
        frames, texts = [], []
        sizes = [len(s) for s in tr.starts]
        for k, r in enumerate(tr.removals):
            note = f"round {r.round}: {r.laid} of {sizes[r.round - 1]} cards laid"
            frames.append(line_frame(r.before, r.index, k, note))
            texts.append(str(r))
        frames.append(line_frame(tr.left, None, len(tr.removals), f"after round 3: {len(tr.left)} cards left"))
        data = {"frames": frames, "moves": texts, "full": 48, "unit": "cards removed"}
        return _render(title, summary or f"{'won' if tr.won else 'lost'}: {len(tr.left)} cards left after round 3",
                       data, texts)
    moves = [str(x) for x in moves]
    full, unit = (36, "cards removed") if game == "nine-packets" else \
        (52, "cards home" if get_game(game).NAME == "aces-and-kings" else "cards removed")
    data = {"frames": game_frames(game, start, moves), "moves": moves, "full": full, "unit": unit}
    return _render(title, summary, data, moves)


def show_game(game: str, seed: int, moves: Sequence[str] | None = None, *, max_seconds: float = 30.0) -> ReplayPage:
    """The page ``canfield show --game`` writes (see the module's notes for which line it shows)."""
    m = get_game(game)
    start = deal_of(game, seed)
    if m is SN:
        return game_page(game, seed)
    if moves is not None:
        end = replay(m.play, start, moves)
        state = "won" if m.won(end) else ("stalled" if m.stalled(end) else "not finished")
        return game_page(game, seed, moves, summary=f"your game: {len(moves)} moves, {state}")
    r = m.solve(start, max_seconds=max_seconds, seed=seed)
    if r.solved:
        return game_page(game, seed, r.moves, summary=f"won: a winning line of {len(r.moves)} moves")
    what = {"unsolvable": "lost (proven)", "unknown": "not decided within the time limit"}[r.verdict.value]
    line: list[str] = []
    if m.NAME == "nine-packets":
        line = NP.play_advice(start)[1]
        what += "; the page's advice played until it stalls"
    elif m.NAME == "ten-columns":
        p = start
        while m.moves(p):
            mv = m.moves(p)[0]
            line.append(mv)
            p = m.play(p, mv)
        what += "; the first legal move each time, until it stalls"
    return game_page(game, seed, line, summary=what)
