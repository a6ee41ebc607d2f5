"""Every ``ttt_engine`` import path the docs name resolves.

The paths are read from README.md and docs/*.md: every dotted name
``ttt_engine.a.b`` (a module, or a name in one) and every name of a
``from ttt_engine.x import a, b`` line.  Each resolves: the longest prefix that
is a module is imported, the rest are attributes of it.  A path of an optional
extra that is not installed is skipped; a path that is a template (``games.g``),
a placeholder or a model-file kind (``ttt_engine.Network``: a string written in
files, not an import path) is not an import path.

The modules that moved into their game's package keep their old paths
(``ttt_engine.connect4_solve``, ``ttt_engine.clobber_play``,
``ttt_engine.qagent``, ...): each game entry's ``moved`` table; the old path
gives the very module of the new one.
"""
from __future__ import annotations

import importlib
import importlib.util
import os
import re
import subprocess
import sys

import pytest

from conftest import PYDIR, ROOT

from ttt_engine import _modelfile, games

#: a dotted ``ttt_engine`` path (not part of a file path or a longer word)
_PATH = re.compile(r"(?<![\w/.-])ttt_engine(?:\.[A-Za-z_]\w*)+")
_FROM = re.compile(r"^\s*(?:>>> )?from\s+(ttt_engine(?:\.\w+)*)\s+import\s+\(?([\w, \t]+)",
                   re.M)
#: what the docs write that is not an import path: templates and placeholders
NOT_PATHS = {"ttt_engine._core.games.g.board", "ttt_engine._core.games.g.rules",
             "ttt_engine._core.x"}


#: file names (``uttt.npz``) look like a module's name
FILE_TYPES = {"md", "npz", "png", "pyx", "pxd", "json", "jsonl", "py", "bin", "txt", "csv"}


def _is_module(name):
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def documented_paths():
    """``{path: the file that names it first}`` over README.md and docs/*.md."""
    pages = [os.path.join(ROOT, "README.md")]
    docs = os.path.join(ROOT, "docs")
    if not os.path.isdir(docs):
        pytest.skip(f"the repository's docs are absent ({docs})")
    pages += sorted(os.path.join(docs, f) for f in os.listdir(docs) if f.endswith(".md"))
    found = {}
    for page in pages:
        with open(page, encoding="utf-8") as f:
            text = f.read()
        for m in _PATH.finditer(text):
            found.setdefault(m.group(0), os.path.basename(page))
        aliases = {}
        for m in _FROM.finditer(text):
            for name in m.group(2).split(","):
                words = name.split()
                if words:
                    found.setdefault(f"{m.group(1)}.{words[0]}", os.path.basename(page))
                    alias = words[2] if len(words) == 3 and words[1] == "as" else words[0]
                    aliases[alias] = f"{m.group(1)}.{words[0]}"
        # a name used through a module imported on the page: ``connect4.solve(...)``
        # after ``from ttt_engine import connect4``
        for alias, target in aliases.items():
            if not _is_module(target):
                continue
            for m in re.finditer(rf"(?<![\w./-]){re.escape(alias)}\.([A-Za-z_]\w*)(?![\w.-])",
                                 text):
                if m.group(1) not in FILE_TYPES:
                    found.setdefault(f"{target}.{m.group(1)}", os.path.basename(page))
    return found


def resolve(path):
    """The object ``path`` names; ``ModuleNotFoundError`` of a missing
    dependency passes through (``.name`` is not under ``ttt_engine``)."""
    parts = path.split(".")
    for i in range(len(parts), 0, -1):
        name = ".".join(parts[:i])
        try:
            obj = importlib.import_module(name)
        except ModuleNotFoundError as e:
            if e.name is not None and not e.name.startswith("ttt_engine"):
                raise               # an optional extra
            continue
        for attr in parts[i:]:
            obj = getattr(obj, attr)
        return obj
    raise ImportError(f"no module of {path}")


PATHS = sorted(documented_paths())


def test_the_docs_name_many_paths():
    # the reader sees the docs' paths, or the check below proves nothing
    assert len(PATHS) > 80
    for path in ("ttt_engine.connect4.solve", "ttt_engine.games.get", "ttt_engine.search.MCTS",
                 "ttt_engine.tree_agents.TreeQAgent"):
        assert path in PATHS, path


@pytest.mark.parametrize("path", PATHS)
def test_every_documented_path_resolves(path):
    if path in NOT_PATHS or path in _modelfile.KINDS:
        return
    try:
        obj = resolve(path)
    except ModuleNotFoundError as e:
        pytest.skip(f"{path} needs {e.name}, an optional extra that is not installed")
    assert obj is not None


def _moved():
    return {old: new for g in games.GAMES.values() for old, new in g.moved.items()}


@pytest.mark.parametrize("old, new", sorted(_moved().items()))
def test_a_moved_module_keeps_its_old_path(old, new):
    module = importlib.import_module(new)
    assert importlib.import_module(f"ttt_engine.{old}") is module
    assert module.__spec__.name == new          # the old path leaves the module's own name
    if "." not in old:
        import ttt_engine
        assert getattr(ttt_engine, old) is module


def test_old_paths_work_in_a_fresh_interpreter():
    """``from`` imports of old paths, before and after the new ones, and
    ``python -m`` of an old path."""
    code = ("from ttt_engine import connect4_solve, clobber_play, qagent\n"
            "from ttt_engine.cli import connect4 as c4\n"
            "from ttt_engine.connect4_book import load\n"
            "import ttt_engine.exact, ttt_engine.connect4\n"
            "assert connect4_solve is ttt_engine.connect4.solver\n"
            "assert ttt_engine.connect4.solve is not connect4_solve  # the function stays\n"
            "assert c4 is ttt_engine.connect4.commands and qagent.QAgent\n"
            "assert ttt_engine.exact is ttt_engine.ttt.exact\n"
            "print('ok')\n")
    env = dict(os.environ, PYTHONPATH=PYDIR + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         timeout=120)
    assert out.returncode == 0 and out.stdout.split() == ["ok"], out.stderr
    out = subprocess.run([sys.executable, "-m", "ttt_engine.uttt_play", "--help"],
                         capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0 and "usage:" in out.stdout, out.stderr


def test_an_unknown_path_is_still_an_import_error():
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("ttt_engine.no_such_module")
    import ttt_engine
    with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
        ttt_engine.no_such_name


def test_the_perfect_agent_names_its_new_place():
    from ttt_engine.connect4 import book
    with pytest.raises(AttributeError, match="ttt_engine.connect4.perfect.PerfectAgent"):
        book.PerfectAgent
