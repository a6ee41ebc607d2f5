"""Evaluators: what guides a PUCT search (``ttt_engine.search.PUCT``, self-play).

An evaluator is any callable

    evaluate(observations, legal_mask) -> (logits, values)

- ``observations``: int8 ``[B, *obs_shape]``, the planes of ``Board.observation()``
  (the side to move's view), ``legal_mask``: bool ``[B, A]`` (``Board.action_mask()``,
  ``A = Board.num_actions``);
- ``logits``: float ``[B, A]`` (entries of illegal actions are ignored; the
  search takes the softmax over the legal ones), ``values``: float ``[B]`` in
  ``[-1, 1]``, the expected result for the side to move.

No framework is needed: a numpy network (``ttt_engine.network.Network``) is
one, a JAX or PyTorch model wrapped in a function is one.  What an evaluator
returns is checked (:func:`check_output`): wrong shapes, NaN or values out of
range are a ``ValueError`` naming the evaluator and what it returned.

Built in: :class:`UniformEvaluator`, uniform priors with the value of random
playouts run in C by the search itself (PUCT with it is Monte Carlo tree
search with a prior term, to check PUCT against plain MCTS), or a value of 0
(``playouts=0``, the trivial evaluator that isolates the cost of the search).
The searches recognise it and never call it from Python.
"""
from __future__ import annotations

import numpy as np

from ttt_engine._util import check_int

__all__ = ["UniformEvaluator", "call_evaluator", "check_output", "evaluator_name"]


class UniformEvaluator:
    """Uniform priors over the legal moves; the value of a leaf is the mean
    result of ``playouts`` uniformly random games from it, played in C by the
    search (no Python call per leaf), or 0 with ``playouts=0``.

    >>> from ttt_engine.search import PUCT
    >>> from ttt_engine import Board
    >>> PUCT(UniformEvaluator(), seed=1).search(Board(), simulations=2000) in range(9)
    True
    """

    def __init__(self, playouts=1):
        self.playouts = check_int("playouts", playouts, min=0, max=1_000_000)

    @property
    def name(self):
        return f"UniformEvaluator(playouts={self.playouts})"

    def __call__(self, observations, legal_mask):
        """Uniform logits and value 0.  With ``playouts`` > 0 the value needs the
        game itself, which only the search has: call it through a search."""
        if self.playouts:
            raise ValueError(f"{self.name} scores a leaf by random playouts that the search "
                             "runs in C; use it through ttt_engine.search.PUCT or "
                             "ttt_engine.selfplay (UniformEvaluator(playouts=0) is callable)")
        mask = np.asarray(legal_mask)
        return (np.zeros(mask.shape, dtype=np.float32),
                np.zeros(mask.shape[:1], dtype=np.float32))

    def __repr__(self):
        return self.name

    def __eq__(self, other):
        return type(other) is type(self) and other.playouts == self.playouts

    def __hash__(self):
        return hash((type(self), self.playouts))


def evaluator_name(evaluator):
    """How messages name an evaluator."""
    name = getattr(evaluator, "name", None)
    if isinstance(name, str):
        return name
    name = getattr(evaluator, "__qualname__", None) or type(evaluator).__name__
    return str(name)


def call_evaluator(evaluator, observations, legal_mask):
    """``evaluator(observations, legal_mask)``; an exception it raises becomes a
    ``ValueError`` naming the evaluator (chained to the original)."""
    try:
        return evaluator(observations, legal_mask)
    except Exception as e:
        raise ValueError(f"evaluator {evaluator_name(evaluator)} raised "
                         f"{type(e).__name__}: {e}") from e


def check_output(evaluator, out, batch, num_actions):
    """``(logits float32[batch, num_actions], values float32[batch])`` from what
    ``evaluator`` returned, C-contiguous; ``ValueError`` naming the evaluator
    and the problem otherwise."""
    who = evaluator_name(evaluator)
    if not isinstance(out, (tuple, list)) or len(out) != 2:
        raise ValueError(f"evaluator {who} must return (logits, values), got "
                         f"{type(out).__name__}")
    try:
        logits = np.ascontiguousarray(out[0], dtype=np.float32)
        values = np.ascontiguousarray(out[1], dtype=np.float32).reshape(-1) \
            if np.ndim(out[1]) == 2 and np.shape(out[1])[1:] == (1,) \
            else np.ascontiguousarray(out[1], dtype=np.float32)
    except (TypeError, ValueError) as e:
        raise ValueError(f"evaluator {who} returned values that are not numbers: {e}") from None
    if logits.shape != (batch, num_actions):
        raise ValueError(f"evaluator {who} returned logits of shape {logits.shape}, expected "
                         f"({batch}, {num_actions})")
    if values.shape != (batch,):
        raise ValueError(f"evaluator {who} returned values of shape {values.shape}, expected "
                         f"({batch},)")
    # one reduction each on the fast path: NaN fails every comparison
    if values.size and not (values.min() >= -1.0 and values.max() <= 1.0):
        if not np.isfinite(values).all():
            raise ValueError(f"evaluator {who} returned a value that is not finite "
                             f"(at row {int(np.flatnonzero(~np.isfinite(values))[0])})")
        bad = int(np.flatnonzero((values < -1.0) | (values > 1.0))[0])
        raise ValueError(f"evaluator {who} returned value {float(values[bad])!r} at row {bad}: "
                         "values must be in [-1, 1]")
    if logits.size and not logits.max() < np.inf:
        raise ValueError(f"evaluator {who} returned NaN or +inf logits")
    return logits, values
