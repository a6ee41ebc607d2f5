# cython: language_level=3
"""Quixo's value-network input features (``quixo-<S>x<S>-v1``, F = 2N + 1).

Cells 0..N-1 (N = S*S) row by row from the top left (``r*S + c``, the
board's own numbering and bit of the bitboards): X cube on cell c -> c;
O cube on cell c -> N + c (a blank cube: none); O to move -> 2N.
"""
from ttt_engine._core.core.features cimport Stones
from ttt_engine._core.games.quixo.rules cimport QuixoState


cdef inline Stones quixo_feature_stones(const QuixoState* s) noexcept nogil:
    """The position as stones, from which core/features.pxd reads its features."""
    return Stones(x=s.bb[0], o=s.bb[1], to_move=s.to_move, cells=s.n * s.n,
                  stride=64, ka=0, kb=1, kc=0, rows=s.n, cols=s.n)
