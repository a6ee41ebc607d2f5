"""The value network file and its numpy reference forward pass.

value(board) in (-1, 1) for the side to move (+1: the side to move wins)::

    acc   = b1 + sum of W1[f, :] over the board's active features f   # H floats
    h     = clip(acc, 0, 1)                                             # clipped ReLU
    value = tanh(dot(w2, h) + b2)

The first layer is an accumulator: a compiled search adds and removes a few
rows as moves are made and unmade.  This module is the reference that such an
evaluator must equal, computed in float32 as the file stores the weights.

File (``.npz`` of plain arrays, never a pickle; written atomically): ``kind``
``"value_network"``, ``version`` 1, ``game`` (registry key), ``features`` (the
feature-set name, which fixes F), ``w1`` float32 ``(F, H)``, ``b1`` ``(H,)``,
``w2`` ``(H,)``, ``b2`` ``()``, ``meta`` (a JSON object: how it was trained).
"""
from __future__ import annotations

import json
import math
import os
import threading

import numpy as np

from ttt_engine import _modelfile, _util

__all__ = ["KIND", "VERSION", "ValueNetwork", "load", "features", "feature_set"]

KIND = "value_network"
VERSION = 1
#: the largest hidden layer accepted (a guard against a damaged header, far above use)
MAX_HIDDEN = 1 << 16


def _game(key):
    from ttt_engine import games
    return games.get(key)


def _value_features(game):
    vf = game.value_features
    if vf is None:
        raise ValueError(f"{game.title} declares no value-network features")
    return vf


def feature_set(board):
    """``(game key, feature-set name, F)`` of ``board``."""
    from ttt_engine import games
    game = games.of_board(board)
    vf = _value_features(game)
    return game.key, vf.name(board), int(vf.count(board))


def features(board):
    """The sorted active feature indices of ``board`` (``np.int32``), as its
    game declares them (``Game.value_features``; docs/valuenet.md)."""
    from ttt_engine import games
    return _value_features(games.of_board(board)).active(board)


class ValueNetwork:
    """A value network of one game and feature set (see the module docstring)."""

    def __init__(self, game, features, w1, b1, w2, b2, meta=None):
        self.game = str(game)
        self.features = str(features)
        self.w1 = np.ascontiguousarray(w1, dtype=np.float32)
        self.b1 = np.ascontiguousarray(b1, dtype=np.float32)
        self.w2 = np.ascontiguousarray(w2, dtype=np.float32)
        self.b2 = np.float32(b2)
        self.meta = dict(meta or {})
        _check_arrays("ValueNetwork", self.w1, self.b1, self.w2, np.asarray(self.b2))
        count = _feature_count("ValueNetwork", self.game, self.features)
        if self.w1.shape[0] != count:
            raise ValueError(f"ValueNetwork: w1 has {self.w1.shape[0]} rows but the feature set "
                             f"{self.features} has {count} features")

    @property
    def hidden(self):
        return self.w1.shape[1]

    @property
    def num_features(self):
        return self.w1.shape[0]

    @classmethod
    def random(cls, game_key, hidden=256, seed=0, **options):
        """A network of small random weights for ``game_key``'s boards of
        ``options`` (e.g. ``rows=6, cols=5``): a start for training, and a test
        network whose hidden units are neither all clipped at 0 nor at 1."""
        game = _game(game_key)
        vf = _value_features(game)
        hidden = _util.check_int("hidden", hidden, min=1, max=MAX_HIDDEN)
        board = game.new_board(**options)
        count = int(vf.count(board))
        rng = np.random.default_rng(_util.resolve_seed(seed))
        w1 = rng.normal(0.0, 1.0 / math.sqrt(8.0), (count, hidden)).astype(np.float32)
        b1 = rng.uniform(0.0, 0.5, hidden).astype(np.float32)
        w2 = rng.normal(0.0, 1.0 / math.sqrt(hidden), hidden).astype(np.float32)
        return cls(game.key, vf.name(board), w1, b1, w2, np.float32(0.0),
                   {"init": "random", "seed": int(_util.resolve_seed(seed))})

    # ------------------------------------------------------------------ values
    def check_board(self, board):
        """``ValueError`` naming both when ``board`` is not of this network's
        game and feature set."""
        key, name, _ = feature_set(board)
        if key != self.game:
            raise ValueError(f"this value network is for {_game(self.game).title}, not "
                             f"{_game(key).title}")
        if name != self.features:
            raise ValueError(f"this value network's feature set is {self.features}; the board's "
                             f"is {name}")

    def value(self, board):
        """The value of ``board`` for the side to move, in (-1, 1) (float32 math)."""
        self.check_board(board)
        active = _value_features(_game(self.game)).active(board)
        return float(self._value(active))

    def _value(self, active):
        acc = self.b1 + self.w1[active].sum(axis=0, dtype=np.float32)
        h = np.clip(acc, np.float32(0), np.float32(1))
        return np.tanh(np.dot(self.w2, h) + self.b2)

    def values(self, x):
        """Values of a batch of dense 0/1 feature rows ``x`` ``[B, F]``."""
        x = np.asarray(x, dtype=np.float32)
        h = np.clip(x @ self.w1 + self.b1, 0, 1)
        return np.tanh(h @ self.w2 + self.b2)

    # ------------------------------------------------------------------ files
    def save(self, path):
        """Write the network file atomically; returns its size in bytes."""
        _util.check_output_path(path, "value network file")
        fields = dict(kind=np.str_(KIND), version=np.int64(VERSION), game=np.str_(self.game),
                      features=np.str_(self.features), w1=self.w1, b1=self.b1, w2=self.w2,
                      b2=np.float32(self.b2), meta=np.str_(json.dumps(self.meta, sort_keys=True)))
        _util.atomic_write(path, lambda f: np.savez(f, **fields), "value network file")
        return os.path.getsize(path)

    @classmethod
    def load(cls, path, game=None):
        """Read a network file; with ``game`` (a registry key), a network of
        another game is refused.  Every refusal is one ``ValueError`` line
        naming the file and both sides; nothing is half loaded."""
        return load(path, game=game)

    def __repr__(self):
        return (f"ValueNetwork({self.game!r}, {self.features!r}, {self.num_features}x"
                f"{self.hidden})")


def _feature_count(where, game_key, name):
    from ttt_engine import games
    if game_key not in games.GAMES:
        raise ValueError(f"{where}: game {game_key!r} is not a game of this ttt_engine "
                         f"({', '.join(games.GAMES)})")
    game = _game(game_key)
    vf = game.value_features
    if vf is None:
        raise ValueError(f"{where}: {game.title} declares no value-network features")
    options = vf.options(name)
    if options is None:
        example = vf.name(game.new_board())
        raise ValueError(f"{where}: feature set {name!r} is not one of {game.title}'s "
                         f"(e.g. {example})")
    return int(vf.count(game.new_board(**options)))


def _check_arrays(where, w1, b1, w2, b2):
    if w1.ndim != 2 or not 1 <= w1.shape[1] <= MAX_HIDDEN or w1.shape[0] < 1:
        raise ValueError(f"{where}: w1 must be a (features, hidden) matrix, got shape {w1.shape}")
    h = w1.shape[1]
    for name, a, shape in (("b1", b1, (h,)), ("w2", w2, (h,)), ("b2", b2, ())):
        if a.shape != shape:
            raise ValueError(f"{where}: {name} must have shape {shape} (hidden {h} from w1), "
                             f"got {a.shape}")
    for name, a in (("w1", w1), ("b1", b1), ("w2", w2), ("b2", b2)):
        if not np.all(np.isfinite(a)):
            raise ValueError(f"{where}: {name} holds NaN or infinite values")


def _string(path, raw, key):
    a = raw[key]
    if a.shape != () or a.dtype.kind != "U":
        raise ValueError(f"{path}: field {key!r} must be a string, got dtype {a.dtype} "
                         f"shape {a.shape}")
    return str(a.item())


#: the compiled form of each shipped network, by (game, path, file stamp): read once per
#: process, shared (read-only) by every agent of the game
_SHIPPED = {}
_SHIPPED_LOCK = threading.Lock()


def shipped_path(game):
    """Where the value network that ships for ``game`` (a registry key) lives."""
    from ttt_engine import games
    key = games.get(game).key
    return os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                        "networks", f"{key}_value.npz")


def shipped(game):
    """The value network that ships for ``game``, compiled (int16 where its
    weights fit); ``ValueError`` naming the file and how to reinstall where it
    is missing or damaged."""
    from ttt_engine import games
    from ttt_engine._core.algorithms.valuenet import CompiledValueNet
    g = games.get(game)
    path = shipped_path(g.key)
    try:
        return _modelfile.read_once(_SHIPPED, _SHIPPED_LOCK, g.key, path,
                                    lambda p: CompiledValueNet.from_network(load(p, g.key)))
    except (ValueError, OSError) as e:
        raise ValueError(f"the value network that ships for {g.title} cannot be read "
                         f"({path}: {str(e).removeprefix(path + ': ')}): "
                         f"{_modelfile.REINSTALL}") from None


def load(path, game=None):
    """The :class:`ValueNetwork` of the file ``path`` (see :meth:`ValueNetwork.load`)."""
    path = os.fspath(path)
    raw = _modelfile._open(path)
    if "kind" not in raw:
        raise ValueError(f"{path}: not a value network file (no 'kind' field)")
    kind = _string(path, raw, "kind")
    if kind != KIND:
        raise ValueError(f"{path} is a {kind!r} file, not a value network ({KIND!r}) file")
    missing = [k for k in ("version", "game", "features", "w1", "b1", "w2", "b2", "meta")
               if k not in raw]
    if missing:
        raise ValueError(f"{path}: value network file without field(s) {', '.join(missing)}")
    v = raw["version"]
    if v.shape != () or v.dtype.kind not in "iu":
        raise ValueError(f"{path}: field 'version' must be an integer, got dtype {v.dtype}")
    if int(v) != VERSION:
        raise ValueError(f"{path}: value network format version {int(v)}; this ttt_engine "
                         f"reads version {VERSION}")
    key = _string(path, raw, "game")
    if game is not None and key != game:
        from ttt_engine import games
        theirs = _game(key).title if key in games.GAMES else repr(key)
        raise ValueError(f"{path} is a value network for {theirs}, not for {_game(game).title}")
    name = _string(path, raw, "features")
    count = _feature_count(path, key, name)
    for k in ("w1", "b1", "w2", "b2"):
        if raw[k].dtype != np.float32:
            raise ValueError(f"{path}: field {k!r} must be float32, got {raw[k].dtype}")
    _check_arrays(path, raw["w1"], raw["b1"], raw["w2"], raw["b2"])
    if raw["w1"].shape[0] != count:
        raise ValueError(f"{path}: w1 has {raw['w1'].shape[0]} feature rows but the feature set "
                         f"{name} has {count}")
    try:
        meta = json.loads(_string(path, raw, "meta"))
    except json.JSONDecodeError as e:
        raise ValueError(f"{path}: field 'meta' is not JSON ({e.msg})") from None
    if not isinstance(meta, dict):
        raise ValueError(f"{path}: field 'meta' must be a JSON object, got "
                         f"{type(meta).__name__}")
    return ValueNetwork(key, name, raw["w1"], raw["b1"], raw["w2"], raw["b2"], meta)
