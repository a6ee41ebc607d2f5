"""A quick match: MCTS with the shipped UTTT value network at every new leaf against plain
MCTS (a random playout a leaf), at equal time a move (docs/valuenet.md).

    python bench/valuenet_match.py [--games 20] [--time 0.05] [--weights 1.0,0.5]
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from ttt_engine import valuenet  # noqa: E402
from ttt_engine.agents import MCTSAgent, play_match  # noqa: E402
from ttt_engine.uttt import Board  # noqa: E402

NETWORK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python", "ttt_engine",
                       "networks", "uttt_value.npz")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--games", type=int, default=20)
    p.add_argument("--time", type=float, default=0.05)
    p.add_argument("--weights", default="1.0,0.5")
    args = p.parse_args()
    net = valuenet.load(NETWORK)
    for w in (float(x) for x in args.weights.split(",")):
        a = MCTSAgent(time=args.time, seed=1, value_network=net, value_weight=w)
        b = MCTSAgent(time=args.time, seed=2)
        t = time.time()
        r = play_match(a, b, games=args.games, board_factory=Board, seed=7)
        print(f"value_weight {w}: {r} ({time.time() - t:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
