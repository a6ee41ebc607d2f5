"""Imports flow one way.

- The Python package (``python/ttt_engine/**/*.py``): the graph of its imports
  of ``ttt_engine`` modules has no cycle -- module-level imports and the ones
  inside functions alike (a function-level import is there for load cost, never
  to hide a cycle).  The registry finds a game's module by its key in the game
  list (``importlib``), as a plugin registry does: that is no import edge.  The
  implicit import of a parent package is not an edge (a package's ``__init__``
  imports nothing of its submodules' dependants eagerly).
- The compiled modules (``src/engine/**/*.pyx``) import from the Python package
  only ``ttt_engine._core.*`` and the leaf helpers :data:`LEAVES`, which import
  nothing of ``ttt_engine`` but each other (and compiled modules).
"""
from __future__ import annotations

import ast
import pathlib
import re
import subprocess
import sys

import pytest

import ttt_engine

PACKAGE = pathlib.Path(ttt_engine.__file__).resolve().parent
# the repository this test file belongs to (the package may be installed elsewhere)
ROOT = pathlib.Path(__file__).resolve().parent.parent
ENGINE = ROOT / "src" / "engine"
#: the Python helpers compiled modules may import
LEAVES = ("ttt_engine._util", "ttt_engine._svg", "ttt_engine._parallel", "ttt_engine._registry")
#: what a leaf may import besides the leaves: the package root (whose
#: ``__init__`` imports nothing of the package when it loads)
ROOT_PACKAGE = "ttt_engine"

def _module_name(path):
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules():
    return {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _imports(path, module, modules):
    """``[(target, lineno, lazy)]``: the ``ttt_engine`` modules ``path`` imports;
    ``lazy`` when the import is inside a function."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    is_package = path.name == "__init__.py"
    found = []

    def visit(node, lazy):
        for child in ast.iter_child_nodes(node):
            inner = lazy or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef,
                                               ast.Lambda))
            if isinstance(child, ast.Import):
                for alias in child.names:
                    if alias.name.split(".")[0] == "ttt_engine":
                        found.append((alias.name, child.lineno, lazy))
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    parts = module.split(".")
                    if not is_package:
                        parts = parts[:-1]
                    parts = parts[:len(parts) - (child.level - 1)]
                    base = ".".join(parts + ([base] if base else []))
                if base.split(".")[0] != "ttt_engine":
                    continue
                for alias in child.names:
                    sub = f"{base}.{alias.name}"
                    found.append((sub if sub in modules else base, child.lineno, lazy))
            visit(child, inner)

    visit(tree, False)
    return found


def _graph(lazy):
    modules = _modules()
    graph = {}
    for name, path in modules.items():
        graph[name] = sorted({t for t, _line, is_lazy in _imports(path, name, modules)
                              if t in modules and t != name and (lazy or not is_lazy)})
    return graph


def _components(graph):
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def connect(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(tuple(sorted(comp)))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    for v in sorted(graph):
        if v not in index:
            connect(v)
    return sorted(out)


def _cycle_in(graph, comp):
    """One cycle through the component ``comp``, as ``a -> b -> ... -> a``."""
    members = set(comp)
    start = comp[0]
    path, seen = [start], {start}
    while True:
        nxt = next(w for w in graph[path[-1]] if w in members)
        if nxt in seen:
            cycle = path[path.index(nxt):] + [nxt]
            return " -> ".join(cycle)
        path.append(nxt)
        seen.add(nxt)


def test_the_graph_sees_the_imports():
    # the graph is built from what the files say: known edges must be in it
    graph = _graph(lazy=False)
    assert "ttt_engine._modelfile" in graph["ttt_engine.ttt.qagent"]
    assert "ttt_engine._util" in graph["ttt_engine._parallel"]
    assert "ttt_engine.envs._games" in graph["ttt_engine.envs._batch"]
    assert "ttt_engine.evaluators" in _graph(lazy=True)["ttt_engine.search.puct"]   # in functions
    assert len(graph) > 60


def test_module_level_imports_have_no_cycle():
    graph = _graph(lazy=False)
    cycles = [_cycle_in(graph, comp) for comp in _components(graph)]
    assert not cycles, "import cycles at module level:\n" + "\n".join(cycles)


def test_no_cycle_through_function_level_imports():
    """With the imports inside functions too, there is no cycle."""
    graph = _graph(lazy=True)
    cycles = [_cycle_in(graph, comp) for comp in _components(graph)]
    assert not cycles, "import cycles (function-level imports counted):\n" + "\n".join(cycles)


def test_the_cycle_check_can_fail():
    graph = {"a": ["b"], "b": ["c"], "c": ["a"], "d": []}
    assert _components(graph) == [("a", "b", "c")]
    assert _cycle_in(graph, ("a", "b", "c")) == "a -> b -> c -> a"


def test_leaf_helpers_are_leaves():
    modules = _modules()
    for name in LEAVES:
        bad = [(t, line) for t, line, _lazy in _imports(modules[name], name, modules)
               if t not in LEAVES and t != ROOT_PACKAGE and not t.startswith("ttt_engine._core")]
        assert not bad, f"{name} is not a leaf: it imports {bad}"


_PY_IMPORT = re.compile(r"^\s*(?:from\s+([\w.]+)\s+import\s+(?!.*\bcimport\b)(.*)"
                        r"|import\s+([\w.]+))", re.M)


def _pyx_imports(path):
    """``[(module, lineno)]``: the Python (not ``cimport``) imports of
    ``ttt_engine`` in a Cython source."""
    out = []
    for m in _PY_IMPORT.finditer(path.read_text(encoding="utf-8")):
        line = path.read_text(encoding="utf-8").count("\n", 0, m.start()) + 1
        base, names, plain = m.group(1), m.group(2), m.group(3)
        if plain and plain.split(".")[0] == "ttt_engine":
            out.append((plain, line))
        elif base and base.split(".")[0] == "ttt_engine":
            if base == "ttt_engine":      # from ttt_engine import _util, _svg
                for n in names.strip("() \\").split(","):
                    out.append((f"ttt_engine.{n.split()[0]}", line))
            else:
                out.append((base, line))
    return out


def _sources():
    if not ENGINE.is_dir():
        pytest.skip(f"the Cython sources are not here ({ENGINE}): ttt_engine is installed "
                    "without its repository")
    return sorted(ENGINE.rglob("*.pyx"))


def test_pyx_import_scanner_sees_imports(tmp_path):
    f = tmp_path / "m.pyx"
    f.write_text("from ttt_engine._core.core.rng cimport rng_t\n"
                 "from ttt_engine._util import check_int\n"
                 "    from ttt_engine.envs._games import new_board\n"
                 "import ttt_engine.search\n"
                 "from ttt_engine import _svg, quixo\n")
    assert _pyx_imports(f) == [("ttt_engine._util", 2), ("ttt_engine.envs._games", 3),
                               ("ttt_engine.search", 4), ("ttt_engine._svg", 5),
                               ("ttt_engine.quixo", 5)]


def test_compiled_modules_import_only_core_and_leaves():
    bad = []
    for path in _sources():
        for module, line in _pyx_imports(path):
            if module in LEAVES or module.startswith("ttt_engine._core."):
                continue
            bad.append(f"{path.relative_to(ROOT)}:{line}: imports {module}")
    assert not bad, ("compiled modules may import only ttt_engine._core.* and "
                     f"{', '.join(LEAVES)}:\n" + "\n".join(bad))


_TTT_SOLVE = """
import sys
import ttt_engine.search as S
from ttt_engine._core.games.ttt.board import Board
b = Board()
assert S.alphabeta(b).value == 0.0 and S.solve(b) == 0 and S.optimal_moves(b)
assert S.minimax(Board.from_string("XO.X.O..."), 3).exact
assert S.MCTS(seed=1).search(b, simulations=200) in range(9)
print("\\n".join(sorted(m for m in sys.modules if m.startswith("ttt_engine"))))
"""


def test_search_loads_no_other_game_for_a_tic_tac_toe_solve():
    """``ttt_engine.search`` loads no other game's Python module for a
    Tic-Tac-Toe search, no solver and no learner: beside the search and its
    helpers, only the registry and Tic-Tac-Toe's own module, asked whether the
    game answers exact values itself.  (The compiled search modules
    themselves load every game's ``Board`` module when they load: Cython's
    fused-type dispatch needs all four types; that is all of the other games
    that is loaded.)"""
    out = subprocess.run([sys.executable, "-c", _TTT_SOLVE], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    loaded = set(out.stdout.split())
    python_layer = {m for m in loaded if not m.startswith("ttt_engine._core")}
    search = {"ttt_engine.search"} | {f"ttt_engine.search.{m}" for m in
                                       ("common", "depth_first", "endgame", "mcts", "puct")}
    registry = {"ttt_engine.games", "ttt_engine._registry", "ttt_engine._game_text"}
    ttt = {"ttt_engine.ttt", "ttt_engine._verbs", "ttt_engine.engines",   # and what it imports
           "ttt_engine._symmetry", "ttt_engine._modelfile"}
    # the game's value-network features (its registry entry holds them)
    ttt |= {"ttt_engine.valuenet", "ttt_engine.valuenet._featureset", "ttt_engine.ttt.features"}
    assert python_layer == search | registry | ttt | {"ttt_engine", "ttt_engine._util",
                                                      "ttt_engine._parallel"}, python_layer
    compiled = {m for m in loaded if m.startswith("ttt_engine._core.")
                and not m.endswith(("._core.games", "._core.algorithms"))}
    # network: PUCT's tree holds a CompiledModel (its type is imported with puct);
    # valuenet: MCTS's tree and alpha-beta's search take a CompiledValueNet (the same)
    allowed = {"ttt_engine._core.algorithms.alphabeta", "ttt_engine._core.algorithms.mcts",
               "ttt_engine._core.algorithms.puct", "ttt_engine._core.algorithms.arena",
               "ttt_engine._core.algorithms.network", "ttt_engine._core.algorithms.valuenet",
               # PUCT's Python face reads its lines and runs its network loop from these
               "ttt_engine._core.algorithms.puct_lines", "ttt_engine._core.algorithms.puct_network"}
    boards = {m for m in compiled if re.fullmatch(r"ttt_engine\._core\.games\.\w+(\.board)?", m)}
    assert compiled - boards <= allowed, compiled - boards - allowed


def test_search_names_no_game_module():
    """``ttt_engine.search`` asks the registry's lookups (``ttt_engine._registry``)
    for a game's facts: it imports no game's module and no game's board module."""
    modules = _modules()
    found = {t for name in modules if name.split(".")[:2] == ["ttt_engine", "search"]
             for t, _line, _lazy in _imports(modules[name], name, modules)}
    games = {t for t in found if t.startswith("ttt_engine._core.games")}
    assert games == set(), games
    assert "ttt_engine._registry" in found
    assert not found & {f"ttt_engine.{key}" for key in ttt_engine._game_list()}
