"""bench/exact_walk.py: the moves that threw a proven result away, found by solving."""
import json
import os
import subprocess
import sys

import pytest
from conftest import PYDIR

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(ROOT, "bench", "exact_walk.py")
MATCH = os.path.join(ROOT, "results", "strength_runs",
                     "uttt-distilled951-vs-openspiel-seed2026.jsonl")


def _run(*args):
    env = dict(os.environ, PYTHONPATH=PYDIR)
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True,
                          env=env, timeout=300)


def _game(number):
    for line in open(MATCH, encoding="utf-8"):
        row = json.loads(line)
        if row.get("game") == number:
            return row
    raise AssertionError(f"game {number} not in {MATCH}")


def test_a_thrown_away_win_is_found():
    """Game 21 (ours O, a draw): at ply 47, 30 empty cells, O could win with
    10 and played 0; the check is independent of the walk: the solve of the
    position before and after."""
    sys.path.insert(0, os.path.join(ROOT, "bench"))
    try:
        import exact_walk
    finally:
        sys.path.pop(0)
    from ttt_engine import uttt
    from ttt_engine.search import alphabeta
    row = _game(21)
    found = exact_walk.walk(row["moves"], row["ours"], 30, 5.0)
    assert (47, 30, "win", 0, 10) in found
    b = uttt.Board()
    for m in row["moves"][:47]:
        b.push(m)
    # UTTT refuses an unbounded search: a clock far beyond need deepens to the end
    assert alphabeta(b, time_limit=600).outcome == 1
    b.push(0)
    assert alphabeta(b, time_limit=600).outcome == 0          # O's win became a draw
    # a game we won throws nothing away
    assert exact_walk.walk(_game(0)["moves"], "X", 22, 5.0) == []


def test_command_line_and_bad_input(tmp_path):
    r = _run(MATCH, "--max-empty", "12", "--time-limit", "0.5")
    assert r.returncode == 0 and "games replayed" in r.stdout.splitlines()[-1]
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"game": 0}\n')
    for args in ([str(bad)], [str(tmp_path / "missing.jsonl")]):
        r = _run(*args)
        assert r.returncode == 2 and r.stderr.startswith("exact_walk: ")
        assert "Traceback" not in r.stderr
    for args in (["--max-empty", "90"], ["--time-limit", "0"], ["--max-empty", "x"]):
        r = _run(MATCH, *args)
        assert r.returncode == 2 and "Traceback" not in r.stderr


@pytest.mark.parametrize("text", ["not json\n", '{"game": 1, "moves": [], "ours": "Z", '
                                                '"result": "draw"}\n'])
def test_read_games_names_the_line(tmp_path, text):
    sys.path.insert(0, os.path.join(ROOT, "bench"))
    try:
        import exact_walk
    finally:
        sys.path.pop(0)
    f = tmp_path / "m.jsonl"
    f.write_text('{"engine": "best"}\n' + text)
    with pytest.raises(ValueError, match=r"m.jsonl:2: "):
        exact_walk.read_games(str(f))
