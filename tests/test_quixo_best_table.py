"""Quixo's ``best`` reads the 5x5 endgame tablebase before it searches: the
table's move in a position it holds, a known win one move before it, the
search alone without a table.  The table here is a synthetic file (every
position a draw but the ones a test sets), as in test_quixo_tablebase.py."""
import random

import pytest

from test_quixo_tablebase import synthetic_5x5
from ttt_engine import games, quixo
from ttt_engine._core.solvers.quixo import tablebase as ctb
from ttt_engine.analysis import explain
from ttt_engine.cli._report import analysis_text
from ttt_engine.quixo import tablebase as qtb
from ttt_engine.search import WIN_SCORE
from ttt_engine.search.table import TableView, table_view


def quiet_position(blanks, seed):
    """A reachable 5x5 board, X to move, with ``blanks`` blank cubes where no
    move ends the game (so every move's value comes from the table)."""
    rng = random.Random(seed)
    while True:
        cells = ["X", "O"] * 13
        rng.shuffle(cells)
        cells = cells[:25]
        for i in rng.sample(range(25), blanks):
            cells[i] = " "
        try:
            b = quixo.Board.from_string("".join(cells), "X")
        except ValueError:
            continue
        if b.is_terminal():
            continue
        if all(not after(b, m).is_terminal() for m in b.legal_moves):
            return b


def after(board, move):
    b = board.copy()
    b.push(move)
    return b


def index_of(board):
    """The table index of ``board`` (its side to move's cubes first)."""
    x, o = board.bitboards
    me, opp = (x, o) if board.to_move == "X" else (o, x)
    return ctb.position_index(5, me, opp)


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """An empty cache folder (no table installed) with nothing opened yet."""
    monkeypatch.setenv("TTT_ENGINE_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(qtb, "_opened", {})
    return tmp_path


def best():
    return games.get("quixo").make_agent("best", simulations=200, seed=3)


def test_best_plays_the_tables_move_and_searches_without_it(cache):
    board = quiet_position(1, seed=1)
    agent = best()
    assert agent.tablebase
    # no table: the search answers
    plain = agent.select_move(board)
    assert agent.last_answer == "search" and agent.last_stats["simulations"] == 200
    assert qtb.position_score(board) is None and table_view(board) is None
    # the table: every position a draw but one child, lost for O in 4 -> X wins in 5
    target = next(m for m in reversed(board.legal_moves) if m != plain)
    synthetic_5x5(qtb.default_path(5), {index_of(after(board, target)): 2 * 4 + 1})
    assert qtb.position_score(after(board, target)) == -(WIN_SCORE - 4)
    assert qtb.position_score(board) == 0.0            # the table's own value is a draw here
    view = table_view(board)
    assert view.complete and view.known[target] == WIN_SCORE - 5
    assert agent.select_move(board) == target and agent.last_answer == "endgame table"
    a = explain(agent, board)
    assert a.kind == "exact" and a.best_move == target and a.best.verdict == "win in 5"
    assert a.stats["answered"] == "endgame table"
    assert "win in 5 plies (from the endgame table)" in analysis_text(a, 0.01)
    # a random engine of the same game does not read it
    assert not games.get("quixo").make_agent("mcts", simulations=50, seed=1).tablebase


def test_a_win_one_move_before_the_table_is_played_at_once(cache):
    board = quiet_position(2, seed=2)
    assert qtb.position_score(board) is None            # two blank cubes: not in the table
    assert table_view(board) is None                    # no table yet: nothing is known
    synthetic_5x5(qtb.default_path(5), {})
    qtb._opened.clear()
    into = [m for m in board.legal_moves if sum(c == 0 for c in after(board, m).cells) == 1]
    view = table_view(board)
    assert into and set(view.known) == set(into) and not view.complete
    assert view.decided() is None                       # draws only: the search chooses
    target = into[-1]
    synthetic_5x5(qtb.default_path(5), {index_of(after(board, target)): 2 * 2 + 1})
    qtb._opened.clear()
    agent = best()
    assert agent.select_move(board) == target and agent.last_answer == "endgame table"


def test_the_search_never_plays_a_move_the_table_knows_is_worse():
    w = WIN_SCORE
    view = TableView({1: -(w - 3), 2: 0.0, 3: -(w - 9)}, complete=False)
    assert view.decided() is None
    assert view.overrule(1) == 2 and view.overrule(3) == 2     # a known loss -> the draw
    assert view.overrule(2) == 2 and view.overrule(7) == 7     # a draw, an unknown move stand
    lost = TableView({1: -(w - 3), 2: -(w - 9)}, complete=True)
    assert lost.decided() == 2                                 # the slowest loss
    won = TableView({1: w - 7, 2: w - 3, 3: 0.0}, complete=False)
    assert won.decided() == 2                                  # the fastest known win


def test_best_plays_a_move_the_built_table_keeps(tmp_path, monkeypatch):
    """With the real 5x5 table (``QUIXO_TABLEBASE`` or the default path; skipped
    without one): on random positions of one blank cube, best's move is one of
    the table's best moves (Tablebase.best_moves), chosen without a search."""
    import os
    path = os.environ.get("QUIXO_TABLEBASE") or qtb.default_path(5)
    if not os.path.isfile(path):
        pytest.skip(f"no built 5x5 tablebase at {path}")
    table = qtb.Tablebase(path, 5, verify=False)
    os.symlink(os.path.abspath(path), tmp_path / "quixo-tablebase-5x5.tb")
    monkeypatch.setenv("TTT_ENGINE_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(qtb, "_opened", {})
    agent = best()
    for seed in range(40):
        board = quiet_position(1, seed=100 + seed)
        assert agent.select_move(board) in table.best_moves(board)
        assert agent.last_answer == "endgame table"
