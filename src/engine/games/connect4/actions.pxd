# cython: language_level=3
"""Connect Four actions and observation planes (for RL environments).

Action = column 0..6, the same number as a move.
Observation ``int8 [2, 6, 7]``: plane 0 the side to move's discs, plane 1 the
opponent's; row 0 is the TOP row as displayed, column 0 the left one.
Action mask ``[7]``: the columns that are not full while the game is on.
"""
from libc.stdint cimport int8_t, uint8_t, uint64_t
from ttt_engine._core.core.rng cimport rng_t
from ttt_engine._core.games.connect4.rules cimport (
    Connect4State, connect4_random_move, C4_COLS, C4_ROWS, C4_STRIDE, C4_NCELLS,
)

cdef enum:
    CONNECT4_NUM_ACTIONS = 7
    CONNECT4_OBS_PLANES = 2
    CONNECT4_OBS_SIZE = 84


cdef inline bint connect4_action_legal(const Connect4State* s, int action) noexcept nogil:
    """True if ``action`` (any int) is a legal move now."""
    return s.status == 0 and 0 <= action < C4_COLS and s.height[action] < C4_ROWS


cdef inline void connect4_write_observation(const Connect4State* s, int8_t* out) noexcept nogil:
    cdef uint64_t own = s.bb[s.to_move], opp = s.bb[s.to_move ^ 1]
    cdef int r, c, bit
    for r in range(C4_ROWS):
        for c in range(C4_COLS):
            bit = c * C4_STRIDE + (C4_ROWS - 1 - r)
            out[r * C4_COLS + c] = (own >> bit) & 1
            out[C4_NCELLS + r * C4_COLS + c] = (opp >> bit) & 1


cdef inline void connect4_write_action_mask(const Connect4State* s, uint8_t* out) noexcept nogil:
    cdef int c
    for c in range(C4_COLS):
        out[c] = s.status == 0 and s.height[c] < C4_ROWS


