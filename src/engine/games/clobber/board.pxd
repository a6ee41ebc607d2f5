# cython: language_level=3
"""The clobber ``Board`` class (board.pyx): its state struct and history."""
from libc.stdint cimport uint64_t
from ttt_engine._core.games.clobber.rules cimport ClobberState


cdef class Board:
    cdef ClobberState state
    cdef int _history[64]      # moves pushed on this board, for pop()
    cdef int _nhistory
    cdef _set(self, int rows, int cols, uint64_t b0, uint64_t b1, int to_move)
