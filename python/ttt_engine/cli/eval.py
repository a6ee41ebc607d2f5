"""``ttt-engine eval``: a saved model or an engine against another engine, a
wins/draws/losses table per side."""
from __future__ import annotations

import argparse
import os
import time

from ttt_engine.cli import _options as O
from ttt_engine.cli._errors import EXIT_OK, EXIT_USAGE, PROG, CLIError
from ttt_engine.cli._games import GAMES, engine_help, resolve_engine
from ttt_engine.cli._report import pct, table
from ttt_engine.cli.console import Console

__all__ = ["add_parser", "run"]


def _play_games(game, args, agent_a, agent_b, n, a_side):
    """Games where agent_a plays ``a_side``: (wins, draws, losses) for agent_a."""
    b_side = game.sides[1] if a_side == game.sides[0] else game.sides[0]
    agents = {a_side: agent_a, b_side: agent_b}
    w = d = l = 0
    for _ in range(n):
        board = game.new_board(args)
        for agent in (agent_a, agent_b):
            if hasattr(agent, "reset"):     # learned agents have no per-game state
                agent.reset()
        while not board.is_terminal():
            board.push(agents[board.to_move].select_move(board.copy()))
        if board.winner == "draw":
            d += 1
        elif board.winner == a_side:
            w += 1
        else:
            l += 1
    return w, d, l


def _load_model(path):
    from ttt_engine import QAgent
    if not os.path.exists(path):
        raise CLIError(f"no model file at {path}")
    try:
        return QAgent.load(path)
    except (ValueError, OSError) as e:
        raise CLIError(f"the model file {path} cannot be used: {e}") from None


def run(args):
    """Play the games and print the table; returns the exit status."""
    console = Console.for_args(args)
    game = GAMES[args.game]
    if args.model and args.engine:
        raise CLIError("give either --model or --engine, not both", EXIT_USAGE)
    side = args.side if args.side.lower() == "both" else args.side.upper()
    sides = list(game.sides) if side.lower() == "both" else [side]
    for s in sides:
        if s not in game.sides:
            raise CLIError(f"--side must be one of {', '.join(game.sides)} or both", EXIT_USAGE)
    opp_spec = resolve_engine(game, args.against, "--against")
    rows = []
    tot = [0, 0, 0]
    t0 = time.perf_counter()
    for side in sides:
        side_index = game.sides.index(side)
        if args.model:
            if game.key != "ttt":
                raise CLIError("--model is for Tic-Tac-Toe Q-learning models", EXIT_USAGE)
            agent = _load_model(args.model)
            name = f"model {os.path.basename(args.model)}"
        else:
            eng = args.engine or game.default_opponent
            agent = resolve_engine(game, eng, "--engine").build(args, side_index, console)
            name = eng
        opp = opp_spec.build(args, 1 - side_index, console)
        w, d, l = _play_games(game, args, agent, opp, args.games, side)
        n = w + d + l
        tot = [tot[0] + w, tot[1] + d, tot[2] + l]
        rows.append([f"{name} as {side}", f"{n:,}", f"{w:,}", f"{d:,}", f"{l:,}",
                     pct(w, n), pct(d, n), pct(l, n)])
    if len(sides) > 1:
        n = sum(tot)
        rows.append(["total", f"{n:,}", f"{tot[0]:,}", f"{tot[1]:,}", f"{tot[2]:,}",
                     pct(tot[0], n), pct(tot[1], n), pct(tot[2], n)])
    console.say(f"{game.title}: against {args.against}, {time.perf_counter() - t0:.2f} s")
    console.say(table(rows, ["player", "games", "W", "D", "L", "win%", "draw%", "loss%"]))
    return EXIT_OK


def add_parser(subparsers):
    fmt = argparse.RawDescriptionHelpFormatter
    p = subparsers.add_parser(
        "eval", formatter_class=fmt,
        help="evaluate a saved model or an engine: W/D/L table",
        description="Play a saved Q-learning model (--model) or an engine (--engine) against "
                    "another\nengine (--against) and print wins/draws/losses.",
        epilog="engines per game:\n" + engine_help() + "\n\nexamples:\n"
               f"  {PROG} eval --model ~/.cache/ttt_engine/ttt-q.npz --against perfect\n"
               f"  {PROG} eval --engine mcts --simulations 2000 --against random --games 200")
    O.add_common(p, GAMES)
    p.add_argument("--engine", metavar="ENGINE", help="engine to evaluate")
    p.add_argument("--against", metavar="ENGINE", default="random",
                   help="opponent engine (default random)")
    p.add_argument("--games", type=O.count(1, O.MAX_GAMES), default=1000, metavar="N",
                   help="games per side (default 1000)")
    p.add_argument("--side", default="both", metavar="SIDE",
                   help="side of the evaluated player: X, O or both (default)")
    p.add_argument("--zero-based", action="store_true", help=argparse.SUPPRESS)
    O.add_engine_options(p)
    p.set_defaults(run=run)

    return p
