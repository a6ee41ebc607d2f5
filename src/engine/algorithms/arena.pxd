# cython: language_level=3
"""The face every node-arena search object shares (arena.pyx)."""
from libc.stdint cimport int32_t, uint64_t
from ttt_engine._core.core.rng cimport rng_t


cdef class TreeArena:
    cdef int32_t* _used          # the subclass's node count ...
    cdef int32_t* _cap           # ... capacity ...
    cdef rng_t* _rng             # ... and generator (fields of its tree struct)
    cdef readonly uint64_t seed
