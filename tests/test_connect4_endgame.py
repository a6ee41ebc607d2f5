"""The exact endgame solve of the tree searches (``endgame=``) on Connect Four:
the game gives the generic policy its own solver (``Game.endgame_solve``), so a
search with ``endgame=N`` plays optimally once at most N cells are empty, and
searches as before above that."""

import numpy as np
import pytest

from ttt_engine import connect4, games, quixo
from ttt_engine.agents import AZAgent, MCTSAgent
from ttt_engine.search import MCTS, PUCT

from conftest import duel_with_stat, unfinished_positions

GAME = games.get("connect4")


def _uniform_logits(observations, legal_mask):
    """An evaluator from Python (tree parallelism needs one): equal logits, value 0."""
    return (np.zeros(legal_mask.shape, dtype=np.float32),
            np.zeros(len(legal_mask), dtype=np.float32))


def _positions(count, seed, plies):
    return unfinished_positions(connect4.Board, count, seed, plies)


def _won_positions(count, seed, plies=16):
    """Won positions (for the side to move) with their exact column scores."""
    out = []
    for b in _positions(4 * count, seed, plies):
        scores = connect4.analyse(b)
        if max(scores.values()) > 0:
            out.append((b, scores))
    assert len(out) >= count, "too few won positions drawn"
    return out[:count]


# Positions (the standard notation) whose side to move has one winning column,
# or, where nothing wins, one column that does not lose; none wins at once, and
# 100 simulations of MCTS-Solver alone (seed 1) play another column in each.
ONE_WINNING_COLUMN = ["2214464415627633", "331635133262216253722", "4754224361164264",
                      "76532342764351263166"]
ONE_SAVING_COLUMN = ["14217577245175525522124", "71245247273455124513",
                     "22254743637517731756723", "5227774122672562437334"]


def _only(text, winning):
    """The one column that wins (``winning``) or keeps the draw, checked
    against the exact analysis."""
    b = connect4.from_moves(text)
    scores = connect4.analyse(b)
    good = [c for c, s in scores.items() if (s > 0 if winning else s >= 0)]
    if not winning:
        assert max(scores.values()) == 0, f"{text}: not a drawn position"
    assert len(good) == 1, f"{text}: {scores}"
    return b, good[0]


def _searchers():
    """Each way of searching with the endgame solve: (name, make(endgame)).  The
    timed ones give the solve most of half a second: a loaded machine still
    finishes it (a 28-cell endgame takes 0.01-0.1 s, the first solve of a
    process more: it pages its table in)."""
    timed = {"time": 0.5, "endgame_share": 0.9}    # not the default 0.3: a loaded CI host
    return [
        ("mcts simulations", lambda n: MCTSAgent(seed=2, simulations=100, solver=True,
                                                 endgame=n)),
        ("mcts time", lambda n: MCTSAgent(seed=2, solver=True, endgame=n, **timed)),
        ("mcts two threads", lambda n: MCTSAgent(seed=2, solver=True, threads=2, endgame=n,
                                                 **timed)),
        ("az simulations", lambda n: AZAgent(_uniform_logits, seed=2, simulations=50,
                                             endgame=n)),
        ("az beside", lambda n: AZAgent(_uniform_logits, seed=2, threads=2, parallel="tree",
                                        endgame=n, **timed)),
        ("az engine", lambda n: GAME.make_agent("az", seed=2, simulations=50,
                                                network=_uniform_logits, endgame=n)),
    ]


SEARCHERS = dict(_searchers())


def test_the_facts_count_empty_cells_and_solve_exactly():
    assert GAME.endgame_cells(connect4.Board()) == 42
    for b, scores in _won_positions(3, seed=1):
        assert GAME.endgame_cells(b) == 42 - b.ply
        value, move = GAME.endgame_solve(b, 5.0)
        assert value == 1 and scores[move] == max(scores.values())   # the fastest win
    b, col = _only(ONE_SAVING_COLUMN[0], winning=False)
    assert GAME.endgame_solve(b, None) == (0, col)                   # bounded by work
    # lost at once (two open ends of three, bottom row): proven, with some column
    b = connect4.from_moves("27374")
    value, move = GAME.endgame_solve(b, 1.0)
    assert value == -1 and move in b.legal_moves
    # the generic alpha-beta stays the solve of a game without its own
    assert games.get("uttt").endgame_solve is None


@pytest.mark.parametrize("name", SEARCHERS)
def test_won_positions_within_the_threshold_are_won(name):
    make = SEARCHERS[name]
    for b, scores in _won_positions(4, seed=7):
        agent = make(28)
        move = agent.select_move(b.copy())
        assert scores[move] == max(scores.values()), (name, scores, move)
        assert agent.last_stats["endgame"] == 1


@pytest.mark.parametrize("name", SEARCHERS)
def test_the_one_winning_or_saving_column_is_played(name):
    make = SEARCHERS[name]
    for text in ONE_WINNING_COLUMN:
        b, col = _only(text, winning=True)
        agent = make(28)
        assert agent.select_move(b.copy()) == col, (name, text)
        assert agent.last_stats["endgame"] == 1
    for text in ONE_SAVING_COLUMN:
        b, col = _only(text, winning=False)
        agent = make(28)
        assert agent.select_move(b.copy()) == col, (name, text)
        assert agent.last_stats["endgame"] == 0


def test_without_the_solve_the_tree_misses_those_columns():
    """The positions above test the solve: the tree alone plays another column."""
    for text, winning in [(t, True) for t in ONE_WINNING_COLUMN] + [
            (t, False) for t in ONE_SAVING_COLUMN]:
        b, col = _only(text, winning)
        assert MCTSAgent(seed=1, simulations=100, solver=True).select_move(b.copy()) != col


@pytest.mark.parametrize("kind", ["mcts", "puct"])
def test_above_the_threshold_the_search_is_unchanged(kind):
    """More empty cells than ``endgame``: the same seeded search, move and statistics."""
    def make(endgame):
        if kind == "mcts":
            return MCTS(seed=5, solver=True, endgame=endgame)
        return PUCT(_uniform_logits, playout_weight=1.0, seed=5, endgame=endgame)
    for b in _positions(3, seed=3, plies=10):
        assert GAME.endgame_cells(b) > 20
        plain, solved = make(0), make(20)
        move = plain.search(b.copy(), simulations=300)
        assert solved.search(b.copy(), simulations=300) == move
        assert solved.stats["endgame"] is None
        assert solved.stats["children"] == plain.stats["children"]


@pytest.mark.parametrize("kind", ["mcts", "az"])
def test_a_seeded_game_through_the_endgame_repeats(kind):
    """On a simulation budget the solve is bounded by work, not time: two
    agents of one seed play the same game into and through the endgame."""
    def game():
        if kind == "mcts":
            agents = [MCTSAgent(seed=9, simulations=200, solver=True, endgame=28)
                      for _ in range(2)]
        else:
            agents = [AZAgent(_uniform_logits, seed=9, simulations=100, endgame=28)
                      for _ in range(2)]
        return duel_with_stat(agents, connect4.from_moves("4444"), "endgame")
    moves, values = game()
    assert any(v is not None for v in values)         # the solve played its part
    assert game() == (moves, values)


def test_a_game_without_an_endgame_solve_refuses_the_option():
    with pytest.raises(ValueError) as e:
        MCTSAgent(seed=1, simulations=10, endgame=5).select_move(quixo.Board())
    assert str(e.value) == ("MCTS endgame= applies to Ultimate Tic-Tac-Toe, Clobber or "
                            "Connect Four only, not Quixo; use endgame=0")
    assert "\n" not in str(e.value)
