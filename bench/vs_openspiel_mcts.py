#!/usr/bin/env python
"""Ultimate Tic-Tac-Toe: a ttt_engine engine against OpenSpiel's C++ MCTSBot.

OpenSpiel's bot runs with its MCTS-Solver on (``solve=True``), ``uct_c=2``,
one random rollout per simulation (``RandomRolloutEvaluator(1)``) and
``--openspiel-time`` seconds of wall time per step (``max_wall_clock_time``;
default 1 s); ours gets ``--time`` seconds per move (default 0.1 s).  Colours
alternate (ours is X in the even games).  Both rule sets must agree after
every move (the 81 cells, side to move, forced board, end of game and
result): any difference stops the run with both positions printed.  At a free
move OpenSpiel takes two actions (board, then cell); each is one step of its
bot, so it thinks twice as long there.

    pip install ".[compare]"     # open_spiel
    nice -n 15 python bench/vs_openspiel_mcts.py --games 40 --out bench/vs_openspiel.jsonl
    nice -n 15 python bench/vs_openspiel_mcts.py --games 4 --engine mcts   # today's default
    python bench/vs_openspiel_mcts.py --engine az --option solver=True --option endgame=25

``--option KEY=VALUE`` (repeatable) passes an engine option (a Python
literal, else a string).

Every finished game is appended to ``--out`` (JSON lines, with its moves and
our root value after each of our moves): the same command again plays only
the missing games.  Prints W-D-L overall and by colour, and
the score ``(W + D/2) / games``.  Exit status 3 without OpenSpiel.
"""
from __future__ import annotations

import argparse
import json
import sys
import time

EXIT_NO_OPENSPIEL = 3


def check_agree(state, board, ply):
    """Stop the run when OpenSpiel's state, read back through ttt_engine.openspiel, is
    not our board (cells, forced board, side to move, end and result)."""
    from ttt_engine import openspiel
    theirs = openspiel.from_openspiel(state)
    problems = []
    if theirs.to_string() != board.to_string():
        problems.append("positions differ")
    if state.is_terminal() != board.is_terminal():
        problems.append(f"terminal: OpenSpiel {state.is_terminal()}, ours {board.is_terminal()}")
    elif not board.is_terminal():
        if state.current_player() != "XO".index(board.to_move):
            problems.append(f"side to move: OpenSpiel {state.current_player()}, "
                            f"ours {board.to_move}")
    else:
        ret = state.returns()
        os_winner = "X" if ret[0] > 0 else "O" if ret[1] > 0 else "draw"
        if os_winner != board.winner:
            problems.append(f"result: OpenSpiel {os_winner}, ours {board.winner}")
    if problems:
        raise RuntimeError(f"the rule sets disagree after ply {ply}: {'; '.join(problems)}\n"
                           f"OpenSpiel:\n{state}\nttt_engine:\n{board}")


def parse_option(text):
    """``"key=value"`` -> ``(key, value)``, the value a Python literal if it
    reads as one, else the string."""
    import ast
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise ValueError(f"--option takes KEY=VALUE, got {text!r}")
    try:
        value = ast.literal_eval(value)
    except (ValueError, SyntaxError):
        pass
    return key.strip(), value


def our_value(stats):
    """The searcher's value of the position for itself: the root's (PUCT), or
    its most visited move's mean (MCTS); None when the stats have neither."""
    value = stats.get("root_value")
    if value is None and stats.get("children"):
        value = max(stats["children"], key=lambda c: c.get("visits", 0)).get("mean")
    return None if value is None else round(float(value), 3)


def play_one(g, args, pyspiel):
    from ttt_engine import games, openspiel
    from ttt_engine.uttt import Board
    ours_x = g % 2 == 0
    seed = args.seed * 1000 + g
    options = dict(args.options)
    if args.threads:
        options["threads"] = args.threads
    agent = games.get("uttt").make_agent(args.engine, time=args.time, seed=seed, **options)
    game = openspiel.openspiel_game("uttt")
    bot = pyspiel.MCTSBot(game, pyspiel.RandomRolloutEvaluator(1, seed), 2.0, 10**9,
                          args.memory_mb, True, seed, False,
                          pyspiel.ChildSelectionPolicy.UCT, args.openspiel_time)
    state, board = game.new_initial_state(), Board()
    ply, t0, steps = 0, time.perf_counter(), 0
    moves, values = [], []          # every ply; our root value after each of our moves
    while not board.is_terminal():
        ours_to_move = (board.to_move == "X") == ours_x
        if ours_to_move:
            move = agent.select_move(board)
            values.append(our_value(agent.last_stats))
            for a in openspiel.move_to_actions(board, move):
                state.apply_action(a)
        else:           # a free move is two steps of OpenSpiel's bot: the board, the cell
            actions, move = [], None
            while move is None:
                actions.append(bot.step(state))
                steps += 1
                state.apply_action(actions[-1])
                move = openspiel.actions_to_move(board, actions)
        board.push(move)
        moves.append(move)
        ply += 1
        check_agree(state, board, ply)
    winner = board.winner
    ours = "X" if ours_x else "O"
    result = "draw" if winner == "draw" else ("win" if winner == ours else "loss")
    return {"game": g, "seed": seed, "ours": ours, "result": result, "plies": ply,
            "openspiel_steps": steps, "seconds": round(time.perf_counter() - t0, 2),
            "moves": moves, "our_values": values}


def summarize(records):
    def wdl(rs):
        return [sum(r["result"] == k for r in rs) for k in ("win", "draw", "loss")]
    allw = wdl(records)
    n = len(records)
    return {"games": n, "wdl": allw, "score": (allw[0] + allw[1] / 2) / n if n else None,
            "as_first": wdl([r for r in records if r["ours"] == "X"]),
            "as_second": wdl([r for r in records if r["ours"] == "O"])}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=40)
    p.add_argument("--engine", default="best", help="registry engine of ours (default best)")
    p.add_argument("--threads", type=int, default=None, help="threads= for the best engine")
    p.add_argument("--time", type=float, default=0.1, help="our seconds per move")
    p.add_argument("--openspiel-time", type=float, default=1.0,
                   help="OpenSpiel's seconds of wall time per step (default 1)")
    p.add_argument("--memory-mb", type=int, default=1000, help="OpenSpiel's tree memory cap")
    p.add_argument("--seed", type=int, default=2026)
    p.add_argument("--out", default=None, help="JSON-lines file of finished games (resumable)")
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                   help="an option of our engine (repeatable), e.g. endgame=25")
    args = p.parse_args(argv)
    try:
        args.options = [parse_option(o) for o in args.option]
    except ValueError as e:
        p.error(str(e))
    if args.games < 1 or not args.time > 0 or not args.openspiel_time > 0:
        p.error("--games, --time and --openspiel-time must be positive")
    try:
        import pyspiel
    except ImportError:
        print("OpenSpiel is not installed: pip install '.[compare]'", file=sys.stderr)
        return EXIT_NO_OPENSPIEL
    from ttt_engine.tournament._runner import ResultsFile
    done, rfile = {}, None
    if args.out:
        header = {"ttt_engine": "openspiel-match", "engine": args.engine,
                  "threads": args.threads, "options": dict(args.options), "time": args.time,
                  "openspiel_time": args.openspiel_time, "seed": args.seed}
        rfile = ResultsFile(args.out, "openspiel-match", header, same=list(header)[1:])
        done = {r["game"]: r for r in rfile.load() if isinstance(r.get("game"), int)}
        rfile.start()
    records = [done[g] for g in sorted(done) if g < args.games]
    for g in range(args.games):
        if g in done:
            continue
        rec = play_one(g, args, pyspiel)
        records.append(rec)
        if rfile is not None:
            rfile.append([rec])
        s = summarize(records)
        print(f"game {g} (ours {rec['ours']}): {rec['result']} in {rec['plies']} plies, "
              f"{rec['seconds']:.0f} s; so far W-D-L {s['wdl']}, score {s['score']:.3f}",
              flush=True)
    s = summarize(records)
    print(json.dumps({"engine": args.engine, "time": args.time,
                      "openspiel_time": args.openspiel_time, **s}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
