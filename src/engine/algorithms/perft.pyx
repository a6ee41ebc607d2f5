# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Perft (leaf count of the move tree to a fixed depth) of any game's board: each game's
count, written once in ``games/template/contract.pxd.tp``."""
from libc.stdint cimport uint64_t
from ttt_engine._core.algorithms.game cimport GameBoard, game_perft
from ttt_engine._core.algorithms.game cimport game_init_tables
from ttt_engine._core.core.interrupt cimport interrupt_t, interrupt_init, interrupt_finish
game_init_tables()   # every game's lookup tables
from ttt_engine._util import check_int


def perft(GameBoard board, depth):
    """Leaf count of the game tree from ``board`` to ``depth`` plies, any game.

    One ply is one move; positions where the game ends before ``depth`` count
    as leaves.  The board is left unchanged.
    """
    cdef int d = check_int("depth", depth, min=0, max=1000)
    cdef uint64_t n
    cdef interrupt_t it
    interrupt_init(&it, 64, NULL)
    with nogil:
        n = game_perft(&board.state, d, &it)
    interrupt_finish(&it)
    return n
