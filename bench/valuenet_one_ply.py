"""A value network alone on its game's exact yardstick: one ply (alpha-beta of
depth 1 with the network at the horizon; a move that ends the game scores its
result), no exact solve, no time budget.  Prints each network's result (keeps
the value / optimal, on the critical positions and on all).

    PYTHONPATH=python python bench/valuenet_one_ply.py --game connect4 \\
        python/ttt_engine/networks/connect4_value.npz [OTHER.npz ...] [--sample N]
"""
import argparse

from ttt_engine import valuenet, yardstick
from ttt_engine.agents import AlphaBetaAgent


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("networks", nargs="+", help="value network files of the game")
    ap.add_argument("--game", default="connect4")
    ap.add_argument("--sample", type=int, default=None,
                    help="only N positions of the suite (default: all)")
    ap.add_argument("--seed", type=int, default=1, help="the sample's seed (default 1)")
    args = ap.parse_args()
    for path in args.networks:
        net = valuenet.load(path, args.game)
        agent = AlphaBetaAgent(depth=1, seed=args.seed, value_network=net)
        result = yardstick.yardstick(agent, game=args.game, sample=args.sample, seed=args.seed)
        print(f"{path} ({net.features}, {net.num_features} x {net.hidden}), one ply:")
        print(result)


if __name__ == "__main__":
    main()
