"""AlphaZero training on CPU: self-play with PUCT, a replay buffer, SGD, checkpoints.

One iteration of :func:`train`:

1. **self-play**: ``games`` games at once with the current network as the
   PUCT evaluator (:func:`ttt_engine.selfplay.selfplay`, numpy inference),
   giving (observation, legal mask, visit distribution, outcome) per position;
2. **replay buffer**: the positions, with their images under the game's board
   symmetries (``data.augment()``), enter a numpy ring buffer of the most
   recent ``buffer_size`` positions;
3. **SGD**: ``steps`` minibatches drawn uniformly from the buffer, each an
   optimiser step (JAX + optax, jit-compiled) on the loss
   ``policy cross-entropy over the legal actions + value MSE (+ L2)``;
4. every ``eval_every`` seconds an **evaluation** (Tic-Tac-Toe: the share of
   optimal moves of PUCT over the 4520 decision positions against the exact
   oracle, and its worst case against any opponent; the other games: a few
   games against MCTS), and every ``checkpoint_every`` seconds a **checkpoint**.

Files of a run, next to ``out`` (the network, a :class:`~ttt_engine.network.Network`
model file): ``<out>.ckpt.npz`` (network, optimiser state, replay buffer and
counters: everything :func:`train` needs to continue with ``resume=True``) and
``<out>.metrics.jsonl`` (one JSON record per iteration).  Every file is written
atomically, so Ctrl-C or a full disk never leaves a half-written one, and the
last complete checkpoint always survives.  All randomness comes from
``(seed, iteration)``, so a run resumed from a checkpoint continues exactly
as if it had not stopped.

Training needs the ``[nn]`` extra (``pip install 'ttt_engine[nn]'``: JAX and
optax); playing with the trained network needs only numpy.
"""
from __future__ import annotations

import dataclasses
import json
import math
import os
import time as _time

import numpy as np

from ttt_engine import _modelfile, _util
from ttt_engine.network import Network, _game

__all__ = ["train", "PRESETS", "Config", "config_for", "NNExtraMissing", "Training",
           "Checkpoint", "load_checkpoint", "evaluate_network", "read_metrics",
           "run_paths", "NN_HINT", "fine_tune"]

NN_HINT = "training needs the [nn] extra: pip install 'ttt_engine[nn]'"
CHECKPOINT_KIND = "ttt_engine.AlphaZeroCheckpoint"


class NNExtraMissing(ImportError):
    """JAX or optax is not installed (the ``[nn]`` extra)."""

    def __init__(self, missing=None):
        super().__init__(NN_HINT + (f" ({missing} is missing)" if missing else ""))


def _nn():
    """``(jax, jax.numpy, optax)``, or :class:`NNExtraMissing`."""
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        raise NNExtraMissing("jax") from None
    try:
        import optax
    except ImportError:
        raise NNExtraMissing("optax") from None
    return jax, jnp, optax


# ------------------------------------------------------------------ hyperparameters
@dataclasses.dataclass(frozen=True)
class Config:
    """Hyperparameters of a training run (see :data:`PRESETS` and docs/alphazero.md)."""
    hidden: tuple = (256, 256)          # hidden layer sizes of the MLP
    games: int = 64                     # self-play games per iteration (played at once)
    simulations: int = 100              # PUCT simulations per self-play move
    temperature_moves: int = 4          # plies played from the visit distribution (then best)
    c_puct: float = 1.25
    dirichlet_alpha: float = 0.5        # root noise in self-play
    noise_fraction: float = 0.25
    playout_weight: float = 0.0         # weight of random playouts in every leaf value
    mixed_playouts: int = 1             # how many playouts that value averages
    expand_after: int = 0               # visits a leaf is valued by playouts alone first
    augment: bool = True                # add the board symmetries to the buffer
    buffer_size: int = 100_000          # positions kept (after augmentation)
    batch_size: int = 256               # SGD minibatch
    sample_reuse: float = 4.0           # SGD samples per new buffer position
    max_steps: int = 1000               # SGD steps per iteration at most
    optimizer: str = "adam"             # "adam" (L2 in the loss) or "adamw" (decoupled)
    learning_rate: float = 1e-3
    weight_decay: float = 1e-4
    value_weight: float = 1.0
    eval_every: float = 60.0            # seconds of training between evaluations
    eval_simulations: int = 100         # PUCT simulations per move in evaluations
    eval_games: int = 10                # games against MCTS (not Tic-Tac-Toe)
    eval_mcts_simulations: int = 800    # MCTS's simulations in those games
    checkpoint_every: float = 120.0     # seconds of training between checkpoints
    time: float = 600.0                 # default wall-time budget of one train() call

    def to_json(self):
        return json.dumps(dataclasses.asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text):
        d = json.loads(text)
        d["hidden"] = tuple(d["hidden"])
        known = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in d.items() if k in known})


#: Per-game hyperparameters (overrides of :class:`Config`'s defaults).  The
#: Tic-Tac-Toe preset reaches >= 99% optimal moves with PUCT at 100
#: simulations, and never loses, within its 3 minutes (about one minute is
#: enough; docs/alphazero.md).
PRESETS = {
    "ttt": dict(hidden=(64, 64), games=128, simulations=64, temperature_moves=4,
                dirichlet_alpha=1.0, buffer_size=40_000, batch_size=256, sample_reuse=2.0,
                learning_rate=3e-3, weight_decay=1e-4, eval_every=30.0, checkpoint_every=30.0,
                time=180.0),
    "uttt": dict(hidden=(256, 256), games=128, simulations=200, temperature_moves=12,
                 dirichlet_alpha=0.3, buffer_size=400_000, batch_size=256, sample_reuse=4.0,
                 max_steps=2000, learning_rate=1e-3, weight_decay=1e-4, eval_every=900.0,
                 eval_simulations=200, eval_games=10, eval_mcts_simulations=800,
                 checkpoint_every=300.0, time=7200.0),
    "clobber": dict(hidden=(256, 256), games=128, simulations=100, temperature_moves=6,
                    dirichlet_alpha=0.3, buffer_size=200_000, learning_rate=1e-3,
                    eval_every=300.0, eval_simulations=200, eval_games=10,
                    eval_mcts_simulations=800, checkpoint_every=300.0, time=1800.0),
    "quixo": dict(hidden=(256, 256), games=128, simulations=100, temperature_moves=8,
                  dirichlet_alpha=0.3, buffer_size=200_000, learning_rate=1e-3,
                  eval_every=300.0, eval_simulations=200, eval_games=10,
                  eval_mcts_simulations=800, checkpoint_every=300.0, time=1800.0),
}

_POSITIVE_INT = ("games", "simulations", "buffer_size", "batch_size", "max_steps",
                 "eval_simulations")
_NONNEG_INT = ("temperature_moves", "eval_games", "eval_mcts_simulations")


def config_for(game, **overrides):
    """The :class:`Config` of ``game``'s preset with ``overrides`` applied
    (each checked; an unknown name is a ``ValueError`` listing the valid ones)."""
    key = _game(game).key
    fields = {f.name for f in dataclasses.fields(Config)}
    bad = sorted(set(overrides) - fields)
    if bad:
        raise ValueError(f"unknown training option(s) {', '.join(map(repr, bad))}; valid: "
                         f"{', '.join(sorted(fields))}")
    values = dict(PRESETS.get(key, {}))
    values.update({k: v for k, v in overrides.items() if v is not None})
    return _checked(Config(**values))


def _checked(c):
    from ttt_engine.network import _check_hidden
    v = dict(hidden=_check_hidden(c.hidden))
    for k in _POSITIVE_INT:
        v[k] = _util.check_int(k, getattr(c, k), min=1)
    for k in _NONNEG_INT:
        v[k] = _util.check_int(k, getattr(c, k), min=0)
    v["c_puct"] = _util.check_real("c_puct", c.c_puct, low=0, low_open=True)
    v["dirichlet_alpha"] = _util.check_real("dirichlet_alpha", c.dirichlet_alpha, low=0,
                                            low_open=True, allow_none=True)
    v["noise_fraction"] = _util.check_real("noise_fraction", c.noise_fraction, low=0, high=1)
    v["playout_weight"] = _util.check_real("playout_weight", c.playout_weight, low=0, high=1)
    v["mixed_playouts"] = _util.check_int("mixed_playouts", c.mixed_playouts, min=1,
                                          max=10_000)
    v["expand_after"] = _util.check_int("expand_after", c.expand_after, min=0, max=1_000_000)
    v["sample_reuse"] = _util.check_real("sample_reuse", c.sample_reuse, low=0, low_open=True)
    v["learning_rate"] = _util.check_real("learning_rate", c.learning_rate, low=0,
                                          low_open=True)
    v["weight_decay"] = _util.check_real("weight_decay", c.weight_decay, low=0)
    v["value_weight"] = _util.check_real("value_weight", c.value_weight, low=0)
    for k in ("eval_every", "checkpoint_every", "time"):
        v[k] = _util.check_real(k, getattr(c, k), low=0, low_open=True)
    v["optimizer"] = _util.check_choice("optimizer", c.optimizer, ("adam", "adamw"))
    if not isinstance(c.augment, (bool, np.bool_)):
        raise ValueError(f"augment must be True or False, got {c.augment!r}")
    return dataclasses.replace(c, **v)


# ------------------------------------------------------------------ JAX side
def jax_forward(params, observations):
    """The network's forward pass in JAX: ``(logits [B, A], values [B])`` of
    int8 ``observations`` ``[B, *obs_shape]``, equal to :class:`Network`'s."""
    _, jnp, _ = _nn()
    x = jnp.reshape(observations, (observations.shape[0], -1)).astype(jnp.float32)
    i = 0
    while f"w{i}" in params:
        x = jnp.maximum(x @ params[f"w{i}"] + params[f"b{i}"], 0.0)
        i += 1
    logits = x @ params["wp"] + params["bp"]
    values = jnp.tanh(x @ params["wv"] + params["bv"])[:, 0]
    return logits, values


def _losses(params, obs, mask, pi, z, *, l2_weight, value_weight):
    """(total, (policy, value, l2)) of one minibatch."""
    jax, jnp, _ = _nn()
    logits, v = jax_forward(params, obs)
    logits = jnp.where(mask, logits, -1e30)
    logp = jax.nn.log_softmax(logits, axis=-1)
    policy = -jnp.mean(jnp.sum(jnp.where(mask, pi * logp, 0.0), axis=-1))
    value = jnp.mean((v - z) ** 2)
    l2 = sum(jnp.sum(w ** 2) for k, w in params.items() if k.startswith("w"))
    total = policy + value_weight * value + l2_weight * l2
    return total, (policy, value, l2)


class _Learner:
    """Parameters, optimiser state and the jit-compiled train step."""

    def __init__(self, config, params):
        jax, jnp, optax = _nn()
        self.jax, self.jnp = jax, jnp
        c = config
        if c.optimizer == "adamw":
            self.tx = optax.adamw(c.learning_rate, weight_decay=c.weight_decay,
                                  mask=lambda p: {k: k.startswith("w") for k in p})
            l2_weight = 0.0
        else:
            self.tx = optax.adam(c.learning_rate)
            l2_weight = c.weight_decay
        self.params = {k: jnp.asarray(v) for k, v in params.items()}
        self.opt_state = self.tx.init(self.params)
        tx = self.tx

        def step(params, opt_state, obs, mask, pi, z):
            grad_fn = jax.value_and_grad(_losses, has_aux=True)
            (total, parts), grads = grad_fn(params, obs, mask, pi, z, l2_weight=l2_weight,
                                            value_weight=c.value_weight)
            updates, opt_state = tx.update(grads, opt_state, params)
            params = optax.apply_updates(params, updates)
            return params, opt_state, jnp.stack([total, *parts])

        self._step = jax.jit(step, donate_argnums=(0, 1))

    def step(self, obs, mask, pi, z):
        self.params, self.opt_state, metrics = self._step(self.params, self.opt_state,
                                                          obs, mask, pi, z)
        return metrics

    def numpy_params(self):
        return {k: np.asarray(v, dtype=np.float32) for k, v in self.jax.device_get(
            self.params).items()}

    def opt_leaves(self):
        leaves = self.jax.tree_util.tree_leaves(self.opt_state)
        return [np.asarray(x) for x in self.jax.device_get(leaves)]

    def set_opt_leaves(self, leaves, what):
        treedef = self.jax.tree_util.tree_structure(self.opt_state)
        current = self.jax.tree_util.tree_leaves(self.opt_state)
        if len(leaves) != len(current) or any(
                np.shape(a) != np.shape(b) for a, b in zip(leaves, current)):
            raise ValueError(f"{what}: the optimiser state does not fit this optimiser "
                             f"({len(leaves)} arrays, expected {len(current)})")
        self.opt_state = self.jax.tree_util.tree_unflatten(
            treedef, [self.jnp.asarray(a, dtype=b.dtype) for a, b in zip(leaves, current)])


# ------------------------------------------------------------------ replay buffer
class ReplayBuffer:
    """A numpy ring buffer of the most recent ``capacity`` positions."""

    def __init__(self, capacity, obs_shape, num_actions):
        self.capacity = int(capacity)
        self.obs = np.zeros((self.capacity, *obs_shape), np.int8)
        self.masks = np.zeros((self.capacity, num_actions), bool)
        self.policies = np.zeros((self.capacity, num_actions), np.float32)
        self.values = np.zeros(self.capacity, np.float32)
        self.size = 0
        self.next = 0

    def __len__(self):
        return self.size

    def add(self, obs, masks, policies, values):
        n = len(values)
        if n >= self.capacity:          # keep the last `capacity`
            obs, masks, policies, values = (a[n - self.capacity:] for a in
                                            (obs, masks, policies, values))
            n = self.capacity
        idx = (self.next + np.arange(n)) % self.capacity
        self.obs[idx] = obs
        self.masks[idx] = masks
        self.policies[idx] = policies
        self.values[idx] = values
        self.next = int((self.next + n) % self.capacity)
        self.size = int(min(self.capacity, self.size + n))

    def sample(self, rng, batch):
        i = rng.integers(0, self.size, batch)
        return self.obs[i], self.masks[i], self.policies[i], self.values[i]

    def fields(self):
        s = self.size
        if s < self.capacity:
            return {"buffer_obs": self.obs[:s], "buffer_masks": self.masks[:s],
                    "buffer_policies": self.policies[:s], "buffer_values": self.values[:s],
                    "buffer_next": np.int64(self.next)}
        return {"buffer_obs": self.obs, "buffer_masks": self.masks,
                "buffer_policies": self.policies, "buffer_values": self.values,
                "buffer_next": np.int64(self.next)}

    def restore(self, raw, what):
        n = len(raw["buffer_values"])
        if n > self.capacity:
            raise ValueError(f"{what}: the replay buffer holds {n} positions, more than "
                             f"buffer_size {self.capacity}")
        for name, arr in (("obs", self.obs), ("masks", self.masks),
                          ("policies", self.policies), ("values", self.values)):
            a = raw[f"buffer_{name}"]
            if a.shape[1:] != arr.shape[1:] or len(a) != n:
                raise ValueError(f"{what}: buffer_{name} has shape {a.shape}, expected "
                                 f"({n}, {', '.join(map(str, arr.shape[1:]))})")
            arr[:n] = a
        self.size = n
        self.next = int(raw["buffer_next"]) % self.capacity


# ------------------------------------------------------------------ checkpoints
@dataclasses.dataclass
class Checkpoint:
    """A training checkpoint as read by :func:`load_checkpoint`."""
    path: str
    network: Network
    config: Config
    seed: int
    counters: dict
    opt_leaves: list
    raw: dict = dataclasses.field(repr=False, default=None)

    @property
    def iteration(self):
        return self.counters["iteration"]


def _write_checkpoint(path, net, config, seed, counters, learner, buffer):
    fields = {f"net_{k}": v for k, v in net._fields().items()}
    fields["config"] = np.str_(config.to_json())
    fields["seed"] = np.uint64(seed)
    fields["counters"] = np.str_(json.dumps(counters, sort_keys=True))
    leaves = learner.opt_leaves()
    fields["opt_count"] = np.int64(len(leaves))
    for i, leaf in enumerate(leaves):
        fields[f"opt_{i}"] = leaf
    fields.update(buffer.fields())
    return _modelfile.write(path, CHECKPOINT_KIND, fields, compress=False)


def load_checkpoint(path):
    """Read a training checkpoint (``ttt_engine.load`` opens these too): its
    network, configuration, seed, counters and optimiser state; needs only numpy."""
    path = os.fspath(path)
    raw = _modelfile.read(path, CHECKPOINT_KIND)
    need = ["config", "seed", "counters", "opt_count", "buffer_obs", "buffer_masks",
            "buffer_policies", "buffer_values", "buffer_next"]
    missing = [k for k in need if k not in raw]
    if missing:
        raise ValueError(f"{path}: missing field(s): {', '.join(missing)}")
    net = Network._from_fields(path, {k[4:]: v for k, v in raw.items() if k.startswith("net_")})
    try:
        config = _checked(Config.from_json(_modelfile.scalar(path, raw, "config", "U")))
        counters = json.loads(_modelfile.scalar(path, raw, "counters", "U"))
    except (ValueError, TypeError, KeyError) as e:
        raise ValueError(f"{path}: bad training configuration: {e}") from None
    count = _modelfile.scalar(path, raw, "opt_count", "iu")
    leaves = [raw[f"opt_{i}"] for i in range(count) if f"opt_{i}" in raw]
    if len(leaves) != count:
        raise ValueError(f"{path}: the optimiser state is incomplete")
    return Checkpoint(path, net, config, int(_modelfile.scalar(path, raw, "seed", "u")),
                      counters, leaves, raw)


def run_paths(out):
    """``(checkpoint, metrics)`` paths of a run whose network goes to ``out``."""
    out = os.fspath(out)
    stem = out[:-4] if out.endswith(".npz") else out
    return stem + ".ckpt.npz", stem + ".metrics.jsonl"


def read_metrics(path):
    """The records of a metrics log (a list of dicts; a torn last line is skipped)."""
    records = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError:
                continue
    return records


def _truncate_metrics(path, iteration):
    """Keep only the records up to ``iteration`` (those after the checkpoint are lost work)."""
    if not os.path.exists(path):
        return []
    keep = [r for r in read_metrics(path) if r.get("iteration", 0) <= iteration]
    text = "".join(json.dumps(r, sort_keys=True) + "\n" for r in keep)
    _util.atomic_write(path, lambda f: f.write(text.encode("utf-8")))
    return keep


# ------------------------------------------------------------------ supervised fine-tuning
def _check_targets(net, data, what):
    """(obs int8, masks bool, policies float32, values float32) of ``data``, checked
    against ``net``'s shapes: a ValueError naming ``what`` otherwise."""
    if not isinstance(data, (tuple, list)) or len(data) != 4:
        raise ValueError(f"{what} must be (observations, masks, policies, values), "
                         f"got {type(data).__name__}")
    obs, masks, pi, z = (np.asarray(a) for a in data)
    n = len(z)
    if n == 0:
        raise ValueError(f"{what} holds no positions")
    shapes = {"observations": (obs, (n, *net.obs_shape)), "masks": (masks, (n, net.num_actions)),
              "policies": (pi, (n, net.num_actions)), "values": (z, (n,))}
    for name, (a, shape) in shapes.items():
        if a.shape != shape:
            raise ValueError(f"{what}: {name} has shape {a.shape}, expected {shape}")
    masks = masks.astype(bool)
    pi = pi.astype(np.float32)
    z = z.astype(np.float32)
    if not np.all(np.isfinite(pi)) or np.any(pi < 0) or np.any(pi[~masks] > 0) \
            or not np.allclose(pi.sum(1), 1.0, atol=1e-3):
        raise ValueError(f"{what}: every policy must be a distribution over its legal actions")
    if not np.all(np.isfinite(z)) or np.any(np.abs(z) > 1):
        raise ValueError(f"{what}: values must lie in [-1, 1]")
    return obs.astype(np.int8), masks, pi, z


def fine_tune(network, train, held_out=None, *, epochs=8, learning_rate=1e-3,
              weight_decay=1e-4, value_weight=0.25, batch_size=256, augment=True, seed=0,
              progress=True):
    """Supervised training of a copy of ``network`` on given targets, e.g. the
    root visit distributions of long searches (policy distillation: the
    network learns to propose what a search with far more simulations than
    self-play's chose; ``examples/distill_uttt.py`` makes such positions).

    train / held_out: ``(observations, masks, policies, values)`` arrays (the
    layout of self-play data: int8 observations, bool legal masks, policies
    summing to 1 over the legal actions, values in [-1, 1] for the side to
    move).  ``augment`` adds the training positions' images under the
    board's symmetries.  Each epoch is one pass in minibatches of
    ``batch_size`` (Adam, L2 ``weight_decay``, value loss weighted by
    ``value_weight``); with ``held_out``, the network of the epoch with the
    lowest held-out policy cross-entropy is returned, else the last one.

    Returns ``(network, history)``: a new :class:`Network` and one dict per
    epoch (``epoch``, and with ``held_out`` its ``policy_ce``, ``policy_kl``
    (cross-entropy minus the targets' entropy), ``top1`` (share of positions
    whose most likely action is the target's) and ``value_mse``; epoch 0 is
    the network as given).  Needs the ``[nn]`` extra.
    """
    jax, jnp, _ = _nn()
    if not isinstance(network, Network):
        raise TypeError(f"network must be a ttt_engine Network, got {type(network).__name__}")
    epochs = _util.check_int("epochs", epochs, min=1, max=10_000)
    batch_size = _util.check_int("batch_size", batch_size, min=1, max=1 << 20)
    learning_rate = _util.check_real("learning_rate", learning_rate, low=0, low_open=True,
                                     high=1.0)
    weight_decay = _util.check_real("weight_decay", weight_decay, low=0, high=1.0)
    value_weight = _util.check_real("value_weight", value_weight, low=0, high=1e3)
    obs, masks, pi, z = _check_targets(network, train, "train")
    if augment:
        from ttt_engine.selfplay import augmented
        obs, masks, pi, k = augmented(network.game_key, obs, masks, pi)
        z = np.tile(z, k)
    n = len(obs)
    if n < batch_size:
        raise ValueError(f"train holds {n} positions (after augmentation), fewer than "
                         f"batch_size {batch_size}")
    held = None if held_out is None else _check_targets(network, held_out, "held_out")
    config = Config(hidden=network.hidden, learning_rate=learning_rate,
                    weight_decay=weight_decay, value_weight=value_weight)
    learner = _Learner(config, network.params)

    def score(epoch):
        record = {"epoch": epoch}
        if held is None:
            return record
        h_obs, h_mask, h_pi, h_z = held
        logits, v = jax_forward(learner.params, jnp.asarray(h_obs))
        logits = np.where(h_mask, np.asarray(logits, np.float64), -1e30)
        logp = logits - logits.max(1, keepdims=True)
        logp = logp - np.log(np.exp(logp).sum(1, keepdims=True))
        ce = float(-np.mean(np.sum(np.where(h_mask, h_pi * logp, 0.0), 1)))
        entropy = float(-np.mean(np.sum(np.where(h_pi > 0, h_pi * np.log(
            np.maximum(h_pi, 1e-12)), 0.0), 1)))
        record.update(policy_ce=ce, policy_kl=ce - entropy,
                      top1=float(np.mean(np.argmax(logits, 1) == np.argmax(h_pi, 1))),
                      value_mse=float(np.mean((np.asarray(v) - h_z) ** 2)))
        return record

    history = [score(0)]
    best = (history[0].get("policy_ce", math.inf), None)
    rng = np.random.default_rng(seed)
    bar = None
    if progress:
        from tqdm.auto import tqdm
        bar = tqdm(total=epochs, unit="epoch", desc=f"fine-tune {network.game_key}")
    try:
        for epoch in range(1, epochs + 1):
            order = rng.permutation(n)
            for i in range(0, n - batch_size + 1, batch_size):
                j = order[i:i + batch_size]
                learner.step(obs[j], masks[j], pi[j], z[j])
            history.append(score(epoch))
            if held is None or history[-1]["policy_ce"] < best[0]:
                best = (history[-1].get("policy_ce", math.inf), learner.numpy_params())
            if bar is not None:
                bar.update(1)
                if held is not None:
                    bar.set_postfix(ce=f"{history[-1]['policy_ce']:.4f}")
    finally:
        if bar is not None:
            bar.close()
    params = best[1] if best[1] is not None else network.params
    return (Network(network.game_key, params, board_options=network.board_options),
            history)


# ------------------------------------------------------------------ evaluation
class _TTTTable:
    """A Tic-Tac-Toe evaluator answering from one batched pass of ``net`` over
    all 3^9 cell patterns (the same outputs, looked up by the planes' base-3 code)."""

    def __init__(self, net):
        codes = np.arange(3 ** 9)
        digits = (codes[:, None] // 3 ** np.arange(9)) % 3
        obs = np.stack([digits == 1, digits == 2], axis=1).astype(np.int8).reshape(-1, 2, 3, 3)
        self.logits, self.values = net(obs)
        self.powers = 3 ** np.arange(9)

    def __call__(self, observations, legal_mask=None):
        o = observations.reshape(len(observations), 2, 9).astype(np.int64)
        code = (o[:, 0] + 2 * o[:, 1]) @ self.powers
        return self.logits[code], self.values[code]


class PUCTPlayer:
    """A fresh PUCT search of ``simulations`` per move with ``network`` (the
    agent protocol: ``select_move``, ``name``, ``reset``); deterministic."""

    def __init__(self, network, simulations=100, c_puct=1.25, evaluator=None,
                 playout_weight=0.0, mixed_playouts=1):
        from ttt_engine.search import PUCT
        self.network = network
        self.simulations = _util.check_int("simulations", simulations, min=1)
        from ttt_engine._core.algorithms import puct as _puct
        nodes = max(int(_puct.MIN_NODES), self.simulations * network.num_actions + 64)
        self.search = PUCT(evaluator or network, c_puct=c_puct, reuse=False,
                           max_nodes=min(nodes, 1 << 20), playout_weight=playout_weight,
                           mixed_playouts=mixed_playouts)
        self.name = f"PUCT({self.simulations})"
        self.last_stats = {}

    def select_move(self, board):
        self.search.reset()
        move = self.search.search(board, simulations=self.simulations)
        self.last_stats = self.search.stats
        return move

    def reset(self, seed=None):
        self.search.reset()


def evaluate_network(network, *, simulations=100, games=10, mcts_simulations=800,
                     c_puct=1.25, seed=0, playout_weight=0.0, mixed_playouts=1):
    """A dict of scores of ``network`` with PUCT at ``simulations`` per move
    (``playout_weight`` / ``mixed_playouts``: the leaf value, as in
    :class:`ttt_engine.search.PUCT`; not used by the Tic-Tac-Toe evaluation,
    which scores the network's own values).

    Tic-Tac-Toe: ``optimality`` (share of the 4520 decision positions where
    PUCT's move is optimal, exact oracle), ``prior_optimality`` (the same for
    the raw policy's best move), ``worst_x`` / ``worst_o`` (its result against
    the most damaging opponent as X and as O: "win", "draw" or "loss").
    Other games: ``score`` (wins + draws/2 over ``games`` games against
    ``MCTSAgent(mcts_simulations)``, colours alternating) and its W/D/L."""
    simulations = _util.check_int("simulations", simulations, min=1)
    if network.game_key == "ttt":
        from ttt_engine import exact
        table = _TTTTable(network)
        player = PUCTPlayer(network, simulations, c_puct, evaluator=table)
        q = exact.policy_table(player)
        o = exact.optimality(q)
        # the raw policy: its best legal action in every decision position
        rows, mask, codes = _ttt_decisions()
        best = np.argmax(np.where(mask, table.logits[codes], -np.inf), axis=1)
        pq = np.zeros((19683, 9))
        pq[rows, best] = 1.0
        po = exact.optimality(pq)
        return {"optimality": o.rate, "prior_optimality": po.rate,
                "worst_x": exact.worst_case(q, "X").outcome,
                "worst_o": exact.worst_case(q, "O").outcome}
    from ttt_engine import games as _games
    from ttt_engine.agents import MCTSAgent, play_match
    g = _games.get(network.game_key)
    player = PUCTPlayer(network, simulations, c_puct, playout_weight=playout_weight,
                        mixed_playouts=mixed_playouts)
    mcts = MCTSAgent(simulations=_util.check_int("mcts_simulations", mcts_simulations, min=1),
                     seed=seed)
    r = play_match(player, mcts, games=games, seed=seed,
                   board_factory=lambda: g.new_board(**network.board_options))
    n = max(1, r.wins + r.draws + r.losses)
    return {"score": (r.wins + 0.5 * r.draws) / n, "wins": r.wins, "draws": r.draws,
            "losses": r.losses, "opponent": f"mcts{mcts_simulations}"}


_TTT_DECISIONS = None


def _ttt_decisions():
    """(board indices, legal masks, planes' base-3 codes) of the 4520 decision positions."""
    global _TTT_DECISIONS
    if _TTT_DECISIONS is None:
        from ttt_engine import exact
        from ttt_engine.ttt import Board
        rows = np.asarray(exact._DECISIONS, dtype=np.int64)
        mask = np.zeros((len(rows), 9), bool)
        codes = np.zeros(len(rows), np.int64)
        powers = 3 ** np.arange(9)
        for j, i in enumerate(rows):
            b = Board.from_index(int(i))
            mask[j, b.legal_moves] = True
            o = b.observation().reshape(2, 9).astype(np.int64)
            codes[j] = (o[0] + 2 * o[1]) @ powers
        _TTT_DECISIONS = rows, mask, codes
    return _TTT_DECISIONS


# ------------------------------------------------------------------ training
@dataclasses.dataclass
class Training:
    """What :func:`train` returns."""
    network: Network
    out: str
    checkpoint: str
    metrics: str
    iteration: int
    records: list
    stopped: str                   # "time", "iterations"


class _CountingEvaluator:
    """Wraps the network to count evaluations and the time spent in it."""

    def __init__(self, net):
        self.net = net
        self.evaluations = 0
        self.calls = 0
        self.seconds = 0.0

    def __call__(self, observations, legal_mask):
        t0 = _time.perf_counter()
        out = self.net(observations, legal_mask)
        self.seconds += _time.perf_counter() - t0
        self.evaluations += len(observations)
        self.calls += 1
        return out


def _derived_seed(seed, iteration, purpose):
    return int(np.random.SeedSequence([seed, iteration, purpose]).generate_state(
        1, np.uint64)[0] >> np.uint64(1))


def train(game="ttt", *, out, time=None, iterations=None, resume=False, overwrite=False,
          seed=None, progress=True, plot=None, log=None, board_options=None, **hyper):
    """Train a policy-value network for ``game`` by AlphaZero self-play.

    Parameters
    ----------
    game : str
        A registry key: "ttt", "uttt", "clobber", "quixo".
    out : path
        The network file (a :class:`~ttt_engine.network.Network` model file),
        written at every checkpoint; the checkpoint and the metrics log go next
        to it (:func:`run_paths`).
    time : float, optional
        Wall-time budget of this call in seconds (default: the preset's).
        Training stops after the iteration that reaches it, with a checkpoint.
    iterations : int, optional
        Stop when the run (resumed or not) has done this many iterations.
    resume : bool
        Continue from the checkpoint next to ``out`` (the hyperparameters are
        the checkpoint's; ``hyper`` may change the ones that do not change the
        network or the buffer's shape).  Without a checkpoint it starts anew.
    overwrite : bool
        Start anew even if a checkpoint exists (which is otherwise an error).
    seed : int, optional
        Seed of the whole run (initial weights, self-play, minibatches).
    progress : bool
        A tqdm progress bar.
    plot : path, optional
        Write the learning curves (PNG, needs the ``[plot]`` extra) at the end.
    log : callable, optional
        ``log(record)`` after every iteration (the metrics record, a dict).
    board_options : dict, optional
        The game's board options (Clobber ``rows``/``cols``, Quixo ``size``...).
    **hyper
        Overrides of the preset's hyperparameters (:class:`Config` fields).

    Returns a :class:`Training`.  Ctrl-C: the last complete iteration is
    checkpointed (when no SGD step was under way), then ``KeyboardInterrupt``
    propagates; the last complete checkpoint always survives.
    """
    _nn()                                   # the [nn] extra, before any work
    from ttt_engine.selfplay import selfplay
    g = _game(game)
    options = dict(board_options or {})
    out = os.fspath(out)
    ckpt_path, metrics_path = run_paths(out)
    time_budget = _util.check_real("time", time, low=0, low_open=True, allow_none=True)
    iterations = _util.check_int("iterations", iterations, min=1, allow_none=True)
    if plot is not None:
        from ttt_engine.plot import _require_matplotlib
        _require_matplotlib()

    ck = None
    if os.path.exists(ckpt_path) and not overwrite:
        if not resume:
            raise FileExistsError(f"{ckpt_path} exists: resume=True continues that run, "
                                  "overwrite=True starts a new one")
        ck = load_checkpoint(ckpt_path)
        try:
            ck.network.check_game(g.key, **options)
        except ValueError as e:
            raise ValueError(f"{ckpt_path}: {e}") from None
    if ck is not None:
        fixed = ("hidden", "buffer_size")
        changed = [k for k in fixed if k in hyper and hyper[k] is not None
                   and tuple(np.atleast_1d(hyper[k])) != tuple(np.atleast_1d(
                       getattr(ck.config, k)))]
        if changed:
            raise ValueError(f"{ckpt_path}: cannot resume with a different "
                             f"{', '.join(changed)} (the checkpoint has "
                             f"{', '.join(f'{k}={getattr(ck.config, k)}' for k in changed)})")
        config = _checked(dataclasses.replace(
            ck.config, **{k: v for k, v in hyper.items() if v is not None}))
        seed = ck.seed
        net = ck.network
        counters = dict(ck.counters)
    else:
        config = config_for(g.key, **hyper)
        seed = _util.resolve_seed(seed)
        net = Network.init(g.key, hidden=config.hidden, seed=_derived_seed(seed, 0, 0),
                           **options)
        counters = {"iteration": 0, "games": 0, "positions": 0, "sgd_steps": 0,
                    "seconds": 0.0, "evaluations": 0, "last_eval_seconds": None}
    if time_budget is None and iterations is None:
        time_budget = config.time

    learner = _Learner(config, net.params)
    buffer = ReplayBuffer(config.buffer_size, net.obs_shape, net.num_actions)
    if ck is not None:
        learner.set_opt_leaves(ck.opt_leaves, ckpt_path)
        buffer.restore(ck.raw, ckpt_path)
        records = _truncate_metrics(metrics_path, counters["iteration"])
        ck = None
    else:
        records = []
        if os.path.exists(metrics_path):
            _util.atomic_write(metrics_path, lambda f: None)
    board_options_full = net.board_options

    bar = None
    if progress:
        from tqdm.auto import tqdm
        if iterations is not None and time_budget is None:
            bar = tqdm(total=iterations, initial=counters["iteration"], unit="it",
                       desc=f"AlphaZero {g.key}")
        else:
            bar = tqdm(total=round(time_budget), unit="s", desc=f"AlphaZero {g.key}",
                       bar_format="{l_bar}{bar}| {n_fmt}/{total_fmt} s [{elapsed}<{remaining}"
                                  "{postfix}]")

    start = _time.perf_counter()
    last_ckpt_iteration = counters["iteration"]
    last_ckpt_seconds = counters["seconds"]
    session_base = counters["seconds"]
    consistent = True                   # the state is that of a complete iteration
    stopped = "time"

    def save_all():
        nonlocal last_ckpt_iteration, last_ckpt_seconds
        _write_checkpoint(ckpt_path, net, config, seed, counters, learner, buffer)
        net.save(out)
        last_ckpt_iteration = counters["iteration"]
        last_ckpt_seconds = counters["seconds"]

    try:
        while True:
            if iterations is not None and counters["iteration"] >= iterations:
                stopped = "iterations"
                break
            elapsed = _time.perf_counter() - start
            if time_budget is not None and elapsed >= time_budget:
                stopped = "time"
                break
            it = counters["iteration"] + 1
            t0 = _time.perf_counter()
            evaluator = _CountingEvaluator(net)
            data = selfplay(g.key, evaluator, games=config.games,
                            simulations=config.simulations,
                            seed=_derived_seed(seed, it, 1),
                            temperature_moves=config.temperature_moves, c_puct=config.c_puct,
                            dirichlet_alpha=config.dirichlet_alpha,
                            noise_fraction=config.noise_fraction,
                            playout_weight=config.playout_weight,
                            mixed_playouts=config.mixed_playouts,
                            expand_after=config.expand_after, **board_options_full)
            t_play = _time.perf_counter() - t0
            outcomes = np.bincount(np.asarray(data.outcomes, dtype=np.int64), minlength=3)
            n_positions = len(data)
            if config.augment:
                data = data.augment()
            t1 = _time.perf_counter()
            consistent = False
            buffer.add(data.observations, data.masks, data.policies, data.values)
            steps = min(config.max_steps,
                        max(1, math.ceil(len(data) * config.sample_reuse / config.batch_size)))
            rng = np.random.default_rng(_derived_seed(seed, it, 2))
            sums = np.zeros(4)
            for _ in range(steps):
                sums += np.asarray(learner.step(*buffer.sample(rng, config.batch_size)))
            net.set_params(learner.numpy_params())
            t_sgd = _time.perf_counter() - t1
            counters.update(iteration=it, games=counters["games"] + config.games,
                            positions=counters["positions"] + n_positions,
                            sgd_steps=counters["sgd_steps"] + steps,
                            evaluations=counters["evaluations"] + evaluator.evaluations,
                            seconds=session_base + _time.perf_counter() - start)
            consistent = True
            loss = sums / steps
            rec = {"iteration": it, "seconds": round(counters["seconds"], 3),
                   "games": counters["games"], "positions": counters["positions"],
                   "sgd_steps": counters["sgd_steps"], "buffer": len(buffer),
                   "loss": float(loss[0]), "policy_loss": float(loss[1]),
                   "value_loss": float(loss[2]), "l2": float(loss[3]),
                   "first_wins": int(outcomes[0]), "second_wins": int(outcomes[1]),
                   "draws": int(outcomes[2]),
                   "selfplay_s": round(t_play, 3), "sgd_s": round(t_sgd, 3),
                   "games_per_s": config.games / t_play if t_play > 0 else None,
                   "evaluations_per_s": evaluator.evaluations / t_play if t_play > 0 else None,
                   "network_share": evaluator.seconds / t_play if t_play > 0 else None,
                   "steps_per_s": steps / t_sgd if t_sgd > 0 else None}
            last_eval = counters.get("last_eval_seconds")
            final = ((time_budget is not None
                      and _time.perf_counter() - start >= time_budget)
                     or (iterations is not None and it >= iterations))
            if last_eval is None or counters["seconds"] - last_eval >= config.eval_every \
                    or final:
                t2 = _time.perf_counter()
                scores = evaluate_network(net, simulations=config.eval_simulations,
                                          games=config.eval_games,
                                          mcts_simulations=config.eval_mcts_simulations,
                                          c_puct=config.c_puct, seed=_derived_seed(seed, it, 3),
                                          playout_weight=config.playout_weight,
                                          mixed_playouts=config.mixed_playouts)
                rec.update({f"eval_{k}": v for k, v in scores.items()})
                rec["eval_s"] = round(_time.perf_counter() - t2, 3)
                counters["last_eval_seconds"] = counters["seconds"]
            records.append(rec)
            _append_jsonl(metrics_path, rec)
            if log is not None:
                log(rec)
            if counters["seconds"] - last_ckpt_seconds >= config.checkpoint_every or final:
                save_all()
            if bar is not None:
                post = {"loss": f"{loss[0]:.3f}", "buf": len(buffer)}
                for k in ("eval_optimality", "eval_score"):
                    if k in rec:
                        post[k[5:]] = f"{rec[k]:.3f}"
                bar.set_postfix(post, refresh=False)
                if bar.unit == "it":
                    bar.update(1)
                else:
                    bar.update(min(round(time_budget), round(_time.perf_counter() - start))
                               - bar.n)
        if counters["iteration"] > last_ckpt_iteration or not os.path.exists(out):
            save_all()
    except KeyboardInterrupt:
        if consistent and counters["iteration"] > last_ckpt_iteration:
            save_all()
        raise
    finally:
        if bar is not None:
            bar.close()
    if plot is not None:
        from ttt_engine.plot import plot_alphazero
        plot_alphazero(records, plot, title=f"AlphaZero {g.title}")
    return Training(net, out, ckpt_path, metrics_path, counters["iteration"], records, stopped)


def _append_jsonl(path, record):
    """Append one line (a crash can only tear the last line, which readers skip)."""
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps(record, sort_keys=True) + "\n")
        f.flush()
