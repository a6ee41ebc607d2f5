"""``ttt-engine eval``: a saved model or an engine against another engine, a
wins/draws/losses table per side."""
from __future__ import annotations

import os
import sys
import time

from ttt_engine import games
from ttt_engine.cli import _options as O
from ttt_engine.cli._engines import build_agent
from ttt_engine.cli._errors import EXIT_OK, EXIT_USAGE, CLIError, shorten
from ttt_engine.cli._games import (
    GAMES, check_engine_options, engine_help, new_board, resolve_engine,
)
from ttt_engine.cli._report import pct, table
from ttt_engine.cli.console import Console

__all__ = ["COMMAND", "add_parser", "run"]

COMMAND = O.Command(
    name="eval",
    help="evaluate a saved model or an engine: W/D/L table",
    description="""\
Play a saved Q-learning model (--model) or an engine (--engine) against another
engine (--against) and print wins/draws/losses.""",
    epilog=(engine_help, O.examples(
        "eval --model ~/.cache/ttt_engine/ttt-q.npz --against perfect",
        "eval --engine mcts --simulations 2000 --against random --games 200")))


def _play_games(game, start, agent_a, agent_b, n, a_side, bar=None, tally=None):
    """Games from ``start`` where agent_a plays ``a_side``: (wins, draws, losses,
    capped) for agent_a, ``capped`` the draws a move cap ended (counted in the
    draws too; :func:`ttt_engine.games.capped`); ``bar`` (a progress bar or
    None) advances after each game; ``tally`` (a list of four, or None) is kept
    up to date after each game, so an interrupted run can still report the
    games it finished."""
    b_side = game.sides[1] if a_side == game.sides[0] else game.sides[0]
    agents = {a_side: agent_a, b_side: agent_b}
    wins = draws = losses = capped = 0
    for _ in range(n):
        board = start.copy()
        for agent in (agent_a, agent_b):
            if hasattr(agent, "reset"):     # learned agents have no per-game state
                agent.reset()
        while not board.is_terminal():
            board.push(agents[board.to_move].select_move(board.copy()))
        if board.winner == "draw":
            draws += 1
            capped += games.capped(board)
        elif board.winner == a_side:
            wins += 1
        else:
            losses += 1
        if tally is not None:
            tally[:] = [wins, draws, losses, capped]
        if bar is not None:
            bar.update(1)
    return wins, draws, losses, capped


def _progress_bar(total, desc, quiet):
    """A progress bar with the rate and the time left on stderr, only on a
    terminal (a slow engine can take hours over the default game count)."""
    if quiet or not sys.stderr.isatty():
        return None
    from tqdm.auto import tqdm
    return tqdm(total=total, desc=desc, unit="game", dynamic_ncols=True)


def _model_engine(game):
    """The engine of ``game`` that plays a saved model (``--model``)."""
    for name, engine in game.engines.items():
        if engine.learned == "model":
            return name
    raise CLIError(f"--model does not apply to {game.title}: none of its engines plays a "
                   "saved model", EXIT_USAGE)


def _load_model(game, name, path):
    if not os.path.exists(path):
        raise CLIError(f"no model file at {path}")
    try:
        return game.make_agent(name, model=path)
    except ValueError as e:             # the contents: bad input, as for a board file
        raise CLIError(f"the model file {path} cannot be used: {e}", EXIT_USAGE) from None
    except OSError as e:                # cannot be read
        raise CLIError(f"the model file {path} cannot be read: {e}") from None


def _sides(game, text):
    if text.lower() == "both":
        return list(game.sides)
    if text.upper() not in game.sides:
        raise CLIError(f"--side must be one of {', '.join(game.sides)} or both; got "
                       f"{shorten(text)}", EXIT_USAGE)
    return [text.upper()]


def _row(name, w, d, l, c=0):  # noqa: E741 - wins, draws, losses, capped
    n = w + d + l
    return [name, f"{n:,}", f"{w:,}", f"{d:,}", f"{l:,}", f"{c:,}", pct(w, n), pct(d, n),
            pct(l, n)]


#: the columns of the table: "capped" is the draws a move cap ended (of D)
COLUMNS = ["player", "games", "W", "D", "L", "capped", "win%", "draw%", "loss%"]


def _columns(start, rows):
    """The table's columns and rows: the capped column where the game has a move
    cap (the board says so: ``draw_truncates``) or a game was capped."""
    if getattr(start, "draw_truncates", False) or any(r[5] != "0" for r in rows):
        return COLUMNS, rows
    return COLUMNS[:5] + COLUMNS[6:], [r[:5] + r[6:] for r in rows]


def run(args):
    """Play the games and print the table; returns the exit status."""
    console = Console.for_args(args)
    game = GAMES[args.game]
    if args.model is not None and args.engine is not None:
        raise CLIError("give either --model or --engine, not both", EXIT_USAGE)
    sides = _sides(game, args.side)
    resolve_engine(game, args.against, "--against")
    if args.model:
        name = _model_engine(game)
        for option, key in (("--train-episodes", "train_episodes"), ("--retrain", "retrain")):
            if getattr(args, key):
                raise CLIError(f"{option} does not apply to --model: eval plays the saved "
                               "model as it is", EXIT_USAGE)
    else:
        engine = args.engine if args.engine is not None else game.default_engine
        name = resolve_engine(game, engine, "--engine").name
    check_engine_options(game, [name, args.against], args)
    start = new_board(game, args)
    rows = []
    total = [0, 0, 0, 0]
    t0 = time.perf_counter()
    bar = _progress_bar(args.games * len(sides), f"eval {game.key}", args.quiet)
    current = {}
    try:
        _evaluate(game, name, args, sides, start, console, bar, rows, total, current)
    except KeyboardInterrupt:
        # hours of games are not thrown away: the table of those finished, then exit 130
        if bar is not None:
            bar.close()
        tally = current.get("tally", [0, 0, 0, 0])
        if sum(tally):
            rows.append(_row(f"{current['label']} (interrupted)", *tally))
            total[:] = [t + x for t, x in zip(total, tally)]
        if rows:
            _report(console, game, args, rows, total, t0, start,
                    f"interrupted after {sum(total[:3]):,} of {args.games * len(sides):,} "
                    "games")
        raise
    finally:
        if bar is not None:
            bar.close()
    _report(console, game, args, rows, total, t0, start)
    return EXIT_OK


def _report(console, game, args, rows, total, t0, start, note=None):
    if len(rows) > 1:
        rows.append(_row("total", *total))
    console.say(f"{game.title}: against {args.against}, {time.perf_counter() - t0:.2f} s"
                + (f" ({note})" if note else ""))
    columns, rows = _columns(start, rows)
    console.say(table(rows, columns))
    if "capped" in columns:
        console.say("(capped: the draws that ended at the move cap, not by the rules)")


def _evaluate(game, name, args, sides, start, console, bar, rows, total, current):
    """The games of every side of ``sides``: a row each in ``rows``, the sum in
    ``total``; ``current`` holds the side being played (its label and tally)."""
    for side in sides:
        side_index = game.sides.index(side)
        if args.model:
            player = _load_model(game, name, args.model)
            label = f"model {os.path.basename(args.model)}"
        else:
            player = build_agent(game, name, args, side_index, start, console)
            label = name
        opponent = build_agent(game, args.against, args, 1 - side_index, start, console)
        current.update(label=f"{label} as {side}", tally=[0, 0, 0, 0])
        wdl = _play_games(game, start, player, opponent, args.games, side, bar,
                          current["tally"])
        current.clear()
        total[:] = [t + x for t, x in zip(total, wdl)]
        rows.append(_row(f"{label} as {side}", *wdl))


def add_parser(subparsers):
    p = O.add_command(subparsers, COMMAND, run)
    O.add_common(p, GAMES)
    p.add_argument("--engine", metavar="ENGINE", help="engine to evaluate")
    p.add_argument("--against", metavar="ENGINE", default="random",
                   help="opponent engine (default random)")
    p.add_argument("--games", type=O.count(1, O.MAX_GAMES), default=1000, metavar="N",
                   help="games per side (default 1000; an engine thinking on time, such as "
                        "best at about 1 s a move, takes hours for that: the progress bar "
                        "shows the time left)")
    p.add_argument("--side", default="both", metavar="SIDE",
                   help="side of the evaluated player: X, O or both (default)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    O.add_engine_options(p)
    return p
