"""The Connect Four perfect engine against every engine of the registry, both colours.

X wins from the empty board with perfect play, so the perfect engine must win
every game it plays as X; as O it can lose only to an opponent that kept the
win with every move.  Each game records the perfect engine's exact score at
each of its turns (its ``last_stats["score"]``): as O, a score >= 0 at any
turn means the opponent let the win go, and the game must then not be lost.

    python bench/connect4_perfect_vs_engines.py --games 2 --time 0.1 \\
        [--engines random,alphabeta,mcts,best,az] [--book PATH] \\
        [--out results/connect4_perfect_vs_engines.jsonl]

``--games`` games a colour and engine, seeds 1..N (the seed of both sides);
each opponent plays at ``--time`` seconds a move (``random`` takes none).
A finished game in ``--out`` is not played again.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

from ttt_engine import games
from ttt_engine.connect4 import perfect as connect4_perfect
from ttt_engine.connect4.solver import write_columns


def play(opponent, perfect, perfect_is_x):
    g = games.get("connect4")
    board = g.new_board()
    scores = []
    while not board.is_terminal():
        if (board.ply % 2 == 0) == perfect_is_x:
            move = perfect.select_move(board)
            scores.append(perfect.last_stats["score"])
        else:
            move = opponent.select_move(board)
        board.push(move)
    return board, scores


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=2, help="games a colour and engine")
    ap.add_argument("--time", type=float, default=0.1, help="the opponents' seconds a move")
    ap.add_argument("--engines", default="random,alphabeta,mcts,best,az")
    ap.add_argument("--book", default=None, help="a book file (default: the shipped one)")
    ap.add_argument("--out", default=None, help="JSON lines, one a game (resumable)")
    args = ap.parse_args(argv)
    g = games.get("connect4")
    names = [n.strip() for n in args.engines.split(",") if n.strip()]
    unknown = [n for n in names if n not in g.engines]
    if unknown:
        ap.error(f"--engines: unknown {', '.join(unknown)} (known: {', '.join(sorted(g.engines))})")
    if args.games < 1 or args.time <= 0:
        ap.error("--games must be >= 1 and --time > 0")
    done = {}
    if args.out and os.path.isfile(args.out):
        with open(args.out) as f:
            for line in f:
                try:
                    r = json.loads(line)
                except json.JSONDecodeError:
                    continue                      # a line cut by an interruption
                done[(r["engine"], r["perfect"], r["seed"])] = r
    for name in names:
        for side in ("X", "O"):
            for seed in range(1, args.games + 1):
                if (name, side, seed) in done:
                    continue
                budget = {} if name == "random" else {"time": args.time}
                opponent = g.make_agent(name, seed=seed, **budget)
                perfect = connect4_perfect.PerfectAgent(seed=seed, book=args.book)
                t0 = time.perf_counter()
                board, scores = play(opponent, perfect, side == "X")
                winner = board.winner or "draw"
                r = {"engine": name, "perfect": side, "seed": seed, "winner": winner,
                     "moves": write_columns(board, board.moves), "perfect_scores": scores,
                     "opponent_let_go": side == "O" and any(s >= 0 for s in scores),
                     "seconds": round(time.perf_counter() - t0, 1)}
                done[(name, side, seed)] = r
                if args.out:
                    with open(args.out, "a") as f:
                        f.write(json.dumps(r) + "\n")
                print(f"perfect as {side} vs {name} (seed {seed}): {winner} in "
                      f"{board.ply} plies, {r['seconds']} s", flush=True)
    bad = []
    for (name, side, seed), r in sorted(done.items()):
        lost = r["winner"] not in (side, "draw")
        if side == "X" and r["winner"] != "X":
            bad.append(r)
        elif side == "O" and lost and r["opponent_let_go"]:
            bad.append(r)
    for name in names:
        rows = [r for (n, _, _), r in done.items() if n == name]
        as_x = [r for r in rows if r["perfect"] == "X"]
        as_o = [r for r in rows if r["perfect"] == "O"]
        print(f"{name:>10}: perfect as X won {sum(r['winner'] == 'X' for r in as_x)} of "
              f"{len(as_x)}; as O won {sum(r['winner'] == 'O' for r in as_o)}, drew "
              f"{sum(r['winner'] == 'draw' for r in as_o)}, lost "
              f"{sum(r['winner'] == 'X' for r in as_o)} of {len(as_o)} (lost after the "
              f"opponent let the win go: {sum(r['opponent_let_go'] and r['winner'] == 'X' for r in as_o)})")
    print("every game as the theory says" if not bad else f"{len(bad)} game(s) against the theory")
    return 0 if not bad else 1


if __name__ == "__main__":
    sys.exit(main())
