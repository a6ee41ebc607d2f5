"""``ttt-engine kaggle run``: our engines in Kaggle's environments (ConnectX for Connect
Four, the Game Arena's OpenSpiel games for Ultimate Tic-Tac-Toe and Clobber), episodes
played in the real environment, each result printed as it ends and a summary at the
end (docs/arenas.md)."""
from __future__ import annotations

import json

from ttt_engine.cli import _options as O
from ttt_engine.cli._errors import EXIT_OK, EXIT_USAGE, CLIError

__all__ = ["add_parser", "run"]


def add_parser(subparsers):
    from ttt_engine.kaggle import ENVIRONMENTS
    p = subparsers.add_parser(
        "kaggle", help="our engines in Kaggle's ConnectX and Game Arena environments",
        description="Play our engines in Kaggle's environments (the kaggle extra: "
                    "pip install 'ttt_engine[kaggle]').")
    sub = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    r = sub.add_parser("run", help="play episodes against an opponent and print the results",
                       description="Play episodes in the real Kaggle environment of the game "
                                   "(connect4: connectx; uttt, clobber: the Game Arena's "
                                   "OpenSpiel environments), ours first in the even episodes.")
    r.add_argument("--game", required=True, choices=list(ENVIRONMENTS))
    r.add_argument("--engine", default="best", help="our engine (default best)")
    r.add_argument("--opponent", default="random",
                   help="a built-in agent of the environment (connectx: negamax, random; the "
                        "Game Arena: random) or an engine of ours (default random)")
    r.add_argument("--episodes", type=O.count(1, 100_000), default=2)
    r.add_argument("--time", type=O.seconds(), default=None,
                   help="seconds per move of our engine (engines on a time budget default "
                        "to 1 s)")
    r.add_argument("--simulations", type=O.count(1, 10 ** 9), default=None)
    r.add_argument("--seed", type=O.count(0, 2 ** 63 - 1), default=0)
    r.add_argument("--json", action="store_true", help="print each episode and the summary "
                                                       "as JSON lines")
    p.set_defaults(run=run)
    return p


def run(args):
    from ttt_engine import kaggle
    budget = {k: v for k, v in (("time", args.time), ("simulations", args.simulations))
              if v is not None}

    def report(rec):
        if args.json:
            print(json.dumps(rec), flush=True)
            return
        side = "first" if rec["ours_first"] else "second"
        print(f"episode {rec['episode'] + 1} (ours {side}): {rec['result']} in "
              f"{rec['steps']} steps, slowest move {rec['worst_move']:.3f} s"
              + (f", {rec['late']} late" if rec["late"] else "")
              + ("" if rec["result"] != "error" else f" (status {rec['status']})"),
              flush=True)
    try:
        records = kaggle.run_matches(args.game, args.engine, args.opponent, args.episodes,
                                     seed=args.seed, budget=budget, report=report)
    except ImportError as e:
        raise CLIError(str(e)) from None
    except ValueError as e:
        raise CLIError(str(e), EXIT_USAGE) from None
    s = kaggle.summary(records)
    if args.json:
        print(json.dumps({"summary": s}))
    else:
        print(f"{args.engine} vs {args.opponent}, {s['episodes']} episodes: W-D-L "
              f"{'-'.join(map(str, s['wdl']))} (first {'-'.join(map(str, s['as_first']))}, "
              f"second {'-'.join(map(str, s['as_second']))}); errors {s['errors']}, late "
              f"moves {s['late_moves']}, slowest move {s['worst_move']:.3f} s")
    return EXIT_OK
