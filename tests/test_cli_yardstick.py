"""``ttt-engine yardstick``: an engine judged on the game's suite, every
engine of a game (--all), and bad input as one line with its exit status."""
import shutil

import numpy as np

from ttt_engine import yardstick
from ttt_engine.cli import main


def run(capsys, *argv):
    code = main(["yardstick", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_an_engine_is_judged_leading_with_the_critical_positions(capsys):
    code, out, err = run(capsys, "--game", "quixo", "--engine", "heuristic", "--sample", "40",
                         "--quiet")
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].startswith("heuristic (its default) on the quixo yardstick (40 positions, ")
    assert lines[1].startswith("critical positions") and "random mover (exact)" in lines[2]
    # the same numbers as the library's, on the same sample
    from ttt_engine import games
    r = yardstick.yardstick(games.get("quixo").make_agent("heuristic", seed=1), game="quixo",
                            sample=40, seed=1)
    assert f"  all      {r.critical_keeps['all'].n:6,}  {r.critical_keeps['all']}" in out


def test_all_engines_make_one_table(capsys):
    code, out, err = run(capsys, "--game", "ttt", "--all", "--simulations", "50", "--sample",
                         "30", "--quiet")
    assert code == 0
    rows = [x for x in out.splitlines() if x.startswith("| ") and "---" not in x][1:]
    assert [x.split(" | ")[0][2:] for x in rows] == ["perfect", "q", "alphabeta", "mcts", "az",
                                                      "valuenet", "best", "random"]
    perfect = rows[0].split(" | ")
    assert perfect[2] == "**100.0 / 100.0**"


def test_bad_input_is_one_line(capsys, tmp_path):
    code, _, err = run(capsys, "--game", "quixo", "--engine", "nope")
    assert code == 2 and err.count("\n") == 1 and "choose from" in err
    code, _, err = run(capsys, "--game", "quixo", "--engine", "random", "--time", "1")
    assert code == 2 and "--time does not apply to the Quixo random engine" in err
    code, _, err = run(capsys, "--game", "quixo", "--engine", "heuristic", "--board", "size=7")
    assert code == 2 and err.count("\n") == 1 and "no position of the quixo suite is on a " \
        "board with size=7 (its boards: size=4 or size=5)" in err
    code, _, err = run(capsys, "--game", "quixo", "--engine", "heuristic", "--board", "siz=5")
    assert code == 2 and "--board takes board options as KEY=VALUE" in err
    bad = tmp_path / "s.npz"
    shutil.copy(yardstick.suite_path("connect4"), bad)
    code, _, err = run(capsys, "--game", "quixo", "--suite", str(bad))
    assert code == 2 and err.count("\n") == 1 and f"{bad}: a suite of 'connect4'" in err \
        and "ttt-engine yardstick --game quixo --build" in err
    np.savez(bad, version=3)
    code, _, err = run(capsys, "--game", "ttt", "--suite", str(bad))
    assert code == 2 and "format version 3 (a newer release's)" in err
    code, _, err = run(capsys, "--game", "ttt", "--out", "x.npz")
    assert code == 2 and "--out applies to --build" in err
    code, _, err = run(capsys, "--game", "ttt", "--build", "--sample", "3")
    assert code == 2 and "--build takes --out and --seed only" in err


def test_an_engine_of_one_board_is_judged_on_that_boards_positions(capsys):
    """The network plays 5x5 Quixo only: it is judged on the suite's 5x5
    positions, and the report says so; --board picks those for any engine."""
    code, out, err = run(capsys, "--game", "quixo", "--engine", "az", "--simulations", "2",
                         "--sample", "5", "--quiet")
    assert code == 0 and "(5 positions of the boards with size=5, " in out
    code, out, err = run(capsys, "--game", "quixo", "--engine", "random", "--board", "size=4",
                         "--sample", "5", "--quiet")
    assert code == 0 and "(5 positions of the boards with size=4, " in out
    code, out, err = run(capsys, "--game", "quixo", "--engine", "random", "--sample", "5",
                         "--quiet")
    assert code == 0 and "(5 positions, " in out            # every board: no words
