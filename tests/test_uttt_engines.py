"""Engines on Ultimate Tic-Tac-Toe: search-core MCTS, tree Q-learning and Sarsa.
Budgets are iteration counts, so results are deterministic and
fast; strength-at-equal-time numbers live in bench/ and docs/uttt.md."""
import math

import pytest

from conftest import play_randomly, uttt_winning_position

from ttt_engine.agents import MCTSAgent, PerfectAgent, RandomAgent, play_match
from ttt_engine.search import MCTS
from ttt_engine.tree_agents import SarsaAgent, TreeQAgent
from ttt_engine.ttt import Board as TTTBoard
from ttt_engine.uttt import Board

LEARNERS = [TreeQAgent, SarsaAgent]


def bc(b, c):
    return (3 * (b // 3) + c // 3) * 9 + 3 * (b % 3) + c % 3




# --------------------------------------------------------------------------- MCTS (search core)

def test_mcts_runs_on_uttt_and_finds_the_winning_move():
    m = MCTS(seed=3, max_nodes=100_000)
    assert m.search(uttt_winning_position(), simulations=2000) == bc(2, 2)
    move = m.search(Board(), simulations=3000)
    assert move in Board().legal_moves
    assert m.stats["root_visits"] == 3000


def test_mcts_tree_reuse_after_two_moves_keeps_visit_count():
    board = Board()
    a, b = MCTS(seed=11, max_nodes=400_000), MCTS(seed=11, max_nodes=400_000)
    m1 = a.search(board, simulations=20_000)
    assert b.search(board, simulations=20_000) == m1          # identical twin trees
    # read the grandchild's visits in twin ``a`` (advance keeps that subtree)
    a.advance(m1)
    children = {c["move"]: c["visits"] for c in a.stats["children"]}
    assert children[m1] == a._tree.root_visits
    kids = {c[0]: c[1] for c in a._tree.root_children()}   # (move, visits, ...)
    m2 = max(kids, key=kids.get)
    expected = kids[m2]
    assert expected > 0
    # the real two-move flow in twin ``b``: our move, their reply, search again
    board.push(m1)
    board.push(m2)
    b.search(board, simulations=1000)
    s = b.stats
    assert s["reused"] and s["reused_visits"] == expected
    assert s["root_visits"] == expected + 1000


def test_mcts_beats_random_on_uttt_small_budget():
    r = play_match(MCTSAgent(simulations=300, seed=1), RandomAgent(seed=2), games=6,
                   board_factory=Board, seed=5)
    assert r.wins >= 5


# --------------------------------------------------------------------------- tree Q / Sarsa

@pytest.mark.parametrize("cls", LEARNERS)
def test_learner_takes_immediate_win(cls):
    agent = cls(simulations=300, seed=1)
    assert agent.select_move(uttt_winning_position()) == bc(2, 2)


@pytest.mark.parametrize("cls", LEARNERS)
def test_learner_is_deterministic_for_a_seed(cls):
    b = Board()
    b.push("4, 4")
    runs = []
    for _ in range(2):
        agent = cls(simulations=2000, seed=42)
        runs.append((agent.select_move(b), agent.root_children(), agent.last_stats["nodes_used"]))
    assert runs[0] == runs[1]
    assert cls(simulations=2000, seed=43).select_move(b) in b.legal_moves


@pytest.mark.parametrize("cls", LEARNERS)
def test_learner_keeps_subtree_between_turns(cls):
    agent = cls(simulations=3000, seed=7, max_nodes=3_000_000)
    board = Board()
    m1 = agent.select_move(board)
    kids = [(mv, v) for mv, _, v in agent.root_children()]
    assert sum(v for _, v in kids) == 3000
    board.push(m1)
    reply = max(board.legal_moves, key=lambda mv: agent.grandchild_visits(m1, mv) or 0)
    expected = agent.grandchild_visits(m1, reply)
    assert expected is not None and expected > 0
    board.push(reply)
    agent.select_move(board)
    s = agent.last_stats
    assert s["reused"] and s["reused_visits"] == expected
    assert s["root_visits"] == expected + 3000
    # a position not in the tree: start afresh
    agent.select_move(Board())
    assert not agent.last_stats["reused"] and agent.last_stats["root_visits"] == 3000


@pytest.mark.parametrize("cls", LEARNERS)
def test_learner_survives_a_full_arena(cls):
    agent = cls(simulations=500, seed=3, max_nodes=2000)
    move = agent.select_move(Board())
    assert move in Board().legal_moves
    s = agent.last_stats
    assert s["tail_simulations"] > 0 and s["nodes_used"] <= 2000


@pytest.mark.parametrize("cls", LEARNERS)
def test_learner_is_game_generic_and_sound_on_tictactoe(cls):
    r = play_match(cls(simulations=3000, seed=1), PerfectAgent(), games=6, seed=2)
    assert r.losses == 0
    r = play_match(cls(simulations=3000, seed=1), RandomAgent(seed=3), games=10, seed=4)
    assert r.losses == 0 and r.wins >= 6


@pytest.mark.parametrize("cls", LEARNERS)
def test_learner_beats_random_on_uttt(cls):
    r = play_match(cls(simulations=1500, seed=1), RandomAgent(seed=2), games=4,
                   board_factory=Board, seed=9)
    assert r.wins >= 3


def test_qlearning_rate_schedule():
    a = TreeQAgent(simulations=1)
    assert a.alpha(0) == pytest.approx(0.4)
    assert a.alpha(30) == pytest.approx(0.01)
    assert a.alpha(10) == pytest.approx(0.4 * math.exp(-math.log(40) / 30 * 10))
    assert a.alpha(500) == pytest.approx(0.01)
    b = TreeQAgent(simulations=1, A=0.5, alpha_min=0.0, k=0.2)
    assert b.alpha(5) == pytest.approx(0.5 * math.exp(-1.0))


def test_time_budget():
    agent = SarsaAgent(time=0.05, seed=1)
    agent.select_move(Board())
    s = agent.last_stats
    assert 0.04 <= s["time"] < 1.0 and s["simulations"] > 0


@pytest.mark.parametrize("kwargs, msg", [
    (dict(simulations=0), "simulations"), (dict(time=-1), "time"), (dict(epsilon=2), "epsilon"),
    (dict(max_nodes=10), "max_nodes"), (dict(win=0), "win"), (dict(simulations="many"), "simulations"),
])
def test_learner_validation(kwargs, msg):
    with pytest.raises(ValueError, match=msg):
        TreeQAgent(**kwargs)
    with pytest.raises(ValueError, match=msg):
        SarsaAgent(**kwargs)


def test_learner_rejects_finished_or_foreign_boards():
    b = uttt_winning_position()
    b.push(bc(2, 2))
    with pytest.raises(ValueError, match="over"):
        TreeQAgent(simulations=10).select_move(b)
    with pytest.raises(ValueError, match="Board"):
        SarsaAgent(simulations=10).select_move("board")
    assert TreeQAgent(simulations=50).select_move(TTTBoard()) in range(9)


def test_sarsa_parameters():
    with pytest.raises(ValueError, match="gamma"):
        SarsaAgent(gamma=1.5)
    with pytest.raises(ValueError, match="alpha"):
        SarsaAgent(alpha=0)
    assert SarsaAgent(simulations=5).gamma == 0.99


# --------------------------------------------------------------------------- alpha-beta (search core)

def test_alphabeta_on_uttt_matches_plain_negamax_and_wins():
    import random
    from ttt_engine.search import alphabeta, negamax
    rng = random.Random(1)
    checked = 0
    while checked < 4:
        b = play_randomly(Board(), rng, rng.randrange(10, 40))
        if b.is_terminal():
            continue
        assert alphabeta(b, 3).value == negamax(b, 3, alphabeta=False).value
        checked += 1
    r = alphabeta(uttt_winning_position(), 2)
    assert r.best_move == bc(2, 2) and r.value > 0
