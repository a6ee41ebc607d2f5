"""Networks of one game against each other and against MCTS, each guiding
PUCT at the same number of simulations (a budget of work, so the result does
not depend on the machine's load): every pairing plays each opening of a
seeded suite twice, colours swapped, and the round robin's table is printed.

    python bench/networks_match.py --game connect4 --simulations 200 --games 200 \\
        base=base.npz gumbel=gumbel.npz --mcts 800 --out race.jsonl
"""
from __future__ import annotations

import argparse
import os
import sys

from ttt_engine import games
from ttt_engine.tournament import Entrant, round_robin


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("networks", nargs="+", metavar="NAME=PATH", help="the networks (.npz)")
    ap.add_argument("--game", required=True, choices=sorted(games.GAMES))
    ap.add_argument("--simulations", type=int, default=200, help="PUCT simulations a move")
    ap.add_argument("--playout-weight", type=float, default=0.5,
                    help="weight of one random playout in each leaf value (default 0.5)")
    ap.add_argument("--mixed-playouts", type=int, default=1,
                    help="how many random playouts that leaf value averages (default 1)")
    ap.add_argument("--mcts", type=int, default=800,
                    help="also MCTS at this many simulations (0: none)")
    ap.add_argument("--games", type=int, default=200, help="games a pairing (even)")
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--out", default=None, help="JSON-lines file of the games (resumable)")
    args = ap.parse_args(argv)
    if args.games < 2 or args.games % 2:
        ap.error(f"--games must be an even number >= 2, got {args.games}")
    if args.simulations < 1 or args.mcts < 0 or args.mixed_playouts < 1:
        ap.error("--simulations and --mixed-playouts must be >= 1 and --mcts >= 0")
    entrants = []
    for spec in args.networks:
        name, sep, path = spec.partition("=")
        if not sep or not name or not path:
            ap.error(f"a network is NAME=PATH, got {spec!r}")
        if not os.path.isfile(path):
            ap.error(f"no such network file: {path}")
        entrants.append(Entrant(name, "az", {"network": os.path.abspath(path),
                                             "playout_weight": args.playout_weight,
                                             "mixed_playouts": args.mixed_playouts,
                                             "simulations": args.simulations}))
    if args.mcts:
        entrants.append(Entrant(f"mcts{args.mcts}", "mcts", {"simulations": args.mcts}))
    if len(entrants) < 2:
        ap.error("give two networks, or one and --mcts")
    r = round_robin(args.game, entrants, args.games, seed=args.seed, workers=1,
                    openings=args.games // 2, out=args.out, progress=False)
    print(f"{args.game}: PUCT at {args.simulations} simulations a move, "
          f"{args.games} games a pairing")
    print(r.markdown())
    return 0


if __name__ == "__main__":
    sys.exit(main())
