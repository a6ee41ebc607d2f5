# cython: language_level=3
"""Quixo core: an n x n board (n = 3, 4 or 5) as two 25-bit bitboards.

Cell ``(r, c)`` (row r from the top, column c from the left) is bit
``r * n + c``; for 5x5 that is also the position in the 25-character
string.  ``bb[0]`` holds X's cubes, ``bb[1]`` O's; blank cubes are in neither.

Move encoding: ``move = cell * 4 + side`` where ``cell`` is the border cube
taken and ``side`` the end of the line it is pushed back in from:
0 = top (column, cube ends in row 0), 1 = bottom (row n-1), 2 = left
(column 0), 3 = right (column n-1).  A side is legal unless it is the cube's
own edge (a cube on row 0 cannot go back in from the top, ...), so a corner
has 2 moves and another border cube 3: 44 moves on 5x5, 32 on 4x4, 20 on 3x3.
The cube must be blank or show the mover's symbol.  ``legal_moves`` lists
moves in ascending code order.

A push is a masked shift: the cells between the taken cube and the insertion
end move one step towards the hole (``<< 1``, ``>> 1``, ``<< n`` or ``>> n``
of ``bb & seg``), everything else is kept, the cube lands on ``dest``.

Rules on the interface (see game.pxd): after a move, if the opponent has a
full line the mover LOSES (even if the mover completed a line too: the
official rule); else if the mover has one the mover wins; else if ``ply``
reached ``max_plies`` (default 200) the game is a draw.  Lines are rows,
columns and the two diagonals (full length n).

Tables are static C arrays in every module that cimports this file, filled
by ``quixo_init_tables()`` (cheap, idempotent), which every such module calls
once at import: the game modules call their game's, the algorithm modules
``game_init_tables()`` of game.pxd (every game's).
"""
from libc.stdint cimport uint64_t, uint32_t
from ttt_engine._core.core.hashing cimport mix64 as quixo_mix64
from ttt_engine._core.core.rng cimport rng_t, rng_below, rng_next
from ttt_engine._core.core.common cimport undo_t, GAME_ONGOING, GAME_WIN_FIRST, GAME_WIN_SECOND, GAME_DRAW

cdef extern from *:
    """
    /* Per board size n (index n, 3..5): every (cell, side) shape in code order. */
    static int qx_nall[6];
    static int qx_code[6][44];          /* move code cell*4+side                */
    static unsigned int qx_src[6][44];  /* bit of the cube taken                */
    static unsigned int qx_keep[6][44]; /* cells that do not change             */
    static unsigned int qx_seg[6][44];  /* cells that shift one step            */
    static unsigned int qx_dest[6][44]; /* where the cube lands                 */
    static unsigned char qx_shl[6][44]; /* shift of the segment (one is 0)      */
    static unsigned char qx_shr[6][44];
    static signed char qx_index[6][100];/* code -> shape index, -1 if not a move */
    static unsigned int qx_lines[6][12];
    static int qx_nlines[6];
    static unsigned int qx_full[6];
    static unsigned int qx_border[6];
    static unsigned int qx_rowstart[6]; /* bit (r, 0) for every row             */
    static int qx_tables_ready = 0;

    static void qx_init_tables_c(void) {
        int n, r, c, side, k, i, j, code;
        unsigned int seg, src, dest, line;
        if (qx_tables_ready) return;
        for (n = 3; n <= 5; n++) {
            for (i = 0; i < 100; i++) qx_index[n][i] = -1;
            qx_full[n] = (1u << (n * n)) - 1u;
            qx_border[n] = 0; qx_rowstart[n] = 0;
            for (r = 0; r < n; r++) {
                qx_rowstart[n] |= 1u << (r * n);
                for (c = 0; c < n; c++)
                    if (r == 0 || c == 0 || r == n - 1 || c == n - 1) qx_border[n] |= 1u << (r * n + c);
            }
            k = 0;
            for (r = 0; r < n; r++) for (c = 0; c < n; c++) {
                if (!(r == 0 || c == 0 || r == n - 1 || c == n - 1)) continue;
                for (side = 0; side < 4; side++) {
                    if ((side == 0 && r == 0) || (side == 1 && r == n - 1) ||
                        (side == 2 && c == 0) || (side == 3 && c == n - 1)) continue;
                    src = 1u << (r * n + c);
                    seg = 0; qx_shl[n][k] = 0; qx_shr[n][k] = 0;
                    if (side == 0) {          /* in from the top: rows 0..r-1 move down */
                        for (j = 0; j < r; j++) seg |= 1u << (j * n + c);
                        dest = 1u << c; qx_shl[n][k] = (unsigned char)n;
                    } else if (side == 1) {   /* from the bottom: rows r+1.. move up */
                        for (j = r + 1; j < n; j++) seg |= 1u << (j * n + c);
                        dest = 1u << ((n - 1) * n + c); qx_shr[n][k] = (unsigned char)n;
                    } else if (side == 2) {   /* from the left: columns 0..c-1 move right */
                        for (j = 0; j < c; j++) seg |= 1u << (r * n + j);
                        dest = 1u << (r * n); qx_shl[n][k] = 1;
                    } else {                  /* from the right: columns c+1.. move left */
                        for (j = c + 1; j < n; j++) seg |= 1u << (r * n + j);
                        dest = 1u << (r * n + n - 1); qx_shr[n][k] = 1;
                    }
                    code = (r * n + c) * 4 + side;
                    qx_code[n][k] = code; qx_src[n][k] = src; qx_seg[n][k] = seg;
                    qx_dest[n][k] = dest; qx_keep[n][k] = qx_full[n] & ~(seg | src | dest);
                    qx_index[n][code] = (signed char)k;
                    k++;
                }
            }
            qx_nall[n] = k;
            i = 0;
            for (r = 0; r < n; r++) { line = 0; for (c = 0; c < n; c++) line |= 1u << (r * n + c); qx_lines[n][i++] = line; }
            for (c = 0; c < n; c++) { line = 0; for (r = 0; r < n; r++) line |= 1u << (r * n + c); qx_lines[n][i++] = line; }
            line = 0; for (r = 0; r < n; r++) line |= 1u << (r * n + r); qx_lines[n][i++] = line;
            line = 0; for (r = 0; r < n; r++) line |= 1u << (r * n + n - 1 - r); qx_lines[n][i++] = line;
            qx_nlines[n] = i;
        }
        qx_tables_ready = 1;
    }
    """
    void qx_init_tables_c() nogil
    int qx_nall[6]
    int qx_code[6][44]
    unsigned int qx_src[6][44]
    unsigned int qx_keep[6][44]
    unsigned int qx_seg[6][44]
    unsigned int qx_dest[6][44]
    unsigned char qx_shl[6][44]
    unsigned char qx_shr[6][44]
    signed char qx_index[6][100]
    unsigned int qx_lines[6][12]
    int qx_nlines[6]
    unsigned int qx_full[6]
    unsigned int qx_border[6]
    unsigned int qx_rowstart[6]
    int qx_tables_ready

cdef extern from *:
    """
    #if defined(__GNUC__) || defined(__clang__)
    #define qx_popcount(x) __builtin_popcount(x)
    #else
    static int qx_popcount(unsigned int x) { int c = 0; while (x) { x &= x - 1; c++; } return c; }
    #endif
    """
    int qx_popcount(unsigned int x) nogil

cdef enum:
    QX_SIDE_TOP = 0
    QX_SIDE_BOTTOM = 1
    QX_SIDE_LEFT = 2
    QX_SIDE_RIGHT = 3
    QX_MAX_MOVES = 44
    QX_DEFAULT_MAX_PLIES = 200


cdef struct QuixoState:
    uint32_t bb[2]     # bb[0]: X cubes, bb[1]: O cubes (bit r*n + c)
    int n              # board size 3..5
    int to_move        # 0 = X, 1 = O
    int status         # GAME_* of common.pxd: ongoing, X won, O won, draw (cap)
    int ply            # moves made since the start (or since from_string)
    int max_plies      # move cap: reaching it without a line is a draw


cdef inline void quixo_init_tables() noexcept nogil:
    """Fill the tables; every module that cimports this file calls it once at import."""
    qx_init_tables_c()


cdef inline void quixo_reset(QuixoState* s, int n, int max_plies) noexcept nogil:
    s.bb[0] = 0
    s.bb[1] = 0
    s.n = n
    s.to_move = 0
    s.status = 0
    s.ply = 0
    s.max_plies = max_plies


cdef inline bint quixo_has_line(uint32_t b, int n) noexcept nogil:
    """True if ``b`` contains a full row, column or diagonal of an n x n board."""
    return (quixo_line_flags(b, 0, n) & 1) != 0


cdef inline int quixo_line_flags(uint32_t x, uint32_t o, int n) noexcept nogil:
    """Bit 0: ``x`` has a full line; bit 1: ``o`` has one.  Both masks are
    checked at once in one 64-bit word (x low, o high): a row is full where
    ``w & w>>1 & .. & w>>(n-1)`` keeps its first cell, a column where
    ``w & w>>n & ..`` keeps its top cell (bits shifted across the halves land
    above bit 24 and are masked off)."""
    cdef uint64_t w = (<uint64_t>x) | ((<uint64_t>o) << 32)
    cdef uint64_t rows, cols, rs
    cdef uint32_t d1 = qx_lines[n][2 * n], d2 = qx_lines[n][2 * n + 1]
    cdef int k, f
    if n == 5:
        rows = w & (w >> 1) & (w >> 2) & (w >> 3) & (w >> 4) & <uint64_t>0x0010842100108421ULL
        cols = w & (w >> 5) & (w >> 10) & (w >> 15) & (w >> 20) & <uint64_t>0x0000001F0000001FULL
    else:
        rows = w
        cols = w
        for k in range(1, n):
            rows &= w >> k
            cols &= w >> (k * n)
        rs = qx_rowstart[n]
        rows &= rs | (rs << 32)
        rs = (<uint64_t>1 << n) - 1
        cols &= rs | (rs << 32)
    rows |= cols
    f = ((rows & <uint64_t>0xFFFFFFFFULL) != 0) | (((rows >> 32) != 0) << 1)
    f |= ((x & d1) == d1) | ((x & d2) == d2)
    f |= (((o & d1) == d1) | ((o & d2) == d2)) << 1
    return f


cdef inline void quixo_push(uint32_t* mover, uint32_t* other, int n, int k) noexcept nogil:
    """Apply shape ``k`` (index into the size-n tables) to the two masks."""
    cdef uint32_t keep = qx_keep[n][k], seg = qx_seg[n][k]
    cdef int shl = qx_shl[n][k], shr = qx_shr[n][k]
    cdef uint32_t m = mover[0], o = other[0]
    mover[0] = (m & keep) | (((m & seg) << shl) >> shr) | qx_dest[n][k]
    other[0] = (o & keep) | (((o & seg) << shl) >> shr)


cdef inline int quixo_move_outcomes(uint32_t me, uint32_t opp, int n) noexcept nogil:
    """What the moves of the side to move (cubes ``me``; the opponent's
    ``opp``) do at once: -1 when one of them completes a line of the mover's
    own and none of the opponent's (it wins), else how many moves complete no
    opponent line (the others lose at once)."""
    cdef int k, f, nonlosing = 0
    cdef uint32_t m, o
    for k in range(qx_nall[n]):
        if qx_src[n][k] & opp:
            continue
        m = me
        o = opp
        quixo_push(&m, &o, n, k)
        f = quixo_line_flags(m, o, n)
        if f & 2:
            continue                  # an opponent line: this move loses
        if f & 1:
            return -1                 # only an own line: it wins
        nonlosing += 1
    return nonlosing


cdef inline void quixo_make_index(QuixoState* s, int k) noexcept nogil:
    """Play shape ``k`` for the side to move (caller guarantees legality)."""
    cdef int p = s.to_move, n = s.n
    quixo_push(&s.bb[p], &s.bb[p ^ 1], n, k)
    s.ply += 1
    s.to_move = p ^ 1
    cdef int f = quixo_line_flags(s.bb[0], s.bb[1], n)
    if f:
        # completing an opponent line loses, even together with an own line
        s.status = GAME_WIN_FIRST + (p ^ 1) if (f >> (p ^ 1)) & 1 else GAME_WIN_FIRST + p
    elif s.ply >= s.max_plies:
        s.status = GAME_DRAW


cdef inline undo_t quixo_make(QuixoState* s, int move) noexcept nogil:
    """Play move code ``move``; returns the undo token (old masks and status)."""
    cdef undo_t token = (<uint64_t>s.bb[0]) | ((<uint64_t>s.bb[1]) << 25) \
        | ((<uint64_t>s.status) << 50)
    quixo_make_index(s, qx_index[s.n][move])
    return token


cdef inline void quixo_unmake(QuixoState* s, int move, undo_t token) noexcept nogil:
    """Exactly undo ``quixo_make(s, move)`` that returned ``token``."""
    s.bb[0] = <uint32_t>(token & 0x1FFFFFF)
    s.bb[1] = <uint32_t>((token >> 25) & 0x1FFFFFF)
    s.status = <int>((token >> 50) & 3)
    s.to_move ^= 1
    s.ply -= 1


cdef inline bint quixo_is_legal(const QuixoState* s, int move) noexcept nogil:
    if s.status or move < 0 or move >= 100:
        return False
    cdef int k = qx_index[s.n][move]
    if k < 0:
        return False
    return (qx_src[s.n][k] & s.bb[s.to_move ^ 1]) == 0


cdef inline int quixo_legal_moves(const QuixoState* s, int* moves) noexcept nogil:
    """Legal move codes in ascending order; 0 when the game is over."""
    if s.status:
        return 0
    cdef int n = s.n, k, cnt = 0
    cdef uint32_t avail = qx_border[n] & ~s.bb[s.to_move ^ 1]
    for k in range(qx_nall[n]):
        if qx_src[n][k] & avail:
            moves[cnt] = qx_code[n][k]
            cnt += 1
    return cnt


cdef inline int quixo_random_index(const QuixoState* s, rng_t* rng) noexcept nogil:
    """Uniformly random legal shape index by rejection (the game must be on;
    a player always has a legal cube: a ring full of the opponent's cubes
    would contain a full row)."""
    cdef int n = s.n, k
    cdef uint32_t opp = s.bb[s.to_move ^ 1]
    cdef uint64_t nall = <uint64_t>qx_nall[n], r
    while True:
        r = rng_next(rng)            # two 32-bit draws (Lemire) per 64 bits
        k = <int>(((r & <uint64_t>0xFFFFFFFFULL) * nall) >> 32)
        if (qx_src[n][k] & opp) == 0:
            return k
        k = <int>(((r >> 32) * nall) >> 32)
        if (qx_src[n][k] & opp) == 0:
            return k


cdef inline int quixo_random_move(const QuixoState* s, rng_t* rng) noexcept nogil:
    return qx_code[s.n][quixo_random_index(s, rng)]


cdef inline int quixo_playout(QuixoState* s, rng_t* rng) noexcept nogil:
    """Random moves in place until the game ends (line or move cap)."""
    while s.status == 0:
        quixo_make_index(s, quixo_random_index(s, rng))
    return s.status


cdef inline bint quixo_near_line(uint32_t b, int n) noexcept nogil:
    """True if some line lacks at most one of ``b``'s cubes.  One move adds at
    most one cube of either player to any line (a push keeps the cubes of its
    own row or column and moves one cube into each crossing line), so a line
    can only be completed now where this holds."""
    cdef int i
    cdef uint32_t x
    for i in range(qx_nlines[n]):
        x = qx_lines[n][i] & ~b
        if (x & (x - 1)) == 0:
            return True
    return False


cdef inline int quixo_decisive_index(const QuixoState* s, rng_t* rng) noexcept nogil:
    """A playout move (shape index) with decisive moves: one that wins at once
    if there is one, else a uniformly random move that does not complete an
    opponent line (which loses at once); uniform when no line can be completed
    this move (neither player is near one), or when every move loses."""
    cdef int n = s.n, p = s.to_move, k, f, cnt = 0
    cdef uint32_t avail, m, o
    cdef int ok[44]
    if not quixo_near_line(s.bb[p], n) and not quixo_near_line(s.bb[p ^ 1], n):
        return quixo_random_index(s, rng)
    avail = qx_border[n] & ~s.bb[p ^ 1]
    for k in range(qx_nall[n]):
        if not (qx_src[n][k] & avail):
            continue
        m = s.bb[p]
        o = s.bb[p ^ 1]
        quixo_push(&m, &o, n, k)
        f = quixo_line_flags(m, o, n)
        if f & 2:
            continue                  # the opponent's line: this move loses
        if f & 1:
            return k                  # a line of the mover's own: wins
        ok[cnt] = k
        cnt += 1
    if cnt == 0:
        return quixo_random_index(s, rng)
    return ok[rng_below(rng, cnt)]


cdef inline int quixo_playout_decisive(QuixoState* s, rng_t* rng) noexcept nogil:
    """A playout with decisive moves (``quixo_decisive_index``) until the game
    ends (line or move cap); returns the status."""
    while s.status == 0:
        quixo_make_index(s, quixo_decisive_index(s, rng))
    return s.status


cdef inline uint64_t quixo_key(const QuixoState* s) noexcept nogil:
    """Exact position key: masks, side to move and size (not the ply count)."""
    return (<uint64_t>s.bb[0]) | ((<uint64_t>s.bb[1]) << 25) \
        | ((<uint64_t>s.to_move) << 50) | ((<uint64_t>s.n) << 51)


cdef inline uint64_t quixo_hash(const QuixoState* s) noexcept nogil:
    """64-bit hash of everything that decides the game from here: masks, side
    to move, size AND the plies left before the move cap.  With the cap, the
    same cubes with fewer plies left can have another value (a cap draw stored
    deep in a search must not be reused near the root), so a search table keyed
    by this hash stays exact.  Masks + side + size alone: ``quixo_key``."""
    return quixo_mix64(quixo_key(s) ^ quixo_mix64(<uint64_t>(s.max_plies - s.ply) + 0x9E3779B97F4A7C15ULL))


cdef inline uint64_t quixo_mover_key(const QuixoState* s) noexcept nogil:
    """Board as seen by the player who just moved (the one NOT to move):
    low 25 bits that player's cubes, next 25 the other player's.  Used by the
    state-value tables (stage B/C)."""
    cdef int m = s.to_move ^ 1
    return (<uint64_t>s.bb[m]) | ((<uint64_t>s.bb[m ^ 1]) << 25)


cdef inline double quixo_evaluate(const QuixoState* s, int heuristic) noexcept nogil:
    """Line-count heuristic from the side to move: every line free of the
    opponent scores 4**(own cubes in it) - 1, minus the same for the opponent;
    a full own line would be decisive, so counts are capped at n - 1.
    Bounded well below 1e6 (12 lines * 4**4)."""
    cdef int n = s.n, i, a, b
    cdef uint32_t me = s.bb[s.to_move], opp = s.bb[s.to_move ^ 1], line
    cdef double v = 0.0
    for i in range(qx_nlines[n]):
        line = qx_lines[n][i]
        a = qx_popcount(line & me)
        b = qx_popcount(line & opp)
        if b == 0 and a > 0:
            v += (1 << (2 * a)) - 1
        elif a == 0 and b > 0:
            v -= (1 << (2 * b)) - 1
    return v


cdef inline int quixo_compute_status(uint32_t xb, uint32_t ob, int n, int last_mover) noexcept nogil:
    """Status of a position given as masks, judged as if ``last_mover`` (0/1,
    or -1: unknown) made the last move: both lines -> the other side won."""
    cdef int f = quixo_line_flags(xb, ob, n)
    cdef bint xl = f & 1, ol = (f >> 1) & 1
    if xl and ol:
        if last_mover == 0:
            return GAME_WIN_SECOND
        if last_mover == 1:
            return GAME_WIN_FIRST
        return -1
    if xl:
        return GAME_WIN_FIRST
    if ol:
        return GAME_WIN_SECOND
    return GAME_ONGOING


# ------------------------------------------------------------ the game contract
cdef inline int quixo_decisive_move(const QuixoState* s, rng_t* rng) noexcept nogil:
    """The first move of ``quixo_playout_decisive`` from ``s`` (game on)."""
    return qx_code[s.n][quixo_decisive_index(s, rng)]
