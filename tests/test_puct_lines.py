"""The principal variations of PUCT trees (``search.PUCT.lines``,
``search.puct.merge_puct_lines``): read without changing the tree, each
following the most visited child, checked against a slow walk over the trees'
child lists and against the Tic-Tac-Toe oracle on a forced win; the analysis
of the AlphaZero engines carries them."""
import numpy as np
import pytest

import tree_lines_reference as ref
from ttt_engine import connect4, games, ttt, uttt
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


def forest_children(forest, path):
    """Tree 0 of a forest's child list for the reference walk."""
    return [(move, visits, mean * visits, proven, prior)
            for move, visits, mean, proven, prior
            in _puct_lines.forest_children_of(forest, 0, path) or []]


def slow_lines(forests, depth):
    """``forest_best_move``'s order: a proven win first, proven losses last,
    then the most visits; ties: the higher prior, then the first in move
    order."""
    return ref.rounded(ref.slow_lines(forest_children, forests, depth, True, False), 6)


def as_tuples(lines):
    return ref.as_tuples(lines, 6)


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
    assert as_tuples(lines) == slow_lines([p._forest], 12)
    ref.check_full_lines(p, board, lines, best)
    check_first_steps(lines, p.stats["children"])


def test_the_tree_of_several_threads_is_read_as_one():
    b = uttt.Board()
    b.push(40)
    p = PUCT(FlatEvaluator(), seed=5, threads=2, batch_size=8, playout_weight=1.0)
    p.search(b, simulations=4000)
    lines = p.lines(k=3, depth=10)
    assert as_tuples(lines) == slow_lines([p._forest], 10)[:3]
    ref.check_legal(b, lines)
    assert lines[0][0]["move"] == p.stats["best_move"]
    assert len(lines[0]) >= 3


def test_root_parallel_lines_follow_the_merged_counts():
    b = uttt.Board()
    b.push(40)
    trees = [PUCT(UniformEvaluator(), seed=s) for s in (8, 9)]
    for p in trees:
        p.search(b, simulations=4000)
    lines = merge_puct_lines(trees, k=4, depth=10)
    assert as_tuples(lines) == slow_lines([p._forest for p in trees], 10)[:4]
    ref.check_legal(b, lines)
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
    assert as_tuples([line]) == slow_lines([p._forest], 9)[:1]
    ref.check_forced_win(b, line, "X")


def test_reading_lines_leaves_the_tree_to_search_on():
    b = connect4.Board()
    b.push(3)
    ref.check_reading_changes_nothing(PUCT(UniformEvaluator(), seed=4),
                                      PUCT(UniformEvaluator(), seed=4), b)


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
