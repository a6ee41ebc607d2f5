"""One notation per game everywhere: every move text that docs/cli.md's table of what you
type shows is read alike by the Python API (``Game.parse_move``), the console (a move typed
at the prompt of ``ttt-engine play``), the command line (a record read by ``play --from``)
and the web page's API (``POST /api/position`` with ``"play"``)."""
import json
import os
import re
import subprocess
import sys
import warnings

import pytest

from conftest import ROOT

with warnings.catch_warnings():     # newer Starlette prefers httpx2 to httpx; both work
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from ttt_engine import games
from ttt_engine.web import create_app

#: (game, moves played first as texts, the documented move text, the side typing it):
#: each text is one that docs/cli.md's table shows for its game (checked below)
EXAMPLES = [
    ("ttt", [], "5", "X"),
    ("ttt", [], "1", "X"),
    ("uttt", [], "4, 5", "X"),
    ("uttt", [], "4 5", "X"),
    ("clobber", ["a1-a2"], "b3-b4", "W"),       # b3 holds a white stone on the start board
    ("quixo", [], "a1R", "X"),
    ("connect4", [], "4", "X"),
    ("connect4", [], "d", "X"),                 # the letters are read too
    ("connect4", ["4"], "1", "O"),
    ("connect4", ["4"], "7", "O"),
]


def _table_row(key):
    text = open(os.path.join(ROOT, "docs", "cli.md"), encoding="utf-8").read()
    rows = [line for line in text.split("\n")      # the table's rows list the engines
            if line.startswith(f"| `{key}` |") and "`random`" in line]
    assert rows, f"docs/cli.md has no row for {key} in its table of what you type"
    return rows[0]


def _position(key, prefix):
    g = games.get(key)
    b = g.new_board()
    codes = []
    for t in prefix:
        m = g.parse_move(b, t)
        b.push(m)
        codes.append(m)
    return g, b, codes


@pytest.mark.parametrize("key, prefix, text, side", EXAMPLES)
def test_the_examples_are_the_docs(key, prefix, text, side):
    row = _table_row(key)
    digits = re.fullmatch(r"\d", text)
    if digits:     # a number within a documented range such as `1`-`9`
        ranges = re.findall(r"`(\d)`-`(\d)`", row)
        assert any(lo <= text <= hi for lo, hi in ranges), (text, row)
    elif key == "uttt":
        assert "`R, C`" in row and "`R C`" in row, row
    elif len(text) == 1:
        ranges = re.findall(r"`([a-z])`-`([a-z])`", row)
        assert any(lo <= text <= hi for lo, hi in ranges), (text, row)
    else:
        assert f"`{text}`" in row, (text, row)


@pytest.mark.parametrize("key, prefix, text, side", EXAMPLES)
def test_python_and_web_read_the_same_move(key, prefix, text, side):
    g, b, codes = _position(key, prefix)
    m = g.parse_move(b, text)
    assert m in b.legal_moves and b.to_move == side
    with TestClient(create_app(max_time=1.0)) as c:
        r = c.post("/api/position", content=json.dumps({"game": key, "moves": codes,
                                                        "play": text}),
                   headers={"Content-Type": "application/json"})
    assert r.status_code == 200, r.text
    assert r.json()["moves"] == codes + [m]


@pytest.mark.parametrize("key, prefix, text, side", EXAMPLES)
def test_console_and_command_line_read_the_same_move(key, prefix, text, side, cli_env,
                                                      tmp_path):
    """The prefix comes in as a record (``--from``, the command line's way) and the move is
    typed at the prompt; then a record holding the same text plays it from ``--from``."""
    g, b, codes = _position(key, prefix)
    m = g.parse_move(b, text)
    record = tmp_path / "start.txt"
    moves = g.move_list[1](g.new_board(), codes) if g.move_list else \
        " ".join(re.sub(r"\s*,\s*|\s+", ",", g.move_to_str(_position(key, prefix[:i])[1], c))
                 for i, c in enumerate(codes))
    record.write_text(f"game: {key}\nmoves: {moves}\n")
    r = subprocess.run([sys.executable, "-m", "ttt_engine", "play", "--game", key,
                        "--from", str(record), "--side", side, "--opponent", "random",
                        "--seed", "1", "--games", "1"],
                       input=f"{text}\nq\n", capture_output=True, text=True, env=cli_env,
                       timeout=120)
    assert "Traceback" not in r.stdout + r.stderr
    refused = re.search(r"cannot (read|parse|play)|not (a )?legal|illegal", r.stdout)
    assert not refused and "error" not in r.stderr, r.stdout + r.stderr
    assert "random" in r.stdout          # the engine replied: the typed move was played
    assert g.move_to_str(b, m) in r.stdout   # and echoed in the game's notation
    # the text typed reads as the same move through the record (the command line)
    typed = tmp_path / "typed.txt"
    # in a space-separated list a move has no spaces inside: 'R C' and 'R, C' are 'R,C' there
    one = text if g.move_list else re.sub(r"\s*,\s*|\s+", ",", text.strip())
    typed.write_text(f"game: {key}\nmoves: {moves}{'' if g.move_list else ' '}{one}\n"
                     if moves else f"game: {key}\nmoves: {one}\n")
    r = subprocess.run([sys.executable, "-m", "ttt_engine", "play", "--game", key,
                        "--from", str(typed), "--watch", "random", "--opponent", "random",
                        "--seed", "1", "--games", "1"],
                       capture_output=True, text=True, env=cli_env, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Traceback" not in r.stdout + r.stderr
