// ttt-engine page: plain JavaScript, no build step. The game is a list of move
// numbers kept here; the server replays it for every request.
"use strict";

const $ = (sel) => document.querySelector(sel);
const S = {
  games: {}, caps: {}, game: "ttt", options: {},
  moves: [], cursor: 0,          // all moves played, and how many are shown
  pos: null, human: 0,           // position shown; the human's side index
  selected: null, gen: 0, watching: false, pending: 0,
};

// ------------------------------------------------------------------ requests
async function api(path, body) {
  const init = body === undefined ? {} : {
    method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)};
  let resp;
  try {
    resp = await fetch(path, init);
  } catch (e) {
    throw new Error("the server cannot be reached (is ttt-engine serve still running?)");
  }
  let data = null;
  try { data = await resp.json(); } catch (e) { data = null; }
  if (!resp.ok) throw new Error((data && data.error) || `HTTP ${resp.status}`);
  return data;
}

// server-sent events read from a POST response: calls onEvent(data) per event
async function apiStream(path, body, onEvent) {
  const resp = await fetch(path, {method: "POST", headers: {"Content-Type": "application/json"},
                                  body: JSON.stringify(body)});
  if (!resp.ok) {
    let data = null;
    try { data = await resp.json(); } catch (e) { data = null; }
    throw new Error((data && data.error) || `HTTP ${resp.status}`);
  }
  const reader = resp.body.getReader();
  const dec = new TextDecoder();
  let buf = "";
  for (;;) {
    const {value, done} = await reader.read();
    if (done) break;
    buf += dec.decode(value, {stream: true});
    let i;
    while ((i = buf.indexOf("\n\n")) >= 0) {
      const chunk = buf.slice(0, i); buf = buf.slice(i + 2);
      const line = chunk.split("\n").find((l) => l.startsWith("data: "));
      if (!line) continue;
      const data = JSON.parse(line.slice(6));
      if (data.error) throw new Error(data.error);
      onEvent(data);
    }
  }
}

function busy(delta) {
  S.pending += delta;
  document.body.classList.toggle("busy", S.pending > 0);
  document.body.dataset.busy = S.pending > 0 ? "1" : "0";
}

function showError(msg) {
  const el = $("#error");
  if (!msg) { el.hidden = true; el.textContent = ""; return; }
  el.textContent = String(msg).split("\n")[0];
  el.hidden = false;
}

async function guarded(fn) {
  busy(1);
  try { showError(null); await fn(); } catch (e) { showError(e.message); } finally { busy(-1); }
}

// ------------------------------------------------------------------ settings
function gameInfo() { return S.games[S.game]; }

function engineSelect(sel, names, value) {
  sel.innerHTML = "";
  for (const e of gameInfo().engines) {
    const o = document.createElement("option");
    o.value = e.name; o.textContent = e.name; o.title = e.help;
    sel.appendChild(o);
  }
  sel.value = names.includes(value) ? value : gameInfo().default_engine;
}

function budgetInputs(box) {
  const name = box.querySelector(".name").value;
  const eng = gameInfo().engines.find((e) => e.name === name);
  const span = box.querySelector(".budgets");
  const old = {};
  span.querySelectorAll("input").forEach((i) => { old[i.dataset.budget] = i.value; });
  span.innerHTML = "";
  const place = {simulations: "20000", time: "s", depth: "default"};
  for (const b of eng.budgets) {
    const l = document.createElement("label");
    l.textContent = b + " ";
    const i = document.createElement("input");
    i.type = "number"; i.dataset.budget = b; i.min = b === "time" ? "0.01" : "1";
    i.step = b === "time" ? "0.1" : "1"; i.placeholder = place[b];
    i.max = String(S.caps[b]); i.value = old[b] || "";
    l.appendChild(i); span.appendChild(l);
  }
}

function budgets(box) {
  const out = {};
  box.querySelectorAll(".budgets input").forEach((i) => {
    if (i.value !== "") out[i.dataset.budget] = Number(i.value);
  });
  return out;
}

function seed() {
  const v = $("#seed").value;
  return v === "" ? null : Number(v);
}

function request(extra) {
  return Object.assign({game: S.game, options: S.options, moves: S.moves.slice(0, S.cursor)},
                       extra || {});
}

function engineRequest(box) {
  return request({engine: box.querySelector(".name").value, budgets: budgets(box), seed: seed()});
}

function setGame(key) {
  S.game = key;
  const g = gameInfo();
  const opts = $("#options");
  opts.innerHTML = "";
  S.options = {};
  for (const [k, v] of Object.entries(g.options)) {
    const l = document.createElement("label");
    l.textContent = k.replace("_", " ") + " ";
    const i = document.createElement("input");
    if (typeof v === "boolean") { i.type = "checkbox"; i.checked = v; }
    else { i.type = "number"; i.value = v; i.style.width = "4em"; }
    i.dataset.option = k;
    i.addEventListener("change", () => newGame());
    l.appendChild(i); opts.appendChild(l);
  }
  const side = $("#side");
  side.innerHTML = "";
  g.sides.forEach((s, idx) => {
    const o = document.createElement("option"); o.value = String(idx); o.textContent = s;
    side.appendChild(o);
  });
  S.human = 0;
  for (const [box, sel] of [["#engine-a", "#engine"], ["#engine-b", "#engine2"],
                            ["#engine-an", "#an-engine"]]) {
    engineSelect($(sel), [], g.default_engine);
    budgetInputs($(box));
  }
  $("#legend").textContent = g.legend.split("\n").filter((l) => !l.includes("q quits"))
    .join("\n");
  $("#hint").textContent = g.hint;
}

function readOptions() {
  S.options = {};
  document.querySelectorAll("#options input").forEach((i) => {
    S.options[i.dataset.option] = i.type === "checkbox" ? i.checked : Number(i.value);
  });
}

// ------------------------------------------------------------------ drawing
function render(pos) {
  S.pos = pos;
  S.selected = null;
  $("#board").innerHTML = pos.svg;
  const cells = $("#cells");
  cells.innerHTML = "";
  cells.style.gridTemplateRows = `repeat(${pos.rows}, 1fr)`;
  cells.style.gridTemplateColumns = `repeat(${pos.cols}, 1fr)`;
  const starts = new Set(pos.legal.map((m) => m.from.join(",")));
  const mine = humanToMove();
  for (let r = 0; r < pos.rows; r++) {
    for (let c = 0; c < pos.cols; c++) {
      const b = document.createElement("button");
      b.type = "button"; b.className = "cell"; b.dataset.r = r; b.dataset.c = c;
      b.setAttribute("aria-label", `row ${r + 1}, column ${c + 1}`);
      b.disabled = !mine || !(starts.has(`${r},${c}`));
      b.addEventListener("click", () => clickCell(r, c));
      cells.appendChild(b);
    }
  }
  $("#dirs").hidden = true;
  $("#status").textContent = pos.status;
  document.body.dataset.winner = pos.winner || "";
  document.body.dataset.ply = String(pos.ply);
  renderMoveList();
}

function renderMoveList() {
  const ol = $("#movelist");
  ol.innerHTML = "";
  const texts = S.allTexts || [];
  texts.forEach((t, i) => {
    const li = document.createElement("li");
    li.textContent = t;
    li.dataset.ply = String(i + 1);
    if (i + 1 === S.cursor) li.className = "current";
    else if (i + 1 > S.cursor) li.className = "future";
    li.addEventListener("click", () => goTo(i + 1));
    ol.appendChild(li);
  });
}

function humanToMove() {
  const p = S.pos;
  if (!p || p.to_move === null || S.watching || $("#mode").value !== "play") return false;
  return p.to_move === p.sides[S.human];
}

function cellButton(r, c) { return $(`#cells button[data-r="${r}"][data-c="${c}"]`); }

function clickCell(r, c) {
  if (!humanToMove()) return;
  const legal = S.pos.legal;
  if (S.selected) {                       // a second click: a Clobber capture
    const [sr, sc] = S.selected;
    const m = legal.find((x) => x.from[0] === sr && x.from[1] === sc && x.to &&
                               x.to[0] === r && x.to[1] === c);
    if (m) { playMove(m.move); return; }
    clearSelection();
    if (sr === r && sc === c) return;
  }
  const here = legal.filter((x) => x.from[0] === r && x.from[1] === c);
  if (here.length === 0) return;
  if (here.length === 1 && !here[0].to && !here[0].dir) { playMove(here[0].move); return; }
  S.selected = [r, c];
  cellButton(r, c).classList.add("selected");
  if (here[0].dir) {                      // Quixo: pick the end it is pushed in from
    const dirs = $("#dirs");
    dirs.innerHTML = "";
    const words = {T: "top", B: "bottom", L: "left", R: "right"};
    for (const m of here) {
      const b = document.createElement("button");
      b.type = "button"; b.dataset.dir = m.dir; b.dataset.move = m.move;
      b.textContent = `push in from the ${words[m.dir]} (${m.text})`;
      b.addEventListener("click", () => playMove(m.move));
      dirs.appendChild(b);
    }
    dirs.hidden = false;
  } else {
    for (const m of here) {
      const t = cellButton(m.to[0], m.to[1]);
      t.disabled = false; t.classList.add("target");
    }
  }
}

function clearSelection() {
  S.selected = null;
  document.querySelectorAll("#cells button.selected, #cells button.target")
    .forEach((b) => b.classList.remove("selected", "target"));
  $("#dirs").hidden = true;
  if (S.pos) render(S.pos);
}

function drawAnalysis(a) {
  $("#an-view").hidden = false;
  $("#an-board").innerHTML = a.svg;
  const ev = a.evaluation;
  $("#evalfill").style.height = ev === null ? "50%" : `${(50 + 50 * ev).toFixed(1)}%`;
  $("#evalbar").dataset.evaluation = ev === null ? "" : String(ev);
  $("#an-title").textContent =
    `${a.engine} for ${a.side}` + (a.done ? "" : " (searching...)") +
    (a.stats && a.stats.simulations ? `: ${a.stats.simulations.toLocaleString()} simulations` : "") +
    (a.stats && a.stats.exact ? ": exact, to the end" :
     a.stats && a.stats.depth ? `: depth ${a.stats.depth}` : "");
  $("#an-best").textContent = a.best_text === null ? "" :
    `Best: ${a.best_text}` + (a.evaluation_text ? ` (${a.evaluation_text})` : "") +
    (a.alternatives.length ? `; close: ${a.rows.filter((r) => a.alternatives.includes(r.move))
                                           .map((r) => r.text).join(", ")}` : "");
  const cols = [["move", (r) => r.text], ["score", (r) => fmt(r.score, 3, true)],
                ["visits", (r) => r.visits === null ? "" : r.visits.toLocaleString()],
                ["value", (r) => (r.verdict && Math.abs(r.value) >= 1e6 ? "" : fmt(r.value, 4))],
                ["observations", (r) => r.observations === null ? "" : String(r.observations)],
                ["verdict", (r) => r.verdict || ""], ["pv", (r) => r.pv.join(" ")]]
    .filter(([h, f]) => h === "move" || h === "score" || a.rows.some((r) => f(r) !== ""));
  $("#an-table thead").innerHTML =
    "<tr>" + cols.map(([h]) => `<th>${h}</th>`).join("") + "</tr>";
  const body = $("#an-table tbody");
  body.innerHTML = "";
  for (const r of a.rows) {
    const tr = document.createElement("tr");
    tr.dataset.move = String(r.move);
    if (r.move === a.best_move) tr.className = "best";
    else if (a.alternatives.includes(r.move)) tr.className = "alt";
    for (const [h, f] of cols) {
      const td = document.createElement("td");
      td.className = h; td.textContent = f(r);
      tr.appendChild(td);
    }
    body.appendChild(tr);
  }
  document.body.dataset.analysis = a.done ? "done" : "running";
}

function fmt(v, digits, sign) {
  if (v === null || v === undefined) return "";
  if (Math.abs(v) >= 1e6) return v.toExponential(2);
  const t = v.toFixed(digits);
  return sign && v > 0 ? "+" + t : t;
}

// ------------------------------------------------------------------ game flow
async function refresh(extra) {
  const gen = S.gen;
  const pos = await api("/api/position", request(extra));
  if (gen !== S.gen) return null;
  return pos;
}

function adopt(pos) {
  // the server's position after the shown moves (plus one played): keep history
  const n = pos.moves.length;
  const same = S.moves.slice(0, n).every((m, i) => m === pos.moves[i]);
  if (!same || n > S.moves.length) { S.moves = pos.moves.slice(); S.allTexts = pos.texts.slice(); }
  S.cursor = n;
  render(pos);
}

async function playMove(m) {
  await guarded(async () => {
    S.moves = S.moves.slice(0, S.cursor);
    S.allTexts = (S.allTexts || []).slice(0, S.cursor);
    const pos = await refresh({play: m});
    if (pos) { adopt(pos); }
  });
  $("#move-text").value = "";
  await maybeEngine();
}

async function engineMove(box) {
  const gen = S.gen;
  S.moves = S.moves.slice(0, S.cursor);
  S.allTexts = (S.allTexts || []).slice(0, S.cursor);
  const res = await api("/api/engine-move", engineRequest(box));
  if (gen !== S.gen) return false;
  drawAnalysis(Object.assign(res.analysis, {done: true}));
  adopt(res.position);
  return true;
}

async function maybeEngine() {
  if ($("#mode").value !== "play" || !S.pos || S.pos.to_move === null) return;
  if (S.cursor < S.moves.length) return;                 // looking back: no engine move
  if (S.pos.to_move === S.pos.sides[S.human]) return;
  await guarded(() => engineMove($("#engine-a")));
}

async function watchLoop() {
  const gen = S.gen;
  while (S.watching && gen === S.gen && S.pos && S.pos.to_move !== null) {
    const box = S.pos.to_move === S.pos.sides[0] ? $("#engine-a") : $("#engine-b");
    let ok = true;
    await guarded(async () => { ok = await engineMove(box); }).catch(() => { ok = false; });
    if (!ok || !$("#error").hidden) break;
  }
  if (gen === S.gen) setWatching(false);
}

function setWatching(on) {
  S.watching = on;
  $("#watch").textContent = on ? "Stop" : "Start";
  if (S.pos) render(S.pos);
}

async function newGame() {
  S.gen++;
  setWatching(false);
  readOptions();
  S.moves = []; S.allTexts = []; S.cursor = 0;
  await guarded(async () => { const pos = await refresh(); if (pos) adopt(pos); });
  $("#an-board").innerHTML = ""; $("#an-table tbody").innerHTML = "";
  $("#an-table thead").innerHTML = ""; $("#an-view").hidden = true;
  $("#an-title").textContent = ""; $("#an-best").textContent = "";
  $("#solve-result").textContent = "";
  await maybeEngine();
}

async function goTo(ply) {
  S.gen++;
  setWatching(false);
  S.cursor = ply;
  await guarded(async () => { const pos = await refresh(); if (pos) render(pos); });
}

async function undo() {
  S.gen++;
  setWatching(false);
  if (S.cursor === 0) return;
  // back to the human's last turn (two plies against an engine, one when watching)
  let target = S.cursor - 1;
  if ($("#mode").value === "play" && target > 0) {
    await guarded(async () => {
      S.cursor = target;
      const pos = await refresh();
      if (pos && pos.to_move !== pos.sides[S.human]) target -= 1;
    });
  }
  S.cursor = Math.max(0, target);
  S.moves = S.moves.slice(0, S.cursor);
  S.allTexts = (S.allTexts || []).slice(0, S.cursor);
  await guarded(async () => { const pos = await refresh(); if (pos) render(pos); });
}

async function flip() {
  S.gen++;
  S.human = 1 - S.human;
  $("#side").value = String(S.human);
  if (S.pos) render(S.pos);
  await maybeEngine();
}

async function analyse() {
  const box = $("#engine-an");
  const body = engineRequest(box);
  await guarded(async () => {
    if (S.pos && S.pos.to_move === null) throw new Error("the game is over: nothing to analyse");
    if (body.budgets.time !== undefined) {
      body.stream = true;
      document.body.dataset.analysis = "running";
      await apiStream("/api/analyse", body, drawAnalysis);
    } else {
      document.body.dataset.analysis = "running";
      drawAnalysis(await api("/api/analyse", body));
    }
  });
}

async function solve() {
  await guarded(async () => {
    const r = await api("/api/solve", request());
    const words = {win: "a win", loss: "a loss", draw: "a draw",
                   unknown: "unknown (the time limit came first)"};
    let text = `For ${r.side}: ${words[r.value]}`;
    if (r.plies !== null && r.value !== "unknown") text += ` in ${r.plies} plies`;
    if (r.best_text) text += `; a move that keeps it: ${r.best_text}`;
    text += ` (${r.nodes.toLocaleString()} positions, ${r.seconds.toFixed(2)} s)`;
    $("#solve-result").textContent = text;
    $("#solve-result").dataset.value = r.value;
  });
}

// ------------------------------------------------------------------ start
async function start() {
  busy(0);
  let info;
  try { info = await api("/api/games"); } catch (e) { showError(e.message); return; }
  S.caps = info.caps;
  for (const g of info.games) {
    S.games[g.key] = g;
    const o = document.createElement("option");
    o.value = g.key; o.textContent = g.title;
    $("#game").appendChild(o);
  }
  setGame("ttt");
  $("#game").addEventListener("change", () => { setGame($("#game").value); newGame(); });
  $("#mode").addEventListener("change", () => {
    const watch = $("#mode").value === "watch";
    $("#engine-b").hidden = !watch; $("#watch").hidden = !watch;
    $("#side-label").hidden = watch;
    $("#engine-a .who").textContent = watch ? "First engine" : "Opponent";
    S.gen++; setWatching(false);
    maybeEngine();
  });
  $("#side").addEventListener("change", () => {
    S.human = Number($("#side").value); if (S.pos) render(S.pos); maybeEngine();
  });
  for (const box of ["#engine-a", "#engine-b", "#engine-an"]) {
    $(box + " .name").addEventListener("change", () => budgetInputs($(box)));
  }
  $("#new").addEventListener("click", newGame);
  $("#undo").addEventListener("click", undo);
  $("#flip").addEventListener("click", flip);
  $("#watch").addEventListener("click", () => {
    if (S.watching) { S.gen++; setWatching(false); return; }
    setWatching(true); watchLoop();
  });
  $("#analyse").addEventListener("click", analyse);
  $("#solve").addEventListener("click", solve);
  $("#move-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const t = $("#move-text").value.trim();
    if (t) playMove(t);
  });
  await newGame();
  document.body.dataset.ready = "1";
}

start();
