# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Random play from a position, written once for every game on the interface.

``random_playouts(board, games, seed)`` plays ``games`` uniformly random games
from ``board`` (each from a fresh copy of its state, so the board is left
unchanged) with the game's own ``game_playout`` and the inline xoshiro
generator, without the GIL and without allocation.  It is the engine's
"random playouts per second" figure, and the rollout step MCTS performs once
per simulation.  ``random_games(board, games, seed)`` does the same move by
move to also count plies and a histogram of game lengths (Quixo's stage A
statistics, for any game).
"""
from libc.stdint cimport uint64_t, int64_t
from ttt_engine._core.algorithms.game cimport (
    GameState, GameBoard, GAME_WIN_FIRST, GAME_WIN_SECOND, GAME_DRAW, game_playout,
    game_status, game_make, game_random_move,
)
import numpy as np
from ttt_engine._core.core.rng cimport rng_t, rng_seed
from ttt_engine._core.core.interrupt cimport (
    interrupt_t, interrupt_init, interrupt_poll, interrupt_finish,
)
from ttt_engine._util import check_int, resolve_seed
from ttt_engine._parallel import check_threads, run_parts, split_counts, split_seeds

cdef long INT64_MAX = 9223372036854775807


from ttt_engine._core.algorithms.game cimport game_init_tables
game_init_tables()   # every game's lookup tables


cdef int playouts_state(const GameState* root, long games, rng_t* rng,
                        long* counts, interrupt_t* it) noexcept nogil:
    """counts[k] += number of playouts ending with status k (0..3); returns
    -1 when ``it`` reports an interrupt (between playouts), else 0."""
    cdef GameState work
    cdef long i
    cdef int status
    for i in range(games):
        if interrupt_poll(it):
            return -1
        work = root[0]
        status = game_playout(&work, rng)
        counts[status & 3] += 1
    return 0


def _playouts_part(GameBoard board, long games, uint64_t seed, int[::1] stop=None):
    """One thread's share of ``random_playouts``: outcome counts ``[4]``."""
    cdef rng_t rng
    cdef long counts[4]
    cdef interrupt_t it
    counts[0] = counts[1] = counts[2] = counts[3] = 0
    rng_seed(&rng, seed)
    interrupt_init(&it, 16, <volatile int*>&stop[0] if stop is not None else NULL)
    with nogil:
        playouts_state(&board.state, games, &rng, counts, &it)
    interrupt_finish(&it)
    return counts[0], counts[1], counts[2], counts[3]


def random_playouts(GameBoard board, games, seed=None, threads=1):
    """Play ``games`` uniformly random games from ``board``; return the outcomes.

    Returns a dict ``{"games", "first_wins", "second_wins", "draws", "seed"}``
    (first = the player who moves first in the game: X, or B in Clobber).
    The same ``seed`` gives the same counts (for the same ``threads``).
    ``threads``: split the games over this many threads, each with its own
    generator seeded from ``seed`` (``ttt_engine._parallel.split_seeds``).
    ``board`` is not modified.  Ctrl-C stops it within milliseconds
    (``KeyboardInterrupt``).
    """
    cdef long n = check_int("games", games, min=0, max=INT64_MAX)
    cdef uint64_t s = resolve_seed(seed)
    cdef int k = check_threads(threads)
    totals = [0, 0, 0, 0]
    for part in run_parts(_playouts_part, [(board, c, ps) for c, ps in
                                           zip(split_counts(n, k), split_seeds(s, k))]):
        for i in range(4):
            totals[i] += part[i]
    return {
        "games": n,
        "first_wins": totals[GAME_WIN_FIRST],
        "second_wins": totals[GAME_WIN_SECOND],
        "draws": totals[GAME_DRAW],
        "seed": s,
    }


cdef void games_state(const GameState* root, int64_t games, rng_t* rng, int64_t* counts,
                      int64_t* lengths, int64_t max_len, interrupt_t* it) noexcept nogil:
    """counts[status] += 1 per game, counts[4] += plies;
    lengths[min(plies, max_len)] += 1.  Stops early when ``it`` reports an
    interrupt."""
    cdef GameState work
    cdef int64_t g, plies
    cdef int status
    for g in range(games):
        if interrupt_poll(it):
            return
        work = root[0]
        plies = 0
        status = game_status(&work)
        while status == 0:
            game_make(&work, game_random_move(&work, rng))
            plies += 1
            status = game_status(&work)
        counts[status & 3] += 1
        counts[4] += plies
        lengths[plies if plies < max_len else max_len] += 1


def _games_part(GameBoard board, int64_t games, uint64_t seed, int64_t cap, int[::1] stop=None):
    """One thread's share of ``random_games``: ``(counts[5], lengths)``."""
    cdef rng_t rng
    cdef int64_t counts[5]
    cdef int64_t[::1] lengths = np.zeros(cap + 1, dtype=np.int64)
    cdef int i
    cdef interrupt_t it
    for i in range(5):
        counts[i] = 0
    rng_seed(&rng, seed)
    interrupt_init(&it, 16, <volatile int*>&stop[0] if stop is not None else NULL)
    with nogil:
        games_state(&board.state, games, &rng, counts, &lengths[0], cap, &it)
    interrupt_finish(&it)
    return [counts[i] for i in range(5)], np.asarray(lengths)


def random_games(GameBoard board, games, seed=None, max_len=1000, threads=1):
    """Play ``games`` uniformly random games from ``board`` move by move.

    Returns a dict ``{"games", "first_wins", "second_wins", "draws", "plies",
    "lengths", "seed"}``: ``plies`` is the total number of moves played and
    ``lengths[k]`` the number of games that lasted ``k`` plies (the last bin,
    ``max_len``, collects every longer game).  Same seed => same result (for
    the same ``threads``: the games are split over that many threads, as in
    ``random_playouts``); ``board`` is not modified.  Ctrl-C stops it within
    milliseconds (``KeyboardInterrupt``).
    """
    cdef int64_t n = check_int("games", games, min=0, max=INT64_MAX)
    cdef int64_t cap = check_int("max_len", max_len, min=1, max=1 << 24)
    cdef uint64_t s = resolve_seed(seed)
    cdef int k = check_threads(threads)
    counts = [0, 0, 0, 0, 0]
    lengths = None
    for part_counts, part_lengths in run_parts(
            _games_part, [(board, c, ps, cap) for c, ps in
                          zip(split_counts(n, k), split_seeds(s, k))]):
        counts = [a + b for a, b in zip(counts, part_counts)]
        lengths = part_lengths if lengths is None else lengths + part_lengths
    return {
        "games": n,
        "first_wins": counts[GAME_WIN_FIRST],
        "second_wins": counts[GAME_WIN_SECOND],
        "draws": counts[GAME_DRAW],
        "plies": counts[4],
        "lengths": lengths,
        "seed": s,
    }
