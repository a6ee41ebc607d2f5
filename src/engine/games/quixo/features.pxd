# cython: language_level=3
"""Quixo's value-network input features (``quixo-<S>x<S>-v1``, F = 2N + 1).

Cells 0..N-1 (N = S*S) row by row from the top left (``r*S + c``, the
board's own numbering and bit of the bitboards): X cube on cell c -> c;
O cube on cell c -> N + c (a blank cube: none); O to move -> 2N.
"""
from libc.stdint cimport int32_t
from ttt_engine._core.core.features cimport FeatureDiff, diff_stones, list_stones
from ttt_engine._core.games.quixo.rules cimport QuixoState


cdef inline int quixo_feature_shape(const QuixoState* s, int* rows, int* cols) noexcept nogil:
    """F; and the board's size, which the feature set's name carries."""
    rows[0], cols[0] = s.n, s.n
    return 2 * s.n * s.n + 1


cdef inline int quixo_features(const QuixoState* s, int32_t* out) noexcept nogil:
    """The active features, ascending; returns how many."""
    return list_stones(out, s.bb[0], s.bb[1], s.to_move, s.n * s.n, 64, 0, 1, 0)


cdef inline void quixo_feature_diff(const QuixoState* a, const QuixoState* b,
                                  FeatureDiff* d) noexcept nogil:
    """Features of ``b`` not in ``a`` (``d.add``) and of ``a`` not in ``b`` (``d.rem``)."""
    diff_stones(d, a.bb[0], a.bb[1], a.to_move, b.bb[0], b.bb[1], b.to_move, b.n * b.n, 64, 0, 1, 0)
