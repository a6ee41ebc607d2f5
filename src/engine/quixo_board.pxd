# cython: language_level=3
from ttt_engine.quixo cimport QuixoState


cdef class Board:
    cdef QuixoState state
    cdef list _history      # (move code, undo token) per push, for pop()
