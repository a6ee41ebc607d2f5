# cython: language_level=3
"""Clobber actions and observation planes (for RL environments).

Action = ``(r * cols + c) * 4 + direction`` for the stone on row r, column c
moving onto the opponent stone in ``direction`` (0 down, 1 up, 2 right, 3 left,
as in ``clobber.pxd``): ``rows * cols * 4`` actions, dense over the board.
(A move is ``(r * 8 + c) * 4 + direction``: the same but with the bitboard's
row stride of 8.)  Observation ``int8 [2, rows, cols]``: plane 0 the side to
move's stones, plane 1 the opponent's.
"""
from libc.stdint cimport int8_t, uint8_t, uint32_t, uint64_t
from libc.string cimport memcpy
from ttt_engine._core.clobber cimport (
    ClobberState, clobber_is_legal, CLOBBER_NOT_COL0, CLOBBER_NOT_COL7,
)
from ttt_engine._core.planes cimport planes_store8, planes_store_n, PLANES_LITTLE_ENDIAN


cdef inline int clobber_action_to_move(const ClobberState* s, int action) noexcept nogil:
    """Move for an action in ``[0, rows * cols * 4)``."""
    cdef int cell = action >> 2
    cdef int r = cell // s.cols
    return ((r * 8 + (cell - r * s.cols)) << 2) | (action & 3)


cdef inline int clobber_move_to_action(const ClobberState* s, int move) noexcept nogil:
    """Action for a move whose square is on the board."""
    cdef int sq = move >> 2
    return (((sq >> 3) * s.cols + (sq & 7)) << 2) | (move & 3)


cdef inline bint clobber_action_legal(const ClobberState* s, int action) noexcept nogil:
    """True if ``action`` (any int) is a legal move now."""
    if action < 0 or action >= s.ncells * 4:
        return False
    return clobber_is_legal(s, clobber_action_to_move(s, action))


cdef inline void _clobber_write_plane(uint64_t bb, int rows, int cols, int8_t* out, bint last) noexcept nogil:
    """Rows of a bitboard as ``rows * cols`` bytes.  Each row is stored with one
    8-byte write whose tail the next row overwrites; the final row of the
    final plane (``last``) is written byte by byte so nothing lands past it."""
    cdef int r
    for r in range(rows - 1):
        planes_store8(out + r * cols, (bb >> (8 * r)) & 0xFF)
    if last:
        planes_store_n(out + (rows - 1) * cols, (bb >> (8 * (rows - 1))) & 0xFF, cols)
    else:
        planes_store8(out + (rows - 1) * cols, (bb >> (8 * (rows - 1))) & 0xFF)


cdef inline void clobber_write_observation(const ClobberState* s, int8_t* out) noexcept nogil:
    """``[2, rows, cols]``; writes exactly ``2 * rows * cols`` bytes."""
    cdef int n = s.rows * s.cols
    _clobber_write_plane(s.bb[s.to_move], s.rows, s.cols, out, False)
    _clobber_write_plane(s.bb[s.to_move ^ 1], s.rows, s.cols, out + n, True)


cdef inline void clobber_write_action_mask(const ClobberState* s, uint8_t* out) noexcept nogil:
    """``[rows * cols * 4]``: for each cell its 4 directions as 4 bytes."""
    cdef uint64_t own = s.bb[s.to_move], opp = s.bb[s.to_move ^ 1]
    cdef uint64_t d0 = own & (opp >> 8)
    cdef uint64_t d1 = own & (opp << 8)
    cdef uint64_t d2 = own & (opp >> 1) & CLOBBER_NOT_COL7
    cdef uint64_t d3 = own & (opp << 1) & CLOBBER_NOT_COL0
    cdef int r, c, sq, k = 0
    cdef uint32_t w
    if s.status:
        d0 = d1 = d2 = d3 = 0
    for r in range(s.rows):
        for c in range(s.cols):
            sq = 8 * r + c
            if PLANES_LITTLE_ENDIAN:
                w = <uint32_t>(((d0 >> sq) & 1) | (((d1 >> sq) & 1) << 8)
                               | (((d2 >> sq) & 1) << 16) | (((d3 >> sq) & 1) << 24))
                memcpy(out + k, &w, 4)
            else:
                out[k] = (d0 >> sq) & 1
                out[k + 1] = (d1 >> sq) & 1
                out[k + 2] = (d2 >> sq) & 1
                out[k + 3] = (d3 >> sq) & 1
            k += 4
