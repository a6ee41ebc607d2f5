"""AlphaZero training on CPU: self-play with PUCT, a replay buffer, SGD, checkpoints.

One iteration of :func:`train`:

1. **self-play**: ``games`` games at once with the current network as the
   PUCT evaluator (:func:`ttt_engine.selfplay.selfplay`, numpy inference),
   giving (observation, legal mask, visit distribution, outcome) per position
   (with playout-cap randomisation, per position searched in full; with a
   growing budget, the simulations follow :func:`.config.simulations_at`);
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

The package, one module a purpose: :mod:`.config` (:class:`Config`, the
presets, their checking), :mod:`.buffer` (the replay buffer), :mod:`.learner`
(the loss and the optimiser update, in JAX), :mod:`.evaluation` (against the
exact oracle or MCTS), :mod:`.checkpoint` (checkpoints, the run's paths),
:mod:`.metrics` (the metrics log), :mod:`.loop` (:func:`train`) and
:mod:`.supervised` (:func:`fine_tune`).
"""

from ttt_engine.alphazero.checkpoint import Checkpoint, load_checkpoint, run_paths
from ttt_engine.alphazero.config import PRESETS, Config, config_for
from ttt_engine.alphazero.evaluation import evaluate_network
from ttt_engine.alphazero.learner import NN_HINT, NNExtraMissing
from ttt_engine.alphazero.loop import Training, train
from ttt_engine.alphazero.metrics import read_metrics
from ttt_engine.alphazero.supervised import fine_tune

# not in __all__, and imported from here by the tests, benchmarks and the CLI
from ttt_engine.alphazero.buffer import ReplayBuffer  # noqa: F401
from ttt_engine.alphazero.learner import _Learner, _losses, _nn, jax_forward  # noqa: F401

__all__ = ["train", "PRESETS", "Config", "config_for", "NNExtraMissing", "Training",
           "Checkpoint", "load_checkpoint", "evaluate_network", "read_metrics",
           "run_paths", "NN_HINT", "fine_tune"]
