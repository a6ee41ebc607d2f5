"""The principal variations of the MCTS tree (``search.MCTS.lines``): read
without changing the tree, each following the most visited child, checked
against a slow walk over the same trees' child lists and against the
Tic-Tac-Toe oracle on a forced win."""
import pytest

import tree_lines_reference as ref
from ttt_engine import connect4, ttt, uttt
from ttt_engine._core.algorithms import mcts as _mcts
from ttt_engine._core.algorithms import mcts_lines as _mcts_lines
from ttt_engine.search import MCTS


def tree_children(tree, path):
    """A tree's child list for the reference walk: wsum = mean * visits, an
    integer (MCTS's rewards are +1, 0, -1)."""
    return [(move, visits, round(mean * visits), proven)
            for move, visits, mean, proven in tree.children_of(path) or []]


def slow_lines(trees, solver, depth):
    """``best_move``'s order: proofs only with the solver, equal visits by
    the higher mean."""
    return ref.slow_lines(tree_children, trees, depth, solver, True)


@pytest.mark.parametrize("threads", [1, 2])
def test_lines_follow_the_most_visited_child(threads):
    board = connect4.Board()
    for m in (3, 3, 2):
        board.push(m)
    m = MCTS(seed=3, threads=threads)
    best = m.search(board, simulations=6000)
    lines = m.lines(depth=12)
    assert ref.as_tuples(lines) == slow_lines(m._trees, False, 12)
    ref.check_full_lines(m, board, lines, best)
    # each line opens with its move's entry of the root statistics
    children = {c["move"]: c for c in m.stats["children"]}
    for line in lines:
        assert line[0] == pytest.approx(children[line[0]["move"]])


def test_root_parallel_lines_follow_the_merged_counts():
    b = uttt.Board()
    b.push(40)
    m = MCTS(seed=8, threads=2)
    m.search(b, simulations=8000)
    lines = m.lines(k=4, depth=10)
    assert ref.as_tuples(lines) == slow_lines(m._trees, False, 10)[:4]
    ref.check_legal(b, lines)
    assert lines[0][0]["move"] == m.stats["best_move"]
    # the merged counts are more than any one tree's
    assert lines[0][1]["visits"] > max(max(c[1] for c in t.children_of([lines[0][0]["move"]]))
                                       for t in m._trees)


@pytest.mark.parametrize("threads", [1, 2])
def test_a_forced_win_found_by_the_solver_is_the_first_line(threads):
    b = ttt.Board()
    b.push(0)
    b.push(2)                       # X.O / ... / ...: X to move wins
    m = MCTS(seed=1, solver=True, threads=threads)
    m.search(b, simulations=20_000)
    assert m.stats["root_proven"] == 1
    line = m.lines(k=1, depth=9)[0]
    assert ref.as_tuples([line]) == slow_lines(m._trees, True, 9)[:1]
    ref.check_forced_win(b, line, "X")


def test_reading_lines_leaves_the_tree_to_search_on():
    b = connect4.Board()
    b.push(3)
    read = MCTS(seed=4)
    visits = ref.check_reading_changes_nothing(read, MCTS(seed=4), b)
    assert read.stats["root_visits"] == visits + 2000


def test_no_lines_without_a_search():
    m = MCTS(seed=1)
    assert m.lines() == []
    m.search(ttt.Board(), simulations=200)
    assert len(m.lines()) == 9
    m.reset()
    assert m.lines() == []
    assert _mcts_lines.mcts_lines([], None, 4) == []


@pytest.mark.parametrize("kw, name", [
    ({"k": 0}, "k"), ({"k": -2}, "k"), ({"k": "all"}, "k"), ({"k": 1.5}, "k"),
    ({"depth": 0}, "depth"), ({"depth": int(_mcts.MAX_LINE) + 1}, "depth"),
    ({"depth": None}, "depth"), ({"depth": "deep"}, "depth"),
])
def test_bad_arguments_are_one_line_errors(kw, name):
    m = MCTS(seed=1)
    m.search(ttt.Board(), simulations=100)
    with pytest.raises(ValueError) as e:
        m.lines(**kw)
    assert str(e.value).startswith(name) and "\n" not in str(e.value)
    args = {"k": None, "depth": 4, **kw}
    with pytest.raises(ValueError, match=f"^{name}"):
        _mcts_lines.mcts_lines(m._trees, args["k"], args["depth"])
    assert len(m.lines()) == 9                          # still usable
