# cython: language_level=3
"""Clobber's value-network input features (``clobber-<R>x<C>-v1``, F = 2N + 1).

Cells 0..N-1 (N = R*C) row by row from the top left (``r*C + c``: the
board's own numbering, bit ``8*r + c`` of the bitboards): X (B, the first
player) stone on cell c -> c; O (W) stone on cell c -> N + c; O to move -> 2N.
"""
from ttt_engine._core.core.features cimport Stones
from ttt_engine._core.games.clobber.rules cimport ClobberState


cdef inline Stones clobber_feature_stones(const ClobberState* s) noexcept nogil:
    """The position as stones, from which core/features.pxd reads its features."""
    return Stones(x=s.bb[0], o=s.bb[1], to_move=s.to_move, cells=s.rows * s.cols,
                  stride=8, ka=s.cols, kb=1, kc=0, rows=s.rows, cols=s.cols)
