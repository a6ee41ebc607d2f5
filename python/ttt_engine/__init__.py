"""ttt_engine: game-AI engine with Cython hot paths.

Tic-Tac-Toe with tabular Q-learning, exact alpha-beta and MCTS; Ultimate
Tic-Tac-Toe, Clobber and Quixo on the same search core.
"""
from ttt_engine.ttt import Board
from ttt_engine.qagent import QAgent, EvalResult, train, evaluate
from ttt_engine.exact import optimality, exact_vs_random, worst_case, oracle
from ttt_engine.plot import plot_history

__all__ = ["Board", "QAgent", "EvalResult", "train", "evaluate",
           "optimality", "exact_vs_random", "worst_case", "oracle", "plot_history"]
__version__ = "0.1.0"

# Search core (issue 3): game-generic alpha-beta / MCTS and agents.
# (alphabeta/minimax/negamax live in ttt_engine.search: the names alphabeta and
# mcts are the Cython modules' names in this package.)
from ttt_engine.search import SearchResult, solve, optimal_moves, MCTS  # noqa: E402
from ttt_engine.agents import (  # noqa: E402
    RandomAgent, PerfectAgent, MCTSAgent, AlphaBetaAgent, MinimaxAgent, play_match,
)
from ttt_engine._modelfile import load  # noqa: E402

__all__ += [
    "SearchResult", "solve", "optimal_moves", "MCTS",
    "RandomAgent", "PerfectAgent", "MCTSAgent", "AlphaBetaAgent", "MinimaxAgent", "play_match",
    "load",
]
