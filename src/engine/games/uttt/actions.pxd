# cython: language_level=3
"""Ultimate Tic-Tac-Toe actions and observation planes (for RL environments).

Action = move ``9*R + C`` on the 9x9 grid (0..80), the same number as a move.
Observation ``int8 [3, 9, 9]`` on the grid (row R, column C): plane 0 the side
to move's marks, plane 1 the opponent's, plane 2 the cells the side to move
may play now (the forced local board or every open one; all 0 once the game
is over).  Action mask ``[81]`` = plane 2 flattened.
"""
from libc.stdint cimport int8_t, uint8_t, uint64_t
from libc.string cimport memcpy
from ttt_engine._core.core.rng cimport rng_t
from ttt_engine._core.games.uttt.rules cimport (
    UTTTState, uttt_empty, uttt_move_board, uttt_move_cell, UTTT_FULL, uttt_random_move,
)
from ttt_engine._core.core.planes cimport planes_store9

cdef enum:
    UTTT_NUM_ACTIONS = 81
    UTTT_OBS_PLANES = 3
    UTTT_OBS_SIZE = 243


cdef inline int uttt_allowed_boards(const UTTTState* s) noexcept nogil:
    """Big-board mask of the local boards the side to move may play in."""
    if s.status:
        return 0
    if s.forced >= 0:
        return 1 << s.forced
    return (~s.closed) & UTTT_FULL


cdef inline bint uttt_action_legal(const UTTTState* s, int action) noexcept nogil:
    """True if ``action`` (any int) is a legal move now."""
    if action < 0 or action >= 81:
        return False
    cdef int b = uttt_move_board[action]
    return ((uttt_allowed_boards(s) >> b) & 1) and ((uttt_empty(s, b) >> uttt_move_cell[action]) & 1)


cdef inline uint64_t _uttt_grid_row(const unsigned short* boards, int big_row, int local_row) noexcept nogil:
    """Row ``3*big_row + local_row`` of the 9x9 grid as 9 bits (column C = bit C)
    from nine local-board masks."""
    cdef int sh = 3 * local_row
    cdef const unsigned short* b = boards + 3 * big_row
    return ((b[0] >> sh) & 7) | (((b[1] >> sh) & 7) << 3) | (((b[2] >> sh) & 7) << 6)


cdef inline void uttt_write_observation(const UTTTState* s, int8_t* out) noexcept nogil:
    # the masks are copied first: the byte stores below may alias the state
    cdef unsigned short own[9]
    cdef unsigned short opp[9]
    cdef unsigned short legal[9]
    cdef int b, R, allowed = uttt_allowed_boards(s), p = s.to_move
    for b in range(9):
        own[b] = s.local[p][b]
        opp[b] = s.local[p ^ 1][b]
        legal[b] = <unsigned short>((~(own[b] | opp[b])) & UTTT_FULL & -((allowed >> b) & 1))
    for R in range(9):
        planes_store9(out + 9 * R, _uttt_grid_row(own, R // 3, R % 3))
        planes_store9(out + 81 + 9 * R, _uttt_grid_row(opp, R // 3, R % 3))
        planes_store9(out + 162 + 9 * R, _uttt_grid_row(legal, R // 3, R % 3))


cdef inline void uttt_write_action_mask(const UTTTState* s, uint8_t* out) noexcept nogil:
    cdef unsigned short legal[9]
    cdef int b, R, allowed = uttt_allowed_boards(s)
    for b in range(9):
        legal[b] = <unsigned short>(uttt_empty(s, b) & -((allowed >> b) & 1))
    for R in range(9):
        planes_store9(out + 9 * R, _uttt_grid_row(legal, R // 3, R % 3))


# ------------------------------------------------------------ the game contract
cdef inline void uttt_write_planes(const UTTTState* s, int8_t* obs, uint8_t* mask) noexcept nogil:
    """Observation and action mask of one position."""
    uttt_write_observation(s, obs)
    memcpy(mask, obs + 162, 81)     # plane 2 of the observation is the mask


