# cython: language_level=3
"""Ultimate Tic-Tac-Toe's value-network input features (``uttt-v1``, F = 199).

Cells are the board's own 81-cell numbering, row by row over the whole 9x9
grid from the top left (the move codes ``9*R + C``): X on cell c -> c;
O on cell c -> 81 + c; local board b (0..8, row by row) won by X -> 162 + b,
won by O -> 171 + b, full without a line -> 180 + b; the forced board b ->
189 + b (none when the mover may play anywhere or the game is over, as
``Board.forced_board``); O to move -> 198.
"""
from libc.stdint cimport int32_t
from ttt_engine._core.core.features cimport FeatureDiff, diff_clear, diff_bits, diff_flag, list_bits
from ttt_engine._core.core.bits cimport bits_ctz64
from ttt_engine._core.games.uttt.rules cimport UTTTState, uttt_bc_move, uttt_move_board, uttt_move_cell


cdef inline int uttt_feature_shape(const UTTTState* s, int* rows, int* cols,
                                   int* version) noexcept nogil:
    """F; 0 x 0 (a fixed board, whose feature set's name has no size); version 1."""
    rows[0], cols[0], version[0] = 0, 0, 1
    return 199


cdef inline int uttt_forced_feature(const UTTTState* s) noexcept nogil:
    """The forced board, or -1 (free move, or the game is over)."""
    return s.forced if s.status == 0 else -1


cdef inline int uttt_features(const UTTTState* s, int32_t* out) noexcept nogil:
    """The active features, ascending; returns how many."""
    cdef int n = 0, p, m, f
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
    return n


cdef inline void uttt_feature_diff(const UTTTState* a, const UTTTState* b,
                                   FeatureDiff* d) noexcept nogil:
    """Features of ``b`` not in ``a`` (``d.add``) and of ``a`` not in ``b`` (``d.rem``)."""
    cdef int p, k, c, fa, fb
    cdef unsigned x
    diff_clear(d)
    for p in range(2):
        for k in range(9):
            x = a.local[p][k] ^ b.local[p][k]
            while x:
                c = bits_ctz64(x)
                x &= x - 1
                if (b.local[p][k] >> c) & 1:
                    d.add[d.nadd] = 81 * p + uttt_bc_move[k][c]
                    d.nadd += 1
                else:
                    d.rem[d.nrem] = 81 * p + uttt_bc_move[k][c]
                    d.nrem += 1
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
