"""A small policy-value network for PUCT, evaluated in plain numpy.

:class:`Network` is a multilayer perceptron over the observation planes of a
game (``Board.observation()``, flattened): hidden layers with ReLU (default
two of 256), a policy head (one logit per action) and a value head (``tanh``,
the value of the position for the side to move).  Calling it is the evaluator
protocol of the PUCT search and of self-play::

    net = Network.init("uttt", seed=1)
    logits, values = net(observations, legal_mask)   # float32 [B, A], float32 [B]

Inference needs only numpy (float32 matrix products on one BLAS thread, which
is faster at these sizes and never stalls on a busy machine; hidden buffers
reused between calls of the same batch size in each thread).  That is the
reference and the training path; the PUCT search runs the same function
compiled (:attr:`Network.compiled`, ``src/engine/algorithms/network.pxd``:
float32, skipping zero inputs, without the GIL) inside its own loop, never
calling back into Python.  Training needs the
``[nn]`` extra (JAX and optax): see :mod:`ttt_engine.alphazero`, whose JAX forward
pass computes exactly this function.

Files: ``net.save(path)`` / ``Network.load(path)`` (also ``ttt_engine.load``)
write and read a model file (kind ``ttt_engine.Network``, atomic, versioned, no
pickle) holding the game key, the board options, the observation shape, the
number of actions, the hidden sizes and the weights.  A network is picklable
(by its arrays), so it can travel to the workers of an executor.
"""
from __future__ import annotations

import json
import os
import threading

import numpy as np

from ttt_engine import _modelfile, _parallel, _util, games

__all__ = ["Network", "DEFAULT_HIDDEN"]

#: Hidden layer sizes of :meth:`Network.init` by default.
DEFAULT_HIDDEN = (256, 256)
#: Model-file kind of a network.
KIND = "ttt_engine.Network"
_MAX_HIDDEN = 1 << 16


def _game(game):
    """The registry entry of ``game`` (a key such as ``"ttt"`` or a ``Game``)."""
    if isinstance(game, games.Game):
        return game
    if not isinstance(game, str):
        raise ValueError(f"game must be a game key ({', '.join(games.GAMES)}), got {game!r}")
    return games.get(game)


def _describe(game_key, options, obs_shape, num_actions):
    title = games.GAMES[game_key].title if game_key in games.GAMES else repr(game_key)
    opts = ", ".join(f"{k}={v!r}" for k, v in sorted(options.items()))
    shape = "x".join(map(str, obs_shape))
    return (f"{title}{f' ({opts})' if opts else ''}: observations {shape}, "
            f"{num_actions} actions")


def _board_facts(game, options):
    """(game, full options, observation shape, num_actions) of a new board."""
    g = _game(game)
    board = g.new_board(**options)
    full = dict(g.options, **options)
    return g, full, tuple(int(n) for n in board.observation().shape), int(board.num_actions)


def _check_hidden(hidden):
    if isinstance(hidden, (int, np.integer)) and not isinstance(hidden, bool):
        hidden = (int(hidden),)
    try:
        hidden = tuple(hidden)
    except TypeError:
        raise ValueError(f"hidden must be a sequence of layer sizes, got {hidden!r}") from None
    if not hidden:
        raise ValueError("hidden must name at least one hidden layer size, got ()")
    return tuple(_util.check_int("hidden layer size", h, min=1, max=_MAX_HIDDEN) for h in hidden)


def _param_names(layers):
    names = []
    for i in range(layers):
        names += [f"w{i}", f"b{i}"]
    return names + ["wp", "bp", "wv", "bv"]


class Network:
    """A policy-value MLP for one game and board size; the PUCT evaluator.

    Build one with :meth:`init` (random He initialisation) or :meth:`load`;
    the constructor takes the weights themselves (``params``: name -> array,
    ``w0, b0, w1, b1, ..., wp, bp, wv, bv``; see :meth:`param_shapes`).

    ``net(observations, legal_mask)``: ``observations`` int8 ``[B, *obs_shape]``
    (any numeric dtype is accepted), ``legal_mask`` bool ``[B, num_actions]``
    (checked, not used: the search ignores illegal actions' logits).  Returns
    ``(logits float32 [B, num_actions], values float32 [B])``, new arrays.
    Several threads may call one network at once (each has its own buffers).
    """

    #: :class:`~ttt_engine.search.PUCT` with ``threads > 1`` calls it from
    #: several threads at once
    thread_safe = True

    def __init__(self, game, params, *, board_options=None, hidden=None):
        options = dict(board_options or {})
        self.game_key = _game(game).key
        g, self.board_options, self.obs_shape, self.num_actions = _board_facts(self.game_key,
                                                                               options)
        self.input_size = int(np.prod(self.obs_shape))
        if hidden is None:
            hidden = tuple(int(np.shape(params[f"w{i}"])[1]) for i in range(len(params))
                           if f"w{i}" in params)
        self.hidden = _check_hidden(hidden)
        self.params = self._check_params(params)
        self._prepare()

    # ------------------------------------------------------------ construction
    @classmethod
    def init(cls, game, *, hidden=DEFAULT_HIDDEN, seed=None, **board_options):
        """A new network for ``game`` (a registry key or ``Game``) with the
        given board options, He-initialised from ``seed`` (biases zero; the
        heads' weights scaled down so the first policy is near uniform and the
        first values near 0)."""
        g, full, obs_shape, num_actions = _board_facts(game, board_options)
        hidden = _check_hidden(hidden)
        rng = np.random.default_rng(_util.resolve_seed(seed))
        sizes = [int(np.prod(obs_shape)), *hidden]
        params = {}
        for i in range(len(hidden)):
            params[f"w{i}"] = rng.normal(0.0, np.sqrt(2.0 / sizes[i]),
                                         (sizes[i], sizes[i + 1]))
            params[f"b{i}"] = np.zeros(sizes[i + 1])
        last = sizes[-1]
        params["wp"] = rng.normal(0.0, 0.1 * np.sqrt(1.0 / last), (last, num_actions))
        params["bp"] = np.zeros(num_actions)
        params["wv"] = rng.normal(0.0, 0.1 * np.sqrt(1.0 / last), (last, 1))
        params["bv"] = np.zeros(1)
        return cls(g, params, board_options=board_options, hidden=hidden)

    @classmethod
    def param_shapes(cls, input_size, hidden, num_actions):
        """name -> shape of every weight of a network with these sizes."""
        sizes = [int(input_size), *hidden]
        shapes = {}
        for i in range(len(hidden)):
            shapes[f"w{i}"] = (sizes[i], sizes[i + 1])
            shapes[f"b{i}"] = (sizes[i + 1],)
        shapes.update(wp=(sizes[-1], num_actions), bp=(num_actions,), wv=(sizes[-1], 1),
                      bv=(1,))
        return shapes

    def _check_params(self, params):
        if not isinstance(params, dict):
            raise ValueError(f"params must be a dict of weight arrays, got {type(params).__name__}")
        shapes = self.param_shapes(self.input_size, self.hidden, self.num_actions)
        missing = [k for k in shapes if k not in params]
        extra = sorted(set(params) - set(shapes))
        if missing or extra:
            raise ValueError(f"network weights do not match {len(self.hidden)} hidden layer(s): "
                             f"missing {missing or 'none'}, unexpected {extra or 'none'}")
        out = {}
        for name, shape in shapes.items():
            a = np.asarray(params[name])
            if a.dtype.kind not in "fiu":
                raise ValueError(f"weight {name!r} must be numeric, got dtype {a.dtype}")
            if a.shape != shape:
                raise ValueError(f"weight {name!r} must have shape {shape} for "
                                 f"{self.describe()} and hidden {self.hidden}, got {a.shape}")
            a = np.ascontiguousarray(a, dtype=np.float32)
            if not np.isfinite(a).all():
                raise ValueError(f"weight {name!r} has non-finite entries (NaN or inf)")
            out[name] = a
        return out

    def _prepare(self):
        """Derived arrays for inference: the two heads fused into one matrix."""
        p = self.params
        self._trunk = [(p[f"w{i}"], p[f"b{i}"]) for i in range(len(self.hidden))]
        self._head_w = np.ascontiguousarray(np.concatenate([p["wp"], p["wv"]], axis=1))
        self._head_b = np.concatenate([p["bp"], p["bv"]])
        self._local = threading.local()
        self._compiled = None

    @property
    def compiled(self):
        """The weights packed for the compiled forward pass (a
        ``CompiledNetwork``, made at first use): PUCT evaluates its leaves with
        it in C, without the GIL, instead of calling the network.  None for a
        subclass that changes the forward pass (it is then called as any
        evaluator)."""
        cls = type(self)
        if cls.__call__ is not Network.__call__ or cls._forward is not Network._forward:
            return None
        c = self._compiled
        if c is None:
            from ttt_engine._core.algorithms.network import CompiledNetwork
            c = CompiledNetwork(self._trunk + [(self._head_w, self._head_b)], self.num_actions)
            self._compiled = c
        return c

    def set_params(self, params):
        """Replace the weights (same shapes; e.g. after a training step)."""
        self.params = self._check_params(params)
        self._prepare()

    def copy(self):
        """An independent copy."""
        return Network(self.game_key, {k: v.copy() for k, v in self.params.items()},
                       board_options=self.board_options, hidden=self.hidden)

    # ------------------------------------------------------------ description
    def describe(self):
        """``"Tic-Tac-Toe: observations 2x3x3, 9 actions"`` (options included)."""
        return _describe(self.game_key, self._shape_options(), self.obs_shape, self.num_actions)

    def _shape_options(self):
        defaults = games.GAMES[self.game_key].options
        return {k: v for k, v in self.board_options.items() if defaults.get(k) != v}

    @property
    def name(self):
        """How messages name this evaluator: ``Network(uttt, 243-256-256-81)``."""
        sizes = "-".join(map(str, (self.input_size, *self.hidden, self.num_actions)))
        return f"Network({self.game_key}, {sizes})"

    @property
    def num_parameters(self):
        return int(sum(a.size for a in self.params.values()))

    def __repr__(self):
        return (f"Network({self.game_key!r}, hidden={self.hidden}, "
                f"board_options={self.board_options}, parameters={self.num_parameters:,})")

    def check_game(self, game, **board_options):
        """``ValueError`` naming both unless this network fits boards of ``game``
        with ``board_options`` (the same game, observation shape and actions)."""
        g, full, shape, n = _board_facts(game, board_options)
        if g.key != self.game_key or shape != self.obs_shape or n != self.num_actions:
            raise ValueError(f"this network is for {self.describe()}, not for "
                             f"{_describe(g.key, board_options, shape, n)}")
        return self

    def check_board(self, board):
        """``ValueError`` naming both unless ``board`` is a board this network evaluates."""
        g = _game(self.game_key)
        ok = isinstance(board, g.Board)
        if ok:
            shape = tuple(board.observation().shape)
            ok = shape == self.obs_shape and board.num_actions == self.num_actions
        if not ok:
            what = type(board).__module__ + "." + type(board).__name__
            if hasattr(board, "observation") and hasattr(board, "num_actions"):
                what += (f" (observations {'x'.join(map(str, board.observation().shape))}, "
                         f"{board.num_actions} actions)")
            raise ValueError(f"this network is for {self.describe()}, not for a {what}")
        return self

    # ------------------------------------------------------------ evaluation
    def _buffers(self, batch):
        """Per-thread float32 buffers of the input and hidden layers for ``batch``."""
        local = self._local
        bufs = getattr(local, "bufs", None)
        if bufs is None or bufs[0].shape[0] != batch:
            bufs = [np.empty((batch, self.input_size), np.float32)]
            bufs += [np.empty((batch, h), np.float32) for h in self.hidden]
            local.bufs = bufs
        return bufs

    def _check_input(self, observations, legal_mask):
        obs = observations
        if not isinstance(obs, np.ndarray):
            obs = np.asarray(obs)
        if obs.ndim != len(self.obs_shape) + 1 or obs.shape[1:] != self.obs_shape:
            want = "x".join(map(str, ("B",) + self.obs_shape))
            raise ValueError(f"observations must have shape {want} for {self.describe()}; "
                             f"got shape {'x'.join(map(str, obs.shape)) or '()'}")
        if obs.dtype.kind not in "biuf":
            raise ValueError(f"observations must be numeric (int8 planes), got dtype {obs.dtype}")
        if legal_mask is not None:
            m = np.shape(legal_mask)
            if m != (obs.shape[0], self.num_actions):
                raise ValueError(f"legal_mask must have shape {obs.shape[0]}x{self.num_actions} "
                                 f"for {obs.shape[0]} observations of {self.describe()}; "
                                 f"got shape {'x'.join(map(str, m)) or '()'}")
        return obs

    def forward(self, observations):
        """``(logits, values)`` of ``observations`` ``[B, *obs_shape]`` (see the class)."""
        obs = self._check_input(observations, None)
        return self._forward(obs)

    def __call__(self, observations, legal_mask=None):
        obs = self._check_input(observations, legal_mask)
        return self._forward(obs)

    def _forward(self, obs):
        batch = obs.shape[0]
        bufs = self._buffers(batch)
        x = bufs[0]
        np.copyto(x, obs.reshape(batch, self.input_size), casting="unsafe")
        with _parallel.one_blas_thread():
            for (w, b), h in zip(self._trunk, bufs[1:]):
                np.matmul(x, w, out=h)
                h += b
                np.maximum(h, 0.0, out=h)
                x = h
            out = x @ self._head_w
        out += self._head_b
        logits = np.ascontiguousarray(out[:, :self.num_actions])
        values = np.tanh(out[:, self.num_actions])
        return logits, values

    # ------------------------------------------------------------ files, pickling
    def save(self, path):
        """Write the network to ``path`` as a model file (atomic; fields:
        ``game``, ``board_options`` (JSON), ``obs_shape``, ``num_actions``,
        ``hidden`` and the weights ``w0, b0, ..., wp, bp, wv, bv`` in float32).
        Returns the file size in bytes."""
        return _modelfile.write(path, KIND, self._fields())

    def _fields(self):
        fields = {
            "game": np.str_(self.game_key),
            "board_options": np.str_(json.dumps(self.board_options, sort_keys=True)),
            "obs_shape": np.array(self.obs_shape, np.int64),
            "num_actions": np.int64(self.num_actions),
            "hidden": np.array(self.hidden, np.int64),
        }
        fields.update({f"param_{k}": v for k, v in self.params.items()})
        return fields

    @classmethod
    def _from_fields(cls, path, raw):
        missing = [k for k in ("game", "board_options", "obs_shape", "num_actions", "hidden")
                   if k not in raw]
        if missing:
            raise ValueError(f"{path}: missing field(s): {', '.join(missing)}")
        game = _modelfile.scalar(path, raw, "game", "U")
        try:
            options = json.loads(_modelfile.scalar(path, raw, "board_options", "U"))
        except json.JSONDecodeError as e:
            raise ValueError(f"{path}: field 'board_options' is not JSON: {e}") from None
        if not isinstance(options, dict):
            raise ValueError(f"{path}: field 'board_options' must be a JSON object")
        hidden = raw["hidden"]
        if hidden.ndim != 1 or hidden.dtype.kind not in "iu":
            raise ValueError(f"{path}: field 'hidden' must be a list of integers")
        params = {k[len("param_"):]: v for k, v in raw.items() if k.startswith("param_")}
        try:
            net = cls(game, params, board_options=options, hidden=tuple(int(h) for h in hidden))
        except ValueError as e:
            raise ValueError(f"{path}: {e}") from None
        stored = (tuple(int(n) for n in raw["obs_shape"]),
                  _modelfile.scalar(path, raw, "num_actions", "iu"))
        if stored != (net.obs_shape, net.num_actions):
            raise ValueError(f"{path}: the file says observations "
                             f"{'x'.join(map(str, stored[0]))} and {stored[1]} actions, but "
                             f"{net.describe()}")
        return net

    @classmethod
    def load(cls, path, game=None, **board_options):
        """Read a network written by :meth:`save`.  With ``game`` (and board
        options), also check that the network fits that game: a network of
        another game or shape is a ``ValueError`` naming both."""
        path = os.fspath(path)
        raw = _modelfile.read(path, KIND)
        net = cls._from_fields(path, raw)
        if game is not None:
            try:
                net.check_game(game, **board_options)
            except ValueError as e:
                raise ValueError(f"{path}: {e}") from None
        return net

    def __getstate__(self):
        return {"game": self.game_key, "board_options": self.board_options,
                "hidden": self.hidden, "params": self.params}

    def __setstate__(self, state):
        # fresh, aligned copies: arrays unpickled from a Dask message are views into
        # it at any alignment, and the products on them ran 4-6 times slower
        params = {k: np.array(v, copy=True) for k, v in state["params"].items()}
        self.__init__(state["game"], params, board_options=state["board_options"],
                      hidden=state["hidden"])

    def __eq__(self, other):
        if not isinstance(other, Network):
            return NotImplemented
        return (self.game_key == other.game_key and self.board_options == other.board_options
                and self.hidden == other.hidden
                and all(np.array_equal(self.params[k], other.params[k]) for k in self.params))

    __hash__ = None

