// ttt-engine page: the analysis view. The evaluation graph over the game, the
// evaluation bar and the table of an analysis, the live analysis that follows
// the position shown, the review of a game, and the analyse and solve buttons.
// Loaded before app.js, whose state (S) and requests (api, apiStream) it uses.
"use strict";

// ------------------------------------------------------------------ notes and graph
function noteText(n) {
  let t = n.mark ? `${n.mark}` : "";
  if (n.note) t = n.note + (n.exact_before ? ` (${n.exact_before} → ${n.exact_after})` : "");
  else if (n.before !== null && n.after !== null) {
    t += ` (${pct(n.before)} → ${pct(n.after)} for ${n.side})`;
  }
  if (n.best && n.best !== n.text) t += `; best ${n.best}`;
  return t;
}

function pct(score) { return `${Math.round(50 + 50 * score)}%`; }

// the evaluation over the game: an inline SVG, one point per position
// (the first side's view: up is good for it), each point a link to its move
function drawGraph() {
  const box = $("#graph");
  const n = Math.max((S.allTexts || []).length, S.cursor, 1);
  const W = 300, H = 80, x = (p) => (p / n) * (W - 8) + 4, y = (v) => H / 2 - v * (H / 2 - 4);
  const pts = Object.keys(S.evals).map(Number).filter((p) => p <= n && S.evals[p] !== null)
    .sort((a, b) => a - b);
  const first = S.pos ? S.pos.sides[0] : "";
  let svg = `<svg viewBox="0 0 ${W} ${H}" role="img" aria-label="evaluation for ${first} over the game">` +
    `<rect width="${W}" height="${H}" fill="#fff" stroke="#bbb"/>` +
    `<line x1="0" x2="${W}" y1="${H / 2}" y2="${H / 2}" stroke="#ccc"/>` +
    `<line class="cursor" x1="${x(S.cursor)}" x2="${x(S.cursor)}" y1="0" y2="${H}" stroke="#1e88e5"/>`;
  if (pts.length > 1) {
    svg += `<polyline fill="none" stroke="#424242" stroke-width="1.5" points="${
      pts.map((p) => `${x(p).toFixed(1)},${y(S.evals[p]).toFixed(1)}`).join(" ")}"/>`;
  }
  for (const p of pts) {
    const note = S.notes[p];
    const cls = note && note.mark ? note.mark : "";
    svg += `<circle class="point ${cls}" data-ply="${p}" cx="${x(p).toFixed(1)}" ` +
      `cy="${y(S.evals[p]).toFixed(1)}" r="${cls ? 4 : 3}"><title>move ${p}: ${
        (S.evals[p] * 50 + 50).toFixed(0)}% for ${first}</title></circle>`;
  }
  box.innerHTML = svg + "</svg>";
  box.querySelectorAll("circle.point").forEach((c) =>
    c.addEventListener("click", () => goTo(Number(c.dataset.ply))));
  box.dataset.points = String(pts.length);
}

// ------------------------------------------------------------------ analysis
function drawAnalysis(a, ply, source) {
  $("#an-view").hidden = false;
  $("#an-board").innerHTML = a.svg;
  const ev = a.evaluation;
  $("#evalfill").style.height = ev === null ? "50%" : `${(50 + 50 * ev).toFixed(1)}%`;
  $("#evalbar").dataset.evaluation = ev === null ? "" : String(ev);
  $("#evaltext").textContent = a.outlook || "";
  if (ply !== undefined && ev !== null && S.pos) {
    S.evals[ply] = a.side === S.pos.sides[0] ? ev : -ev;
    drawGraph();
  }
  const who = a.stats && a.stats.agent && a.stats.agent !== a.engine ?
    `${a.engine} (${a.stats.agent})` : a.engine;
  $("#an-title").textContent = `${source || "Analysis"}: ${who} for ${a.side}` +
    (a.done ? "" : " (searching...)");
  $("#an-stats").textContent = statsText(a.stats || {});
  $("#an-best").textContent = a.best_text === null ? "" :
    `Best: ${a.best_text}` + (a.evaluation_text ? ` (${a.evaluation_text})` : "") +
    (a.alternatives.length ? `; close: ${a.rows.filter((r) => a.alternatives.includes(r.move))
                                           .map((r) => r.text).join(", ")}` : "");
  const lines = $("#an-lines");
  lines.innerHTML = "";
  for (const r of a.rows.filter((r) => r.pv.length > 0).slice(0, 3)) {
    const li = document.createElement("li");
    li.textContent = `${r.verdict || fmt(r.score, 2, true)}  ${r.pv.join(" ")}`;
    lines.appendChild(li);
  }
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

// depth or simulations, speed and time of a search
function statsText(st) {
  const parts = [];
  const secs = st.time || 0;
  if (st.simulations) {
    parts.push(`${st.simulations.toLocaleString()} simulations`);
    if (secs > 0) parts.push(`${short(st.simulations / secs)} sims/s`);
  } else if (st.depth !== undefined && st.depth !== null) {
    parts.push(st.exact ? `depth ${st.depth} (exact, to the end)` : `depth ${st.depth}`);
    if (st.nodes && secs > 0) parts.push(`${short(st.nodes / secs)} nodes/s`);
  }
  if (secs > 0) parts.push(`${secs.toFixed(1)} s`);
  return parts.join(" · ");
}

function short(n) {
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)}M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(0)}k`;
  return n.toFixed(0);
}

function fmt(v, digits, sign) {
  if (v === null || v === undefined) return "";
  if (Math.abs(v) >= 1e6) return v.toExponential(2);
  const t = v.toFixed(digits);
  return sign && v > 0 ? "+" + t : t;
}

// the analysis view emptied: it showed another position, or a search now stopped
function clearAnalysis() {
  $("#an-board").innerHTML = ""; $("#an-table tbody").innerHTML = "";
  $("#an-table thead").innerHTML = ""; $("#an-view").hidden = true;
  $("#an-title").textContent = ""; $("#an-best").textContent = "";
  $("#an-stats").textContent = ""; $("#an-lines").innerHTML = "";
}

// ------------------------------------------------------------------ live analysis
function liveKey() {
  return JSON.stringify([S.game, S.options, S.start, S.moves.slice(0, S.cursor)]);
}

function stopLive() {
  if (S.live) { S.live.abort(); S.live = null; }
  S.liveKey = "";
  document.body.dataset.live = "";
}

// while the engine is on, every position shown is analysed at once; a new
// position (or the switch) aborts the request, which stops the server's search
function followPosition() {
  const key = liveKey();
  if (S.asked && S.asked.key !== key) {        // "Analyse this position" was of another
    S.asked.abort(); S.asked = null;
    clearAnalysis();
    document.body.dataset.analysis = "";
  }
  if (S.solving && S.solving.key !== key) { S.solving.abort(); S.solving = null; }
  if ($("#solve-result").dataset.key !== key) {  // the answer shown was of another position
    $("#solve-result").textContent = "";
    delete $("#solve-result").dataset.value;
  }
  if (!$("#engine-on").checked) { if (S.live) stopLive(); return; }
  if (key === S.liveKey) return;
  stopLive();
  clearAnalysis();
  S.liveKey = key;
  if (!S.pos || S.pos.to_move === null) {
    $("#an-title").textContent = S.pos ? S.pos.status : "";
    document.body.dataset.live = "over";
    return;
  }
  const ctl = new AbortController();
  S.live = ctl;
  const box = $("#engine-an");
  const body = engineRequest(box);
  const eng = gameInfo().engines.find((e) => e.name === body.engine);
  if (eng.budgets.includes("time") && body.budgets.time === undefined) body.budgets.time = S.caps.time;
  if (body.budgets.time !== undefined) delete body.budgets.simulations;
  body.stream = true;
  const ply = S.cursor;
  let updates = 0;
  document.body.dataset.live = "running";
  document.body.dataset.updates = "0";
  apiStream("/api/analyse", body, (a) => {
    // the position may change before the page has drawn it (and stopped this search)
    if (S.live !== ctl || liveKey() !== key) return;
    updates += 1;
    document.body.dataset.updates = String(updates);
    drawAnalysis(a, ply, "Engine");
  }, ctl.signal).then(() => {
    if (S.live === ctl) { S.live = null; document.body.dataset.live = "done"; }
  }).catch((e) => {
    if (S.live === ctl) { S.live = null; document.body.dataset.live = "error"; showError(e.message); }
  });
}

// ------------------------------------------------------------------ review
async function reviewGame() {
  const all = S.moves.slice();
  const body = request({moves: all, engine: $("#an-engine").value, seed: seed(), stream: true});
  const b = budgets($("#engine-an"));
  if (b.time !== undefined) body.budgets = {time: Math.min(b.time, 1)};
  S.notes = {};
  $("#review-list").innerHTML = "";
  document.body.dataset.review = "running";
  // a new game (or another line of moves) ends the review: its notes are of the old one
  const game = JSON.stringify([S.game, S.options, S.start]);
  const same = () => game === JSON.stringify([S.game, S.options, S.start]) &&
    all.every((m, i) => S.moves[i] === m);
  const ctl = new AbortController();
  await guarded(async () => {
    await apiStream("/api/review", body, (d) => {
      if (!same()) { ctl.abort(); return; }
      if (d.done) return;
      S.notes[d.ply] = d;
      if (d.value_before !== null) S.evals[d.ply - 1] = d.value_before;
      if (d.value_after !== null) S.evals[d.ply] = d.value_after;
      if (d.mark) {
        const li = document.createElement("li");
        li.dataset.ply = String(d.ply);
        li.className = d.mark;
        li.textContent = `${d.ply}. ${d.side} ${d.text}: ${noteText(d)}`;
        li.addEventListener("click", () => goTo(d.ply));
        $("#review-list").appendChild(li);
      }
      renderMoveList();
      drawGraph();
    }, ctl.signal);
  });
  if (same()) {
    const marked = Object.values(S.notes).filter((n) => n.mark).length;
    $("#review-summary").textContent = `${Object.keys(S.notes).length} moves reviewed: ` +
      (marked ? `${marked} marked` : "no mistakes found");
  }
  document.body.dataset.review = "done";
}

// ------------------------------------------------------------------ buttons
async function analyse() {
  const box = $("#engine-an");
  const body = engineRequest(box);
  const ply = S.cursor;
  // a new position shown (followPosition) ends the request and drops its answer
  const ctl = new AbortController();
  ctl.key = liveKey();
  if (S.asked) S.asked.abort();
  S.asked = ctl;
  await guarded(async () => {
    if (S.pos && S.pos.to_move === null) throw new Error("the game is over: nothing to analyse");
    document.body.dataset.analysis = "running";
    if (body.budgets.time !== undefined) {
      body.stream = true;
      await apiStream("/api/analyse", body, (a) => {
        if (S.asked === ctl) drawAnalysis(a, ply);
      }, ctl.signal);
    } else {
      let a;
      try { a = await api("/api/analyse", body, ctl.signal); } catch (e) {
        if (e.name === "AbortError") return;
        throw e;
      }
      if (S.asked === ctl) drawAnalysis(a, ply);
    }
  });
  if (S.asked === ctl) S.asked = null;
}

async function solve() {
  // a new position shown (followPosition) drops the answer
  const ctl = new AbortController();
  ctl.key = liveKey();
  if (S.solving) S.solving.abort();
  S.solving = ctl;
  await guarded(async () => {
    let r;
    try { r = await api("/api/solve", request(), ctl.signal); } catch (e) {
      if (e.name === "AbortError") return;
      throw e;
    }
    if (S.solving !== ctl) return;
    const words = {win: "a win", loss: "a loss", draw: "a draw",
                   unknown: "unknown (the time limit came first)"};
    let text = `For ${r.side}: ${words[r.value]}`;
    if (r.plies !== null && r.value !== "unknown") text += ` in ${r.plies} plies`;
    if (r.best_text) text += `; a move that keeps it: ${r.best_text}`;
    text += ` (${r.nodes.toLocaleString()} positions, ${r.seconds.toFixed(2)} s)`;
    $("#solve-result").textContent = text;
    $("#solve-result").dataset.value = r.value;
    $("#solve-result").dataset.key = ctl.key;
  });
  if (S.solving === ctl) S.solving = null;
}
