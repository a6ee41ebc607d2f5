"""The principal variations of PUCT trees (``search.PUCT.lines``,
``search.puct.merge_puct_lines``): read without changing the tree, each
following the most visited child, checked against a slow walk over the trees'
child lists and against the Tic-Tac-Toe oracle on a forced win; the analysis
of the AlphaZero engines carries them."""
import numpy as np
import pytest

from ttt_engine import connect4, exact, games, search, ttt, uttt
from ttt_engine._core.algorithms import puct_lines as _puct_lines
from ttt_engine.agents import AZAgent
from ttt_engine.evaluators import UniformEvaluator
from ttt_engine.search import PUCT
from ttt_engine.search.puct import merge_puct_lines, merge_puct_roots


class FlatEvaluator:
    """Uniform logits and a zero value, called from Python (so that one tree
    can be searched by several threads); the values come from the mixed
    playouts."""
    thread_safe = True

    def __call__(self, observations, legal_mask):
        n = len(legal_mask)
        return (np.zeros(legal_mask.shape, dtype=np.float32), np.zeros(n, dtype=np.float32))


def merged_children(forests, path):
    """The children of the node ``path`` leads to, ``(move, visits, wsum,
    proven)`` summed over the trees that have it expanded."""
    got = [c for c in (_puct_lines.forest_children_of(f, 0, path) for f in forests) if c]
    if not got:
        return []
    out = []
    for j, (move, _, _, _) in enumerate(got[0]):
        rows = [c[j] for c in got]
        assert all(r[0] == move for r in rows)          # one move order in every tree
        out.append((move, sum(r[1] for r in rows), sum(r[2] * r[1] for r in rows),
                    next((r[3] for r in rows if r[3]), 0)))
    return out


def best_of(children):
    """``forest_best_move``'s order: a proven win first, proven losses last,
    then the most visits; ties: the first in move order."""
    best = None
    for c in children:
        if best is None or (c[3], c[1]) > (best[3], best[1]):
            best = c
    return best


def slow_lines(forests, depth):
    """Every root move's line, best first, by walking the child lists."""
    left = merged_children(forests, [])
    lines = []
    while left:
        first = best_of(left)
        left.remove(first)
        steps = [first]
        while len(steps) < depth:
            visited = [c for c in merged_children(forests, [s[0] for s in steps]) if c[1] > 0]
            if not visited:
                break
            steps.append(best_of(visited))
        lines.append(steps)
    return lines


def as_tuples(lines):
    return [[(s["move"], s["visits"], round(s["mean"] * s["visits"], 6), s["proven"])
             for s in line] for line in lines]


def slow_tuples(lines):
    return [[(m, v, round(w, 6), p) for m, v, w, p in line] for line in lines]


def check_legal(board, lines):
    for line in lines:
        b = board.copy()
        for s in line:
            assert s["move"] in b.legal_moves
            b.push(s["move"])


def check_first_steps(lines, children):
    by_move = {c["move"]: c for c in children}
    for line in lines:
        c = by_move[line[0]["move"]]
        assert (line[0]["visits"], line[0]["proven"]) == (c["visits"], c["proven"])
        assert line[0]["mean"] == pytest.approx(c["mean"])


def test_lines_follow_the_most_visited_child():
    board = connect4.Board()
    for m in (3, 3, 2):
        board.push(m)
    p = PUCT(UniformEvaluator(), seed=3)
    best = p.search(board, simulations=6000)
    lines = p.lines(depth=12)
    assert as_tuples(lines) == slow_tuples(slow_lines([p._forest], 12))
    check_legal(board, lines)
    assert lines[0][0]["move"] == best == p.stats["best_move"]
    assert sorted(line[0]["move"] for line in lines) == sorted(board.legal_moves)
    check_first_steps(lines, p.stats["children"])
    assert max(len(line) for line in lines) >= 5             # the tree is read below the root
    assert all(s["visits"] >= 1 for line in lines for s in line[1:])
    assert p.lines(k=2, depth=3) == [line[:3] for line in lines[:2]]


def test_the_tree_of_several_threads_is_read_as_one():
    b = uttt.Board()
    b.push(40)
    p = PUCT(FlatEvaluator(), seed=5, threads=2, batch_size=8, playout_weight=1.0)
    p.search(b, simulations=4000)
    lines = p.lines(k=3, depth=10)
    assert as_tuples(lines) == slow_tuples(slow_lines([p._forest], 10)[:3])
    check_legal(b, lines)
    assert lines[0][0]["move"] == p.stats["best_move"]
    assert len(lines[0]) >= 3


def test_root_parallel_lines_follow_the_merged_counts():
    b = uttt.Board()
    b.push(40)
    trees = [PUCT(UniformEvaluator(), seed=s) for s in (8, 9)]
    for p in trees:
        p.search(b, simulations=4000)
    lines = merge_puct_lines(trees, k=4, depth=10)
    assert as_tuples(lines) == slow_tuples(slow_lines([p._forest for p in trees], 10)[:4])
    check_legal(b, lines)
    children, move = merge_puct_roots(trees)
    assert lines[0][0]["move"] == move
    check_first_steps(lines, children)
    # the merged counts are more than any one tree's
    assert lines[0][1]["visits"] > max(max(c[1] for c in _puct_lines.forest_children_of(
        p._forest, 0, [lines[0][0]["move"]])) for p in trees)
    # one search's own lines are those of its tree alone
    assert merge_puct_lines(trees[:1], k=4, depth=10) == trees[0].lines(k=4, depth=10)
    # a tree of another position is left out
    other = b.copy()
    other.push(lines[0][0]["move"])
    trees[1].search(other, simulations=500)
    assert merge_puct_lines(trees, k=4, depth=10) == trees[0].lines(k=4, depth=10)


@pytest.mark.parametrize("threads", [1, 2])
def test_a_forced_win_found_by_the_solver_is_the_first_line(threads):
    b = ttt.Board()
    b.push(0)
    b.push(2)                       # X.O / ... / ...: X to move wins
    if threads == 1:
        p = PUCT(UniformEvaluator(playouts=1), seed=1, solver=True)
    else:
        p = PUCT(FlatEvaluator(), seed=1, solver=True, threads=2, playout_weight=1.0)
    p.search(b, simulations=20_000)
    assert p.stats["root_proven"] == 1
    line = p.lines(k=1, depth=9)[0]
    assert as_tuples([line]) == slow_tuples(slow_lines([p._forest], 9)[:1])
    replay = b.copy()
    for i, step in enumerate(line):
        value, _ = exact.oracle(replay)
        if i % 2 == 0:                              # X: a winning move, proven so
            assert value == 1 and step["move"] in search.optimal_moves(replay)
            assert step["proven"] == 1
        else:                                       # O: every move loses, proven so
            assert value == -1 and step["proven"] == -1
        replay.push(step["move"])
    assert replay.is_terminal() and replay.winner == "X"


def test_reading_lines_leaves_the_tree_to_search_on():
    b = connect4.Board()
    b.push(3)
    read, plain = PUCT(UniformEvaluator(), seed=4), PUCT(UniformEvaluator(), seed=4)
    for p in (read, plain):
        p.search(b, simulations=3000)
    first = read.lines()
    assert read.lines() == first and read.lines(depth=5) == [line[:5] for line in first]
    visits = read.stats["root_visits"]
    for p in (read, plain):
        p.search(b, simulations=2000)
    assert read.stats["reused"] and read.stats["reused_visits"] == visits
    assert read.stats["root_visits"] == plain.stats["root_visits"] > visits
    assert read.stats["children"] == plain.stats["children"]    # reading changed nothing
    assert read.lines() == plain.lines()


def test_no_lines_without_a_search():
    p = PUCT(UniformEvaluator(), seed=1)
    assert p.lines() == []
    p.search(ttt.Board(), simulations=200)
    assert len(p.lines()) == 9
    p.reset()
    assert p.lines() == []
    assert merge_puct_lines([]) == []
    assert _puct_lines.forest_lines([], 0, None, 4) == []


@pytest.mark.parametrize("kw, name", [
    ({"k": 0}, "k"), ({"k": -2}, "k"), ({"k": "all"}, "k"), ({"k": 1.5}, "k"),
    ({"depth": 0}, "depth"), ({"depth": int(_puct_lines.MAX_LINE) + 1}, "depth"),
    ({"depth": None}, "depth"), ({"depth": "deep"}, "depth"),
])
def test_bad_arguments_are_one_line_errors(kw, name):
    p = PUCT(UniformEvaluator(), seed=1)
    p.search(ttt.Board(), simulations=100)
    with pytest.raises(ValueError) as e:
        p.lines(**kw)
    assert str(e.value).startswith(name) and "\n" not in str(e.value)
    with pytest.raises(ValueError, match=f"^{name}"):
        merge_puct_lines([p], **kw)
    args = {"k": None, "depth": 4, **kw}
    with pytest.raises(ValueError, match=f"^{name}"):
        _puct_lines.forest_lines([p._forest], 0, args["k"], args["depth"])
    assert len(p.lines()) == 9                          # still usable


def test_bad_slots_are_one_line_errors():
    p = PUCT(UniformEvaluator(), seed=1)
    p.search(ttt.Board(), simulations=100)
    for slot in (1, -1):
        with pytest.raises(ValueError, match="^slot"):
            _puct_lines.forest_lines([p._forest], slot, None, 4)
        with pytest.raises(ValueError, match="^slot"):
            _puct_lines.forest_children_of(p._forest, slot, [])
    with pytest.raises(TypeError, match="PUCTForest"):
        _puct_lines.forest_lines([p], 0, None, 4)


@pytest.mark.parametrize("engine, options", [
    ("az", {}), ("best", {}), ("az", {"threads": 2, "parallel": "root"}),
])
def test_the_analysis_of_the_alphazero_engines_carries_lines(engine, options):
    g = games.get("uttt")
    b = g.new_board()
    b.push(40)
    a = g.analyse(b, engine, simulations=2000, seed=1, **options)
    assert a.kind == "mcts"
    for r in a.rows:
        assert r.pv and r.pv[0] == r.text               # each line opens with its own move
    top = next(r for r in a.rows if r.move == a.best_move)
    assert len(top.pv) >= 3                             # and goes below it
    replay = b.copy()
    for text in top.pv:
        replay.push(g.parse_move(replay, text))


def test_an_agent_analysed_searches_on_from_its_tree():
    g = games.get("uttt")
    b = g.new_board()
    agent = AZAgent(simulations=1000, seed=2)
    a = g.analyse(b, agent)
    assert a.rows[0].pv
    visits = agent.last_stats["root_visits"]
    move = agent.select_move(b)
    assert agent.last_stats["reused"] and agent.last_stats["reused_visits"] == visits
    assert move == agent.last_stats["best_move"]
