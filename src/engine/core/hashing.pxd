# cython: language_level=3
"""Hash mixing shared by the games' position keys."""
from libc.stdint cimport uint64_t


cdef inline uint64_t mix64(uint64_t z) noexcept nogil:
    """The splitmix64 / MurmurHash3 finaliser: a bijection with full avalanche,
    so distinct keys stay distinct and nearby keys spread over a table."""
    z = (z ^ (z >> 30)) * <uint64_t>0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * <uint64_t>0x94D049BB133111EBULL
    return z ^ (z >> 31)
