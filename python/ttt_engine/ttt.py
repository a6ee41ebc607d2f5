"""Tic-Tac-Toe: the board (cells 0..8 row by row, X moves first).

The board is compiled (``ttt_engine._core.ttt``); this module is its public face.
"""
from ttt_engine._core.ttt import Board, N_CELLS, N_STATES

__all__ = ["Board", "N_CELLS", "N_STATES"]
