# cython: language_level=3
"""Clobber's value-network input features (``clobber-<R>x<C>-v2``): contacts.

A Clobber move is a capture between orthogonal neighbours, so a stone's worth
is in its contacts.  Cells 0..N-1 (N = R*C) row by row from the top left
(``r*C + c``: bit ``8*r + c`` of the bitboards); side p = 0 for X (B, the
first player), 1 for O (W).  E = R*(C-1) + (R-1)*C edges (orthogonally
adjacent cell pairs): the horizontal ones ``r*(C-1) + c`` (cells ``(r, c)``,
``(r, c+1)``), then the vertical ones ``R*(C-1) + r*C + c`` (cells ``(r, c)``,
``(r+1, c)``); an edge's first cell is its left or upper one.

- a stone of side p on cell c with k opposing orthogonal neighbours (0-4):
  ``(5p + k)*N + c``;
- edge e with X on its first cell and O on its second: ``10N + 2e``; O on the
  first and X on the second: ``10N + 2e + 1`` (a capture either side may play);
- O to move: ``10N + 2E`` (F = 10N + 2E + 1; 399 on 6x5).

A move changes two cells: the diff reads the degrees of those cells and their
neighbours only, and the contacts from four whole-board masks.
"""
from libc.stdint cimport int32_t, uint64_t
from ttt_engine._core.core.bits cimport bits_ctz64, bits_popcount64
from ttt_engine._core.core.features cimport FeatureDiff, diff_bits_mapped, diff_flag, sort_features
from ttt_engine._core.games.clobber.rules cimport ClobberState, CLOBBER_NOT_COL0, CLOBBER_NOT_COL7


cdef inline int clobber_feature_version(const ClobberState* s) noexcept nogil:
    return 2


cdef inline int clobber_feature_count(int rows, int cols) noexcept nogil:
    return 10 * rows * cols + 2 * (rows * (cols - 1) + (rows - 1) * cols) + 1


cdef inline int clobber_feature_shape(const ClobberState* s, int* rows, int* cols) noexcept nogil:
    """F; and the board's rows and columns (the feature set's name carries them)."""
    rows[0], cols[0] = s.rows, s.cols
    return clobber_feature_count(s.rows, s.cols)


cdef inline uint64_t clobber_neighbours(uint64_t m) noexcept nogil:
    """The squares orthogonally next to those of ``m`` (off the board included)."""
    return (m << 8) | (m >> 8) | ((m >> 1) & CLOBBER_NOT_COL7) | ((m << 1) & CLOBBER_NOT_COL0)


cdef inline int32_t clobber_degree_feature(uint64_t x, uint64_t o, int i, int n,
                                           int cols) noexcept nogil:
    """The stone feature of square bit ``i`` (-1 when empty)."""
    cdef uint64_t bit = (<uint64_t>1) << i
    cdef int p, k
    if x & bit:
        p, k = 0, bits_popcount64(clobber_neighbours(bit) & o)
    elif o & bit:
        p, k = 1, bits_popcount64(clobber_neighbours(bit) & x)
    else:
        return -1
    return (5 * p + k) * n + (i >> 3) * cols + (i & 7)


cdef inline void clobber_contact_diff(FeatureDiff* d, uint64_t a0, uint64_t a1, int ta,
                                      uint64_t b0, uint64_t b1, int tb, int rows,
                                      int cols) noexcept nogil:
    """The change from position a (X's and O's bitboards, side to move) to b."""
    cdef int n = rows * cols, i
    cdef int32_t e0 = 10 * n, v0 = 10 * n + 2 * rows * (cols - 1), fa, fb
    cdef uint64_t changed = (a0 ^ b0) | (a1 ^ b1)
    cdef uint64_t region = (changed | clobber_neighbours(changed)) & (a0 | a1 | b0 | b1)
    d.nadd = 0
    d.nrem = 0
    while region:
        i = bits_ctz64(region)
        region &= region - 1
        fa = clobber_degree_feature(a0, a1, i, n, cols)
        fb = clobber_degree_feature(b0, b1, i, n, cols)
        if fa != fb:
            if fa >= 0:
                d.rem[d.nrem] = fa
                d.nrem += 1
            if fb >= 0:
                d.add[d.nadd] = fb
                d.nadd += 1
    # contacts: X then O to the right (orientation 0), O then X (1); the same below
    diff_bits_mapped(d, a0 & (a1 >> 1) & CLOBBER_NOT_COL7, b0 & (b1 >> 1) & CLOBBER_NOT_COL7,
                     e0, 8, 2 * (cols - 1), 2, 0)
    diff_bits_mapped(d, a1 & (a0 >> 1) & CLOBBER_NOT_COL7, b1 & (b0 >> 1) & CLOBBER_NOT_COL7,
                     e0, 8, 2 * (cols - 1), 2, 1)
    diff_bits_mapped(d, a0 & (a1 >> 8), b0 & (b1 >> 8), v0, 8, 2 * cols, 2, 0)
    diff_bits_mapped(d, a1 & (a0 >> 8), b1 & (b0 >> 8), v0, 8, 2 * cols, 2, 1)
    diff_flag(d, ta, tb, clobber_feature_count(rows, cols) - 1)


cdef inline int clobber_features(const ClobberState* s, int32_t* out) noexcept nogil:
    """The active features, ascending; returns how many."""
    cdef FeatureDiff d
    clobber_contact_diff(&d, 0, 0, 0, s.bb[0], s.bb[1], s.to_move, s.rows, s.cols)
    return sort_features(d.add, d.nadd, out)


cdef inline void clobber_feature_diff(const ClobberState* a, const ClobberState* b,
                                      FeatureDiff* d) noexcept nogil:
    """Features of ``b`` not in ``a`` (``d.add``) and of ``a`` not in ``b`` (``d.rem``)."""
    clobber_contact_diff(d, a.bb[0], a.bb[1], a.to_move, b.bb[0], b.bb[1], b.to_move,
                         b.rows, b.cols)
