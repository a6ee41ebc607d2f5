# cython: language_level=3
"""Connect Four's value-network input features (``connect4-v1``, F = 85).

Cells 0..41 row by row from the TOP left (as ``Board.to_string``): cell
``7*r + c`` is row r from the top, column c, bit ``7*c + (5 - r)`` of the
bitboards.  X on cell c -> c; O on cell c -> 42 + c; O to move -> 84.
"""
from ttt_engine._core.core.features cimport Stones
from ttt_engine._core.games.connect4.rules cimport Connect4State


cdef inline Stones connect4_feature_stones(const Connect4State* s) noexcept nogil:
    """The position as stones, from which core/features.pxd reads its features."""
    return Stones(x=s.bb[0], o=s.bb[1], to_move=s.to_move, cells=42,
                  stride=7, ka=1, kb=-7, kc=35, rows=0, cols=0)
