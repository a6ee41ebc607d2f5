"""Ablation of the MCTS improvements: each variant against plain UCT at equal time.

Every row is a 2-entrant match through the tournament module (opening suite:
``--openings`` random openings, each played twice with colours swapped), the
variant against ``uct`` (``MCTSAgent`` with its defaults: classic UCT,
random playouts, no solver, one thread), both given ``--time`` seconds per
move.  Each row's games go to ``OUT/<game>-<row>.jsonl`` as they finish: the
same command again plays only the missing games (stop it at any time).  The
summary (W-D-L, score with a 95 % interval, by colour) is printed as a
Markdown table and written to ``OUT/<game>-summary.json``.

    # the full ablation (>= 200 games per row; hours: run it on a quiet machine)
    nice -n 15 python bench/mcts_ablation.py --game uttt --games 200 --openings 100 --time 0.1
    # a small version
    nice -n 15 python bench/mcts_ablation.py --game uttt --games 20 --openings 10 --time 0.02

Rows (``--rows`` picks some): solver (MCTS-Solver), decisive (decisive /
anti-decisive playouts; UTTT, Quixo, Clobber), solver+decisive, ea1 (a leaf is
expanded on its second visit), solver+endgame (UTTT: an exact alpha-beta
solve first once at most 25 cells are empty in the open boards), c0.5, c0.8, c2
and solver+c0.8 (the exploration constant, default sqrt(2)), solver+c0.8+decisive, threads2 (root
parallelism over 2 threads:
twice the CPU, not equal CPU; it measures what the second core buys), best
(the registry's strongest engine, ``make_agent("best")``, both cores unless the
machine is busy), best2 (the same with ``threads=2`` whatever the load).
Use ``--workers 1`` (default) for time budgets: games on parallel workers
would take CPU from each other.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys

from ttt_engine._util import atomic_write
from ttt_engine.agents import MCTSAgent
from ttt_engine.tournament import Entrant, TournamentError, round_robin

ROWS = {
    "solver": {"solver": True},
    "decisive": {"playout": "decisive"},
    "solver+decisive": {"solver": True, "playout": "decisive"},
    "ea1": {"expand_after": 1},
    "solver+ea1": {"solver": True, "expand_after": 1},
    "solver+endgame": {"solver": True, "endgame": 25},
    "c0.5": {"c": 0.5},
    "c0.8": {"c": 0.8},
    "solver+c0.8": {"solver": True, "c": 0.8},
    "solver+c0.8+decisive": {"solver": True, "c": 0.8, "playout": "decisive"},
    "c2": {"c": 2.0},
    "prior": {"prior": "shipped"},
    "solver+c0.8+prior": {"solver": True, "c": 0.8, "prior": "shipped"},
    "threads2": {"threads": 2},
    "best": None,                      # the registry's preset (threads by its load rule)
    "best2": "threads2",               # the preset on both cores whatever the load
}
DECISIVE_GAMES = ("uttt", "quixo", "clobber")
PRIOR_GAMES = ("uttt",)               # the games a network ships for (besides Tic-Tac-Toe)


def rows_for(game):
    return [r for r in ROWS if ("decisive" not in r or game in DECISIVE_GAMES)
            and ("endgame" not in r or game == "uttt")
            and ("prior" not in r or game in PRIOR_GAMES)]


def entrant(row):
    if ROWS[row] is None:
        return Entrant(row, "best")
    if ROWS[row] == "threads2":
        return Entrant(row, "best", {"threads": 2})
    return Entrant(row, MCTSAgent, dict(ROWS[row]))


def interval(w, d, n, z=1.96):
    """Score and a normal-approximation 95 % interval (draws half a point)."""
    if n == 0:
        return None, None, None
    s = (w + d / 2) / n
    var = ((w * (1 - s) ** 2) + (d * (0.5 - s) ** 2) + ((n - w - d) * s ** 2)) / n
    h = z * math.sqrt(var / n)
    return s, max(0.0, s - h), min(1.0, s + h)


def run_row(game, row, args):
    base = args.baseline
    suffix = "" if base == "uct" else f"-vs-{base}"
    out = os.path.join(args.out, f"{game}-{row}{suffix}.jsonl")
    other = Entrant("uct", MCTSAgent, {}) if base == "uct" else entrant(base)
    try:
        r = round_robin(game, [entrant(row), other], args.games,
                        time_per_move=args.time, seed=args.seed, out=out, workers=args.workers,
                        openings=args.openings, progress=not args.quiet, bootstrap=0)
    except TournamentError as exc:
        print(f"{row}: {exc}", file=sys.stderr)
        r = exc.result
    w, d, l = r.wdl(row, base)
    n = w + d + l
    s, lo, hi = interval(w, d, n)
    return {"row": row, "games": n, "wins": w, "draws": d, "losses": l, "score": s,
            "low": lo, "high": hi, "as_first": list(r.wdl(row, base, "first")),
            "as_second": list(r.wdl(row, base, "second")), "file": out}


def markdown(game, results, args):
    lines = [f"{game}, {args.time:g} s per move, vs {args.baseline}, opening suite of "
             f"{args.openings} "
             "(each twice, colours swapped)", "",
             "| variant | games | W-D-L | score | 95 % interval | first W-D-L | second W-D-L |",
             "|---|---|---|---|---|---|---|"]
    for x in results:
        sc = "" if x["score"] is None else f"{x['score']:.3f}"
        iv = "" if x["low"] is None else f"{x['low']:.2f}-{x['high']:.2f}"
        lines.append(f"| {x['row']} | {x['games']} | {x['wins']}-{x['draws']}-{x['losses']} | "
                     f"{sc} | {iv} | {'-'.join(map(str, x['as_first']))} | "
                     f"{'-'.join(map(str, x['as_second']))} |")
    return "\n".join(lines)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--game", default="uttt", choices=["uttt", "clobber", "quixo"])
    p.add_argument("--time", type=float, default=0.1, help="seconds per move (default 0.1)")
    p.add_argument("--games", type=int, default=200, help="games per row (default 200)")
    p.add_argument("--openings", type=int, default=None,
                   help="openings in the suite (default games / 2)")
    p.add_argument("--rows", default=None, help="comma-separated rows (default: all that apply)")
    p.add_argument("--baseline", default="uct",
                   help="the opponent of every row: uct (default) or another row")
    p.add_argument("--seed", type=int, default=2026)
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--out", default="bench/ablation", help="folder of the results files")
    p.add_argument("--quiet", action="store_true")
    args = p.parse_args(argv)
    if args.openings is None:
        args.openings = max(1, args.games // 2)
    valid = rows_for(args.game)
    rows = valid if args.rows is None else [r.strip() for r in args.rows.split(",") if r.strip()]
    bad = [r for r in rows if r not in valid]
    if bad:
        p.error(f"row {bad[0]!r} does not apply to {args.game}; valid rows: {', '.join(valid)}")
    if args.baseline != "uct" and args.baseline not in valid:
        p.error(f"--baseline {args.baseline!r}: choose uct or one of {', '.join(valid)}")
    if args.baseline in rows:
        p.error("--baseline cannot also be a row")
    if not (args.time > 0 and args.games >= 1 and args.openings >= 1):
        p.error("--time, --games and --openings must be positive")
    os.makedirs(args.out, exist_ok=True)
    results = []
    for row in rows:
        x = run_row(args.game, row, args)
        results.append(x)
        print(f"{row}: {x['wins']}-{x['draws']}-{x['losses']} in {x['games']} games, "
              f"score {x['score']:.3f} [{x['low']:.2f}, {x['high']:.2f}]", flush=True)
    table = markdown(args.game, results, args)
    print()
    print(table)
    summary = {"game": args.game, "baseline": args.baseline, "time_per_move": args.time, "games": args.games,
               "openings": args.openings, "seed": args.seed, "rows": results, "table": table}
    name = args.game + ("" if args.baseline == "uct" else f"-vs-{args.baseline}")
    atomic_write(os.path.join(args.out, f"{name}-summary.json"),
                 lambda f: f.write(json.dumps(summary, indent=2).encode()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
