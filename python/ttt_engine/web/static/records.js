// ttt-engine page: game records. The record of the position shown (the page's
// address and the download follow it), reading a pasted record, position or
// move list, and the record in the address. Loaded before app.js.
"use strict";

function recordParams(record) {
  const p = new URLSearchParams();
  for (const line of record.split("\n")) {
    const i = line.indexOf(":");
    if (i > 0) p.set(line.slice(0, i).trim(), line.slice(i + 1).trim());
  }
  return p;
}

function showRecord(pos) {
  const params = recordParams(pos.record);
  const url = `${location.pathname}#${params.toString()}`;
  $("#permalink").href = url;
  if (document.body.dataset.ready === "1") history.replaceState(null, "", url);
  $("#download").dataset.record = pos.record;
}

function download() {
  const text = $("#download").dataset.record || "";
  const blob = new Blob([text], {type: "text/plain"});
  const a = document.createElement("a");
  a.href = URL.createObjectURL(blob);
  a.download = `${S.game}-game.txt`;
  document.body.appendChild(a); a.click(); a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}

// a record, a position or a move list: the board changes only if it reads; with
// partial (a pos= link) a move list read up to a bad move, which the page names
async function loadRecord(text, partial = false) {
  const rec = await api("/api/record", {game: S.game, options: S.options, text, partial});
  S.gen++;
  setWatching(false);
  if (rec.game !== S.game) { $("#game").value = rec.game; setGame(rec.game); }
  for (const [k, v] of Object.entries(rec.options)) {
    const i = document.querySelector(`#options input[data-option="${k}"]`);
    if (i) { if (i.type === "checkbox") i.checked = v; else i.value = v; }
  }
  readOptions();
  S.start = rec.start;
  S.evals = {}; S.notes = {};
  $("#review-list").innerHTML = ""; $("#review-summary").textContent = "";
  const pos = await api("/api/position", request({moves: rec.moves}));
  S.moves = pos.moves.slice(); S.allTexts = pos.texts.slice(); S.cursor = pos.moves.length;
  render(pos);
  if (rec.error) throw new Error(`${rec.error} (the position before it is shown)`);
}

// the record in the address (#... or ?...): game, options, start and moves, or pos,
// a position shared by its move list in the game's notation (?game=connect4&pos=4453,
// the columns 1-7 as connect4.gamesolver.org writes them), opened with its analysis
// (the engine on; engine= picks it) and read up to a bad move
function recordFromUrl() {
  const raw = location.hash.length > 1 ? location.hash.slice(1) : location.search.slice(1);
  const p = new URLSearchParams(raw);
  if (!p.get("game")) return null;
  const pos = p.has("pos") && !p.has("moves");
  const text = ["game", "options", "start", "moves", "pos"].filter((k) => p.has(k))
    .map((k) => `${k}: ${p.get(k)}`).join("\n");
  return {text, partial: pos, analyse: pos, engine: p.get("engine")};
}

async function openFromUrl(rec) {
  try {
    await loadRecord(rec.text, rec.partial);
  } finally {
    if (rec.analyse && S.pos) {
      const sel = $("#an-engine");
      if (rec.engine && [...sel.options].some((o) => o.value === rec.engine)) {
        sel.value = rec.engine;
        budgetInputs($("#engine-an"));
      }
      $("#engine-on").checked = true;
      S.liveKey = "";
      followPosition();
    }
  }
}
