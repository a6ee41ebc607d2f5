# cython: language_level=3
"""Positions of the Clobber solver: geometry, the cheap reductions and the keys.

Shared by the search (``solve.pyx``) and the certificate writer
(``certificate.pyx``); everything here is ``inline``, ``nogil`` and pure (no
table, no context).  A position is two masks from the mover's side, ``own``
and ``opp`` (bit ``r * 8 + c``; the board's shape does not matter: edges and
empty squares are alike, because nothing ever moves onto an empty square).

The rule these functions keep: every reduction keeps the outcome (who wins
with the mover to play), and equal keys denote positions of equal outcome.

- dead stones: 4-connected groups of one colour can never move or be taken
  (``_live`` keeps the others);
- components: the live stones fall into 4-connected components, independent
  games whose (disjunctive) sum is the position (``_flood``);
- stars: a "claw" component (one stone whose neighbours are all stones of the
  other colour) is * = {0 | 0}; * + * = 0, so claws go in pairs (``_claws``,
  ``_is_claw``);
- keys: each component reduced to the minimum over the 8 symmetries of the
  square after translation to the corner (``_canon``); one component is keyed
  exactly by its two masks, several by a 128-bit hash of their sorted keys,
  marked so that it can never equal an exact key (``_key``, ``_pos_key``).

Move order (``_order_key``): the opponent's replies, fewest first; among
equals the child leaving more components first.
"""
from libc.stdint cimport uint64_t
from ttt_engine._core.games.clobber.rules cimport (
    clobber_pairs_any, CLOBBER_POPCOUNT, CLOBBER_CTZ, CLOBBER_NOT_COL0, CLOBBER_NOT_COL7,
)

cdef extern from *:
    """
    #if defined(__GNUC__) || defined(__clang__)
    #define CS_BSWAP64(x) __builtin_bswap64(x)
    #define CS_CLZ(x) __builtin_clzll(x)
    #define CS_PREFETCH(p) __builtin_prefetch(p)
    #else
    static unsigned long long CS_BSWAP64(unsigned long long x) {
        x = ((x & 0x00FF00FF00FF00FFULL) << 8) | ((x >> 8) & 0x00FF00FF00FF00FFULL);
        x = ((x & 0x0000FFFF0000FFFFULL) << 16) | ((x >> 16) & 0x0000FFFF0000FFFFULL);
        return (x << 32) | (x >> 32);
    }
    static int CS_CLZ(unsigned long long x) { int n = 0; while (!(x >> 63)) { x <<= 1; n++; } return n; }
    #define CS_PREFETCH(p) ((void)0)
    #endif
    static const int CS_OFF[4] = {8, -8, 1, -1};   /* move directions: down, up, right, left */
    """
    uint64_t CS_BSWAP64(uint64_t x) nogil
    int CS_CLZ(uint64_t x) nogil
    void CS_PREFETCH(const void* p) nogil
    const int CS_OFF[4]

cdef enum:
    MAXCOMP = 40
    MAXMOVES = 128       # at most 112 adjacent pairs on 8x8, plus one spare write


# ---------------------------------------------------------------------- geometry
cdef inline uint64_t _nb(uint64_t x) noexcept nogil:
    return (x << 8) | (x >> 8) | ((x << 1) & CLOBBER_NOT_COL0) | ((x >> 1) & CLOBBER_NOT_COL7)


cdef inline uint64_t _flood(uint64_t x, uint64_t occ) noexcept nogil:
    cdef uint64_t y
    while True:
        y = x | (_nb(x) & occ)
        if y == x:
            return x
        x = y


cdef inline uint64_t _live(uint64_t own, uint64_t opp) noexcept nogil:
    """Stones in 4-connected groups that hold both colours."""
    return _flood(clobber_pairs_any(own, opp) | clobber_pairs_any(opp, own), own | opp)


cdef inline uint64_t _flip_h(uint64_t x) noexcept nogil:
    x = ((x >> 1) & <uint64_t>0x5555555555555555ULL) | ((x & <uint64_t>0x5555555555555555ULL) << 1)
    x = ((x >> 2) & <uint64_t>0x3333333333333333ULL) | ((x & <uint64_t>0x3333333333333333ULL) << 2)
    x = ((x >> 4) & <uint64_t>0x0F0F0F0F0F0F0F0FULL) | ((x & <uint64_t>0x0F0F0F0F0F0F0F0FULL) << 4)
    return x


cdef inline uint64_t _transpose(uint64_t x) noexcept nogil:
    cdef uint64_t t
    t = <uint64_t>0x0F0F0F0F00000000ULL & (x ^ (x << 28))
    x ^= t ^ (t >> 28)
    t = <uint64_t>0x3333000033330000ULL & (x ^ (x << 14))
    x ^= t ^ (t >> 14)
    t = <uint64_t>0x5500550055005500ULL & (x ^ (x << 7))
    x ^= t ^ (t >> 7)
    return x


cdef inline void _better(uint64_t a, uint64_t b, uint64_t* ba, uint64_t* bb) noexcept nogil:
    if a < ba[0] or (a == ba[0] and b < bb[0]):
        ba[0] = a
        bb[0] = b


cdef inline void _canon(uint64_t own, uint64_t opp, uint64_t* kown, uint64_t* kopp) noexcept nogil:
    """Translate to the corner, minimum over the 8 symmetries (empty stays 0, 0)."""
    cdef uint64_t occ = own | opp
    if occ == 0:
        kown[0] = 0
        kopp[0] = 0
        return
    cdef uint64_t cols = occ
    cols |= cols >> 32
    cols |= cols >> 16
    cols |= cols >> 8
    cols &= 0xFF
    cdef int shift = (CLOBBER_CTZ(occ) & ~7) + CLOBBER_CTZ(cols)
    own >>= shift
    opp >>= shift
    occ >>= shift
    cols >>= CLOBBER_CTZ(cols)
    cdef int w = 64 - CS_CLZ(cols)
    cdef int h = ((63 - CS_CLZ(occ)) >> 3) + 1
    if h > w:
        own = _transpose(own)
        opp = _transpose(opp)
        shift = h
        h = w
        w = shift
    cdef uint64_t ba = own, bb = opp
    cdef uint64_t ho = _flip_h(own) >> (8 - w), hp = _flip_h(opp) >> (8 - w)
    cdef uint64_t vo = CS_BSWAP64(own) >> (8 * (8 - h)), vp = CS_BSWAP64(opp) >> (8 * (8 - h))
    cdef uint64_t hvo = CS_BSWAP64(ho) >> (8 * (8 - h)), hvp = CS_BSWAP64(hp) >> (8 * (8 - h))
    _better(ho, hp, &ba, &bb)
    _better(vo, vp, &ba, &bb)
    _better(hvo, hvp, &ba, &bb)
    if h == w:
        _better(_transpose(own), _transpose(opp), &ba, &bb)
        _better(_transpose(ho), _transpose(hp), &ba, &bb)
        _better(_transpose(vo), _transpose(vp), &ba, &bb)
        _better(_transpose(hvo), _transpose(hvp), &ba, &bb)
    kown[0] = ba
    kopp[0] = bb


cdef inline void _child(uint64_t own, uint64_t opp, int m, uint64_t* a, uint64_t* b) noexcept nogil:
    """The position after the mover plays ``m``, from the new mover's side."""
    cdef int sq = m >> 2
    cdef uint64_t fbit = (<uint64_t>1) << sq
    cdef uint64_t tbit = (<uint64_t>1) << (sq + CS_OFF[m & 3])
    a[0] = opp & ~tbit
    b[0] = (own ^ fbit) | tbit


cdef inline uint64_t _mix(uint64_t z) noexcept nogil:
    z = (z ^ (z >> 30)) * <uint64_t>0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * <uint64_t>0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef inline bint _is_claw(uint64_t co, uint64_t cp) noexcept nogil:
    """One stone of one colour, every other stone of the component next to it."""
    if co & (co - 1) == 0:
        return (cp & ~_nb(co)) == 0
    if cp & (cp - 1) == 0:
        return (co & ~_nb(cp)) == 0
    return False


# ---------------------------------------------------------------------- keys
cdef inline int _claws(uint64_t own, uint64_t opp, uint64_t* stones) noexcept nogil:
    """Number of claw components among live stones (branch-free), and their stones."""
    cdef uint64_t occ = own | opp
    cdef uint64_t a = occ >> 8, b = occ << 8
    cdef uint64_t c = (occ >> 1) & CLOBBER_NOT_COL7, d = (occ << 1) & CLOBBER_NOT_COL0
    cdef uint64_t one = a | b | c | d
    cdef uint64_t two = (a & b) | (c & d) | ((a | b) & (c | d))
    cdef uint64_t leaf = occ & one & ~two                    # exactly one neighbour
    cdef uint64_t dom = leaf & _nb(leaf)                     # 2-stone components
    cdef uint64_t inner = occ & ~leaf
    cdef uint64_t centre = inner & ~_nb(inner)
    centre &= (own & ~_nb(leaf & own)) | (opp & ~_nb(leaf & opp))
    stones[0] = dom | centre | (leaf & _nb(centre))
    return (CLOBBER_POPCOUNT(dom) >> 1) + CLOBBER_POPCOUNT(centre)


cdef inline void _key(int n, uint64_t* ka, uint64_t* kb, uint64_t* k0, uint64_t* k1) noexcept nogil:
    """One component: its canonical masks; several: a hash of the sorted keys
    with bit 0 set in both halves (real masks never share a bit)."""
    cdef int i, j
    cdef uint64_t ta, tb, h0, h1
    if n == 1:
        k0[0] = ka[0]
        k1[0] = kb[0]
        return
    for i in range(1, n):
        ta = ka[i]
        tb = kb[i]
        j = i - 1
        while j >= 0 and (ka[j] > ta or (ka[j] == ta and kb[j] > tb)):
            ka[j + 1] = ka[j]
            kb[j + 1] = kb[j]
            j -= 1
        ka[j + 1] = ta
        kb[j + 1] = tb
    h0 = <uint64_t>0x243F6A8885A308D3ULL
    h1 = <uint64_t>0x13198A2E03707344ULL
    for i in range(n):
        h0 = _mix(h0 ^ ka[i]) + kb[i]
        h0 = _mix(h0)
        h1 = _mix(h1 + ka[i] * <uint64_t>0x9E3779B97F4A7C15ULL) ^ _mix(kb[i] + <uint64_t>0xA4093822299F31D0ULL)
    k0[0] = h0 | 1
    k1[0] = h1 | 1


cdef inline bint _connected(uint64_t occ) noexcept nogil:
    """True when the stones ``occ`` (at least one) form one component."""
    return _flood(occ & (~occ + 1), occ) == occ


cdef inline int _components(uint64_t own, uint64_t opp, uint64_t* co, uint64_t* cp) noexcept nogil:
    """The connected components of the position, lowest stone first: each
    side's stones of the i-th in ``co[i]`` / ``cp[i]``; returns how many."""
    cdef uint64_t occ = own | opp, rest = occ, comp
    cdef int n = 0
    while rest:
        comp = _flood(rest & (~rest + 1), occ)
        rest &= ~comp
        co[n] = own & comp
        cp[n] = opp & comp
        n += 1
    return n


cdef inline int _pos_key(uint64_t own, uint64_t opp, bint decompose, uint64_t* k0, uint64_t* k1) noexcept nogil:
    """Key of a position without dead stones: its canonical masks, or with
    ``decompose`` the multiset of per-component canonical keys; returns the
    number of components keyed (1 for the whole position)."""
    cdef uint64_t occ = own | opp
    cdef int n, i
    cdef uint64_t co[MAXCOMP]
    cdef uint64_t cp[MAXCOMP]
    cdef uint64_t ka[MAXCOMP]
    cdef uint64_t kb[MAXCOMP]
    if not decompose or occ == 0 or _connected(occ):
        _canon(own, opp, k0, k1)
        return 1
    n = _components(own, opp, co, cp)
    for i in range(n):
        _canon(co[i], cp[i], &ka[i], &kb[i])
    _key(n, ka, kb, k0, k1)
    return n


# ---------------------------------------------------------------------- move order
cdef inline int _order_key(int replies, int components) noexcept nogil:
    """Sort key of a child: the opponent's replies, fewest first; among
    equals, the one that splits the position into more components first."""
    return (replies << 4) | (15 - (components if components < 15 else 15))
