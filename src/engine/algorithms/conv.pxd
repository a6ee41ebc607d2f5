# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The forward pass of the convolutional policy-value network
(``ttt_engine.network.Network`` with ``architecture="conv"``) in C, without
the GIL.

Its maps are channels-last, one position (cell) after another, each cell's
``channels`` values padded to ``width`` (a multiple of ``NET_BLOCK``) with
zeros.  A 3x3 convolution computes each cell as one row of a dense layer
over the cell's 3x3 patch (cells off the board are the zero padding and are
skipped), row ``(dy * 3 + dx) * in + c`` of a ``[9 * in, width]`` weight
matrix, through the MLP's kernel (``network.pxd``'s ``net_layer_kernel``:
zero inputs skipped, outputs held in registers, the same bits on every
machine).  Each map's non-zero entries are listed once per cell, and a
cell's patch is nine kernel calls on its neighbours' lists, each continuing
the last one's sums: listing each patch's entries anew (nine times every
entry) took two thirds of the time.  The heads' 1x1 convolutions and dense
layers go through the same kernel.  Sums run in float32, in another order
than numpy's im2col products: equal within float32 rounding.

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
    int gather              # the longest sparse input of the heads' dense layers
    int out_width           # the widest dense output


cdef inline int conv_lists(const ConvModel* c) noexcept nogil:
    """Entries of one cell's sparse list: the most channels or planes of a map."""
    return c.channels if c.channels > c.planes else c.planes


cdef inline size_t conv_scratch_ints(const ConvModel* c) noexcept nogil:
    """The cells' lists and their counts, and one sparse input of the heads."""
    return <size_t>c.cells * (conv_lists(c) + 1) + c.gather


cdef inline size_t conv_scratch_floats(const ConvModel* c) noexcept nogil:
    """Three maps, the heads' map, a dense output, the cells' lists' values
    and one sparse input of the heads."""
    return (<size_t>3 * c.cells * c.width + <size_t>c.cells * NET_BLOCK + c.out_width
            + <size_t>c.cells * conv_lists(c) + c.gather)


cdef inline void conv_cells_obs(const ConvModel* c, const int8_t* o, int32_t* idx, float* val,
                                int32_t* count) noexcept nogil:
    """Each cell's non-zero planes of an int8 observation ``[planes, rows,
    cols]``: their plane numbers and values (at ``cell * conv_lists``) and
    their count."""
    cdef int cell, p, k, n = conv_lists(c)
    cdef int8_t v
    for cell in range(c.cells):
        k = 0
        for p in range(c.planes):
            v = o[p * c.cells + cell]
            # written always, kept when non-zero (as net_positive)
            idx[cell * n + k] = p
            val[cell * n + k] = <float>v
            k += v != 0
        count[cell] = k


cdef inline void conv_cells(const ConvModel* c, const float* m, int32_t* idx, float* val,
                            int32_t* count) noexcept nogil:
    """Each cell's positive channels of a map (after a ReLU, the others are
    zero), as ``conv_cells_obs``."""
    cdef int cell, n = conv_lists(c)
    for cell in range(c.cells):
        count[cell] = net_positive(m + <size_t>cell * c.width, c.channels, idx + cell * n,
                                   val + cell * n)


cdef inline void conv_3x3(const ConvModel* c, const ConvLayer* L, const int32_t* idx,
                          const float* val, const int32_t* count, float* out) noexcept nogil:
    """``out`` = the convolution of the map whose cells' lists are given
    (``conv_cells``): for each cell, its bias, then the rows of each tap
    ``(dy, dx)`` on the board for the neighbour's list, one kernel call a tap,
    each starting from the sums so far (the kernel reads its biases before it
    writes, so they may be its output).  The sum runs in patch order."""
    cdef int y, x, dy, dx, yy, xx, nb, n = conv_lists(c)
    cdef size_t tap = <size_t>L.n_in * c.width
    cdef float* o
    cdef const float* b
    for y in range(c.rows):
        for x in range(c.cols):
            o = out + <size_t>(y * c.cols + x) * c.width
            b = L.b
            for dy in range(3):
                yy = y + dy - 1
                if yy < 0 or yy >= c.rows:
                    continue
                for dx in range(3):
                    xx = x + dx - 1
                    if xx < 0 or xx >= c.cols:
                        continue
                    nb = yy * c.cols + xx
                    net_layer_kernel(L.w + (dy * 3 + dx) * tap, c.width, idx + nb * n,
                                     val + nb * n, count[nb], b, o)
                    b = o


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
    cdef float* cval = out + c.out_width    # the cells' lists (conv_cells)
    cdef float* val = cval + <size_t>c.cells * conv_lists(c)
    cdef int32_t* cidx = ints
    cdef int32_t* count = cidx + <size_t>c.cells * conv_lists(c)
    cdef int32_t* idx = count + c.cells
    cdef int r, cell, l, k, nnz, n = conv_lists(c), na = c.num_actions
    cdef int pp = c.policy_planes, vp = c.value_planes
    cdef float v
    cdef size_t i
    cdef bint ok = True
    for r in range(rows):
        conv_cells_obs(c, obs + <size_t>r * c.planes * c.cells, cidx, cval, count)
        conv_3x3(c, &c.convs[0], cidx, cval, count, x)
        conv_relu(x, plane)
        for l in range(1, c.n_convs, 2):
            conv_cells(c, x, cidx, cval, count)
            conv_3x3(c, &c.convs[l], cidx, cval, count, t)
            conv_relu(t, plane)
            conv_cells(c, t, cidx, cval, count)
            conv_3x3(c, &c.convs[l + 1], cidx, cval, count, u)
            for i in range(plane):
                v = x[i] + u[i]
                x[i] = v if v > 0.0 else 0.0
        # the heads' 1x1 convolutions, both in one pass
        conv_cells(c, x, cidx, cval, count)
        for cell in range(c.cells):
            net_layer_kernel(c.w_head, NET_BLOCK, cidx + cell * n, cval + cell * n, count[cell],
                             c.b_head, h + <size_t>cell * NET_BLOCK)
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
