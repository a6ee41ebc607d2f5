"""``ttt-engine clobber``: the Clobber match modes on a board file, stdin or a
standard start: ``basic`` (minimax against minimax, adaptive heuristic, depth
3) and ``extended`` (each side configured).  The final board, the winner and
the rounds go to stdout; per-move statistics to stderr."""
from __future__ import annotations

import argparse

from ttt_engine.cli import _options as O
from ttt_engine.cli._errors import EXIT_OK, EXIT_USAGE, CLIError
from ttt_engine.cli._files import board_error, read_board_text
from ttt_engine.clobber import MAX_SIDE     # the package is loaded with its commands

__all__ = ["add_parser", "run", "configure"]

EPILOG = ("Board files: one line per row of B, W and _ (cells may be space-separated), at "
          "most 8x8. Final board, winner and rounds go to stdout; per-move statistics to "
          "stderr.")


def _size(text):
    t = text.lower().replace(" ", "")
    r, x, c = t.partition("x")
    try:
        r, c = int(r), int(c if x else r)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must look like 6x5, got {text!r:.40}") from None
    if not (1 <= r <= MAX_SIDE and 1 <= c <= MAX_SIDE):
        raise argparse.ArgumentTypeError(f"rows and columns must be 1-{MAX_SIDE}, got {text!r:.40}")
    return r, c


def configure(p):
    """Add the ``basic`` / ``extended`` modes and their options to parser ``p``."""
    from ttt_engine.clobber import HEURISTICS
    from ttt_engine.clobber.play import ALGORITHMS, SEED_DEPTH
    sub = p.add_subparsers(dest="mode", metavar="MODE", required=True)

    def common(sp):
        sp.add_argument("board", nargs="?", help="board file ('-' = stdin); "
                        "omit with --size for the standard start")
        sp.add_argument("--size", type=_size, metavar="RxC",
                        help="standard start position RxC instead of a file")
        sp.add_argument("--first", default="B", choices=["B", "W"],
                        help="side to move in the given position (default B, as in the seed)")

    sb = sub.add_parser("basic", help="minimax vs minimax with the adaptive heuristic",
                        epilog=EPILOG)
    common(sb)
    sb.add_argument("--depth", type=O.count(1, O.MAX_DEPTH), default=SEED_DEPTH,
                    help="search depth (default 3)")
    se = sub.add_parser("extended", help="each side configured: algorithm, heuristic, depth",
                        epilog=EPILOG)
    common(se)
    for side in ("b", "w"):
        se.add_argument(f"--{side}-algorithm", default="minimax", choices=ALGORITHMS)
        se.add_argument(f"--{side}-heuristic", default="adaptive",
                        help="adaptive, adaptive-leaf, 1, 2, 3 (the side's seed family) "
                             "or a name: " + ", ".join(HEURISTICS))
        se.add_argument(f"--{side}-depth", type=O.count(1, O.MAX_DEPTH), default=SEED_DEPTH)
        se.add_argument(f"--{side}-time-limit", type=O.seconds(), default=None,
                        metavar="SECONDS",
                        help="seconds per move (iterative deepening up to the depth)")
    from ttt_engine.clobber import settle as clobber_solve
    ss = sub.add_parser("solve", help="prove the standard start RxC exactly (resumable, "
                        "time limit, certificate)", description=clobber_solve.DESCRIPTION)
    clobber_solve.configure(ss)
    ss.set_defaults(run=clobber_solve.solve_command)
    p.set_defaults(run=run)
    return p


def add_parser(subparsers):
    p = subparsers.add_parser(
        "clobber", help="Clobber matches (basic / extended) on a board file or stdin",
        description="Play Clobber between two search agents (basic or extended mode).",
        epilog=EPILOG)
    return configure(p)


def _load_board(args):
    from ttt_engine import clobber
    if args.size is not None and args.board is not None:
        raise CLIError("give a board file or --size, not both", EXIT_USAGE)
    if args.size is not None:
        board = clobber.Board(*args.size)
        if args.first == "W":
            board = clobber.Board.from_string(board.to_string(), to_move="W")
        return board
    if args.board is None:
        raise CLIError("no board: give a board file, '-' for stdin, or --size RxC", EXIT_USAGE)
    text = read_board_text(args.board)
    try:
        return clobber.Board.from_string(text, to_move=args.first)
    except ValueError as e:
        raise board_error(args.board, text, e) from None


def run(args):
    """Play the game of the chosen mode; returns the exit status."""
    from ttt_engine.clobber.play import play_basic, play_extended
    board = _load_board(args)
    try:
        if args.mode == "basic":
            play_basic(board, args.depth)
        else:
            play_extended(board,
                          {"algorithm": args.b_algorithm, "heuristic": args.b_heuristic,
                           "depth": args.b_depth, "time": args.b_time_limit},
                          {"algorithm": args.w_algorithm, "heuristic": args.w_heuristic,
                           "depth": args.w_depth, "time": args.w_time_limit})
    except ValueError as e:
        raise CLIError(str(e), EXIT_USAGE) from None
    return EXIT_OK
