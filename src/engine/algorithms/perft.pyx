# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Perft (leaf count of the move tree to a fixed depth), written once for every game."""
from libc.stdint cimport uint64_t
from ttt_engine._core.algorithms.game cimport (
    GameState, GameBoard, MAX_MOVES, undo_t, game_legal_moves, game_make, game_unmake,
)
from ttt_engine._core.algorithms.game cimport game_init_tables
from ttt_engine._core.core.interrupt cimport (
    interrupt_t, interrupt_init, interrupt_poll, interrupt_finish,
)
game_init_tables()   # every game's lookup tables
from ttt_engine._util import check_int


cdef uint64_t perft_state(GameState* s, int depth, interrupt_t* it) noexcept nogil:
    """Number of move sequences of exactly ``depth`` plies (positions where the
    game ends earlier count as leaves, like chess perft stops at mate).  When
    ``it`` reports an interrupt it unwinds (every move unmade) and the count is
    meaningless."""
    cdef int moves[MAX_MOVES]
    cdef int n, i
    cdef uint64_t total = 0
    cdef undo_t u
    if depth == 0:
        return 1
    n = game_legal_moves(s, moves)
    if n == 0:
        return 1
    if depth == 1:
        return n
    if interrupt_poll(it):
        return 0
    for i in range(n):
        u = game_make(s, moves[i])
        total += perft_state(s, depth - 1, it)
        game_unmake(s, moves[i], u)
        if it.hit:
            return 0
    return total


cdef uint64_t perft_copy(GameState* root, int depth, interrupt_t* it) noexcept:
    """``perft_state`` on a copy of ``root``, taken with the GIL held: the
    caller's board is never moved (another thread may read or play on it)."""
    cdef GameState work = root[0]
    cdef uint64_t n
    with nogil:
        n = perft_state(&work, depth, it)
    return n


def perft(GameBoard board, depth):
    """Leaf count of the game tree from ``board`` to ``depth`` plies, any game.

    One ply is one move; positions where the game ends before ``depth`` count
    as leaves.  The board is left unchanged.
    """
    cdef int d = check_int("depth", depth, min=0, max=1000)
    cdef uint64_t n
    cdef interrupt_t it
    interrupt_init(&it, 64, NULL)
    n = perft_copy(&board.state, d, &it)
    interrupt_finish(&it)
    return n
