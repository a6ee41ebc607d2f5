"""The principal variations of the MCTS tree (``search.MCTS.lines``): read
without changing the tree, each following the most visited child, checked
against a slow walk over the same trees' child lists and against the
Tic-Tac-Toe oracle on a forced win."""
import pytest

from ttt_engine import connect4, exact, ttt, uttt
from ttt_engine._core.algorithms import mcts as _mcts
from ttt_engine._core.algorithms import mcts_lines as _mcts_lines
from ttt_engine.search import MCTS


def merged_children(trees, path):
    """The children of the node ``path`` leads to, ``(move, visits, wsum,
    proven)`` summed over the trees that have it expanded."""
    got = [c for c in (t.children_of(path) for t in trees) if c]
    if not got:
        return []
    out = []
    for j, (move, _, _, _) in enumerate(got[0]):
        rows = [c[j] for c in got]
        assert all(r[0] == move for r in rows)          # one move order in every tree
        out.append((move, sum(r[1] for r in rows), sum(round(r[2] * r[1]) for r in rows),
                    next((r[3] for r in rows if r[3]), 0)))
    return out


def better(a, b, solver):
    ra, rb = (a[3], b[3]) if solver else (0, 0)
    if ra != rb:
        return ra > rb
    if a[1] != b[1]:
        return a[1] > b[1]
    return a[2] * b[1] > b[2] * a[1]


def best_of(children, solver):
    best = None
    for c in children:                                  # ties: the first in move order
        if best is None or better(c, best, solver):
            best = c
    return best


def slow_lines(trees, solver, depth):
    """Every root move's line, best first, by walking the child lists."""
    left = merged_children(trees, [])
    lines = []
    while left:
        first = best_of(left, solver)
        left.remove(first)
        steps = [first]
        while len(steps) < depth:
            visited = [c for c in merged_children(trees, [s[0] for s in steps]) if c[1] > 0]
            if not visited:
                break
            steps.append(best_of(visited, solver))
        lines.append(steps)
    return lines


def as_tuples(lines):
    return [[(s["move"], s["visits"], round(s["mean"] * s["visits"]), s["proven"])
             for s in line] for line in lines]


def check_legal(board, lines):
    for line in lines:
        b = board.copy()
        for s in line:
            assert s["move"] in b.legal_moves
            b.push(s["move"])


@pytest.mark.parametrize("threads", [1, 2])
def test_lines_follow_the_most_visited_child(threads):
    board = connect4.Board()
    for m in (3, 3, 2):
        board.push(m)
    m = MCTS(seed=3, threads=threads)
    best = m.search(board, simulations=6000)
    lines = m.lines(depth=12)
    assert as_tuples(lines) == slow_lines(m._trees, False, 12)
    check_legal(board, lines)
    assert [line[0]["move"] for line in lines][0] == best == m.stats["best_move"]
    assert sorted(line[0]["move"] for line in lines) == sorted(board.legal_moves)
    # each line opens with its move's entry of the root statistics
    children = {c["move"]: c for c in m.stats["children"]}
    for line in lines:
        assert line[0] == pytest.approx(children[line[0]["move"]])
    assert max(len(line) for line in lines) >= 5             # the tree is read below the root
    assert all(s["visits"] >= 1 for line in lines for s in line[1:])
    assert m.lines(k=2, depth=3) == [line[:3] for line in lines[:2]]


def test_root_parallel_lines_follow_the_merged_counts():
    b = uttt.Board()
    b.push(40)
    m = MCTS(seed=8, threads=2)
    m.search(b, simulations=8000)
    lines = m.lines(k=4, depth=10)
    assert as_tuples(lines) == slow_lines(m._trees, False, 10)[:4]
    check_legal(b, lines)
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
    assert as_tuples([line]) == slow_lines(m._trees, True, 9)[:1]
    replay = b.copy()
    for i, step in enumerate(line):
        value, optimal = exact.oracle(replay)
        if i % 2 == 0:                              # X: a winning move, proven so
            assert value == 1 and step["move"] in optimal and step["proven"] == 1
        else:                                       # O: every move loses, proven so
            assert value == -1 and step["proven"] == -1
        replay.push(step["move"])
    assert replay.is_terminal() and replay.winner == "X"


def test_reading_lines_leaves_the_tree_to_search_on():
    b = connect4.Board()
    b.push(3)
    read, plain = MCTS(seed=4), MCTS(seed=4)
    for m in (read, plain):
        m.search(b, simulations=3000)
    first = read.lines()
    assert read.lines() == first and read.lines(depth=5) == [line[:5] for line in first]
    visits = read.stats["root_visits"]
    for m in (read, plain):
        m.search(b, simulations=2000)
    assert read.stats["reused"] and read.stats["reused_visits"] == visits
    assert read.stats["root_visits"] == visits + 2000
    assert read.stats["children"] == plain.stats["children"]    # reading changed nothing
    assert read.lines() == plain.lines()


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
