"""Clobber: the board, perft, heuristics and the exact solver.

The game is compiled (``ttt_engine._core.clobber``); this module is its public face.
"""
from ttt_engine._core.clobber import (
    Board, DIRECTIONS, HEURISTICS, MAX_SIDE, PLAYERS, SEED_HEURISTICS,
    format_move, heuristic_id, move_from_squares, move_squares, parse_move, perft,
    square_name,
)
from ttt_engine._core.clobber_solve import TECHNIQUES, SolveResult, Solver, solve

__all__ = [
    "Board", "DIRECTIONS", "HEURISTICS", "MAX_SIDE", "PLAYERS", "SEED_HEURISTICS",
    "SolveResult", "Solver", "TECHNIQUES", "format_move", "heuristic_id", "move_from_squares",
    "move_squares", "parse_move", "perft", "solve", "square_name",
]
