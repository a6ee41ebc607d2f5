"""A Connect Four engine as X from the empty board against the perfect engine.

X wins from the empty board with perfect play, so a strong engine should win
every game: this plays ``--games`` games, seeds 1..N (the seed of both sides),
the engine (a registry name, ``best`` by default, at ``--time`` seconds a move)
as X against :class:`ttt_engine.connect4.perfect.PerfectAgent` as O with no opening
book (it solves every position exactly; the first replies take minutes).  The
exact scores of the positions O meets are kept in ``--memo`` (JSON lines), so
positions that recur across games are solved once and an interrupted run loses
at most the position being solved.  One line per game is appended to ``--out``
(a finished game is not played again), then the result is printed.

    python bench/connect4_vs_perfect.py --engine best --time 0.1 --games 10 \\
        --out results/connect4_best_vs_perfect.jsonl
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

from ttt_engine import games
from ttt_engine.connect4.perfect import PerfectAgent
from ttt_engine.connect4.solver import write_columns


class MemoPerfect(PerfectAgent):
    """The perfect engine (no book) with the exact scores it computes kept on disk."""

    def __init__(self, memo_path, seed):
        super().__init__(seed=seed, book=False)
        self.memo_path = memo_path
        self.memo = {}
        if os.path.isfile(memo_path):
            with open(memo_path) as f:
                for line in f:
                    try:
                        r = json.loads(line)
                    except json.JSONDecodeError:
                        continue              # a line cut by an interruption
                    self.memo[r["moves"]] = {int(c): s for c, s in r["scores"].items()}

    def column_scores(self, board):
        key = write_columns(board, board.moves)
        if key not in self.memo:
            scores = super().column_scores(board)
            self.memo[key] = dict(scores)
            with open(self.memo_path, "a") as f:
                f.write(json.dumps({"moves": key, "scores": scores,
                                    "seconds": round(self.last_stats["time"], 2)}) + "\n")
        return self.memo[key]


def play(engine, seed, memo):
    g = games.get("connect4")
    board = g.new_board()
    x = engine(seed)
    o = MemoPerfect(memo, seed)
    while not board.is_terminal():
        side = x if board.ply % 2 == 0 else o
        board.push(side.select_move(board))
    return {"seed": seed, "moves": write_columns(board, board.moves),
            "winner": board.winner or "draw", "plies": board.ply}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--engine", default="best", help="the registry engine playing X")
    ap.add_argument("--time", type=float, default=0.1, help="its seconds a move")
    ap.add_argument("--games", type=int, default=10, help="games, seeds 1..N")
    ap.add_argument("--out", required=True, help="JSON-lines file of the games (resumable)")
    ap.add_argument("--memo", default=None,
                    help="exact scores met so far (default: OUT with .memo.jsonl)")
    args = ap.parse_args(argv)
    g = games.get("connect4")
    if args.engine not in g.engines:
        ap.error(f"--engine must be one of {', '.join(sorted(g.engines))}, got {args.engine!r}")
    if args.games < 1 or args.time <= 0:
        ap.error("--games must be >= 1 and --time > 0")
    memo = args.memo or os.path.splitext(args.out)[0] + ".memo.jsonl"
    done = {}
    if os.path.isfile(args.out):
        with open(args.out) as f:
            for line in f:
                try:
                    r = json.loads(line)
                except json.JSONDecodeError:
                    continue                  # a line cut by an interruption: replayed
                done[r["seed"]] = r
    for seed in range(1, args.games + 1):
        if seed in done:
            continue
        t0 = time.perf_counter()
        r = play(lambda s: g.make_agent(args.engine, seed=s, time=args.time), seed, memo)
        r.update(engine=args.engine, time=args.time, seconds=round(time.perf_counter() - t0, 1))
        with open(args.out, "a") as f:
            f.write(json.dumps(r) + "\n")
        done[seed] = r
        print(f"seed {seed}: {r['winner']} in {r['plies']} plies ({r['moves']}), "
              f"{r['seconds']} s", flush=True)
    wins = sum(r["winner"] == "X" for r in done.values())
    print(f"{args.engine} ({args.time} s a move) as X against the perfect engine: "
          f"won {wins} of {len(done)} games")
    return 0


if __name__ == "__main__":
    sys.exit(main())
