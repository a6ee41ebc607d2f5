"""The ``valuenet`` engines' agent: a game's exact answer where it has one at
hand, else a search with the value network.

A value network is an estimate; where the game can answer exactly in a small
share of the move's time (its exact solve, ``Game.endgame_solve``: Connect
Four's book and solver, ...), the exact answer is played and the search is not
run.  Everything else is the inner agent's (an ``MCTSAgent`` or
``AlphaBetaAgent`` with the network).
"""
from __future__ import annotations

from ttt_engine import games
from ttt_engine._util import check_real

__all__ = ["ExactFirstAgent"]


class ExactFirstAgent:
    """``inner``'s moves, except where the game's exact solve (its
    ``endgame_solve`` fact) proves the position within ``exact_share`` of the
    move's ``time`` (a simulation or depth budget: the solve's own node bound,
    so that a seed repeats).  ``inner`` is given the rest of the time.

    ``last_answer``: ``"exact"`` or ``"search"``, which one chose the last move.
    """

    def __init__(self, inner, game, time=None, exact_share=0.3):
        self.inner = inner
        self._game = games.get(game)
        self.game = self._game.key          # agents name their game by its registry key
        self.exact_share = check_real("exact_share", exact_share, low=0, high=1, high_open=True)
        self.time = time
        if time is not None and getattr(inner, "time", None) is not None:
            inner.time = time * (1.0 - self.exact_share)
        self.name = inner.name
        self.last_answer = None

    def _exact(self, board):
        solve = self._game.endgame_solve
        if solve is None or self.exact_share == 0 or board.is_terminal():
            return None
        return solve(board, None if self.time is None else self.time * self.exact_share)

    def select_move(self, board):
        found = self._exact(board)
        if found is not None:
            self.last_answer = "exact"
            return found[1]
        self.last_answer = "search"
        return self.inner.select_move(board)

    def analyse(self, board, **live):
        """The inner search's analysis (the exact answer, where there is one,
        is what ``select_move`` plays)."""
        return self.inner.analyse(board, **live)

    def reset(self, seed=None):
        if hasattr(self.inner, "reset"):
            self.inner.reset(seed)

    def __getattr__(self, name):
        # the inner agent's statistics and settings (last_stats, seed, ...)
        if name in ("inner", "_game"):
            raise AttributeError(name)
        return getattr(self.inner, name)

    def __repr__(self):
        return f"ExactFirstAgent({self.inner!r}, {self.game!r})"
