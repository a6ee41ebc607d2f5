# cython: language_level=3
"""Tic-Tac-Toe's value-network input features (feature set ``ttt-v1``, F = 19).

Cells 0..8 row by row from the top left (the board's own numbering, bit ``i``
of ``mask[p]``): X on cell c -> c; O on cell c -> 9 + c; O to move -> 18.
"""
from libc.stdint cimport int32_t
from ttt_engine._core.core.features cimport FeatureDiff, diff_stones, list_stones
from ttt_engine._core.games.ttt.rules cimport TTTState


cdef inline int ttt_feature_shape(const TTTState* s, int* rows, int* cols) noexcept nogil:
    """F; and 0 x 0: a fixed board, whose feature set's name has no size."""
    rows[0], cols[0] = 0, 0
    return 19


cdef inline int ttt_features(const TTTState* s, int32_t* out) noexcept nogil:
    """The active features, ascending; returns how many."""
    return list_stones(out, <unsigned>s.mask[0], <unsigned>s.mask[1], s.to_move, 9, 64, 0, 1, 0)


cdef inline void ttt_feature_diff(const TTTState* a, const TTTState* b,
                                  FeatureDiff* d) noexcept nogil:
    """Features of ``b`` not in ``a`` (``d.add``) and of ``a`` not in ``b`` (``d.rem``)."""
    diff_stones(d, <unsigned>a.mask[0], <unsigned>a.mask[1], a.to_move, <unsigned>b.mask[0], <unsigned>b.mask[1], b.to_move, 9, 64, 0, 1, 0)
