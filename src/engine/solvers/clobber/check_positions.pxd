# cython: language_level=3
"""Positions of the compiled certificate checker (``check.pyx``): its own rules
and canonical form, written from the rules only.

Rule: nothing here comes from the solver (no cimport of ``positions.pxd``,
``solve.pxd`` or any search code), so the checker stays an independent
witness; only the bit primitives - popcount, lowest bit, column masks - come
from the rules core (``games/clobber/rules.pxd``).  Moves are
``sq * 4 + direction`` (down, up, right, left), generated in ascending
order; the least image of a component is the same for congruent components
(the 8 symmetries of the square, translated to the corner) and distinct
otherwise; the fingerprint hashes the sorted least images with the claim.
"""
from libc.stdint cimport uint64_t, uint8_t

# bit primitives of the rules core (no search code)
from ttt_engine._core.games.clobber.rules cimport (
    CLOBBER_POPCOUNT as cc_popcount, CLOBBER_CTZ as cc_ctz,
    CLOBBER_NOT_COL0 as NOT_COL0, CLOBBER_NOT_COL7 as NOT_COL7,
)

cdef extern from *:
    """
    #if defined(__GNUC__) || defined(__clang__)
    #define cc_bswap(x) __builtin_bswap64(x)
    #else
    static unsigned long long cc_bswap(unsigned long long x) {
        x = ((x >> 8) & 0x00FF00FF00FF00FFULL) | ((x & 0x00FF00FF00FF00FFULL) << 8);
        x = ((x >> 16) & 0x0000FFFF0000FFFFULL) | ((x & 0x0000FFFF0000FFFFULL) << 16);
        return (x >> 32) | (x << 32);
    }
    #endif
    """
    uint64_t cc_bswap(uint64_t x) nogil


# ---------------------------------------------------------------- rules

cdef inline uint64_t grow(uint64_t x) noexcept nogil:
    """``x`` and its orthogonal neighbours on the 8x8 square."""
    return x | (x << 8) | (x >> 8) | ((x << 1) & NOT_COL0) | ((x >> 1) & NOT_COL7)


cdef inline uint64_t component_of(uint64_t seed, uint64_t occ) noexcept nogil:
    cdef uint64_t comp = seed, g
    while True:
        g = grow(grow(comp) & occ) & occ         # two steps per test
        if g == comp:
            return comp
        comp = g


cdef inline int live_components(uint64_t own, uint64_t opp, uint64_t* out) noexcept nogil:
    """4-connected groups holding stones of both colours, lowest square first."""
    cdef uint64_t occ = own | opp, rest = occ, comp
    cdef int n = 0
    while rest:
        comp = component_of(rest & (~rest + 1), occ)
        rest &= ~comp
        if (comp & own) and (comp & opp):
            out[n] = comp
            n += 1
    return n


cdef inline uint64_t live_mask(uint64_t own, uint64_t opp) noexcept nogil:
    cdef uint64_t occ = own | opp, rest = occ, comp, keep = 0
    while rest:
        comp = component_of(rest & (~rest + 1), occ)
        rest &= ~comp
        if (comp & own) and (comp & opp):
            keep |= comp
    return keep


cdef inline bint move_legal(uint64_t own, uint64_t opp, int m) noexcept nogil:
    cdef int sq = m >> 2, d = m & 3, r = sq >> 3, c = sq & 7, to
    if not (own >> sq) & 1:
        return False
    if d == 0:
        if r == 7:
            return False
        to = sq + 8
    elif d == 1:
        if r == 0:
            return False
        to = sq - 8
    elif d == 2:
        if c == 7:
            return False
        to = sq + 1
    else:
        if c == 0:
            return False
        to = sq - 1
    return (opp >> to) & 1


cdef inline int legal_moves(uint64_t own, uint64_t opp, uint8_t* out) noexcept nogil:
    """Moves ``sq * 4 + direction`` in ascending order (down, up, right, left)."""
    cdef uint64_t rest = own & grow(opp)
    cdef int n = 0, sq, r, c
    while rest:
        sq = cc_ctz(rest)
        rest &= rest - 1
        r = sq >> 3
        c = sq & 7
        if r < 7 and (opp >> (sq + 8)) & 1:
            out[n] = sq * 4
            n += 1
        if r > 0 and (opp >> (sq - 8)) & 1:
            out[n] = sq * 4 + 1
            n += 1
        if c < 7 and (opp >> (sq + 1)) & 1:
            out[n] = sq * 4 + 2
            n += 1
        if c > 0 and (opp >> (sq - 1)) & 1:
            out[n] = sq * 4 + 3
            n += 1
    return n


cdef inline void play(uint64_t own, uint64_t opp, int m, uint64_t* a, uint64_t* b) noexcept nogil:
    """Position after move ``m`` from the new mover's side: ``a`` its stones, ``b`` the other's."""
    cdef int sq = m >> 2, d = m & 3, to
    if d == 0:
        to = sq + 8
    elif d == 1:
        to = sq - 8
    elif d == 2:
        to = sq + 1
    else:
        to = sq - 1
    a[0] = opp & ~((<uint64_t>1) << to)
    b[0] = (own & ~((<uint64_t>1) << sq)) | ((<uint64_t>1) << to)


# ---------------------------------------------------------------- canonical form

cdef inline uint64_t flip_v(uint64_t x) noexcept nogil:
    """Row r to row 7 - r (byte order reversed)."""
    return cc_bswap(x)


cdef inline uint64_t flip_h(uint64_t x) noexcept nogil:
    """Column c to column 7 - c."""
    x = ((x >> 1) & 0x5555555555555555ULL) | ((x & 0x5555555555555555ULL) << 1)
    x = ((x >> 2) & 0x3333333333333333ULL) | ((x & 0x3333333333333333ULL) << 2)
    return ((x >> 4) & 0x0F0F0F0F0F0F0F0FULL) | ((x & 0x0F0F0F0F0F0F0F0FULL) << 4)


cdef inline uint64_t transpose(uint64_t x) noexcept nogil:
    """Square (r, c) to (c, r)."""
    cdef uint64_t t
    t = 0x0F0F0F0F00000000ULL & (x ^ (x << 28))
    x ^= t ^ (t >> 28)
    t = 0x3333000033330000ULL & (x ^ (x << 14))
    x ^= t ^ (t >> 14)
    t = 0x5500550055005500ULL & (x ^ (x << 7))
    x ^= t ^ (t >> 7)
    return x


cdef inline int corner_shift(uint64_t occ) noexcept nogil:
    """Shift that translates ``occ`` (not empty) to the top-left corner."""
    cdef uint64_t cols = occ
    cols |= cols >> 32
    cols |= cols >> 16
    cols |= cols >> 8
    return (cc_ctz(occ) >> 3) * 8 + cc_ctz(cols & 0xFF)


cdef inline void consider(uint64_t o, uint64_t w, uint64_t* bo, uint64_t* bm) noexcept nogil:
    """Keep (o, w) translated to the corner if it is less than (bo, bm)."""
    cdef int s = corner_shift(o)
    o >>= s
    if o < bo[0] or (o == bo[0] and (w >> s) < bm[0]):
        bo[0] = o
        bm[0] = w >> s


cdef inline void least_image(uint64_t occ, uint64_t mine, uint64_t* bo, uint64_t* bm) noexcept nogil:
    """Least (stones, mover's stones) over the 8 symmetries of the square,
    each translated to the corner: the same for congruent components, and
    distinct otherwise."""
    cdef uint64_t o, w, ho, hw
    cdef int t
    bo[0] = <uint64_t>(-1)
    bm[0] = <uint64_t>(-1)
    o = occ
    w = mine
    for t in range(2):
        if t:
            o = transpose(occ)
            w = transpose(mine)
        ho = flip_h(o)
        hw = flip_h(w)
        consider(o, w, bo, bm)
        consider(ho, hw, bo, bm)
        consider(flip_v(o), flip_v(w), bo, bm)
        consider(flip_v(ho), flip_v(hw), bo, bm)


cdef inline uint64_t mix1(uint64_t k) noexcept nogil:
    k ^= k >> 33
    k *= 0xFF51AFD7ED558CCDULL
    k ^= k >> 33
    k *= 0xC4CEB9FE1A85EC53ULL
    return k ^ (k >> 33)


cdef inline uint64_t mix2(uint64_t z) noexcept nogil:
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef inline void fingerprint(uint64_t own, uint64_t* comps, int n, int claim,
                             uint64_t* f1, uint64_t* f2) noexcept nogil:
    """128-bit fingerprint of (canonical form, claim): the components' least
    images, sorted, hashed by two unrelated mixers."""
    cdef uint64_t ko[32]
    cdef uint64_t km[32]
    cdef uint64_t o, w, h1, h2
    cdef int i, j
    for i in range(n):
        least_image(comps[i], own & comps[i], &o, &w)
        j = i
        while j > 0 and (ko[j - 1] > o or (ko[j - 1] == o and km[j - 1] > w)):
            ko[j] = ko[j - 1]
            km[j] = km[j - 1]
            j -= 1
        ko[j] = o
        km[j] = w
    h1 = 0x243F6A8885A308D3ULL + <uint64_t>claim
    h2 = 0x13198A2E03707344ULL + 0x9E3779B97F4A7C15ULL * <uint64_t>(claim + 1)
    for i in range(n):
        h1 = mix1(h1 ^ ko[i])
        h1 = mix1(h1 + km[i])
        h2 = mix2(h2 + ko[i] * 0x9E3779B97F4A7C15ULL)
        h2 = mix2(h2 ^ (km[i] + 0xA4093822299F31D0ULL))
    h1 = mix1(h1 + <uint64_t>n)
    h2 = mix2(h2 ^ (<uint64_t>n * 0x082EFA98EC4E6C89ULL))
    if h1 == 0 and h2 == 0:
        h1 = 1
    f1[0] = h1
    f2[0] = h2
