"""Ultimate Tic-Tac-Toe: the board, perft, random playouts and a bounded solver.

The board is compiled (``ttt_engine._core.games.uttt.board``); this module is its public face.
Every game module has the same verbs: see ``docs/api.md``.
"""
import operator
import warnings

from ttt_engine import _verbs
from ttt_engine._core.games.uttt import board as _uttt
from ttt_engine._core.games.uttt.board import N_CELLS, Board, parse_move
from ttt_engine._verbs import SolveResult

__all__ = ["N_CELLS", "Board", "SolveResult", "parse_move", "perft", "random_playouts", "solve"]


def _is_count(x):
    if isinstance(x, (bool, Board)):
        return False
    try:
        operator.index(x)
    except TypeError:
        return False
    return True


def perft(*args, **kwargs):
    """``perft(board, depth)``: leaf count of ``board``'s move tree to ``depth``
    plies (81, 720, 6336, ... from the start).  The older ``perft(depth,
    board=None)`` still works but is deprecated."""
    if args and _is_count(args[0]):            # perft(depth, board=None)
        warnings.warn("uttt.perft(depth, board) is deprecated: use perft(board, depth)",
                      DeprecationWarning, stacklevel=2)
        return _uttt.perft(*args, **kwargs)
    return _perft(*args, **kwargs)


def _perft(board, depth):
    return _verbs.perft(board, depth, Board, "uttt.perft")


def random_playouts(*args, **kwargs):
    """``random_playouts(board, n, seed=None)``: play ``n`` uniformly random games
    from ``board`` (unchanged) in C; returns ``{"games", "first_wins",
    "second_wins", "draws", "seed"}``.  Same seed, same counts.

    The older ``random_playouts(n_games, seed=None, board=None)``, returning
    ``(x_wins, o_wins, draws, total_plies)``, still works but is deprecated."""
    if args and _is_count(args[0]):            # random_playouts(n_games, seed=None, board=None)
        warnings.warn("uttt.random_playouts(n_games, seed, board) is deprecated: use "
                      "random_playouts(board, n, seed)", DeprecationWarning, stacklevel=2)
        return _uttt.random_playouts(*args, **kwargs)
    return _random_playouts(*args, **kwargs)


def _random_playouts(board, n, seed=None, threads=1):
    return _verbs.random_playouts(board, n, seed, Board, "uttt.random_playouts",
                                  threads=threads)


def solve(board, *, max_nodes=None, time_limit=None):
    """Value of ``board`` for the side to move by alpha-beta, deepened one ply at
    a time, within ``max_nodes`` positions (checked between iterations) and/or
    ``time_limit`` seconds: one of them is required, since the whole game is far
    beyond reach.  Returns a :class:`SolveResult` whose ``value`` is
    ``"unknown"`` when the limit is hit first; endgames solve exactly."""
    _verbs.check_board(board, Board, "uttt.solve")
    max_nodes, time_limit = _verbs.check_limits(max_nodes, time_limit)
    if max_nodes is None and time_limit is None:
        raise ValueError("uttt.solve needs a limit: Ultimate Tic-Tac-Toe cannot be solved "
                         "from arbitrary positions here; pass max_nodes= and/or time_limit= "
                         "(the value is 'unknown' if the limit is hit)")
    return _verbs.bounded_solve(board, max_nodes, time_limit)
