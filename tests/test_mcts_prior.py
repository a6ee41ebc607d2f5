"""MCTS guided by an evaluator's policy (``search.MCTS(prior=...)``): the priors
installed are the softmax of the evaluator's logits over the legal moves, the
guided nodes follow PUCT's rule, a misleading prior cannot hide a forced win,
results are reproducible, bad evaluators are named, agents pickle."""
from __future__ import annotations

import pickle

import numpy as np
import pytest

from ttt_engine import Board, uttt
from ttt_engine.agents import MCTSAgent
from ttt_engine.search import MCTS


def fixed_logits(logits_by_action, num_actions=9):
    """An evaluator whose logits are the same for every position."""
    row = np.zeros(num_actions, np.float32)
    for a, x in logits_by_action.items():
        row[a] = x

    def evaluate(observations, legal_mask):
        n = len(observations)
        return np.tile(row, (n, 1)), np.zeros(n, np.float32)
    return evaluate


def softmax_legal(logits, legal):
    z = np.where(legal, logits, -np.inf)
    e = np.exp(z - z[legal].max())
    return e / e.sum()


def test_root_priors_are_the_softmax_over_legal_moves():
    logits = {0: 2.0, 1: -1.0, 4: 3.0, 8: 0.5, 5: 7.0}   # 5 is occupied below: ignored
    b = Board.from_string("...X.O...")                     # X to move; 3 and 5 taken
    m = MCTS(seed=1, prior=fixed_logits(logits), prior_visits=4, prior_batch=2)
    m.search(b, simulations=500)
    priors = m.stats["priors"]
    row = np.zeros(9, np.float32)
    for a, x in logits.items():
        row[a] = x
    expected = softmax_legal(row, b.action_mask())
    assert sorted(priors) == sorted(b.legal_moves)
    for move, p in priors.items():
        assert p == pytest.approx(expected[move], abs=2e-5)
    assert m.stats["evaluator_calls"] >= 1
    assert m.stats["evaluator_calls"] <= m.stats["evaluations"] <= 2 * m.stats["evaluator_calls"]


def test_guided_root_follows_puct_rule():
    """With a huge c_puct the PUCT term dominates: argmax P * sqrt(N) / (1 + n)
    spreads the root's visits in proportion to the priors."""
    logits = {0: 1.5, 2: 1.0, 4: 2.5, 6: 0.2, 8: 0.8}
    m = MCTS(seed=3, prior=fixed_logits(logits), prior_visits=10**9, prior_batch=1,
             c_puct=1e5)
    m.search(Board(), simulations=20_000)
    row = np.zeros(9, np.float32)
    for a, x in logits.items():
        row[a] = x
    p = softmax_legal(row, np.ones(9, bool))
    visits = np.zeros(9)
    for c in m.stats["children"]:
        visits[c["move"]] = c["visits"]
    share = visits / visits.sum()
    assert np.abs(share - p).max() < 0.01, (share, p)


def test_misleading_prior_does_not_hide_a_forced_win():
    b = Board.from_string("XX.OO....")              # X wins at 2 (and must: O threatens 5)
    liar = fixed_logits({8: 12.0, 7: 6.0})          # almost all weight on moves that lose
    for solver in (False, True):
        m = MCTS(seed=5, prior=liar, prior_visits=0, prior_batch=1, solver=solver)
        assert m.search(b, simulations=5_000) == 2
        assert m.stats["priors"][8] > 0.99


def test_guided_search_is_reproducible_one_and_two_threads():
    from ttt_engine.network import Network
    net = Network.init("uttt", hidden=(16,), seed=2)
    b = uttt.Board()
    for threads in (1, 2):
        runs = []
        for _ in range(2):
            m = MCTS(seed=7, prior=net, prior_visits=8, prior_batch=8, threads=threads)
            moves = []
            for _ in range(3):
                mv = m.search(b, simulations=3_000)
                moves.append((mv, m.stats["evaluations"],
                              [c["visits"] for c in m.stats["children"]]))
            runs.append(moves)
        assert runs[0] == runs[1]
        assert runs[0][0][1] > 0


def test_plain_search_unchanged_by_the_prior_options():
    a, b = MCTS(seed=11), MCTS(seed=11, prior_visits=3, prior_batch=5, c_puct=9.0)
    board = uttt.Board()
    assert a.search(board, simulations=4_000) == b.search(board, simulations=4_000)
    assert a.stats["children"] == b.stats["children"]
    assert b.stats["evaluator_calls"] == 0 and b.stats["priors"] is None


def test_bad_prior_evaluator_is_named_and_the_search_stays_usable():
    calls = {"n": 0}

    def flaky(observations, legal_mask):
        calls["n"] += 1
        if calls["n"] == 1:
            return np.zeros((len(observations), 3), np.float32), np.zeros(len(observations))
        return np.zeros(legal_mask.shape, np.float32), np.zeros(len(observations), np.float32)

    m = MCTS(seed=1, prior=flaky, prior_visits=1, prior_batch=4)
    with pytest.raises(ValueError, match=r"flaky.*logits of shape \(\d+, 3\)"):
        m.search(Board(), simulations=1_000)
    assert m.search(Board(), simulations=1_000) in range(9)
    assert m.stats["evaluator_calls"] > 0
    with pytest.raises(TypeError, match="prior must be an evaluator"):
        MCTS(prior="net.npz")
    with pytest.raises(ValueError, match="prior_batch"):
        MCTS(prior=flaky, prior_batch=0)


def test_agent_with_shipped_prior_pickles_and_plays():
    agent = MCTSAgent(simulations=400, seed=3, prior="shipped", solver=True)
    copy = pickle.loads(pickle.dumps(agent))
    b = uttt.Board()
    assert agent.select_move(b) == copy.select_move(b)
    assert agent.last_stats["priors"] is not None
    assert abs(sum(agent.last_stats["priors"].values()) - 1) < 1e-3
