# cython: language_level=3
"""Connect Four core: 7 columns x 6 rows, discs drop to the lowest empty cell
of a column; four in a row (horizontal, vertical or diagonal) wins; a full
board with no four is a draw.  X (player 0) moves first.

Bitboards in the classic layout (John Tromp, Pascal Pons): one ``uint64`` per
player, 7 bits per column -- 6 rows plus one always-empty sentinel bit on top
-- so bit ``7 * col + row`` (row 0 the bottom) is a cell, and a shift by 1
(vertical), 7 (horizontal), 6 or 8 (the two diagonals) never carries a line
from one column into the next::

     5 12 19 26 33 40 47      top row
     4 11 18 25 32 39 46
     3 10 17 24 31 38 45
     2  9 16 23 30 37 44
     1  8 15 22 29 36 43
     0  7 14 21 28 35 42      bottom row
     a  b  c  d  e  f  g      columns 0..6

A move is a column 0..6 (the same number as an action); the legal moves are
the columns that are not full, in ascending order.

Everything here is ``inline`` and ``nogil`` and allocates nothing; there are
no lookup tables to fill (``connect4_init_tables`` does nothing).
"""
from libc.stdint cimport uint64_t
from ttt_engine._core.core.bits cimport bits_popcount64 as C4_POPCOUNT, bits_ctz64 as C4_CTZ
from ttt_engine._core.core.rng cimport rng_t, rng_below
from ttt_engine._core.core.common cimport undo_t, GAME_ONGOING, GAME_WIN_FIRST, GAME_DRAW

cdef extern from *:
    """
    /* bit 0 of every column; the 42 cells; column 0's six cells */
    #define C4_BOTTOM 0x0040810204081ULL
    #define C4_CELLS 0x0FDFBF7EFDFBFULL
    #define C4_COLUMN0 0x3FULL
    """
    const uint64_t C4_BOTTOM
    const uint64_t C4_CELLS
    const uint64_t C4_COLUMN0

cdef enum:
    C4_COLS = 7
    C4_ROWS = 6
    C4_STRIDE = 7              # bits per column: 6 rows + the sentinel
    C4_NCELLS = 42


cdef struct Connect4State:
    uint64_t bb[2]           # bit 7*col+row set: player p (0 = X, 1 = O) has a disc there
    int height[7]            # discs in each column (its next free row)
    int ply                  # discs on the board
    int to_move              # 0 = X, 1 = O
    int status               # GAME_* of common.pxd: ongoing, X won, O won, draw


cdef inline void connect4_init_tables() noexcept nogil:
    """No tables: everything is computed with shifts."""
    pass


cdef inline void connect4_reset(Connect4State* s) noexcept nogil:
    cdef int c
    s.bb[0] = 0
    s.bb[1] = 0
    for c in range(C4_COLS):
        s.height[c] = 0
    s.ply = 0
    s.to_move = 0
    s.status = GAME_ONGOING


cdef inline uint64_t connect4_mask(const Connect4State* s) noexcept nogil:
    """Every disc on the board."""
    return s.bb[0] | s.bb[1]


cdef inline bint connect4_has_four(uint64_t p) noexcept nogil:
    """True if the disc set ``p`` holds four in a row (shift-and-and per direction)."""
    cdef uint64_t m
    m = p & (p >> 7)                 # horizontal
    if m & (m >> 14):
        return True
    m = p & (p >> 6)                 # diagonal rising to the left
    if m & (m >> 12):
        return True
    m = p & (p >> 8)                 # diagonal rising to the right
    if m & (m >> 16):
        return True
    m = p & (p >> 1)                 # vertical
    return (m & (m >> 2)) != 0


cdef inline uint64_t _c4_line_cells(uint64_t p, int d) noexcept nogil:
    """Cells that complete four of ``p`` along the line of bit step ``d``: the
    missing one of four consecutive cells, at either end or inside."""
    cdef uint64_t q = (p << d) & (p << 2 * d), r
    r = (q & (p << 3 * d)) | (q & (p >> d))
    q = (p >> d) & (p >> 2 * d)
    return r | (q & (p << d)) | (q & (p >> 3 * d))


cdef inline uint64_t connect4_winning_cells(uint64_t p, uint64_t mask) noexcept nogil:
    """The empty cells (playable now or not) that would complete a four of ``p``."""
    cdef uint64_t r = (p << 1) & (p << 2) & (p << 3)      # vertical: three below
    r |= _c4_line_cells(p, C4_STRIDE)                      # horizontal
    r |= _c4_line_cells(p, C4_STRIDE - 1)                  # diagonal, one way
    r |= _c4_line_cells(p, C4_STRIDE + 1)                  # diagonal, the other
    return r & (C4_CELLS ^ mask)


cdef inline uint64_t connect4_playable(const Connect4State* s) noexcept nogil:
    """The cells a disc would land on now: one per column that is not full."""
    return (connect4_mask(s) + C4_BOTTOM) & C4_CELLS


cdef inline int connect4_cell_column(uint64_t cell_bit) noexcept nogil:
    return C4_CTZ(cell_bit) // C4_STRIDE


cdef inline undo_t connect4_make(Connect4State* s, int col) noexcept nogil:
    """Drop the mover's disc in column ``col`` (caller guarantees legality)."""
    cdef int p = s.to_move
    s.bb[p] |= (<uint64_t>1) << (col * C4_STRIDE + s.height[col])
    s.height[col] += 1
    s.ply += 1
    if connect4_has_four(s.bb[p]):
        s.status = GAME_WIN_FIRST + p
    elif s.ply == C4_NCELLS:
        s.status = GAME_DRAW
    s.to_move = p ^ 1
    return 0                 # nothing to remember: unmake takes the column's top disc


cdef inline void connect4_unmake(Connect4State* s, int col, undo_t undo) noexcept nogil:
    """Undo ``connect4_make(s, col)``; any earlier position was ongoing."""
    cdef int p = s.to_move ^ 1
    s.to_move = p
    s.height[col] -= 1
    s.bb[p] &= ~((<uint64_t>1) << (col * C4_STRIDE + s.height[col]))
    s.ply -= 1
    s.status = GAME_ONGOING


cdef inline int connect4_legal_moves(const Connect4State* s, int* moves) noexcept nogil:
    """Write the columns that are not full (ascending) to ``moves``; 0 when the game is over."""
    if s.status:
        return 0
    cdef int c, n = 0
    for c in range(C4_COLS):
        if s.height[c] < C4_ROWS:
            moves[n] = c
            n += 1
    return n


cdef inline int connect4_random_move(const Connect4State* s, rng_t* rng) noexcept nogil:
    """A uniformly random column that is not full (the game must not be over)."""
    cdef int c, n = 0
    cdef int cols[7]
    for c in range(C4_COLS):
        if s.height[c] < C4_ROWS:
            cols[n] = c
            n += 1
    return cols[rng_below(rng, n)]


cdef inline int connect4_playout(Connect4State* s, rng_t* rng) noexcept nogil:
    """Play uniformly random moves in place until the game ends; return the status."""
    while s.status == 0:
        connect4_make(s, connect4_random_move(s, rng))
    return s.status


cdef inline int connect4_random_of(uint64_t cells, rng_t* rng) noexcept nogil:
    """The column of a uniformly random cell of the non-empty set ``cells``
    (at most one per column)."""
    cdef int k = rng_below(rng, C4_POPCOUNT(cells))
    while k:
        cells &= cells - 1
        k -= 1
    return connect4_cell_column(cells & (~cells + 1))


cdef inline int connect4_decisive_move(const Connect4State* s, rng_t* rng) noexcept nogil:
    """The decisive policy: a move that wins at once if there is one, else one
    that blocks an immediate win of the opponent, else a uniformly random move
    (the game must not be over).  Random among equals."""
    cdef uint64_t mask = connect4_mask(s), playable = connect4_playable(s)
    cdef uint64_t w = connect4_winning_cells(s.bb[s.to_move], mask) & playable
    if w:
        return connect4_random_of(w, rng)
    w = connect4_winning_cells(s.bb[s.to_move ^ 1], mask) & playable
    if w:
        return connect4_random_of(w, rng)
    return connect4_random_move(s, rng)


cdef inline int connect4_playout_decisive(Connect4State* s, rng_t* rng) noexcept nogil:
    """A playout with the decisive policy until the game ends; returns the status."""
    while s.status == 0:
        connect4_make(s, connect4_decisive_move(s, rng))
    return s.status


# ------------------------------------------------------------ the game contract
cdef inline uint64_t connect4_hash(const Connect4State* s) noexcept nogil:
    """Pons's key ``current + mask``: column by column, the side to move's discs
    plus ``2**h - 1`` for a column of height h -- the column values of
    different heights lie in disjoint ranges, so the key fixes every column's
    height and contents, and (the disc count's parity) the side to move.
    Unique per position, and below 2**49."""
    return s.bb[s.to_move] + connect4_mask(s)


cdef inline int connect4_line_score(int own, int other) noexcept nogil:
    """Value of one four-cell window for the side with ``own`` discs in it."""
    if other:
        return 0
    if own == 3:
        return 32
    if own == 2:
        return 4
    if own == 1:
        return 1
    return 0


cdef inline double connect4_evaluate(const Connect4State* s, int heuristic) noexcept nogil:
    """Static value from the side to move: over the 69 four-cell windows, each
    window free of the opponent scores 1 / 4 / 32 for 1 / 2 / 3 own discs (and
    the opponent's count against), plus 3 per disc in the centre column and 2
    in the two next to it; bounded by a few thousand.  (``heuristic`` has
    only the default, 0.)"""
    cdef uint64_t me = s.bb[s.to_move], opp = s.bb[s.to_move ^ 1], w
    cdef int c, r, a, b
    cdef double v = 0.0
    cdef uint64_t centre = C4_COLUMN0 << (3 * C4_STRIDE)
    cdef uint64_t near = (C4_COLUMN0 << (2 * C4_STRIDE)) | (C4_COLUMN0 << (4 * C4_STRIDE))
    for c in range(C4_COLS):
        for r in range(C4_ROWS):
            # windows starting at (c, r) going up, right, up-right and down-right
            if r + 3 < C4_ROWS:
                w = (<uint64_t>0xF) << (c * C4_STRIDE + r)
                a = C4_POPCOUNT(w & me)
                b = C4_POPCOUNT(w & opp)
                v += connect4_line_score(a, b) - connect4_line_score(b, a)
            if c + 3 < C4_COLS:
                w = (<uint64_t>0x204081) << (c * C4_STRIDE + r)        # steps of 7
                a = C4_POPCOUNT(w & me)
                b = C4_POPCOUNT(w & opp)
                v += connect4_line_score(a, b) - connect4_line_score(b, a)
                if r + 3 < C4_ROWS:
                    w = (<uint64_t>0x1010101) << (c * C4_STRIDE + r)   # steps of 8
                    a = C4_POPCOUNT(w & me)
                    b = C4_POPCOUNT(w & opp)
                    v += connect4_line_score(a, b) - connect4_line_score(b, a)
                if r >= 3:
                    w = (<uint64_t>0x41041) << (c * C4_STRIDE + r)      # steps of 6
                    a = C4_POPCOUNT(w & me)
                    b = C4_POPCOUNT(w & opp)
                    v += connect4_line_score(a, b) - connect4_line_score(b, a)
    v += 3 * (C4_POPCOUNT(me & centre) - C4_POPCOUNT(opp & centre))
    v += 2 * (C4_POPCOUNT(me & near) - C4_POPCOUNT(opp & near))
    return v


cdef inline int connect4_set_cells(Connect4State* s, const int* cells) noexcept nogil:
    """Set ``s`` from 42 cell values (0 empty, 1 X, 2 O) indexed ``row * 7 + col``
    with row 0 the TOP row, as displayed.  Returns 0 and a ready state for a
    position reachable by legal play; otherwise ``s`` is reset and the return
    value says why: 1 a disc floats above an empty cell, 2 the disc counts
    are not X = O or X = O + 1, 3 both sides have four, 4 the side with four
    did not move last or every one of its fours was already there before its
    last disc (no top disc of its can be removed to leave no four)."""
    cdef int r, c, v, nx = 0, no = 0, p
    cdef uint64_t bit, top
    connect4_reset(s)
    for c in range(C4_COLS):
        for r in range(C4_ROWS - 1, -1, -1):          # bottom (displayed last) first
            v = cells[r * C4_COLS + c]
            if v == 0:
                continue
            if s.height[c] != C4_ROWS - 1 - r:
                connect4_reset(s)
                return 1
            bit = (<uint64_t>1) << (c * C4_STRIDE + s.height[c])
            s.bb[v - 1] |= bit
            s.height[c] += 1
            if v == 1:
                nx += 1
            else:
                no += 1
    if nx != no and nx != no + 1:
        connect4_reset(s)
        return 2
    s.ply = nx + no
    s.to_move = 0 if nx == no else 1
    cdef bint xw = connect4_has_four(s.bb[0]), ow = connect4_has_four(s.bb[1])
    if xw and ow:
        connect4_reset(s)
        return 3
    if xw or ow:
        p = 0 if xw else 1
        # the winner moved last, and taking one of its column-top discs back
        # leaves no four
        if s.to_move != p ^ 1:
            connect4_reset(s)
            return 4
        for c in range(C4_COLS):
            if s.height[c] == 0:
                continue
            top = (<uint64_t>1) << (c * C4_STRIDE + s.height[c] - 1)
            if (s.bb[p] & top) and not connect4_has_four(s.bb[p] & ~top):
                s.status = GAME_WIN_FIRST + p
                return 0
        connect4_reset(s)
        return 4
    s.status = GAME_DRAW if s.ply == C4_NCELLS else GAME_ONGOING
    return 0
