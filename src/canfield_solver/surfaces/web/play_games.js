// The play page's boards for the other games of docs/games-spec.md (nine-packets, aces-and-kings, bisley, suit-neighbours,
// ten-columns, ten-columns-dealt): the server sends each position as rows of piles (the replay pages'
// frames), and a click, a second click or a drag becomes the game's own move text. play.js holds the
// game, sends the moves and draws the side (meter, moves, undo, hint, solution).
"use strict";
const GAME_TITLES = {"canfield": "Canfield", "nine-packets": "Nine packets", "aces-and-kings": "Aces and kings",
  "bisley": "Bisley", "suit-neighbours": "Suit neighbours", "ten-columns": "Ten columns", "ten-columns-dealt": "Ten columns, dealt"};
let gsel = null, snTimer = null;

function gameKind() { return game.game === "bisley" ? "aces-and-kings" : (game.game === "ten-columns-dealt" ? "ten-columns" : game.game); }

function backCard() { const e = document.createElement("span"); e.className = "card back"; e.setAttribute("role", "img"); e.setAttribute("aria-label", "face-down card"); return e; }

// The move a click on pile `id` makes, given the pile selected before (gsel), or null (the click selects).
function gameMove(id) {
  const kind = gameKind();
  if (kind === "nine-packets") return gsel && gsel !== id ? gsel + "+" + id : null;
  if (kind === "aces-and-kings") {
    if (!gsel || gsel === id) return null;
    if (id[0] === "A") return gsel + ">A";
    if (id[0] === "K") return gsel + ">K";
    return gsel + ">" + id;
  }
  if (kind === "ten-columns") {
    if (!gsel || gsel === id) return null;
    if (game.board.rows.some((r) => r.piles.some((p) => p.id === "place"))) return "place " + gsel.slice(1) + " " + id.slice(1);
    return gsel + "+" + id;
  }
  return null;
}

function gameClick(id, free) {
  if (preview || game.won) return;
  const kind = gameKind(), placing = kind === "ten-columns" && game.board.rows.some((r) => r.piles.some((p) => p.id === "place"));
  if (gsel === id) { gsel = null; draw(); return; }
  const mv = gameMove(id);
  if (mv) { gsel = null; send(mv); return; }
  // Only a pile a move can start from is selected: a packet's top, a column's free card (any column
  // while the last two cards wait to be placed).
  if (id[0] === "A" || id[0] === "K" || id === "place" || (!free && !placing)) { say("refused: pick a " + (kind === "nine-packets" ? "packet's top card" : "column's free card") + " first", true); return; }
  gsel = id; draw();
}

function gameDouble(id) {
  if (preview || gameKind() !== "aces-and-kings") return;
  const home = game.legal.find((m) => m === id + ">A" || m === id + ">K");
  gsel = null;
  if (home) send(home); else say("refused: " + id + "'s free card goes to no foundation now", true);
}

function drawGame() {
  const f = preview ? preview.frames[preview.i] : game.board, marks = new Set(f.mark || []);
  const rows = $("grows"); rows.replaceChildren();
  rows.dataset.game = game.game;
  const placing = f.rows.some((r) => r.piles.some((p) => p.id === "place"));
  f.rows.forEach((row) => {
    const r = document.createElement("div"); r.className = (row.line ? "line" : "row") + (row.kind ? " " + row.kind : "");
    if (gameKind() === "nine-packets") r.classList.add("pyramid");
    row.piles.forEach((p) => {
      const box = document.createElement("div"); box.className = "pile"; box.dataset.pile = p.id;
      const fan = document.createElement("div"); fan.className = (p.fan ? "fan" : "stack") + " target"; fan.dataset.pile = p.id;
      fan.setAttribute("role", "group"); fan.setAttribute("aria-label", (p.label || "card") + ", " + (p.cards.length + (p.down || 0)) + " cards");
      for (let k = 0; k < (p.down || 0); k++) fan.appendChild(backCard());
      if (!p.cards.length && !p.down) fan.appendChild(slot("empty " + p.label));
      p.cards.forEach((c, k) => {
        const top = k === p.cards.length - 1, mine = gsel === p.id && top;
        const e = cardEl(c, (mine ? "selected" : "") + (marks.has(p.id) && top ? " moving" : ""));
        if (top && !row.line) {
          e.dataset.src = p.id;
          e.addEventListener("click", (ev) => { ev.stopPropagation(); gameClick(p.id, true); });
          e.addEventListener("dblclick", (ev) => { ev.stopPropagation(); gameDouble(p.id); });
          e.draggable = gameKind() === "aces-and-kings";
          e.addEventListener("dragstart", (ev) => { gsel = p.id; ev.dataTransfer.setData("text/plain", p.id); });
        }
        fan.appendChild(e);
      });
      if (!row.line) {
        fan.addEventListener("click", () => gameClick(p.id, false));
        fan.addEventListener("dragover", (ev) => ev.preventDefault());
        fan.addEventListener("drop", (ev) => { ev.preventDefault(); if (gsel && gsel !== p.id) gameClick(p.id, false); });
      }
      box.appendChild(fan);
      const label = p.label + (p.down ? " \u00b7 " + p.down + " down" : "");
      if (label) { const l = document.createElement("span"); l.textContent = label; box.appendChild(l); }
      r.appendChild(box);
    });
    rows.appendChild(r);
  });
  let st = (preview ? "Preview \u00b7 " : "") + f.sc + " of " + game.full + " " + game.unit + (f.note ? " \u00b7 " + f.note : "");
  if (!preview && placing) st += " \u00b7 place the last two cards: click the column for the first, then the column for the second";
  if (!preview && game.game === "suit-neighbours" && game.laid) st += " \u00b7 laid " + game.laid + (game.removed.length ? ": " + game.removed.join("; ") : ": nothing removed");
  $("gstatus").textContent = st;
  const sn = game.game === "suit-neighbours";
  $("sn-controls").hidden = !sn;
  if (sn) { $("sn-step").disabled = $("sn-play").disabled = !!game.over; $("sn-pause").disabled = !snTimer; }
  $("advice").hidden = game.game !== "nine-packets";
  $("solution").hidden = sn;
  $("hint").hidden = sn;
}

function snStop() { clearInterval(snTimer); snTimer = null; }
$("sn-step").addEventListener("click", () => { snStop(); send("step"); });
$("sn-play").addEventListener("click", () => {
  snStop();
  snTimer = setInterval(() => { if (!game.over) send("step"); else { snStop(); draw(); } }, 120);
  draw();
});
$("sn-pause").addEventListener("click", () => { snStop(); draw(); });
$("advice").addEventListener("click", () => say(game.advice ? "the page's advice: " + game.advice + " (take the pair with face-down cards beneath first)" : "no pair to take"));
