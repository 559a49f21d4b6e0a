// The play page: draws the game the server holds (GET /api/games/{id}), sends moves, and shows the meter.
// No library, no network but this server.
"use strict";
const SUITS = {C: ["\u2663", "clubs", "black"], D: ["\u2666", "diamonds", "red"], H: ["\u2665", "hearts", "red"], S: ["\u2660", "spades", "black"]};
const RANKS = {A: "ace", J: "jack", Q: "queen", K: "king"};
const $ = (id) => document.getElementById(id);
let game = null, sel = null, preview = null, polling = null, dragSrc = null;

function cardEl(code, extra) {
  const e = document.createElement("span");
  const suit = code.slice(-1), rank = code.slice(0, -1), s = SUITS[suit];
  e.className = "card " + s[2] + (extra ? " " + extra : "");
  e.dataset.card = code;
  e.setAttribute("role", "button");
  e.setAttribute("aria-label", (RANKS[rank] || rank) + " of " + s[1]);
  e.textContent = rank + s[0];
  return e;
}
function slot(label) { const e = document.createElement("div"); e.className = "slot"; e.setAttribute("aria-label", label); return e; }

async function call(method, path, body) {
  const opt = {method, headers: {}};
  if (body !== undefined) { opt.headers["Content-Type"] = "application/json"; opt.body = typeof body === "string" ? body : JSON.stringify(body); }
  const r = await fetch(path, opt);
  const data = r.headers.get("content-type")?.includes("json") ? await r.json() : await r.text();
  if (!r.ok) { const e = new Error(data.error || ("HTTP " + r.status)); e.status = r.status; throw e; }
  return data;
}

function say(text, refused) { const m = $("message"); m.textContent = text || ""; m.className = refused ? "refused" : ""; }

function selectable(el, src) {
  el.addEventListener("click", (e) => { e.stopPropagation(); pick(src); });
  el.draggable = true;
  el.addEventListener("dragstart", (e) => { dragSrc = src; e.dataTransfer.setData("text/plain", src); });
  el.addEventListener("dblclick", (e) => { e.stopPropagation(); sel = null; send(src + ">F"); });
}
function droppable(el, dst) {
  el.addEventListener("dragover", (e) => e.preventDefault());
  el.addEventListener("drop", (e) => { e.preventDefault(); if (dragSrc) { const s = dragSrc; dragSrc = null; sel = null; send(s + ">" + dst); } });
}

function pick(src) {
  if (preview) return;
  if (sel === src) { sel = null; draw(); return; }
  const col = (x) => (x && x.startsWith("T") ? x.match(/^T(\d+)/)[1] : null);
  if (sel && col(src) && col(src) !== col(sel)) { const s = sel; sel = null; send(s + ">T" + col(src)); return; }
  sel = src; draw();
}
function target(dst) {
  if (preview) return;
  if (sel) { const s = sel; sel = null; send(s + ">" + dst); }
}

function draw() {
  const other = game.game && game.game !== "canfield";
  $("board").hidden = other; $("gboard").hidden = !other;
  $(other ? "gboard" : "board").classList.toggle("preview", !!preview);
  $("solution").hidden = $("hint").hidden = false; $("advice").hidden = true;
  if (other) drawGame(); else drawCanfield();
  drawSide();
}

function drawCanfield() {
  const f = preview ? preview.frames[preview.i] : game.frame;
  const stock = $("stock");
  stock.className = (f.s ? "card back" : "slot") + " target";
  stock.dataset.count = f.s;
  stock.setAttribute("aria-label", f.s ? "Stock: " + f.s + " cards; draw" : "Stock empty; redeal");
  $("stock-label").textContent = "stock " + f.s;
  const w = $("waste"); w.replaceChildren();
  if (!f.wv.length) w.appendChild(slot("empty waste"));
  f.wv.forEach((c, k) => {
    const top = k === f.wv.length - 1, e = cardEl(c, top && sel === "W" ? "selected" : "");
    if (top) { e.dataset.src = "W"; selectable(e, "W"); }
    w.appendChild(e);
  });
  $("waste-label").textContent = "waste " + f.w;
  const r = $("reserve"); r.replaceChildren();
  if (f.rt) { const e = cardEl(f.rt, sel === "R" ? "selected" : ""); e.dataset.src = "R"; selectable(e, "R"); r.appendChild(e); }
  else r.appendChild(slot("empty reserve"));
  $("reserve-label").textContent = "reserve " + f.r;
  const fd = $("foundations"); fd.replaceChildren();
  "CDHS".split("").forEach((s, k) => {
    const p = document.createElement("div"); p.className = "pile foundation"; p.dataset.suit = s;
    p.appendChild(f.ft[k] ? cardEl(f.ft[k], "") : slot("empty " + SUITS[s][1] + " foundation"));
    const l = document.createElement("span"); l.textContent = SUITS[s][0] + " " + f.f[k]; p.appendChild(l); fd.appendChild(p);
  });
  const t = $("tableau"); t.replaceChildren();
  f.t.forEach((col, c) => {
    const n = c + 1, box = document.createElement("div"); box.className = "col";
    const fan = document.createElement("div"); fan.className = "fan col-cards target"; fan.dataset.col = n;
    fan.setAttribute("role", "group"); fan.setAttribute("aria-label", "Column " + n + ", " + col.length + " cards");
    if (!col.length) fan.appendChild(slot("empty column " + n));
    col.forEach((code, k) => {
      const src = k === col.length - 1 ? "T" + n : (k === 0 ? "T" + n + "*" : "T" + n + ":" + (col.length - k));
      const on = sel === src || (sel === "T" + n + "*" && true) || (sel && sel.startsWith("T" + n + ":") && k >= col.length - +sel.split(":")[1]);
      const e = cardEl(code, on ? "selected" : "");
      e.dataset.src = src; selectable(e, src); fan.appendChild(e);
    });
    fan.addEventListener("click", () => target("T" + n)); droppable(fan, "T" + n);
    const l = document.createElement("span"); l.textContent = "T" + n;
    box.appendChild(fan); box.appendChild(l); t.appendChild(box);
  });
  $("status").textContent = (preview ? "Preview · " : "") + "pass " + f.p + " · " + f.sc + " of " + game.full + " cards home";
}

function drawSide() {
  if (preview) {
    $("step-at").textContent = preview.i; $("step-of").textContent = preview.moves.length;
    $("step-move").textContent = preview.i < preview.moves.length ? "· next: " + preview.moves[preview.i] : "· won";
    $("step-back").disabled = preview.i === 0; $("step-next").disabled = preview.i === preview.moves.length;
  }
  $("undo").disabled = !game.can_undo; $("redo").disabled = !game.can_redo;
  drawMeter();
  const ol = $("moves"); ol.replaceChildren();
  const lostAt = game.meter.state === "lost" ? game.meter.lost_at : null;
  (game.log || game.moves).forEach((m, i) => {
    const li = document.createElement("li"); li.textContent = m;
    if (lostAt === i + 1) { li.className = "lost"; li.textContent += " \u2014 this move lost the game"; }
    ol.appendChild(li);
  });
  ol.scrollTop = ol.scrollHeight;
}

function drawMeter() {
  const m = game.meter, box = $("meter");
  let cls = m.state, head, text = "";
  if (game.won) { cls = "won"; head = "Won"; text = game.unit ? "all " + game.full + " " + game.unit + "." : "all " + game.full + " cards are home."; }
  else if (m.state === "winnable") { head = "Winnable"; text = game.game === "suit-neighbours" ? "this deal wins: four cards are left after round 3." : "this position can still be won."; }
  else if (m.state === "lost") {
    head = "Lost";
    if (m.lost_at === 0) text = game.game === "suit-neighbours" ? "this deal cannot be won: it leaves more than four cards after round 3." : "this deal cannot be won, whatever you play.";
    else if (m.lost_at) text = "move " + m.lost_at + " (" + game.moves[m.lost_at - 1] + ") threw the win away.";
    else if (m.lost_between) text = "the game was lost between moves " + m.lost_between[0] + " and " + m.lost_between[1] + ".";
    else text = "this position cannot be won.";
  } else if (m.state === "pending") { cls = "pending"; head = "Not yet known"; text = "searching\u2026"; }
  else { head = "Not yet known"; text = m.why || "the search stopped at its limit."; }
  box.className = "meter " + cls; box.dataset.state = game.won ? "won" : m.state;
  $("meter-state").textContent = head; $("meter-text").textContent = text;
  const a = $("alert");
  if (game.game && game.game !== "canfield" && game.stalled) { a.hidden = false; a.dataset.kind = "stalled"; a.textContent = game.game === "suit-neighbours" ? "The game is over: " + game.board.note + "." : "Stalled: no move is left. Undo, or start another deal."; }
  else if (m.state === "lost" && m.stalled) { a.hidden = false; a.dataset.kind = "stalled"; a.textContent = "Stalled: no card can ever reach a foundation or leave the reserve or the waste again (SPEC \u00a73). Undo, or start another deal."; }
  else if (game.circle !== null && game.circle !== undefined) { a.hidden = false; a.dataset.kind = "circle"; a.textContent = "You are going round in circles: this position was reached after move " + game.circle + ", with no progress since."; }
  else { a.hidden = true; a.dataset.kind = ""; a.textContent = ""; }
}

function show(state) {
  const another = !game || game.id !== state.id;  // a new game, not a new reading of the one shown
  game = state;
  const url = new URL(location.href); url.searchParams.set("game", game.id); history.replaceState(null, "", url);
  const name = GAME_TITLES[game.game || "canfield"];
  $("title").textContent = name + " \u00b7 " + game.label + ((game.game || "canfield") === "canfield" && game.rules !== "canfield" ? " \u00b7 " + game.rules : "");
  document.title = name + ": play";
  if (another) $("game-name").value = game.game || "canfield";  // a reading of this game leaves the chooser alone
  $("export").href = "/api/games/" + game.id + "/export"; $("replay").href = "/api/games/" + game.id + "/replay";
  draw();
  clearTimeout(polling);
  if (game.meter.state === "pending") polling = setTimeout(refresh, 120);
}
// The meter's reading, asked for until it comes. A newer position (the game moved in another tab) is shown;
// an older one (an answer overtaken by a move of this page) is dropped, the move's own polling goes on. A
// request that fails (a dropped connection, a busy server) is asked again a second later: the reading
// would otherwise never come, and the meter would say "searching" for good.
async function refresh() {
  const id = game.id;
  try {
    const s = await call("GET", "/api/games/" + id);
    if (game.id === id && s.generation >= game.generation) show(s);
  } catch (e) {
    if (game.id !== id) return;
    if (e.status === 404) { say(e.message, true); return; }
    say("the server did not answer (" + e.message + "); asking again", true);
    clearTimeout(polling);
    polling = setTimeout(refresh, 1000);
  }
}
async function send(move) {
  try { show(await call("POST", "/api/games/" + game.id + "/moves", {move})); say("played " + move); }
  catch (e) { say("refused: " + e.message, true); draw(); }
}
async function act(what) {
  try { show(await call("POST", "/api/games/" + game.id + "/" + what)); say(""); }
  catch (e) { say(e.message, true); }
}

$("stock").addEventListener("click", () => { if (!preview) { sel = null; send(game.frame.s ? "draw" : "redeal"); } });
$("stock").addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") $("stock").click(); });
$("foundations").addEventListener("click", () => target("F")); droppable($("foundations"), "F");
$("undo").addEventListener("click", () => act("undo"));
$("redo").addEventListener("click", () => act("redo"));
$("hint").addEventListener("click", async () => {
  try { const h = await call("GET", "/api/games/" + game.id + "/hint"); say(h.hint ? "hint: " + h.hint.join(", ") : h.why); }
  catch (e) { say(e.message, true); }
});
$("solution").addEventListener("click", async () => {
  try {
    const s = await call("GET", "/api/games/" + game.id + "/solution");
    preview = {moves: s.moves, frames: s.frames, i: 0}; sel = null; $("stepper").hidden = false; draw();
  } catch (e) { say(e.message, true); }
});
$("step-back").addEventListener("click", () => { preview.i = Math.max(0, preview.i - 1); draw(); });
$("step-next").addEventListener("click", () => { preview.i = Math.min(preview.moves.length, preview.i + 1); draw(); });
$("step-close").addEventListener("click", () => { preview = null; $("stepper").hidden = true; draw(); });
document.addEventListener("keydown", (e) => {
  if (e.target.tagName === "INPUT") return;
  if (e.key === "Escape") { sel = null; draw(); }
  if ((e.ctrlKey || e.metaKey) && e.key === "z") { e.preventDefault(); act(e.shiftKey ? "redo" : "undo"); }
});
$("new").addEventListener("submit", async (e) => {
  e.preventDefault();
  const kind = $("numbering").value, raw = $("number").value.trim(), name = $("game-name").value;
  if (!/^\d+$/.test(raw)) { say("a deal number is a whole number", true); return; }
  if (name !== "canfield" && kind !== "seed") { say("PySolFC game numbers are Canfield's: choose seed", true); return; }
  const body = name === "canfield" ? (kind === "seed" ? '{"seed": ' + raw + "}" : {pysolfc: raw}) : '{"game": "' + name + '", "seed": ' + raw + "}";
  try { preview = null; gsel = null; snStop(); $("stepper").hidden = true; show(await call("POST", "/api/games", body)); say(""); }
  catch (err) { say(err.message, true); }
});

// The game the address names, or a new one where it names none or the server no longer has it (404). Any
// other failure is not a lost game: asked again, a few times, before the page says so.
(async function start() {
  const id = new URL(location.href).searchParams.get("game");
  for (let tries = 1; ; tries++) {
    try { show(id ? await call("GET", "/api/games/" + id) : await call("POST", "/api/games", {})); return; }
    catch (e) {
      if (id && e.status === 404) {
        try { show(await call("POST", "/api/games", {})); } catch (e2) { say(e2.message, true); }
        return;
      }
      if (tries >= 5) { say(e.message, true); return; }
      await new Promise((done) => setTimeout(done, 500 * tries));
    }
  }
})();
