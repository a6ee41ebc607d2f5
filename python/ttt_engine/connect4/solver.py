"""Exact Connect Four: the score of any position, from the empty board up.

``solve(board)`` gives the value (win / draw / loss for the side to move), the
exact score and a best move; ``analyse(board)`` the score of every legal
column; ``from_moves("4453")`` reads the standard notation of the test sets
(columns 1..7 from the empty board).

Scores follow the test-set convention: 0 a draw; a win in which the side to
move wins with its k-th disc of the game scores 22 - k; a loss is minus the
winner's score.  The search is compiled (``ttt_engine._core.solvers.connect4.
solve``); docs/connect4.md describes it, its memory and its speed.
"""
from __future__ import annotations

import time

from ttt_engine import _progress, _util, _verbs
from ttt_engine._core.games.connect4.board import Board
from ttt_engine._core.solvers.connect4 import solve as _solve
from ttt_engine._verbs import SolveResult

__all__ = ["DEFAULT_TABLE_MB", "analyse", "forget_table", "from_moves", "optimal_moves", "solve",
           "result_of"]

#: The table's default size in MB (the largest power of two of 32-byte
#: buckets that fits is used: 1024 MB holds 2**27 positions).
DEFAULT_TABLE_MB = 1024

_SIDES = ("X", "O")


def read_columns(board, text):
    """The moves of ``text`` in the standard notation -- one digit 1..7 per
    disc, the column from the left (``"4453"``; the column letters a..g, either
    case, are read too: ``"ddec"``) -- played from ``board`` (not changed), as
    move numbers 0..6.  ``ValueError`` of one line naming the move that cannot
    be played and why."""
    if not isinstance(text, str):
        raise ValueError(f"expected a string of columns 1-7 such as '4453', "
                         f"got {type(text).__name__}")
    board = board.copy()
    moves = []
    for i, ch in enumerate(text):
        where = f"move {i + 1} {ch!r} of {text!r}"
        if ch not in "1234567" and ch.lower() not in "abcdefg":
            if ch.isdigit():
                raise ValueError(f"{where}: column out of range (columns are 1-7)")
            raise ValueError(f"{where}: not a column 1-7 (or a letter a-g)")
        if board.winner is not None:
            raise ValueError(f"{where}: the game is already over "
                             f"({_util.game_over(board.winner)})")
        col = int(ch) - 1 if ch.isdigit() else "abcdefg".index(ch.lower())
        if col not in board.legal_moves:
            raise ValueError(f"{where}: column {col + 1} is full")
        board.push(col)
        moves.append(col)
    return moves


def write_columns(board, moves):
    """``moves`` (move numbers 0..6) in the notation :func:`read_columns` reads."""
    return "".join(str(int(m) + 1) for m in moves)


def from_moves(text):
    """The board after ``text``, the standard notation, from the empty board
    (``"4453"``); errors as :func:`read_columns`."""
    board = Board()
    for col in read_columns(board, text):
        board.push(col)
    return board


def _check(board, where, time_limit, max_nodes, table_mb, threads):
    _util.check_board(board, Board, where)
    max_nodes, time_limit = _verbs.check_limits(max_nodes, time_limit)
    table_mb = _util.check_int("table_mb", table_mb, min=_solve.MIN_TABLE_MB,
                               max=_solve.MAX_TABLE_MB)
    threads = _util.check_int("threads", threads, min=1, max=_solve.MAX_THREADS)
    return time_limit, max_nodes, table_mb, threads


def _plies_left(ply, score):
    """Plies to the end of the game under perfect play from a position of
    ``ply`` discs whose exact score for the side to move is ``score``."""
    if score == 0:
        return 42 - ply
    k = 22 - abs(score)                      # the winner's disc count when it wins
    winner_first = (ply % 2 == 0) == (score > 0)
    return (2 * k - 1 if winner_first else 2 * k) - ply


def _finished(board, start):
    w = board.winner
    if w == "draw":
        return SolveResult("draw", "draw", None, 0, 0, time.perf_counter() - start, score=0)
    # the last mover made four with its k-th disc
    k = (board.ply + 1) // 2
    return SolveResult("loss", w, None, 0, 0, time.perf_counter() - start, score=-(22 - k))


def forget_table():
    """Make the next ``keep_table`` solve start from an empty table, as an
    ordinary solve does (to time a move as if it were the first)."""
    _solve.forget_kept_table()


def _lower(bound):
    """The solver's form of a ``lower_bound`` argument (checked)."""
    if bound is None:
        return None
    return _util.check_int("lower_bound", bound, min=-21, max=21)


def solve(board, *, weak=False, time_limit=None, max_nodes=None,
          table_mb=DEFAULT_TABLE_MB, threads=1, keep_table=False, lower_bound=None,
          progress=False):
    """Solve ``board`` exactly: a :class:`ttt_engine.ttt.SolveResult` whose ``value`` is
    ``"win"``/``"draw"``/``"loss"`` for the side to move (``"unknown"`` when
    ``time_limit`` seconds or ``max_nodes`` positions run out first), ``score``
    the exact score (None with ``weak=True``, which only separates win, draw
    and loss and is faster), ``best_move`` the fastest win, the slowest loss or
    a drawing move (with ``weak=True``: a winning, drawing or any not at once
    losing move), ``plies`` the game's remaining length under perfect play
    (exact solves), ``nodes`` the positions searched.  ``table_mb``: the
    transposition table's size; ``threads``: threads searching over it.
    ``keep_table``: start from what the previous ``keep_table`` solve of this
    process left in the table (its whole size in use) instead of an empty one:
    faster over many related positions, as an opening book's (an entry bounds
    its own position's score, whatever the root).  ``lower_bound``: an exact
    score the position is known to reach, such as minus a parent's exact
    score from a book (a child keeping its parent's score then solves in one
    search); it is trusted, not checked, so only a proven bound may be given.
    ``progress``: True shows the search on stderr (nodes, nodes a second, the
    time so far, the bounds proven on the score), a callable receives a
    ``SolveProgress`` (``ttt_engine._progress``) about twice a second and
    after each of the root's searches (docs/connect4.md)."""
    start = time.perf_counter()
    time_limit, max_nodes, table_mb, threads = _check(
        board, "connect4.solve", time_limit, max_nodes, table_mb, threads)
    lower = _lower(lower_bound)
    weak = _util.check_bool("weak", weak)
    keep_table = _util.check_bool("keep_table", keep_table)
    with _progress.reporter(progress, "connect4.solve") as rep:
        if board.winner is not None:
            rep.finish(0)
            return _finished(board, start)
        score, move, nodes = _solve.solve_board(board, weak, max_nodes, time_limit,
                                                table_mb, threads, keep=keep_table,
                                                lower=lower, progress=rep.compiled,
                                                progress_every=_progress.EVERY)
        rep.finish(nodes, "solved" if score is not None else "stopped by the limit",
                   score if not weak else None, score if not weak else None)
    seconds = time.perf_counter() - start
    if score is None:
        return SolveResult("unknown", None, None, None, nodes, seconds)
    if weak:
        value = "win" if score > 0 else "loss" if score < 0 else "draw"
        me = _SIDES[board.ply % 2]
        winner = "draw" if score == 0 else me if score > 0 else _SIDES[1 - board.ply % 2]
        return SolveResult(value, winner, move, None, nodes, seconds)
    return result_of(board, score, move, nodes, seconds)


def result_of(board, score, move, nodes, seconds):
    """The :class:`ttt_engine.ttt.SolveResult` of an exact ``score`` of ``board`` (unfinished) and a
    best ``move``, found with ``nodes`` positions in ``seconds``."""
    value = "win" if score > 0 else "loss" if score < 0 else "draw"
    me = _SIDES[board.ply % 2]
    winner = "draw" if score == 0 else me if score > 0 else _SIDES[1 - board.ply % 2]
    return SolveResult(value, winner, move, _plies_left(board.ply, score), nodes, seconds,
                       score=score)


def analyse(board, *, time_limit=None, max_nodes=None, table_mb=DEFAULT_TABLE_MB, threads=1,
            keep_table=False, progress=False):
    """``{column: score}`` for every legal column of ``board``: the exact score
    for the side to move of playing it (a move that wins at once scores 22 - k,
    k the mover's disc count after it).  ``{}`` for a finished game; the
    columns not solved when ``time_limit`` / ``max_nodes`` run out are None.
    ``keep_table``, ``progress``: as :func:`solve`'s (the stage names the
    column being solved, and the bounds are its score's)."""
    time_limit, max_nodes, table_mb, threads = _check(
        board, "connect4.analyse", time_limit, max_nodes, table_mb, threads)
    keep_table = _util.check_bool("keep_table", keep_table)
    with _progress.reporter(progress, "connect4.analyse") as rep:
        if board.winner is not None:
            rep.finish(0)
            return {}
        scores, nodes = _solve.analyse_board(board, max_nodes, time_limit, table_mb, threads,
                                             keep_table, progress=rep.compiled,
                                             progress_every=_progress.EVERY)
        rep.finish(nodes, "every column" if None not in scores.values()
                   else "stopped by the limit")
    return scores


def optimal_moves(board, *, score=None, time_limit=None, max_nodes=None,
                  table_mb=DEFAULT_TABLE_MB, threads=1, keep_table=False, lower_bound=None,
                  columns=None, progress=False):
    """``(score, columns)``: the exact score of ``board`` for the side to move
    and every column that keeps it (the fastest wins, the draws, the slowest
    losses), sorted.  Faster than :func:`analyse` when only the best columns
    are wanted: one solve, then one null-window test a column.  ``score``:
    the position's exact score when already known (an opening book's), which
    saves the solve.  ``(None, None)`` when ``time_limit`` / ``max_nodes`` run
    out; ``(score, [])`` for a finished game.  ``keep_table``: as
    :func:`solve`'s (a game's successive positions share much of their trees);
    ``lower_bound``: as :func:`solve`'s, when the score is not given.
    ``columns``: test only these columns (the others' scores known, say from a
    book); the answer lists those of them that keep the score.  ``progress``:
    as :func:`solve`'s."""
    start = time.perf_counter()
    time_limit, max_nodes, table_mb, threads = _check(
        board, "connect4.optimal_moves", time_limit, max_nodes, table_mb, threads)
    if score is not None:
        score = _util.check_int("score", score, min=-21, max=21)
    lower = _lower(lower_bound)
    only = 0x7F
    if columns is not None:
        if isinstance(columns, (str, bytes)) or not hasattr(columns, "__iter__"):
            raise ValueError(f"columns must be a list of columns 0-6, got {columns!r}")
        only = 0
        for c in columns:
            only |= 1 << _util.check_int("a column", c, min=0, max=6)
    keep_table = _util.check_bool("keep_table", keep_table)
    with _progress.reporter(progress, "connect4.optimal_moves") as rep:
        if board.winner is not None:
            rep.finish(0)
            return _finished(board, start).score, []
        score, found, nodes = _solve.optimal_columns_board(
            board, score, max_nodes, time_limit, table_mb, threads, keep_table, lower=lower,
            only=only, progress=rep.compiled, progress_every=_progress.EVERY)
        rep.finish(nodes, "solved" if score is not None else "stopped by the limit",
                   score, score)
    if columns is not None:
        return score, found
    if score is not None and not found:
        raise ValueError(f"score {score} is not the exact score of this position: "
                         "no column keeps it")
    return score, found
