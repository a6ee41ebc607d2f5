"""Engine tables (W-D-L, scores, Elo with intervals) for any game, from the
tournament command with an opening suite.

For each game the engines of its registry that play without a trained
network, the strongest-engine preset (``best``) included, play a round robin
at equal time per move from ``--openings`` random openings, each played twice
with colours swapped; every game goes to ``results/<game>_engines.jsonl`` (the
same command again plays only the missing games) and the tables to
``results/<game>_engines.json``.  It runs ``ttt-engine tournament`` in this
process, so the table is exactly what that command prints::

    nice -n 15 python bench/engines_table.py --game clobber --time 0.1 --openings 50
    nice -n 15 python bench/engines_table.py --game quixo --time 0.1 --openings 50
    nice -n 15 python bench/engines_table.py --game uttt --time 0.1 --openings 50 --dry-run
    nice -n 15 python bench/engines_table.py --game connect4 --time 0.1 --openings 50 \\
        --yardstick 200

``--yardstick N`` also measures every engine on N positions of the game's
exact yardstick suite (for a game that ships one) and adds the share of its
moves that keep the value, and of optimal ones, to the table.

``--games`` defaults to twice ``--openings``.  ``--workers 1`` (default)
plays one game at a time: with time budgets, parallel games would take CPU
from each other (and ``best`` uses two threads).
"""
from __future__ import annotations

import argparse
import os
import shlex
import sys

#: Engines per game for the table (the registry's, without the network
#: engine 'az', which needs a trained network for these games).
ENGINES = {
    "uttt": ["best", "mcts", "treeq", "sarsa", "random"],
    "clobber": ["best", "mcts", "alphabeta", "minimax", "random"],
    "quixo": ["best", "mcts", "alphabeta", "greedy", "heuristic", "random"],
    "connect4": ["best", "mcts", "alphabeta", "random"],
}


def command(args):
    engines = args.engines or ",".join(ENGINES[args.game])
    games = args.games or 2 * args.openings
    out = os.path.join(args.docs, f"{args.game}_engines")
    return ["tournament", "--game", args.game, "--agents", engines, "--time", f"{args.time:g}",
            "--games", str(games), "--openings", str(args.openings), "--workers",
            str(args.workers), "--seed", str(args.seed), "--out", out + ".jsonl",
            "--json", out + ".json"] + (["--quiet"] if args.quiet else []) \
        + (["--yardstick", str(args.yardstick)] if args.yardstick else [])


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--game", choices=sorted(ENGINES), required=True)
    p.add_argument("--time", type=float, default=0.1, help="seconds per move (default 0.1)")
    p.add_argument("--openings", type=int, default=50, help="openings (default 50)")
    p.add_argument("--games", type=int, default=None, help="games per pair (default 2 x openings)")
    p.add_argument("--engines", default=None, help="comma-separated engines (default: the "
                   "game's list in this script)")
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--seed", type=int, default=2026)
    p.add_argument("--docs", default="results",
                   help="folder of the output files (default results)")
    p.add_argument("--yardstick", type=int, default=None, metavar="N",
                   help="also measure every engine on N positions of the game's yardstick suite")
    p.add_argument("--quiet", action="store_true")
    p.add_argument("--dry-run", action="store_true", help="print the command and stop")
    args = p.parse_args(argv)
    cmd = command(args)
    print("ttt-engine " + " ".join(shlex.quote(c) for c in cmd), flush=True)
    if args.dry_run:
        return 0
    from ttt_engine.cli import main as cli_main
    return cli_main(cmd)


if __name__ == "__main__":
    sys.exit(main())
