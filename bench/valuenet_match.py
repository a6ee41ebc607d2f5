"""A value-network MCTS against plain MCTS at equal time a move (docs/valuenet.md).

The value side is ``MCTSAgent`` with ``--network`` at every new leaf (mixed
with a playout when ``--value-weight`` < 1) and ``--settings`` over it; the
other side is plain ``MCTSAgent`` (UCT, random playouts: the bar's opponent),
or ``--opponent`` settings, or an engine of the game's registry (``--against
best``).  ``--exact-first`` puts the game's exact solve before the value side's
search (``ExactFirstAgent``, as the ``valuenet`` engine does); ``--engine
valuenet`` plays the ``valuenet`` engine with ``--network`` instead, built with
``--settings`` (``engines.valuenet``'s: ``search``, ``depth``, ``exact_share``;
and ``exact_untimed``: the exact solve bounded by positions, not time).  Every opening of a seeded suite is played twice
with colours swapped (the tournament module), the games appended to ``--out``
so an interrupted run resumes.

    python bench/valuenet_match.py --game uttt --games 200 --time 0.1
    python bench/valuenet_match.py --network uttt_value.npz --settings '{"c": 0.7}' --games 40
    python bench/valuenet_match.py --game clobber --against best --exact-first --games 100
    python bench/valuenet_match.py --game clobber --engine valuenet --against best --games 100 \
        --settings '{"search": "alphabeta", "depth": 6, "exact_share": 0.3}'
"""
from __future__ import annotations

import argparse
import json
import os

from ttt_engine import games, valuenet
from ttt_engine.agents import MCTSAgent
from ttt_engine.valuenet.agent import ExactFirstAgent
from ttt_engine.tournament import Entrant, round_robin

NETWORKS = os.path.join(os.path.dirname(os.path.abspath(valuenet.__file__)), "..", "networks")


def value_mcts(network, seed=None, time=None, simulations=None, **settings):
    """``MCTSAgent`` with the value network file ``network`` at its leaves."""
    return MCTSAgent(seed=seed, time=time, simulations=simulations,
                     value_network=valuenet.load(network), **settings)


def exact_first_value_mcts(network, game, seed=None, time=None, simulations=None, **settings):
    """:func:`value_mcts` behind the game's exact solve (``ExactFirstAgent``)."""
    return ExactFirstAgent(value_mcts(network, seed=seed, time=time, simulations=simulations,
                                      **settings), game, time=time)


def valuenet_engine(network, game, seed=None, time=None, simulations=None, exact_untimed=False,
                    **settings):
    """The ``valuenet`` engine of ``game`` with the network file ``network``,
    built with ``settings`` (:func:`ttt_engine.engines.valuenet`'s).  With
    ``exact_untimed`` the game's exact solve comes first bounded by its
    positions, not by the move's time (a ceiling: perfect play wherever that
    bound reaches), and the engine gets the whole move when it fails."""
    from ttt_engine import engines
    if exact_untimed:
        settings["exact_first"] = False
    build = engines.valuenet(game, **settings).factory
    agent = build(seed=seed, time=time, simulations=simulations, value_network=network)
    return ExactFirstAgent(agent, game, time=None) if exact_untimed else agent


def even(text):
    """An even number of games >= 2 (each opening with both colours)."""
    n = int(text)
    if n < 2 or n % 2:
        raise argparse.ArgumentTypeError(f"must be an even number >= 2, got {n}")
    return n


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", default="uttt", choices=sorted(games.GAMES))
    ap.add_argument("--network", default=None,
                    help="value network file (default: the game's shipped one)")
    ap.add_argument("--settings", default='{"solver": true}',
                    help="MCTSAgent settings of the value side as JSON")
    ap.add_argument("--opponent", default="{}",
                    help="MCTSAgent settings of the other side as JSON (default: plain MCTS)")
    ap.add_argument("--against", default=None,
                    help="an engine of the game (e.g. best) as the other side, not MCTSAgent")
    ap.add_argument("--exact-first", action="store_true",
                    help="the game's exact solve before the value side's search")
    ap.add_argument("--engine", default=None, choices=["valuenet"],
                    help="the value side is this engine of the game with --network")
    ap.add_argument("--games", type=even, default=20, help="games (an even number)")
    ap.add_argument("--time", type=float, default=0.1, help="seconds a move, each side")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default=None, help="JSON-lines file of the games (resumable)")
    args = ap.parse_args(argv)
    network = args.network or os.path.join(NETWORKS, f"{args.game}_value.npz")
    if not os.path.isfile(network):
        ap.error(f"--network: no such file: {network}")
    try:
        settings = json.loads(args.settings)
        opponent = json.loads(args.opponent)
    except json.JSONDecodeError as e:
        ap.error(f"--settings/--opponent is not JSON: {e}")
    network = os.path.abspath(network)
    if args.engine:
        value = Entrant("value", valuenet_engine, dict(settings, network=network, game=args.game))
    elif args.exact_first:
        value = Entrant("value", exact_first_value_mcts,
                        dict(settings, network=network, game=args.game))
    else:
        value = Entrant("value", value_mcts, dict(settings, network=network))
    if args.against and args.against not in games.get(args.game).engines:
        ap.error(f"--against: {args.game} has no engine {args.against!r}")
    other = (Entrant(args.against, args.against, opponent) if args.against
             else Entrant("plain", MCTSAgent, opponent))
    entrants = [value, other]
    table = round_robin(args.game, entrants, args.games, time_per_move=args.time,
                        seed=args.seed, out=args.out, workers=1, openings=args.games // 2,
                        progress=False).markdown()
    side = args.engine or ("exact-first MCTS" if args.exact_first else "MCTS")
    other = args.against or "MCTS"
    return print(f"\n{args.game}: {side} with {os.path.basename(network)} {settings} against "
                 f"{other} {opponent or '(plain)'}, {args.time} s a move\n{table}") or 0


if __name__ == "__main__":
    raise SystemExit(main())
