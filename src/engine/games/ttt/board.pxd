# cython: language_level=3
"""The ttt ``Board`` class (board.pyx): its state struct and history."""
from ttt_engine._core.games.ttt.rules cimport TTTState


cdef class Board:
    cdef TTTState state
    cdef int _history[9]   # cells pushed on this board, for pop()
    cdef int _nhistory
