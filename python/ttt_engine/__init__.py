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
import sys

__version__ = "0.1.0"


def _game_list(path=os.path.join(os.path.dirname(os.path.abspath(__file__)), "_core", "games",
                                  "list.txt")):
    """The keys of the compiled layer's game list (``src/engine/games/list.txt``,
    installed beside the compiled modules), in its order: the one list of games
    (the registry, ``ttt_engine._registry``, and the attributes below follow it)."""
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
    "QAgent": "ttt_engine.ttt.qagent", "EvalResult": "ttt_engine.ttt.qagent",
    "train": "ttt_engine.ttt.qagent", "evaluate": "ttt_engine.ttt.qagent",
    "optimality": "ttt_engine.ttt.exact", "exact_vs_random": "ttt_engine.ttt.exact",
    "worst_case": "ttt_engine.ttt.exact", "oracle": "ttt_engine.ttt.exact",
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
_OTHER_MODULES = ("plot", "tree_agents", "cli")

__all__ = [*_EXPORTS, *_MODULES]


def __getattr__(name):
    module = _EXPORTS.get(name)
    if module is not None:
        value = getattr(importlib.import_module(module), name)
    elif name in _MODULES or name in _OTHER_MODULES:
        value = importlib.import_module(f"{__name__}.{name}")
    elif _is_moved(name):           # a module that moved into its game's package
        value = importlib.import_module(_moved()[name])
    else:
        raise AttributeError(f"module 'ttt_engine' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__():
    return sorted([*__all__, "__version__"])


# ---------------------------------------------------------------- moved modules
# A game's modules live in its package (``ttt_engine.<key>.*``); the paths they had
# before (``ttt_engine.<old>``) are the game entry's ``moved`` table (``Game.moved``:
# old path below ``ttt_engine`` -> new module name).  The finder below makes an old
# path the same module object as the new one (``import``, ``from ... import``
# and ``python -m`` alike), so that code written against the old paths keeps working.
_MOVED = None


def _moved():
    """``{old path below ttt_engine: new module name}`` of every game of the game
    list (each game's package is imported the first time this is asked)."""
    global _MOVED
    if _MOVED is None:
        table = {}
        for key in _game_list():
            table.update(importlib.import_module(f"{__name__}.{key}").GAME.moved)
        _MOVED = table
    return _MOVED


def _is_moved(name):
    """Whether ``name`` is an old module path (not a module here: ``from ttt_engine
    import x`` asks for the attribute before it imports the submodule ``x``)."""
    here = os.path.dirname(os.path.abspath(__file__))
    if name.startswith("__") or _MovedFinder._busy or os.path.exists(os.path.join(here, name)) \
            or os.path.exists(os.path.join(here, name + ".py")):
        return False
    _MovedFinder._busy = True
    try:
        return name in _moved()
    except Exception:               # a game that cannot load: not an old path
        return False
    finally:
        _MovedFinder._busy = False


class _MovedLoader:
    """Loads an old path as the module of its new name (the same object)."""

    def __init__(self, target):
        self.target = target

    def create_module(self, spec):
        module = importlib.import_module(self.target)
        self._spec = module.__spec__
        return module

    def exec_module(self, module):
        module.__spec__ = self._spec        # the import machinery set the old name's spec

    def get_code(self, fullname):           # python -m <old path>
        import importlib.util
        spec = importlib.util.find_spec(self.target)
        return spec.loader.get_code(self.target)


class _MovedFinder:
    """A ``sys.meta_path`` finder of the old paths (asked after the real ones)."""

    _busy = False

    @classmethod
    def find_spec(cls, fullname, path=None, target=None):
        prefix = f"{__name__}."
        if cls._busy or not fullname.startswith(prefix):
            return None
        cls._busy = True            # the games' packages import while the table is read
        try:
            new = _moved().get(fullname[len(prefix):])
        except Exception:           # a game that cannot load: the old path is not found
            new = None
        finally:
            cls._busy = False
        if new is None:
            return None
        import importlib.machinery
        import importlib.util
        real = importlib.util.find_spec(new)
        # the new module's file as the origin: python -m <old path> shows it as argv[0]
        return importlib.machinery.ModuleSpec(fullname, _MovedLoader(new),
                                              origin=real.origin if real else None)


if not any(getattr(f, "__name__", None) == "_MovedFinder" for f in sys.meta_path):
    sys.meta_path.append(_MovedFinder)
