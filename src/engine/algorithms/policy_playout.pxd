# cython: language_level=3
"""The simulation step of MCTS, shared by the search (mcts.pyx) and the
policies' own tests and benchmarks (policy_playout.pyx)."""
from ttt_engine._core.core.rng cimport rng_t
from ttt_engine._core.algorithms.game cimport GameState, game_playout, game_playout_decisive
from ttt_engine._core.algorithms.mcts cimport PLAYOUT_DECISIVE


cdef inline int policy_playout(GameState* s, rng_t* rng, int policy) noexcept nogil:
    """The simulation step: the game's uniform playout, or with ``policy ==
    PLAYOUT_DECISIVE`` its playout with decisive moves (UTTT: and
    anti-decisive ones; games without one use the uniform playout, which the
    Python layer refuses to configure)."""
    if policy == PLAYOUT_DECISIVE:
        return game_playout_decisive(s, rng)
    return game_playout(s, rng)
