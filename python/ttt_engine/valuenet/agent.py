"""The ``valuenet`` engines' agent: a game's exact answer where it has one at
hand, else a search with the value network.

A value network is an estimate; where the game can answer exactly in a small
share of the move's time (its exact solve, ``Game.endgame_solve``: Connect
Four's book and solver, ...), the exact answer is played and the search is not
run.  Everything else is the inner agent's (an ``MCTSAgent`` or
``AlphaBetaAgent`` with the network).
"""
from __future__ import annotations

import time as _time

from ttt_engine import games
from ttt_engine._util import check_real

__all__ = ["ExactFirstAgent"]


class ExactFirstAgent:
    """``inner``'s moves, except where the game's exact solve (its
    ``endgame_solve`` fact) proves the position within ``exact_share`` of the
    move's ``time`` (a simulation or depth budget: the solve's own node bound,
    so that a seed repeats).  ``inner`` is given the rest of the time: all
    that the solve left (a solve that gives up at once leaves it all), and the
    whole of it in :meth:`analyse`.

    ``last_answer``: ``"exact"`` or ``"search"``, which one chose the last move.
    """

    def __init__(self, inner, game, time=None, exact_share=0.3):
        self.inner = inner
        self._game = games.get(game)
        self.game = self._game.key          # agents name their game by its registry key
        self.exact_share = check_real("exact_share", exact_share, low=0, high=1, high_open=True)
        self.time = time
        if time is not None and getattr(inner, "time", None) is not None:
            inner.time = self._search_time()
        self.name = inner.name
        self.last_answer = None

    def _exact(self, board):
        solve = self._game.endgame_solve
        if solve is None or self.exact_share == 0 or board.is_terminal():
            return None
        return solve(board, None if self.time is None else self.time * self.exact_share)

    def select_move(self, board):
        start = _time.perf_counter()
        found = self._exact(board)
        if found is not None:
            self.last_answer = "exact"
            return found[1]
        self.last_answer = "search"
        if self.time is None:
            return self.inner.select_move(board)
        # the solve's share is a cap: what it did not use is the search's
        left = max(self.time - (_time.perf_counter() - start), self._search_time())
        return self._with_time(left, self.inner.select_move, board)

    def analyse(self, board, **live):
        """The inner search's analysis, given the move's whole time (the exact
        answer, where there is one, is what ``select_move`` plays)."""
        if self.time is None:
            return self.inner.analyse(board, **live)
        return self._with_time(self.time, self.inner.analyse, board, **live)

    def _search_time(self):
        return self.time * (1.0 - self.exact_share)

    def _with_time(self, seconds, run, *args, **kw):
        if getattr(self.inner, "time", None) is None:
            return run(*args, **kw)
        self.inner.time = seconds
        try:
            return run(*args, **kw)
        finally:
            self.inner.time = self._search_time()

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
