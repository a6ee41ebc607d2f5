# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""``CompiledConvNetwork``: the weights of a convolutional policy-value
network packed for the C forward pass of ``conv.pxd``.

Made by ``ttt_engine.network.Network.compiled`` for a network of
architecture ``"conv"``.  To the searches it is a ``CompiledNetwork`` like
the MLP's: ``model_capsule()`` gives a ``NetModel`` (capsule
``ttt_engine.NetModel``) whose ``forward`` is this module's pass and whose
``width`` is the floats of scratch it needs, so PUCT sizes and binds its
per-lane buffers the same way for both.
"""
from libc.stdint cimport int8_t, int32_t
from libc.stdlib cimport malloc, free
cimport numpy as cnp
import numpy as np

from ttt_engine._core.algorithms.network cimport NET_BLOCK, CompiledModel, NetModel
from ttt_engine._core.algorithms.conv cimport (
    ConvLayer, ConvModel, conv_forward, conv_scratch_floats, conv_scratch_ints,
)

cnp.import_array()


cdef bint _forward(const void* data, const int8_t* obs, int rows, float* logits, float* values,
                   float* floats, int32_t* ints) noexcept nogil:
    return conv_forward(<const ConvModel*>data, obs, rows, logits, values, floats, ints)


cdef int _padded(int n):
    return (n + NET_BLOCK - 1) // NET_BLOCK * NET_BLOCK


cdef class CompiledConvNetwork(CompiledModel):
    """``params``: the conv network's weights (name -> float32 array, the
    names and shapes of ``ttt_engine.network.conv_param_shapes``) for
    observations ``obs_shape`` (planes, rows, cols) and ``num_actions``."""
    cdef ConvModel conv
    cdef ConvLayer* layers
    cdef list _packed           # the padded weights the model points into
    cdef readonly int channels, blocks

    def __init__(self, params, obs_shape, int num_actions):
        cdef int i, planes, rows, cols, cells, ch, width, pp, vp, hidden
        cdef ConvModel* c = &self.conv
        cdef NetModel* m = &self.model
        if self.layers != NULL:
            raise RuntimeError("CompiledConvNetwork is initialised once")
        planes, rows, cols = (int(n) for n in obs_shape)
        cells = rows * cols
        p = {k: np.asarray(v, dtype=np.float32) for k, v in params.items()}
        ch = p["w_stem"].shape[3]
        self.blocks = sum(1 for k in p if k.startswith("w_res") and k.endswith("a"))
        width = _padded(ch)
        pp = p["w_phead"].shape[1]
        vp = p["w_vhead"].shape[1]
        hidden = p["w_vfc"].shape[1]
        if pp + vp > NET_BLOCK or p["wp"].shape != (cells * pp, num_actions) \
                or p["wv"].shape != (hidden, 1):
            raise ValueError("the conv network's heads do not fit its observations and "
                             f"{num_actions} actions")
        self._packed = []
        names = ["_stem"] + [f"_res{i}{half}" for i in range(self.blocks) for half in "ab"]
        self.layers = <ConvLayer*>malloc(len(names) * sizeof(ConvLayer))
        if self.layers == NULL:
            raise MemoryError()
        for i, name in enumerate(names):
            w = p["w" + name]
            if w.shape[:2] != (3, 3) or w.shape[3] != ch or w.shape[2] != (planes if i == 0
                                                                            else ch):
                raise ValueError(f"kernel w{name} of shape {w.shape} does not fit {planes} "
                                 f"planes and {ch} channels")
            self.layers[i].w = self._pack(w.reshape(-1, ch), width)
            self.layers[i].b = self._pack(p["b" + name].reshape(1, ch), width)
            self.layers[i].n_in = w.shape[2]
        c.convs = self.layers
        c.n_convs = len(names)
        c.planes, c.rows, c.cols, c.cells = planes, rows, cols, cells
        c.channels, c.width = ch, width
        c.w_head = self._pack(np.concatenate([p["w_phead"], p["w_vhead"]], axis=1), NET_BLOCK)
        c.b_head = self._pack(np.concatenate([p["b_phead"], p["b_vhead"]])[None], NET_BLOCK)
        c.policy_planes, c.value_planes = pp, vp
        c.wp_width = _padded(num_actions)
        c.wp = self._pack(p["wp"], c.wp_width)
        c.bp = self._pack(p["bp"][None], c.wp_width)
        c.vfc_width = _padded(hidden)
        c.value_hidden = hidden
        c.w_vfc = self._pack(p["w_vfc"], c.vfc_width)
        c.b_vfc = self._pack(p["b_vfc"][None], c.vfc_width)
        c.wv = self._pack(p["wv"], NET_BLOCK)
        c.bv = self._pack(p["bv"][None], NET_BLOCK)
        c.num_actions = num_actions
        c.gather = max(cells * pp, cells * vp, hidden)
        c.out_width = max(c.wp_width, c.vfc_width, NET_BLOCK)
        self.input_size = planes * cells
        self.num_actions = num_actions
        self.channels = ch
        m.layers = NULL
        m.n_layers = 0
        m.input_size = self.input_size
        m.num_actions = num_actions
        # the searches give every lane net_scratch_floats(m) >= width floats in
        # NetScratch.out and at least width ints in its idx
        m.width = <int>max(conv_scratch_floats(c), conv_scratch_ints(c))
        m.forward = _forward
        m.data = c

    cdef const float* _pack(self, w, int width) except NULL:
        """``w`` [n, k] as a zero-padded [n, width] float32 array kept alive here."""
        cdef cnp.ndarray a = np.zeros((w.shape[0], width), np.float32)
        a[:, :w.shape[1]] = w
        self._packed.append(a)
        return <const float*>cnp.PyArray_DATA(a)

    def __dealloc__(self):
        free(self.layers)
