"""``ttt-engine connect4``: exact Connect Four from the standard notation (one
digit 1-7 per disc, the column from the left, from the empty board: ``4453``).

- ``solve MOVES``: the value, exact score and best column of the position;
- ``analyse MOVES``: the exact score of every column;
- ``book --plies N --out FILE``: generate the opening book (resumable).

Scores: 0 a draw; 22 - k when the side to move wins with its k-th disc; minus
that when it loses.  Positions in the shipped book answer at once; the others
are solved (seconds in the opening)."""
from __future__ import annotations

import sys

from ttt_engine.cli import _files, _options as O
from ttt_engine.cli._errors import EXIT_OK, EXIT_USAGE, CLIError

from ttt_engine._core.solvers.connect4.solve import MAX_THREADS   # loaded with the package

__all__ = ["add_parser", "run", "configure"]

EPILOG = ("Positions are move strings of the test sets: one digit 1-7 per disc, the column "
          "from the left, from the empty board ('' or - for the empty board). Scores: 0 a "
          "draw, 22 - k when the side to move wins with its k-th disc, minus that for a loss.")


def configure(p):
    """Add the ``solve`` / ``analyse`` / ``book`` modes to parser ``p``."""
    sub = p.add_subparsers(dest="mode", metavar="MODE", required=True)
    for name, text in (("solve", "the value, exact score and best column of a position"),
                       ("analyse", "the exact score of every column of a position")):
        sp = sub.add_parser(name, help=text, description=text + ".", epilog=EPILOG)
        sp.add_argument("moves", help="the position: columns 1-7 from the empty board "
                        "(e.g. 4453; '-' the empty board)")
        sp.add_argument("--time", type=O.seconds(), default=None, metavar="SECONDS",
                        help="give up after this long (default: solve to the end)")
        sp.add_argument("--threads", type=O.count(1, MAX_THREADS), default=1, metavar="N",
                        help=f"threads searching one shared table (1-{MAX_THREADS}, "
                        "default 1; 2 uses both cores of a 2-core machine)")
        sp.add_argument("--quiet", action="store_true",
                        help="no progress line (shown on stderr when it is a terminal)")
    sb = sub.add_parser("book", help="generate the opening book (resumable, atomic)",
                        description="Score every unfinished position with at most N discs "
                        "exactly and write the book FILE. Progress is kept in "
                        "FILE.progress.npz every few seconds: the same command resumes an "
                        "interrupted run; the book is written only when complete "
                        "(or, with --partial, whenever a run stops).")
    sb.add_argument("--plies", type=O.count(0, 41), required=True, metavar="N",
                    help="the deepest positions in the book (discs on the board)")
    sb.add_argument("--out", type=O.path, required=True, metavar="FILE", help="the book file to write")
    sb.add_argument("--part", type=_book_part, default=None, metavar="I/N",
                    help="solve only the I-th of N shares (its own progress file), so that N "
                    "processes, one a core, split the work; then run without --part to "
                    "write the book")
    sb.add_argument("--partial", action="store_true",
                    help="deepen the book FILE (which holds every position to N-1 discs) "
                    "by level N a run at a time: a run that stops before the level is "
                    "complete (Ctrl-C, a kill, --limit) writes FILE as the book so far, "
                    "which the engine uses and the next run resumes from")
    O.add_force(sb)
    sb.add_argument("--limit", type=O.count(0, 10**9), default=None, metavar="K",
                    help="stop after solving K positions (0: only gather the parts' "
                    "progress; with --partial, into FILE)")
    sb.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(run=run)
    return p


def _book_part(text):
    """An argparse type: ``I/N``, a share of a split book run."""
    import argparse

    from ttt_engine.connect4.book import parse_part
    try:
        return parse_part(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def add_parser(subparsers):
    p = subparsers.add_parser(
        "connect4", help="exact Connect Four: solve / analyse a position, make the book",
        description="Exact Connect Four: solve or analyse a position given in the standard "
                    "notation, or generate the opening book.", epilog=EPILOG)
    return configure(p)


def _board(text):
    from ttt_engine import connect4
    try:
        return connect4.from_moves("" if text == "-" else text)
    except ValueError as e:
        raise CLIError(str(e), EXIT_USAGE) from None


def _score_words(ply, score):
    from ttt_engine.connect4.book import scores_to_plies
    if score is None:
        return "unknown"
    if score == 0:
        return "draw (0)"
    word = "win" if score > 0 else "loss"
    return f"{word} in {scores_to_plies(ply, score)} plies ({score:+d})"


def _scores(board, limit, threads=1, progress=False):
    """Every column's exact score: from the shipped book where it holds the
    children, else by the solver (``progress``: its line on stderr)."""
    from ttt_engine import connect4
    from ttt_engine.connect4.book import shipped_book
    book = shipped_book()
    scores = book.column_scores(board) if book is not None else None
    if scores is None:
        scores = connect4.analyse(board, time_limit=limit, threads=threads, progress=progress)
    return scores


def _solved(board, limit, threads=1, progress=False):
    """``(score, best column)``: from the shipped book where it holds the
    position, else by the solver (``progress``: its line on stderr);
    ``(None, None)`` when the time runs out."""
    from ttt_engine import connect4
    from ttt_engine.connect4.book import shipped_book
    from ttt_engine.connect4.solver import _solve
    book = shipped_book()
    score = book.score(board) if book is not None else None
    if score is not None:
        scores = book.column_scores(board)
        if scores is not None:
            ties = [c for c in scores if scores[c] == score]
        else:
            _, ties = connect4.optimal_moves(board, score=score, time_limit=limit,
                                             threads=threads, progress=progress)
        if ties is None:
            return None, None
        return score, min(ties, key=_solve.COLUMN_ORDER.index)
    r = connect4.solve(board, time_limit=limit, threads=threads, progress=progress)
    return r.score, r.best_move


def run(args):
    """Run the chosen mode; returns the exit status."""
    if args.mode == "book":
        from ttt_engine.connect4 import book as connect4_book
        # the book and its side file are checked before any position is solved
        # the one overwrite rule, except where the book is read back on purpose
        # (--partial deepens it; --part writes only its own progress file)
        _files.check_output(args.out, "book file",
                            force=None if args.partial or args.part else args.force)
        progress = (connect4_book.part_progress(args.out, args.part) if args.part
                    else f"{args.out}.progress.npz")
        _files.check_output(progress, "progress file")
        try:
            connect4_book.generate(args.plies, args.out, show=not args.quiet,
                                   table_mb=connect4_book.BOOK_TABLE_MB, part=args.part,
                                   partial=args.partial, limit=args.limit)
        except connect4_book.BookError as e:
            raise CLIError(str(e), EXIT_USAGE) from None
        except OSError as e:
            raise CLIError(f"{args.out}: cannot be written ({e.strerror or e})") from None
        return EXIT_OK
    board = _board(args.moves)
    side = board.to_move
    if board.winner is not None:
        from ttt_engine._util import game_over
        print(f"the game is over ({game_over(board.winner)})")
        return EXIT_OK
    # the search's line on a terminal only: a log or a pipe gets the answer alone
    progress = not args.quiet and sys.stderr.isatty()
    if args.mode == "analyse":
        scores = _scores(board, args.time, args.threads, progress)
        print(f"{side} to move, {board.ply} discs")
        for col in sorted(scores):
            print(f"  column {col + 1}: {_score_words(board.ply, scores[col])}")
        return EXIT_OK
    score, move = _solved(board, args.time, args.threads, progress)
    if score is None:
        print(f"{side} to move: unknown (the time ran out)")
        return EXIT_OK
    value = "win" if score > 0 else "loss" if score < 0 else "draw"
    print(f"{side} to move: {value}, {_score_words(board.ply, score)}; "
          f"best column {move + 1}")
    return EXIT_OK
