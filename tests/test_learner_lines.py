"""The principal variations of the learners: the tree learners' lines
(``TreeQAgent.lines`` / ``SarsaAgent.lines``, read from the Q tree in C)
checked against a slow walk over the tree's child lists and against the
learner's own move choice, and the tree left as it was; the table agents'
lines (``q``, ``greedy``) checked against the agents' own choices on the
successive boards; and every one of these engines' analysis rows carrying
its line, in the library and through the web view's API."""
import json
import warnings

import pytest
from tree_lines_reference import check_legal

from ttt_engine import games, quixo, ttt, uttt
from ttt_engine._core.algorithms import treelearn as _tl
from ttt_engine._core.algorithms import treelearn_lines as _tll
from ttt_engine._learned_lines import greedy_lines
from ttt_engine.analysis import PV_MIN_VISITS, PV_PLIES
from ttt_engine.ttt.qagent import QAgent
from ttt_engine.search import _dispatch
from ttt_engine.tree_agents import SarsaAgent, TreeQAgent

LEARNERS = [TreeQAgent, SarsaAgent]


# ---------------------------------------------------------------------------- tree learners
def slow_lines(tree, depth):
    """Every root move's line by walking ``tl_children_of`` in Python: root
    moves by the learner's order (lowest q, then more visits, then move
    order), below each the same choice at every node, down to a node
    without children."""
    def best(children):
        out = None
        for c in children:                      # ties: the first in move order
            if out is None or (c[1], -c[2]) < (out[1], -out[2]):
                out = c
        return out
    left = list(_tll.tl_children_of(tree, []) or [])
    lines = []
    while left:
        first = best(left)
        left.remove(first)
        steps = [first]
        while len(steps) < depth:
            children = _tll.tl_children_of(tree, [s[0] for s in steps])
            if not children:
                break
            steps.append(best(children))
        lines.append(steps)
    return lines


def as_tuples(lines):
    return [[(s["move"], s["q"], s["visits"], int(s["terminal"])) for s in line]
            for line in lines]


def snapshot(tree, path=()):
    """The whole tree below ``path``: every node's children, recursively (a
    node never visited has none: a node is expanded on its first visit)."""
    children = _tll.tl_children_of(tree, list(path)) or []
    return tuple((c, snapshot(tree, path + (c[0],)) if c[2] else ()) for c in children)


def uttt_board():
    b = uttt.Board()
    for m in (40, 30):
        b.push(m)
    return b


@pytest.mark.parametrize("cls", LEARNERS)
def test_tree_lines_follow_the_learners_choice(cls):
    board = uttt_board()
    agent = cls(simulations=6000, seed=3)
    best = agent.select_move(board)
    lines = agent.lines(depth=PV_PLIES)
    assert as_tuples(lines) == slow_lines(agent._tree, PV_PLIES)
    check_legal(board, lines)
    # one line per root move, each opening with that move's root entry, the
    # learner's move first
    roots = {m: (q, v) for m, q, v in agent.root_children()}
    assert sorted(line[0]["move"] for line in lines) == sorted(board.legal_moves)
    assert all((line[0]["q"], line[0]["visits"]) == roots[line[0]["move"]] for line in lines)
    assert lines[0][0]["move"] == best == agent.last_stats["best_move"]
    assert max(len(line) for line in lines) >= 4           # read below the root
    # each line ends at depth or at a node the tree has not expanded
    for line in lines:
        assert len(line) == PV_PLIES or \
            _tll.tl_children_of(agent._tree, [s["move"] for s in line]) == []
    assert agent.lines(k=2, depth=3) == [line[:3] for line in lines[:2]]


@pytest.mark.parametrize("cls", LEARNERS)
def test_every_step_is_the_move_the_learner_plays_there(cls):
    """The learner's own choice below the root: a twin learner of the same
    seed, trained the same way, its tree moved down to a node of the line
    (``tl_reroot``, the reuse between moves), plays the line's next move
    there (``best_move``, the move ``search`` returns).  One and two plies
    below a Tic-Tac-Toe root, where no other move order reaches the node,
    so the node found is the line's own."""
    board = ttt.Board()
    board.push(0)
    agent = cls(simulations=4000, seed=7)
    agent.select_move(board)
    lines = agent.lines(k=3, depth=9)
    checked = 0
    for line in lines:
        for plies in (1, 2):
            if len(line) <= plies or line[plies - 1]["visits"] < PV_MIN_VISITS:
                break           # a node visited once: its children untried, the choice a tie
            twin = cls(simulations=4000, seed=7)
            twin.select_move(board)
            node = board.copy()
            for s in line[:plies]:
                node.push(s["move"])
            assert _dispatch(_tl.tl_reroot, twin._tree, board, node, plies)
            assert twin._tree.best_move() == line[plies]["move"]
            checked += 1
    assert checked >= 4


@pytest.mark.parametrize("cls", LEARNERS)
def test_reading_lines_changes_nothing(cls):
    board = uttt_board()
    read, plain = cls(simulations=400, seed=5), cls(simulations=400, seed=5)
    for a in (read, plain):
        a.select_move(board)
    before = snapshot(read._tree)
    used = read._tree.nodes_used
    first = read.lines()
    assert read.lines() == first and read.lines(depth=5) == [line[:5] for line in first]
    assert snapshot(read._tree) == before and read._tree.nodes_used == used
    assert before == snapshot(plain._tree)
    # both search on from their trees and stay the same
    for a in (read, plain):
        a.select_move(board)
    assert read.last_stats["reused"] and read.root_children() == plain.root_children()
    assert read.lines() == plain.lines()


def test_no_tree_no_lines():
    assert TreeQAgent(simulations=10, seed=1).lines() == []
    with pytest.raises(ValueError, match="depth"):
        TreeQAgent(simulations=10, seed=1).lines(depth=0)


# ---------------------------------------------------------------------------- table agents
@pytest.fixture(scope="module")
def q_agent():
    return games.get("ttt").make_agent("q", seed=1, episodes=200_000)


@pytest.fixture(scope="module")
def quixo_values():
    values, _ = quixo.collect_values(3000, seed=3, size=3)
    return values


def test_q_lines_are_the_agents_moves_to_the_end(q_agent):
    table = q_agent.q.copy()
    for moves in ((), (4,), (0, 4), (0, 4, 8)):
        board = ttt.Board()
        for m in moves:
            board.push(m)
        lines = greedy_lines(q_agent, board, PV_PLIES)
        assert sorted(lines) == sorted(board.legal_moves)
        for first, line in lines.items():
            assert line[0] == first
            b = board.copy()
            b.push(first)
            for m in line[1:]:
                assert m == q_agent.select_move(b)      # the agent's own move, either side
                b.push(m)
            assert b.is_terminal()                      # to the end of the game
    assert (q_agent.q == table).all()                   # reading changed nothing


def test_q_lines_follow_a_changed_table():
    """An agent whose table prefers the highest free cell plays 8, 7, 6, ...
    for both sides, until O completes the diagonal 2-4-6."""
    q = QAgent()
    q.q[:, :] = range(9)
    assert greedy_lines(q, ttt.Board(), PV_PLIES)[0] == [0, 8, 7, 6, 5, 4, 3, 2]


def value_of(values, board, move):
    """The greedy agent's score of ``move`` (its true result when it ends the
    game, else the table's estimate, 0.5 unseen) and the observations."""
    child = board.copy()
    child.push(move)
    if child.is_terminal():
        w = child.winner
        return (1.0 if w == board.to_move else 0.5 if w == "draw" else 0.0), None
    got = values.get(child)
    return (0.5, 0) if got is None else got


def test_value_lines_follow_the_greedy_choice(quixo_values):
    g = games.get("quixo")
    agent = g.make_agent("greedy", seed=1, values=quixo_values)
    twin = g.make_agent("greedy", seed=1, values=quixo_values)
    chooser = g.make_agent("greedy", seed=2, values=quixo_values)
    board = g.new_board(size=3)
    size = len(quixo_values)
    lines = greedy_lines(agent, board, PV_PLIES)
    assert sorted(lines) == sorted(board.legal_moves)
    assert max(len(line) for line in lines.values()) >= 3
    for first, line in lines.items():
        assert line[0] == first and len(line) <= PV_PLIES
        b = board.copy()
        b.push(first)
        for m in line[1:]:
            scores = {c: value_of(quixo_values, b, c) for c in b.legal_moves}
            top = max(v for v, _ in scores.values())
            assert scores[m][0] == top                  # a greedy move ...
            assert scores[m][1] is None or scores[m][1] > 0     # ... on something learned
            assert value_of(quixo_values, b, chooser.select_move(b))[0] == top
            b.push(m)
        if len(line) < PV_PLIES and not b.is_terminal():
            # it stopped where the first greedy move leads to an unseen position
            scores = {c: value_of(quixo_values, b, c) for c in b.legal_moves}
            top = max(v for v, _ in scores.values())
            assert scores[next(c for c in b.legal_moves if scores[c][0] == top)][1] == 0
    # reading drew nothing from the agent's generator and added nothing to its table
    assert len(quixo_values) == size
    probe = g.new_board(size=3)
    for _ in range(6):
        if probe.is_terminal():
            break
        m = agent.select_move(probe)
        assert m == twin.select_move(probe)
        probe.push(m)


# ---------------------------------------------------------------------------- the analysis
def check_rows(game, board, a, lines):
    """Every row's pv is its line's moves as texts, this row's move first."""
    assert a.rows and all(r.pv and r.pv[0] == r.text for r in a.rows)
    for r in a.rows:
        replay = board.copy()
        for text, m in zip(r.pv, lines[r.move]):
            assert game.parse_move(replay, text) == m
            replay.push(m)
    assert sum(len(r.pv) >= 2 for r in a.rows) >= 3           # several lines to show


@pytest.mark.parametrize("cls", LEARNERS)
def test_tree_learner_rows_carry_their_lines(cls):
    g = games.get("uttt")
    board = uttt_board()
    agent = cls(simulations=6000, seed=2)
    a = g.analyse(board, agent)
    assert a.kind == "tree"
    lines = {line[0]["move"]: line for line in agent.lines(depth=PV_PLIES)}
    check_rows(g, board, a, {m: [s["move"] for s in line] for m, line in lines.items()})
    for r in a.rows:              # shown up to the first step visited once, a final move always
        line = lines[r.move]
        assert len(r.pv) == len(line) or (line[len(r.pv)]["visits"] < PV_MIN_VISITS
                                          and not line[len(r.pv)]["terminal"])
    assert a.to_dict()["pv"] == list(a.best.pv)


@pytest.mark.parametrize("engine", ["treeq", "sarsa"])
def test_tree_learner_engines_by_name(engine):
    g = games.get("uttt")
    a = g.analyse(uttt_board(), engine, simulations=4000, seed=1)
    assert all(r.pv and r.pv[0] == r.text for r in a.rows) and len(a.best.pv) >= 2


def test_q_rows_carry_their_lines(q_agent):
    g = games.get("ttt")
    board = ttt.Board()
    board.push(4)
    a = g.analyse(board, q_agent)
    assert a.kind == "q"
    check_rows(g, board, a, greedy_lines(q_agent, board, PV_PLIES))
    assert all(len(r.pv) == len(greedy_lines(q_agent, board, PV_PLIES)[r.move])
               for r in a.rows)


def test_value_rows_carry_their_lines(quixo_values):
    g = games.get("quixo")
    agent = g.make_agent("greedy", seed=1, values=quixo_values)
    board = g.new_board(size=3)
    a = g.analyse(board, agent)
    assert a.kind == "values"
    check_rows(g, board, a, greedy_lines(agent, board, PV_PLIES))


# ---------------------------------------------------------------------------- the web view
@pytest.fixture(scope="module")
def client():
    pytest.importorskip("starlette")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient
    from ttt_engine.web import create_app
    with TestClient(create_app(max_time=2.0, max_simulations=100_000,
                               learn_games=2000)) as c:
        yield c


@pytest.mark.parametrize("body", [
    {"game": "uttt", "engine": "treeq", "budgets": {"simulations": 4000}, "moves": [40, 30]},
    {"game": "uttt", "engine": "sarsa", "budgets": {"simulations": 4000}, "moves": [40, 30]},
    {"game": "quixo", "engine": "greedy", "options": {"size": 3}},
])
def test_the_web_view_gets_the_lines(client, body):
    r = client.post("/api/analyse", content=json.dumps(dict(body, seed=1)),
                    headers={"Content-Type": "application/json"})
    assert r.status_code == 200, r.text
    d = r.json()
    assert all(row["pv"] and row["pv"][0] == row["text"] for row in d["rows"])
    assert d["pv"] == next(row["pv"] for row in d["rows"] if row["move"] == d["best_move"])
    assert any(len(row["pv"]) >= 2 for row in d["rows"])
