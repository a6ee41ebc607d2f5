# cython: language_level=3
"""Sparse binary input features of the value networks: the change between two
positions as two lists of feature indices (``FeatureDiff``), written by each
game's ``features.pxd`` and read by the accumulator (algorithms/valuenet.pxd).

A game's features are the indices of its active binary inputs (every game's
are listed in docs/valuenet.md); a position has at most ``FEATURES_MAX`` of
them and a change between two positions adds or removes at most that many (the
buffers' size).  A feature set has at most ``FEATURE_COUNT_MAX`` features in
all (Clobber's contacts: 399 on 6x5, of which at most 80 are active).
"""
from libc.stdint cimport int32_t, uint64_t
from ttt_engine._core.core.bits cimport bits_ctz64
from ttt_engine._core.core.sort cimport sort_ints

cdef enum:
    FEATURES_MAX = 256      # active features of a position, at most (Clobber 8x8: 177)
    FEATURE_COUNT_MAX = 4096    # features of a feature set, at most (UTTT: 379)


cdef struct FeatureDiff:
    int32_t add[FEATURES_MAX]   # active in the new position, not in the old one
    int32_t rem[FEATURES_MAX]   # active in the old position, not in the new one
    int nadd
    int nrem


cdef inline void diff_clear(FeatureDiff* d) noexcept nogil:
    d.nadd = 0
    d.nrem = 0


cdef inline void diff_flag(FeatureDiff* d, bint old, bint new, int32_t f) noexcept nogil:
    """One feature that is on in the old position iff ``old``, in the new iff ``new``."""
    if old != new:
        if new:
            d.add[d.nadd] = f
            d.nadd += 1
        else:
            d.rem[d.nrem] = f
            d.nrem += 1


cdef inline void diff_bits(FeatureDiff* d, uint64_t old, uint64_t new,
                           int32_t base) noexcept nogil:
    """Features ``base + i`` for the bits ``i`` of two masks (old, new)."""
    cdef uint64_t x = (old ^ new) & new
    while x:
        d.add[d.nadd] = base + bits_ctz64(x)
        d.nadd += 1
        x &= x - 1
    x = (old ^ new) & old
    while x:
        d.rem[d.nrem] = base + bits_ctz64(x)
        d.nrem += 1
        x &= x - 1


cdef inline void diff_bits_mapped(FeatureDiff* d, uint64_t old, uint64_t new, int32_t base,
                                  int stride, int a, int b, int c) noexcept nogil:
    """Features ``base + cell`` for the bits of two masks (old, new) whose
    bit ``i`` is cell ``(i // stride) * a + (i % stride) * b + c`` (a
    bitboard with its own row stride, read in the board's cell order)."""
    cdef uint64_t x = old ^ new
    cdef int i
    cdef int32_t f
    while x:
        i = bits_ctz64(x)
        x &= x - 1
        f = base + (i // stride) * a + (i % stride) * b + c
        if (new >> i) & 1:
            d.add[d.nadd] = f
            d.nadd += 1
        else:
            d.rem[d.nrem] = f
            d.nrem += 1


cdef inline int sort_features(const int32_t* src, int n, int32_t* out) noexcept nogil:
    """``out`` = the ``n`` features of ``src`` ascending; returns ``n``."""
    cdef int i
    for i in range(n):
        out[i] = src[i]
    sort_ints(<int*>out, n)
    return n


cdef inline int list_bits(uint64_t m, int32_t base, int32_t* out) noexcept nogil:
    """Write ``base + i`` for the set bits ``i`` of ``m``, ascending; returns how many."""
    cdef int n = 0
    while m:
        out[n] = base + bits_ctz64(m)
        n += 1
        m &= m - 1
    return n


# The stone games (Tic-Tac-Toe, Connect Four, Clobber, Quixo): X's stone on
# cell c -> c, O's -> n + c, O to move -> 2n.  Such a game declares only its
# ``<game>_feature_stones`` (its ``Stones``), and the generated dispatch
# (algorithms/game_features.pxd) reads the features through the functions below.

cdef struct Stones:
    uint64_t x              # X's (the first player's) stones, a bit a cell
    uint64_t o              # O's
    int to_move
    int cells               # n, the board's cells
    int stride, ka, kb, kc  # bit i is cell (i // stride) * ka + (i % stride) * kb + kc
    int rows, cols          # the size the feature set's name carries; 0 x 0: a fixed board


cdef inline void diff_stones(FeatureDiff* d, uint64_t a0, uint64_t a1, int ta, uint64_t b0,
                             uint64_t b1, int tb, int n, int stride, int ka, int kb,
                             int kc) noexcept nogil:
    """The change from position a (X's and O's bitboards, side to move) to b, of
    ``n`` cells read through the map (stride, ka, kb, kc); the dispatch passes a
    ``Stones``' fields, constants of the game's where the board has one size."""
    diff_clear(d)
    diff_bits_mapped(d, a0, b0, 0, stride, ka, kb, kc)
    diff_bits_mapped(d, a1, b1, n, stride, ka, kb, kc)
    diff_flag(d, ta, tb, 2 * n)


cdef inline int list_stones(int32_t* out, uint64_t m0, uint64_t m1, int to_move, int n,
                            int stride, int ka, int kb, int kc) noexcept nogil:
    """The active features of a position, ascending; returns how many."""
    cdef FeatureDiff d
    diff_stones(&d, 0, 0, 0, m0, m1, to_move, n, stride, ka, kb, kc)
    return sort_features(d.add, d.nadd, out)


cdef inline int shape_stones(const Stones* s, int* rows, int* cols) noexcept nogil:
    """F = 2n + 1; and the board's rows and columns (0 x 0: a fixed board)."""
    rows[0], cols[0] = s.rows, s.cols
    return 2 * s.cells + 1
