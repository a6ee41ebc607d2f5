"""PUCT benchmarks (pytest-benchmark): simulations per second of the neural
search's tree work, measured with the built-in evaluators so that the numbers
are the search's own.

Run: ``PYTHONPATH=python python -m pytest bench/bench_puct.py --benchmark-only``.

- uniform: ``UniformEvaluator()`` (uniform priors, one random playout per leaf
  in C: no Python per leaf).  Bars: self-play >= 1M simulations/s on
  Tic-Tac-Toe and >= 300k on UTTT, on one core.
- trivial: ``UniformEvaluator(playouts=0)`` (uniform priors, value 0, in C):
  the cost of the search alone.
- python: the same priors and values from a numpy function called once per
  batch: the search plus the evaluator round trip (gathering, the call, the
  output checks), without a network.  Baseline in the same run: the trivial
  numbers.
"""
import numpy as np

from ttt_engine import Board
from ttt_engine.evaluators import UniformEvaluator
from ttt_engine.search import PUCT
from ttt_engine.selfplay import selfplay


def _selfplay(throughput, game, evaluator, games, sims, parallel=None, **kw):
    def run():
        return selfplay(game, evaluator, games=games, simulations=sims, seed=1,
                        parallel=parallel, **kw)
    data = throughput(run, lambda d: d.stats["simulations"], "simulations", rounds=5,
                      game=game, games=games, simulations_per_move=sims,
                      parallel=parallel or min(games, 256))
    assert len(data.outcomes) == games and abs(data.policies.sum(1) - 1).max() < 1e-5
    return data


def test_selfplay_uniform_ttt(throughput):
    """Bar: >= 1M simulations/s (one core)."""
    _selfplay(throughput, "ttt", UniformEvaluator(), 512, 100)


def test_selfplay_uniform_uttt(throughput):
    """Bar: >= 300k simulations/s (one core)."""
    _selfplay(throughput, "uttt", UniformEvaluator(), 16, 400)


def zeros(observations, legal_mask):
    """Uniform logits and value 0, from Python."""
    return (np.zeros(legal_mask.shape, np.float32), np.zeros(len(legal_mask), np.float32))


def test_selfplay_trivial_ttt_batch256(throughput):
    _selfplay(throughput, "ttt", UniformEvaluator(0), 512, 100, parallel=256)


def test_selfplay_python_ttt_batch256(throughput):
    _selfplay(throughput, "ttt", zeros, 512, 100, parallel=256)


def test_selfplay_trivial_uttt_batch256(throughput):
    _selfplay(throughput, "uttt", UniformEvaluator(0), 256, 50, parallel=256)


def test_selfplay_python_uttt_batch256(throughput):
    _selfplay(throughput, "uttt", zeros, 256, 50, parallel=256)


def test_puct_search_uniform_ttt(throughput):
    p = PUCT(UniformEvaluator(), seed=1, reuse=False)
    throughput(lambda: p.search(Board(), simulations=100_000), 100_000, "simulations")
    assert p.stats["simulations"] == 100_000


def test_puct_search_python_batch8_ttt(throughput):
    p = PUCT(zeros, seed=1, reuse=False, batch_size=8)
    throughput(lambda: p.search(Board(), simulations=20_000), 20_000, "simulations")
    assert p.stats["simulations"] == 20_000
