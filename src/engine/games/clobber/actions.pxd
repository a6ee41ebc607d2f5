# cython: language_level=3
"""Clobber actions and observation planes (for RL environments).

Action = ``(r * cols + c) * 4 + direction`` for the stone on row r, column c
moving onto the opponent stone in ``direction`` (0 down, 1 up, 2 right, 3 left,
as in ``clobber.pxd``): ``rows * cols * 4`` actions, dense over the board.
(A move is ``(r * 8 + c) * 4 + direction``: the same but with the bitboard's
row stride of 8.)  Observation ``int8 [2, rows, cols]``: plane 0 the side to
move's stones, plane 1 the opponent's.
"""
from libc.stdint cimport int8_t, uint8_t, uint32_t, uint64_t
from libc.string cimport memcpy
from ttt_engine._core.games.clobber.rules cimport (
    ClobberState, clobber_is_legal, CLOBBER_NOT_COL0, CLOBBER_NOT_COL7,
)
from ttt_engine._core.core.planes cimport planes_store8, planes_store_n, planes_spread8, PLANES_LITTLE_ENDIAN
from ttt_engine._core.core.rng cimport rng_t, rng_below
from ttt_engine._core.games.clobber.rules cimport CLOBBER_POPCOUNT, CLOBBER_CTZ

cdef extern from *:
    """
    /* One board row of the action mask: cells c = 0..7 as 4 bytes each
       (directions 0..3), from the four direction rows spread to a byte per
       cell (u_k byte c = 1 if direction k is legal from cell c).  32 bytes
       are written. */
    #if (defined(__SSE2__) || defined(_M_X64)) && (defined(__x86_64__) || defined(_M_X64))
    #include <emmintrin.h>
    static inline void clobber_mask_row(unsigned char* out, unsigned long long u0,
            unsigned long long u1, unsigned long long u2, unsigned long long u3) {
        __m128i a = _mm_unpacklo_epi8(_mm_cvtsi64_si128((long long)u0), _mm_cvtsi64_si128((long long)u1));
        __m128i b = _mm_unpacklo_epi8(_mm_cvtsi64_si128((long long)u2), _mm_cvtsi64_si128((long long)u3));
        _mm_storeu_si128((__m128i*)out, _mm_unpacklo_epi16(a, b));
        _mm_storeu_si128((__m128i*)(out + 16), _mm_unpackhi_epi16(a, b));
    }
    #else
    static inline void clobber_mask_row(unsigned char* out, unsigned long long u0,
            unsigned long long u1, unsigned long long u2, unsigned long long u3) {
        int c;
        for (c = 0; c < 8; c++) {
            out[4 * c] = (unsigned char)((u0 >> (8 * c)) & 1);
            out[4 * c + 1] = (unsigned char)((u1 >> (8 * c)) & 1);
            out[4 * c + 2] = (unsigned char)((u2 >> (8 * c)) & 1);
            out[4 * c + 3] = (unsigned char)((u3 >> (8 * c)) & 1);
        }
    }
    #endif
    """
    void clobber_mask_row(uint8_t* out, uint64_t u0, uint64_t u1, uint64_t u2, uint64_t u3) nogil


cdef inline int clobber_action_to_move(const ClobberState* s, int action) noexcept nogil:
    """Move for an action in ``[0, rows * cols * 4)``."""
    cdef int cell = action >> 2
    cdef int r = cell // s.cols
    return ((r * 8 + (cell - r * s.cols)) << 2) | (action & 3)


cdef inline int clobber_move_to_action(const ClobberState* s, int move) noexcept nogil:
    """Action for a move whose square is on the board."""
    cdef int sq = move >> 2
    return (((sq >> 3) * s.cols + (sq & 7)) << 2) | (move & 3)


cdef inline bint clobber_action_legal(const ClobberState* s, int action) noexcept nogil:
    """True if ``action`` (any int) is a legal move now."""
    if action < 0 or action >= s.ncells * 4:
        return False
    return clobber_is_legal(s, clobber_action_to_move(s, action))


cdef inline void _clobber_write_plane(uint64_t bb, int rows, int cols, int8_t* out, int room) noexcept nogil:
    """Rows of a bitboard as ``rows * cols`` bytes at ``out``, where ``room``
    bytes may be written.  A row is one 8-byte store (the next row overwrites
    its tail) while 8 bytes fit, else byte by byte."""
    cdef int r, off
    for r in range(rows):
        off = r * cols
        if off + 8 <= room:
            planes_store8(out + off, (bb >> (8 * r)) & 0xFF)
        else:
            planes_store_n(out + off, (bb >> (8 * r)) & 0xFF, cols)


cdef inline void clobber_write_observation(const ClobberState* s, int8_t* out) noexcept nogil:
    """``[2, rows, cols]``; writes exactly ``2 * rows * cols`` bytes."""
    cdef int n = s.rows * s.cols
    _clobber_write_plane(s.bb[s.to_move], s.rows, s.cols, out, 2 * n)
    _clobber_write_plane(s.bb[s.to_move ^ 1], s.rows, s.cols, out + n, n)


cdef inline void clobber_write_action_mask(const ClobberState* s, uint8_t* out) noexcept nogil:
    """``[rows * cols * 4]``: for each cell its 4 directions as 4 bytes.  Rows
    are written 32 bytes at a time (the next row overwrites the tail) while
    32 bytes fit, the others through a buffer, so nothing lands past the mask."""
    cdef uint64_t own = s.bb[s.to_move], opp = s.bb[s.to_move ^ 1]
    cdef uint64_t d0 = own & (opp >> 8)
    cdef uint64_t d1 = own & (opp << 8)
    cdef uint64_t d2 = own & (opp >> 1) & CLOBBER_NOT_COL7
    cdef uint64_t d3 = own & (opp << 1) & CLOBBER_NOT_COL0
    cdef int r, sh, rows = s.rows, stride = 4 * s.cols, total = 4 * s.ncells
    cdef uint8_t tmp[32]
    if s.status:
        d0 = d1 = d2 = d3 = 0
    for r in range(rows):
        sh = 8 * r
        if r * stride + 32 <= total:
            clobber_mask_row(out + r * stride, planes_spread8((d0 >> sh) & 0xFF),
                             planes_spread8((d1 >> sh) & 0xFF), planes_spread8((d2 >> sh) & 0xFF),
                             planes_spread8((d3 >> sh) & 0xFF))
        else:
            clobber_mask_row(tmp, planes_spread8((d0 >> sh) & 0xFF),
                             planes_spread8((d1 >> sh) & 0xFF), planes_spread8((d2 >> sh) & 0xFF),
                             planes_spread8((d3 >> sh) & 0xFF))
            memcpy(out + r * stride, tmp, stride)


cdef inline int clobber_random_action(const ClobberState* s, rng_t* rng) noexcept nogil:
    """A uniformly random legal action (the game must be on): one draw over the
    four direction bitboards' counts, then the k-th stone of that direction."""
    cdef uint64_t own = s.bb[s.to_move], opp = s.bb[s.to_move ^ 1]
    cdef uint64_t d0 = own & (opp >> 8)
    cdef uint64_t d1 = own & (opp << 8)
    cdef uint64_t d2 = own & (opp >> 1) & CLOBBER_NOT_COL7
    cdef uint64_t d3 = own & (opp << 1) & CLOBBER_NOT_COL0
    cdef int c0 = CLOBBER_POPCOUNT(d0), c1 = CLOBBER_POPCOUNT(d1), c2 = CLOBBER_POPCOUNT(d2)
    cdef int r = <int>rng_below(rng, c0 + c1 + c2 + CLOBBER_POPCOUNT(d3))
    cdef int d = 0, sq
    cdef uint64_t bb = d0
    if r >= c0:
        r -= c0
        d = 1
        bb = d1
        if r >= c1:
            r -= c1
            d = 2
            bb = d2
            if r >= c2:
                r -= c2
                d = 3
                bb = d3
    while r > 0:
        bb &= bb - 1
        r -= 1
    sq = CLOBBER_CTZ(bb)
    return (((sq >> 3) * s.cols + (sq & 7)) << 2) | d


# ------------------------------------------------------------ the game contract
