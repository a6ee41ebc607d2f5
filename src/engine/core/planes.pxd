# cython: language_level=3
"""Bit masks to byte planes: the writers behind ``observation()`` and
``action_mask()`` of every game and behind the batched environments.

A plane is ``int8``/``bool`` bytes, one per cell, 0 or 1.  Bits are spread to
bytes eight at a time with one multiply (no tables, nothing to initialise), and
stored with ``memcpy`` (an unaligned 8-byte store).
"""
from libc.stdint cimport uint64_t, int8_t, uint8_t
from libc.string cimport memcpy


cdef extern from *:
    """
    #if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    #define PLANES_LITTLE_ENDIAN 0
    #else
    #define PLANES_LITTLE_ENDIAN 1
    #endif
    """
    const int PLANES_LITTLE_ENDIAN


cdef inline uint64_t planes_spread8(uint64_t bits) noexcept nogil:
    """Bits 0..7 of ``bits`` as the bytes 0..7 of the result (each 0 or 1,
    little-endian: byte i is bit i)."""
    return (((bits & 0x7F) * <uint64_t>0x0002040810204081ULL) & <uint64_t>0x0101010101010101ULL) \
        | (((bits >> 7) & 1) << 56)


cdef inline void planes_store8(void* out, uint64_t bits) noexcept nogil:
    """Write bits 0..7 as 8 bytes at ``out`` (little-endian hosts; big-endian
    hosts take the byte loop)."""
    cdef uint64_t w
    cdef int i
    if PLANES_LITTLE_ENDIAN:
        w = planes_spread8(bits)
        memcpy(out, &w, 8)
    else:
        for i in range(8):
            (<uint8_t*>out)[i] = (bits >> i) & 1


cdef inline void planes_store9(void* out, uint64_t bits) noexcept nogil:
    """Write bits 0..8 as 9 bytes at ``out``."""
    planes_store8(out, bits)
    (<uint8_t*>out)[8] = (bits >> 8) & 1


cdef inline void planes_store_n(void* out, uint64_t bits, int n) noexcept nogil:
    """Write bits 0..n-1 (n <= 8) as n bytes at ``out`` (no write past them)."""
    cdef int i
    for i in range(n):
        (<uint8_t*>out)[i] = (bits >> i) & 1
