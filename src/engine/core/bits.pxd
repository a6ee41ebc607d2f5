# cython: language_level=3
"""Bit counting on 64-bit boards, shared by the bitboard games."""
from libc.stdint cimport uint64_t

cdef extern from *:
    """
    /* Without -mpopcnt (the build avoids -march flags) __builtin_popcountll is a
       libgcc call; the branch-free SWAR count inlines to ~12 ALU ops instead. */
    #ifndef TTT_ENGINE_BITS
    #define TTT_ENGINE_BITS
    #if defined(__POPCNT__)
    #define bits_popcount64(x) __builtin_popcountll(x)
    #else
    static inline int bits_popcount64(unsigned long long x) {
        x = x - ((x >> 1) & 0x5555555555555555ULL);
        x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
        x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
        return (int)((x * 0x0101010101010101ULL) >> 56);
    }
    #endif
    #if defined(__GNUC__) || defined(__clang__)
    #define bits_ctz64(x) __builtin_ctzll(x)
    #else
    static int bits_ctz64(unsigned long long x) { int n = 0; while (!(x & 1)) { x >>= 1; n++; } return n; }
    #endif
    #endif
    """
    int bits_popcount64(uint64_t x) nogil      # set bits
    int bits_ctz64(uint64_t x) nogil           # index of the lowest set bit (x != 0)
