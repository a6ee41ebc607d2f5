# cython: language_level=3
"""The ttt ``Board`` class (board.pyx): the shared face plus the game's state struct."""
from ttt_engine._core.games.ttt.rules cimport TTTState
from ttt_engine._core.games.board cimport Board as GameBoard


cdef class Board(GameBoard):
    cdef TTTState state
