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

import html
import json
from dataclasses import dataclass
from typing import Any, Sequence

from .cards import suit_of
from .deal import Deal
from .errors import CanfieldError
from .game import Position, replay
from .moves import parse_move
from .transcript import pass_headings, pretty_card, steps

__all__ = ["ReplayPage", "page", "show", "frames"]

def _code(card: int) -> str:
    """A card for the page: '10H' style text the script splits into rank and suit."""
    p = pretty_card(card)
    return p[:-1] + "CDHS"[suit_of(card)]


def _frame(pos: Position) -> dict[str, Any]:
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


def _mark(pos: Position, move: str) -> dict[str, Any]:
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


def frames(deal: "Deal | Position", moves: Sequence[str]) -> list[dict[str, Any]]:
    """The position before the first move and after every move, as the page draws them.

    Raises ``IllegalMoveError``/``MoveError`` at the first illegal move.
    """
    pos = deal.copy() if isinstance(deal, Position) else Position(deal)
    out = []
    for mv in moves:
        f = _frame(pos)
        f["mark"] = _mark(pos, mv)
        out.append(f)
        pos.play(mv)
    f = _frame(pos)
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
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(self.html)

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
        "base": "A23456789TJQK"[start.base_rank].replace("T", "10"),
        "turning": turning_point,
    }
    body = _TEMPLATE
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


def _label(deal: Deal) -> str:
    if deal.pysolfc_game is not None:
        return f"PySolFC game {deal.pysolfc_game}"
    return f"Seed {deal.seed}" if deal.seed is not None else "Deal"


def _lost_after(deal: Deal, moves: Sequence[str], max_seconds: float) -> tuple[int | None, str]:
    """1-based move after which the game can no longer be won (None if never, or if the solver cannot tell)."""
    from .solver import solve

    def verdict(k: int) -> str:
        pos = replay(deal, moves[:k]).position
        if pos.is_won():
            return "solved"
        if pos.is_stalled():
            return "unsolvable"
        return solve(pos, max_seconds=max_seconds).verdict.value

    first, last = verdict(0), verdict(len(moves))
    if first != "solved":
        return None, ("the deal could not be won from the start" if first == "unsolvable"
                      else "the solver could not decide the deal in time")
    if last == "solved":
        return None, "the game could still be won after the last move"
    if last == "unknown":
        return None, "the solver could not decide the last position in time"
    lo, hi = 0, len(moves)  # winnable after lo moves, lost after hi moves: lost stays lost
    while hi - lo > 1:
        mid = (lo + hi) // 2
        v = verdict(mid)
        if v == "unknown":
            return None, f"the solver could not decide the position after move {mid} in time"
        lo, hi = (mid, hi) if v == "solved" else (lo, mid)
    return hi, f"after move {hi} the game could no longer be won"


def show(obj: Any, moves: Sequence[str] | None = None, *, rules: Any = None, deal: Deal | None = None,
         max_seconds: float = 30.0) -> ReplayPage:
    """A replay page for a deal, a seed, or a ``SolveResult``; with ``moves``, for a player's own game.

    A won deal shows its winning line; a lost one the best line the search
    found (most cards home), with why it ends there; an undecided one the
    best line so far. ``moves`` shows that game instead and marks the first
    move after which it could no longer be won, when the solver can tell.
    """
    from .solver import SolveResult, solve

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
        turning, why = _lost_after(deal, moves, max_seconds)
        end = res.position
        state = "won" if end.is_won() else f"{end.score} of {full} cards home"
        return page(deal, moves, title=f"{who}: a game of {len(moves)} moves",
                    summary=f"A player's game, {len(moves)} moves, {state}; {why}.", turning_point=turning)
    if result is None:
        result = solve(deal, max_seconds=max_seconds)
    v = result.verdict.value
    line = list(result.best_line)
    if v == "solved":
        return page(deal, line, title=f"{who}: won in {len(line)} moves",
                    summary=f"The winning line the solver found ({result.nodes:,} positions searched).")
    end = replay(deal, line).position
    if v == "unsolvable":
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
                summary=f"The search stopped at its {result.limit} limit after {result.nodes:,} positions "
                        f"without deciding the deal. This is the best line it had found so far: "
                        f"{result.best_score} of {full} cards home.")


_TEMPLATE = r"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>%TITLE%</title>
<style>
:root { --cw: clamp(2.3rem, 11vw, 3.6rem); --ch: calc(var(--cw) * 1.4); --felt: #1f6b3a; }
* { box-sizing: border-box; }
body { margin: 0; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; background: #f4f4f0; color: #111; }
header, main { max-width: 72rem; margin: 0 auto; padding: 0.5rem; }
h1 { font-size: 1.15rem; margin: 0.3rem 0; }
.layout { display: flex; flex-wrap: wrap; gap: 0.75rem; }
#board { flex: 1 1 18rem; background: var(--felt); color: #fff; border-radius: 0.5rem; padding: 0.5rem; min-width: 0; }
#side { flex: 1 1 16rem; min-width: 0; }
.row { display: flex; flex-wrap: wrap; gap: 0.4rem; align-items: flex-start; margin-bottom: 0.5rem; }
.pile { display: flex; flex-direction: column; align-items: center; gap: 0.15rem; font-size: 0.75rem; }
.slot { width: var(--cw); height: var(--ch); border: 2px dashed rgba(255,255,255,.45); border-radius: 0.35rem; position: relative; }
.card { display: flex; justify-content: center; align-items: center; width: var(--cw); height: var(--ch); background: #fff;
        border: 1px solid #333; border-radius: 0.35rem; font-weight: 700; font-size: calc(var(--cw) * 0.36); }
.card.red { color: #c00; } .card.black { color: #111; }
.card.back { background: repeating-linear-gradient(45deg, #24458f, #24458f 4px, #3a5fb0 4px, #3a5fb0 8px); color: #fff; }
.card.moving { outline: 4px solid #ffb400; outline-offset: -2px; }
.fan { display: flex; flex-direction: column; }
.fan .card + .card { margin-top: calc(var(--ch) * -0.62); }
.fan .card { align-items: flex-start; padding-top: 0.1rem; }
.waste { display: flex; }
.waste .card + .card { margin-left: calc(var(--cw) * -0.55); }
#tableau { display: flex; gap: 0.4rem; flex-wrap: nowrap; overflow-x: auto; }
.col { display: flex; flex-direction: column; align-items: center; gap: 0.15rem; font-size: 0.75rem; }
#status { margin: 0.4rem 0 0; font-size: 0.9rem; }
#controls { display: flex; flex-wrap: wrap; gap: 0.3rem; align-items: center; margin: 0.5rem 0; }
button, select { font: inherit; padding: 0.35rem 0.6rem; border-radius: 0.3rem; border: 1px solid #555; background: #fff; }
button:focus-visible, select:focus-visible, input:focus-visible, li:focus-visible { outline: 3px solid #1a6fe0; outline-offset: 2px; }
#slider { flex: 1 1 10rem; min-width: 8rem; }
#moves { max-height: 22rem; overflow-y: auto; margin: 0; padding: 0 0 0 2.6rem; font-size: 0.9rem; background: #fff; border: 1px solid #ccc; border-radius: 0.3rem; }
#moves li { padding: 0.1rem 0.3rem; cursor: pointer; }
#moves li.current { background: #ffe27a; }
#moves li.turning { border-left: 4px solid #c00; }
#moves li.pass { list-style: none; margin-left: -2.2rem; color: #555; font-style: italic; }
#chart { width: 100%; height: 6rem; background: #fff; border: 1px solid #ccc; border-radius: 0.3rem; margin-top: 0.5rem; }
.sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
.notes p { margin: 0.3rem 0; }
</style>
</head>
<body>
<header>
<h1>%TITLE%</h1>
<p id="summary">%SUMMARY%</p>
<div class="notes">%NOTES%</div>
</header>
<main>
<div class="layout">
<section id="board" aria-label="The table">
  <div class="row">
    <div class="pile"><div id="stock" class="slot" role="img"></div><span id="stock-label"></span></div>
    <div class="pile"><div id="waste" class="waste" role="group" aria-label="Waste"></div><span id="waste-label"></span></div>
    <div class="pile"><div id="reserve" role="group" aria-label="Reserve"></div><span id="reserve-label"></span></div>
  </div>
  <div class="row" id="foundations" role="group" aria-label="Foundations"></div>
  <div id="tableau" role="group" aria-label="Columns"></div>
  <p id="status" aria-live="polite"></p>
</section>
<section id="side" aria-label="Moves">
  <div id="controls">
    <button type="button" id="first" aria-label="First position">&laquo; First</button>
    <button type="button" id="back" aria-label="Back one move">&#x25C0; Back</button>
    <button type="button" id="play" aria-label="Play">&#x25B6; Play</button>
    <button type="button" id="forward" aria-label="Forward one move">Forward &#x25B6;</button>
    <button type="button" id="last" aria-label="Last position">Last &raquo;</button>
    <label for="speed">Speed</label>
    <select id="speed"><option value="1500">slow</option><option value="700" selected>normal</option><option value="250">fast</option></select>
    <label for="slider" class="sr">Move number</label>
    <input type="range" id="slider" min="0" value="0" step="1">
  </div>
  <ol id="moves" aria-label="Move list"></ol>
  <svg id="chart" role="img" aria-label="Cards on the foundations after each move" preserveAspectRatio="none"></svg>
  <p><small>Keys: &larr; &rarr; one move, Home / End, Space plays or pauses.</small></p>
</section>
</div>
</main>
<script>
const DATA = %DATA%;
const F = DATA.frames, N = F.length - 1;
const SUITS = {C: ["\u2663", "clubs", "black"], D: ["\u2666", "diamonds", "red"], H: ["\u2665", "hearts", "red"], S: ["\u2660", "spades", "black"]};
const RANKS = {A: "ace", J: "jack", Q: "queen", K: "king"};
let cur = 0, timer = null;
const $ = (id) => document.getElementById(id);
function cardEl(code, moving) {
  const e = document.createElement("span");
  const suit = code.slice(-1), rank = code.slice(0, -1), s = SUITS[suit];
  e.className = "card " + s[2] + (moving ? " moving" : "");
  e.dataset.card = code;
  e.setAttribute("role", "img");
  e.setAttribute("aria-label", (RANKS[rank] || rank) + " of " + s[1] + (moving ? ", moves next" : ""));
  e.textContent = rank + s[0];
  return e;
}
function slot(label) { const e = document.createElement("div"); e.className = "slot"; e.setAttribute("aria-label", label); return e; }
function draw(i) {
  const f = F[i], m = f.mark || {pile: null, n: 0};
  const marked = (pile, k, len) => m.pile === pile && k >= len - m.n;
  const stock = $("stock");
  stock.className = f.s ? "card back" + (m.pile === "stock" ? " moving" : "") : "slot";
  stock.dataset.count = f.s;
  stock.setAttribute("aria-label", "Stock: " + f.s + " cards");
  $("stock-label").textContent = "stock " + f.s;
  const w = $("waste"); w.replaceChildren(); w.dataset.count = f.w;
  if (!f.wv.length) w.appendChild(slot("empty waste"));
  f.wv.forEach((c, k) => w.appendChild(cardEl(c, m.pile === "waste" && (m.n >= f.wv.length || k === f.wv.length - 1))));
  $("waste-label").textContent = "waste " + f.w;
  const r = $("reserve"); r.replaceChildren(); r.dataset.count = f.r;
  r.appendChild(f.rt ? cardEl(f.rt, m.pile === "reserve") : slot("empty reserve"));
  $("reserve-label").textContent = "reserve " + f.r;
  const fd = $("foundations"); fd.replaceChildren();
  "CDHS".split("").forEach((s, k) => {
    const p = document.createElement("div"); p.className = "pile foundation"; p.dataset.suit = s; p.dataset.count = f.f[k];
    p.appendChild(f.ft[k] ? cardEl(f.ft[k], false) : slot("empty " + SUITS[s][1] + " foundation"));
    const l = document.createElement("span"); l.textContent = SUITS[s][0] + " " + f.f[k]; l.setAttribute("aria-label", SUITS[s][1] + ": " + f.f[k] + " cards home");
    p.appendChild(l); fd.appendChild(p);
  });
  const t = $("tableau"); t.replaceChildren();
  f.t.forEach((col, c) => {
    const box = document.createElement("div"); box.className = "col";
    const fan = document.createElement("div"); fan.className = "fan col-cards"; fan.dataset.col = c + 1;
    fan.setAttribute("role", "group"); fan.setAttribute("aria-label", "Column " + (c + 1) + ", " + col.length + " cards");
    if (!col.length) fan.appendChild(slot("empty column " + (c + 1)));
    col.forEach((code, k) => fan.appendChild(cardEl(code, marked("col" + (c + 1), k, col.length))));
    const l = document.createElement("span"); l.textContent = "T" + (c + 1);
    box.appendChild(fan); box.appendChild(l); t.appendChild(box);
  });
  const next = i < N ? " · next: " + DATA.moves[i] : " · end";
  $("status").textContent = "Move " + i + " of " + N + " · pass " + f.p + " · " + f.sc + " of " + DATA.full + " cards home" + next;
  document.querySelectorAll("#moves li.step").forEach((li) => {
    const on = (i < N && +li.dataset.from <= i && i < +li.dataset.to) || (i === N && +li.dataset.to === N);
    li.classList.toggle("current", on);
    if (on) { li.setAttribute("aria-current", "step"); li.scrollIntoView({block: "nearest"}); } else li.removeAttribute("aria-current");
  });
  $("slider").value = i;
  const x = N ? (i / N) * 1000 : 0;
  $("now").setAttribute("x1", x); $("now").setAttribute("x2", x);
  $("back").disabled = $("first").disabled = i === 0;
  $("forward").disabled = $("last").disabled = i === N;
}
function go(i) { cur = Math.max(0, Math.min(N, i)); draw(cur); if (cur === N) stop(); }
function stop() { if (timer) { clearInterval(timer); timer = null; } $("play").textContent = "\u25B6 Play"; $("play").setAttribute("aria-label", "Play"); }
function play() {
  if (timer) return stop();
  if (cur === N) go(0);
  timer = setInterval(() => go(cur + 1), +$("speed").value);
  $("play").textContent = "\u2016 Pause"; $("play").setAttribute("aria-label", "Pause");
}
(function build() {
  const ol = $("moves");
  DATA.steps.forEach((s) => {
    if (s.head !== null) {
      const h = document.createElement("li"); h.className = "pass"; h.textContent = "pass " + s.head; ol.appendChild(h);
    }
    const li = document.createElement("li"); li.className = "step"; li.value = s.n; li.textContent = s.text; li.tabIndex = 0;
    li.dataset.from = s.from; li.dataset.to = s.to;
    if (DATA.turning && s.from < DATA.turning && DATA.turning <= s.to) {
      li.classList.add("turning"); li.textContent += " \u2014 after this the game can no longer be won";
    }
    li.addEventListener("click", () => go(s.from));
    li.addEventListener("keydown", (e) => { if (e.key === "Enter") go(s.from); });
    ol.appendChild(li);
  });
  const svg = $("chart"), ns = "http://www.w3.org/2000/svg";
  svg.setAttribute("viewBox", "0 0 1000 " + (DATA.full + 2));
  const pl = document.createElementNS(ns, "polyline");
  pl.setAttribute("points", F.map((f, k) => ((N ? k / N : 0) * 1000) + "," + (DATA.full + 1 - f.sc)).join(" "));
  pl.setAttribute("fill", "none"); pl.setAttribute("stroke", "#1f6b3a"); pl.setAttribute("stroke-width", "2"); pl.setAttribute("vector-effect", "non-scaling-stroke");
  const now = document.createElementNS(ns, "line"); now.id = "now";
  now.setAttribute("y1", 0); now.setAttribute("y2", DATA.full + 2); now.setAttribute("stroke", "#c00"); now.setAttribute("vector-effect", "non-scaling-stroke");
  svg.appendChild(pl); svg.appendChild(now);
  $("slider").max = N;
  $("slider").addEventListener("input", (e) => { stop(); go(+e.target.value); });
  $("first").addEventListener("click", () => { stop(); go(0); });
  $("back").addEventListener("click", () => { stop(); go(cur - 1); });
  $("forward").addEventListener("click", () => { stop(); go(cur + 1); });
  $("last").addEventListener("click", () => { stop(); go(N); });
  $("play").addEventListener("click", play);
  document.addEventListener("keydown", (e) => {
    if (e.target && (e.target.tagName === "INPUT" || e.target.tagName === "SELECT")) return;
    if (e.key === "ArrowRight") { stop(); go(cur + 1); e.preventDefault(); }
    else if (e.key === "ArrowLeft") { stop(); go(cur - 1); e.preventDefault(); }
    else if (e.key === "Home") { stop(); go(0); e.preventDefault(); }
    else if (e.key === "End") { stop(); go(N); e.preventDefault(); }
    else if (e.key === " " && !(e.target && e.target.tagName === "BUTTON")) { play(); e.preventDefault(); }
  });
  draw(0);
})();
</script>
</body>
</html>
"""
