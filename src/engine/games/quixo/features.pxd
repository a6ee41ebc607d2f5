# cython: language_level=3
"""Quixo's value-network input features (``quixo-<S>x<S>-v1``, F = 2N + 1).

Cells 0..N-1 (N = S*S) row by row from the top left (``r*S + c``, the
board's own numbering and bit of the bitboards): X cube on cell c -> c;
O cube on cell c -> N + c (a blank cube: none); O to move -> 2N.
"""
from libc.stdint cimport int32_t
from ttt_engine._core.core.features cimport FeatureDiff, diff_clear, diff_bits, diff_flag, list_bits
from ttt_engine._core.games.quixo.rules cimport QuixoState


cdef inline int quixo_feature_shape(const QuixoState* s, int* rows, int* cols) noexcept nogil:
    """F; and the board's size, which the feature set's name carries."""
    rows[0], cols[0] = s.n, s.n
    return 2 * s.n * s.n + 1


cdef inline int quixo_features(const QuixoState* s, int32_t* out) noexcept nogil:
    """The active features, ascending; returns how many."""
    cdef int N = s.n * s.n
    cdef int n = list_bits(s.bb[0], 0, out)
    n += list_bits(s.bb[1], N, out + n)
    if s.to_move:
        out[n] = 2 * N
        n += 1
    return n


cdef inline void quixo_feature_diff(const QuixoState* a, const QuixoState* b,
                                    FeatureDiff* d) noexcept nogil:
    """Features of ``b`` not in ``a`` (``d.add``) and of ``a`` not in ``b`` (``d.rem``)."""
    cdef int N = b.n * b.n
    diff_clear(d)
    diff_bits(d, a.bb[0], b.bb[0], 0)
    diff_bits(d, a.bb[1], b.bb[1], N)
    diff_flag(d, a.to_move, b.to_move, 2 * N)
