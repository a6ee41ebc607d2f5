# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""MCTS's playout policies on their own, outside a tree: whole playouts
(``policy_playouts``) and first moves (``policy_move``), for tests and
benchmarks of the policies.  The policies are named in ``mcts.PLAYOUTS``."""
from ttt_engine._core.core.rng cimport rng_t, rng_seed
from ttt_engine._core.algorithms.game cimport (
    GameState, GameBoard, GAME_ONGOING, game_status, game_random_move, game_decisive_move,
    game_init_tables,
)
from ttt_engine._core.algorithms.mcts cimport PLAYOUT_DECISIVE
from ttt_engine._core.algorithms.mcts import PLAYOUTS
from ttt_engine._util import INT64_MAX, check_int, resolve_seed
game_init_tables()   # every game's lookup tables (static in each module)


cdef void _policy_run(const GameState* root, long n, rng_t* rng, int policy,
                      long* counts) noexcept nogil:
    cdef GameState work
    cdef long i
    for i in range(n):
        work = root[0]
        counts[policy_playout(&work, rng, policy) & 3] += 1


def policy_playouts(GameBoard board, games, seed, playout):
    """Play ``games`` games from ``board`` with the simulation step of an
    MCTS whose playout policy is ``playout`` (a name of ``PLAYOUTS``); returns
    the outcome counts ``(ongoing, first wins, second wins, draws)`` (the
    first is always 0).  For tests and benchmarks of the policies."""
    cdef long n = check_int("games", games, min=0, max=INT64_MAX)
    cdef rng_t rng
    cdef int policy
    cdef long counts[4]
    if not isinstance(playout, str) or playout not in PLAYOUTS:
        raise ValueError(f"unknown playout {playout!r}; valid: {', '.join(PLAYOUTS)}")
    policy = PLAYOUTS[playout]
    rng_seed(&rng, resolve_seed(seed))
    counts[0] = counts[1] = counts[2] = counts[3] = 0
    with nogil:
        _policy_run(&board.state, n, &rng, policy, counts)
    return counts[0], counts[1], counts[2], counts[3]


cdef int _policy_move(const GameState* root, rng_t* rng, int policy) noexcept nogil:
    """The first move of a playout from ``root`` (the game must be on)."""
    if policy == PLAYOUT_DECISIVE:
        return game_decisive_move(root, rng)
    return game_random_move(root, rng)


def policy_move(GameBoard board, seed, playout):
    """The move the playout policy ``playout`` plays first from ``board``
    (for tests of the policies); ``ValueError`` when the game is over."""
    cdef rng_t rng
    cdef int policy
    if not isinstance(playout, str) or playout not in PLAYOUTS:
        raise ValueError(f"unknown playout {playout!r}; valid: {', '.join(PLAYOUTS)}")
    if game_status(&board.state) != GAME_ONGOING:
        raise ValueError("the game is over: no playout move")
    policy = PLAYOUTS[playout]
    rng_seed(&rng, resolve_seed(seed))
    return _policy_move(&board.state, &rng, policy)