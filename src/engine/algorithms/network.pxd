# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The forward pass of the policy-value MLP (``ttt_engine.network.Network``)
in C, without the GIL: what PUCT runs on the leaves it gathers.

A model is its layers: the hidden ones (ReLU), then the two heads fused into
one layer (``num_actions`` policy logits, then the value before its
``tanh``).  Each layer's weights are ``[n_in, width]`` row-major, ``width``
being ``n_out`` rounded up to ``NET_BLOCK`` with zero columns (and zero
biases), so the kernel never handles a remainder.

The kernel works one row (position) at a time and skips the zero inputs:
the observation planes are mostly 0 and the ReLU cuts about half of the
hidden units (in the leaves of a search with the shipped Ultimate Tic-Tac-Toe
network: 16 of 243 inputs set, 137 and 70 of the 256 hidden units positive),
so a row costs one weight row per non-zero input.  The outputs are
accumulated in registers across those rows, 32 at a time (SSE2, the baseline
of the build: setup.py does not use -march=native), or 64 with AVX2 where
the processor has it, chosen at run time; neither path uses fused multiply-adds, and both sum every output
in input order, so the results are the same bits on every machine.  A row's
result does not depend on the other rows of its batch either.  Sums run in
float32: equal to numpy's (BLAS) forward pass within float32 rounding.

The model and its packed weights are owned by ``network.pyx``'s
``CompiledNetwork``; this header is what a search needs (structs and inline
functions only, so cimporting it loads no module).
"""
from libc.stdint cimport int8_t, int32_t
from libc.math cimport tanhf

cdef extern from *:
    """
    /* One layer for one row: out[j] = b[j] + sum_t val[t] * w[idx[t]][j] for
       j < width (a multiple of 32), the sums over the row's non-zero inputs
       only.  A block of outputs is held in registers across those inputs (GCC
       vector types).  Each output is a plain float32 sum in input order: no
       reduction across lanes and no fused multiply-add (neither path enables
       FMA), so both paths below give the same bits on every x86-64 machine,
       whichever one runs. */
    #include <stdint.h>
    #include <string.h>
    #if defined(__GNUC__)
    typedef float ttt_net_v4 __attribute__((vector_size(16)));
    /* the same at any float's address: unaligned loads and stores */
    typedef float ttt_net_v4u __attribute__((vector_size(16), aligned(4), may_alias));

    /* One block of outputs, written once for every vector width: REGS
       registers of type V (VU: V at any float's address) hold the block's
       outputs across the row's inputs; a scalar times a vector multiplies
       every lane.  REGS is TTT_NET_R4 or TTT_NET_R8, which apply a step to
       each register number. */
    #define TTT_NET_R4(X) X(0) X(1) X(2) X(3)
    #define TTT_NET_R8(X) TTT_NET_R4(X) X(4) X(5) X(6) X(7)
    #define TTT_NET_LOAD(i) ttt_acc a##i = bb[i];
    #define TTT_NET_ADD(i) a##i += v * p[i];
    #define TTT_NET_STORE(i) o[i] = a##i;
    #define TTT_NET_BLOCK(NAME, V, VU, REGS, TARGET)                                  \
        TARGET static inline __attribute__((always_inline))                           \
        void NAME(const float* w, int width, const int32_t* idx, const float* val,    \
                  int nnz, const float* b, float* out) {                              \
            typedef V ttt_acc;                                                        \
            typedef VU ttt_accu;                                                      \
            const ttt_accu* bb = (const ttt_accu*)b;                                  \
            REGS(TTT_NET_LOAD)                                                        \
            for (int t = 0; t < nnz; t++) {                                           \
                const ttt_accu* p = (const ttt_accu*)(w + (size_t)idx[t] * width);    \
                float v = val[t];                                                     \
                REGS(TTT_NET_ADD)                                                     \
            }                                                                         \
            ttt_accu* o = (ttt_accu*)out;                                             \
            REGS(TTT_NET_STORE)                                                       \
        }

    /* the baseline (SSE2): 32 outputs in eight 4-float registers */
    TTT_NET_BLOCK(ttt_net_block32, ttt_net_v4, ttt_net_v4u, TTT_NET_R8, )

    static void ttt_net_layer_base(const float* w, int width, const int32_t* idx,
                                   const float* val, int nnz, const float* b, float* out) {
        for (int j0 = 0; j0 < width; j0 += 32)
            ttt_net_block32(w + j0, width, idx, val, nnz, b + j0, out + j0);
    }
    #else
    /* other compilers: plain loops, 32 outputs at a time */
    static void ttt_net_layer_base(const float* w, int width, const int32_t* idx,
                                   const float* val, int nnz, const float* b, float* out) {
        for (int j0 = 0; j0 < width; j0 += 32) {
            float a[32];
            memcpy(a, b + j0, sizeof a);
            for (int t = 0; t < nnz; t++) {
                const float* p = w + (size_t)idx[t] * width + j0;
                for (int i = 0; i < 32; i++)
                    a[i] += val[t] * p[i];
            }
            memcpy(out + j0, a, sizeof a);
        }
    }
    #endif

    #if defined(__GNUC__) && defined(__x86_64__) && !defined(__AVX2__)
    #define TTT_NET_WIDE 1
    typedef float ttt_net_v8 __attribute__((vector_size(32)));
    typedef float ttt_net_v8u __attribute__((vector_size(32), aligned(4), may_alias));
    #define TTT_NET_AVX2 __attribute__((target("avx2")))
    TTT_NET_BLOCK(ttt_net_block64_avx2, ttt_net_v8, ttt_net_v8u, TTT_NET_R8, TTT_NET_AVX2)
    TTT_NET_BLOCK(ttt_net_block32_avx2, ttt_net_v8, ttt_net_v8u, TTT_NET_R4, TTT_NET_AVX2)

    /* AVX2 (chosen at run time): 64 outputs in eight 8-float registers, then
       a last block of 32 in four if the width is an odd multiple of 32 */
    TTT_NET_AVX2
    static void ttt_net_layer_wide(const float* w, int width, const int32_t* idx,
                                   const float* val, int nnz, const float* b, float* out) {
        int j0 = 0;
        for (; j0 + 64 <= width; j0 += 64)
            ttt_net_block64_avx2(w + j0, width, idx, val, nnz, b + j0, out + j0);
        if (j0 < width)
            ttt_net_block32_avx2(w + j0, width, idx, val, nnz, b + j0, out + j0);
    }
    #else
    #define TTT_NET_WIDE 0
    #define ttt_net_layer_wide ttt_net_layer_base
    #endif

    /* 1: the AVX2 path, 0: the baseline, -1: not asked yet (the race of two
       threads asking at once is harmless: both write the same answer) */
    static int ttt_net_wide = -1;

    static int ttt_net_wide_available(void) {
    #if TTT_NET_WIDE
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx2") ? 1 : 0;
    #else
        return 0;
    #endif
    }

    static inline void ttt_net_layer(const float* w, int width, const int32_t* idx,
                                     const float* val, int nnz, const float* b, float* out) {
        if (ttt_net_wide < 0)
            ttt_net_wide = ttt_net_wide_available();
        if (ttt_net_wide)
            ttt_net_layer_wide(w, width, idx, val, nnz, b, out);
        else
            ttt_net_layer_base(w, width, idx, val, nnz, b, out);
    }
    """
    void net_layer_kernel "ttt_net_layer"(const float* w, int width, const int32_t* idx,
                                          const float* val, int nnz, const float* b,
                                          float* out) noexcept nogil
    int net_wide "ttt_net_wide"
    int net_wide_available "ttt_net_wide_available"() noexcept nogil


cdef enum:
    NET_BLOCK = 32          # layer widths are padded to a multiple of this


cdef struct NetLayer:
    const float* w          # [n_in, width] row-major, columns past n_out zero
    const float* b          # [width]
    int n_in
    int n_out
    int width


ctypedef bint (*net_forward_fn)(const void* data, const int8_t* obs, int rows, float* logits,
                                float* values, float* floats, int32_t* ints) noexcept nogil


cdef struct NetModel:
    NetLayer* layers        # the hidden layers, then the fused head
    int n_layers
    int input_size
    int num_actions
    int width               # the widest layer's width
    # another architecture (conv.pyx): its own pass over ``data``, given
    # ``NetScratch.out`` and ``idx`` (``width`` floats and ints); NULL: the layers
    net_forward_fn forward
    const void* data


cdef struct NetScratch:
    # one row's buffers (a thread's own; allocated once: ``net_scratch_floats``
    # floats and ``net_scratch_ints`` int32)
    float* out              # [width] a layer's outputs
    float* val              # [max(input_size, width)] the non-zero inputs of the next
    int32_t* idx            # [max(input_size, width)] and their indices


cdef inline size_t net_scratch_ints(const NetModel* m) noexcept nogil:
    return <size_t>(m.input_size if m.input_size > m.width else m.width)


cdef inline size_t net_scratch_floats(const NetModel* m) noexcept nogil:
    return <size_t>m.width + net_scratch_ints(m)


cdef inline void net_scratch_bind(NetScratch* s, const NetModel* m, float* floats,
                                  int32_t* ints) noexcept nogil:
    """Point ``s`` into ``floats`` and ``ints`` (sizes above)."""
    s.out = floats
    s.val = floats + m.width
    s.idx = ints


cdef inline int net_positive(const float* x, int n, int32_t* idx, float* val) noexcept nogil:
    """The ReLU of ``x[:n]`` as the next layer's sparse input: the positive
    entries into ``idx`` / ``val``; their count."""
    cdef int i, k = 0
    for i in range(n):
        # written always, kept when positive: no branch to mispredict (half of
        # them would be), a third faster in the whole pass
        idx[k] = i
        val[k] = x[i]
        k += x[i] > 0.0
    return k


cdef inline bint net_forward(const NetModel* m, const int8_t* obs, int rows, float* logits,
                             float* values, NetScratch* s) noexcept nogil:
    """``rows`` observations (int8, ``input_size`` each) -> ``logits``
    ``[rows, num_actions]`` and ``values`` ``[rows]``.  False if an output is
    not finite (NaN, or an overflow to infinity)."""
    cdef int r, i, k, l, nnz
    cdef const int8_t* o
    cdef float* y = s.out
    cdef float v
    cdef int na = m.num_actions
    cdef bint ok = True
    if m.forward != NULL:
        return m.forward(m.data, obs, rows, logits, values, s.out, s.idx)
    for r in range(rows):
        o = obs + <size_t>r * m.input_size
        nnz = 0
        for i in range(m.input_size):
            s.idx[nnz] = i
            s.val[nnz] = <float>o[i]
            nnz += o[i] != 0
        for l in range(m.n_layers):
            net_layer_kernel(m.layers[l].w, m.layers[l].width, s.idx, s.val, nnz, m.layers[l].b,
                             y)
            if l < m.n_layers - 1:
                nnz = net_positive(y, m.layers[l].n_out, s.idx, s.val)
        for k in range(na):
            v = y[k]
            logits[<size_t>r * na + k] = v
            ok = ok and (v - v == 0.0)      # false for NaN and +-inf
        v = tanhf(y[na])
        values[r] = v
        ok = ok and (v == v)
    return ok


cdef class CompiledModel:
    """A compiled network as the searches take it (network.pyx): its
    ``NetModel``, in a capsule, and its pass from Python; each architecture
    (``CompiledNetwork`` here, ``CompiledConvNetwork`` in conv.pyx) fills
    ``model``."""
    cdef NetModel model
    cdef readonly int input_size, num_actions
