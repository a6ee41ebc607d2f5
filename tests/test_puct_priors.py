"""PUCT's move when the visits do not separate the root's children: the most
visited child, ties going to the higher prior (then the first in move
order), so a search too short to visit every child plays the evaluator's
most likely move, never worse than the policy alone.

The expected move is computed here from the evaluator's logits (the argmax
over the legal moves, the first in move order among equal ones): with one
simulation no child is visited, with two the most likely one alone is, and
with three either it has two visits or two children have one each, the most
likely first."""
from __future__ import annotations

import numpy as np
import pytest

from conftest import unfinished_positions
from test_puct import hashed_evaluator
from ttt_engine import games
from ttt_engine.agents import PolicyAgent
from ttt_engine.search import PUCT
from ttt_engine.search.puct import merge_puct_lines, merge_puct_roots

GAMES = ("ttt", "uttt", "connect4", "quixo", "clobber")


def spread_evaluator(observations, legal_mask):
    """``hashed_evaluator``'s value, and for logits the ranks of its logits
    times 0.5 (0, 0.5, 1, ...): no two actions equally likely, their priors
    far apart in float32."""
    logits, values = hashed_evaluator(observations, legal_mask)
    ranks = np.argsort(np.argsort(logits, axis=1), axis=1)
    return (0.5 * ranks).astype(np.float32), values


def most_likely(board, evaluator):
    """The legal move of largest logit (the first in move order among equal ones)."""
    logits, _ = evaluator(np.asarray(board.observation())[None],
                          np.asarray(board.action_mask(), bool)[None])
    best = None
    for m in board.legal_moves:
        x = logits[0, board.move_to_action(m)]
        if best is None or x > best[0]:
            best = (x, m)
    return best[1]


def positions(game, count, seed):
    """The start and ``count`` positions after each of 1, 3 and up to 10
    random plies (fewer on a small board), games that ended skipped."""
    g = games.get(game)
    deep = min(10, len(g.new_board().legal_moves) // 2)
    return [g.new_board()] + [b for plies in (1, 3, deep) for b in
                              unfinished_positions(g.new_board, count, seed + plies, plies)]


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("simulations", [1, 2, 3])
@pytest.mark.parametrize("batch_size", [1, 4])
def test_a_short_search_plays_the_most_likely_move(game, simulations, batch_size):
    boards = positions(game, 8, seed=11)
    p = PUCT(spread_evaluator, batch_size=batch_size, seed=5)
    differs = 0
    for board in boards:
        p.reset()
        move = p.search(board, simulations=simulations)
        assert move == most_likely(board, spread_evaluator), board
        assert p.stats["best_move"] == move
        differs += move != board.legal_moves[0]
    assert differs > len(boards) // 2        # the first move in order would fail this test


def test_ties_at_the_top_go_to_the_higher_prior():
    """Four simulations in batches of three (virtual losses send the three
    leaves of the second batch to three children): three children of one
    visit each, the move the most likely of them, not the first in move
    order; the lines and the root-parallel merge rank them the same way."""
    board = games.get("ttt").new_board()
    board.push(1)
    p = PUCT(spread_evaluator, seed=1, batch_size=3)
    move = p.search(board, simulations=4)
    kids = p.stats["children"]
    tied = [c for c in kids if c["visits"] == 1]
    assert len(tied) == 3 and sum(c["visits"] for c in kids) == 3
    assert move == max(tied, key=lambda c: c["prior"])["move"] == most_likely(
        board, spread_evaluator)
    assert move != tied[0]["move"]
    lines = p.lines(depth=1)
    assert lines[0][0]["move"] == move
    # the lines rank every root child as the move choice does: visits, then prior
    order = sorted(kids, key=lambda c: (-c["visits"], -c["prior"]))
    assert [line[0]["move"] for line in lines] == [c["move"] for c in order]
    assert merge_puct_lines([p], depth=1) == lines
    assert merge_puct_roots([p])[1] == move


@pytest.mark.parametrize("game", GAMES)
def test_the_az_agent_with_one_simulation_plays_the_policy(game):
    """The shipped network, run in C by the search, against the same network's
    policy alone (numpy, ``PolicyAgent``): the same move in every position
    (the two forward passes differ in the last float bits, which could flip
    only a near tie; none of these positions has one)."""
    g = games.get(game)
    boards = positions(game, 10, seed=3)
    policy = PolicyAgent()
    for sims in (1, 2, 3):
        agent = g.make_agent("az", simulations=sims, seed=1)
        same = 0
        for board in boards:
            agent.reset()
            move = agent.select_move(board.copy())
            same += move == policy.select_move(board.copy())
            kids = agent.last_stats["children"]
            assert move == max(kids, key=lambda c: (c["visits"], c["prior"]))["move"]
        assert same == len(boards), (sims, same, len(boards))


def test_larger_searches_keep_the_most_visited_move():
    """Where the visits separate the children, the prior does not matter."""
    board = games.get("connect4").new_board()
    p = PUCT(spread_evaluator, seed=2)
    move = p.search(board, simulations=400)
    kids = p.stats["children"]
    assert move == max(kids, key=lambda c: c["visits"])["move"]
    assert sum(c["visits"] == max(k["visits"] for k in kids) for c in kids) == 1
