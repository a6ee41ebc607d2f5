"""Game-generic search: minimax, negamax, alpha-beta (table, ordering, iterative
deepening), MCTS (UCT with a node arena and tree reuse) and PUCT.

The implementation is being split by algorithm; for now it is all in
:mod:`ttt_engine.search.depth_first`, and every name is reachable here.
"""
from ttt_engine.search.depth_first import (  # noqa: F401
    ABSearcher, DEFAULT_TT_SIZE, ENDGAME_CHECK_SHARE, MATE_BOUND, MAX_PLY, MCTS, PLAYOUTS,
    PUCT, SMALL_TT_SIZE, WIN_SCORE, SearchResult, _avoid_loss, _budget, _check_board,
    _dispatch, _keep_draw, _local, _OneSearchAtATime, _puct_part, _rebuild_mcts, _rebuild_puct,
    _seconds_left, _warm_up, alphabeta, check_playout, check_tree_threads, endgame_empty_cells,
    endgame_search, endgame_search_beside, endgame_solve, exact_move_values, merge_puct_roots,
    minimax, move_values, negamax, optimal_moves, playout_name, refuse_unbounded, solve,
)
from ttt_engine.search.depth_first import __all__  # noqa: F401
