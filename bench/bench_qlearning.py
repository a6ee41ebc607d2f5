"""Q-learning throughput (pytest-benchmark).

    PYTHONPATH=python pytest bench/bench_qlearning.py --benchmark-only

``extra_info`` holds the throughput of the median round: training episodes/s
(against random, default hyperparameters, agent O and X) and greedy
evaluation games/s.  The issue's bar is >= 10M training episodes/s on one core.
"""
import numpy as np
import pytest

import ttt_engine
from ttt_engine._core.learning.ttt import qlearning as ql

TRAIN_EPISODES = ttt_engine.ttt.qagent.DEFAULT_EPISODES
EVAL_GAMES = 2_000_000


def _median(benchmark):
    """Median seconds of the rounds, or None under --benchmark-disable."""
    stats = getattr(benchmark, "stats", None)
    return None if stats is None else stats.stats.median


def _rate(benchmark, n):
    med = _median(benchmark)
    return None if med is None else n / med


@pytest.mark.parametrize("side", ["O", "X"])
def test_bench_train_defaults(benchmark, side):
    """``train(mode="random")`` (Q-learning vs random, default hyperparameters,
    10M episodes, no progress bar) per round."""
    seeds = iter(range(1000))
    benchmark.pedantic(lambda: ttt_engine.train(mode="random", side=side, seed=next(seeds),
                                                progress=False, metrics_every=0),
                       rounds=5, iterations=1, warmup_rounds=1)
    benchmark.extra_info["episodes"] = TRAIN_EPISODES
    benchmark.extra_info["episodes_per_s"] = _rate(benchmark, TRAIN_EPISODES)
    benchmark.extra_info["side"] = side


@pytest.mark.parametrize("mode,symmetry", [("self-play", False), ("self-play", True),
                                           ("curriculum", False)])
def test_bench_train_selfplay(benchmark, mode, symmetry):
    """Self-play / curriculum training, 10M episodes (bar, docs/performance.md:
    self-play >= 8M/s)."""
    seeds = iter(range(1000))
    benchmark.pedantic(lambda: ttt_engine.train(mode=mode, symmetry=symmetry, seed=next(seeds),
                                                progress=False, metrics_every=0),
                       rounds=5, iterations=1, warmup_rounds=1)
    benchmark.extra_info["episodes_per_s"] = _rate(benchmark, TRAIN_EPISODES)
    benchmark.extra_info["mode"] = mode
    benchmark.extra_info["symmetry"] = symmetry


def test_bench_optimality(benchmark):
    """Exact optimality over the 4520 decision positions (bar, docs/performance.md: < 50 ms)."""
    agent = ttt_engine.train(1_000_000, seed=1, progress=False, metrics_every=0)
    benchmark(ttt_engine.optimality, agent)
    benchmark.extra_info["seconds"] = _median(benchmark)


def test_bench_train_kernel_only(benchmark):
    """The C loop alone (``QTrainer.run``, one call, agent O), for the chunking overhead."""
    def run():
        q = np.zeros((19683, 9))
        t = ql.QTrainer(q, 0.1, 0.9, 0.7, 0.999999, 0.01, 1, False, 7, 0.9999997, 0.01)
        t.run(TRAIN_EPISODES)
    benchmark.pedantic(run, rounds=5, iterations=1, warmup_rounds=1)
    benchmark.extra_info["episodes_per_s"] = _rate(benchmark, TRAIN_EPISODES)


@pytest.mark.parametrize("side", ["O", "X"])
def test_bench_evaluate(benchmark, side):
    agent = ttt_engine.train(mode="random", side=side, seed=1, progress=False)
    benchmark.pedantic(lambda: ttt_engine.evaluate(agent, games=EVAL_GAMES, side=side, seed=2),
                       rounds=5, iterations=1, warmup_rounds=1)
    benchmark.extra_info["games_per_s"] = _rate(benchmark, EVAL_GAMES)
    benchmark.extra_info["side"] = side
