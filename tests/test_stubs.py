"""The typed stubs (.pyi) of the compiled public modules match what they define."""
import ast
import importlib
import inspect
import pathlib

import pytest

CORE = pathlib.Path(importlib.import_module("ttt_engine._core").__file__).parent
MODULES = ["ttt", "uttt", "clobber", "quixo"]
# Board methods agreed for every game that some builds may not have yet
OPTIONAL = {"num_actions", "action_mask", "observation", "move_to_action", "action_to_move"}


def _stub(name):
    tree = ast.parse((CORE / f"{name}.pyi").read_text())
    top, classes = set(), {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            top.add(node.name)
            if isinstance(node, ast.ClassDef):
                classes[node.name] = {n.name for n in node.body
                                      if isinstance(n, (ast.FunctionDef, ast.AnnAssign))
                                      and not isinstance(n, ast.AnnAssign)} | {
                    n.target.id for n in node.body if isinstance(n, ast.AnnAssign)}
        elif isinstance(node, ast.AnnAssign):
            top.add(node.target.id)
    return top, classes


def _public(obj, keep=("_repr_svg_",)):
    return {k for k in dir(obj) if not k.startswith("_") or k in keep}


@pytest.mark.parametrize("name", MODULES)
def test_stub_lists_every_public_name(name):
    mod = importlib.import_module(f"ttt_engine._core.{name}")
    top, classes = _stub(name)
    defined = {k for k in _public(mod) if not inspect.ismodule(getattr(mod, k))}
    defined.discard("namedtuple")          # a helper the module imports
    assert defined == top
    board = _public(mod.Board)
    stub_board = classes["Board"] - {"__init__", "__eq__", "__hash__"}
    assert board - stub_board == set(), "missing in the stub"
    assert stub_board - board <= OPTIONAL, "in the stub but not in the class"


@pytest.mark.parametrize("name", MODULES)
def test_stub_parameters_match(name):
    mod = importlib.import_module(f"ttt_engine._core.{name}")
    tree = ast.parse((CORE / f"{name}.pyi").read_text())
    board = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Board")
    for fn in board.body:
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
        got = [p for p in sig.parameters if p not in ("self", "cls")]
        assert got == want, f"{name}.Board.{fn.name}"
