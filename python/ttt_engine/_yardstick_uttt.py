"""Ultimate Tic-Tac-Toe's yardstick suite: positions whose exact solve fits.

Positions of uniformly random games and of MCTS games with a little
randomness, from the first one with at most :data:`MAX_EMPTY` empty cells in
the open local boards (what the endgame solve counts,
``uttt.endgame_empty_cells``) to the end, each scored by the package's
alpha-beta searched to the end of the game (``search.move_values``, every
move with a full window: the fastest win, the slowest loss), kept only when
the position's value is proven within :data:`CAP` seconds first (the
package's bounded solve, ``uttt.solve``'s, on the same table) and the move
scores are exact: the endgames of at most 24 empty cells, where every
move's full-window search takes well under a second (from 26 cells on it
takes seconds to minutes a position).
"""
from __future__ import annotations

from ttt_engine import _registry

__all__ = ["build", "MAX_EMPTY", "CAP"]

#: positions from this many empty cells in the open local boards on
MAX_EMPTY = 24
#: seconds the proof of a position's value may take (slower ones are left out)
CAP = 0.5


def build(seed=1, progress=True, size=1200, candidates=1600, max_empty=MAX_EMPTY, cap=CAP,
          checkpoint=None):
    """The suite: ``size`` positions of ``candidates`` scored, most critical
    (``checkpoint``: see ``_yardstick_build.sample_positions``)."""
    from ttt_engine import _verbs, uttt
    from ttt_engine._yardstick_build import compose, plies_score, sample_positions
    from ttt_engine.search import ABSearcher, move_values
    g = _registry.get("uttt")
    searcher = ABSearcher(1 << 20)

    def scorer(board):
        if _verbs.bounded_solve(board, None, cap, searcher=searcher).value == "unknown":
            return None
        scores, exact = move_values(board, depth=81, searcher=searcher)
        if not exact:
            return None
        return {int(m): plies_score(v) for m, v in scores.items()}

    strong = g.make_agent("mcts", simulations=100, seed=seed)
    found = sample_positions(
        "uttt", scorer, candidates, seed=seed, strong=strong, epsilon=0.15,
        accept=lambda b: uttt.endgame_empty_cells(b) <= max_empty, per_game=6,
        progress=progress, label="Ultimate Tic-Tac-Toe", checkpoint=checkpoint)
    return compose("uttt", found, size=size, seed=seed,
                   sources=("random games", "mcts (100 simulations), 15% random moves"),
                   info={"seed": seed, "max_empty": max_empty, "cap": cap,
                         "scorer": "alpha-beta to the end (search.move_values, exact)"})
