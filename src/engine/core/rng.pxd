# cython: language_level=3
"""Seeded pseudo-random generator usable without the GIL.

xoshiro256** (Blackman & Vigna) seeded through splitmix64: 32 bytes of state,
about 1 ns per draw, no allocation, and the same seed gives the same stream on
every platform.  Every hot loop in the engine takes an ``rng_t*`` it owns.
"""
from libc.stdint cimport uint64_t, uint32_t


cdef struct rng_t:
    uint64_t s0
    uint64_t s1
    uint64_t s2
    uint64_t s3


cdef inline uint64_t _splitmix64(uint64_t* x) noexcept nogil:
    x[0] += <uint64_t>0x9E3779B97F4A7C15ULL
    cdef uint64_t z = x[0]
    z = (z ^ (z >> 30)) * <uint64_t>0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * <uint64_t>0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef inline void rng_seed(rng_t* r, uint64_t seed) noexcept nogil:
    """Expand a 64-bit seed into the 256-bit state (never all zero)."""
    cdef uint64_t x = seed
    r.s0 = _splitmix64(&x)
    r.s1 = _splitmix64(&x)
    r.s2 = _splitmix64(&x)
    r.s3 = _splitmix64(&x)


cdef inline uint64_t _rotl(uint64_t x, int k) noexcept nogil:
    return (x << k) | (x >> (64 - k))


cdef inline uint64_t rng_next(rng_t* r) noexcept nogil:
    """Next 64 random bits."""
    cdef uint64_t result = _rotl(r.s1 * 5, 7) * 9
    cdef uint64_t t = r.s1 << 17
    r.s2 ^= r.s0
    r.s3 ^= r.s1
    r.s1 ^= r.s2
    r.s0 ^= r.s3
    r.s2 ^= t
    r.s3 = _rotl(r.s3, 45)
    return result


cdef inline uint32_t rng_below(rng_t* r, uint32_t n) noexcept nogil:
    """Uniform integer in [0, n) for 0 < n < 2**32 (Lemire's multiply-shift;
    the bias is below n / 2**32, i.e. < 1e-7 for game-sized n)."""
    return <uint32_t>(((rng_next(r) >> 32) * <uint64_t>n) >> 32)


cdef inline double rng_uniform(rng_t* r) noexcept nogil:
    """Uniform double in [0, 1) with 53 random bits."""
    return <double>(rng_next(r) >> 11) * (1.0 / 9007199254740992.0)
