"""``ttt-engine play``: a game against an engine in the console, or two engines
watched; every game of the registry, every engine of the game."""
from __future__ import annotations

import argparse
import time

from ttt_engine.cli import _options as O
from ttt_engine.cli._engines import CACHE_HELP
from ttt_engine.cli._errors import EXIT_OK, EXIT_USAGE, PROG, CLIError, MoveError
from ttt_engine.cli._games import GAMES, engine_help, resolve_engine
from ttt_engine.cli.console import Console
from ttt_engine.cli._report import engine_stats, exact_score_text, format_stats

__all__ = ["add_parser", "run", "play_one_game"]


def _result_line(winner, player_names, style):
    """``player_names``: symbol -> display name."""
    if winner == "draw":
        return style("Draw.", "bold", "yellow")
    if winner is None:
        return "Game not finished."
    return style(f"{winner} wins: {player_names[winner]}.", "bold", "green")


class _Players:
    """Who plays each side in one game: None for the human, else an agent."""

    def __init__(self, agents, names):
        self.agents = agents      # symbol -> agent or None
        self.names = names        # symbol -> display name


def _show_board(console, game, board, last, args):
    console.say(game.draw(board, console.style, last, args))


def play_one_game(console, game, args, players, delay=0.0):
    """Play one game; return the winner symbol (or "draw")."""
    board = game.new_board(args)
    style = console.style
    last = None
    for agent in players.agents.values():
        reset = getattr(agent, "reset", None)
        if callable(reset):
            reset()
    console.say()
    _show_board(console, game, board, last, args)
    while not board.is_terminal():
        side = board.to_move
        agent = players.agents[side]
        if agent is None:
            move = _ask_human_move(console, game, board, args, side)
        else:
            t0 = time.perf_counter()
            move = agent.select_move(board.copy())
            elapsed = time.perf_counter() - t0
            text = game.move_text(board, move, args)
            line = f"{players.names[side]} ({side}) plays {style(text, 'bold')}"
            if args.verbose:
                stats = engine_stats(agent)
                if stats is None and hasattr(agent, "move_scores"):
                    stats = {"exact": exact_score_text(agent.move_scores(board)[move])}
                elif stats is None and hasattr(agent, "q_values"):
                    try:
                        stats = {"Q": float(agent.q_values(board)[move])}
                    except (TypeError, ValueError, IndexError, KeyError):
                        stats = None
                line += f"  [{format_stats(stats, elapsed)}]"
            console.say(line)
            if delay:
                time.sleep(delay)
        try:
            board.push(move)
        except ValueError as e:  # an engine returned an illegal move: a bug, say it plainly
            raise CLIError(f"{players.names[side]} returned an illegal move: {e}") from None
        last = move
        console.say()
        _show_board(console, game, board, last, args)
    console.say(_result_line(board.winner, players.names, style))
    return board.winner


def _ask_human_move(console, game, board, args, side):
    hint = game.prompt_hint(board, args)
    while True:
        text = console.ask(f"Your move ({side}) [{hint}]: ")
        if text in ("?", "h", "help"):
            texts = [game.move_text(board, m, args) for m in board.legal_moves]
            legal = ("; " if any("," in t for t in texts) else ", ").join(texts)
            console.say(game.legend(args, console.style))
            console.say(f"Legal moves: {legal}")
            continue
        try:
            return game.parse_move(board, text, args)
        except MoveError as e:
            console.say(console.style(f"Not a legal move: {e}", "red"))


def run(args):
    """Play the games; returns the exit status."""
    console = Console.for_args(args)
    game = GAMES[args.game]
    opp_name = args.opponent or game.default_opponent
    opp_spec = resolve_engine(game, opp_name)
    watch_spec = resolve_engine(game, args.watch, "--watch") if args.watch else None
    first, second = game.sides
    if args.side is not None:
        args.side = args.side.upper()
    if args.side is not None and args.side not in game.sides:
        raise CLIError(f"--side must be one of {', '.join(game.sides)} for {game.title}; "
                       f"got {args.side!r}", EXIT_USAGE)
    # which symbol is "you" (or the watched engine) in the first game
    you = args.side
    if args.first is not None:
        wanted = first if args.first in ("you", "alternate") else second
        if you is not None and you != wanted:
            raise CLIError(f"--side {you} contradicts --first {args.first} "
                           f"({first} always moves first in {game.title})", EXIT_USAGE)
        you = wanted
    you = you or first
    alternate = args.first == "alternate"

    if getattr(args, "board", None) == "-":
        raise CLIError("--board - cannot be used with play: the moves are read from stdin; "
                       "give a file", EXIT_USAGE)
    game.new_board(args)          # a bad --size/--board fails here, before anything is shown
    watch = watch_spec is not None
    if not watch:
        console.say(console.style(f"{game.title}: you against the {opp_name} engine.", "bold"))
        console.say(game.legend(args, console.style))
    cache = {}

    def agent_for(spec, symbol):
        key = (spec.name, symbol)
        if key not in cache:
            cache[key] = spec.build(args, game.sides.index(symbol), console)
        return cache[key]

    score = {"you": 0, "them": 0, "draw": 0}
    you_label = f"{args.watch} (watched)" if watch else "you"
    them_label = opp_name if not watch or args.watch != opp_name else f"{opp_name} (opponent)"
    games_played = 0
    while True:
        them = second if you == first else first
        agents = {you: agent_for(watch_spec, you) if watch else None,
                  them: agent_for(opp_spec, them)}
        names = {you: you_label, them: them_label}
        if watch:
            console.say(f"\n{names[first]} ({first}) against {names[second]} ({second}).")
        winner = play_one_game(console, game, args, _Players(agents, names),
                               delay=args.delay if watch else 0.0)
        games_played += 1
        if winner == "draw":
            score["draw"] += 1
        elif winner == you:
            score["you"] += 1
        else:
            score["them"] += 1
        console.say(f"Score: {you_label} {score['you']}, {them_label} {score['them']}, "
                    f"draws {score['draw']}")
        if args.games is not None:
            if games_played >= args.games:
                return EXIT_OK
        elif not console.yes_no("Play again?"):
            console.say("Bye.")
            return EXIT_OK
        if alternate:
            you = them


def add_parser(subparsers):
    fmt = argparse.RawDescriptionHelpFormatter
    p = subparsers.add_parser(
        "play", formatter_class=fmt,
        help="play against an engine, or watch two engines",
        description="Play a game against an engine in the console, or watch two engines.\n\n"
                    "Tic-Tac-Toe cells are numbered 1-9 like a phone keypad (7 8 9 is the "
                    "bottom row);\n--zero-based uses 0-8 as in the old seed-000 program. The "
                    "board is drawn after\nevery move with the numbers of the free cells. "
                    "At the prompt: a move, ? for the\nlegal moves, q to quit. Ctrl-D ends "
                    "(status 0), Ctrl-C interrupts (status 130).",
        epilog="engines per game:\n" + engine_help() + "\n\n" + CACHE_HELP + "\n\nexamples:\n"
               f"  {PROG} play                          you (X) against the perfect engine\n"
               f"  {PROG} play --opponent q --side O    the Q-learning engine moves first\n"
               f"  {PROG} play --opponent mcts --time 0.5 --verbose\n"
               f"  {PROG} play --watch random --opponent perfect --games 3")
    O.add_common(p, GAMES)
    p.add_argument("--opponent", metavar="ENGINE",
                   help="the engine you play against (see the list below)")
    p.add_argument("--watch", metavar="ENGINE",
                   help="engine vs engine: ENGINE plays your side against --opponent")
    p.add_argument("--side", metavar="SIDE",
                   help="your side (ttt/uttt/quixo: X or O; X moves first); default: first")
    p.add_argument("--first", choices=("you", "engine", "alternate"),
                   help="who moves first; 'alternate' swaps sides after each game")
    p.add_argument("--games", type=O.count(1, O.MAX_GAMES), metavar="N",
                   help="play N games and stop (no 'play again?' question)")
    p.add_argument("--delay", type=O.seconds(0, O.MAX_DELAY, lo_open=False), default=0.0, metavar="SECONDS",
                   help="pause after each engine move when watching (default 0)")
    p.add_argument("--verbose", "-v", action="store_true",
                   help="show the engine's statistics (simulations, nodes, value, time)")
    p.add_argument("--zero-based", action="store_true",
                   help="Tic-Tac-Toe: number cells 0-8 instead of 1-9")
    p.add_argument("--size", metavar="SIZE",
                   help="board size: Clobber ROWSxCOLS (default 6x5, up to 8x8), "
                        "Quixo 3, 4 or 5 (default 5)")
    p.add_argument("--board", metavar="FILE",
                   help="start position from a file: Clobber rows of B, W, _; Quixo the "
                        "25-character string; UTTT Board.to_string() (81 cells, ':', forced "
                        "board or *)")
    O.add_engine_options(p)
    p.set_defaults(run=run)

    return p
