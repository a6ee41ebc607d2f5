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

Two architectures (``architecture=``): ``"mlp"`` (the default, above) and
``"conv"``, a small residual convolutional network for boards whose
observation is planes x rows x cols: a 3x3 convolution to ``channels``
channels, ``blocks`` residual blocks of two 3x3 convolutions (ReLU, no batch
normalisation, so the forward pass is a pure function of the weights), then a
policy head (1x1 convolution to ``POLICY_PLANES`` planes, dense to the
actions) and a value head (1x1 convolution to ``VALUE_PLANES`` planes,
dense to ``VALUE_HIDDEN`` units, dense to one, ``tanh``).  Its maps are
channels-last (rows, cols, channels), its 3x3 kernels ``[3, 3, in, out]`` and
the heads' dense layers read their planes flattened in that order.

Files: ``net.save(path)`` / ``Network.load(path)`` (also ``ttt_engine.load``)
write and read a model file (kind ``ttt_engine.Network``, atomic, versioned, no
pickle) holding the game key, the board options, the observation shape, the
number of actions, the architecture (a file without one is an MLP), its sizes
and the weights.  A network is picklable
(by its arrays), so it can travel to the workers of an executor.
"""
from __future__ import annotations

import json
import os
import threading

import numpy as np

from ttt_engine import _modelfile, _parallel, _util, games

__all__ = ["Network", "DEFAULT_HIDDEN", "ARCHITECTURES"]

#: Hidden layer sizes of :meth:`Network.init` by default.
DEFAULT_HIDDEN = (256, 256)
#: The architectures a :class:`Network` may have.
ARCHITECTURES = ("mlp", "conv")
#: Channels and residual blocks of a ``"conv"`` network by default.
DEFAULT_CHANNELS = 32
DEFAULT_BLOCKS = 2
#: Its heads: the planes of the policy's and of the value's 1x1 convolution,
#: and the value's hidden units.
POLICY_PLANES = 2
VALUE_PLANES = 2
VALUE_HIDDEN = 64
_MAX_CHANNELS = 512
_MAX_BLOCKS = 32
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


def check_architecture(architecture, channels=None, blocks=None):
    """``(architecture, channels, blocks)`` checked (the sizes ``None`` for an MLP,
    their defaults for a conv network when ``None``); ``ValueError`` otherwise."""
    if architecture not in ARCHITECTURES:
        raise ValueError(f"architecture must be one of {', '.join(map(repr, ARCHITECTURES))}; "
                         f"got {architecture!r:.40}")
    if architecture == "mlp":
        return architecture, None, None
    channels = _util.check_int("channels", DEFAULT_CHANNELS if channels is None else channels,
                               min=1, max=_MAX_CHANNELS)
    blocks = _util.check_int("blocks", DEFAULT_BLOCKS if blocks is None else blocks,
                             min=0, max=_MAX_BLOCKS)
    return architecture, channels, blocks


def _check_planes(obs_shape, what):
    if len(obs_shape) != 3:
        raise ValueError(f"the conv architecture needs observations of planes x rows x cols; "
                         f"{what}")


def conv_param_shapes(obs_shape, channels, blocks, num_actions):
    """name -> shape of every weight of a ``"conv"`` network (weights' names
    start with ``w``, biases' with ``b``)."""
    planes, rows, cols = obs_shape
    cells = rows * cols
    shapes = {"w_stem": (3, 3, planes, channels), "b_stem": (channels,)}
    for i in range(blocks):
        for half in "ab":
            shapes[f"w_res{i}{half}"] = (3, 3, channels, channels)
            shapes[f"b_res{i}{half}"] = (channels,)
    shapes.update(w_phead=(channels, POLICY_PLANES), b_phead=(POLICY_PLANES,),
                  wp=(cells * POLICY_PLANES, num_actions), bp=(num_actions,),
                  w_vhead=(channels, VALUE_PLANES), b_vhead=(VALUE_PLANES,),
                  w_vfc=(cells * VALUE_PLANES, VALUE_HIDDEN), b_vfc=(VALUE_HIDDEN,),
                  wv=(VALUE_HIDDEN, 1), bv=(1,))
    return shapes


def _conv_init(rng, obs_shape, channels, blocks, num_actions):
    """He-initialised conv weights; each block's second convolution starts
    small, so a block starts near the identity and, without batch
    normalisation, the activations keep their scale through the blocks."""
    params = {}
    for name, shape in conv_param_shapes(obs_shape, channels, blocks, num_actions).items():
        if name.startswith("b"):
            params[name] = np.zeros(shape)
            continue
        fan_in = int(np.prod(shape[:-1]))
        std = np.sqrt(2.0 / fan_in)
        if name in ("wp", "wv"):
            std = 0.1 * np.sqrt(1.0 / fan_in)
        elif name.endswith("b") and name.startswith("w_res"):
            std *= 0.1
        params[name] = rng.normal(0.0, std, shape)
    return params


def _conv3x3(x, w, b):
    """``x`` float32 ``[B, rows, cols, in]`` convolved with ``w`` ``[9 * in,
    out]`` (a ``[3, 3, in, out]`` kernel, zero padding) plus ``b``: the 3x3
    patches side by side (im2col), one matrix product."""
    n, rows, cols, c = x.shape
    xp = np.zeros((n, rows + 2, cols + 2, c), np.float32)
    xp[:, 1:-1, 1:-1] = x
    patches = np.concatenate([xp[:, dy:dy + rows, dx:dx + cols]
                              for dy in range(3) for dx in range(3)], axis=-1)
    out = patches.reshape(n * rows * cols, 9 * c) @ w
    out += b
    return out.reshape(n, rows, cols, w.shape[1])


def _relu(x):
    return np.maximum(x, 0.0, out=x)


class Network:
    """A policy-value network for one game and board size; the PUCT evaluator.

    Build one with :meth:`init` (random He initialisation) or :meth:`load`;
    the constructor takes the weights themselves (``params``: name -> array;
    an MLP's ``w0, b0, w1, b1, ..., wp, bp, wv, bv``, see :meth:`param_shapes`;
    a conv network's ``conv_param_shapes``).  ``architecture`` is
    ``"mlp"`` or ``"conv"`` (default: read from the weights' names).

    ``net(observations, legal_mask)``: ``observations`` int8 ``[B, *obs_shape]``
    (any numeric dtype is accepted), ``legal_mask`` bool ``[B, num_actions]``
    (checked, not used: the search ignores illegal actions' logits).  Returns
    ``(logits float32 [B, num_actions], values float32 [B])``, new arrays.
    Several threads may call one network at once (each has its own buffers).
    """

    #: :class:`~ttt_engine.search.PUCT` with ``threads > 1`` calls it from
    #: several threads at once
    thread_safe = True

    def __init__(self, game, params, *, board_options=None, hidden=None, architecture=None,
                 channels=None, blocks=None):
        options = dict(board_options or {})
        self.game_key = _game(game).key
        g, self.board_options, self.obs_shape, self.num_actions = _board_facts(self.game_key,
                                                                               options)
        self.input_size = int(np.prod(self.obs_shape))
        if architecture is None:
            architecture = "conv" if isinstance(params, dict) and "w_stem" in params else "mlp"
        if architecture == "conv" and isinstance(params, dict) and "w_stem" in params:
            # the sizes the weights say, unless given
            if channels is None:
                channels = int(np.shape(params["w_stem"])[-1])
            if blocks is None:
                blocks = sum(1 for k in params if k.startswith("w_res") and k.endswith("a"))
        self.architecture, self.channels, self.blocks = check_architecture(
            architecture, channels, blocks)
        if self.architecture == "conv":
            _check_planes(self.obs_shape, self.describe())
            self.hidden = ()
            self.params = self._check_params(params)
            self._prepare()
            return
        if hidden is None:
            hidden = tuple(int(np.shape(params[f"w{i}"])[1]) for i in range(len(params))
                           if f"w{i}" in params)
        self.hidden = _check_hidden(hidden)
        self.params = self._check_params(params)
        self._prepare()

    # ------------------------------------------------------------ construction
    @classmethod
    def init(cls, game, *, hidden=None, architecture="mlp", channels=None,
             blocks=None, seed=None, **board_options):
        """A new network for ``game`` (a registry key or ``Game``) with the
        given board options, He-initialised from ``seed`` (biases zero; the
        heads' weights scaled down so the first policy is near uniform and the
        first values near 0).  ``hidden``: the MLP's layer sizes (default
        ``DEFAULT_HIDDEN``).  ``architecture="conv"``: the convolutional
        network of ``channels`` channels (default 32) and ``blocks`` residual
        blocks (default 2).  The sizes of the other architecture are refused
        (``ValueError``), not ignored."""
        conv_sizes = [k for k, v in (("channels", channels), ("blocks", blocks))
                      if v is not None]
        architecture, channels, blocks = check_architecture(architecture, channels, blocks)
        if architecture == "conv" and hidden is not None:
            raise ValueError("hidden applies to architecture='mlp' only; a conv network's "
                             "sizes are channels= and blocks=")
        if architecture == "mlp" and conv_sizes:
            verb = "apply" if len(conv_sizes) > 1 else "applies"
            raise ValueError(f"{' and '.join(conv_sizes)} {verb} to architecture='conv' only; "
                             "an MLP's sizes are hidden=")
        g, full, obs_shape, num_actions = _board_facts(game, board_options)
        rng = np.random.default_rng(_util.resolve_seed(seed))
        if architecture == "conv":
            _check_planes(obs_shape, _describe(g.key, board_options, obs_shape, num_actions))
            params = _conv_init(rng, obs_shape, channels, blocks, num_actions)
            return cls(g, params, board_options=board_options, architecture="conv",
                       channels=channels, blocks=blocks)
        hidden = _check_hidden(DEFAULT_HIDDEN if hidden is None else hidden)
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
        if self.architecture == "conv":
            shapes = conv_param_shapes(self.obs_shape, self.channels, self.blocks,
                                       self.num_actions)
            sizes = f"a conv network of {self.channels} channels and {self.blocks} block(s)"
        else:
            shapes = self.param_shapes(self.input_size, self.hidden, self.num_actions)
            sizes = f"{len(self.hidden)} hidden layer(s)"
        missing = [k for k in shapes if k not in params]
        extra = sorted(set(params) - set(shapes))
        if missing or extra:
            raise ValueError(f"network weights do not match {sizes}: "
                             f"missing {missing or 'none'}, unexpected {extra or 'none'}")
        out = {}
        for name, shape in shapes.items():
            a = np.asarray(params[name])
            if a.dtype.kind not in "fiu":
                raise ValueError(f"weight {name!r} must be numeric, got dtype {a.dtype}")
            if a.shape != shape:
                raise ValueError(f"weight {name!r} must have shape {shape} for "
                                 f"{self.describe()} and {self._sizes()}, got {a.shape}")
            a = np.ascontiguousarray(a, dtype=np.float32)
            if not np.isfinite(a).all():
                raise ValueError(f"weight {name!r} has non-finite entries (NaN or inf)")
            out[name] = a
        return out

    def _prepare(self):
        """Derived arrays for inference: the two heads fused into one matrix."""
        p = self.params
        self._local = threading.local()
        self._compiled = None
        if self.architecture == "conv":
            # the 3x3 kernels as [9 * in, out] matrices (rows in patch order)
            self._convs = [(w.reshape(-1, w.shape[-1]), p["b" + k[1:]])
                           for k, w in p.items() if k.startswith("w_") and w.ndim == 4]
            return
        self._trunk = [(p[f"w{i}"], p[f"b{i}"]) for i in range(len(self.hidden))]
        self._head_w = np.ascontiguousarray(np.concatenate([p["wp"], p["wv"]], axis=1))
        self._head_b = np.concatenate([p["bp"], p["bv"]])

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
        if c is None and self.architecture == "conv":
            from ttt_engine._core.algorithms.conv import CompiledConvNetwork
            c = self._compiled = CompiledConvNetwork(self.params, self.obs_shape,
                                                     self.num_actions)
        elif c is None:
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
                       **self._arch_kwargs())

    def _arch_kwargs(self):
        """The constructor's keywords besides the game and weights."""
        return dict(board_options=self.board_options, hidden=self.hidden or None,
                    architecture=self.architecture, channels=self.channels,
                    blocks=self.blocks)

    def _sizes(self):
        if self.architecture == "conv":
            return f"conv {self.channels} channels x {self.blocks} blocks"
        return f"hidden {self.hidden}"

    # ------------------------------------------------------------ description
    def describe(self):
        """``"Tic-Tac-Toe: observations 2x3x3, 9 actions"`` (options included)."""
        return _describe(self.game_key, self._shape_options(), self.obs_shape, self.num_actions)

    def _shape_options(self):
        defaults = games.GAMES[self.game_key].options
        return {k: v for k, v in self.board_options.items() if defaults.get(k) != v}

    @property
    def name(self):
        """How messages name this evaluator: ``Network(uttt, 243-256-256-81)``,
        ``Network(connect4, conv 32x2, 2x6x7-7)``."""
        if self.architecture == "conv":
            return (f"Network({self.game_key}, conv {self.channels}x{self.blocks}, "
                    f"{'x'.join(map(str, self.obs_shape))}-{self.num_actions})")
        sizes = "-".join(map(str, (self.input_size, *self.hidden, self.num_actions)))
        return f"Network({self.game_key}, {sizes})"

    @property
    def num_parameters(self):
        return int(sum(a.size for a in self.params.values()))

    def __repr__(self):
        sizes = (f"architecture='conv', channels={self.channels}, blocks={self.blocks}"
                 if self.architecture == "conv" else f"hidden={self.hidden}")
        return (f"Network({self.game_key!r}, {sizes}, "
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
            try:
                key = games.of_board(board).key
            except ValueError:
                key = None
            if key is not None:     # a board of a game here: its title, as check_game says it
                what = _describe(key, {}, tuple(board.observation().shape), board.num_actions)
            else:
                what = "a " + type(board).__module__ + "." + type(board).__name__
                if hasattr(board, "observation") and hasattr(board, "num_actions"):
                    what += (f" (observations {'x'.join(map(str, board.observation().shape))}, "
                             f"{board.num_actions} actions)")
            raise ValueError(f"this network is for {self.describe()}, not for {what}")
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
        if self.architecture == "conv":
            return self._forward_conv(obs)
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

    def _forward_conv(self, obs):
        p = self.params
        batch = obs.shape[0]
        x = np.ascontiguousarray(obs.transpose(0, 2, 3, 1), dtype=np.float32)
        with _parallel.one_blas_thread():
            convs = iter(self._convs)
            x = _relu(_conv3x3(x, *next(convs)))
            for wa, wb in zip(convs, convs):
                t = _relu(_conv3x3(x, *wa))
                x = _relu(_conv3x3(t, *wb) + x)
            ph = _relu(x @ p["w_phead"] + p["b_phead"]).reshape(batch, len(p["wp"]))
            logits = ph @ p["wp"] + p["bp"]
            vh = _relu(x @ p["w_vhead"] + p["b_vhead"]).reshape(batch, len(p["w_vfc"]))
            vh = _relu(vh @ p["w_vfc"] + p["b_vfc"])
            values = np.tanh(vh @ p["wv"] + p["bv"])[:, 0]
        return np.ascontiguousarray(logits, dtype=np.float32), values.astype(np.float32)

    # ------------------------------------------------------------ files, pickling
    def save(self, path):
        """Write the network to ``path`` as a model file (atomic; fields:
        ``game``, ``board_options`` (JSON), ``obs_shape``, ``num_actions``,
        ``architecture``, ``hidden`` (empty for a conv network), for a conv
        network ``channels`` and ``blocks``, and the weights in float32 as
        ``param_<name>``).
        Returns the file size in bytes."""
        return _modelfile.write(path, KIND, self._fields())

    def _fields(self):
        fields = {
            "game": np.str_(self.game_key),
            "board_options": np.str_(json.dumps(self.board_options, sort_keys=True)),
            "obs_shape": np.array(self.obs_shape, np.int64),
            "num_actions": np.int64(self.num_actions),
            "architecture": np.str_(self.architecture),
            "hidden": np.array(self.hidden, np.int64),
        }
        if self.architecture == "conv":
            fields.update(channels=np.int64(self.channels), blocks=np.int64(self.blocks))
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
        # files written before there were architectures are MLPs
        arch = (_modelfile.scalar(path, raw, "architecture", "U") if "architecture" in raw
                else "mlp")
        if arch not in ARCHITECTURES:
            raise ValueError(f"{path}: a network of architecture {arch!r:.40}, unknown to this "
                             f"version (it knows {', '.join(ARCHITECTURES)})")
        hidden = raw["hidden"]
        if hidden.ndim != 1 or hidden.dtype.kind not in "iu":
            raise ValueError(f"{path}: field 'hidden' must be a list of integers")
        sizes = dict(hidden=tuple(int(h) for h in hidden))
        if arch == "conv":
            missing = [k for k in ("channels", "blocks") if k not in raw]
            if missing:
                raise ValueError(f"{path}: missing field(s): {', '.join(missing)}")
            sizes = {k: _modelfile.scalar(path, raw, k, "iu") for k in ("channels", "blocks")}
        params = {k[len("param_"):]: v for k, v in raw.items() if k.startswith("param_")}
        try:
            net = cls(game, params, board_options=options, architecture=arch, **sizes)
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
        return {"game": self.game_key, "params": self.params, **self._arch_kwargs()}

    def __setstate__(self, state):
        # fresh, aligned copies: arrays unpickled from a Dask message are views into
        # it at any alignment, and the products on them ran 4-6 times slower
        params = {k: np.array(v, copy=True) for k, v in state["params"].items()}
        kwargs = {k: v for k, v in state.items() if k not in ("game", "params")}
        self.__init__(state["game"], params, **kwargs)

    def __eq__(self, other):
        if not isinstance(other, Network):
            return NotImplemented
        return (self.game_key == other.game_key and self.board_options == other.board_options
                and self.architecture == other.architecture and self.hidden == other.hidden
                and self.channels == other.channels and self.blocks == other.blocks
                and all(np.array_equal(self.params[k], other.params[k]) for k in self.params))

    __hash__ = None

