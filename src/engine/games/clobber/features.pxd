# cython: language_level=3
"""Clobber's value-network input features (``clobber-<R>x<C>-v1``, F = 2N + 1).

Cells 0..N-1 (N = R*C) row by row from the top left (``r*C + c``: the
board's own numbering, bit ``8*r + c`` of the bitboards): X (B, the first
player) stone on cell c -> c; O (W) stone on cell c -> N + c; O to move -> 2N.
"""
from libc.stdint cimport int32_t, uint64_t
from ttt_engine._core.core.features cimport FeatureDiff, diff_clear, diff_flag, diff_bits_mapped
from ttt_engine._core.core.bits cimport bits_ctz64
from ttt_engine._core.games.clobber.rules cimport ClobberState


cdef inline int clobber_feature_shape(const ClobberState* s, int* rows, int* cols) noexcept nogil:
    """F; and the board's size, which the feature set's name carries."""
    rows[0], cols[0] = s.rows, s.cols
    return 2 * s.rows * s.cols + 1


cdef inline int clobber_features(const ClobberState* s, int32_t* out) noexcept nogil:
    """The active features, ascending; returns how many."""
    cdef int n = 0, p, bit, N = s.rows * s.cols
    cdef uint64_t x
    for p in range(2):
        x = s.bb[p]
        while x:
            bit = bits_ctz64(x)
            x &= x - 1
            out[n] = N * p + (bit >> 3) * s.cols + (bit & 7)
            n += 1
    if s.to_move:
        out[n] = 2 * N
        n += 1
    return n


cdef inline void clobber_feature_diff(const ClobberState* a, const ClobberState* b,
                                      FeatureDiff* d) noexcept nogil:
    """Features of ``b`` not in ``a`` (``d.add``) and of ``a`` not in ``b`` (``d.rem``)."""
    cdef int N = b.rows * b.cols
    diff_clear(d)
    diff_bits_mapped(d, a.bb[0], b.bb[0], 0, 8, b.cols, 1, 0)      # bit 8r + c: cell rC + c
    diff_bits_mapped(d, a.bb[1], b.bb[1], N, 8, b.cols, 1, 0)
    diff_flag(d, a.to_move, b.to_move, 2 * N)
