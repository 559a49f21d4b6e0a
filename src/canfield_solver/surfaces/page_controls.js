// Shared by replay_page.html and game_page.html: card drawing helpers and the player controls.
const SUITS = {C: ["\u2663", "clubs", "black"], D: ["\u2666", "diamonds", "red"], H: ["\u2665", "hearts", "red"], S: ["\u2660", "spades", "black"]};
const RANKS = {A: "ace", J: "jack", Q: "queen", K: "king"};
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
let cur = 0, timer = null;
function go(i) { cur = Math.max(0, Math.min(N, i)); draw(cur); if (cur === N) stop(); }
function stop() { if (timer) { clearInterval(timer); timer = null; } $("play").textContent = "\u25B6 Play"; $("play").setAttribute("aria-label", "Play"); }
function play() {
  if (timer) return stop();
  if (cur === N) go(0);
  timer = setInterval(() => go(cur + 1), +$("speed").value);
  $("play").textContent = "\u2016 Pause"; $("play").setAttribute("aria-label", "Pause");
}
function wire() {
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
}
