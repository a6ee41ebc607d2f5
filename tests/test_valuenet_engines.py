"""The ``valuenet`` engines: each game's shipped value network inside its
search (MCTS or alpha-beta), after the game's exact answer where it has one."""
import random

import pytest

from ttt_engine import games, valuenet
from ttt_engine._core.algorithms.valuenet import feature_set_of
from ttt_engine.valuenet.agent import ExactFirstAgent

VALUE_GAMES = [k for k in games.GAMES if "valuenet" in games.get(k).engines]


def _midgame(key, plies, seed):
    g = games.get(key)
    rng = random.Random(seed)
    while True:
        b = g.new_board()
        for _ in range(plies):
            if b.is_terminal():
                break
            b.push(rng.choice(b.legal_moves))
        if not b.is_terminal():
            return b


def test_the_games_with_a_shipped_value_network_have_the_engine():
    assert "uttt" in VALUE_GAMES and "connect4" in VALUE_GAMES
    for key in VALUE_GAMES:
        assert valuenet.shipped(key).feature_set == feature_set_of(games.get(key).new_board())


@pytest.mark.parametrize("key", VALUE_GAMES)
def test_valuenet_plays_legal_repeatable_moves(key):
    g = games.get(key)
    board = _midgame(key, 6, seed=3)
    budget = ({"simulations": 300} if "simulations" in g.engines["valuenet"].budgets
              else {"depth": 2})
    moves = [g.make_agent("valuenet", seed=7, **budget).select_move(board.copy())
             for _ in range(2)]
    assert moves[0] == moves[1] and moves[0] in board.legal_moves


def test_connect4_plays_the_exact_move_where_the_solve_proves_it():
    from ttt_engine import connect4
    g = games.get("connect4")
    checked = 0
    for seed in range(6):
        board = _midgame("connect4", 26, seed)
        agent = g.make_agent("valuenet", seed=1, depth=1)
        assert isinstance(agent, ExactFirstAgent)
        move = agent.select_move(board)
        assert agent.last_answer == "exact"
        assert move in connect4.optimal_moves(board)[1]
        checked += 1
    assert checked == 6


def test_exact_first_gives_the_search_the_rest_of_the_time():
    g = games.get("connect4")
    agent = g.make_agent("valuenet", seed=1, time=0.2)
    assert agent.inner.time == pytest.approx(0.2 * (1 - agent.exact_share))
    with pytest.raises(ValueError, match="exact_share"):
        ExactFirstAgent(agent.inner, "connect4", time=0.1, exact_share=1.0)


class _TimedInner:
    """An inner agent that notes the time it was given at each call."""
    name = "timed"

    def __init__(self):
        self.time, self.seen = 1.0, []

    def select_move(self, board):
        self.seen.append(("move", self.time))
        return board.legal_moves[0]

    def analyse(self, board):
        self.seen.append(("analyse", self.time))
        return None


def test_the_search_gets_what_the_exact_solve_left_and_the_whole_time_to_analyse():
    from types import SimpleNamespace

    inner = _TimedInner()
    agent = ExactFirstAgent(inner, "connect4", time=2.0, exact_share=0.9)
    assert inner.time == pytest.approx(0.2)
    gave_up = []
    agent._game = SimpleNamespace(endgame_solve=lambda b, t: gave_up.append(t))
    board = games.get("connect4").new_board()
    agent.select_move(board)
    agent.analyse(board)
    assert gave_up == [pytest.approx(1.8)]
    (kind, t1), (kind2, t2) = inner.seen
    # a solve that gave up at once left nearly all the time; analysis has all of it
    assert (kind, kind2) == ("move", "analyse") and 1.9 < t1 <= 2.0 and t2 == 2.0
    assert inner.time == pytest.approx(0.2)         # the share is back for the next move


def test_another_games_network_is_one_clear_error(tmp_path):
    g = games.get("connect4")
    other = valuenet.shipped_path("uttt")
    with pytest.raises(ValueError, match="Ultimate Tic-Tac-Toe"):
        g.make_agent("valuenet", value_network=other)


def test_a_network_of_an_older_feature_set_is_one_clear_error(tmp_path):
    """A Connect Four network of the cells alone (``connect4-v1``, before the
    threats) is refused by the engine, one line naming both sets."""
    import numpy as np

    path = tmp_path / "old.npz"
    np.savez(path, kind=np.str_("value_network"), version=np.int64(1),
             game=np.str_("connect4"), features=np.str_("connect4-v1"),
             w1=np.zeros((85, 8), np.float32), b1=np.zeros(8, np.float32),
             w2=np.zeros(8, np.float32), b2=np.float32(0), meta=np.str_("{}"))
    message = r"feature set 'connect4-v1' is not one of Connect Four's \(e.g. connect4-v2\)"
    with pytest.raises(ValueError, match=message) as e:
        games.get("connect4").make_agent("valuenet", value_network=str(path))
    assert "\n" not in str(e.value) and str(path) in str(e.value)


def test_the_shipped_tic_tac_toe_network_alone_keeps_the_value():
    """The Tic-Tac-Toe network is fitted to every position's exact value: one
    ply of it (the child the network likes best) keeps the game-theoretic value
    in nearly every position (checked here against the exact solve)."""
    from ttt_engine import ttt
    agent = games.get("ttt").make_agent("valuenet", seed=1, depth=1)
    order = {"win": 1, "draw": 0, "loss": -1}
    kept = total = 0
    seen = set()

    def walk(b):
        nonlocal kept, total
        if b.is_terminal() or str(b) in seen:
            return
        seen.add(str(b))
        value = order[ttt.solve(b).value]
        child = b.copy()
        child.push(agent.select_move(b.copy()))
        after = -order[ttt.solve(child).value] if not child.is_terminal() else (
            0 if child.winner in (None, "draw") else 1)
        kept += after == value
        total += 1
        for m in b.legal_moves:
            b.push(m)
            walk(b)
            b.pop()

    walk(ttt.Board())
    assert total == 4520
    assert kept / total >= 0.99


def test_the_shipped_connect4_network_alone_keeps_the_value_in_nine_critical_positions_of_ten():
    """Connect Four's network sees the threats (``connect4-v2``): one ply of it
    (no search, no exact solve) keeps the value in at least 90% of the exact
    yardstick's critical positions (the cells alone kept 75%)."""
    from ttt_engine import yardstick
    from ttt_engine.agents import AlphaBetaAgent
    agent = AlphaBetaAgent(depth=1, seed=1, value_network=valuenet.shipped("connect4"))
    result = yardstick.yardstick(agent, game="connect4")
    share = result.critical_keeps["all"]
    assert share.n > 800 and share.rate >= 0.90          # 916 of them: 91.2%


def test_connect4_best_is_the_value_search_on_a_time_budget():
    """Connect Four's ``best`` (``standard(value_best=True)``): the valuenet
    engine behind the exact solve on a time budget (its default one too), the
    network-guided PUCT preset on a simulation budget or with a network."""
    from ttt_engine.agents import AZAgent
    g = games.get("connect4")
    timed = g.make_agent("best", time=0.05, seed=1)
    assert isinstance(timed, ExactFirstAgent) and timed.name == "best(0.05s)"
    assert timed.game == "connect4"          # agents name their game by its registry key
    assert isinstance(g.make_agent("best", seed=1), ExactFirstAgent)
    board = _midgame("connect4", 8, seed=2)
    assert timed.select_move(board) in board.legal_moves
    counted = g.make_agent("best", simulations=50, seed=1)
    assert isinstance(counted, AZAgent) and counted.name == "best(50 sims)"
    with pytest.raises(ValueError, match="threads"):
        g.make_agent("best", time=0.05, threads=0)


def test_value_best_needs_the_value_engine():
    from ttt_engine import engines
    with pytest.raises(ValueError, match="value_best needs value_search"):
        engines.standard("connect4", value_best=True)
