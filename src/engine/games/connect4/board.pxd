# cython: language_level=3
"""The connect4 ``Board`` class (board.pyx): the shared face plus the game's state struct."""
from ttt_engine._core.games.connect4.rules cimport Connect4State
from ttt_engine._core.games.board cimport Board as GameBoard


cdef class Board(GameBoard):
    cdef Connect4State state
