"""Generic code names no game: a game lives in its folders alone.

A game's files are ``src/engine/games/<key>/`` (and its solvers' and learners'
``src/engine/{solvers,learning}/<key>/``) in the compiled layer and the package
``python/ttt_engine/<key>/`` in the Python one.  Every other module of the
Python package is generic: its code (not its docstrings, comments and the
sentences of its help texts and messages, which may give a game as an example)
names no game -- no game key or title in an identifier (``_ttt_core``,
``ClobberAgent``), no import of a game's modules (``ttt_engine.quixo``,
``ttt_engine._core.games.ttt``), no string that is a game's key
(``default="ttt"``, ``game == "uttt"``) or the dotted path of one of its modules
or classes, no test of a board's class name.  It asks the game's registry entry
instead (``ttt_engine.games.get(key)``, docs/add_a_game.md).
"""
from __future__ import annotations

import ast
import os
import pathlib
import re

import pytest

import ttt_engine

PACKAGE = pathlib.Path(ttt_engine.__file__).resolve().parent
KEYS = ttt_engine._game_list()
#: what stands for a game besides its key: the words of the titles, and the
#: names the games' classes and modules were written with
WORDS = {*KEYS, "tictactoe", "connectfour", "ultimate", "c4"}
TITLES = ("tic-tac-toe", "tic tac toe", "connect four", "connect-four")
#: the package's own name and its command, which contain a key as a word part
_OWN = re.compile(r"ttt[_-]engine|TTT_ENGINE", re.I)
_CAMEL = re.compile(r"[A-Z]+(?![a-z])\d*|[A-Z]?[a-z]+\d*|\d+")
_CLASS_NAME = re.compile(r"__name__|__qualname__|__module__")
#: a pattern of the games' compiled modules (to read a game off a class's module)
_MODULE_PATTERN = re.compile(r"_core\W{0,3}\.?games.*[(\\]")
#: what a test of a board's class by its name would look for
_BOARD_CLASS = re.compile(r"\bBoard\b|_core\\?\.games")


def words(text):
    """The lower-case words of ``text``: split at anything not a letter or digit
    and at case changes (``ClobberAgent`` -> clobber, agent)."""
    out = set()
    for part in re.split(r"[^A-Za-z0-9]+", _OWN.sub(" ", text)):
        if part:
            out.add(part.lower())
            out.update(w.lower() for w in _CAMEL.findall(part))
    return out


def game_words(text, sentence=False):
    """The game names in ``text`` (an identifier, a module path, a key); a
    ``sentence`` (a help text or message: it has spaces) is checked for dotted
    module paths of the games only."""
    if sentence:
        paths = re.findall(r"ttt_engine(?:\.\w+)+", text)
        return sorted({w for p in paths for w in words(p.replace("ttt_engine", "")) & WORDS})
    low = text.lower()
    return sorted((words(text) & WORDS) | {t for t in TITLES if t in low})


#: generic-placed modules that are one game's still, and why (a module listed here
#: that names no game any more fails the test below: take it out then)
ONE_GAME_STILL = {
    # ``ttt-engine sweep`` runs the Q-learning sweep of Tic-Tac-Toe, which the
    # tournament package exports beside the generic sweep
    "tournament/sweep.py": "the Q-learning sweep of Tic-Tac-Toe beside the generic sweep",
    # PettingZoo's classic Tic-Tac-Toe numbers its cells column by column
    "envs/pettingzoo.py": "pettingzoo_ttt_action, the classic Tic-Tac-Toe's cell order",
}


def generic_modules(package=PACKAGE):
    """The Python files of the package outside the games' packages and the
    compiled layer's folders."""
    out = []
    for path in sorted(package.rglob("*.py")):
        top = path.relative_to(package).parts[0]
        if top in KEYS or top == "_core":
            continue
        out.append(path)
    return out


def _docstrings(tree):
    """The string constants that are documentation: the first statement of a
    module, class or function, and a bare string statement (an attribute's)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) \
                and isinstance(node.value.value, str):
            found.add(id(node.value))
    return found


def names_of_games(path, package=PACKAGE):
    """``["file:line: ..."]``: every place the code of ``path`` names a game."""
    text = path.read_text(encoding="utf-8")
    tree = ast.parse(text, str(path))
    docs = _docstrings(tree)
    rel = path.relative_to(package)
    bad = []

    def report(node, what, found):
        bad.append(f"{rel}:{node.lineno}: {what} names {', '.join(found)}")

    # a string compared with (``title == "Connect Four"``) is a name, not a sentence
    compared = {id(c) for p in ast.walk(tree) if isinstance(p, ast.Compare)
                for c in ast.walk(p) if isinstance(c, ast.Constant)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            s = node.value
            found = game_words(s, sentence=" " in s.strip() and id(node) not in compared)
            if found:
                report(node, f"the string {s[:50]!r}", found)
            if _MODULE_PATTERN.search(s):
                bad.append(f"{rel}:{node.lineno}: tests a board class's __module__ "
                           f"against the pattern {s[:50]!r}")
            continue
        names = []
        if isinstance(node, ast.Name):
            names = [node.id]
        elif isinstance(node, ast.Attribute):
            names = [node.attr]
            # a board's class told by its name or module (type(board).__name__ == "Board",
            # a pattern of the games' modules) is not how a game is known
            if _CLASS_NAME.fullmatch(node.attr):
                for p in ast.walk(tree):
                    if isinstance(p, ast.Compare) and node in set(ast.walk(p)) and any(
                            isinstance(c, ast.Constant) and isinstance(c.value, str)
                            and _BOARD_CLASS.search(c.value) for c in ast.walk(p)):
                        bad.append(f"{rel}:{node.lineno}: tests a board class's {node.attr}")
                        break
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names = [node.name]
        elif isinstance(node, ast.arg):
            names = [node.arg]
        elif isinstance(node, ast.keyword) and node.arg:
            names = [node.arg]
        elif isinstance(node, ast.alias):
            names = [node.name, node.asname or ""]
        elif isinstance(node, ast.ImportFrom):
            names = [node.module or ""]
        for name in names:
            found = game_words(name)
            if found:
                report(node, f"the name {name!r}", found)
    return bad


def test_generic_code_names_no_game():
    bad, still = [], set()
    for path in generic_modules():
        found = names_of_games(path)
        rel = path.relative_to(PACKAGE).as_posix()
        if rel in ONE_GAME_STILL:
            if found:
                still.add(rel)
            continue
        bad += found
    assert not bad, ("generic modules name a game (ask its registry entry instead):\n"
                     + "\n".join(bad))
    assert still == set(ONE_GAME_STILL), \
        f"{sorted(set(ONE_GAME_STILL) - still)} name no game any more: take them out of the list"


def test_the_scan_covers_the_package():
    found = {p.relative_to(PACKAGE).as_posix() for p in generic_modules()}
    assert {"games.py", "selfplay.py", "cli/play.py", "web/app.py",
            "envs/gymnasium.py", "search/depth_first.py"} <= found
    assert not any(p.split("/")[0] in KEYS for p in found)
    assert len(found) > 50


@pytest.mark.parametrize("code, expected", [
    ("x = 'ttt'\n", "the string 'ttt' names ttt"),
    ("from ttt_engine import quixo\n", "the name 'quixo' names quixo"),
    ("from ttt_engine._core.games.connect4 import board\n", "names connect4"),
    ("class ClobberAgent:\n    pass\n", "the name 'ClobberAgent' names clobber"),
    ("def f(board):\n    return type(board).__name__ == 'Board'\n",
     "tests a board class's __name__"),
    ("import re\nM = re.compile(r'ttt_engine._core.games.(\\w+).board')\n"
     "def f(board):\n    return M.fullmatch(type(board).__module__)\n",
     "tests a board class's __module__"),
    ("_ttt_core = 1\n", "the name '_ttt_core' names ttt"),
    ("x = 'see ttt_engine.uttt.play for it'\n", "names uttt"),
    ("if title == 'Connect Four':\n    pass\n", "names connect four"),
])
def test_the_scan_finds_a_game_name(tmp_path, code, expected):
    f = tmp_path / "m.py"
    f.write_text(code)
    bad = names_of_games(f, tmp_path)
    assert len(bad) >= 1 and any(expected in line for line in bad), bad


@pytest.mark.parametrize("code", [
    '"""A docstring may say Tic-Tac-Toe or ttt_engine.quixo."""\n',
    "x = 'the game to play, e.g. Connect Four (a sentence)'\n",
    "import ttt_engine\nprog = 'ttt-engine'\nenv = 'TTT_ENGINE_DEBUG'\n",
    "# a comment on uttt\nx = games.get(key).title\n",
])
def test_the_scan_passes_generic_code(tmp_path, code):
    f = tmp_path / "m.py"
    f.write_text(code)
    assert names_of_games(f, tmp_path) == []


def test_no_file_outside_a_games_folders_is_one_games():
    """Files named after a game live in its folders: no ``<key>_*.py`` module at
    the package root or in ``cli/`` (the games' modules are ``<key>/*.py``)."""
    bad = []
    for path in generic_modules():
        stem = path.stem.lstrip("_")
        if any(stem == k or stem.startswith(k + "_") for k in KEYS):
            bad.append(path.relative_to(PACKAGE).as_posix())
    assert not bad, f"modules of one game outside its package: {bad}"
    assert all(os.path.isfile(PACKAGE / k / "__init__.py") for k in KEYS)


def test_the_web_page_names_no_game():
    """The web page's own files (``web/static``) take the games from the server's
    game list (``/api/games``): no game key as a string in their code."""
    static = PACKAGE / "web" / "static"
    bad = []
    for path in sorted(static.iterdir()):
        text = path.read_text(encoding="utf-8")
        for key in KEYS:
            for m in re.finditer(rf"""["']{key}["']""", text):
                line = text.count("\n", 0, m.start()) + 1
                bad.append(f"web/static/{path.name}:{line}: {m.group(0)}")
    assert not bad, "the web page names games:\n" + "\n".join(bad)
