# cython: language_level=3
"""The clobber ``Board`` class (board.pyx): the shared face plus the game's state struct."""
from libc.stdint cimport uint64_t
from ttt_engine._core.games.clobber.rules cimport ClobberState
from ttt_engine._core.games.board cimport Board as GameBoard


cdef class Board(GameBoard):
    cdef ClobberState state
    cdef _set(self, int rows, int cols, uint64_t b0, uint64_t b1, int to_move)
