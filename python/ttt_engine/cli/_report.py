"""Text output shared by the commands: aligned tables, percentages and one line
of engine statistics."""
from __future__ import annotations

__all__ = ["table", "pct", "analysis_text", "format_stats", "verdict_text"]


def table(rows, header=None):
    """Plain aligned text table (first column left, others right)."""
    all_rows = ([header] if header else []) + rows
    widths = [max(len(str(r[i])) for r in all_rows) for i in range(len(all_rows[0]))]
    out = []
    for n, r in enumerate(all_rows):
        cells = [str(c).ljust(widths[i]) if i == 0 else str(c).rjust(widths[i])
                 for i, c in enumerate(r)]
        out.append("  ".join(cells).rstrip())
        if header and n == 0:
            out.append("  ".join("-" * w for w in widths))
    return "\n".join(out)


def pct(n, total):
    return f"{100.0 * n / total:.2f}%" if total else "-"


def analysis_text(analysis, elapsed):
    """One line of an agent's analysis of its move (the analysis protocol,
    :func:`ttt_engine.analysis.explain`): an exact engine's result in words,
    a search's statistics (:func:`format_stats`), else the value of its move."""
    best, stats = analysis.best, analysis.stats
    if best is not None and best.verdict and analysis.kind in ("exact", "agent"):
        source = f" (from the {stats['answered']})" if "answered" in stats else ""
        return format_stats({"exact": verdict_text(best.verdict) + source}, elapsed)
    if "simulations" in stats or "nodes" in stats or best is None or best.value is None:
        return format_stats(stats, elapsed)
    return format_stats({"Q" if analysis.kind == "q" else "value": best.value}, elapsed)


def verdict_text(verdict):
    """An exact verdict (``"win in 3"``, ``"draw"``) in words: ``"win in 3 plies"``."""
    word, _, plies = verdict.partition(" in ")
    return word + (f" in {plies} {'ply' if plies == '1' else 'plies'}" if plies else "")


def _num(v):
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, int):
        return f"{v:,}"
    if isinstance(v, float):
        return f"{v:,.0f}" if abs(v) >= 1e4 else f"{v:.3g}"
    return str(v)


def format_stats(stats, elapsed):
    """One line of engine statistics: MCTS (simulations, rate, nodes, value of the
    chosen move) or search (value, depth, nodes, nodes/s), then the time."""
    parts = []
    if isinstance(stats, dict) and "simulations" in stats:
        parts.append(f"{_num(stats['simulations'])} simulations")
        if stats.get("simulations_per_s"):
            parts.append(f"{_num(stats['simulations_per_s'])}/s")
        if "nodes_used" in stats:
            parts.append(f"{_num(stats['nodes_used'])} nodes")
        best = stats.get("best_move")
        for ch in stats.get("children") or ():
            if ch.get("move") == best:
                parts.append(f"value {ch['mean']:+.3f} ({_num(ch['visits'])} visits)")
        if stats.get("root_proven"):
            parts.append("proven " + ("win" if stats["root_proven"] > 0 else "loss"))
        if stats.get("reused"):
            parts.append(f"reused {_num(stats.get('reused_visits', 0))} visits")
    elif stats is not None and (hasattr(stats, "nodes") or
                                (isinstance(stats, dict) and "nodes" in stats)):
        get = stats.get if isinstance(stats, dict) else (lambda k: getattr(stats, k, None))
        value, seconds = get("value"), get("time") or get("seconds") or 0
        if value is not None:
            parts.append(f"value {value:+.4g}" + (" (exact)" if get("exact") else ""))
        if get("heuristic") is not None and isinstance(get("heuristic"), str):
            parts.append(f"heuristic {get('heuristic')}")
        if get("depth"):
            parts.append(f"depth {get('depth')}")
        parts.append(f"{_num(get('nodes'))} nodes")
        if seconds > 0:
            parts.append(f"{_num(get('nodes') / seconds)} nodes/s")
    elif isinstance(stats, dict) and "exact" in stats:
        parts.append(f"exact value: {stats['exact']}")
    elif isinstance(stats, dict):
        for k, v in stats.items():
            if not isinstance(v, (list, tuple, dict)):
                parts.append(f"{k} {_num(v)}")
    parts.append(f"{elapsed * 1000:.1f} ms")
    return ", ".join(parts)


