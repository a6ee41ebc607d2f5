# cython: language_level=3
"""The value network's compiled evaluator: an accumulator over sparse features.

    acc   = b1 + sum over the active features f of W1[f, :]     (H values)
    value = tanh(dot(w2, clip(acc, 0, 1)) + b2)                  (side to move)

The first layer is never recomputed inside a search: a move changes a few
features (``FeatureDiff``, from the game's ``features.pxd``), so the child's
accumulator is the parent's plus the rows added minus the rows removed (one
pass over H per row), and going back up is taking the parent's again (a stack
of accumulators indexed by ply, preallocated).

Two number types, chosen when the network is loaded (``VNet.quantised``):

- float32: the weights as trained;
- int16 (quantised): ``W1``, ``b1`` scaled by ``q1`` (the clip's top, a
  power of two) and rounded, so the accumulator is exact integer arithmetic
  (incremental == recompute bit for bit); ``w2`` scaled by ``q2``; the output
  layer an int32 dot product (SSE2's ``pmaddwd``).  The loader picks the
  largest scales that cannot overflow and refuses weights that would need a
  scale below ``VN_MIN_Q1`` (valuenet.pyx).

Every buffer holds ``hp`` values per row: H rounded up to ``VN_LANES`` (the
extra units have zero weights in and out), so the loops have no tails.
"""
from libc.stdint cimport int16_t, int32_t
from libc.math cimport expf, fabsf
from ttt_engine._core.core.features cimport FeatureDiff, FEATURES_MAX
from ttt_engine._core.algorithms.game cimport GameState
from ttt_engine._core.algorithms.game_features cimport (
    game_features, game_feature_diff,
)

cdef enum:
    VN_LANES = 16           # hp is a multiple of this (a 32-byte block of int16)


cdef struct VNet:
    int nfeatures           # F
    int hidden              # H as trained
    int hp                  # H padded to VN_LANES
    bint quantised          # int16 accumulator (else float32)
    int acc_bytes           # bytes of one accumulator (hp values)
    const float* w1         # float32: F + 1 rows of hp (the last one zeros)
    const float* b1
    const float* w2
    float b2
    const int16_t* w1q      # int16: W1 * q1 (F + 1 rows, the last zeros), b1 * q1, w2 * q2
    const int16_t* b1q
    const int16_t* w2q
    int16_t q1              # the clip's top (1.0) in accumulator units
    float out_scale         # 1 / (q1 * q2)


cdef inline float vn_tanh(float x) noexcept nogil:
    """tanh(x) from one expf, (1 - e^-2|x|) / (1 + e^-2|x|): within 1e-7 of
    the exact value, and under half the time of libm's tanhf (which went
    through expm1f: a fifth of an evaluation's time)."""
    cdef float t = expf(-2.0 * fabsf(x))
    cdef float y = (1.0 - t) / (1.0 + t)
    return y if x >= 0.0 else -y


cdef inline void _vn_pass_f(float* dst, const float* src, const float* a0, const float* a1,
                            const float* r0, const float* r1, int hp) noexcept nogil:
    cdef int j
    for j in range(hp):
        dst[j] = src[j] + a0[j] + a1[j] - r0[j] - r1[j]


cdef inline void _vn_pass_q(int16_t* dst, const int16_t* src, const int16_t* a0,
                            const int16_t* a1, const int16_t* r0, const int16_t* r1,
                            int hp) noexcept nogil:
    cdef int j
    for j in range(hp):
        dst[j] = <int16_t>(src[j] + a0[j] + a1[j] - r0[j] - r1[j])


cdef inline void _vn_add4_f(float* dst, const float* src, const float* a0, const float* a1,
                            const float* a2, const float* a3, int hp) noexcept nogil:
    cdef int j
    for j in range(hp):
        dst[j] = src[j] + a0[j] + a1[j] + a2[j] + a3[j]


cdef inline void _vn_add4_q(int16_t* dst, const int16_t* src, const int16_t* a0,
                            const int16_t* a1, const int16_t* a2, const int16_t* a3,
                            int hp) noexcept nogil:
    cdef int j
    for j in range(hp):
        dst[j] = <int16_t>(src[j] + a0[j] + a1[j] + a2[j] + a3[j])


cdef inline void _vn_pass6_f(float* dst, const float* src, const float* a0, const float* a1,
                             const float* a2, const float* a3, const float* r0,
                             const float* r1, int hp) noexcept nogil:
    cdef int j
    for j in range(hp):
        dst[j] = src[j] + a0[j] + a1[j] + a2[j] + a3[j] - r0[j] - r1[j]


cdef inline void _vn_pass6_q(int16_t* dst, const int16_t* src, const int16_t* a0,
                             const int16_t* a1, const int16_t* a2, const int16_t* a3,
                             const int16_t* r0, const int16_t* r1, int hp) noexcept nogil:
    cdef int j
    for j in range(hp):
        dst[j] = <int16_t>(src[j] + a0[j] + a1[j] + a2[j] + a3[j] - r0[j] - r1[j])


cdef inline void vn_apply(const VNet* net, void* dst, const void* src, const int32_t* add,
                          int nadd, const int32_t* rem, int nrem) noexcept nogil:
    """``dst`` = ``src`` + the rows of ``add`` - the rows of ``rem`` (``dst``
    may be ``src``).  One pass over the H values takes two rows added and two
    removed at once, four added, or four added and two removed where that is
    the whole change (row ``nfeatures``, all zeros, fills the gaps): most
    moves' change is one pass (a UTTT move: its mark, the forced board out and
    in, the side to move, the threats of its board).  Integer accumulators wrap modulo 2**16 on the way and
    land exactly (the loader made sure every position's sum fits)."""
    cdef int ia = 0, ir = 0, k, nadds, nrems
    cdef int32_t rows[6]
    cdef size_t hp = net.hp
    while True:
        # four added once nothing is left to remove; four and two where that
        # ends the change (a UTTT move with its threats); else two each way
        # (a pass of seven rows that leaves work is slower than two of five)
        if nadd - ia > 2 and ir >= nrem:
            nadds, nrems = 4, 0
        elif 2 < nadd - ia <= 4 and nrem - ir <= 2:
            nadds, nrems = 4, 2
        else:
            nadds, nrems = 2, 2
        for k in range(6):
            rows[k] = net.nfeatures
        for k in range(nadds):
            if ia < nadd:
                rows[k] = add[ia]
                ia += 1
        for k in range(4, 4 + nrems):
            if ir < nrem:
                rows[k] = rem[ir]
                ir += 1
        if nadds == 4 and nrems == 0:
            if net.quantised:
                _vn_add4_q(<int16_t*>dst, <const int16_t*>src, net.w1q + rows[0] * hp,
                           net.w1q + rows[1] * hp, net.w1q + rows[2] * hp,
                           net.w1q + rows[3] * hp, net.hp)
            else:
                _vn_add4_f(<float*>dst, <const float*>src, net.w1 + rows[0] * hp,
                           net.w1 + rows[1] * hp, net.w1 + rows[2] * hp, net.w1 + rows[3] * hp,
                           net.hp)
        elif nadds == 4:
            if net.quantised:
                _vn_pass6_q(<int16_t*>dst, <const int16_t*>src, net.w1q + rows[0] * hp,
                            net.w1q + rows[1] * hp, net.w1q + rows[2] * hp,
                            net.w1q + rows[3] * hp, net.w1q + rows[4] * hp,
                            net.w1q + rows[5] * hp, net.hp)
            else:
                _vn_pass6_f(<float*>dst, <const float*>src, net.w1 + rows[0] * hp,
                            net.w1 + rows[1] * hp, net.w1 + rows[2] * hp, net.w1 + rows[3] * hp,
                            net.w1 + rows[4] * hp, net.w1 + rows[5] * hp, net.hp)
        elif net.quantised:
            _vn_pass_q(<int16_t*>dst, <const int16_t*>src, net.w1q + rows[0] * hp,
                       net.w1q + rows[1] * hp, net.w1q + rows[4] * hp, net.w1q + rows[5] * hp,
                       net.hp)
        else:
            _vn_pass_f(<float*>dst, <const float*>src, net.w1 + rows[0] * hp,
                       net.w1 + rows[1] * hp, net.w1 + rows[4] * hp, net.w1 + rows[5] * hp,
                       net.hp)
        src = dst
        if ia >= nadd and ir >= nrem:
            return


cdef inline void vn_refresh(const VNet* net, void* acc, const int32_t* feats,
                            int n) noexcept nogil:
    """``acc`` from scratch: b1 plus the rows of the ``n`` features."""
    if net.quantised:
        vn_apply(net, acc, net.b1q, feats, n, feats, 0)
    else:
        vn_apply(net, acc, net.b1, feats, n, feats, 0)


cdef inline void vn_update(const VNet* net, void* dst, const void* src,
                           const FeatureDiff* d) noexcept nogil:
    """``dst`` = ``src`` + the rows of ``d.add`` - the rows of ``d.rem``."""
    vn_apply(net, dst, src, d.add, d.nadd, d.rem, d.nrem)


cdef inline float vn_output(const VNet* net, const void* acc) noexcept nogil:
    """The value for the side to move: tanh(dot(w2, clip(acc, 0, 1)) + b2).
    The float dot product keeps eight partial sums (a reduction the compiler
    may vectorise without reassociating); the integer one is exact."""
    cdef int j, k
    cdef int32_t total = 0
    cdef int16_t h
    cdef float x, s
    cdef float part[8]
    cdef const int16_t* aq
    cdef const float* af
    if net.quantised:
        aq = <const int16_t*>acc
        for j in range(net.hp):
            h = aq[j]
            h = h if h > 0 else 0
            h = h if h < net.q1 else net.q1
            total += <int32_t>h * <int32_t>net.w2q[j]
        return vn_tanh(<float>total * net.out_scale + net.b2)
    af = <const float*>acc
    for k in range(8):
        part[k] = 0.0
    j = 0
    while j < net.hp:
        for k in range(8):
            x = af[j + k]
            x = x if x > 0.0 else 0.0
            x = x if x < 1.0 else 1.0
            part[k] = part[k] + x * net.w2[j + k]
        j += 8
    s = ((part[0] + part[4]) + (part[1] + part[5])) + ((part[2] + part[6]) + (part[3] + part[7]))
    return vn_tanh(s + net.b2)


cdef inline void vn_refresh_state(const VNet* net, void* acc, const GameState* s) noexcept nogil:
    """``acc`` from scratch for position ``s``."""
    cdef int32_t feats[FEATURES_MAX]
    cdef int n = game_features(s, feats)
    vn_refresh(net, acc, feats, n)


cdef inline float vn_value_after(const VNet* net, void* dst, const void* src,
                                 const GameState* a, const GameState* b,
                                 FeatureDiff* scratch) noexcept nogil:
    """The value of position ``b`` for its side to move, from ``src``, the
    accumulator of position ``a``: ``dst`` becomes ``b``'s accumulator."""
    game_feature_diff(a, b, scratch)
    vn_update(net, dst, src, scratch)
    return vn_output(net, dst)


cdef class CompiledValueNet:
    cdef VNet net
    cdef object _w1, _b1, _w2, _w1q, _b1q, _w2q     # the arrays behind ``net``'s pointers
    cdef readonly str feature_set
    cdef readonly int num_features, hidden, q1, q2
    cdef readonly bint quantised
    cdef _quantise(self, what)
