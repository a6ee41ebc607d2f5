"""What a learned table agent would play on, move after move: the principal
variations of the analysis (:mod:`ttt_engine.analysis`) for the agents that
play greedily from a table, read without changing the agent.

Two kinds, recognised by what they offer (no game is named):

- a Q table (``q_values(board) -> {move: Q}``, Tic-Tac-Toe's ``QAgent``):
  the move of highest Q, the lowest move among equal ones (the agent's own
  rule); every position has a Q row, so a line runs to the end of the game;
- state values (``values.get(board) -> (estimate, observations) | None``,
  Quixo's ``GreedyValueAgent``): the move to the position of highest
  estimate for its mover (a move that ends the game by its true result, as
  the agent scores it), the first in move order among equal ones (the agent
  draws among them); a line stops before a move whose position the table
  has never seen, where the agent's choice rests on nothing learned.

Both sides play the agent's choice, as it plays itself.
"""
from __future__ import annotations

__all__ = ["value_estimates", "greedy_lines"]


def value_estimates(agent, board):
    """``{move: (estimate, observations)}``: the state-value agent's view of
    each legal move of ``board``, the estimated score in [0, 1] of the
    position after it for the side to move now, and the table entries it
    rests on (None for a move that ends the game, scored by its result)."""
    me = board.to_move
    exact_terminal = getattr(agent, "exact_terminal", True)
    out = {}
    for m in board.legal_moves:
        child = board.copy()
        child.push(m)
        if child.is_terminal() and exact_terminal:
            w = child.winner
            out[m] = (1.0 if w == me else 0.5 if w == "draw" else 0.0), None
        else:
            got = agent.values.get(child)
            out[m] = (getattr(agent, "unknown", 0.5), 0) if got is None else got
    return out


def _choice(agent, board):
    """The agent's greedy move on ``board`` and whether it rests on anything
    learned."""
    if hasattr(agent, "q_values"):
        q = agent.q_values(board)
        return max(q, key=lambda m: (q[m], -m)), True
    est = value_estimates(agent, board)
    best = None
    for m, (v, _) in est.items():          # legal-move order: ties to the first
        if best is None or v > est[best][0]:
            best = m
    seen = est[best][1]
    return best, seen is None or seen > 0


def greedy_lines(agent, board, plies):
    """``{move: line}`` for every legal move of ``board``: the move, then the
    agent's greedy choice for whichever side is to move, at most ``plies``
    moves in all, ending where the game does (or, for state values, before a
    move to a position the table has not seen)."""
    lines = {}
    for m in board.legal_moves:
        b = board.copy()
        b.push(m)
        line = [m]
        while len(line) < plies and not b.is_terminal():
            move, learned = _choice(agent, b)
            if not learned:
                break
            line.append(move)
            b.push(move)
        lines[m] = line
    return lines
