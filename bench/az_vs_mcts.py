"""The AlphaZero agent against MCTS through the tournament module.

Two matches (colours alternating, the results appended to JSON-lines files so
an interrupted run resumes where it stopped):

1. at equal simulations: PUCT guided by the network at ``--simulations``
   (default 800) against MCTS with random playouts at the same number;
2. at equal wall time: both at ``--time`` seconds per move (default 0.1).

    PYTHONPATH=python python bench/az_vs_mcts.py --game uttt --games 100 --out runs/az
    PYTHONPATH=python python bench/az_vs_mcts.py --network my.npz --skip-time
    PYTHONPATH=python python bench/az_vs_mcts.py --skip-simulations --games 40 \
        --option batch_size=8 --option expand_after=0 --out runs/b8e0

``--option KEY=VALUE`` (repeatable) passes an option to the ``az`` engine (a
Python literal, else a string), over the game's shipped settings.

Prints each match's table (wins-draws-losses, score, Elo) and writes
``<out>/summary.json`` atomically.
"""
from __future__ import annotations

import argparse
import ast
import json
import os
import sys

from ttt_engine import _util
from ttt_engine.tournament import Entrant, round_robin


def match(game, network, games, *, simulations=None, time=None, out=None, seed=1,
          workers=1, progress=True, options=None):
    az_kw = {"network": os.path.abspath(network)} if network else {}
    az_kw.update(options or {})
    entrants = [Entrant("az", "az", az_kw), Entrant("mcts", "mcts")]
    return round_robin(game, entrants, games, simulations=simulations, time_per_move=time,
                       seed=seed, out=out, workers=workers, progress=progress)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", default="uttt")
    ap.add_argument("--network", default=None, help="network file (default: the shipped one)")
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--simulations", type=int, default=800)
    ap.add_argument("--time", type=float, default=0.1)
    ap.add_argument("--skip-time", action="store_true", help="only the equal-simulations match")
    ap.add_argument("--skip-simulations", action="store_true", help="only the equal-time match")
    ap.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                    help="an option of the az engine (repeatable)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--out", default=None, help="folder for the results (resumable)")
    args = ap.parse_args(argv)
    if args.skip_time and args.skip_simulations:
        ap.error("--skip-time and --skip-simulations leave no match to play")
    options = {}
    for text in args.option:
        key, sep, value = text.partition("=")
        if not sep or not key:
            ap.error(f"--option {text!r}: expected KEY=VALUE, e.g. batch_size=8")
        try:
            options[key] = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            options[key] = value
    if args.out:
        os.makedirs(args.out, exist_ok=True)
    try:        # a bad option or game: one line now, not one per game
        from ttt_engine import games as _games
        _games.get(args.game).make_agent("az", time=args.time, **options)
    except (ValueError, TypeError, KeyError) as e:
        ap.error(str(e).strip("'\""))
    summary = {"game": args.game, "network": args.network or "shipped", "options": options}

    def path(name):
        return os.path.join(args.out, name) if args.out else None

    if not args.skip_simulations:
        r = match(args.game, args.network, args.games, simulations=args.simulations,
                  out=path("equal_simulations.jsonl"), seed=args.seed, workers=args.workers,
                  options=options)
        print(f"\n{args.game}: az vs mcts, {args.simulations} simulations per move each")
        print(r.markdown())
        summary["equal_simulations"] = {"simulations": args.simulations, **_score(r)}
    if not args.skip_time:
        r = match(args.game, args.network, args.games, time=args.time,
                  out=path("equal_time.jsonl"), seed=args.seed + 1, workers=args.workers,
                  options=options)
        print(f"\n{args.game}: az vs mcts, {args.time} s per move each")
        print(r.markdown())
        summary["equal_time"] = {"time": args.time, **_score(r)}
    if args.out:
        _util.atomic_write(os.path.join(args.out, "summary.json"),
                           lambda f: f.write(json.dumps(summary, indent=2).encode()))
    print(json.dumps(summary, indent=2))
    return 0


def _score(result):
    """W-D-L and score of 'az' against 'mcts', moving first and second."""
    wdl = result.wdl("az", "mcts")
    first = result.wdl("az", "mcts", "first")
    second = result.wdl("az", "mcts", "second")
    n = sum(wdl)
    return {"games": n, "wins": wdl[0], "draws": wdl[1], "losses": wdl[2],
            "score": (wdl[0] + wdl[1] / 2) / n if n else None,
            "as_first": list(first), "as_second": list(second)}


if __name__ == "__main__":
    sys.exit(main())
