"""Exact evaluation of Tic-Tac-Toe Q agents against the solved game.

Tic-Tac-Toe is solved at import (``ttt_engine._core.solvers.ttt.oracle``: memoized negamax
over the 5478 reachable positions), so an agent's quality can be stated
exactly instead of estimated:

- :func:`optimality`: share of the 4520 decision positions (and of those the
  agent reaches itself, as X and as O) where its greedy move is optimal;
- :func:`exact_vs_random`: its outcome distribution against a uniformly random
  opponent, by enumerating every random reply (no sampling);
- :func:`worst_case`: its result against the most damaging opponent, with a
  line that achieves it;
- :func:`oracle`: value and optimal moves of any position.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from ttt_engine import _util
from ttt_engine._core.solvers.ttt import oracle as _oracle
from ttt_engine._core.games.ttt.board import Board

__all__ = ["optimality", "exact_vs_random", "worst_case", "oracle", "best_vs_random", "policy_table",
           "Optimality", "ExactResult", "WorstCase", "exact_report"]

_SIDE = {"X": 0, "O": 1}
_OUTCOME = {1: "win", 0: "draw", -1: "loss"}

_VALUE, _OPTIMAL, _KIND, _DECISIONS = _oracle.tables()


def policy_table(agent):
    """A (19683, 9) table whose greedy policy is ``agent``'s: 1.0 on the move
    ``agent.select_move(board)`` picks in each of the 4520 decision positions,
    0 elsewhere.  For any deterministic agent with the agent protocol (e.g. the
    search agents), so the exact measures and the C evaluation apply to it;
    costs 4520 ``select_move`` calls."""
    if not callable(getattr(agent, "select_move", None)):
        raise ValueError(f"agent must have select_move(board), got {type(agent).__name__}")
    q = np.zeros((19683, 9))
    for i in _DECISIONS:
        b = Board.from_index(int(i))
        m = agent.select_move(b)
        if m not in b.legal_moves:
            raise ValueError(f"agent {getattr(agent, 'name', agent)!r} chose illegal move {m!r} "
                             f"on {b.to_string()}")
        q[i, m] = 1.0
    return q


def _q_of(agent):
    q = getattr(agent, "q", agent)
    if isinstance(q, np.ndarray) and q.shape == (19683, 9) and q.dtype == np.float64:
        bad = ~np.isfinite(q)
        if bad.any():
            st, cell = np.argwhere(bad)[0]
            raise ValueError(f"agent Q table has {int(bad.sum())} non-finite value(s) (NaN or "
                             f"inf), first at state {st}, cell {cell}: {q[st, cell]}")
        return np.ascontiguousarray(q)
    if callable(getattr(agent, "select_move", None)):
        return policy_table(agent)
    raise ValueError("agent must be a QAgent, a float64 (19683, 9) Q array, or an agent "
                     f"with select_move(board); got {type(agent).__name__}")


def oracle(board):
    """``(value, optimal_moves)`` of ``board`` for the side to move: value +1
    win, 0 draw, -1 loss with perfect play; the list of moves achieving it
    (empty if the game is over)."""
    _util.check_board(board, Board, "the Tic-Tac-Toe oracle")
    i = board.index
    m = int(_OPTIMAL[i])
    return int(_VALUE[i]), [c for c in range(9) if m >> c & 1]


@dataclasses.dataclass(frozen=True)
class Optimality:
    """Counts of decision positions where the greedy move is optimal."""
    optimal: int
    positions: int          # 4520
    optimal_reached_x: int
    reached_x: int          # decision positions the agent reaches playing X greedily
    optimal_reached_o: int
    reached_o: int

    @property
    def rate(self):
        return self.optimal / self.positions

    @property
    def rate_reached_x(self):
        return self.optimal_reached_x / self.reached_x

    @property
    def rate_reached_o(self):
        return self.optimal_reached_o / self.reached_o

    def __repr__(self):
        return (f"Optimality(all {self.optimal}/{self.positions} = {self.rate:.2%}; "
                f"reached as X {self.optimal_reached_x}/{self.reached_x} = {self.rate_reached_x:.2%}; "
                f"reached as O {self.optimal_reached_o}/{self.reached_o} = {self.rate_reached_o:.2%})")


def optimality(agent):
    """How often the agent's greedy move is game-theoretically optimal.

    Over all 4520 non-terminal reachable positions, and separately over the
    positions where the agent is to move that it reaches playing its own greedy
    moves against every possible opponent reply, as X and as O.
    Takes well under a millisecond.
    """
    return Optimality(*_oracle.optimality_counts(_q_of(agent)))


@dataclasses.dataclass(frozen=True)
class ExactResult:
    """Exact outcome probabilities from the agent's point of view."""
    win: float
    draw: float
    loss: float
    side: str

    def __repr__(self):
        return (f"ExactResult(side={self.side!r}: wins {self.win:.4%}, draws {self.draw:.4%}, "
                f"losses {self.loss:.4%})")


def exact_vs_random(agent, side="O"):
    """Exact win/draw/loss probabilities of the greedy agent on ``side`` ("X"
    or "O") against a uniformly random opponent, by enumerating every reply."""
    _util.check_choice("side", side, tuple(_SIDE))
    return ExactResult(*_oracle.exact_vs_random(_q_of(agent), _SIDE[side]), side)


@dataclasses.dataclass(frozen=True)
class WorstCase:
    """The agent's result against the most damaging opponent."""
    outcome: str        # "win", "draw" or "loss"
    line: tuple         # one game (cells in move order) reaching it
    side: str

    @property
    def never_loses(self):
        return self.outcome != "loss"


def worst_case(agent, side="O"):
    """Worst result of the greedy agent on ``side`` over all opponent play,
    with one move sequence that produces it (e.g. a losing line)."""
    _util.check_choice("side", side, tuple(_SIDE))
    v, line = _oracle.worst_case(_q_of(agent), _SIDE[side])
    return WorstCase(_OUTCOME[v], tuple(line), side)


def best_vs_random(side="O", never_lose=False):
    """The highest exact win rate any agent on ``side`` can reach against a
    uniformly random opponent (``never_lose``: among agents that never lose).
    99.479% as X (either way); as O 93.86%, or 91.64% never losing."""
    _util.check_choice("side", side, tuple(_SIDE))
    return _oracle.best_vs_random(_SIDE[side], _util.check_bool("never_lose", never_lose))


def exact_report(agent):
    """All exact measures in one dict (used for learning curves)."""
    q = _q_of(agent)
    o = _oracle.optimality_counts(q)
    x = _oracle.exact_vs_random(q, 0)
    y = _oracle.exact_vs_random(q, 1)
    return {"optimality": o[0] / o[1], "optimality_reached_x": o[2] / o[3],
            "optimality_reached_o": o[4] / o[5],
            "exact_win_x": x[0], "exact_draw_x": x[1], "exact_loss_x": x[2],
            "exact_win_o": y[0], "exact_draw_o": y[1], "exact_loss_o": y[2]}
