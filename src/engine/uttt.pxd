# cython: language_level=3
"""Ultimate Tic-Tac-Toe core: bitboards and inline nogil game functions.

The 9x9 grid is nine local 3x3 boards in a 3x3 big board.  Local boards and
the cells inside a local board are both numbered 0..8 row by row (as in
``ttt.pxd``); a move is numbered ``9*R + C`` on the 9x9 grid (R, C in 0..8),
so move ``m`` lies in local board ``(R//3)*3 + C//3`` at cell
``(R%3)*3 + C%3``.  The cell index of a move is also the big-board position of
the local board the opponent is sent to.

State (48 bytes, no pointers, copied by plain struct assignment):

- ``local[p][b]``: 9-bit mask of player p's marks in local board b;
- ``won[p]``: 9-bit big-board mask of the local boards player p has won;
- ``closed``: 9-bit mask of closed local boards (won, or full without a line);
- ``forced``: the local board the side to move must play in, or -1 (free:
  any open board);
- ``to_move`` (0 = X, 1 = O), ``status`` (GAME_* codes of game.pxd),
  ``nmoves``, and ``tiebreak`` (1: a game that ends with every local board
  closed and no big-board line goes to whoever won more local boards).

``uttt_make`` returns an undo token (the previous ``forced`` + 1); everything
else is recomputed exactly by ``uttt_unmake`` because a legal move is always
played in an open local board, so the only closed/won bit it can set is that
board's.  Lookup tables (line/popcount/k-th bit of a 9-bit mask) are shared
with ``ttt.pxd`` and filled by ``uttt_init_tables()`` (= ``ttt_init_tables``);
the move <-> (board, cell) tables are compile-time constants.
"""
from libc.stdint cimport uint64_t, uint16_t, uint8_t, int8_t
from ttt_engine._core.rng cimport rng_t, rng_below, rng_next
from ttt_engine._core.common cimport undo_t, GAME_ONGOING, GAME_WIN_FIRST, GAME_WIN_SECOND, GAME_DRAW
from ttt_engine._core.ttt cimport (
    ttt_win_table, ttt_kth_cell, ttt_popcount9, ttt_init_tables, ttt_open_lines,
)

cdef extern from *:
    """
    static const unsigned char uttt_move_board[81] = {
      0,0,0,1,1,1,2,2,2, 0,0,0,1,1,1,2,2,2, 0,0,0,1,1,1,2,2,2,
      3,3,3,4,4,4,5,5,5, 3,3,3,4,4,4,5,5,5, 3,3,3,4,4,4,5,5,5,
      6,6,6,7,7,7,8,8,8, 6,6,6,7,7,7,8,8,8, 6,6,6,7,7,7,8,8,8};
    static const unsigned char uttt_move_cell[81] = {
      0,1,2,0,1,2,0,1,2, 3,4,5,3,4,5,3,4,5, 6,7,8,6,7,8,6,7,8,
      0,1,2,0,1,2,0,1,2, 3,4,5,3,4,5,3,4,5, 6,7,8,6,7,8,6,7,8,
      0,1,2,0,1,2,0,1,2, 3,4,5,3,4,5,3,4,5, 6,7,8,6,7,8,6,7,8};
    static const unsigned char uttt_bc_move[9][9] = {
      {0,1,2,9,10,11,18,19,20}, {3,4,5,12,13,14,21,22,23}, {6,7,8,15,16,17,24,25,26},
      {27,28,29,36,37,38,45,46,47}, {30,31,32,39,40,41,48,49,50}, {33,34,35,42,43,44,51,52,53},
      {54,55,56,63,64,65,72,73,74}, {57,58,59,66,67,68,75,76,77}, {60,61,62,69,70,71,78,79,80}};
    """
    const unsigned char uttt_move_board[81]
    const unsigned char uttt_move_cell[81]
    const unsigned char uttt_bc_move[9][9]

cdef enum:
    UTTT_CELLS = 81
    UTTT_FULL = 0x1FF
    UTTT_FREE = -1


cdef struct UTTTState:
    uint16_t local[2][9]   # local[p][b]: player p's marks in local board b
    uint16_t won[2]        # big-board masks of local boards won by X / O
    uint16_t closed        # big-board mask of closed boards (won or full)
    int8_t forced          # board the side to move must play in, -1 = free
    uint8_t to_move        # 0 = X, 1 = O
    uint8_t status         # GAME_* of common.pxd: ongoing, X won, O won, draw
    uint8_t nmoves         # marks on the grid
    uint8_t tiebreak       # 1: a full-closure draw goes to the player with more boards
    uint8_t _pad           # keeps the struct free of compiler padding (hash/compare)


cdef inline void uttt_init_tables() noexcept nogil:
    ttt_init_tables()


cdef inline void uttt_reset(UTTTState* s, int tiebreak) noexcept nogil:
    cdef int b
    for b in range(9):
        s.local[0][b] = 0
        s.local[1][b] = 0
    s.won[0] = 0
    s.won[1] = 0
    s.closed = 0
    s.forced = UTTT_FREE
    s.to_move = 0
    s.status = 0
    s.nmoves = 0
    s.tiebreak = 1 if tiebreak else 0
    s._pad = 0


cdef inline int uttt_empty(const UTTTState* s, int b) noexcept nogil:
    """Empty cells of local board ``b`` (9-bit mask)."""
    return (~(s.local[0][b] | s.local[1][b])) & UTTT_FULL


cdef inline int _uttt_closure(int won0, int won1, int tiebreak) noexcept nogil:
    """Status when every local board is closed and nobody has a big-board line."""
    cdef int nx, no
    if tiebreak:
        nx = ttt_popcount9[won0]
        no = ttt_popcount9[won1]
        if nx > no:
            return GAME_WIN_FIRST
        if no > nx:
            return GAME_WIN_SECOND
    return GAME_DRAW


cdef inline int uttt_closure_result(const UTTTState* s) noexcept nogil:
    """Status when every local board is closed and nobody has a big-board line."""
    return _uttt_closure(s.won[0], s.won[1], s.tiebreak)


cdef inline void uttt_make_bc(UTTTState* s, int b, int c) noexcept nogil:
    """Play cell ``c`` of local board ``b`` for the side to move (legal move)."""
    cdef int p = s.to_move
    cdef int lm = s.local[p][b] | (1 << c)
    s.local[p][b] = lm
    if ttt_win_table[lm]:
        s.won[p] |= 1 << b
        s.closed |= 1 << b
        if ttt_win_table[s.won[p]]:
            s.status = p + 1
        elif s.closed == UTTT_FULL:
            s.status = uttt_closure_result(s)
    elif (lm | s.local[p ^ 1][b]) == UTTT_FULL:
        s.closed |= 1 << b
        if s.closed == UTTT_FULL:
            s.status = uttt_closure_result(s)
    s.forced = UTTT_FREE if (s.closed >> c) & 1 else c
    s.to_move = p ^ 1
    s.nmoves += 1


cdef inline undo_t uttt_make(UTTTState* s, int move) noexcept nogil:
    """Play ``move`` (0..80, legal); return the undo token for ``uttt_unmake``."""
    cdef undo_t undo = <undo_t>(s.forced + 1)
    uttt_make_bc(s, uttt_move_board[move], uttt_move_cell[move])
    return undo


cdef inline void uttt_unmake(UTTTState* s, int move, undo_t undo) noexcept nogil:
    """Exactly undo ``uttt_make(s, move)`` given its token."""
    cdef int p = s.to_move ^ 1
    cdef int b = uttt_move_board[move]
    cdef int nb = ~(1 << b)
    s.to_move = p
    s.local[p][b] &= ~(1 << uttt_move_cell[move])
    # the board was open before the move: only this move can have closed/won it
    s.won[p] &= nb
    s.closed &= nb
    s.status = 0
    s.forced = <int8_t>(<int>undo - 1)
    s.nmoves -= 1


cdef inline int uttt_legal_moves(const UTTTState* s, int* moves) noexcept nogil:
    """Legal moves, local board by local board (boards ascending, cells
    ascending inside a board); 0 when the game is over."""
    cdef int n = 0, k, e, b, ob, kb
    if s.status:
        return 0
    if s.forced >= 0:
        b = s.forced
        e = uttt_empty(s, b)
        for k in range(ttt_popcount9[e]):
            moves[k] = uttt_bc_move[b][ttt_kth_cell[e][k]]
        return ttt_popcount9[e]
    ob = (~s.closed) & UTTT_FULL
    for kb in range(ttt_popcount9[ob]):
        b = ttt_kth_cell[ob][kb]
        e = uttt_empty(s, b)
        for k in range(ttt_popcount9[e]):
            moves[n] = uttt_bc_move[b][ttt_kth_cell[e][k]]
            n += 1
    return n


cdef inline int uttt_random_bc(const UTTTState* s, rng_t* rng) noexcept nogil:
    """A uniformly random legal move as ``b * 16 + c`` (game must be on)."""
    cdef int b, e, r, total, cl
    cdef int counts[9]
    if s.forced >= 0:
        b = s.forced
        e = uttt_empty(s, b)
        return (b << 4) | ttt_kth_cell[e][rng_below(rng, ttt_popcount9[e])]
    # free: weight each open board by its empty cells (closed boards count 0;
    # a fixed 9-iteration loop without branches predicts better than looping
    # over the open boards only)
    cl = s.closed
    total = 0
    for b in range(9):
        counts[b] = ttt_popcount9[uttt_empty(s, b) & -(((cl >> b) & 1) ^ 1)]
        total += counts[b]
    r = rng_below(rng, total)
    b = 0
    while r >= counts[b]:
        r -= counts[b]
        b += 1
    return (b << 4) | ttt_kth_cell[uttt_empty(s, b)][r]


cdef inline int uttt_random_move(const UTTTState* s, rng_t* rng) noexcept nogil:
    """A uniformly random legal move 0..80 (game must be on)."""
    cdef int bc = uttt_random_bc(s, rng)
    return uttt_bc_move[bc >> 4][bc & 15]


cdef inline int uttt_playout(UTTTState* s, rng_t* rng) noexcept nogil:
    """Uniformly random moves in place until the game ends; return the status.

    Same moves, from the same random numbers, as repeating ``uttt_random_bc``
    and ``uttt_make_bc``, but on local copies: the side to move, forced board,
    closed/won masks and the generator's 256 bits stay in registers, and an
    occupancy mask per local board replaces the two-mask OR.  Through the
    pointers, every byte-sized store (``forced``, ``to_move``) may alias the
    generator state, so the compiler had to reload and store it every ply."""
    cdef uint16_t mark[2][9]
    cdef uint16_t occ[9]
    cdef int nempty[9]       # empty cells per local board (0 once closed)
    cdef int b, c, r, total, lm, bit, k, acc, base, lt
    cdef int p = s.to_move, forced = s.forced, closed = s.closed, status = s.status
    cdef int won0 = s.won[0], won1 = s.won[1], nmoves = s.nmoves, w
    cdef rng_t g = rng[0]     # a local copy: its address never escapes, so it lives in registers
    cdef uint64_t x
    for b in range(9):
        mark[0][b] = s.local[0][b]
        mark[1][b] = s.local[1][b]
        occ[b] = s.local[0][b] | s.local[1][b]
        nempty[b] = 0 if (closed >> b) & 1 else ttt_popcount9[(~occ[b]) & UTTT_FULL]
    while status == 0:
        x = rng_next(&g) >> 32
        if forced >= 0:
            b = forced
            # the count comes from its own array, loaded alongside ``occ``
            # instead of after it (a table lookup off the critical path)
            c = ttt_kth_cell[(~occ[b]) & UTTT_FULL][<int>((x * <uint64_t>nempty[b]) >> 32)]
        else:
            total = 0
            for b in range(9):
                total += nempty[b]
            r = <int>((x * <uint64_t>total) >> 32)
            # board = how many boards end at or before r (closed ones are
            # empty ranges); branch-free, a search loop mispredicted
            b = 0
            base = 0
            acc = 0
            for k in range(9):
                acc += nempty[k]
                lt = acc <= r
                b += lt
                base = acc if lt else base
            c = ttt_kth_cell[(~occ[b]) & UTTT_FULL][r - base]
        bit = 1 << c
        lm = mark[p][b] | bit
        mark[p][b] = <uint16_t>lm
        occ[b] |= bit
        nempty[b] -= 1
        if ttt_win_table[lm]:
            closed |= 1 << b
            nempty[b] = 0
            if p == 0:
                won0 |= 1 << b
                w = won0
            else:
                won1 |= 1 << b
                w = won1
            if ttt_win_table[w]:
                status = p + 1
            elif closed == UTTT_FULL:
                status = _uttt_closure(won0, won1, s.tiebreak)
        elif occ[b] == UTTT_FULL:
            closed |= 1 << b
            if closed == UTTT_FULL:
                status = _uttt_closure(won0, won1, s.tiebreak)
        forced = UTTT_FREE if (closed >> c) & 1 else c
        p ^= 1
        nmoves += 1
    for b in range(9):
        s.local[0][b] = mark[0][b]
        s.local[1][b] = mark[1][b]
    s.won[0] = <uint16_t>won0
    s.won[1] = <uint16_t>won1
    s.closed = <uint16_t>closed
    s.forced = <int8_t>forced
    s.to_move = <uint8_t>p
    s.status = <uint8_t>status
    s.nmoves = <uint8_t>nmoves
    rng[0] = g
    return status


cdef inline uint64_t _uttt_mix(uint64_t z) noexcept nogil:
    z = (z ^ (z >> 30)) * <uint64_t>0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * <uint64_t>0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef inline uint64_t uttt_hash(const UTTTState* s) noexcept nogil:
    """64-bit key of the position: both players' marks, forced board, side to
    move and rule variant (the 167 bits are packed into three words, then mixed)."""
    cdef uint64_t a = 0, c = 0, d = 0
    cdef int b
    cdef int f = 0 if s.status else s.forced + 1   # no forced board once the game is over
    for b in range(7):
        a = (a << 9) | s.local[0][b]
        c = (c << 9) | s.local[1][b]
    d = (<uint64_t>s.local[0][7]) | (<uint64_t>s.local[0][8] << 9) \
        | (<uint64_t>s.local[1][7] << 18) | (<uint64_t>s.local[1][8] << 27) \
        | (<uint64_t>f << 36) | (<uint64_t>s.to_move << 40) \
        | (<uint64_t>s.tiebreak << 41)
    return _uttt_mix(_uttt_mix(_uttt_mix(a) ^ c) ^ d)


cdef inline double uttt_evaluate(const UTTTState* s) noexcept nogil:
    """Static value from the side to move: 10 per local board won (difference),
    2 per open big-board line (difference), plus 0.25 per open local line in the
    open local boards (difference).  Finite, |v| < 200."""
    cdef int me = s.to_move, opp = s.to_move ^ 1, b
    cdef int drawn = s.closed & ~(s.won[0] | s.won[1])
    cdef double v
    v = 10.0 * (ttt_popcount9[s.won[me]] - ttt_popcount9[s.won[opp]])
    v += 2.0 * (ttt_open_lines(s.won[me], s.won[opp] | drawn)
                - ttt_open_lines(s.won[opp], s.won[me] | drawn))
    for b in range(9):
        if not (s.closed >> b) & 1:
            v += 0.25 * (ttt_open_lines(s.local[me][b], s.local[opp][b])
                         - ttt_open_lines(s.local[opp][b], s.local[me][b]))
    return v


cdef class Board:
    cdef UTTTState state
    cdef unsigned char _history[81]   # moves pushed on this board, for pop()
    cdef unsigned char _undo[81]      # their undo tokens
    cdef int _nhistory
