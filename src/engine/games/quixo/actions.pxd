# cython: language_level=3
"""Quixo actions and observation planes (for RL environments).

Action = move code ``(r * n + c) * 4 + side`` (the border cube on row r,
column c, pushed back in from side 0 top, 1 bottom, 2 left, 3 right):
``n * n * 4`` actions (100 on 5x5), of which the 44 (32, 20 on 4x4, 3x3)
border shapes can ever be legal.  Observation ``int8 [2, n, n]``: plane 0 the
side to move's cubes, plane 1 the opponent's (blank cubes in neither).
"""
from libc.stdint cimport int8_t, uint8_t, uint32_t
from libc.string cimport memset
from ttt_engine._core.games.quixo.rules cimport (
    QuixoState, quixo_is_legal, qx_nall, qx_code, qx_src, quixo_random_move,
)
from ttt_engine._core.core.rng cimport rng_t
from ttt_engine._core.core.planes cimport planes_store_n


cdef inline bint quixo_action_legal(const QuixoState* s, int action) noexcept nogil:
    """True if ``action`` (any int) is a legal move now."""
    return 0 <= action < s.n * s.n * 4 and quixo_is_legal(s, action)


cdef inline void quixo_write_observation(const QuixoState* s, int8_t* out) noexcept nogil:
    cdef int n = s.n, r
    cdef uint32_t own = s.bb[s.to_move], opp = s.bb[s.to_move ^ 1]
    for r in range(n):
        planes_store_n(out + r * n, own >> (r * n), n)
        planes_store_n(out + n * n + r * n, opp >> (r * n), n)


cdef inline void quixo_write_action_mask(const QuixoState* s, uint8_t* out) noexcept nogil:
    cdef int n = s.n, k
    cdef uint32_t opp = s.bb[s.to_move ^ 1]
    memset(out, 0, n * n * 4)
    if s.status:
        return
    for k in range(qx_nall[n]):
        out[qx_code[n][k]] = (qx_src[n][k] & opp) == 0


# ------------------------------------------------------------ the game contract
cdef inline bint quixo_draw_truncates() noexcept nogil:
    """Quixo draws only at its move cap: the game is cut short (truncated)."""
    return True
