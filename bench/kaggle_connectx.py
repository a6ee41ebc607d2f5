#!/usr/bin/env python
"""ConnectX bars: our ``perfect`` agent against ConnectX's built-in ``negamax`` in
``kaggle_environments.make("connectx")``, 20 episodes as first player and 20 as second
(the figures of docs/arenas.md).

    pip install ".[kaggle]"
    PYTHONPATH=python python bench/kaggle_connectx.py --out results/kaggle_connectx.jsonl
    PYTHONPATH=python python bench/kaggle_connectx.py --engine best --time 0.5 --episodes 10

Each episode is appended to ``--out`` (JSON lines: result, statuses, our slowest move
in seconds, late moves); the summary is printed: W-D-L as first and as second,
episodes that did not end DONE for both, late moves, and the slowest move of all.
Exit status 1 when a bar is missed (perfect: every first-player episode won, no
second-player episode lost, no error, no late move), 3 without kaggle-environments.
"""
import argparse
import json
import sys


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--engine", default="perfect")
    ap.add_argument("--opponent", default="negamax")
    ap.add_argument("--episodes", type=int, default=40, help="half of them ours first")
    ap.add_argument("--time", type=float, default=None)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    try:
        import kaggle_environments  # noqa: F401
    except ImportError:
        print("kaggle-environments is not installed: pip install '.[kaggle]'", file=sys.stderr)
        return 3
    from ttt_engine import kaggle
    from ttt_engine._util import atomic_write
    budget = {} if args.time is None else {"time": args.time}

    def report(rec):
        print(json.dumps(rec), flush=True)
    records = kaggle.run_matches("connect4", args.engine, args.opponent, args.episodes,
                                 seed=args.seed, budget=budget, report=report)
    s = kaggle.summary(records)
    print(json.dumps({"engine": args.engine, "opponent": args.opponent, **s}))
    if args.out:
        text = "".join(json.dumps(r) + "\n" for r in records) + json.dumps({"summary": s}) + "\n"
        atomic_write(args.out, lambda f: f.write(text.encode()))
    missed = (s["as_first"][1] + s["as_first"][2] or s["as_second"][2] or s["errors"]
              or s["late_moves"])
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
