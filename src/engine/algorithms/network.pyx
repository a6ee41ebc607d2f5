# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""``CompiledNetwork``: the weights of a policy-value MLP packed for the C
forward pass of ``network.pxd``, which PUCT runs without the GIL.

Made by ``ttt_engine.network.Network.compiled`` from its float32 weights;
``forward`` is the same pass called from Python (its tests compare it with
the numpy one).  A search reaches the model through ``model_capsule()`` (a
``PyCapsule`` named ``ttt_engine.NetModel``), keeping this object alive while
it uses it.
"""
from libc.stdint cimport int8_t, int32_t
from libc.stdlib cimport malloc, free
from cpython.pycapsule cimport PyCapsule_New
cimport numpy as cnp
import numpy as np

from ttt_engine._core.algorithms.network cimport (
    NET_BLOCK, NetLayer, NetModel, NetScratch, net_forward, net_scratch_bind, net_scratch_floats,
    net_scratch_ints, net_wide, net_wide_available,
)

cnp.import_array()

#: the name of the capsule that carries a ``NetModel*``
CAPSULE_NAME = "ttt_engine.NetModel"
cdef const char* _CAPSULE = b"ttt_engine.NetModel"


def kernel():
    """The forward pass's kernel in this module: ``"avx2"`` or ``"sse2"``
    (the baseline; other compilers: ``"plain"``)."""
    global net_wide
    if net_wide < 0:
        net_wide = net_wide_available()
    return "avx2" if net_wide else "sse2"


def use_kernel(name):
    """Make ``CompiledNetwork.forward`` use kernel ``name`` (``"sse2"``, or
    ``"avx2"`` where the processor has it), to compare them; the searches keep
    the best one."""
    global net_wide
    if name == "avx2" and net_wide_available():
        net_wide = 1
    elif name == "sse2":
        net_wide = 0
    else:
        raise ValueError(f"kernel must be 'sse2' or 'avx2' (if the processor has it), "
                         f"got {name!r}")


cdef class CompiledModel:
    def model_capsule(self):
        """A ``PyCapsule`` of this model's ``NetModel*`` (valid while this
        object lives)."""
        return PyCapsule_New(&self.model, _CAPSULE, NULL)

    def forward(self, observations):
        """``(logits float32 [B, num_actions], values float32 [B])`` of
        ``observations`` (int8, ``input_size`` entries a row once flattened),
        through ``net_forward``, the pass the searches call; ``ValueError`` if
        an output is not finite."""
        return net_model_forward(&self.model, observations)


cdef class CompiledNetwork(CompiledModel):
    """Layers ``[(w [n_in, n_out], b [n_out]), ...]`` (float32): the hidden
    ReLU layers, then the fused head of ``num_actions`` logits and one value
    (before its tanh)."""
    cdef list _packed           # the padded weights the model points into
    cdef readonly int width

    def __init__(self, layers, int num_actions):
        cdef int i, n_in, n_out, width
        cdef cnp.ndarray w, b
        layers = list(layers)
        if not layers:
            raise ValueError("a network needs at least its head layer")
        if self.model.layers != NULL:
            raise RuntimeError("CompiledNetwork is initialised once")
        self._packed = []
        self.input_size = int(np.shape(layers[0][0])[0])
        self.num_actions = num_actions
        self.width = 0
        n_in = self.input_size
        for wi, bi in layers:
            wi = np.asarray(wi, dtype=np.float32)
            bi = np.asarray(bi, dtype=np.float32).reshape(-1)
            if wi.ndim != 2 or wi.shape[0] != n_in or bi.shape[0] != wi.shape[1]:
                raise ValueError(f"layer {len(self._packed)}: weights {wi.shape} and biases "
                                 f"{bi.shape} do not follow {n_in} inputs")
            n_out = wi.shape[1]
            width = (n_out + NET_BLOCK - 1) // NET_BLOCK * NET_BLOCK
            w = np.zeros((n_in, width), np.float32)
            w[:, :n_out] = wi
            b = np.zeros(width, np.float32)
            b[:n_out] = bi
            self._packed.append((w, b, n_in, n_out, width))
            self.width = max(self.width, width)
            n_in = n_out
        if n_in != num_actions + 1:
            raise ValueError(f"the head has {n_in} outputs; {num_actions} actions need "
                             f"{num_actions + 1} (the logits, then the value)")
        self.model.layers = <NetLayer*>malloc(len(self._packed) * sizeof(NetLayer))
        if self.model.layers == NULL:
            raise MemoryError()
        for i, (w, b, n_in, n_out, width) in enumerate(self._packed):
            self.model.layers[i].w = <const float*>cnp.PyArray_DATA(w)
            self.model.layers[i].b = <const float*>cnp.PyArray_DATA(b)
            self.model.layers[i].n_in = n_in
            self.model.layers[i].n_out = n_out
            self.model.layers[i].width = width
        self.model.n_layers = len(self._packed)
        self.model.input_size = self.input_size
        self.model.num_actions = num_actions
        self.model.width = self.width

    def __dealloc__(self):
        free(self.model.layers)

    @property
    def layers(self):
        """``[(n_in, n_out), ...]`` of every layer, the head last."""
        return [(n_in, n_out) for _, _, n_in, n_out, _ in self._packed]


cdef object net_model_forward(const NetModel* model, observations):
    """``CompiledModel.forward`` of ``model``."""
    obs = np.ascontiguousarray(observations, dtype=np.int8)
    rows = obs.shape[0] if obs.ndim else 0
    entries = int(np.prod(obs.shape[1:])) if obs.ndim else 0
    if entries != model.input_size:
        raise ValueError(f"observations of {entries} entries, the network takes "
                         f"{model.input_size}")
    obs = obs.reshape(rows, model.input_size)
    logits = np.empty((rows, model.num_actions), np.float32)
    values = np.empty(rows, np.float32)
    floats = np.empty(net_scratch_floats(model), np.float32)
    ints = np.empty(net_scratch_ints(model), np.int32)
    cdef NetScratch s
    cdef bint ok = True
    cdef const int8_t[:, ::1] o = obs
    cdef float[:, ::1] lg = logits
    cdef float[::1] v = values
    cdef float[::1] fl = floats
    cdef int32_t[::1] it = ints
    cdef int n = rows
    if n == 0:
        return logits, values
    net_scratch_bind(&s, model, &fl[0], &it[0])
    with nogil:
        ok = net_forward(model, &o[0, 0], n, &lg[0, 0], &v[0], &s)
    if not ok:
        raise ValueError("the network's output is not finite (NaN or an overflow)")
    return logits, values
