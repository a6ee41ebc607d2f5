# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Random-vs-random games for ANY game on the interface (written once, fused).

``random_games(board, n_games, seed)`` plays ``n_games`` complete games of
uniformly random moves from ``board`` (left unchanged) and returns the
outcome counts, total plies and a numpy histogram of game lengths.  This is
the game-generic form of Quixo's stage A tournament (``quixo_play.run_games``
adds agents, sides and state collection for Quixo).
"""
from libc.stdint cimport uint64_t, int64_t
from ttt_engine.rng cimport rng_t, rng_seed
from ttt_engine.game cimport (
    GameState, GameBoard, game_status, game_make, game_random_move,
)
from ttt_engine cimport ttt
import numpy as np
cimport numpy as cnp

cnp.import_array()
ttt.ttt_init_tables()


cdef int64_t _random_games(const GameState* root, int64_t n_games, rng_t* rng, int64_t* out,
                           int64_t* lengths, int64_t max_len) noexcept nogil:
    """out[status] += 1 per game, out[4] += plies; lengths[min(plies, max_len)] += 1."""
    cdef GameState s
    cdef int64_t g, plies
    cdef int st
    for g in range(n_games):
        s = root[0]
        plies = 0
        while True:
            st = game_status(&s)
            if st != 0:
                break
            game_make(&s, game_random_move(&s, rng))
            plies += 1
        out[st] += 1
        out[4] += plies
        lengths[plies if plies < max_len else max_len] += 1
    return 0


def random_games(GameBoard board, int64_t n_games, uint64_t seed=0, int64_t max_len=1000):
    """Play ``n_games`` random games from ``board``; returns a dict with
    ``first_wins``, ``second_wins``, ``draws``, ``unfinished`` (0: games
    always end), ``plies`` and ``lengths`` (games per length; the last bin
    collects lengths >= ``max_len``).  Same seed => same result."""
    if n_games < 0:
        raise ValueError(f"n_games must be >= 0, got {n_games}")
    if max_len < 1:
        raise ValueError(f"max_len must be >= 1, got {max_len}")
    cdef rng_t rng
    cdef int64_t out[5]
    cdef cnp.ndarray[cnp.int64_t, ndim=1] lengths = np.zeros(max_len + 1, dtype=np.int64)
    cdef int i
    for i in range(5):
        out[i] = 0
    rng_seed(&rng, seed)
    with nogil:
        _random_games(&board.state, n_games, &rng, out, <int64_t*>lengths.data, max_len)
    return {"games": n_games, "first_wins": out[1], "second_wins": out[2], "draws": out[3],
            "unfinished": out[0], "plies": out[4], "lengths": lengths}
