# cython: language_level=3
"""The action side of the game interface, written once over ``GameState``:
the fixed action numbering, observation planes and action masks that the
batched environments and the neural search share.

An *action* is a dense index in ``[0, num_actions)`` fixed by the board's size
(what a network's policy head is indexed by); a *move* is the game's own
number.  They coincide for Tic-Tac-Toe, UTTT and Quixo; Clobber's moves use
the bitboard's row stride of 8, its actions the board's own width.  The
writers are each game's ``<game>_actions.pxd``; this header only dispatches.
"""
from libc.stdint cimport int8_t, uint8_t
from libc.string cimport memcpy
from ttt_engine._core.rng cimport rng_t
from ttt_engine._core.game cimport GameState, game_to_move, game_random_move
from ttt_engine._core.ttt cimport TTTState
from ttt_engine._core.uttt cimport UTTTState
from ttt_engine._core.clobber cimport ClobberState
from ttt_engine._core.quixo cimport QuixoState
from ttt_engine._core.ttt_actions cimport (
    ttt_action_legal, ttt_write_observation, ttt_write_action_mask,
)
from ttt_engine._core.uttt_actions cimport (
    uttt_action_legal, uttt_write_observation, uttt_write_action_mask,
)
from ttt_engine._core.clobber_actions cimport (
    clobber_action_legal, clobber_action_to_move, clobber_move_to_action,
    clobber_random_action, clobber_write_observation, clobber_write_action_mask,
)
from ttt_engine._core.quixo_actions cimport (
    quixo_action_legal, quixo_write_observation, quixo_write_action_mask,
)


cdef inline bint game_action_legal(const GameState* s, int a) noexcept nogil:
    """True if action ``a`` (any int) is a legal move now."""
    if GameState is TTTState:
        return ttt_action_legal(s, a)
    elif GameState is UTTTState:
        return uttt_action_legal(s, a)
    elif GameState is ClobberState:
        return clobber_action_legal(s, a)
    elif GameState is QuixoState:
        return quixo_action_legal(s, a)


cdef inline int game_action_to_move(const GameState* s, int a) noexcept nogil:
    """The move of a legal action."""
    if GameState is ClobberState:
        return clobber_action_to_move(s, a)
    else:
        return a


cdef inline int game_move_to_action(const GameState* s, int move) noexcept nogil:
    """The action of a legal move."""
    if GameState is ClobberState:
        return clobber_move_to_action(s, move)
    else:
        return move


cdef inline int game_random_action(const GameState* s, rng_t* rng) noexcept nogil:
    """A uniformly random legal action (the game must be on)."""
    if GameState is ClobberState:
        return clobber_random_action(s, rng)
    else:
        return game_random_move(s, rng)


cdef inline void game_write_observation(const GameState* s, int8_t* obs) noexcept nogil:
    """The observation planes (side to move's view) at ``obs``."""
    if GameState is TTTState:
        ttt_write_observation(s, obs)
    elif GameState is UTTTState:
        uttt_write_observation(s, obs)
    elif GameState is ClobberState:
        clobber_write_observation(s, obs)
    elif GameState is QuixoState:
        quixo_write_observation(s, obs)


cdef inline int game_write_planes(const GameState* s, int8_t* obs, uint8_t* mask) noexcept nogil:
    """Observation and action mask of one position; returns its side to move."""
    if GameState is TTTState:
        ttt_write_observation(s, obs)
        ttt_write_action_mask(s, mask)
    elif GameState is UTTTState:
        uttt_write_observation(s, obs)
        # plane 2 of the observation is the action mask
        memcpy(mask, obs + 162, 81)
    elif GameState is ClobberState:
        clobber_write_observation(s, obs)
        clobber_write_action_mask(s, mask)
    elif GameState is QuixoState:
        quixo_write_observation(s, obs)
        quixo_write_action_mask(s, mask)
    return game_to_move(s)
