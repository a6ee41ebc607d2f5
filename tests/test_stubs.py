"""The typed stubs (.pyi) of the compiled public modules match what they define.

A game's stub ``Board`` may derive from a class of another stub in ``_core``
(``from .._board import GameBoard``: the verbs every board shares are declared
once); the checks follow those bases, so every compiled public method must be
declared in the class or one of its stub bases."""
import ast
import importlib
import inspect
import pathlib

import pytest

CORE = pathlib.Path(importlib.import_module("ttt_engine._core").__file__).parent
# every registered game's compiled board module, by dotted path under ``ttt_engine._core``
MODULES = [g.Board.__module__.removeprefix("ttt_engine._core.")
           for g in importlib.import_module("ttt_engine.games").GAMES.values()]
# Board methods agreed for every game that some builds may not have yet
OPTIONAL = {"num_actions", "action_mask", "observation", "move_to_action", "action_to_move"}


def _tree(name):
    return ast.parse((CORE.joinpath(*name.split(".")).with_suffix(".pyi")).read_text())


def _stub_imports(name, tree):
    """Names stub ``name`` imports from other stubs by relative import:
    ``{name: dotted stub module name}``."""
    found = {}
    package = name.split(".")[:-1]
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.level >= 1 and node.module:
            base = package[:len(package) - (node.level - 1)]
            for alias in node.names:
                found[alias.asname or alias.name] = ".".join(base + [node.module])
    return found


def _class_members(name, cls):
    """The stub class ``cls`` of stub module ``name`` and its stub bases: a dict
    of member name -> AST node (FunctionDef or AnnAssign); a class's own
    definitions win over its bases', as at run time."""
    tree = _tree(name)
    node = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls)
    imports = _stub_imports(name, tree)
    members = {}
    for base in node.bases:
        if isinstance(base, ast.Name) and base.id in imports:
            members.update(_class_members(imports[base.id], base.id))
        elif isinstance(base, ast.Name) and any(
                isinstance(n, ast.ClassDef) and n.name == base.id for n in tree.body):
            members.update(_class_members(name, base.id))
    for n in node.body:
        if isinstance(n, ast.FunctionDef):
            members[n.name] = n
        elif isinstance(n, ast.AnnAssign):
            members[n.target.id] = n
    return members


def _stub(name):
    top = set()
    for node in _tree(name).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            top.add(node.name)
        elif isinstance(node, ast.AnnAssign):
            top.add(node.target.id)
    return top


def _public(obj, keep=("_repr_svg_",)):
    return {k for k in dir(obj) if not k.startswith("_") or k in keep}


def test_shared_verbs_are_inherited():
    """The shared stub base resolves, and each game's Board takes its verbs from it."""
    shared = set(_class_members("games._board", "GameBoard"))
    assert {"push", "pop", "legal_moves", "copy", "move_to_action"} <= shared
    for name in MODULES:
        assert shared <= set(_class_members(name, "Board")), name


@pytest.mark.parametrize("name", MODULES)
def test_stub_lists_every_public_name(name):
    mod = importlib.import_module(f"ttt_engine._core.{name}")
    top = _stub(name)
    defined = {k for k in _public(mod) if not inspect.ismodule(getattr(mod, k))}
    defined.discard("namedtuple")          # a helper the module imports
    assert defined == top
    board = _public(mod.Board)
    stub_board = set(_class_members(name, "Board")) - {"__init__", "__eq__", "__hash__"}
    assert board - stub_board == set(), "missing in the stub"
    assert stub_board - board <= OPTIONAL, "in the stub but not in the class"


@pytest.mark.parametrize("name", MODULES)
def test_stub_parameters_match(name):
    mod = importlib.import_module(f"ttt_engine._core.{name}")
    for fn in _class_members(name, "Board").values():
        if not isinstance(fn, ast.FunctionDef) or fn.name.startswith("__"):
            continue
        if any(isinstance(d, ast.Name) and d.id == "property" for d in fn.decorator_list):
            continue
        real = getattr(mod.Board, fn.name, None)
        if real is None:
            continue
        try:
            sig = inspect.signature(real)
        except (TypeError, ValueError):
            continue
        want = [a.arg for a in fn.args.args if a.arg not in ("self", "cls")]
        want += [a.arg for a in (fn.args.vararg, *fn.args.kwonlyargs, fn.args.kwarg) if a]
        got = [p for p in sig.parameters if p not in ("self", "cls")]
        assert got == want, f"{name}.Board.{fn.name}"
