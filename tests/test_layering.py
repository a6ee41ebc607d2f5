"""The compiled layer's dependencies point one way.

Every ``cimport`` and ``import`` of ``ttt_engine._core.*`` in the Cython
sources under ``src/engine`` (``.pyx``, ``.pxd``, ``.pxi`` and their ``.tp``
templates) is checked against the layers of docs/architecture.md::

    core/  ->  games/<game>/  ->  algorithms/
                                   solvers/<game>/, learning/<game>/

- ``core/`` uses only ``core/``;
- ``games/`` (the shared ``Board`` face) uses ``core/`` and itself;
  ``games/<g>/`` uses ``core/``, the shared face and its own folder (the
  per-game templates in ``games/template/`` stand for every ``games/<g>/``);
- ``algorithms/`` uses ``core/`` and ``algorithms/``, and reaches the games
  only through the generated game interface (``game.pxd``, ``game_actions.pxd``,
  ``game_features.pxd``);
- ``solvers/<g>/`` and ``learning/<g>/`` use ``core/``, ``games/<g>/`` (or the
  shared face), ``algorithms/`` and their own folder.

A game that builds on another, and the few other deliberate exceptions, are
listed with their reason in :data:`EXCEPTIONS`.  Imports of the Python
package's helpers (``ttt_engine._util`` etc.) are checked by
tests/test_imports.py.
"""
from __future__ import annotations

import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
ENGINE = ROOT / "src" / "engine"
PREFIX = "ttt_engine._core."
#: the game interface every algorithm is written against (rendered from the .tp)
INTERFACE = {"game.pxd", "game.pxd.tp", "game_actions.pxd", "game_actions.pxd.tp",
             "game_features.pxd", "game_features.pxd.tp"}
#: the layers whose files live in one folder per game
PER_GAME = ("solvers", "learning")
#: (from, to) edges allowed against the rules above, and why
EXCEPTIONS = {
    # a local board of Ultimate Tic-Tac-Toe is a Tic-Tac-Toe board: UTTT's rules
    # reuse its line tables (win table, k-th empty cell, popcount)
    (("games", "uttt"), ("games", "ttt")): "UTTT's rules reuse Tic-Tac-Toe's line tables",
    # the Q-learning kernel records its learning curve with the exact measures
    # of the Tic-Tac-Toe solution (a learner graded by its game's solver)
    (("learning", "ttt"), ("solvers", "ttt")): "Q-learning's curve is measured by the oracle",
}

_STATEMENT = re.compile(
    r"^[ \t]*(?:from[ \t]+(?P<base>[\w.{}]+)[ \t]+(?P<kind>c?import)\b[ \t(]*(?P<names>[^\n#]*)"
    r"|(?P<plain>c?import)[ \t]+(?P<mods>[\w.{}, \t]+))", re.M)
_PLACEHOLDER = re.compile(r"\{\{[^}]*\}\}")
ANY_GAME = "*"          # a template's ``{{g.name}}``: any game, or (games/template) its own


def sources(engine):
    """The Cython sources under ``engine``, sorted."""
    pats = ("*.pyx", "*.pxd", "*.pxi", "*.pyx.tp", "*.pxd.tp", "*.pxi.tp")
    return sorted({p for pat in pats for p in engine.rglob(pat)})


def statements(path):
    """``[(module, lineno)]``: every ``ttt_engine._core`` module the file
    cimports or imports (``from package cimport module`` names the module);
    template placeholders become :data:`ANY_GAME`."""
    text = path.read_text(encoding="utf-8")
    out = []
    for m in _STATEMENT.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        if m.group("base"):
            names = m.group("names")
            if not names.strip():           # "from x cimport (" and the names below
                names = text[m.end():text.find(")", m.end())]
            mods = [(m.group("base"), [n.split()[0] for n in names.split(",") if n.split()])]
        else:
            mods = [(name.split()[0], []) for name in m.group("mods").split(",") if name.split()]
        for base, names in mods:
            base = _PLACEHOLDER.sub(ANY_GAME, base)
            if not base.startswith(PREFIX):
                continue
            out.append((base[len(PREFIX):], names, line))
    return out


def place(parts):
    """``(layer, game)`` of a path under ``engine`` given as its parts
    (``("games", "uttt", "board.pyx")`` -> ``("games", "uttt")``); ``game`` is
    None for a layer's shared files."""
    layer = parts[0]
    if layer in ("games",) + PER_GAME and len(parts) > 2:
        return layer, parts[1]
    return layer, None


def target(module, names, engine):
    """``(layer, game)`` of the module a statement names: ``games.uttt.rules`` ->
    ``("games", "uttt")``; ``from ttt_engine._core.games.uttt cimport board``
    names the folder, so the first imported name completes the path."""
    parts = module.split(".")
    folder = engine.joinpath(*parts)
    if (folder.is_dir() or parts[-1] == ANY_GAME) and names:
        parts = parts + [names[0]]
    return place(parts)


def allowed(src_parts, dst):
    """Whether a file at ``src_parts`` (under src/engine) may use ``dst``."""
    layer, game = place(src_parts)
    to_layer, to_game = dst
    if layer == "games" and game == "template":      # rendered into every games/<g>/
        game = ANY_GAME
    if (layer, game) == dst:
        return True
    if to_layer == "core":
        return True
    if layer == "core":
        return False
    if layer == "games":
        return to_layer == "games" and to_game is None   # the shared face
    if layer == "algorithms":
        if to_layer == "algorithms":
            return True
        return to_layer == "games" and src_parts[-1] in INTERFACE
    if layer in PER_GAME and game is not None:
        if to_layer == "algorithms":
            return True
        if to_layer == "games":
            return to_game in (None, game)
        return False
    return False        # a file outside the known layers, or loose in a per-game layer


def violations(engine):
    """``["file:line: ..."]`` for every dependency against the layers."""
    bad = []
    for path in sources(engine):
        rel = path.relative_to(engine)
        src = place(rel.parts)
        if rel.name == "__init__.pxd" and not statements(path):
            continue                    # a package marker
        if src[0] not in ("core", "games", "algorithms") + PER_GAME:
            bad.append(f"{rel}: not in a layer (core, games, algorithms, solvers, learning)")
            continue
        if src[0] in PER_GAME and src[1] is None:
            bad.append(f"{rel}: {src[0]}/ keeps one folder per game ({src[0]}/<game>/)")
            continue
        for module, names, line in statements(path):
            dst = target(module, names, engine)
            if allowed(rel.parts, dst) or (src, dst) in EXCEPTIONS:
                continue
            where = "/".join(x for x in src if x)
            to = "/".join(x for x in dst if x)
            bad.append(f"{rel}:{line}: {where} uses {to} ({PREFIX}{module})")
    return bad


def _engine():
    if not ENGINE.is_dir():
        pytest.skip(f"the Cython sources are not here ({ENGINE}): ttt_engine is installed "
                    "without its repository")
    return ENGINE


def test_dependencies_follow_the_layers():
    bad = violations(_engine())
    assert not bad, ("dependencies against core -> games -> algorithms -> "
                     "solvers/<game>, learning/<game>:\n" + "\n".join(bad))


def test_the_scanner_sees_the_dependencies():
    # known edges of the real tree must be found, or the check above proves nothing
    engine = _engine()
    found = {(str(p.relative_to(engine)), target(m, n, engine))
             for p in sources(engine) for m, n, _line in statements(p)}
    assert ("games/uttt/rules.pxd", ("games", "ttt")) in found
    assert ("algorithms/game.pxd.tp", ("games", ANY_GAME)) in found
    assert ("games/template/board_ops.pxi.tp", ("games", ANY_GAME)) in found
    assert ("algorithms/mcts.pyx", ("algorithms", None)) in found
    assert ("learning/ttt/qlearning.pyx", ("solvers", "ttt")) in found
    assert len(found) > 100


def test_every_exception_is_still_used():
    engine = _engine()
    used = set()
    for path in sources(engine):
        rel = path.relative_to(engine)
        for m, n, _line in statements(path):
            used.add((place(rel.parts), target(m, n, engine)))
    stale = [edge for edge in EXCEPTIONS if edge not in used]
    assert not stale, f"exceptions no longer in the code: {stale}"


def _tree(tmp_path, files):
    for name, text in files.items():
        f = tmp_path / name
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(text, encoding="utf-8")
    return tmp_path


GOOD = {
    "core/rng.pxd": "from libc.stdint cimport uint64_t\n",
    "core/clock.pxd": "from ttt_engine._core.core.rng cimport rng_t\n",
    "games/board.pxd": "from ttt_engine._core.core.rng cimport rng_t\n",
    "games/ttt/rules.pxd": "from ttt_engine._core.core.rng cimport rng_t\n",
    "games/uttt/rules.pxd": "from ttt_engine._core.games.ttt.rules cimport (\n    ttt_win_table,\n)\n",
    "games/uttt/board.pyx": ("from ttt_engine._core.games.board cimport Board as GameBoard\n"
                             "from ttt_engine._core.games.board import read_index\n"),
    "games/template/contract.pxd.tp":
        "from ttt_engine._core.games.{{game.name}}.rules cimport {{game.State}}\n",
    "algorithms/game.pxd.tp": "from ttt_engine._core.games.{{g.name}} cimport board as b\n",
    "algorithms/mcts.pyx": ("from ttt_engine._core.algorithms.game cimport GameState\n"
                            "from ttt_engine._util import check_int\n"),
    "solvers/ttt/oracle.pyx": "from ttt_engine._core.games.ttt.rules cimport TTTState\n",
    "learning/quixo/values.pyx": ("from ttt_engine._core.games.quixo.board cimport Board\n"
                                  "from ttt_engine._core.learning.quixo.values cimport VTab\n"
                                  "from ttt_engine._core.algorithms.playout import random_games\n"),
    "learning/__init__.pxd": "",
}


def test_a_clean_tree_passes(tmp_path):
    (tmp_path / "games" / "ttt").mkdir(parents=True)
    assert violations(_tree(tmp_path, GOOD)) == []


@pytest.mark.parametrize("name, text, expected", [
    ("core/bits.pxd", "from ttt_engine._core.games.board cimport Board\n",
     "core/bits.pxd:1: core uses games"),
    ("games/quixo/board.pyx", "x = 1\n\ndef perft(b, d):\n"
     "    from ttt_engine._core.algorithms.perft import perft\n",
     "games/quixo/board.pyx:4: games/quixo uses algorithms"),
    ("games/clobber/rules.pxd", "from ttt_engine._core.games.ttt.rules cimport ttt_win_table\n",
     "games/clobber/rules.pxd:1: games/clobber uses games/ttt"),
    ("games/board.pyx", "cimport ttt_engine._core.games.ttt.rules\n",
     "games/board.pyx:1: games uses games/ttt"),
    ("algorithms/batch.pyx", "from ttt_engine._core.games.uttt.rules cimport UTTTState\n",
     "algorithms/batch.pyx:1: algorithms uses games/uttt"),
    ("algorithms/perft.pyx", "from ttt_engine._core.solvers.ttt.oracle cimport oracle_report\n",
     "algorithms/perft.pyx:1: algorithms uses solvers/ttt"),
    ("solvers/quixo/solve.pyx", "from ttt_engine._core.games.clobber.rules cimport (\n  A,\n)\n",
     "solvers/quixo/solve.pyx:1: solvers/quixo uses games/clobber"),
    ("learning/quixo/agents.pyx", "from ttt_engine._core.solvers.quixo.solve import Solution\n",
     "learning/quixo/agents.pyx:1: learning/quixo uses solvers/quixo"),
    ("solvers/ttt/oracle.pyx", "import ttt_engine._core.learning.ttt.qlearning\n",
     "solvers/ttt/oracle.pyx:1: solvers/ttt uses learning/ttt"),
    ("learning/quixo_values.pyx", "x = 1\n", "learning/quixo_values.pyx: learning/ keeps"),
    ("misc/thing.pyx", "x = 1\n", "misc/thing.pyx: not in a layer"),
])
def test_a_bad_dependency_fails_and_names_its_line(tmp_path, name, text, expected):
    engine = _tree(tmp_path, {**GOOD, name: text})
    bad = violations(engine)
    assert len(bad) == 1 and bad[0].startswith(expected), bad
