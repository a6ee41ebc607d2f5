# cython: language_level=3
"""Connect Four's value-network input features (``connect4-v1``, F = 85).

Cells 0..41 row by row from the TOP left (as ``Board.to_string``): cell
``7*r + c`` is row r from the top, column c, bit ``7*c + (5 - r)`` of the
bitboards.  X on cell c -> c; O on cell c -> 42 + c; O to move -> 84.
"""
from libc.stdint cimport int32_t
from ttt_engine._core.core.features cimport FeatureDiff, diff_stones, list_stones
from ttt_engine._core.games.connect4.rules cimport Connect4State


cdef inline int connect4_feature_shape(const Connect4State* s, int* rows, int* cols) noexcept nogil:
    """F; and 0 x 0: a fixed board, whose feature set's name has no size."""
    rows[0], cols[0] = 0, 0
    return 85


cdef inline int connect4_features(const Connect4State* s, int32_t* out) noexcept nogil:
    """The active features, ascending; returns how many."""
    return list_stones(out, s.bb[0], s.bb[1], s.to_move, 42, 7, 1, -7, 35)


cdef inline void connect4_feature_diff(const Connect4State* a, const Connect4State* b,
                                  FeatureDiff* d) noexcept nogil:
    """Features of ``b`` not in ``a`` (``d.add``) and of ``a`` not in ``b`` (``d.rem``)."""
    diff_stones(d, a.bb[0], a.bb[1], a.to_move, b.bb[0], b.bb[1], b.to_move, 42, 7, 1, -7, 35)
