# cython: language_level=3
"""Tic-Tac-Toe's value-network input features (feature set ``ttt-v1``, F = 19).

Cells 0..8 row by row from the top left (the board's own numbering, bit ``i``
of ``mask[p]``): X on cell c -> c; O on cell c -> 9 + c; O to move -> 18.
"""
from ttt_engine._core.core.features cimport Stones
from ttt_engine._core.games.ttt.rules cimport TTTState


cdef inline Stones ttt_feature_stones(const TTTState* s) noexcept nogil:
    """The position as stones, from which core/features.pxd reads its features."""
    return Stones(x=<unsigned>s.mask[0], o=<unsigned>s.mask[1], to_move=s.to_move, cells=9,
                  stride=64, ka=0, kb=1, kc=0, rows=0, cols=0)
