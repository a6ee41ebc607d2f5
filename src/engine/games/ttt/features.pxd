# cython: language_level=3
"""Tic-Tac-Toe's value-network input features (feature set ``ttt-v1``, F = 19).

Cells 0..8 row by row from the top left (the board's own numbering, bit ``i``
of ``mask[p]``): X on cell c -> c; O on cell c -> 9 + c; O to move -> 18.
"""
from libc.stdint cimport int32_t
from ttt_engine._core.core.features cimport FeatureDiff, diff_clear, diff_bits, diff_flag, list_bits
from ttt_engine._core.games.ttt.rules cimport TTTState


cdef inline int ttt_feature_shape(const TTTState* s, int* rows, int* cols) noexcept nogil:
    """F; and 0 x 0: a fixed board, whose feature set's name has no size."""
    rows[0], cols[0] = 0, 0
    return 19


cdef inline int ttt_features(const TTTState* s, int32_t* out) noexcept nogil:
    """The active features, ascending; returns how many."""
    cdef int n = list_bits(<unsigned>s.mask[0], 0, out)
    n += list_bits(<unsigned>s.mask[1], 9, out + n)
    if s.to_move:
        out[n] = 18
        n += 1
    return n


cdef inline void ttt_feature_diff(const TTTState* a, const TTTState* b,
                                  FeatureDiff* d) noexcept nogil:
    """Features of ``b`` not in ``a`` (``d.add``) and of ``a`` not in ``b`` (``d.rem``)."""
    diff_clear(d)
    diff_bits(d, <unsigned>a.mask[0], <unsigned>b.mask[0], 0)
    diff_bits(d, <unsigned>a.mask[1], <unsigned>b.mask[1], 9)
    diff_flag(d, a.to_move, b.to_move, 18)
