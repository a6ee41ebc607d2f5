# cython: language_level=3
"""Clobber core: two uint64 bitboards, any board from 1x1 to 8x8.

Squares are bits ``r * 8 + c`` (row ``r`` from the top, column ``c`` from the
left) whatever the board's width, so one step down is ``<< 8`` / ``>> 8`` and
one step right is ``<< 1`` / ``>> 1`` with an edge mask against wrapping
between rows.  The stones of player ``p`` (0 = B, 1 = W) are ``bb[p]``.
B moves first.

A move takes one of the mover's stones onto an orthogonally adjacent square
holding an opponent stone, which is removed.  A player with no legal move
loses; there are no draws.  The capture masks are ``own & shift(opp)``:

    direction 0  down   (+8)   from-squares: own & (opp >> 8)
    direction 1  up     (-8)   from-squares: own & (opp << 8)
    direction 2  right  (+1)   from-squares: own & (opp >> 1) & ~column 7
    direction 3  left   (-1)   from-squares: own & (opp << 1) & ~column 0

The direction order is ``DIRECTIONS = [(1,0), (-1,0), (0,1), (0,-1)]``.
A move is the small int ``from_square * 4 + direction`` (``< 256``); legal
moves come in ascending order: rows, then columns, then directions.

Every adjacent (B, W) pair is a move for both players (B takes W, or W takes
B), so both sides always have the same number of moves, and the side to move
has no move exactly when no B stone touches a W stone.  The game is then over
and the player who moved last has won.

No lookup tables: everything is inline and ``nogil`` and needs no
initialisation, so algorithm modules that cimport ``game.pxd`` need no setup
call for Clobber.
"""
from libc.stdint cimport uint64_t
from ttt_engine._core.core.hashing cimport mix64
from ttt_engine._core.core.bits cimport bits_popcount64 as CLOBBER_POPCOUNT, bits_ctz64 as CLOBBER_CTZ
from ttt_engine._core.core.rng cimport rng_t, rng_below
from ttt_engine._core.core.common cimport undo_t, GAME_ONGOING, GAME_WIN_FIRST, GAME_WIN_SECOND

cdef extern from *:
    """
    static const int clobber_offset[4] = {8, -8, 1, -1};
    #define CLOBBER_NOT_COL0 0xFEFEFEFEFEFEFEFEULL
    #define CLOBBER_NOT_COL7 0x7F7F7F7F7F7F7F7FULL
    """
    const int clobber_offset[4]
    const uint64_t CLOBBER_NOT_COL0     # every square but column 0
    const uint64_t CLOBBER_NOT_COL7     # every square but column 7

cdef enum:
    CLOBBER_MAX_SIDE = 8
    CLOBBER_MAX_MOVES = 256          # from_square * 4 + direction < 256

# Heuristic ids for game_evaluate (low 4 bits: kind; bits 4-5: perspective).
cdef enum:
    CLOBBER_H_ADAPTIVE = 0      # default: adaptive by game phase
    CLOBBER_H_PIECES = 1        # seed heuristic_B_1: own stones - opponent stones
    CLOBBER_H_MOBILITY = 2      # seed heuristic_B_2: own moves - opponent moves (always 0!)
    CLOBBER_H_OWN_MOVES = 3     # seed heuristic_B_3: own moves
    CLOBBER_H_SAFE = 4          # seed heuristic_W_1: own stones with no adjacent opponent
    CLOBBER_H_NEG_OPP_MOVES = 5 # seed heuristic_W_2: -(opponent moves)
    CLOBBER_H_CENTRE = 6        # seed heuristic_W_3: own stones in the centre
    CLOBBER_H_KINDS = 7
    CLOBBER_H_KIND_MASK = 15
    # Perspective: 0 = the side to move owns the heuristic (antisymmetric
    # reading); 1 / 2 = player B / W owns it (a fixed root player P):
    # the value is h_P(s) when P is to move and -h_P(s) otherwise, so a
    # negamax over it is exactly minimax from P's point of view.
    CLOBBER_H_PERSPECTIVE_SHIFT = 4


cdef struct ClobberState:
    uint64_t bb[2]      # stones of B (0) and W (1), bit r * 8 + c
    uint64_t full       # the board's squares
    uint64_t centre     # centre squares (inner rectangle) for the centre heuristic
    int rows
    int cols
    int ncells
    int to_move         # 0 = B, 1 = W
    int status          # GAME_* of common.pxd (Clobber has no draws)


cdef inline uint64_t clobber_full_mask(int rows, int cols) noexcept nogil:
    cdef uint64_t rowbits = ((<uint64_t>1) << cols) - 1
    cdef uint64_t m = 0
    cdef int r
    for r in range(rows):
        m |= rowbits << (8 * r)
    return m


cdef inline uint64_t clobber_centre_mask(int rows, int cols) noexcept nogil:
    """The inner rectangle without the outer ring (a dimension below 3 keeps all
    its lines, so a 1xN or 2xN board's centre is its inner columns)."""
    cdef int r0 = 1 if rows >= 3 else 0
    cdef int r1 = rows - 1 if rows >= 3 else rows
    cdef int c0 = 1 if cols >= 3 else 0
    cdef int c1 = cols - 1 if cols >= 3 else cols
    cdef uint64_t m = 0
    cdef int r, c
    for r in range(r0, r1):
        for c in range(c0, c1):
            m |= (<uint64_t>1) << (8 * r + c)
    return m


cdef inline uint64_t clobber_pairs_any(uint64_t a, uint64_t b) noexcept nogil:
    """Squares of ``a`` with an orthogonal neighbour in ``b``."""
    return a & ((b >> 8) | (b << 8) | ((b >> 1) & CLOBBER_NOT_COL7) | ((b << 1) & CLOBBER_NOT_COL0))


cdef inline int clobber_compute_status(const ClobberState* s) noexcept nogil:
    """Ongoing while some B stone touches a W stone; otherwise the player who
    is not to move (who moved last) has won."""
    if clobber_pairs_any(s.bb[0], s.bb[1]):
        return GAME_ONGOING
    return GAME_WIN_SECOND - s.to_move    # B (0) stuck: W won; W (1) stuck: B won


cdef inline void clobber_setup(ClobberState* s, int rows, int cols) noexcept nogil:
    """Standard start: every square filled, B on (r + c) even, B to move."""
    cdef int r, c
    s.rows = rows
    s.cols = cols
    s.ncells = rows * cols
    s.full = clobber_full_mask(rows, cols)
    s.centre = clobber_centre_mask(rows, cols)
    s.bb[0] = 0
    s.bb[1] = 0
    for r in range(rows):
        for c in range(cols):
            s.bb[(r + c) & 1] |= (<uint64_t>1) << (8 * r + c)
    s.to_move = 0
    s.status = clobber_compute_status(s)


cdef inline int clobber_moves_of(uint64_t own, uint64_t opp, int* moves) noexcept nogil:
    """Write the captures of ``own`` against ``opp`` in ascending order (the
    generation order: squares, then directions down, up, right, left); returns how many."""
    cdef uint64_t d0 = own & (opp >> 8)
    cdef uint64_t d1 = own & (opp << 8)
    cdef uint64_t d2 = own & (opp >> 1) & CLOBBER_NOT_COL7
    cdef uint64_t d3 = own & (opp << 1) & CLOBBER_NOT_COL0
    cdef uint64_t m = d0 | d1 | d2 | d3
    cdef int sq, n = 0
    # Branch-free: write every candidate, advance only past the real ones (the
    # direction bits are unpredictable; at most 112 moves, so the one spare
    # write stays inside any MAX_MOVES / CLOBBER_MAX_MOVES buffer).
    while m:
        sq = CLOBBER_CTZ(m)
        m &= m - 1
        moves[n] = sq * 4
        n += <int>((d0 >> sq) & 1)
        moves[n] = sq * 4 + 1
        n += <int>((d1 >> sq) & 1)
        moves[n] = sq * 4 + 2
        n += <int>((d2 >> sq) & 1)
        moves[n] = sq * 4 + 3
        n += <int>((d3 >> sq) & 1)
    return n


cdef inline int clobber_legal_moves(const ClobberState* s, int* moves) noexcept nogil:
    """Write the legal moves in ascending order (the generation order); 0 when over."""
    return clobber_moves_of(s.bb[s.to_move], s.bb[s.to_move ^ 1], moves)


cdef inline int clobber_count_moves(uint64_t own, uint64_t opp) noexcept nogil:
    """Number of captures ``own`` can make (= the number of adjacent own/opp pairs)."""
    return (CLOBBER_POPCOUNT(own & (opp >> 8)) + CLOBBER_POPCOUNT(own & (opp << 8))
            + CLOBBER_POPCOUNT(own & (opp >> 1) & CLOBBER_NOT_COL7)
            + CLOBBER_POPCOUNT(own & (opp << 1) & CLOBBER_NOT_COL0))


cdef inline bint clobber_is_legal(const ClobberState* s, int move) noexcept nogil:
    if move < 0 or move >= CLOBBER_MAX_MOVES or s.status:
        return False
    cdef int frm = move >> 2
    cdef int to = frm + clobber_offset[move & 3]
    cdef int d = move & 3
    if to < 0 or to >= 64:
        return False
    if (d == 2 and (frm & 7) == 7) or (d == 3 and (frm & 7) == 0):
        return False
    return ((s.bb[s.to_move] >> frm) & 1) and ((s.bb[s.to_move ^ 1] >> to) & 1)


cdef inline undo_t clobber_make(ClobberState* s, int move) noexcept nogil:
    """Play a legal move: the stone on ``move >> 2`` takes the neighbour in
    direction ``move & 3``; updates the side to move and the status."""
    cdef int p = s.to_move
    cdef int frm = move >> 2
    cdef uint64_t fbit = (<uint64_t>1) << frm
    cdef uint64_t tbit = (<uint64_t>1) << (frm + clobber_offset[move & 3])
    s.bb[p] ^= fbit | tbit
    s.bb[p ^ 1] ^= tbit
    s.to_move = p ^ 1
    if clobber_pairs_any(s.bb[0], s.bb[1]):
        s.status = GAME_ONGOING
    else:
        s.status = GAME_WIN_FIRST + p   # the mover made the last possible move and wins
    return 0                 # the move itself says what to restore


cdef inline void clobber_unmake(ClobberState* s, int move, undo_t undo) noexcept nogil:
    """Exactly undo ``clobber_make(s, move)`` (the position before was ongoing)."""
    cdef int p = s.to_move ^ 1
    cdef int frm = move >> 2
    cdef uint64_t fbit = (<uint64_t>1) << frm
    cdef uint64_t tbit = (<uint64_t>1) << (frm + clobber_offset[move & 3])
    s.to_move = p
    s.bb[p] ^= fbit | tbit
    s.bb[p ^ 1] |= tbit
    s.status = GAME_ONGOING


cdef inline uint64_t clobber_hash(const ClobberState* s) noexcept nogil:
    """64-bit key of (B stones, W stones, side to move); no tables needed."""
    return mix64(s.bb[0] ^ mix64(s.bb[1] + <uint64_t>(s.to_move + 1) * <uint64_t>0x9E3779B97F4A7C15ULL))


cdef inline bint clobber_wins_at_once(const ClobberState* s, int move) noexcept nogil:
    """True if the legal ``move`` leaves no own stone next to an opponent
    stone: the opponent cannot move and the mover has won."""
    cdef int p = s.to_move
    cdef int frm = move >> 2
    cdef uint64_t fbit = (<uint64_t>1) << frm
    cdef uint64_t tbit = (<uint64_t>1) << (frm + clobber_offset[move & 3])
    return clobber_pairs_any((s.bb[p] & ~fbit) | tbit, s.bb[p ^ 1] & ~tbit) == 0


cdef inline int clobber_decisive_pick(const ClobberState* s, const int* moves, int n,
                                      rng_t* rng) noexcept nogil:
    """A move that wins at once if there is one (the first in move order), else
    a uniformly random one.  Each legal move is one adjacent own/opponent pair
    and a move removes at most 7 pairs (its two stones' 4 + 4, shared once),
    so with more than 7 legal moves none wins at once and none is scanned."""
    cdef int i
    if n <= 7:
        for i in range(n):
            if clobber_wins_at_once(s, moves[i]):
                return moves[i]
    return moves[rng_below(rng, n)]


cdef inline int clobber_pick(const ClobberState* s, rng_t* rng, bint decisive) noexcept nogil:
    """A playout move (game on): uniformly random, or with ``decisive`` a win at
    once first (``clobber_decisive_pick``)."""
    cdef int moves[CLOBBER_MAX_MOVES]
    cdef int n = clobber_legal_moves(s, moves)
    if decisive:
        return clobber_decisive_pick(s, moves, n, rng)
    return moves[rng_below(rng, n)]


cdef inline int clobber_random_move(const ClobberState* s, rng_t* rng) noexcept nogil:
    """A uniformly random legal move (the game must not be over)."""
    return clobber_pick(s, rng, False)


cdef inline int clobber_decisive_move(const ClobberState* s, rng_t* rng) noexcept nogil:
    """The first move of ``clobber_playout_decisive`` from ``s`` (game on)."""
    return clobber_pick(s, rng, True)


cdef inline int clobber_playout(ClobberState* s, rng_t* rng) noexcept nogil:
    """Play uniformly random moves in place until the game ends; return the status."""
    while s.status == 0:
        clobber_make(s, clobber_pick(s, rng, False))
    return s.status


cdef inline int clobber_playout_decisive(ClobberState* s, rng_t* rng) noexcept nogil:
    """A playout that takes a win at once whenever one exists; the final status."""
    while s.status == 0:
        clobber_make(s, clobber_pick(s, rng, True))
    return s.status


cdef inline int clobber_adaptive_kind(const ClobberState* s, int player) noexcept nogil:
    """The adaptive heuristic choice: key 1, 2 or 3 by game phase
    (stones left vs. squares: more than 2/3 -> 1, more than 1/3 -> 2, else 3),
    then player B's family (B_1 pieces, B_2 mobility, B_3 own moves) or W's
    (W_1 safe stones, W_2 minus opponent moves, W_3 centre)."""
    cdef int stones = CLOBBER_POPCOUNT(s.bb[0] | s.bb[1])
    cdef int key
    if 3 * stones > 2 * s.ncells:
        key = 1
    elif 3 * stones > s.ncells:
        key = 2
    else:
        key = 3
    return key if player == 0 else key + 3


cdef inline double clobber_heuristic(const ClobberState* s, int kind, int player) noexcept nogil:
    """Heuristic ``kind`` (1..6, 0 = adaptive) from ``player``'s point of view."""
    cdef uint64_t own = s.bb[player], opp = s.bb[player ^ 1]
    if kind == CLOBBER_H_ADAPTIVE:
        kind = clobber_adaptive_kind(s, player)
    if kind == CLOBBER_H_PIECES:
        return CLOBBER_POPCOUNT(own) - CLOBBER_POPCOUNT(opp)
    if kind == CLOBBER_H_MOBILITY:
        return clobber_count_moves(own, opp) - clobber_count_moves(opp, own)
    if kind == CLOBBER_H_OWN_MOVES:
        return clobber_count_moves(own, opp)
    if kind == CLOBBER_H_SAFE:
        return CLOBBER_POPCOUNT(own & ~clobber_pairs_any(own, opp))
    if kind == CLOBBER_H_NEG_OPP_MOVES:
        return -clobber_count_moves(opp, own)
    if kind == CLOBBER_H_CENTRE:
        return CLOBBER_POPCOUNT(own & s.centre)
    return 0.0


cdef inline double clobber_evaluate(const ClobberState* s, int heuristic) noexcept nogil:
    """Static value from the side to move (see the heuristic id enum)."""
    cdef int kind = heuristic & CLOBBER_H_KIND_MASK
    cdef int persp = (heuristic >> CLOBBER_H_PERSPECTIVE_SHIFT) & 3
    if kind >= CLOBBER_H_KINDS:
        kind = CLOBBER_H_ADAPTIVE
    if persp == 0 or persp == 3:
        return clobber_heuristic(s, kind, s.to_move)
    if persp - 1 == s.to_move:
        return clobber_heuristic(s, kind, s.to_move)
    return -clobber_heuristic(s, kind, persp - 1)


# ------------------------------------------------------------ the game contract
