# cython: language_level=3
"""Clobber's value-network input features (``clobber-<R>x<C>-v1``, F = 2N + 1).

Cells 0..N-1 (N = R*C) row by row from the top left (``r*C + c``: the
board's own numbering, bit ``8*r + c`` of the bitboards): X (B, the first
player) stone on cell c -> c; O (W) stone on cell c -> N + c; O to move -> 2N.
"""
from libc.stdint cimport int32_t
from ttt_engine._core.core.features cimport FeatureDiff, diff_stones, list_stones
from ttt_engine._core.games.clobber.rules cimport ClobberState


cdef inline int clobber_feature_shape(const ClobberState* s, int* rows, int* cols) noexcept nogil:
    """F; and the board's size, which the feature set's name carries."""
    rows[0], cols[0] = s.rows, s.cols
    return 2 * s.rows * s.cols + 1


cdef inline int clobber_features(const ClobberState* s, int32_t* out) noexcept nogil:
    """The active features, ascending; returns how many."""
    return list_stones(out, s.bb[0], s.bb[1], s.to_move, s.rows * s.cols, 8, s.cols, 1, 0)


cdef inline void clobber_feature_diff(const ClobberState* a, const ClobberState* b,
                                  FeatureDiff* d) noexcept nogil:
    """Features of ``b`` not in ``a`` (``d.add``) and of ``a`` not in ``b`` (``d.rem``)."""
    diff_stones(d, a.bb[0], a.bb[1], a.to_move, b.bb[0], b.bb[1], b.to_move, b.rows * b.cols, 8, b.cols, 1, 0)
