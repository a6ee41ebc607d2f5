"""The training step: the network's forward pass and loss in JAX, and the
optimiser update (jit-compiled).  JAX and optax come from the ``[nn]`` extra,
imported when first needed (``_nn()``), so importing this module needs only numpy."""
from __future__ import annotations

import numpy as np

NN_HINT = "training needs the [nn] extra: pip install 'ttt_engine[nn]'"


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


def jax_forward(params, observations):
    """The network's forward pass in JAX: ``(logits [B, A], values [B])`` of
    int8 ``observations`` ``[B, *obs_shape]``, equal to :class:`ttt_engine.network.Network`'s
    (of either architecture: a conv network's weights include ``w_stem``)."""
    if "w_stem" in params:
        return _jax_forward_conv(params, observations)
    _, jnp, _ = _nn()
    x = jnp.reshape(observations, (observations.shape[0], -1)).astype(jnp.float32)
    i = 0
    while f"w{i}" in params:
        x = jnp.maximum(x @ params[f"w{i}"] + params[f"b{i}"], 0.0)
        i += 1
    logits = x @ params["wp"] + params["bp"]
    values = jnp.tanh(x @ params["wv"] + params["bv"])[:, 0]
    return logits, values


def _jax_forward_conv(params, observations):
    """The conv network's forward pass (``ttt_engine.network``'s docstring):
    channels-last maps, ``[3, 3, in, out]`` kernels, zero padding."""
    jax, jnp, _ = _nn()
    x = jnp.transpose(observations, (0, 2, 3, 1)).astype(jnp.float32)
    batch = x.shape[0]

    def conv(x, name):
        y = jax.lax.conv_general_dilated(x, params["w" + name], (1, 1), "SAME",
                                         dimension_numbers=("NHWC", "HWIO", "NHWC"))
        return y + params["b" + name]

    x = jax.nn.relu(conv(x, "_stem"))
    i = 0
    while f"w_res{i}a" in params:
        x = jax.nn.relu(x + conv(jax.nn.relu(conv(x, f"_res{i}a")), f"_res{i}b"))
        i += 1
    ph = jax.nn.relu(x @ params["w_phead"] + params["b_phead"]).reshape(batch, -1)
    logits = ph @ params["wp"] + params["bp"]
    vh = jax.nn.relu(x @ params["w_vhead"] + params["b_vhead"]).reshape(batch, -1)
    vh = jax.nn.relu(vh @ params["w_vfc"] + params["b_vfc"])
    values = jnp.tanh(vh @ params["wv"] + params["bv"])[:, 0]
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
