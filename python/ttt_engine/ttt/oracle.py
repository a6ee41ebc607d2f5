"""Tic-Tac-Toe's exact evaluator (its entry's ``oracle``): the solved game
scores a network's search exactly, and plays the perfect opponent of the
vector environment.

- :func:`evaluate_network`: PUCT with the network, scored over the 4520
  decision positions by :mod:`ttt_engine.ttt.exact` (what
  :func:`ttt_engine.alphazero.evaluate_network` returns for this game);
- :func:`optimal_actions`: the optimal cells of a batch of positions given as
  observation planes (the ``perfect`` opponent of
  :class:`ttt_engine.envs.gymnasium.VectorGameEnv`).
"""
from __future__ import annotations

import numpy as np

__all__ = ["NetworkTable", "evaluate_network", "optimal_actions", "RESULTS"]

#: the names :func:`evaluate_network` returns
RESULTS = ("optimality", "prior_optimality", "worst_x", "worst_o")

_POWERS = 3 ** np.arange(9)


class NetworkTable:
    """A Tic-Tac-Toe evaluator answering from one batched pass of ``net`` over
    all 3^9 cell patterns (the same outputs, looked up by the planes' base-3 code)."""

    def __init__(self, net):
        codes = np.arange(3 ** 9)
        digits = (codes[:, None] // 3 ** np.arange(9)) % 3
        obs = np.stack([digits == 1, digits == 2], axis=1).astype(np.int8).reshape(-1, 2, 3, 3)
        self.logits, self.values = net(obs)
        self.powers = _POWERS

    def __call__(self, observations, legal_mask=None):
        o = observations.reshape(len(observations), 2, 9).astype(np.int64)
        code = (o[:, 0] + 2 * o[:, 1]) @ self.powers
        return self.logits[code], self.values[code]


def evaluate_network(network, player):
    """``{"optimality", "prior_optimality", "worst_x", "worst_o"}`` of PUCT with
    ``network``: ``player(evaluator)`` makes the PUCT player (the agent
    protocol) searching with that evaluator.  ``optimality``: the share of
    the 4520 decision positions where its move is optimal; ``prior_optimality``:
    the same for the raw policy's best move; ``worst_x`` / ``worst_o``: its
    result against the most damaging opponent as X and as O ("win", "draw" or
    "loss").  The search is scored on the network's own values (an evaluator
    of every pattern, :class:`NetworkTable`), no playouts."""
    from ttt_engine.ttt import exact
    table = NetworkTable(network)
    q = exact.policy_table(player(table))
    o = exact.optimality(q)
    # the raw policy: its best legal action in every decision position
    rows, mask, codes = _decisions()
    best = np.argmax(np.where(mask, table.logits[codes], -np.inf), axis=1)
    pq = np.zeros((19683, 9))
    pq[rows, best] = 1.0
    po = exact.optimality(pq)
    return {"optimality": o.rate, "prior_optimality": po.rate,
            "worst_x": exact.worst_case(q, "X").outcome,
            "worst_o": exact.worst_case(q, "O").outcome}


_DECISIONS = None


def _decisions():
    """(board indices, legal masks, planes' base-3 codes) of the 4520 decision positions."""
    global _DECISIONS
    if _DECISIONS is None:
        from ttt_engine.ttt import exact
        rows = np.asarray(exact._DECISIONS, dtype=np.int64)
        mask = np.zeros((len(rows), 9), bool)
        codes = np.zeros(len(rows), np.int64)
        for j, i in enumerate(rows):
            b = exact.Board.from_index(int(i))      # the oracle's board
            mask[j, b.legal_moves] = True
            o = b.observation().reshape(2, 9).astype(np.int64)
            codes[j] = (o[0] + 2 * o[1]) @ _POWERS
        _DECISIONS = rows, mask, codes
    return _DECISIONS


_OPTIMAL = None


def optimal_actions(observations, current_player):
    """``bool [n, 9]``: the optimal cells of ``n`` positions given by their
    observation planes (``[n, 2, 3, 3]``, the side to move's first) and the
    side to move (``[n]``, 0 for X)."""
    global _OPTIMAL
    if _OPTIMAL is None:
        from ttt_engine._core.solvers.ttt import oracle as _oracle
        bits = (np.asarray(_oracle.tables()[1], np.int64)[:, None] >> np.arange(9)) & 1
        _OPTIMAL = bits.astype(bool)
    obs = np.asarray(observations).reshape(len(observations), 2, 9).astype(np.int64)
    x_first = (np.asarray(current_player) == 0)[:, None]
    cells = np.where(x_first, obs[:, 0] + 2 * obs[:, 1], 2 * obs[:, 0] + obs[:, 1])
    return _OPTIMAL[cells @ _POWERS]
