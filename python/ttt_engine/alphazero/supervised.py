"""Supervised fine-tuning of a network on given targets (policy distillation)."""
from __future__ import annotations

import math

import numpy as np

from ttt_engine import _util
from ttt_engine.alphazero.config import Config
from ttt_engine.alphazero.learner import _Learner, _nn, jax_forward
from ttt_engine.network import Network


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
    self-play's chose; ``examples/distill.py`` makes such positions).

    train / held_out: ``(observations, masks, policies, values)`` arrays (the
    layout of self-play data: int8 observations, bool legal masks, policies
    summing to 1 over the legal actions, values in [-1, 1] for the side to
    move).  ``augment`` adds the training positions' images under the
    board's symmetries.  Each epoch is one pass in minibatches of
    ``batch_size`` (Adam, L2 ``weight_decay``, value loss weighted by
    ``value_weight``); with ``held_out``, the network of the epoch with the
    lowest held-out policy cross-entropy is returned, else the last one.

    Returns ``(network, history)``: a new :class:`ttt_engine.network.Network` and one dict per
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
