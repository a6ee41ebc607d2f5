"""A network-guided search against the game's classical strongest engine.

The match that decides whether a game's ``best`` preset becomes network-guided:
PUCT guided by ``--network`` (an ``AZAgent`` with the given settings) against
MCTS-Solver with the game's ``best_mcts`` settings, both at ``--time`` seconds
a move on ``--threads`` threads, each opening of a seeded suite played twice
with colours swapped.  The games are appended to ``--out`` (JSON lines), so an
interrupted run resumes where it stopped; the table and the score of the
network side are printed.  ``--challenger mcts`` puts MCTS-Solver with
``best_mcts`` updated by ``--settings`` in the network's place (no network),
to measure a change to the classical preset the same way.

    python bench/best_vs_classical.py --game connect4 --network c4.npz \\
        --games 100 --time 0.1 --out results/best_vs_classical_connect4.jsonl
    python bench/best_vs_classical.py --game clobber --network clobber.npz \\
        --settings '{"playout_weight": 0.5}' --games 100
    python bench/best_vs_classical.py --game clobber --challenger mcts \
        --settings '{"endgame": 24}' --games 100
"""
from __future__ import annotations

import argparse
import json
import os
import sys

from ttt_engine import games
from ttt_engine.agents import AZAgent, MCTSAgent
from ttt_engine.tournament import Entrant, round_robin


def entrants(game, network, settings, threads, challenger="network", classical=None):
    """The two sides: ``network`` (PUCT with ``settings``; with ``challenger``
    "mcts", MCTS-Solver with ``best_mcts`` and ``settings``) and ``classical``
    (MCTS-Solver with ``classical``, default the game's ``best_mcts``)."""
    g = games.get(game)
    if classical is None:
        classical = g.best_mcts or {"solver": True}
    classical = dict(classical, threads=threads, max_nodes=2_000_000)
    if challenger == "mcts":
        return [Entrant("challenger", MCTSAgent, dict(classical, **settings)),
                Entrant("classical", MCTSAgent, classical)]
    net = dict(settings, network=os.path.abspath(network), threads=threads)
    return [Entrant("network", AZAgent, net), Entrant("classical", MCTSAgent, classical)]


def _json_object(ap, flag, text, agent):
    """The JSON object of ``flag``'s ``text``; a parser error in one line otherwise."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as e:
        ap.error(f"{flag} is not JSON: {e}")
    if not isinstance(value, dict):
        ap.error(f"{flag} must be a JSON object of {agent} settings")
    return value


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", required=True, choices=sorted(games.GAMES))
    ap.add_argument("--network", help="the network file (.npz); needed unless --challenger mcts")
    ap.add_argument("--challenger", choices=("network", "mcts"), default="network",
                    help="the side measured against the classical preset: PUCT with "
                    "--network (default), or MCTS-Solver with best_mcts and --settings")
    ap.add_argument("--settings", default="{}",
                    help="AZAgent settings as JSON (default: the agent's own); with "
                    "--challenger mcts, MCTSAgent settings over best_mcts")
    ap.add_argument("--classical", default=None,
                    help="the classical side's MCTSAgent settings as JSON (default: the "
                    "game's best_mcts), e.g. to replay a match against an earlier preset")
    ap.add_argument("--games", type=int, default=100, help="games (an even number)")
    ap.add_argument("--time", type=float, default=0.1, help="seconds a move, each side")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default=None, help="JSON-lines file of the games (resumable)")
    args = ap.parse_args(argv)
    if args.games < 2 or args.games % 2:
        ap.error(f"--games must be an even number >= 2 (each opening with both colours), "
                 f"got {args.games}")
    if args.challenger == "network":
        if args.network is None:
            ap.error("--network is needed (or --challenger mcts)")
        if not os.path.isfile(args.network):
            ap.error(f"--network: no such file: {args.network}")
    elif args.network is not None:
        ap.error("--network does not apply to --challenger mcts")
    settings = _json_object(ap, "--settings", args.settings, "AZAgent")
    classical = (None if args.classical is None
                 else _json_object(ap, "--classical", args.classical, "MCTSAgent"))
    r = round_robin(args.game, entrants(args.game, args.network, settings, args.threads,
                                        args.challenger, classical),
                    args.games, time_per_move=args.time, seed=args.seed, out=args.out,
                    workers=1, openings=args.games // 2)
    side = (f"network ({args.network}, {settings})" if args.challenger == "network"
            else f"MCTS-Solver with {settings}")
    print(f"\n{args.game}: {side} against classical "
          f"MCTS-Solver {classical or games.get(args.game).best_mcts or {'solver': True}}, "
          f"{args.time} s a move, "
          f"{args.threads} threads each")
    print(r.markdown())
    return 0


if __name__ == "__main__":
    sys.exit(main())
