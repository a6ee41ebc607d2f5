"""Ultimate Tic-Tac-Toe: the board, perft and random playouts.

The board is compiled (``ttt_engine._core.uttt``); this module is its public face.
"""
from ttt_engine._core.uttt import Board, N_CELLS, parse_move, perft, random_playouts

__all__ = ["Board", "N_CELLS", "parse_move", "perft", "random_playouts"]
