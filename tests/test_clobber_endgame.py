"""The exact endgame solve of the tree searches (``endgame=``) on Clobber: the
game gives the generic policy its own solver, counted in stones, so a search
with ``endgame=N`` plays a winning move whenever one exists once at most N
stones are left, and repeats from a seed on a simulation budget."""

import pytest

from ttt_engine import clobber, games
from ttt_engine.agents import MCTSAgent
from ttt_engine.search import MCTS

from conftest import duel_with_stat, unfinished_positions

GAME = games.get("clobber")


def _positions(count, seed, plies, rows=6, cols=5):
    return unfinished_positions(lambda: clobber.Board(rows, cols), count, seed, plies)


def test_the_endgame_counts_stones():
    b = clobber.Board(6, 5)
    assert GAME.endgame_cells(b) == 30
    b.push(b.legal_moves[0])
    assert GAME.endgame_cells(b) == 29
    assert GAME.endgame_cells(clobber.Board(4, 4)) == 16


def test_the_endgame_solve_agrees_with_the_solver():
    """The search's solve (a small fresh table, a bound of work) gives every
    position the value ``clobber.solve`` gives it, and its move keeps it."""
    wins = losses = 0
    for b in _positions(24, seed=5, plies=8) + _positions(8, seed=6, plies=12, rows=5):
        value, move = GAME.endgame_solve(b, None)
        exact = clobber.solve(b)
        assert value == (1 if exact.value == "win" else -1)
        assert move in b.legal_moves
        if value == 1:
            after = b.copy()
            after.push(move)
            assert after.is_terminal() or clobber.solve(after).value == "loss"
            wins += 1
        else:
            losses += 1
    assert wins and losses


def test_a_search_with_the_endgame_plays_a_winning_move():
    """In won positions with a few winning moves among many, MCTS-Solver with the
    endgame plays one every time; 30 simulations alone miss some."""
    missed_without = 0
    won = 0
    for b in _positions(40, seed=7, plies=7):
        if clobber.solve(b).value != "win":
            continue
        won += 1
        for endgame in (24, 0):
            m = MCTS(solver=True, seed=1, endgame=endgame)
            move = m.search(b.copy(), simulations=30)
            after = b.copy()
            after.push(move)
            keeps = after.is_terminal() or clobber.solve(after).value == "loss"
            if endgame:
                assert keeps and m.stats["endgame"] == 1
            else:
                missed_without += not keeps
    assert won >= 10 and missed_without >= 1


def test_above_the_threshold_the_tree_searches_alone():
    b = clobber.Board(6, 5)
    m = MCTS(solver=True, seed=2, endgame=24)
    m.search(b, simulations=200)
    assert m.stats["endgame"] is None and m.stats["simulations"] == 200


@pytest.mark.parametrize("threads", [1, 2])
def test_a_seeded_game_through_the_endgame_repeats(threads):
    """On a simulation budget the solve is bounded by work, not time: two
    agents of one seed play the same game into and through the endgame."""
    def game():
        agents = [MCTSAgent(seed=9, simulations=300, solver=True, endgame=24, threads=threads)
                  for _ in range(2)]
        return duel_with_stat(agents, clobber.Board(6, 5), "endgame")
    moves, values = game()
    assert any(v is not None for v in values)
    assert game() == (moves, values)
