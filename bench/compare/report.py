"""The comparison's report: per-row summaries (medians and ratios) and the
Markdown tables printed and pasted into docs/performance.md."""
from __future__ import annotations

import math
import statistics

from compare.measure import SANITY_GAMES

__all__ = ["summarize", "markdown", "sanity_text", "fmt_rate", "fmt_time", "fmt_ratio"]


def _median(xs):
    return statistics.median(xs) if xs else None


def summarize(row):
    s = {}
    for side in ("openspiel", "ttt_engine"):
        ms = row[side]
        if not ms:
            s[side] = None
            continue
        if row["kind"] == "rate":
            s[side] = {"rate": _median([m["rate"] for m in ms]),
                       "min": min(m["rate"] for m in ms), "max": max(m["rate"] for m in ms),
                       "cpu_rate": _median([m["cpu_rate"] for m in ms if m["cpu_rate"]])}
        else:
            per = [m["seconds"] / m["calls"] for m in ms]
            s[side] = {"seconds": _median(per), "min": min(per), "max": max(per),
                       "nodes": (row.get("os_nodes") if side == "openspiel"
                                 else ms[-1]["last"].get("nodes")),
                       "value": ms[-1]["last"].get("value"),
                       "move": ms[-1]["last"].get("move")}
    ratio = cpu_ratio = None
    if s["openspiel"] and s["ttt_engine"]:
        pairs = list(zip(row["openspiel"], row["ttt_engine"]))
        if row["kind"] == "rate":
            ratio = _median([t["rate"] / o["rate"] for o, t in pairs])
        else:
            ratio = _median([(o["seconds"] / o["calls"]) / (t["seconds"] / t["calls"])
                             for o, t in pairs])
        # the same ratio from each side's CPU time (rate = units / CPU seconds)
        cpu_pairs = [(o["units"] / o["cpu_seconds"], t["units"] / t["cpu_seconds"])
                     for o, t in pairs if o["cpu_seconds"] > 0 and t["cpu_seconds"] > 0]
        if cpu_pairs:
            cpu_ratio = _median([t / o for o, t in cpu_pairs])
    s["ratio"] = ratio
    s["cpu_ratio"] = cpu_ratio
    s["cpu_share"] = {side: _median([m["cpu_share"] for m in row[side] if m["cpu_share"]])
                      for side in ("openspiel", "ttt_engine") if row[side]}
    return s


def fmt_rate(x, places=0):
    """``x`` with an SI prefix (``1.23 M``, ``45.6 k``), below 1000 with
    ``places`` decimals; "—" for None."""
    if x is None:
        return "—"
    if x >= 1e6:
        return f"{x / 1e6:,.2f} M"
    if x >= 1e3:
        return f"{x / 1e3:,.1f} k"
    return f"{x:,.{places}f}"


def fmt_time(t):
    if t is None:
        return "—"
    if t >= 1:
        return f"{t:,.2f} s"
    if t >= 1e-3:
        return f"{t * 1e3:,.1f} ms"
    return f"{t * 1e6:,.0f} µs"


def fmt_ratio(r):
    if r is None:
        return "—"
    return f"{r:,.0f}x" if r >= 100 else f"{r:,.1f}x"


def markdown(results, info, args):
    lines = []
    lines.append(f"Measured {info['date_utc']} on {info['cpu']} ({info['cores']} cores, "
                 f"{info['usable_cores']} usable; load average at start "
                 f"{_fmt_load(info['load_avg_start'])}, at end {_fmt_load(info['load_avg_end'])}), "
                 f"Python {info['python']}, OpenSpiel {info['open_spiel']}, "
                 f"ttt_engine {info['ttt_engine']}"
                 + (f" (git {info['git']})" if info.get("git") else "") + ".")
    lines.append(f"Command: `{info['command']}` — medians of {args.rounds} alternating rounds "
                 "(wall clock); ratio = median of the per-round ratios; the CPU-time columns "
                 "use each side's thread CPU time instead, a check against load from other "
                 "processes.")
    shares = [v for r in results for v in r["summary"].get("cpu_share", {}).values() if v]
    if shares:
        share = _median(shares)
        if share >= 0.95:
            verdict = ("a whole core, so the wall-clock and per-CPU-second rates agree "
                       "and are those of an unloaded core.")
        else:
            verdict = ("less than a whole core, so the wall-clock rates are that much below "
                       "an idle machine's; the per-CPU-second rates much less so (they still "
                       "share caches and memory bandwidth with the other jobs).")
        lines.append(f"During the timed work this process got a median {100 * share:.0f}% "
                     "of one core (thread CPU time / wall time; 100% on an idle machine): "
                     + verdict)
    lines.append("")
    rate_rows = [r for r in results if r["kind"] == "rate"]
    search_rows = [r for r in results if r["kind"] == "search"]
    notes = []
    if rate_rows:
        lines += _table("| benchmark | unit | OpenSpiel | ttt_engine | ttt_engine / OpenSpiel "
                        "| OpenSpiel per CPU-second | ttt_engine per CPU-second | same ratio, "
                        "from CPU time |", "|---|---|" + "---:|" * 6, rate_rows, _rate_cells,
                        notes)
    if search_rows:
        lines += _table("| alpha-beta | OpenSpiel nodes | OpenSpiel time | OpenSpiel nodes/s "
                        "| ttt_engine nodes | ttt_engine time | ttt_engine nodes/s | time ratio "
                        "| same, from CPU time |", "|---|" + "---:|" * 8, search_rows,
                        _search_cells, notes)
        lines.append(_values_note(search_rows))
        lines.append("")
    if notes:
        lines.extend(notes)
        lines.append("")
    return "\n".join(lines)


def _table(header, align, rows, cells, notes):
    """A Markdown table: one row per result, ``cells(result, summary)`` its cells
    between the title and the ratio from CPU time; each result's notes go to ``notes``."""
    lines = [header, align]
    for r in rows:
        s = r["summary"]
        lines.append(f"| {r['title']} | " + " | ".join(cells(r, s))
                     + f" | {fmt_ratio(s['cpu_ratio'])} |")
        notes.extend(_row_notes(r))
    lines.append("")
    return lines


def _rate_cells(r, s):
    def cell(side, key):
        x = s[side]
        return fmt_rate(x[key]) + "/s" if x and x.get(key) else "—"
    return [r["unit"], cell("openspiel", "rate"), cell("ttt_engine", "rate"),
            fmt_ratio(s["ratio"]), cell("openspiel", "cpu_rate"), cell("ttt_engine", "cpu_rate")]


def _search_cells(r, s):
    cells = []
    for side in ("openspiel", "ttt_engine"):
        x = s[side]
        if not x:
            cells += ["—", "—", "—"]
            continue
        nodes = x.get("nodes")
        cells += [f"{nodes:,}" if nodes is not None else "?", fmt_time(x["seconds"]),
                  fmt_rate(nodes / x["seconds"]) + "/s" if nodes else "—"]
    return cells + [fmt_ratio(s["ratio"])]


def _values_note(search_rows):
    """Do both engines find the same minimax value?  (OpenSpiel's Clobber
    values are legal-move counts / 1000; TTT values are 0 for a draw on both.)"""
    agree, differ = [], []
    for r in search_rows:
        o, t = r["summary"]["openspiel"], r["summary"]["ttt_engine"]
        if not (o and t) or o.get("value") is None or t.get("value") is None:
            continue
        scale = 1000.0 if "clobber" in r["key"] else 1.0
        ov, tv = o["value"] * scale, t["value"]
        (agree if abs(ov - tv) < 1e-6 else differ).append((r["title"], ov, tv))
    if not (agree or differ):
        return ""
    if not differ:
        vals = sorted({f"{v:g}" for _, v, _ in agree})
        return (f"Search values: both engines return the same minimax value on every row "
                f"({len(agree)} row{'s' if len(agree) != 1 else ''}; values {', '.join(vals)}, "
                "Clobber in legal moves).")
    return "Search values DIFFER: " + "; ".join(
        f"{t}: OpenSpiel {ov:g}, ttt_engine {tv:g}" for t, ov, tv in differ) + "."


def _fmt_load(load):
    return "n/a" if load is None else " / ".join(f"{x:.2f}" for x in load)


def _row_notes(r):
    out = []
    if r.get("skipped"):
        out.append(f"- {r['title']}: ttt_engine side skipped — {r['skipped']}.")
    if r.get("error"):
        out.append(f"- {r['title']}: ERROR — {r['error']}.")
    return out


def sanity_text(n, n_marks, data):
    """The rules check of ``measure.sanity_sample`` as a Markdown table."""
    lines = ["Rules check (untimed): the first player's mean result in uniformly random play "
             "(+1 win, 0 draw, -1 loss; standard error about "
             f"{1 / math.sqrt(n):.4f}) and marks per game",
             "", "| game | OpenSpiel | ttt_engine |", "|---|---|---|"]
    for game, title in SANITY_GAMES.items():
        o, t = data[game]["openspiel"], data[game]["ttt_engine"]
        tt = f"error: {t['error']}" if "error" in t else _fmt_sample(t)
        lines.append(f"| {title} | {_fmt_sample(o)} | {tt} |")
    lines.append("")
    lines.append(f"(Mean result over {n:,} random games per engine: OpenSpiel's C++ rollouts, "
                 f"ttt_engine's Cython playouts; marks per game over {n_marks:,} games played "
                 "move by move from Python; OpenSpiel's games read back as our boards "
                 "(ttt_engine.openspiel) and their moves counted, since a free UTTT move "
                 "there takes two actions.)")
    return "\n".join(lines)


def _fmt_sample(s):
    return f"mean {s['mean_first']:+.4f}, {s['marks_per_game']:.1f} marks/game"
