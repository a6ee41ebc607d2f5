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
from ttt_engine._core.core.hashing cimport mix64
from ttt_engine._core.core.rng cimport rng_t, rng_below, rng_next
from ttt_engine._core.core.common cimport undo_t, GAME_ONGOING, GAME_WIN_FIRST, GAME_WIN_SECOND, GAME_DRAW
from ttt_engine._core.games.ttt.rules cimport (
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

cdef extern from *:
    """
    /* uttt_threat[m]: cells that complete a line for the owner of the 9-bit
       mask m (the third cell of every line holding two of m's marks); the
       caller masks it with the empty cells. */
    static const unsigned short uttt_threat[512] = {
      0,0,0,4,0,2,1,0,0,64,0,68,0,66,1,64,
      0,256,128,388,64,322,193,448,32,352,160,484,96,354,225,480,
      0,0,0,4,256,258,257,256,16,80,16,84,272,338,273,336,
      8,264,136,396,328,330,457,456,0,320,128,452,320,322,449,448,
      0,8,0,12,16,26,17,24,1,0,1,4,17,18,17,16,
      4,268,132,396,0,266,129,392,37,292,165,420,33,290,161,416,
      0,8,0,12,272,282,273,280,17,16,17,20,273,274,273,272,
      12,268,140,396,264,266,393,392,5,260,133,388,257,258,385,384,
      0,0,16,20,0,2,17,16,0,64,16,84,0,66,17,80,
      2,258,0,260,66,322,65,320,34,354,32,356,98,354,97,352,
      0,0,16,20,256,258,273,272,16,80,16,84,272,338,273,336,
      10,266,8,268,330,330,329,328,2,322,0,324,322,322,321,320,
      256,264,272,284,272,282,273,280,257,256,273,276,273,274,273,272,
      262,270,260,268,258,266,257,264,295,294,293,292,291,290,289,288,
      256,264,272,284,272,282,273,280,273,272,273,276,273,274,273,272,
      270,270,268,268,266,266,265,264,263,262,261,260,259,258,257,256,
      0,16,0,20,32,50,33,48,0,80,0,84,32,114,33,112,
      1,0,129,132,97,98,225,224,33,96,161,228,97,98,225,224,
      4,20,4,20,0,18,1,16,20,84,20,84,16,82,17,80,
      13,12,141,140,73,74,201,200,5,68,133,196,65,66,193,192,
      128,152,128,156,176,186,177,184,129,144,129,148,177,178,177,176,
      133,140,133,140,161,170,161,168,165,164,165,164,161,162,161,160,
      132,156,132,156,144,154,145,152,149,148,149,148,145,146,145,144,
      141,140,141,140,137,138,137,136,133,132,133,132,129,130,129,128,
      64,80,80,84,96,114,113,112,64,80,80,84,96,114,113,112,
      67,66,65,68,99,98,97,96,99,98,97,100,99,98,97,96,
      68,84,84,84,64,82,81,80,84,84,84,84,80,82,81,80,
      79,78,77,76,75,74,73,72,71,70,69,68,67,66,65,64,
      0,24,16,28,48,58,49,56,1,16,17,20,49,50,49,48,
      7,14,5,12,35,42,33,40,39,38,37,36,35,34,33,32,
      4,28,20,28,16,26,17,24,21,20,21,20,17,18,17,16,
      15,14,13,12,11,10,9,8,7,6,5,4,3,2,1,0};
    """
    const unsigned short uttt_threat[512]

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


cdef inline int uttt_winning_bc(const UTTTState* s, int p) noexcept nogil:
    """A move (``b * 16 + c``) with which player ``p``, to move, wins the game at
    once by a big-board line (the lowest board, then cell), or -1."""
    cdef int b, t, open_ = (~s.closed) & UTTT_FULL
    cdef int boards = uttt_threat[s.won[p]] & open_
    if s.forced >= 0:
        boards &= 1 << s.forced
    while boards:
        b = ttt_kth_cell[boards][0]
        boards &= boards - 1
        t = uttt_threat[s.local[p][b]] & uttt_empty(s, b)
        if t:
            return (b << 4) | ttt_kth_cell[t][0]
    return -1


cdef inline int uttt_danger(const UTTTState* s, int o) noexcept nogil:
    """Open boards where player ``o`` would win the game by winning the board
    and has a cell that wins it (a 9-bit mask)."""
    cdef int b, d = 0, boards = uttt_threat[s.won[o]] & (~s.closed) & UTTT_FULL
    while boards:
        b = ttt_kth_cell[boards][0]
        boards &= boards - 1
        if uttt_threat[s.local[o][b]] & uttt_empty(s, b):
            d |= 1 << b
    return d


cdef inline bint uttt_safe_bc(const UTTTState* s, int p, int danger, int b, int c) noexcept nogil:
    """Whether ``p`` playing cell ``c`` of board ``b`` leaves the opponent, whose
    game-winning boards are ``danger``, no immediate win: the board ``c`` the
    move sends it to (any board when ``c`` is closed) holds no such threat."""
    cdef int o = p ^ 1, bit = 1 << c
    cdef int lm = s.local[p][b] | bit
    cdef int occ = lm | s.local[o][b]
    cdef int closed = s.closed
    if ttt_win_table[lm] or occ == UTTT_FULL:
        closed |= 1 << b
        danger &= ~(1 << b)
    elif (danger >> b) & 1 and not (uttt_threat[s.local[o][b]] & ~occ & UTTT_FULL):
        danger &= ~(1 << b)        # the move took the opponent's last winning cell
    if (closed >> c) & 1:
        return danger == 0
    return not ((danger >> c) & 1)


cdef inline int uttt_decisive_bc(const UTTTState* s, rng_t* rng) noexcept nogil:
    """A playout move with decisive and anti-decisive moves: a move that wins
    the game at once if there is one; else a uniformly random move among those
    after which the opponent cannot win at once (uniform among all when every
    move loses so).  Returns ``b * 16 + c``; the game must be on."""
    cdef int p = s.to_move, w, danger, n = 0, b, e, k, kb, ob
    cdef int safe[81]
    w = uttt_winning_bc(s, p)
    if w >= 0:
        return w
    danger = uttt_danger(s, p ^ 1)
    if danger == 0:
        return uttt_random_bc(s, rng)
    if s.forced >= 0:
        ob = 1 << s.forced
    else:
        ob = (~s.closed) & UTTT_FULL
    for kb in range(ttt_popcount9[ob]):
        b = ttt_kth_cell[ob][kb]
        e = uttt_empty(s, b)
        for k in range(ttt_popcount9[e]):
            if uttt_safe_bc(s, p, danger, b, ttt_kth_cell[e][k]):
                safe[n] = (b << 4) | ttt_kth_cell[e][k]
                n += 1
    if n == 0:
        return uttt_random_bc(s, rng)
    return safe[rng_below(rng, n)]


cdef inline int uttt_playout_decisive(UTTTState* s, rng_t* rng) noexcept nogil:
    """A playout with decisive and anti-decisive moves (``uttt_decisive_bc``)
    until the game ends; returns the status.  Slower per ply than the uniform
    ``uttt_playout``: the threat tests cost a few table lookups per move, and a
    full scan of the moves whenever the opponent has a game-winning threat."""
    cdef int bc
    while s.status == 0:
        bc = uttt_decisive_bc(s, rng)
        uttt_make_bc(s, bc >> 4, bc & 15)
    return s.status


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
    return mix64(mix64(mix64(a) ^ c) ^ d)


cdef inline double uttt_evaluate(const UTTTState* s, int heuristic) noexcept nogil:
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


# ------------------------------------------------------------ the game contract
cdef inline int uttt_decisive_move(const UTTTState* s, rng_t* rng) noexcept nogil:
    """The first move of ``uttt_playout_decisive`` from ``s`` (game on)."""
    cdef int bc = uttt_decisive_bc(s, rng)
    return uttt_bc_move[bc >> 4][bc & 15]
