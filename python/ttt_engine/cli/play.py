"""``ttt-engine play``: a game against an engine in the console, or two engines
watched; every game of the registry (``ttt_engine.games``), every engine of
the game.  The registry reads, writes and draws the moves; this module runs
the games, the prompts and the score."""
from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass, field

from ttt_engine import games
from ttt_engine.cli import _files
from ttt_engine.cli import _options as O
from ttt_engine.cli._engines import CACHE_HELP, build_agent
from ttt_engine.cli._errors import EXIT_OK, EXIT_USAGE, CLIError, shorten
from ttt_engine.cli._games import (
    GAMES, check_engine_options, engine_help, new_board, notation, resolve_engine,
)
from ttt_engine.analysis import explain
from ttt_engine.cli._report import analysis_text
from ttt_engine.cli.console import Console
from ttt_engine._registry import default_game

__all__ = ["COMMAND", "add_parser", "run", "play_one_game", "Table"]

COMMAND = O.Command(
    name="play",
    help="play against an engine, or watch two engines",
    description="""\
Play a game against an engine in the console, or watch two engines.

Tic-Tac-Toe cells are numbered 1-9 like a phone keypad (7 8 9 is the bottom row);
--zero-based uses 0-8. The board is drawn after
every move with the numbers of the free cells. At the prompt: a move, ? for the
legal moves, q to quit. Ctrl-D ends (status 0), Ctrl-C interrupts (status 130).""",
    epilog=(engine_help, CACHE_HELP, O.examples(
        "play                          you (X) against the perfect engine",
        "play --opponent q --side O    the Q-learning engine moves first",
        "play --opponent mcts --time 0.5 --verbose",
        "play --watch random --opponent perfect --games 3")))

#: Longest text read as a move (longer input is refused without being echoed whole).
MOVE_TEXT_MAX = 40


@dataclass
class Table:
    """One game set up from the command line: the registry's game, the start
    position, the move notation and the console."""
    game: object
    start: object
    notation: dict
    console: Console
    verbose: bool = False
    #: the moves of the game being played (for ``--save``)
    moves: list = field(default_factory=list)
    #: the last board of the last game played
    last_board: object = None

    def draw(self, board, last=None):
        self.console.say(self.game.draw(board, self.console.style, last, **self.notation))

    def move_text(self, board, move):
        return self.game.move_to_str(board, move, **self.notation)


def _result_line(winner, names, style, capped=False):
    """``names``: symbol -> display name; ``capped``: the draw is the move cap's."""
    if winner == "draw":
        return style("Draw (the move cap was reached)." if capped else "Draw.", "bold",
                     "yellow")
    if winner is None:
        return "Game not finished."
    return style(f"{winner} wins: {names[winner]}.", "bold", "green")


#: seconds an engine may think before the console says that it is thinking
THINKING_NOTICE = 2.0


def _engine_move(console, think, board, who):
    """``think(board)`` (the agent's move, or its analysis); a line saying that ``who`` is thinking once the search
    has taken ``THINKING_NOTICE`` seconds (a solve from an opening position can
    take minutes), so the console is never silent for long."""
    timer = threading.Timer(THINKING_NOTICE, console.say,
                            (f"{who} is thinking... (Ctrl-C stops)",))
    timer.daemon = True
    timer.start()
    try:
        return think(board.copy())
    finally:
        timer.cancel()


def play_one_game(table, agents, names, delay=0.0):
    """Play one game from ``table.start``; ``agents``: symbol -> agent (None for
    the person at the console).  Returns the winner symbol (or "draw"; the game's
    last board is ``table.last_board``)."""
    console, style = table.console, table.console.style
    board = table.start.copy()
    table.moves = []
    last = None
    for agent in agents.values():
        if agent is not None and hasattr(agent, "reset"):
            agent.reset()
    console.say()
    table.draw(board)
    while not board.is_terminal():
        side = board.to_move
        agent = agents[side]
        if agent is None:
            move = _ask_human_move(table, board, side)
        else:
            t0 = time.perf_counter()
            # --verbose: the agent's analysis (its own search) chooses and explains the move
            think = (lambda b, agent=agent: explain(agent, b)) if table.verbose \
                else agent.select_move
            got = _engine_move(console, think, board, f"{names[side]} ({side})")
            elapsed = time.perf_counter() - t0
            move = got.best_move if table.verbose else got
            line = f"{names[side]} ({side}) plays {style(table.move_text(board, move), 'bold')}"
            if table.verbose:
                line += f"  [{analysis_text(got, elapsed)}]"
            console.say(line)
            if delay:
                time.sleep(delay)
        try:
            board.push(move)
        except ValueError as e:  # an engine returned an illegal move: a bug, say it plainly
            raise CLIError(f"{names[side]} returned an illegal move: {e}") from None
        last = move
        table.moves.append(move)
        console.say()
        table.draw(board, last)
    table.last_board = board
    console.say(_result_line(board.winner, names, style, games.capped(board)))
    return board.winner


def _ask_human_move(table, board, side):
    console, game = table.console, table.game
    hint = game.prompt_hint(board, **table.notation)
    while True:
        text = console.ask(f"Your move ({side}) [{hint}]: ")
        if text in ("?", "h", "help"):
            texts = [table.move_text(board, m) for m in board.legal_moves]
            legal = ("; " if any("," in t for t in texts) else ", ").join(texts)
            console.say(game.legend(board, **table.notation))
            console.say(f"Legal moves: {legal}")
            continue
        if len(text) > MOVE_TEXT_MAX:
            console.say(console.style(f"Not a legal move: {shorten(text)} is too long for a "
                                      f"move ({len(text)} characters; type {hint})", "red"))
            continue
        try:
            return game.parse_move(board, text, **table.notation)
        except ValueError as e:
            console.say(console.style(f"Not a legal move: {e}", "red"))


def _sides(game, args):
    """The symbol of "you" (or the watched engine) in the first game."""
    first, second = game.sides
    you = None
    if args.side is not None:
        you = args.side.upper()
        if you not in game.sides:
            raise CLIError(f"--side must be one of {', '.join(game.sides)} for {game.title}; "
                           f"got {args.side!r:.40}", EXIT_USAGE)
    if args.first is not None:
        wanted = first if args.first in ("you", "alternate") else second
        if you is not None and you != wanted:
            raise CLIError(f"--side {you} contradicts --first {args.first} "
                           f"({first} always moves first in {game.title})", EXIT_USAGE)
        you = wanted
    return you or first


def _read_from(args):
    """The record of ``--from`` (a file, or the record's text itself), or None.
    An explicit ``--game`` must be the record's game."""
    from ttt_engine.web.record import MAX_RECORD, read_record
    source = getattr(args, "record", None)
    if source is None:
        return None
    if args.board is not None or args.size is not None:
        raise CLIError("give --from or --board / --size, not both", EXIT_USAGE)
    text = source
    is_file = os.path.isfile(source)
    if is_file:
        try:
            with open(source, encoding="utf-8") as f:
                text = f.read(MAX_RECORD + 1)
        except (OSError, UnicodeDecodeError) as e:
            raise CLIError(f"--from {shorten(source)}: cannot be read ({e})", EXIT_USAGE) \
                from None
    elif os.path.isdir(source):
        raise CLIError(f"--from {shorten(source)}: is a folder, not a record file", EXIT_USAGE)
    try:
        record = read_record(text, GAMES[args.game or default_game()])
    except ValueError as e:
        # one line of text that is neither a file nor a record: maybe a mistyped file name
        missing = "" if is_file or "\n" in source.strip() else "no such file, and "
        raise CLIError(f"--from {shorten(source)}: {missing}{e}", EXIT_USAGE) from None
    if args.game is not None and args.game != record.game.key:
        raise CLIError(f"--game {args.game} contradicts --from: that record is a "
                       f"{record.game.title} game ({record.game.key})", EXIT_USAGE)
    return record


def _start(game, args, record):
    """The start position, which must leave a move to play (the error names the
    option that gave it)."""
    if record is not None:
        start, origin = record.board(), "--from: the game of that record"
    else:
        start = new_board(game, args)
        if args.board is not None:
            origin = f"--board {shorten(args.board)}: the game in that position"
        elif args.size is not None:
            origin = f"--size {shorten(args.size)}: a game on that board"
        else:
            origin = f"a new {game.title} board: the game"
    if start.is_terminal():
        raise CLIError(f"{origin} is already over", EXIT_USAGE)
    return start


def _save(path, table, record):
    """Write the record of the game just played to ``path`` (``--save``, checked
    before the first game), atomically."""
    from ttt_engine import _util
    from ttt_engine.web.record import write_record
    game = table.game
    if record is not None:
        first, moves = record.first_board(), list(record.moves) + table.moves
    else:
        first, moves = table.start, table.moves
    start = None if first == game.new_board() else first
    data = write_record(game, moves, start=start).encode("utf-8")
    _files.save(lambda p: _util.atomic_write(p, lambda f: f.write(data), "record file"),
                path, "record file")


def run(args):
    """Play the games; returns the exit status."""
    console = Console.for_args(args)
    if args.save is not None:
        args.save = _files.check_output(args.save, "record file", force=args.force)
    record = _read_from(args)
    args.game = record.game.key if record is not None else args.game or default_game()
    game = GAMES[args.game]
    opp_name = args.opponent if args.opponent is not None else game.default_engine
    resolve_engine(game, opp_name)
    watch = args.watch is not None
    if watch:
        resolve_engine(game, args.watch, "--watch")
    elif args.delay is not None:
        raise CLIError("--delay applies to watching two engines (--watch ENGINE)", EXIT_USAGE)
    check_engine_options(game, [opp_name] + ([args.watch] if watch else []), args)
    you = _sides(game, args)
    first, second = game.sides
    alternate = args.first == "alternate"
    if args.board == "-":
        raise CLIError("--board - cannot be used with play: the moves are read from stdin; "
                       "give a file", EXIT_USAGE)
    start = _start(game, args, record)
    table = Table(game, start, notation(game, args), console, args.verbose)
    if not watch:
        console.say(console.style(f"{game.title}: you against the {opp_name} engine.", "bold"))
        console.say(game.legend(table.start, **table.notation))
    cache = {}

    def agent_for(name, symbol):
        key = (name, symbol)
        if key not in cache:
            cache[key] = build_agent(game, name, args, game.sides.index(symbol), table.start,
                                     console)
        return cache[key]

    score = {"you": 0, "them": 0, "draw": 0, "capped": 0}
    you_label = f"{args.watch} (watched)" if watch else "you"
    them_label = opp_name if not watch or args.watch != opp_name else f"{opp_name} (opponent)"
    games_played = 0
    while True:
        them = second if you == first else first
        agents = {you: agent_for(args.watch, you) if watch else None,
                  them: agent_for(opp_name, them)}
        names = {you: you_label, them: them_label}
        if watch:
            console.say(f"\n{names[first]} ({first}) against {names[second]} ({second}).")
        winner = play_one_game(table, agents, names, delay=args.delay or 0.0)
        if args.save is not None:
            _save(args.save, table, record)
        games_played += 1
        if winner == "draw":
            score["draw"] += 1
            score["capped"] += games.capped(table.last_board)
        elif winner == you:
            score["you"] += 1
        else:
            score["them"] += 1
        capped = f" ({score['capped']} at the move cap)" if score["capped"] else ""
        console.say(f"Score: {you_label} {score['you']}, {them_label} {score['them']}, "
                    f"draws {score['draw']}{capped}")
        if args.games is not None:
            if games_played >= args.games:
                return EXIT_OK
        elif not console.yes_no("Play again?"):
            console.say("Bye.")
            return EXIT_OK
        if alternate:
            you = them


def add_parser(subparsers):
    p = O.add_command(subparsers, COMMAND, run)
    O.add_common(p, GAMES)
    p.set_defaults(game=None)           # told apart from an explicit --game (see --from)
    p.add_argument("--opponent", metavar="ENGINE",
                   help="the engine you play against (see the list below)")
    p.add_argument("--watch", metavar="ENGINE",
                   help="engine vs engine: ENGINE plays your side against --opponent")
    p.add_argument("--side", metavar="SIDE",
                   help=f"your side ({O.per_game(lambda g: ' or '.join(g.sides))}; the "
                        "first named moves first); default: the first")
    p.add_argument("--first", choices=("you", "engine", "alternate"),
                   help="who moves first; 'alternate' swaps sides after each game")
    p.add_argument("--games", type=O.count(1, O.MAX_GAMES), metavar="N",
                   help="play N games and stop (no 'play again?' question)")
    p.add_argument("--delay", type=O.seconds(0, O.MAX_DELAY, lo_open=False), metavar="SECONDS",
                   help="pause after each engine move when watching (default 0)")
    p.add_argument("--verbose", "-v", action="store_true",
                   help="show the engine's statistics (simulations, nodes, value, time)")
    p.add_argument("--zero-based", action="store_true",
                   help="Tic-Tac-Toe: number cells 0-8 instead of 1-9")
    p.add_argument("--size", metavar="SIZE",
                   help="board size: Clobber ROWSxCOLS (default 6x5, up to 8x8), "
                        "Quixo 3, 4 or 5 (default 5)")
    p.add_argument("--board", type=O.path, metavar="FILE",
                   help="start position from a file: Clobber rows of B, W, _; Quixo the "
                        "25-character string; UTTT Board.to_string() (81 cells, ':', forced "
                        "board or *)")
    p.add_argument("--from", dest="record", type=O.path, metavar="RECORD",
                   help="start from a game record (a file, or its text): the lines 'game: "
                        "connect4' and 'moves: 4453' that the web page downloads, or a "
                        "position or move list of --game; its moves are played, then the "
                        "game goes on")
    p.add_argument("--save", type=O.path, metavar="FILE",
                   help="write the record of the game (the last one, with --games) to FILE, "
                        "as --from and the web page read it")
    O.add_force(p)
    O.add_engine_options(p)
    return p
