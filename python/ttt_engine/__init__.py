"""ttt_engine: game-AI engine with Cython hot paths.

Tic-Tac-Toe with tabular Q-learning, exact alpha-beta and MCTS; Ultimate
Tic-Tac-Toe, Clobber, Quixo and Connect Four on the same search core.  The game
modules (``ttt_engine.ttt``, ``.uttt``, ``.clobber``, ``.quixo``, ``.connect4``:
one per line of the game list) share one set of verbs and are listed by the
registry ``ttt_engine.games`` (see docs/api.md).

Everything here loads on first use, so ``import ttt_engine`` stays cheap.
"""
import importlib
import os

__version__ = "0.1.0"


def _game_list(path=os.path.join(os.path.dirname(os.path.abspath(__file__)), "_core", "games",
                                  "list.txt")):
    """The keys of the compiled layer's game list (``src/engine/games/list.txt``,
    installed beside the compiled modules), in its order: the one list of games
    (the registry, :mod:`ttt_engine._registry`, and the attributes below follow it)."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise ImportError(f"the game list {path} is missing ({e.strerror}): the package is "
                          "not built; reinstall it (pip install .)") from None
    fields = (line.split("#", 1)[0].split() for line in lines)
    return tuple(f[0] for f in fields if f)


# public name -> the module that defines it
_EXPORTS = {
    "Board": "ttt_engine.ttt",
    "QAgent": "ttt_engine.qagent", "EvalResult": "ttt_engine.qagent",
    "train": "ttt_engine.qagent", "evaluate": "ttt_engine.qagent",
    "optimality": "ttt_engine.exact", "exact_vs_random": "ttt_engine.exact",
    "worst_case": "ttt_engine.exact", "oracle": "ttt_engine.exact",
    "plot_history": "ttt_engine.plot",
    "SearchResult": "ttt_engine.search", "solve": "ttt_engine.search",
    "optimal_moves": "ttt_engine.search", "MCTS": "ttt_engine.search",
    "RandomAgent": "ttt_engine.agents", "PerfectAgent": "ttt_engine.agents",
    "MCTSAgent": "ttt_engine.agents", "AlphaBetaAgent": "ttt_engine.agents",
    "MinimaxAgent": "ttt_engine.agents", "play_match": "ttt_engine.agents",
    "load": "ttt_engine._modelfile",
}
# documented submodules, reachable as attributes without an explicit import: the
# registry, every game of the game list, the searches, the agents, the environments
_MODULES = ("games", *_game_list(), "search", "agents", "envs")
# further modules kept reachable by attribute for existing code (not listed by dir)
_OTHER_MODULES = ("qagent", "exact", "plot", "tree_agents", "clobber_play", "uttt_play", "cli")

__all__ = [*_EXPORTS, *_MODULES]


def __getattr__(name):
    module = _EXPORTS.get(name)
    if module is not None:
        value = getattr(importlib.import_module(module), name)
    elif name in _MODULES or name in _OTHER_MODULES:
        value = importlib.import_module(f"{__name__}.{name}")
    else:
        raise AttributeError(f"module 'ttt_engine' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__():
    return sorted([*__all__, "__version__"])
