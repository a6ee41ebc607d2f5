"""Play Ultimate Tic-Tac-Toe against an engine in the console.

    PYTHONPATH=python python -m ttt_engine.uttt.play --engine mcts --time 1 --side X

At your turn type ``R, C`` (row and column 0-8 of the 9x9 grid, e.g. ``4, 5``);
``moves`` lists your legal moves, ``undo`` takes back your last move (and the
engine's reply), ``quit`` ends the game.  A move that is not legal is refused
with the reason and asked again.
"""
from __future__ import annotations

import argparse
import sys

from ttt_engine._util import check_bool, check_choice, check_seconds, resolve_seed
from ttt_engine.uttt import Board

ENGINES = ("mcts", "treeq", "sarsa", "random")


def make_engine(name, move_time, seed):
    """An agent for ``name`` (one of ENGINES) with ``move_time`` seconds per move."""
    name = check_choice("engine", name, ENGINES)
    move_time = check_seconds("time", move_time)
    if name == "mcts":
        from ttt_engine.agents import MCTSAgent
        return MCTSAgent(time=move_time, seed=seed)
    if name == "random":
        from ttt_engine.agents import RandomAgent
        return RandomAgent(seed=seed)
    from ttt_engine.tree_agents import SarsaAgent, TreeQAgent
    return (TreeQAgent if name == "treeq" else SarsaAgent)(time=move_time, seed=seed)


def play(engine="mcts", move_time=1.0, side="X", seed=None, tiebreak=False,
         input_fn=input, print_fn=print):
    """Run one console game; returns the winner (``"X"``, ``"O"``, ``"draw"``) or
    None if the player quit."""
    side = check_choice("side", str(side).upper(), ("X", "O"))
    agent = make_engine(engine, move_time, resolve_seed(seed))
    board = Board(tiebreak=check_bool("tiebreak", tiebreak))
    print_fn(f"You are {side}; the engine is {agent.name}. Type 'R, C' (0-8), "
             "'moves', 'undo' or 'quit'.")
    while not board.is_terminal():
        print_fn(str(board))
        if board.to_move == side:
            try:
                line = input_fn(f"{side} move (R, C): ").strip()
            except EOFError:
                print_fn("bye")
                return None
            cmd = line.lower()
            if cmd in ("quit", "q", "exit"):
                print_fn("bye")
                return None
            if cmd == "moves":
                print_fn("legal: " + "  ".join(Board.format_move(m) for m in board.legal_moves))
                continue
            if cmd == "undo":
                if len(board.moves) < 2:      # no move of yours on the board yet
                    print_fn("nothing to undo")
                    continue
                board.pop()                    # the engine's reply
                board.pop()                    # your move
                continue
            try:
                board.push(line)
            except ValueError as exc:
                print_fn(f"illegal: {exc}")
        else:
            move = agent.select_move(board)
            board.push(move)
            print_fn(f"{agent.name} plays {Board.format_move(move)}")
    print_fn(str(board))
    w = board.winner
    print_fn("draw" if w == "draw" else ("you win" if w == side else "the engine wins"))
    return w


def main(argv=None):
    p = argparse.ArgumentParser(description="Play Ultimate Tic-Tac-Toe against an engine.",
                                allow_abbrev=False)
    p.add_argument("--engine", default="mcts", help="mcts, treeq, sarsa or random (default mcts)")
    p.add_argument("--time", type=float, default=1.0, help="engine seconds per move (default 1)")
    p.add_argument("--side", default="X", help="your side, X (moves first) or O")
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--tiebreak", action="store_true",
                   help="a drawn game goes to whoever won more local boards")
    args = p.parse_args(argv)
    try:
        play(args.engine, args.time, args.side, args.seed, args.tiebreak)
    except ValueError as exc:
        p.error(str(exc))
    return 0


if __name__ == "__main__":
    sys.exit(main())
