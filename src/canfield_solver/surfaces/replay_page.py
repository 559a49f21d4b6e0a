"""A replay page: one self-contained HTML file to step through a game.

``page(deal, moves, ...)`` replays ``moves`` on the reference engine (an
illegal move is refused before anything is written) and writes a page with
the layout drawn as cards, the move list in the printed-step notation of
the CLI with the current step highlighted, first/back/play/forward/last
buttons, a slider, keyboard arrows, a chart of cards home per move, and
the card about to move marked. No network, fonts, scripts or images from
outside: it works from ``file://`` offline.

``show(...)`` decides what to show: the winning line of a won deal, the
best line the search found for a lost or undecided one (``SolveResult.
best_line``), or a player's own game, marking the first move after which
it could no longer be won when the solver can tell.
"""

from __future__ import annotations

import functools
import html
import json
from dataclasses import dataclass
from importlib import resources
from typing import Sequence

from ..engine.cards import RANKS, SUITS, suit_of
from ..engine.deal import Deal
from ..engine.moves import parse_move
from ..engine.position import Position, replay
from ..engine.rules import Rules
from ..errors import CanfieldError
from ..files import write_atomically
from ..play.hint import losing_move
from ..play.transcript import pass_headings, pretty_card, steps
from ..solver import SolveResult, Verdict, solve

__all__ = ["ReplayPage", "page", "show", "frames"]

def _code(card: int) -> str:
    """A card for the page: '10H' style text the script splits into rank and suit."""
    p = pretty_card(card)
    return p[:-1] + SUITS[suit_of(card)]


def position_frame(pos: Position) -> dict[str, object]:
    n = pos.rules.ranks
    tops = []
    for s in range(4):
        k = pos.foundations[s]
        tops.append(_code(s * 13 + (pos.base_rank + k - 1) % n) if k else None)
    return {
        "r": len(pos.reserve),
        "rt": _code(pos.reserve[-1]) if pos.reserve else None,
        "f": list(pos.foundations),
        "ft": tops,
        "t": [[_code(c) for c in col] for col in pos.tableau],
        "s": len(pos.stock),
        "w": len(pos.waste),
        "wv": [_code(c) for c in pos.waste[-3:]],
        "p": pos.redeals_used + 1,
        "sc": pos.score,
    }


def _mark(pos: Position, move: str) -> dict[str, object]:
    """Which cards the next move takes: the page marks them before they move."""
    m = parse_move(move)
    if m.src == "draw":
        return {"pile": "stock", "n": min(pos.rules.draw, len(pos.stock))}
    if m.src == "redeal":
        return {"pile": "waste", "n": len(pos.waste)}
    if m.src == "W":
        return {"pile": "waste", "n": 1}
    if m.src == "R":
        return {"pile": "reserve", "n": 1}
    col = pos.tableau[m.src_col - 1]
    return {"pile": f"col{m.src_col}", "n": len(col) if m.count is None else m.count}


def frames(deal: "Deal | Position", moves: Sequence[str]) -> list[dict[str, object]]:
    """The position before the first move and after every move, as the page draws them.

    Raises ``IllegalMoveError``/``MoveError`` at the first illegal move.
    """
    pos = deal.copy() if isinstance(deal, Position) else Position(deal)
    out = []
    for mv in moves:
        f = position_frame(pos)
        f["mark"] = _mark(pos, mv)
        out.append(f)
        pos.play(mv)
    f = position_frame(pos)
    f["mark"] = None
    out.append(f)
    return out


@dataclass(frozen=True)
class ReplayPage:
    """A finished page: ``html`` (a whole document), ``save(path)``, and inline display in Jupyter."""

    html: str
    title: str
    moves: tuple[str, ...]

    def save(self, path: str) -> None:
        """Write the page to ``path`` whole (an older file of that name stays as it was if the write fails)."""
        write_atomically(path, self.html)

    def __str__(self) -> str:
        return self.html

    def _repr_html_(self) -> str:
        # An iframe keeps the page's script and styles apart from the notebook's.
        return (f'<iframe title="{html.escape(self.title)}" srcdoc="{html.escape(self.html, quote=True)}" '
                f'style="width:100%;height:640px;border:1px solid #ccc"></iframe>')


def page(deal: "Deal | Position", moves: Sequence[str], *, title: str, summary: str = "",
         notes: Sequence[str] = (), turning_point: int | None = None) -> ReplayPage:
    """The page for ``moves`` from ``deal``; ``turning_point``: 1-based move after which the game is lost."""
    moves = [str(m) for m in moves]
    start = deal.copy() if isinstance(deal, Position) else Position(deal)
    fr = frames(start, moves)
    st = steps(start, moves)
    step_rows = []
    i = 0
    for s, head in zip(st, pass_headings(st)):
        step_rows.append({"n": s.number, "text": s.text, "from": i, "to": i + len(s.moves), "head": head})
        i += len(s.moves)
    data = {
        "frames": fr,
        "steps": step_rows,
        "moves": moves,
        "full": 4 * start.rules.ranks,
        "columns": len(start.tableau),
        "base": RANKS[start.base_rank].replace("T", "10"),
        "turning": turning_point,
    }
    body = _template()
    notes_html = "".join(f"<p>{html.escape(n)}</p>" for n in notes)
    replacements = {
        "%TITLE%": html.escape(title),
        "%SUMMARY%": html.escape(summary),
        "%NOTES%": notes_html,
        "%DATA%": json.dumps(data, separators=(",", ":")).replace("</", "<\\/"),
    }
    for k, v in replacements.items():
        body = body.replace(k, v)
    return ReplayPage(body, title, tuple(moves))


def notebook_html(obj: object) -> str | None:
    """A deal's or a position's layout, or a result's replay page (its line; where its seed names the deal), as
    a notebook shows it (``engine.display``); None for what it cannot draw (the plain ``repr`` then)."""
    if isinstance(obj, SolveResult):
        if obj.seed is None:
            return None
        try:
            return show(obj)._repr_html_()
        except CanfieldError:  # rules that are no preset: the seed alone does not give the deal
            return None
    if isinstance(obj, (Deal, Position)):
        d = obj if isinstance(obj, Deal) else obj.deal
        where = f"{_label(d)} · {d.rules.name}"
        what = "the deal" if isinstance(obj, Deal) else f"after {obj.moves_made} moves"
        return page(obj, [], title=f"{where}: {what}", summary=repr(obj))._repr_html_()
    return None


def _label(deal: Deal) -> str:
    if deal.pysolfc_game is not None:
        return f"PySolFC game {deal.pysolfc_game}"
    return f"Seed {deal.seed}" if deal.seed is not None else "Deal"


def show(obj: "Deal | SolveResult | int", moves: Sequence[str] | None = None, *, rules: "str | Rules | None" = None, deal: Deal | None = None,
         max_seconds: float | None = 30.0) -> ReplayPage:
    """A replay page for a deal, a seed, or a ``SolveResult``; with ``moves``, for a player's own game.

    A won deal shows its winning line; a lost one the best line the search
    found (most cards home), with why it ends there; an undecided one the
    best line so far. ``moves`` shows that game instead and marks the first
    move after which it could no longer be won, when the solver can tell.
    """
    result: SolveResult | None = None
    if isinstance(obj, SolveResult):
        result = obj
        if deal is None:
            if obj.seed is None:
                raise CanfieldError("show(): this result has no seed; pass deal= as well")
            deal = Deal.from_seed(obj.seed, rules or obj.rules)
    elif isinstance(obj, Deal):
        deal = obj if rules is None else Deal.from_dict(obj.to_dict(), rules)
    elif isinstance(obj, int) and not isinstance(obj, bool):
        deal = Deal.from_seed(obj, rules or "canfield")
    else:
        raise CanfieldError(f"show() takes a Deal, a seed number or a SolveResult, not {type(obj).__name__}")
    assert deal is not None
    who = f"{_label(deal)} · {deal.rules.name}"
    full = 4 * deal.rules.ranks
    if moves is not None:
        moves = [str(m) for m in moves]
        res = replay(deal, moves, strict=False)
        if not res.legal:
            raise CanfieldError(f"--moves: {res.error}")
        turning, why = losing_move(deal, moves, max_seconds)
        end = res.position
        state = "won" if end.is_won() else f"{end.score} of {full} cards home"
        return page(deal, moves, title=f"{who}: a game of {len(moves)} moves",
                    summary=f"A player's game, {len(moves)} moves, {state}; {why}.", turning_point=turning)
    if result is None:
        result = solve(deal, max_seconds=max_seconds)
    v = result.verdict
    line = list(result.best_line)
    if v is Verdict.SOLVED:
        return page(deal, line, title=f"{who}: won in {len(line)} moves",
                    summary=f"The winning line the solver found ({result.nodes:,} positions searched).")
    end = replay(deal, line).position
    if v is Verdict.UNSOLVABLE:
        notes = [f"The solver searched every line from this deal: none wins. This is the line to the most "
                 f"cards home it saw, {result.best_score} of {full}."]
        if end.is_stalled():
            notes.append("It ends stalled: no sequence of draws, redeals and column moves reaches a move that "
                         "puts a card home or takes one from the reserve or the waste (SPEC §3).")
        else:
            notes.append("Moves remain after its last one, and the search followed every one of them: none "
                         "leads to a won game.")
        return page(deal, line, title=f"{who}: lost — best line, {result.best_score} of {full} cards home",
                    summary="The deal cannot be won.", notes=notes)
    return page(deal, line, title=f"{who}: undecided — best line so far",
                summary=("The search was interrupted" if result.limit == "interrupted" else
                         f"The search stopped at its {result.limit} limit") + f" after {result.nodes:,} positions "
                        f"without deciding the deal. This is the best line it had found so far: "
                        f"{result.best_score} of {full} cards home.")


@functools.lru_cache(maxsize=1)
def template(name: str = "replay_page.html", chart_label: str = "Cards on the foundations after each move") -> str:
    """A page's HTML and script (``name`` beside this module) with what Canfield's page and the games'
    page share filled in: the style (page.css), the controls and move list (page_side.html) and the card
    helpers and player controls (page_controls.js); %NAME% slots left for the page's own data."""
    files = resources.files(__package__)

    def read(n: str) -> str:
        return files.joinpath(n).read_text(encoding="utf-8")

    side = read("page_side.html").replace("%CHART_LABEL%", chart_label)
    return (read(name).replace("%STYLE%", read("page.css")).replace("%SIDE%", side)
            .replace("%CONTROLS%", read("page_controls.js")))


def _template() -> str:
    return template()
