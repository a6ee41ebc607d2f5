"""Game-generic search: minimax, negamax, alpha-beta (table, ordering, iterative
deepening), MCTS (UCT with a node arena and tree reuse) and PUCT (AlphaZero's
search).

Every function takes any game's ``Board`` (Tic-Tac-Toe, and every game added to
the ``GameBoard`` fused type in ``src/engine/algorithms/game.pxd``) and searches a private
copy: the caller's board is never changed.  The hot loops are in
``ttt_engine._core.algorithms.alphabeta``, ``.mcts`` and ``.puct`` (Cython, no GIL, no
Python object per node); this package validates arguments and packages results:

- :mod:`~ttt_engine.search.depth_first`: alpha-beta, minimax, negamax, move
  values, solve, optimal moves, and the searcher that owns a table;
- :mod:`~ttt_engine.search.mcts`: :class:`MCTS`;
- :mod:`~ttt_engine.search.puct`: :class:`PUCT` and the merging of root-parallel trees;
- :mod:`~ttt_engine.search.endgame`: the exact endgame solve of both tree searches;
- :mod:`~ttt_engine.search.common`: what they share (the one-search-at-a-time
  guard, :class:`SearchResult`, the checks of boards, budgets and playouts).

Scores (alpha-beta family) are from the point of view of the side to move at
the root: a win ``p`` plies from the root scores ``WIN_SCORE - p``
(``WIN_SCORE = 1e9``), a loss ``-(WIN_SCORE - p)``, a draw 0, and a horizon
position the game's static evaluation (``|v| < 1e6``).  So among wins the
fastest scores highest, and among losses the slowest.
"""
from __future__ import annotations

# every name other modules, tests and benchmarks use from ``ttt_engine.search``
from ttt_engine.search.common import (  # noqa: F401
    MATE_BOUND, MAX_PLY, PLAYOUTS, WIN_SCORE, SearchResult, _budget, _check_board, _dispatch,
    _OneSearchAtATime, _seconds_left, check_playout, playout_name,
)
from ttt_engine.search.depth_first import (  # noqa: F401
    DEFAULT_TT_SIZE, ABSearcher, _local, alphabeta, exact_move_values,
    limit_needed, minimax, move_values, negamax, optimal_moves, refuse_unbounded, solve,
)
from ttt_engine.search.endgame import (  # noqa: F401
    ENDGAME_CHECK_SHARE, _avoid_loss, _keep_draw, endgame_empty_cells, endgame_search,
    endgame_search_beside, endgame_solve,
)
from ttt_engine.search.mcts import MCTS, _rebuild_mcts  # noqa: F401
from ttt_engine.search.puct import (  # noqa: F401
    PUCT, _puct_part, _rebuild_puct, check_tree_threads, merge_puct_lines, merge_puct_roots,
)

__all__ = [
    "SearchResult", "alphabeta", "minimax", "negamax", "move_values", "solve",
    "optimal_moves", "MCTS", "PUCT", "ABSearcher", "WIN_SCORE", "MAX_PLY",
]
