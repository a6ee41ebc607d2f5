# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Random playouts from a position, written once for every game on the interface.

``random_playouts(board, games, seed)`` plays ``games`` uniformly random games
from ``board`` (each from a fresh copy of its state, so the board is left
unchanged) with the game's own ``game_playout`` and the inline xoshiro
generator, without the GIL and without allocation.  It is the engine's
"random playouts per second" figure, and the rollout step MCTS performs once
per simulation.
"""
from libc.stdint cimport uint64_t
from ttt_engine.game cimport (
    GameState, GameBoard, GAME_WIN_FIRST, GAME_WIN_SECOND, GAME_DRAW, game_playout,
)
from ttt_engine.rng cimport rng_t, rng_seed
from ttt_engine cimport ttt
from ttt_engine._util import check_int, resolve_seed

from ttt_engine.quixo cimport quixo_init_tables

ttt.ttt_init_tables()   # also the UTTT tables (uttt_init_tables is ttt_init_tables)
quixo_init_tables()


cdef void playouts_state(const GameState* root, long games, rng_t* rng,
                         long* counts) noexcept nogil:
    """counts[k] += number of playouts ending with status k (0..3)."""
    cdef GameState work
    cdef long i
    cdef int status
    for i in range(games):
        work = root[0]
        status = game_playout(&work, rng)
        counts[status & 3] += 1


def random_playouts(GameBoard board, games, seed=None):
    """Play ``games`` uniformly random games from ``board``; return the outcomes.

    Returns a dict ``{"games", "first_wins", "second_wins", "draws", "seed"}``
    (first = the player who moves first in the game: X, or B in Clobber).
    The same ``seed`` gives the same counts.  ``board`` is not modified.
    """
    cdef long n = check_int("games", games, min=0)
    cdef uint64_t s = resolve_seed(seed)
    cdef rng_t rng
    cdef long counts[4]
    counts[0] = counts[1] = counts[2] = counts[3] = 0
    rng_seed(&rng, s)
    with nogil:
        playouts_state(&board.state, n, &rng, counts)
    return {
        "games": n,
        "first_wins": counts[GAME_WIN_FIRST],
        "second_wins": counts[GAME_WIN_SECOND],
        "draws": counts[GAME_DRAW],
        "seed": s,
    }
