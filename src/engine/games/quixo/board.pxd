# cython: language_level=3
"""The quixo ``Board`` class (board.pyx): its state struct and history."""
from ttt_engine._core.games.quixo.rules cimport QuixoState


cdef class Board:
    cdef QuixoState state
    cdef list _history      # (move code, undo token) per push, for pop()
