// ttt-engine page: plain JavaScript, no build step. The game is a list of move
// numbers kept here; the server replays it for every request. This file holds
// the state, the requests, the board and the game flow, and starts the page;
// analysis.js (the analysis view) and records.js (game records) are loaded
// before it (index.html) and share its globals.
"use strict";

const $ = (sel) => document.querySelector(sel);
const S = {
  games: {}, caps: {}, game: null, options: {},
  moves: [], cursor: 0,          // all moves played, and how many are shown
  pos: null, human: 0,           // position shown; the human's side index
  selected: null, gen: 0, watching: false, pending: 0,
  start: null,                   // the first position's text (null: a new board)
  evals: {}, notes: {},          // per ply: evaluation for the first side; review notes
  live: null, liveKey: "",       // the running live analysis (AbortController) and its position
  asked: null,                   // "Analyse this position" while it runs (AbortController, .key)
  solving: null,                 // "Solve this position" while it runs (AbortController, .key)
  flipped: false,
};

// ------------------------------------------------------------------ requests
async function api(path, body, signal) {
  const init = body === undefined ? {} : {
    method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body),
    signal};
  let resp;
  try {
    resp = await fetch(path, init);
  } catch (e) {
    if (e.name === "AbortError") throw e;
    throw new Error("the server cannot be reached (is ttt-engine serve still running?)");
  }
  let data = null;
  try { data = await resp.json(); } catch (e) { data = null; }
  if (!resp.ok) throw new Error((data && data.error) || `HTTP ${resp.status}`);
  return data;
}

// server-sent events read from a POST response: calls onEvent(data) per event
async function apiStream(path, body, onEvent, signal) {
  let resp;
  try {
    resp = await fetch(path, {method: "POST", headers: {"Content-Type": "application/json"},
                              body: JSON.stringify(body), signal});
  } catch (e) {
    if (e.name === "AbortError") return;
    throw new Error("the server cannot be reached (is ttt-engine serve still running?)");
  }
  if (!resp.ok) {
    let data = null;
    try { data = await resp.json(); } catch (e) { data = null; }
    throw new Error((data && data.error) || `HTTP ${resp.status}`);
  }
  const reader = resp.body.getReader();
  const dec = new TextDecoder();
  let buf = "";
  for (;;) {
    let chunk;
    try { chunk = await reader.read(); } catch (e) {
      if (e.name === "AbortError") return;
      throw e;
    }
    const {value, done} = chunk;
    if (done) break;
    buf += dec.decode(value, {stream: true});
    let i;
    while ((i = buf.indexOf("\n\n")) >= 0) {
      const event = buf.slice(0, i); buf = buf.slice(i + 2);
      const line = event.split("\n").find((l) => l.startsWith("data: "));
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
  return Object.assign({game: S.game, options: S.options, start: S.start,
                        moves: S.moves.slice(0, S.cursor)}, extra || {});
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
  // the moves were the other game's: nothing (the live analysis first) may replay them here
  S.moves = []; S.allTexts = []; S.cursor = 0; S.start = null;
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
  $("#legend").textContent = pageLegend(g.legend);
  $("#hint").textContent = g.hint;
}

// the console's legend without what only the console has (its prompt keys, the *
// of its text board); the page marks the legal moves with dots instead
function pageLegend(text) {
  const sentences = text.replace(/\n/g, " ").split(/(?<=[.;])\s+/);
  return sentences.filter((t) => !t.includes("q quits") && !t.includes("*"))
    .join(" ").replace(/;\s*$/, ".") + " Dots mark the legal moves.";
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
      if (!b.disabled) b.classList.add("legal");
      b.addEventListener("click", () => clickCell(r, c));
      cells.appendChild(b);
    }
  }
  $("#dirs").hidden = true;
  $("#status").textContent = pos.status;
  document.body.dataset.winner = pos.winner || "";
  document.body.dataset.ply = String(pos.ply);
  if (pos.winner) S.evals[pos.ply] = pos.winner === "draw" ? 0 : pos.winner === pos.sides[0] ? 1 : -1;
  renderMoveList();
  drawGraph();
  showRecord(pos);
  followPosition();
}

function renderMoveList() {
  const ol = $("#movelist");
  ol.innerHTML = "";
  const texts = S.allTexts || [];
  const signs = {mistake: "?", blunder: "??"};
  texts.forEach((t, i) => {
    const li = document.createElement("li");
    const note = S.notes[i + 1];
    li.textContent = t + (note && note.mark ? signs[note.mark] : "");
    li.dataset.ply = String(i + 1);
    if (note && note.mark) {
      li.classList.add(note.mark);
      li.title = noteText(note);
    }
    if (i + 1 === S.cursor) li.classList.add("current");
    else if (i + 1 > S.cursor) li.classList.add("future");
    li.addEventListener("click", () => goTo(i + 1));
    ol.appendChild(li);
  });
  const cur = ol.querySelector("li.current");
  if (cur && cur.scrollIntoView) cur.scrollIntoView({block: "nearest"});
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
  forget(S.cursor);
  await guarded(async () => {
    S.moves = S.moves.slice(0, S.cursor);
    S.allTexts = (S.allTexts || []).slice(0, S.cursor);
    const pos = await refresh({play: m});
    if (pos) { adopt(pos); }
  });
  $("#move-text").value = "";
  await maybeEngine();
}

// the evaluations and notes after ply are of moves that are gone
function forget(ply) {
  for (const k of Object.keys(S.evals)) if (Number(k) > ply) delete S.evals[k];
  for (const k of Object.keys(S.notes)) if (Number(k) > ply) delete S.notes[k];
}

async function engineMove(box) {
  const gen = S.gen;
  S.moves = S.moves.slice(0, S.cursor);
  S.allTexts = (S.allTexts || []).slice(0, S.cursor);
  const ply = S.cursor;
  const res = await api("/api/engine-move", engineRequest(box));
  if (gen !== S.gen) return false;
  forget(ply);
  // with the engine on, its view of each position is shown; else the mover's search
  if (!$("#engine-on").checked) {
    drawAnalysis(Object.assign(res.analysis, {done: true}), ply, "The search behind its move");
  }
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
  S.moves = []; S.allTexts = []; S.cursor = 0; S.start = null;
  S.evals = {}; S.notes = {};
  $("#review-list").innerHTML = ""; $("#review-summary").textContent = "";
  await guarded(async () => { const pos = await refresh(); if (pos) adopt(pos); });
  clearAnalysis();
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
  forget(S.cursor);
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

// ------------------------------------------------------------------ start
function step(delta) {
  const n = (S.allTexts || []).length;
  const to = Math.max(0, Math.min(n, S.cursor + delta));
  if (to !== S.cursor) goTo(to);
}

function onKey(ev) {
  const t = ev.target;
  // the keys of a field being typed in or chosen from are its own (not a checkbox's)
  const typing = t && ((t.tagName === "INPUT" && t.type !== "checkbox") ||
                       t.tagName === "TEXTAREA" || t.tagName === "SELECT");
  if (typing) return;
  if (ev.altKey || ev.ctrlKey || ev.metaKey) return;
  const n = (S.allTexts || []).length;
  const keys = {ArrowLeft: () => step(-1), ArrowRight: () => step(1),
                Home: () => goTo(0), End: () => goTo(n), f: flipBoard};
  const f = keys[ev.key];
  if (f) { ev.preventDefault(); f(); }
}

function flipBoard() {
  S.flipped = !S.flipped;
  $("#board-wrap").classList.toggle("flipped", S.flipped);
  $("#an-board").classList.toggle("flipped", S.flipped);
  document.body.dataset.flipped = S.flipped ? "1" : "0";
}

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
  setGame(info.games[0].key);               // the first game of the game list
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
    $(box + " .name").addEventListener("change", () => {
      budgetInputs($(box));
      if (box === "#engine-an") { S.liveKey = ""; followPosition(); }
    });
  }
  $("#new").addEventListener("click", newGame);
  $("#undo").addEventListener("click", undo);
  $("#flip").addEventListener("click", flip);
  $("#flip-board").addEventListener("click", flipBoard);
  $("#watch").addEventListener("click", () => {
    if (S.watching) { S.gen++; setWatching(false); return; }
    setWatching(true); watchLoop();
  });
  $("#engine-on").addEventListener("change", () => { stopLive(); clearAnalysis(); followPosition(); });
  $("#analyse").addEventListener("click", analyse);
  $("#solve").addEventListener("click", solve);
  $("#review").addEventListener("click", reviewGame);
  $("#download").addEventListener("click", download);
  $("#load-record").addEventListener("click", () =>
    guarded(() => loadRecord($("#record-text").value)));
  $("#move-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const t = $("#move-text").value.trim();
    if (t) playMove(t);
  });
  document.addEventListener("keydown", onKey);
  window.addEventListener("pagehide", stopLive);
  window.addEventListener("hashchange", () => {
    const rec = recordFromUrl();
    if (rec) guarded(() => openFromUrl(rec));
  });
  const fromUrl = recordFromUrl();
  await newGame();
  if (fromUrl) {
    // a bad address: the start position stays (a pos= link: the position before its
    // bad move), with the one line saying why
    await guarded(() => openFromUrl(fromUrl));
  }
  document.body.dataset.ready = "1";
  if (S.pos) showRecord(S.pos);
}

start();
