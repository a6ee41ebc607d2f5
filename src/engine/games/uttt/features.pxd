# cython: language_level=3
"""Ultimate Tic-Tac-Toe's value-network input features (``uttt-v2``, F = 379):
the marks and the threats.

Cells are the board's own 81-cell numbering, row by row over the whole 9x9
grid from the top left (the move codes ``9*R + C``): X on cell c -> c;
O on cell c -> 81 + c; local board b (0..8, row by row) won by X -> 162 + b,
won by O -> 171 + b, full without a line -> 180 + b; the forced board b ->
189 + b (none when the mover may play anywhere or the game is over, as
``Board.forced_board``); O to move -> 198.  The threats: X's threat on cell c
(an empty cell of an open local board that would complete a line of X's marks
there) -> 199 + c, O's -> 280 + c; an open local board that would complete a
big-board line of the boards X has won -> 361 + b, of O's -> 370 + b.  A move
changes the threats of the board it is played in and the big board's only.
"""
from libc.stdint cimport int32_t
from ttt_engine._core.core.features cimport (
    FeatureDiff, diff_clear, diff_bits, diff_flag, list_bits, sort_features,
)
from ttt_engine._core.core.bits cimport bits_ctz64
from ttt_engine._core.games.uttt.rules cimport (
    UTTTState, UTTT_FULL, uttt_bc_move, uttt_empty, uttt_move_board, uttt_move_cell, uttt_threat,
)

cdef enum:
    UTTTF_THREATS = 199     # X's threat cells; O's at + 81
    UTTTF_BIG = 361         # X's big-board threats; O's at + 9
    UTTTF_COUNT = 379


cdef inline int uttt_feature_version(const UTTTState* s) noexcept nogil:
    return 2


cdef inline int uttt_feature_shape(const UTTTState* s, int* rows, int* cols) noexcept nogil:
    """F; and 0 x 0: a fixed board, whose feature set's name has no size."""
    rows[0], cols[0] = 0, 0
    return UTTTF_COUNT


cdef inline int uttt_local_threats(const UTTTState* s, int p, int b) noexcept nogil:
    """The empty cells of local board ``b`` that complete a line of ``p``'s
    marks there (none in a closed board)."""
    if (s.closed >> b) & 1:
        return 0
    return uttt_threat[s.local[p][b]] & uttt_empty(s, b)


cdef inline int uttt_big_threats(const UTTTState* s, int p) noexcept nogil:
    """The open local boards that complete a big-board line of ``p``'s won boards."""
    return uttt_threat[s.won[p]] & ~s.closed & UTTT_FULL


cdef inline void _uttt_diff_cells(FeatureDiff* d, int old, int new, int base, int b) noexcept nogil:
    """Features ``base + move`` for the cells of local board ``b`` in two 9-bit masks."""
    cdef int x = old ^ new, c
    while x:
        c = bits_ctz64(x)
        x &= x - 1
        if (new >> c) & 1:
            d.add[d.nadd] = base + uttt_bc_move[b][c]
            d.nadd += 1
        else:
            d.rem[d.nrem] = base + uttt_bc_move[b][c]
            d.nrem += 1


cdef inline int uttt_forced_feature(const UTTTState* s) noexcept nogil:
    """The forced board, or -1 (free move, or the game is over)."""
    return s.forced if s.status == 0 else -1


cdef inline int uttt_features(const UTTTState* s, int32_t* out) noexcept nogil:
    """The active features, ascending; returns how many."""
    cdef int n = 0, p, m, f, b
    cdef FeatureDiff d
    for p in range(2):
        for m in range(81):
            if (s.local[p][uttt_move_board[m]] >> uttt_move_cell[m]) & 1:
                out[n] = 81 * p + m
                n += 1
    n += list_bits(s.won[0], 162, out + n)
    n += list_bits(s.won[1], 171, out + n)
    n += list_bits(s.closed & ~(s.won[0] | s.won[1]), 180, out + n)
    f = uttt_forced_feature(s)
    if f >= 0:
        out[n] = 189 + f
        n += 1
    if s.to_move:
        out[n] = 198
        n += 1
    diff_clear(&d)
    for p in range(2):
        for b in range(9):
            _uttt_diff_cells(&d, 0, uttt_local_threats(s, p, b), UTTTF_THREATS + 81 * p, b)
    n += sort_features(d.add, d.nadd, out + n)
    n += list_bits(uttt_big_threats(s, 0), UTTTF_BIG, out + n)
    n += list_bits(uttt_big_threats(s, 1), UTTTF_BIG + 9, out + n)
    return n


cdef inline void uttt_feature_diff(const UTTTState* a, const UTTTState* b,
                                   FeatureDiff* d) noexcept nogil:
    """Features of ``b`` not in ``a`` (``d.add``) and of ``a`` not in ``b`` (``d.rem``)."""
    cdef int p, k, fa, fb
    diff_clear(d)
    for k in range(9):
        # a board whose marks and closure did not change keeps its threats
        if (a.local[0][k] == b.local[0][k] and a.local[1][k] == b.local[1][k]
                and ((a.closed ^ b.closed) >> k) & 1 == 0):
            continue
        for p in range(2):
            _uttt_diff_cells(d, a.local[p][k], b.local[p][k], 81 * p, k)
            _uttt_diff_cells(d, uttt_local_threats(a, p, k), uttt_local_threats(b, p, k),
                             UTTTF_THREATS + 81 * p, k)
    diff_bits(d, a.won[0], b.won[0], 162)
    diff_bits(d, a.won[1], b.won[1], 171)
    diff_bits(d, a.closed & ~(a.won[0] | a.won[1]), b.closed & ~(b.won[0] | b.won[1]), 180)
    fa = uttt_forced_feature(a)
    fb = uttt_forced_feature(b)
    if fa != fb:
        if fa >= 0:
            d.rem[d.nrem] = 189 + fa
            d.nrem += 1
        if fb >= 0:
            d.add[d.nadd] = 189 + fb
            d.nadd += 1
    diff_flag(d, a.to_move, b.to_move, 198)
    diff_bits(d, uttt_big_threats(a, 0), uttt_big_threats(b, 0), UTTTF_BIG)
    diff_bits(d, uttt_big_threats(a, 1), uttt_big_threats(b, 1), UTTTF_BIG + 9)
