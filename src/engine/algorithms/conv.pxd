# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The forward pass of the convolutional policy-value network
(``ttt_engine.network.Network`` with ``architecture="conv"``) in C, without
the GIL.

Its maps are channels-last, one position (cell) after another, each cell's
``channels`` values padded to ``width`` (a multiple of ``NET_BLOCK``) with
zeros.  A 3x3 convolution computes each cell as one row of a dense layer:
the cell's 3x3 patch (cells off the board are the zero padding and are
skipped) gathered as a sparse input, row ``(dy * 3 + dx) * in + c`` of a
``[9 * in, width]`` weight matrix, through the MLP's kernel
(``network.pxd``'s ``net_layer_kernel``: zero inputs skipped, outputs held in
registers, the same bits on every machine).  The heads' 1x1 convolutions
and dense layers go through the same kernel.  Sums run in float32, in
another order than numpy's im2col products: equal within float32 rounding.

The model and its packed weights are owned by ``conv.pyx``'s
``CompiledConvNetwork``, which exposes them to the searches as a
``NetModel`` whose ``forward`` is this pass.
"""
from libc.stdint cimport int8_t, int32_t
from libc.math cimport tanhf

from ttt_engine._core.algorithms.network cimport NET_BLOCK, net_layer_kernel, net_positive


cdef struct ConvLayer:
    const float* w          # [9 * n_in, width] row-major, columns past channels zero
    const float* b          # [width]
    int n_in                # input channels


cdef struct ConvModel:
    const ConvLayer* convs  # the stem, then each residual block's two
    int n_convs
    int planes, rows, cols, cells
    int channels, width     # width: channels rounded up to NET_BLOCK
    const float* w_head     # [channels, NET_BLOCK]: the policy's then the value's planes
    const float* b_head     # [NET_BLOCK]
    int policy_planes, value_planes
    const float* wp         # [cells * policy_planes, wp_width]: the logits
    const float* bp
    int wp_width
    const float* w_vfc      # [cells * value_planes, vfc_width]: the value's hidden units
    const float* b_vfc
    int vfc_width, value_hidden
    const float* wv         # [value_hidden, NET_BLOCK]: the value before its tanh
    const float* bv
    int num_actions
    int gather              # the longest sparse input of a layer
    int out_width           # the widest dense output


cdef inline size_t conv_scratch_ints(const ConvModel* c) noexcept nogil:
    return <size_t>c.gather


cdef inline size_t conv_scratch_floats(const ConvModel* c) noexcept nogil:
    """Three maps, the heads' map, a dense output and the sparse inputs' values."""
    return (<size_t>3 * c.cells * c.width + <size_t>c.cells * NET_BLOCK + c.out_width
            + c.gather)


cdef inline int conv_patch_obs(const ConvModel* c, const int8_t* o, int y, int x,
                               int32_t* idx, float* val) noexcept nogil:
    """The non-zero entries of the 3x3 patch around cell (y, x) of an int8
    observation ``[planes, rows, cols]``; their count."""
    cdef int dy, dx, yy, xx, p, base, k = 0
    cdef int8_t v
    for dy in range(3):
        yy = y + dy - 1
        if yy < 0 or yy >= c.rows:
            continue
        for dx in range(3):
            xx = x + dx - 1
            if xx < 0 or xx >= c.cols:
                continue
            base = (dy * 3 + dx) * c.planes
            for p in range(c.planes):
                v = o[p * c.cells + yy * c.cols + xx]
                # written always, kept when non-zero (as net_positive)
                idx[k] = base + p
                val[k] = <float>v
                k += v != 0
    return k


cdef inline int conv_patch(const ConvModel* c, const float* m, int n_in, int y, int x,
                           int32_t* idx, float* val) noexcept nogil:
    """The positive entries of the 3x3 patch around cell (y, x) of a map
    (after a ReLU, so the others are zero); their count."""
    cdef int dy, dx, yy, xx, ch, base, k = 0
    cdef const float* cell
    for dy in range(3):
        yy = y + dy - 1
        if yy < 0 or yy >= c.rows:
            continue
        for dx in range(3):
            xx = x + dx - 1
            if xx < 0 or xx >= c.cols:
                continue
            base = (dy * 3 + dx) * n_in
            cell = m + <size_t>(yy * c.cols + xx) * c.width
            for ch in range(n_in):
                idx[k] = base + ch
                val[k] = cell[ch]
                k += cell[ch] > 0.0
    return k


cdef inline void conv_relu(float* x, size_t n) noexcept nogil:
    cdef size_t i
    for i in range(n):
        x[i] = x[i] if x[i] > 0.0 else 0.0


cdef inline bint conv_forward(const ConvModel* c, const int8_t* obs, int rows, float* logits,
                              float* values, float* floats, int32_t* ints) noexcept nogil:
    """``rows`` observations (int8 ``[planes, rows, cols]`` each) -> ``logits``
    ``[rows, num_actions]`` and ``values`` ``[rows]``, with the scratch
    ``floats`` and ``ints`` (``conv_scratch_floats`` / ``_ints`` of them).
    False if an output is not finite."""
    cdef size_t plane = <size_t>c.cells * c.width
    cdef float* x = floats                  # the trunk's map
    cdef float* t = x + plane               # a block's middle map
    cdef float* u = t + plane               # its second convolution
    cdef float* h = u + plane               # the heads' planes [cells, NET_BLOCK]
    cdef float* out = h + <size_t>c.cells * NET_BLOCK
    cdef float* val = out + c.out_width
    cdef int32_t* idx = ints
    cdef int r, y, xx, cell, l, k, nnz, na = c.num_actions
    cdef int pp = c.policy_planes, vp = c.value_planes
    cdef const ConvLayer* L
    cdef const int8_t* o
    cdef float v
    cdef size_t i
    cdef bint ok = True
    for r in range(rows):
        o = obs + <size_t>r * c.planes * c.cells
        L = &c.convs[0]
        for y in range(c.rows):
            for xx in range(c.cols):
                nnz = conv_patch_obs(c, o, y, xx, idx, val)
                net_layer_kernel(L.w, c.width, idx, val, nnz, L.b,
                                 x + <size_t>(y * c.cols + xx) * c.width)
        conv_relu(x, plane)
        for l in range(1, c.n_convs, 2):
            L = &c.convs[l]
            for y in range(c.rows):
                for xx in range(c.cols):
                    nnz = conv_patch(c, x, L.n_in, y, xx, idx, val)
                    net_layer_kernel(L.w, c.width, idx, val, nnz, L.b,
                                     t + <size_t>(y * c.cols + xx) * c.width)
            conv_relu(t, plane)
            L = &c.convs[l + 1]
            for y in range(c.rows):
                for xx in range(c.cols):
                    nnz = conv_patch(c, t, L.n_in, y, xx, idx, val)
                    net_layer_kernel(L.w, c.width, idx, val, nnz, L.b,
                                     u + <size_t>(y * c.cols + xx) * c.width)
            for i in range(plane):
                v = x[i] + u[i]
                x[i] = v if v > 0.0 else 0.0
        # the heads' 1x1 convolutions, both in one pass
        for cell in range(c.cells):
            nnz = net_positive(x + <size_t>cell * c.width, c.channels, idx, val)
            net_layer_kernel(c.w_head, NET_BLOCK, idx, val, nnz, c.b_head,
                             h + <size_t>cell * NET_BLOCK)
        # the policy: its planes flattened cell by cell
        nnz = 0
        for cell in range(c.cells):
            for k in range(pp):
                v = h[<size_t>cell * NET_BLOCK + k]
                idx[nnz] = cell * pp + k
                val[nnz] = v
                nnz += v > 0.0
        net_layer_kernel(c.wp, c.wp_width, idx, val, nnz, c.bp, out)
        for k in range(na):
            v = out[k]
            logits[<size_t>r * na + k] = v
            ok = ok and (v - v == 0.0)      # false for NaN and +-inf
        # the value: its planes, the hidden layer, the output
        nnz = 0
        for cell in range(c.cells):
            for k in range(vp):
                v = h[<size_t>cell * NET_BLOCK + pp + k]
                idx[nnz] = cell * vp + k
                val[nnz] = v
                nnz += v > 0.0
        net_layer_kernel(c.w_vfc, c.vfc_width, idx, val, nnz, c.b_vfc, out)
        nnz = net_positive(out, c.value_hidden, idx, val)
        net_layer_kernel(c.wv, NET_BLOCK, idx, val, nnz, c.bv, out)
        v = tanhf(out[0])
        values[r] = v
        ok = ok and (v == v)
    return ok
