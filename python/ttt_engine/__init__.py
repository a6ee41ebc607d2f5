"""ttt_engine: game-AI engine with Cython hot paths.

Tic-Tac-Toe with tabular Q-learning, exact alpha-beta and MCTS; Ultimate
Tic-Tac-Toe, Clobber and Quixo on the same search core.
"""
from ttt_engine.ttt import Board
from ttt_engine.qagent import QAgent, EvalResult, train, evaluate

__all__ = ["Board", "QAgent", "EvalResult", "train", "evaluate"]
__version__ = "0.1.0"
