# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The value network's compiled evaluator (the accumulator of valuenet.pxd)
for Python: ``CompiledValueNet`` holds one network's weights, float32 or
quantised to int16, and gives the value and the features of a board; the
searches (mcts.pyx) read its ``VNet`` without the GIL.

Quantisation (``quantised=True``): ``q1``, the accumulator's unit (the clip's
top), is the largest power of two up to 1024 for which ``|b1| + sum over every
feature of |W1[f]|`` (a bound on any position's accumulator, per unit) times
``q1`` fits int16; weights that need ``q1 < VN_MIN_Q1`` are refused.  ``q2``,
the unit of ``w2``, is the largest power of two up to 2**14 that keeps
``|w2| * q2`` in int16 and ``q1 * q2 * sum |w2|`` below 2**30 (the int32 dot
product).  The value then differs from the float network's by the rounding of
the weights (``quantisation_step``: a bound, measured in the tests).
"""
from libc.stdint cimport int16_t, int32_t, uint64_t
from libc.string cimport memcmp
from libc.time cimport clock, clock_t, CLOCKS_PER_SEC
from ttt_engine._core.core.features cimport FeatureDiff, FEATURES_MAX
from ttt_engine._core.core.rng cimport rng_t, rng_seed, rng_below
from ttt_engine._core.core.clock cimport now_monotonic
from ttt_engine._core.algorithms.game cimport (
    GameState, GameBoard, MAX_MOVES, GAME_ONGOING, game_legal_moves, game_make, game_status,
)
from ttt_engine._core.algorithms.game cimport game_init_tables
from ttt_engine._core.algorithms.game_features cimport (
    game_key, game_feature_shape, game_features,
)
import math
import re
import numpy as np
cimport numpy as cnp
from ttt_engine._util import INT64_MAX, check_int, resolve_seed

cnp.import_array()
game_init_tables()   # every game's lookup tables

#: The smallest accumulator unit a quantised network may have (a weight's
#: rounding step is 1 / q1).
VN_MIN_Q1 = 64
VN_MAX_Q1 = 1024
VN_MAX_Q2 = 1 << 14
#: Deepest push in ``walk`` / ``bench_walk`` (plies from the start position).
MAX_PLY = 512

_NAME = re.compile(r"^([a-z][a-z0-9_]*)(?:-(\d+)x(\d+))?-v(\d+)$")


def feature_set_of(board):
    """The feature-set name of ``board``: ``<key>-v<version>``, or
    ``<key>-<R>x<C>-v<version>`` for a game with sizes (docs/valuenet.md)."""
    try:
        return _feature_set(board)
    except TypeError:
        raise ValueError(f"board must be a ttt_engine game Board, got "
                         f"{type(board).__name__}") from None


def _feature_set(GameBoard board):
    cdef int rows = 0, cols = 0, version = 0
    game_feature_shape(&board.state, &rows, &cols, &version)
    key = (<bytes>game_key(&board.state)).decode()
    return f"{key}-{rows}x{cols}-v{version}" if rows else f"{key}-v{version}"


def _num_features(GameBoard board):
    cdef int rows, cols, version
    return game_feature_shape(&board.state, &rows, &cols, &version)


def _features(GameBoard board):
    cdef int32_t buf[FEATURES_MAX]
    cdef int n = game_features(&board.state, buf)
    return np.array([buf[i] for i in range(n)], dtype=np.int32)


cdef void* _data(cnp.ndarray a):
    """Where the C-contiguous array ``a`` keeps its elements (alive as long as ``a``)."""
    return cnp.PyArray_DATA(a)


def _array(name, value, shape, what):
    try:
        a = np.asarray(value)
    except Exception:
        raise ValueError(f"{what}: {name} is not an array") from None
    if a.dtype.kind not in "fiu":
        raise ValueError(f"{what}: {name} must be a float32 array, got dtype {a.dtype}")
    if a.shape != shape:
        raise ValueError(f"{what}: {name} has shape {a.shape}, expected {shape}")
    a = a.astype(np.float32)
    if not np.all(np.isfinite(a)):
        raise ValueError(f"{what}: {name} holds NaN or infinite values")
    return a


def _pow2_at_most(x, cap):
    """The largest power of two <= min(x, cap) (0 when x < 1)."""
    if x < 1:
        return 0
    return min(cap, 1 << int(math.floor(math.log2(x))))


cdef class CompiledValueNet:
    """A value network for the compiled searches.

    ``CompiledValueNet(w1, b1, w2, b2, feature_set, quantised=False)``:
    ``w1`` (F, H), ``b1`` (H,), ``w2`` (H,), ``b2`` a number; ``feature_set``
    the name of the inputs (``"uttt-v1"``, ``"clobber-6x5-v1"``, ...), which
    a board must have (``feature_set_of(board)``) to be evaluated.
    ``quantised``: int16 accumulator (see the module's docstring), else float32.

    >>> import numpy as np
    >>> from ttt_engine.uttt import Board
    >>> rng = np.random.default_rng(0)
    >>> net = CompiledValueNet(rng.normal(0, .1, (199, 32)), np.zeros(32), rng.normal(0, .1, 32),
    ...                        0.0, "uttt-v1")
    >>> -1 < net.value(Board()) < 1
    True
    """

    def __init__(self, w1, b1, w2, b2, feature_set, *, quantised=False):
        what = "value network"
        if not isinstance(feature_set, str) or not _NAME.match(feature_set):
            raise ValueError(f"{what}: feature_set must be a name like 'uttt-v1' or "
                             f"'clobber-6x5-v1', got {feature_set!r}")
        w1a = np.asarray(w1) if not isinstance(w1, np.ndarray) else w1
        if getattr(w1a, "ndim", 0) != 2 or w1a.shape[0] < 1 or w1a.shape[1] < 1:
            raise ValueError(f"{what}: w1 must be a 2-d array (features, hidden), got shape "
                             f"{getattr(w1a, 'shape', None)}")
        F, H = int(w1a.shape[0]), int(w1a.shape[1])
        if F > FEATURES_MAX:
            raise ValueError(f"{what}: w1 has {F} feature rows, more than any game has "
                             f"({FEATURES_MAX})")
        w1a = _array("w1", w1a, (F, H), what)
        b1a = _array("b1", b1, (H,), what)
        w2a = _array("w2", w2, (H,), what)
        b2a = _array("b2", b2, (), what)
        self.feature_set = feature_set
        self.num_features = F
        self.hidden = H
        self.quantised = bool(quantised)
        hp = (H + VN_LANES - 1) // VN_LANES * VN_LANES
        pad = ((0, 1), (0, hp - H))          # and a row of zeros (vn_apply's filler)
        # the float weights (kept in both modes: the reference of the quantised ones)
        self._w1 = np.ascontiguousarray(np.pad(w1a, pad))
        self._b1 = np.ascontiguousarray(np.pad(b1a, (0, hp - H)))
        self._w2 = np.ascontiguousarray(np.pad(w2a, (0, hp - H)))
        self.net.nfeatures = F
        self.net.hidden = H
        self.net.hp = hp
        self.net.b2 = float(b2a)
        self.net.quantised = self.quantised
        self.q1 = self.q2 = 0
        self.net.w1 = <float*>_data(self._w1)
        self.net.b1 = <float*>_data(self._b1)
        self.net.w2 = <float*>_data(self._w2)
        self.net.acc_bytes = hp * (2 if self.quantised else 4)
        if self.quantised:
            self._quantise(what)

    cdef _quantise(self, what):
        w1, b1, w2 = self._w1.astype(np.float64), self._b1.astype(np.float64), \
            self._w2.astype(np.float64)
        bound = float(np.max(np.abs(b1) + np.abs(w1).sum(axis=0)))
        q1 = _pow2_at_most(32767.0 / bound, VN_MAX_Q1) if bound > 0 else VN_MAX_Q1
        if q1 < VN_MIN_Q1:
            raise ValueError(
                f"{what}: weights too large for the int16 accumulator: a position's "
                f"accumulator could reach {bound:.4g}, and {bound:.4g} * {VN_MIN_Q1} (the "
                f"smallest unit allowed) exceeds 32767; use the float32 evaluator")
        w2max, w2sum = float(np.max(np.abs(w2))), float(np.sum(np.abs(w2)))
        q2 = VN_MAX_Q2
        if w2max > 0:
            q2 = min(q2, _pow2_at_most(32767.0 / w2max, VN_MAX_Q2))
        if w2sum > 0:
            q2 = min(q2, _pow2_at_most(float(1 << 30) / (q1 * w2sum), VN_MAX_Q2))
        if q2 < 1:
            raise ValueError(f"{what}: w2 too large for the int32 output of the int16 "
                             f"evaluator (sum |w2| = {w2sum:.4g}); use the float32 evaluator")
        self._w1q = np.ascontiguousarray(np.rint(w1 * q1).astype(np.int16))
        self._b1q = np.ascontiguousarray(np.rint(b1 * q1).astype(np.int16))
        self._w2q = np.ascontiguousarray(np.rint(w2 * q2).astype(np.int16))
        self.q1, self.q2 = int(q1), int(q2)
        self.net.w1q = <int16_t*>_data(self._w1q)
        self.net.b1q = <int16_t*>_data(self._b1q)
        self.net.w2q = <int16_t*>_data(self._w2q)
        self.net.q1 = <int16_t>q1
        self.net.out_scale = <float>(1.0 / (q1 * q2))

    @classmethod
    def from_network(cls, network, *, quantised=None):
        """From a ``ttt_engine.valuenet.ValueNetwork`` (or any object, or
        dict, with ``w1``, ``b1``, ``w2``, ``b2`` and a ``feature_set`` name),
        or a ``CompiledValueNet`` (itself when it has the number type asked
        for).  ``quantised``: True int16, False float32, None (default) int16
        when the weights fit it (the faster, docs/valuenet.md), else float32."""
        if isinstance(network, CompiledValueNet):
            if quantised is None or bool(quantised) == network.quantised:
                return network
            network = network.as_arrays()
        names = ("w1", "b1", "w2", "b2")
        if isinstance(network, dict):
            get = network.get
        else:
            def get(k):
                return getattr(network, k, None)
        values = [get(k) for k in names]
        fs = get("feature_set")
        if fs is None and isinstance(get("features"), str):
            fs = get("features")
        if any(v is None for v in values) or fs is None:
            raise ValueError(f"value network: expected a ValueNetwork (w1, b1, w2, b2, "
                             f"feature_set), got {type(network).__name__}")
        if quantised is None:
            try:
                return cls(*values, fs, quantised=True)
            except ValueError as exc:
                if "too large" not in str(exc):
                    raise
                quantised = False
        return cls(*values, fs, quantised=quantised)

    def as_arrays(self):
        """``{"w1", "b1", "w2", "b2", "feature_set"}`` (the float weights as given)."""
        H = self.hidden
        return {"w1": self._w1[:self.num_features, :H].copy(), "b1": self._b1[:H].copy(),
                "w2": self._w2[:H].copy(), "b2": np.float32(self.net.b2),
                "feature_set": self.feature_set}

    def __reduce__(self):
        a = self.as_arrays()
        return (_rebuild, (a["w1"], a["b1"], a["w2"], a["b2"], a["feature_set"],
                           self.quantised))

    def __repr__(self):
        kind = f"int16, q1={self.q1}, q2={self.q2}" if self.quantised else "float32"
        return (f"CompiledValueNet({self.feature_set!r}, features={self.num_features}, "
                f"hidden={self.hidden}, {kind})")

    @property
    def quantisation_step(self):
        """The accumulator's step, 1 / q1 (0.0 for float32): with n active
        features the value is within ``(n + 1) / 2`` steps times ``sum |w2|``,
        plus ``H / (2 q2)``, of the float network's (every weight rounded by
        at most half a step; tanh's slope is at most 1)."""
        return 1.0 / self.q1 if self.quantised else 0.0

    def check_board(self, board):
        """``ValueError`` (one line) unless ``board`` has this network's feature set."""
        fs = feature_set_of(board)
        if fs != self.feature_set:
            raise ValueError(f"value network for feature set {self.feature_set!r} cannot "
                             f"evaluate a board of feature set {fs!r}")
        n = _num_features(board)
        if n != self.num_features:
            raise ValueError(f"value network for {self.feature_set!r} has {self.num_features} "
                             f"input features, its boards have {n}")

    def features(self, board):
        """The active features of ``board`` (int32, ascending), as the compiled
        searches read them."""
        self.check_board(board)
        return _features(board)

    def value(self, board):
        """The network's value of ``board`` for its side to move, in (-1, 1),
        from a fresh accumulator."""
        self.check_board(board)
        return _value(self, board)

    def walk(self, board, steps, seed=0, max_ply=64):
        """A search-like random walk from ``board``: ``steps`` times, push a
        random legal move (accumulator updated from its parent's by the move's
        feature change) or pop back (the parent's accumulator taken again),
        comparing at every position the incremental value with one from a
        fresh accumulator.  Returns ``(positions, max |incremental - fresh|,
        accumulators equal)``: the last is True when every incremental
        accumulator equals the fresh one exactly (the int16 accumulator does)."""
        self.check_board(board)
        steps = check_int("steps", steps, min=0, max=INT64_MAX)
        max_ply = check_int("max_ply", max_ply, min=1, max=MAX_PLY)
        return _walk(self, board, steps, resolve_seed(seed), max_ply)

    def bench_walk(self, board, evaluations, seed=0, depth=8):
        """Timing of the incremental evaluation: random descents of ``depth``
        plies from ``board`` (copy-make, the move's feature change onto the
        parent's accumulator, the value), each ply taken back by popping the
        stack, until ``evaluations`` values; returns ``(evaluations, seconds,
        processor seconds, sum of the values)`` (the processor time of the
        process: on a shared machine the wall time counts other programs' turns).  For bench/valuenet_bench.py."""
        self.check_board(board)
        evaluations = check_int("evaluations", evaluations, min=1, max=INT64_MAX)
        depth = check_int("depth", depth, min=1, max=MAX_PLY)
        return _bench_walk(self, board, evaluations, resolve_seed(seed), depth)


def _rebuild(w1, b1, w2, b2, feature_set, quantised):
    return CompiledValueNet(w1, b1, w2, b2, feature_set, quantised=quantised)


def _value(CompiledValueNet net, GameBoard board):
    cdef object buf = np.empty(net.net.acc_bytes, dtype=np.uint8)
    cdef unsigned char[::1] acc = buf
    cdef float v
    with nogil:
        vn_refresh_state(&net.net, &acc[0], &board.state)
        v = vn_output(&net.net, &acc[0])
    return float(v)


cdef void _walk_run(const VNet* net, const GameState* root, char* states_buf, char* accs,
                    char* fresh, uint64_t steps, rng_t* rng, int max_ply, uint64_t* count,
                    double* maxdiff, bint* same) noexcept nogil:
    cdef GameState* states = <GameState*>states_buf
    cdef int moves[MAX_MOVES]
    cdef int ply = 0, n
    cdef uint64_t i
    cdef size_t ab = net.acc_bytes
    cdef FeatureDiff d
    cdef float v, w
    states[0] = root[0]
    vn_refresh_state(net, accs, &states[0])
    for i in range(steps):
        n = game_legal_moves(&states[ply], moves) if ply < max_ply else 0
        if n and (ply == 0 or rng_below(rng, 4) != 0):
            states[ply + 1] = states[ply]
            game_make(&states[ply + 1], moves[rng_below(rng, n)])
            v = vn_value_after(net, accs + (ply + 1) * ab, accs + ply * ab,
                               &states[ply], &states[ply + 1], &d)
            ply += 1
        elif ply > 0:
            ply -= 1
            v = vn_output(net, accs + ply * ab)
        else:
            break
        vn_refresh_state(net, fresh, &states[ply])
        w = vn_output(net, fresh)
        if memcmp(fresh, accs + ply * ab, ab) != 0:
            same[0] = False
        if <double>(v - w) > maxdiff[0] or <double>(w - v) > maxdiff[0]:
            maxdiff[0] = <double>(v - w) if v > w else <double>(w - v)
        count[0] += 1


def _walk(CompiledValueNet net, GameBoard board, uint64_t steps, uint64_t seed, int max_ply):
    states_buf = np.empty((max_ply + 1) * sizeof(board.state), dtype=np.uint8)
    accs_buf = np.zeros((max_ply + 1) * net.net.acc_bytes, dtype=np.uint8)
    fresh_buf = np.zeros(net.net.acc_bytes, dtype=np.uint8)
    cdef unsigned char[::1] sb = states_buf, ab = accs_buf, fb = fresh_buf
    cdef uint64_t count = 0
    cdef double maxdiff = 0.0
    cdef bint same = True
    cdef rng_t rng
    rng_seed(&rng, seed)
    with nogil:
        _walk_run(&net.net, &board.state, <char*>&sb[0], <char*>&ab[0], <char*>&fb[0], steps,
                  &rng, max_ply, &count, &maxdiff, &same)
    return int(count), float(maxdiff), bool(same)


cdef double _bench_run(const VNet* net, const GameState* root, char* states_buf, char* accs,
                       uint64_t evals, rng_t* rng, int depth, double* total,
                       double* cpu) noexcept nogil:
    cdef GameState* states = <GameState*>states_buf
    cdef int moves[MAX_MOVES]
    cdef int ply = 0, n
    cdef uint64_t done = 0
    cdef size_t ab = net.acc_bytes
    cdef FeatureDiff d
    cdef float s = 0.0
    cdef double t0
    cdef clock_t c0
    states[0] = root[0]
    vn_refresh_state(net, accs, &states[0])
    t0 = now_monotonic()
    c0 = clock()
    while done < evals:
        n = game_legal_moves(&states[ply], moves) if ply < depth else 0
        if n == 0:
            ply = 0              # back to the root: the stack's accumulators stand
            continue
        states[ply + 1] = states[ply]
        game_make(&states[ply + 1], moves[rng_below(rng, n)])
        s += vn_value_after(net, accs + (ply + 1) * ab, accs + ply * ab,
                            &states[ply], &states[ply + 1], &d)
        ply += 1
        done += 1
    total[0] = s
    cpu[0] = <double>(clock() - c0) / CLOCKS_PER_SEC
    return now_monotonic() - t0


def _bench_walk(CompiledValueNet net, GameBoard board, uint64_t evals, uint64_t seed, int depth):
    states_buf = np.empty((depth + 1) * sizeof(board.state), dtype=np.uint8)
    accs_buf = np.zeros((depth + 1) * net.net.acc_bytes + 64, dtype=np.uint8)
    cdef unsigned char[::1] sb = states_buf, ab = accs_buf
    cdef rng_t rng
    cdef double seconds, total = 0.0, cpu = 0.0
    cdef size_t off = (64 - (<size_t>&ab[0]) % 64) % 64
    rng_seed(&rng, seed)
    with nogil:
        seconds = _bench_run(&net.net, &board.state, <char*>&sb[0], <char*>&ab[0] + off, evals,
                             &rng, depth, &total, &cpu)
    return int(evals), float(seconds), float(cpu), float(total)
