"""Tic-Tac-Toe: the board (cells 0..8 row by row, X moves first), perft,
random playouts and the exact solver.

The board is compiled (``ttt_engine._core.games.ttt.board``); this module is its public face.
Every game module has the same verbs: see ``docs/api.md``.
"""
from ttt_engine import _verbs
from ttt_engine._core.games.ttt.board import N_CELLS, N_STATES, Board
from ttt_engine._verbs import SolveResult

__all__ = ["N_CELLS", "N_STATES", "Board", "SolveResult", "perft", "random_playouts", "solve"]


perft, random_playouts = _verbs.module_verbs(Board, "ttt", counts="9, 72, 504, ...")


def solve(board, *, max_nodes=None, time_limit=None):
    """Exact value of ``board`` for the side to move (alpha-beta to the end: a
    few thousand positions).  Returns a :class:`SolveResult`; ``value`` is
    ``"unknown"`` only if ``max_nodes`` / ``time_limit`` (seconds) stopped it."""
    _verbs.check_board(board, Board, "ttt.solve")
    max_nodes, time_limit = _verbs.check_limits(max_nodes, time_limit)
    return _verbs.bounded_solve(board, max_nodes, time_limit)
