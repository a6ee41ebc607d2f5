"""What the comparison measures and how: the rows (the same work on both
engines), their sizes, the alternating timed rounds, the machine description
and the untimed rules check.  Formatting is in ``report``."""
from __future__ import annotations

import datetime
import os
import platform
import subprocess

__all__ = ["Row", "build_rows", "SIZES", "measure", "run_row", "machine_info", "git_commit",
           "sanity_sample", "SANITY_GAMES"]

#: games of the rules check, with their titles in the report
SANITY_GAMES = {"ttt": "TTT", "uttt": "UTTT", "clobber": "Clobber 6x5"}


# ---------------------------------------------------------------------------- rows
class Row:
    """One comparison: the same work on both sides, ``kind`` 'rate' (units/s,
    higher is better) or 'search' (seconds per search, with nodes)."""

    def __init__(self, key, title, unit, kind, os_call, tte_call, note=""):
        self.key, self.title, self.unit, self.kind = key, title, unit, kind
        self.os_call, self.tte_call, self.note = os_call, tte_call, note


def build_rows(sizes):
    s = sizes
    rows = [
        Row("q_random", "TTT tabular Q-learning vs random", "episodes", "rate",
            lambda o, seed: o.qlearning(s["q_os"], False, seed),
            lambda e, seed: e.qlearning(s["q_tte"], False, seed),
            f"{s['q_os']:,} vs {s['q_tte']:,} episodes per call"),
        Row("q_self", "TTT tabular Q-learning self-play", "episodes", "rate",
            lambda o, seed: o.qlearning(s["q_os"], True, seed),
            lambda e, seed: e.qlearning(s["q_tte"], True, seed),
            f"{s['q_os']:,} vs {s['q_tte']:,} episodes per call"),
        Row("mcts_ttt", "TTT MCTS, 1 rollout/simulation", "simulations", "rate",
            lambda o, seed: o.mcts("ttt", s["mcts_ttt"], seed),
            lambda e, seed: e.mcts("ttt", s["mcts_ttt"], seed),
            f"{s['mcts_ttt']:,} simulations from the empty board, both sides"),
        Row("mcts_uttt", "UTTT MCTS, 1 rollout/simulation", "simulations", "rate",
            lambda o, seed: o.mcts("uttt", s["mcts_uttt"], seed),
            lambda e, seed: e.mcts("uttt", s["mcts_uttt"], seed),
            f"{s['mcts_uttt']:,} simulations from the empty board, both sides"),
    ]
    for game, title in (("ttt", "TTT"), ("uttt", "UTTT"), ("clobber", "Clobber 6x5")):
        rows.append(Row(
            f"playouts_{game}", f"{title} random playouts", "games", "rate",
            lambda o, seed, g=game: o.playouts(g, s[f"po_os_{g}"], seed),
            lambda e, seed, g=game: e.playouts(g, s[f"po_tte_{g}"], seed),
            f"{s[f'po_os_{game}']:,} vs {s[f'po_tte_{game}']:,} games per call"))
    ab_cases = [("ttt", None, "TTT alpha-beta, full solve", "empty board to the end (draw)")]
    ab_cases += [("clobber", d, f"Clobber 6x5 alpha-beta, depth {d}",
                  "start position; horizon value = number of legal moves")
                 for d in s["clobber_depths"]]
    for game, depth, title, note in ab_cases:
        for variant, label in (("plain", "plain"), ("full", "TT + ordering")):
            key = f"ab_{game}" + (f"_d{depth}" if depth else "") + f"_{variant}"
            rows.append(Row(
                key, f"{title} — ttt_engine {label}", "search", "search",
                lambda o, seed, g=game, d=depth, **kw: o.alphabeta(g, 30 if d is None else d, **kw),
                lambda e, seed, g=game, d=depth, v=variant: e.alphabeta(g, d, v),
                note))
    return rows


SIZES = {
    "full": dict(q_os=2_000, q_tte=2_000_000, mcts_ttt=50_000, mcts_uttt=10_000,
                 po_os_ttt=50_000, po_tte_ttt=2_000_000, po_os_uttt=5_000, po_tte_uttt=200_000,
                 po_os_clobber=5_000, po_tte_clobber=200_000, clobber_depths=(3, 4, 5),
                 min_time=0.2, rounds=5),
    "quick": dict(q_os=500, q_tte=500_000, mcts_ttt=20_000, mcts_uttt=3_000,
                  po_os_ttt=10_000, po_tte_ttt=500_000, po_os_uttt=1_000, po_tte_uttt=50_000,
                  po_os_clobber=1_000, po_tte_clobber=50_000, clobber_depths=(2, 3, 4),
                  min_time=0.05, rounds=3),
}


def measure(call, side, min_time, seed):
    """Run ``call(side, seed)`` repeatedly for at least ``min_time`` seconds;
    return per-call units, seconds and the last call's extra fields."""
    records = []

    def once():
        r = call(side, seed + len(records))
        records.append(r)
        return r

    # Time each call separately (the call times itself, excluding set-up such
    # as building a board or a bot), and keep going until min_time of work.
    total = 0.0
    while True:
        r = once()
        total += r["seconds"]
        if total >= min_time:
            break
    units = sum(x["units"] for x in records)
    cpu = sum(x["cpu"] for x in records)
    last = dict(records[-1])
    last.pop("result", None)
    return {"units": units, "seconds": total, "cpu_seconds": cpu, "calls": len(records),
            "rate": units / total, "cpu_rate": units / cpu if cpu > 0 else None,
            "cpu_share": cpu / total if total > 0 else None, "last": last}


def run_row(row, osp, eng, rounds, min_time, log):
    out = {"key": row.key, "title": row.title, "unit": row.unit, "kind": row.kind,
           "note": row.note, "openspiel": [], "ttt_engine": [], "skipped": None, "error": None}
    # warm-up (imports, tables, first allocation): untimed
    try:
        row.os_call(osp, 0)
    except Exception as e:  # noqa: BLE001 - report, do not crash the whole table
        out["error"] = f"OpenSpiel side failed: {type(e).__name__}: {e}"
        return out
    tte_ok = True
    try:
        row.tte_call(eng, 0)
    except Exception as e:  # noqa: BLE001
        out["error"] = f"ttt_engine side failed: {type(e).__name__}: {e}"
        tte_ok = False
    for r in range(rounds):
        order = [("openspiel", row.os_call, osp), ("ttt_engine", row.tte_call, eng)]
        if r % 2:
            order.reverse()
        for name, call, side in order:
            if name == "ttt_engine" and not tte_ok:
                continue
            out[name].append(measure(call, side, min_time, 1000 * (r + 1)))
        log(".")
    if row.kind == "search":
        # node counts in a separate untimed run (OpenSpiel's are counted by a
        # wrapper whose overhead must not be in the timed runs)
        try:
            out["os_nodes"] = row.os_call(osp, 0, count_nodes=True).get("nodes")
        except Exception as e:  # noqa: BLE001
            out["error"] = f"OpenSpiel node count failed: {type(e).__name__}: {e}"
    return out


def machine_info():
    cpu = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.lower().startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        cpu = platform.processor() or cpu
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        usable = os.cpu_count()
    try:
        load = os.getloadavg()
    except OSError:  # pragma: no cover
        load = None
    return {
        "date_utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "cpu": cpu,
        "cores": os.cpu_count(),
        "usable_cores": usable,
        "load_avg": load,
        "python": platform.python_version(),
        "platform": platform.platform(),
    }


def git_commit():
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        out = subprocess.run(["git", "-C", here, "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True, timeout=5)
        return out.stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


def sanity_sample(osp, eng, quick):
    """Untimed rules check: both engines play the same game (same expected
    result of random play, same number of marks per game).  Returns
    ``(games, marks_games, {game: {"openspiel": ..., "ttt_engine": ... or
    {"error": text}}})``."""
    n, n_marks = (100_000, 300) if quick else (400_000, 1000)
    data = {}
    for game in SANITY_GAMES:
        o = osp.playout_sample(game, n, n_marks, 5)
        try:
            t = eng.playout_sample(game, n, n_marks, 5)
        except Exception as e:  # noqa: BLE001 - reported in the table
            t = {"error": f"{type(e).__name__}: {e}"}
        data[game] = {"openspiel": o, "ttt_engine": t}
    return n, n_marks, data
