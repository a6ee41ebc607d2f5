"""The exact yardstick table of every registry engine of every game
(ttt_engine.yardstick.table), at stated budgets, in Markdown; each game's
rows kept in --out (JSON lines) as it finishes, so a stopped run resumes.

    nohup taskset -c 1 python bench/yardstick_report.py --simulations 1000 \\
        --sample 500 --out results/yardstick_table.jsonl > /tmp/table.log 2>&1 &

Every engine gets the first budget it takes of --simulations, --time,
--depth (the others its default).  ``--curves``: instead, the strength curve
of each game's ``best`` and ``mcts`` at the --times (seconds a move), one PNG
a game in --plots (docs/img/strength_<game>.png), rows in --out.
"""
from __future__ import annotations

import argparse
import json
import os
import sys

from ttt_engine import games, yardstick
from ttt_engine._yardstick_report import Row, curve_rows, markdown, plot_curves
from ttt_engine.yardstick import Result


def _done(path):
    out = []
    if path and os.path.exists(path):
        with open(path) as f:
            out = [json.loads(line) for line in f if line.strip()]
    return out


def _append(path, d):
    if path:
        with open(path, "a") as f:
            f.write(json.dumps(d) + "\n")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", default=",".join(games.GAMES))
    ap.add_argument("--engines", default=None, help="only these engines (comma separated)")
    ap.add_argument("--simulations", type=int, default=1000)
    ap.add_argument("--time", type=float, default=None)
    ap.add_argument("--depth", type=int, default=None)
    ap.add_argument("--sample", type=int, default=500)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default=None)
    ap.add_argument("--curves", action="store_true")
    ap.add_argument("--times", default="0.01,0.03,0.1,0.3")
    ap.add_argument("--plots", default="docs/img")
    args = ap.parse_args(argv)
    keys = args.games.split(",")
    done = _done(args.out)
    if args.curves:
        times = [float(x) for x in args.times.split(",")]
        for key in keys:
            curves = {}
            for name in ("best", "mcts"):
                have = {d["budget"]: Result.from_dict(d) for d in done
                        if d.get("curve") and d["game"] == key and d["engine"] == name}
                for t in times:
                    if t not in have:
                        (_, r), = yardstick.strength_curve(name, [t], key, sample=args.sample,
                                                           seed=args.seed, progress=True)
                        have[t] = r
                        _append(args.out, dict(r.to_dict(), curve=True, engine=name,
                                               budget=t, sample=args.sample))
                curves[name] = [(t, have[t]) for t in times]
                print("\n".join(curve_rows(name, curves[name])), flush=True)
            boards = {", ".join(f"{k}={v}" for k, v in o.items())
                      for o in yardstick.shipped_suite(key).options if o}
            board = f" ({'; '.join(sorted(boards))})" if boards else ""
            plot_curves(curves, os.path.join(args.plots, f"strength_{key}.png"),
                        title=f"{games.get(key).title}{board}: the exact yardstick against "
                              f"thinking time ({args.sample} positions)")
        return 0
    rows = []
    engines = args.engines.split(",") if args.engines else None
    for key in keys:
        mine = [d for d in done if not d.get("curve") and d["game"] == key]
        if not mine:
            for r in yardstick.table([key], engines, simulations=args.simulations,
                                     time=args.time, depth=args.depth, sample=args.sample,
                                     seed=args.seed, progress=True):
                d = {"game": key, "engine": r.engine, "budget": r.budget, "reason": r.reason,
                     "result": r.result.to_dict() if r.result else None,
                     "sample": args.sample, "seed": args.seed}
                _append(args.out, d)
                mine.append(d)
        rows += [Row(d["game"], d["engine"], d["budget"],
                     Result.from_dict(d["result"]) if d["result"] else None, d["reason"])
                 for d in mine]
        print(markdown([r for r in rows if r.game == key]), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
