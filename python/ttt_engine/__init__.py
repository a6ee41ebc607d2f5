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


# public name -> the module that defines it (and the names each game exports here:
# its entry's ``exports``)
_EXPORTS = {
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


def _all():
    return [*_game_tables()[0], *_EXPORTS, *_MODULES]


def __getattr__(name):
    if name == "__all__":
        return _all()
    module = _EXPORTS.get(name)
    if module is not None:
        value = getattr(importlib.import_module(module), name)
    elif name in _MODULES or name in _OTHER_MODULES:
        value = importlib.import_module(f"{__name__}.{name}")
    elif _is_game_name(name, 0):    # a name a game exports here
        value = getattr(importlib.import_module(_game_tables()[0][name]), name)
    elif _is_game_name(name, 1):    # a module that moved into its game's package
        value = importlib.import_module(_game_tables()[1][name])
    else:
        raise AttributeError(f"module 'ttt_engine' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__():
    return sorted([*_all(), "__version__"])


# ---------------------------------------------------------------- the games' tables
# What each game's entry adds here: ``exports`` (names of its modules the package
# exports: Tic-Tac-Toe's ``Board``, ``QAgent``, ``train``, ...) and ``moved`` (the paths
# its modules had before they moved into its package, ``ttt_engine.<old>``: old path
# below ``ttt_engine`` -> new module name).  The finder below makes an old path the
# same module object as the new one (``import``, ``from ... import`` and ``python -m``
# alike), so that code written against the old paths keeps working.
_TABLES = None


def _game_tables():
    """``({name: module}, {old path: module})``: every game's ``exports`` (the
    first game of the list that exports a name gives it) and ``moved``; each
    game's package is imported the first time this is asked."""
    global _TABLES
    if _TABLES is None:
        exports, moved = {}, {}
        for key in _game_list():
            entry = importlib.import_module(f"{__name__}.{key}").GAME
            for name, module in entry.exports.items():
                exports.setdefault(name, module)
            moved.update(entry.moved)
        _TABLES = exports, moved
    return _TABLES


def _moved():
    return _game_tables()[1]


def _is_game_name(name, table):
    """Whether ``name`` is in the games' table ``table`` (0 exports, 1 moved) and
    not a module here (``from ttt_engine import x`` asks for the attribute before
    it imports the submodule ``x``)."""
    here = os.path.dirname(os.path.abspath(__file__))
    if name.startswith("__") or _MovedFinder._busy or os.path.exists(os.path.join(here, name)) \
            or os.path.exists(os.path.join(here, name + ".py")):
        return False
    _MovedFinder._busy = True
    try:
        return name in _game_tables()[table]
    except Exception:               # a game that cannot load: not its name
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
