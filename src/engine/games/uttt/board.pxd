# cython: language_level=3
"""The uttt ``Board`` class (board.pyx): its state struct and history."""
from ttt_engine._core.games.uttt.rules cimport UTTTState


cdef class Board:
    cdef UTTTState state
    cdef unsigned char _history[81]   # moves pushed on this board, for pop()
    cdef unsigned char _undo[81]      # their undo tokens
    cdef int _nhistory
