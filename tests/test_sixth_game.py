"""A sixth game is added by its folder, one line of the game list and its
package alone (the Python side; docs/add_a_game.md).

A fresh interpreter gets one more line in the game list, ``fake`` (the list's
reader ``ttt_engine._game_list`` is replaced: that stands for the line in
``src/engine/games/list.txt``), and the package folder of the game,
``ttt_engine/fake/`` (written to a temporary folder that is added to the
package's path: that stands for the folder in ``python/ttt_engine/``): an
``__init__`` with the entry ``GAME`` and its own console command in
``commands``.  Nothing else is edited.  The registry, the console (the games
of ``play --game``, the game's own command, ``--help``) and the web view's
game list all find it.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from conftest import PYDIR

FAKE_INIT = '''
"""A fake game: Tic-Tac-Toe's board under another key (the sixth game of the tests)."""
from ttt_engine import engines
from ttt_engine._core.games.ttt.board import Board
from ttt_engine.games import Game

GAME = Game("fake", "Fake Game", ("X", "O"), {}, __name__, engines.standard("fake"),
            opening_plies=3, commands="ttt_engine.fake.commands",
            moved={"fake_old": "ttt_engine.fake.commands"})
'''

FAKE_COMMANDS = '''
"""``ttt-engine fake``: the fake game's own command."""


def configure(parser):
    parser.add_argument("word")
    parser.set_defaults(run=run)


def add_parser(subparsers):
    configure(subparsers.add_parser("fake", help="the fake game's command"))


def run(args):
    print(f"fake says {args.word}")
    return 0
'''

SCRIPT = r"""
import contextlib, io, json, sys, warnings
import ttt_engine
ttt_engine.__path__.append(sys.argv[1])      # the game's folder in the package
listed = ttt_engine._game_list()
ttt_engine._game_list = lambda *a, **k: (*listed, "fake")     # its line in the game list
from ttt_engine import games
from ttt_engine.cli import build_parser, main
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient
from ttt_engine.web import create_app

g = games.get("fake")
b = g.new_board()
args = build_parser().parse_args(["play", "--game", "fake"])
out = io.StringIO()
with contextlib.redirect_stdout(out):
    code = main(["fake", "hello"])
    help_code = main(["--help"])
with TestClient(create_app(max_time=1.0)) as client:
    web = [x["key"] for x in client.get("/api/games").json()["games"]]
import ttt_engine.fake_old
print(json.dumps({
    "keys": list(games.GAMES),
    "title": g.title,
    "move": g.make_agent("random", seed=1).select_move(b) in b.legal_moves,
    "play_game": args.game,
    "command": [code, out.getvalue().splitlines()[0]],
    "help": help_code == 0 and "fake" in out.getvalue() and "Fake Game" in out.getvalue(),
    "web": web,
    "moved": ttt_engine.fake_old is sys.modules["ttt_engine.fake.commands"],
}))
"""


def test_a_sixth_game_needs_its_folder_its_list_line_and_nothing_else(tmp_path):
    pytest.importorskip("starlette")
    folder = tmp_path / "fake"
    folder.mkdir()
    (folder / "__init__.py").write_text(textwrap.dedent(FAKE_INIT))
    (folder / "commands.py").write_text(textwrap.dedent(FAKE_COMMANDS))
    env = dict(os.environ, PYTHONPATH=PYDIR + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path)], capture_output=True,
                         text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    r = json.loads(out.stdout.splitlines()[-1])
    assert r["keys"][-1] == "fake" and len(r["keys"]) == 6
    assert r["title"] == "Fake Game" and r["move"]
    assert r["play_game"] == "fake"                  # the console's game choices
    assert r["command"] == [0, "fake says hello"]    # its own command, found by its entry
    assert r["help"]
    assert r["web"][-1] == "fake" and len(r["web"]) == 6     # the web view's game list
    assert r["moved"]
