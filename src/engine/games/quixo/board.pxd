# cython: language_level=3
"""The quixo ``Board`` class (board.pyx): the shared face plus the game's state struct."""
from ttt_engine._core.games.quixo.rules cimport QuixoState
from ttt_engine._core.games.board cimport Board as GameBoard


cdef class Board(GameBoard):
    cdef QuixoState state
