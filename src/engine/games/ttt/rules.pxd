# cython: language_level=3
"""Tic-Tac-Toe core: a 3x3 board as two 9-bit masks plus the base-3 index.

Cells are numbered 0..8 row by row::

    0 | 1 | 2
    3 | 4 | 5
    6 | 7 | 8

The base-3 index is ``sum(cell[i] * 3**i)`` with cell values 0 empty, 1 X,
2 O; it is kept incrementally by make/unmake and indexes the (19683, 9)
Q table.  X (player 0) always moves first.

Everything here is ``inline`` and ``nogil`` so that algorithms in other modules
compile it straight into their hot loops.  The lookup tables live in each
including module (static C arrays) and are filled by ``ttt_init_tables()``,
which every module that cimports this file calls once at import.
"""
from libc.stdint cimport uint64_t
from ttt_engine._core.core.rng cimport rng_t, rng_below
from ttt_engine._core.core.common cimport undo_t, GAME_ONGOING, GAME_WIN_FIRST, GAME_DRAW

cdef extern from *:
    """
    /* 1 if the 9-bit mask contains a full line. */
    static unsigned char ttt_win_table[512];
    /* ttt_kth_cell[m][k]: the k-th set bit of the 9-bit mask m (-1 past the end),
       so a random legal move is one draw plus one lookup. */
    static signed char ttt_kth_cell[512][9];
    static unsigned char ttt_popcount9[512];
    /* ttt_win_cells[m]: cells outside m that would complete a line of m
       (a player's immediate wins are ttt_win_cells[own] & empty). */
    static unsigned short ttt_win_cells[512];
    static const int ttt_pow3[9] = {1, 3, 9, 27, 81, 243, 729, 2187, 6561};
    static const int ttt_lines[8] = {0x007, 0x038, 0x1C0, 0x049, 0x092, 0x124, 0x111, 0x054};
    static int ttt_tables_ready = 0;
    """
    unsigned char ttt_win_table[512]
    signed char ttt_kth_cell[512][9]
    unsigned char ttt_popcount9[512]
    unsigned short ttt_win_cells[512]
    const int ttt_pow3[9]
    const int ttt_lines[8]
    int ttt_tables_ready

cdef enum:
    TTT_CELLS = 9
    TTT_STATES = 19683
    TTT_FULL = 0x1FF


cdef struct TTTState:
    int mask[2]     # bit i set: player p (0 = X, 1 = O) has a mark in cell i
    int index       # base-3 index, sum(cell[i] * 3**i), cell values 0/1/2
    int nmoves      # marks on the board
    int to_move     # 0 = X, 1 = O
    int status      # GAME_* of common.pxd: ongoing, X won, O won, draw


cdef inline void ttt_init_tables() noexcept nogil:
    global ttt_tables_ready
    cdef int m, i, k, line
    if ttt_tables_ready:
        return
    for m in range(512):
        ttt_win_table[m] = 0
        for line in range(8):
            if (m & ttt_lines[line]) == ttt_lines[line]:
                ttt_win_table[m] = 1
        k = 0
        for i in range(9):
            ttt_kth_cell[m][i] = -1
        for i in range(9):
            if m & (1 << i):
                ttt_kth_cell[m][k] = i
                k += 1
        ttt_popcount9[m] = k
    for m in range(512):
        ttt_win_cells[m] = 0
        for i in range(9):
            if not (m & (1 << i)) and ttt_win_table[m | (1 << i)] and not ttt_win_table[m]:
                ttt_win_cells[m] |= 1 << i
    ttt_tables_ready = 1


cdef inline void ttt_reset(TTTState* s) noexcept nogil:
    s.mask[0] = 0
    s.mask[1] = 0
    s.index = 0
    s.nmoves = 0
    s.to_move = 0
    s.status = 0


cdef inline int ttt_empty_mask(const TTTState* s) noexcept nogil:
    return (~(s.mask[0] | s.mask[1])) & TTT_FULL


cdef inline undo_t ttt_make(TTTState* s, int cell) noexcept nogil:
    """Place the mover's mark in an empty cell (caller guarantees legality)."""
    cdef int p = s.to_move
    s.mask[p] |= 1 << cell
    s.index += (p + 1) * ttt_pow3[cell]
    s.nmoves += 1
    if ttt_win_table[s.mask[p]]:
        s.status = GAME_WIN_FIRST + p
    elif s.nmoves == 9:
        s.status = GAME_DRAW
    s.to_move = p ^ 1
    return 0                 # nothing to remember: unmake clears the cell


cdef inline void ttt_unmake(TTTState* s, int cell, undo_t undo) noexcept nogil:
    """Undo ``ttt_make(s, cell)``; any earlier position was ongoing."""
    cdef int p = s.to_move ^ 1
    s.to_move = p
    s.mask[p] &= ~(1 << cell)
    s.index -= (p + 1) * ttt_pow3[cell]
    s.nmoves -= 1
    s.status = GAME_ONGOING


cdef inline int ttt_legal_moves(const TTTState* s, int* moves) noexcept nogil:
    """Write the empty cells (ascending) to ``moves``; 0 when the game is over."""
    if s.status:
        return 0
    cdef int e = ttt_empty_mask(s)
    cdef int n = ttt_popcount9[e]
    cdef int k
    for k in range(n):
        moves[k] = ttt_kth_cell[e][k]
    return n


cdef inline int ttt_random_move(const TTTState* s, rng_t* rng) noexcept nogil:
    """A uniformly random empty cell (the game must not be over)."""
    cdef int e = ttt_empty_mask(s)
    return ttt_kth_cell[e][rng_below(rng, ttt_popcount9[e])]


cdef inline int ttt_playout(TTTState* s, rng_t* rng) noexcept nogil:
    """Play uniformly random moves in place until the game ends; return the status."""
    while s.status == 0:
        ttt_make(s, ttt_random_move(s, rng))
    return s.status


cdef inline int ttt_open_lines(int own, int opp) noexcept nogil:
    """Number of lines with at least one ``own`` mark and no ``opp`` mark."""
    cdef int line, n = 0
    for line in range(8):
        if (ttt_lines[line] & opp) == 0 and (ttt_lines[line] & own) != 0:
            n += 1
    return n


cdef inline double ttt_evaluate(const TTTState* s, int heuristic) noexcept nogil:
    """Static evaluation from the side to move: open-line difference / 8, in [-1, 1]."""
    cdef int me = s.mask[s.to_move], opp = s.mask[s.to_move ^ 1]
    return (ttt_open_lines(me, opp) - ttt_open_lines(opp, me)) / 8.0


cdef inline bint ttt_set_index(TTTState* s, int index) noexcept nogil:
    """Decode a base-3 index into ``s``; returns False (and leaves ``s`` reset)
    unless the position is reachable from the empty board by legal play."""
    cdef int i, v, nx = 0, no = 0, m, c, p
    ttt_reset(s)
    if index < 0 or index >= TTT_STATES:
        return False
    for i in range(9):
        v = index % 3
        index //= 3
        if v == 1:
            s.mask[0] |= 1 << i
            nx += 1
        elif v == 2:
            s.mask[1] |= 1 << i
            no += 1
    s.index = 0
    for i in range(9):
        if s.mask[0] & (1 << i):
            s.index += ttt_pow3[i]
        elif s.mask[1] & (1 << i):
            s.index += 2 * ttt_pow3[i]
    s.nmoves = nx + no
    if nx != no and nx != no + 1:
        ttt_reset(s)
        return False
    s.to_move = 0 if nx == no else 1
    cdef bint xw = ttt_win_table[s.mask[0]], ow = ttt_win_table[s.mask[1]]
    if xw and ow:
        ttt_reset(s)
        return False
    if xw or ow:
        p = 0 if xw else 1
        # The winner must have moved last, and one of its marks must be the
        # last one placed: removing it leaves no line for anybody.
        if (p == 0 and nx != no + 1) or (p == 1 and nx != no):
            ttt_reset(s)
            return False
        m = s.mask[p]
        for c in range(9):
            if (m & (1 << c)) and not ttt_win_table[m & ~(1 << c)]:
                s.status = p + 1
                return True
        ttt_reset(s)
        return False
    s.status = GAME_DRAW if s.nmoves == 9 else GAME_ONGOING
    return True


# ------------------------------------------------------------ the game contract
cdef inline uint64_t ttt_hash(const TTTState* s) noexcept nogil:
    """The base-3 index: unique per position, side to move included."""
    return <uint64_t>s.index


