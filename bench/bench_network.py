"""The numpy policy-value network as the PUCT evaluator: positions per second.

Run: ``PYTHONPATH=python python -m pytest bench/bench_network.py --benchmark-only``.
UTTT planes (3x9x9 = 243 inputs), the default two hidden layers of 256, batch
sizes 1, 64 and 256; each call of the timed function evaluates a fixed number of
positions (``per_s`` in ``extra_info``: positions per second).  Also the JAX
forward pass and the SGD step of the trainer (``[nn]`` extra) at batch 256.
Bar (issue text): 0.5-0.6M positions/s at batch 64-256 on one core; about 800
SGD steps/s at batch 256.

The conv network (``architecture="conv"``, 32 channels, 2 blocks) on Connect
Four and UTTT positions at batch 1 and 8, numpy and compiled
(``test_conv_positions_per_s``; ``--benchmark-json`` keeps ``cpu_per_s``).
"""
import numpy as np
import pytest

from ttt_engine.network import Network
from conftest import pedantic_cpu, record_throughput

POSITIONS = 16_384       # per timed call


def _batch(game, n, seed=0):
    """``n`` positions of uniformly random games of ``game``: planes and masks."""
    from ttt_engine import games
    rng = np.random.default_rng(seed)
    obs, masks = [], []
    g = games.get(game)
    b = g.new_board()
    while len(obs) < n:
        if b.is_terminal():
            b = g.new_board()
        obs.append(b.observation())
        masks.append(b.action_mask())
        b.push(b.legal_moves[rng.integers(len(b.legal_moves))])
    return np.stack(obs), np.stack(masks)


@pytest.mark.parametrize("batch", [1, 64, 256])
def test_network_positions_per_s(throughput, batch):
    net = Network.init("uttt", seed=1)
    obs, masks = _batch("uttt", batch)
    calls = max(1, (POSITIONS if batch > 1 else POSITIONS // 8) // batch)

    def run():
        for _ in range(calls):
            out = net(obs, masks)
        return out

    logits, values = throughput(run, calls * batch, "positions", batch=batch)
    assert logits.shape == (batch, 81) and values.shape == (batch,)


def test_jax_forward_positions_per_s(throughput):
    import jax
    import jax.numpy as jnp

    from ttt_engine.alphazero import jax_forward
    net = Network.init("uttt", seed=1)
    params = {k: jnp.asarray(v) for k, v in net.params.items()}
    obs, _ = _batch("uttt", 256)
    f = jax.jit(jax_forward)
    x = jnp.asarray(obs)
    f(params, x)[0].block_until_ready()
    calls = POSITIONS // 256

    def run():
        for _ in range(calls):
            out = f(params, x)
        out[0].block_until_ready()
        return out

    logits, _ = throughput(run, calls * 256, "positions", batch=256)
    assert logits.shape == (256, 81)


def test_sgd_steps_per_s(throughput):
    from ttt_engine.alphazero import Config, _Learner
    net = Network.init("uttt", seed=1)
    obs, masks = _batch("uttt", 256)
    pi = (masks / masks.sum(axis=1, keepdims=True)).astype(np.float32)
    z = np.zeros(256, np.float32)
    learner = _Learner(Config(), net.params)
    learner.step(obs, masks, pi, z)
    steps = 100

    def run():
        for _ in range(steps):
            m = learner.step(obs, masks, pi, z)
        return np.asarray(m)

    m = throughput(run, steps, "sgd steps", batch=256)
    assert np.isfinite(m).all()


@pytest.mark.parametrize("game", ["connect4", "uttt"])
@pytest.mark.parametrize("batch", [1, 8])
@pytest.mark.parametrize("path", ["numpy", "compiled"])
def test_conv_positions_per_s(benchmark, game, batch, path):
    """``per_s`` in wall time, ``cpu_per_s`` in this thread's CPU time (what a
    loaded machine distorts least)."""
    net = Network.init(game, architecture="conv", channels=32, blocks=2, seed=1)
    obs, masks = _batch(game, batch + 10)
    obs, masks = obs[10:], masks[10:]       # past the opening (the empty board is all zeros)
    f = net.compiled.forward if path == "compiled" else (lambda o: net(o, masks))
    positions = 4096 if path == "compiled" else 1024
    calls = positions // batch

    def run():
        for _ in range(calls):
            out = f(obs)
        return out

    (logits, values), cpu = pedantic_cpu(benchmark, run, rounds=5)
    record_throughput(benchmark, calls * batch, "positions", batch=batch, path=path,
                      cpu_per_s=calls * batch / cpu)
    assert logits.shape == (batch, net.num_actions) and values.shape == (batch,)
