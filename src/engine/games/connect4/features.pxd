# cython: language_level=3
"""Connect Four's value-network input features (``connect4-v2``, F = 183):
the discs and the threats.

Cells 0..41 row by row from the TOP left (as ``Board.to_string``): cell
``7*r + c`` is row r from the top, column c, bit ``7*c + (5 - r)`` of the
bitboards.  X's disc on cell c -> c; O's -> 42 + c; X's threat on c (an
empty cell, playable now or not, that would complete four of X's discs) ->
84 + c, O's -> 126 + c; X's threat playable now in column k -> 168 + k, O's
-> 175 + k; O to move -> 182.  Every block is read off a bitboard of the
state (``connect4_winning_cells``, ``connect4_playable``), so the change
between two positions is the bits that differ between their masks.
"""
from libc.stdint cimport int32_t, uint64_t
from ttt_engine._core.core.features cimport (
    FeatureDiff, diff_bits_mapped, diff_clear, diff_flag, sort_features,
)
from ttt_engine._core.games.connect4.rules cimport (
    Connect4State, connect4_mask, connect4_playable, connect4_winning_cells,
)

cdef enum:
    C4F_CELLS = 42
    C4F_PLAYABLE = 168      # X's playable threats by column; O's at + 7
    C4F_TO_MOVE = 182
    C4F_COUNT = 183
    C4F_BLOCKS = 6          # the masks of a position: see connect4_feature_masks


cdef inline int connect4_feature_version(const Connect4State* s) noexcept nogil:
    return 2


cdef inline int connect4_feature_shape(const Connect4State* s, int* rows, int* cols) noexcept nogil:
    """F; 0 x 0 (a fixed board, whose feature set's name has no size)."""
    rows[0], cols[0] = 0, 0
    return C4F_COUNT


cdef inline void connect4_feature_masks(const Connect4State* s, uint64_t* m,
                                        const uint64_t* lines) noexcept nogil:
    """``m[0..5]``: X's discs, O's, X's threats, O's, X's threats playable now,
    O's; from ``lines[p]``, the cells that complete a four of side p's discs
    (``connect4_winning_cells(s.bb[p], 0)``, empty or not)."""
    cdef uint64_t mask = connect4_mask(s), playable = connect4_playable(s)
    m[0], m[1] = s.bb[0], s.bb[1]
    m[2] = lines[0] & ~mask
    m[3] = lines[1] & ~mask
    m[4], m[5] = m[2] & playable, m[3] & playable


cdef inline void _connect4_diff_masks(FeatureDiff* d, const uint64_t* a, const uint64_t* b,
                                      int ta, int tb) noexcept nogil:
    cdef int k
    diff_clear(d)
    for k in range(4):          # the cell blocks: bit 7*col + row -> cell 7*(5 - row) + col
        diff_bits_mapped(d, a[k], b[k], k * C4F_CELLS, 7, 1, -7, 35)
    for k in range(2):          # the playable threats: bit 7*col + row -> column col
        diff_bits_mapped(d, a[4 + k], b[4 + k], C4F_PLAYABLE + 7 * k, 7, 1, 0, 0)
    diff_flag(d, ta, tb, C4F_TO_MOVE)


cdef inline int connect4_features(const Connect4State* s, int32_t* out) noexcept nogil:
    """The active features, ascending; returns how many."""
    cdef uint64_t zero[C4F_BLOCKS]
    cdef uint64_t m[C4F_BLOCKS]
    cdef FeatureDiff d
    cdef uint64_t lines[2]
    cdef int k
    for k in range(C4F_BLOCKS):
        zero[k] = 0
    lines[0] = connect4_winning_cells(s.bb[0], 0)
    lines[1] = connect4_winning_cells(s.bb[1], 0)
    connect4_feature_masks(s, m, lines)
    _connect4_diff_masks(&d, zero, m, 0, s.to_move)
    return sort_features(d.add, d.nadd, out)


cdef inline void connect4_feature_diff(const Connect4State* a, const Connect4State* b,
                                       FeatureDiff* d) noexcept nogil:
    """Features of ``b`` not in ``a`` (``d.add``) and of ``a`` not in ``b`` (``d.rem``)."""
    cdef uint64_t ma[C4F_BLOCKS]
    cdef uint64_t mb[C4F_BLOCKS]
    cdef uint64_t la[2]
    cdef uint64_t lb[2]
    cdef int p
    for p in range(2):
        # a side whose discs did not change (the one that did not move) has the
        # same lines: only the cells now taken leave its threats
        la[p] = connect4_winning_cells(a.bb[p], 0)
        lb[p] = la[p] if b.bb[p] == a.bb[p] else connect4_winning_cells(b.bb[p], 0)
    connect4_feature_masks(a, ma, la)
    connect4_feature_masks(b, mb, lb)
    _connect4_diff_masks(d, ma, mb, a.to_move, b.to_move)
