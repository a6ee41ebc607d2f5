# cython: language_level=3
"""The uttt ``Board`` class (board.pyx): the shared face plus the game's state struct."""
from ttt_engine._core.games.uttt.rules cimport UTTTState
from ttt_engine._core.games.board cimport Board as GameBoard


cdef class Board(GameBoard):
    cdef UTTTState state
