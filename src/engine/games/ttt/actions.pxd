# cython: language_level=3
"""Tic-Tac-Toe actions and observation planes (for RL environments).

Action = cell 0..8 (row by row), the same number as a move.
Observation ``int8 [2, 3, 3]``: plane 0 the side to move's marks, plane 1 the
opponent's.  Action mask ``[9]``: the empty cells while the game is on.
"""
from libc.stdint cimport int8_t, uint8_t
from libc.string cimport memset
from ttt_engine._core.core.rng cimport rng_t
from ttt_engine._core.games.ttt.rules cimport TTTState, ttt_empty_mask, ttt_random_move
from ttt_engine._core.core.planes cimport planes_store9

cdef enum:
    TTT_NUM_ACTIONS = 9
    TTT_OBS_PLANES = 2
    TTT_OBS_SIZE = 18


cdef inline bint ttt_action_legal(const TTTState* s, int action) noexcept nogil:
    """True if ``action`` (any int) is a legal move now."""
    return s.status == 0 and 0 <= action < 9 and (ttt_empty_mask(s) >> action) & 1


cdef inline void ttt_write_observation(const TTTState* s, int8_t* out) noexcept nogil:
    cdef int own = s.mask[s.to_move], opp = s.mask[s.to_move ^ 1]
    planes_store9(out, own)
    planes_store9(out + 9, opp)


cdef inline void ttt_write_action_mask(const TTTState* s, uint8_t* out) noexcept nogil:
    planes_store9(out, ttt_empty_mask(s) if s.status == 0 else 0)


# ------------------------------------------------------------ the game contract
