"""ttt_engine.kaggle: the ConnectX agent's bad inputs and time guard, matches in the real
ConnectX environment against its negamax, and a Game Arena match of each game with our
agent on both sides.  The 20-episode bars are bench/kaggle_connectx.py's (docs/arenas.md)."""
import pytest

pytest.importorskip("kaggle_environments")
pytest.importorskip("pyspiel")

from ttt_engine import kaggle  # noqa: E402

CONF = {"columns": 7, "rows": 6, "inarow": 4, "actTimeout": 2}


def _board(moves):
    """A ConnectX board (42 cells, row 0 the top) after ``moves`` (columns 1-7)."""
    cells = [0] * 42
    for i, ch in enumerate(moves):
        c = int(ch) - 1
        r = max(r for r in range(6) if cells[r * 7 + c] == 0)
        cells[r * 7 + c] = 1 + i % 2
    return cells


def test_the_games_facts_make_the_tables():
    """Each game's own environment (its entry's ``kaggle`` module) and Game Arena
    name (its OpenSpiel facts' ``ARENA``) make the tables, and the own module's
    names are the generic module's."""
    from ttt_engine.connect4 import kaggle as connectx
    assert kaggle.ENVIRONMENTS == {"connect4": "connectx", "uttt": "open_spiel_ultimate_tic_tac_toe",
                                   "clobber": "open_spiel_clobber"}
    assert kaggle.ARENA == {"connect4": "open_spiel_connect_four",
                            "uttt": "open_spiel_ultimate_tic_tac_toe", "clobber": "open_spiel_clobber"}
    assert kaggle.connectx_agent is connectx.connectx_agent and kaggle.STANDARD is connectx.STANDARD
    from ttt_engine.kaggle import connectx_board  # noqa: F401 - the old import path
    with pytest.raises(AttributeError, match="no attribute 'connectx_nothing'"):
        kaggle.connectx_nothing  # noqa: B018


@pytest.fixture(scope="module")
def perfect():
    return kaggle.connectx_agent("perfect", seed=1)


def test_connectx_plays_the_position(perfect):
    # X has d1-d3, O a1-c1: X wins in column 4 (0-based 3)
    assert perfect({"board": _board("414243"), "mark": 1}, CONF) == 3
    assert perfect({"board": _board("44"), "mark": 1}, CONF) in range(7)


@pytest.mark.parametrize("obs,conf,message", [
    ({"board": [0] * 41, "mark": 1}, CONF, "list of 42 cells"),
    ({"board": [0] * 41 + [7], "mark": 1}, CONF, "must be 0, 1 or 2"),
    ({"board": _board("4")[7:] + [0] * 7, "mark": 2}, CONF, "above an empty cell"),
    ({"board": _board("44"), "mark": 2}, CONF, "mark is 2 but the discs"),
    ({"board": _board("1212121"), "mark": 2}, CONF, "the game is over"),
    ({"board": [0] * 42, "mark": 1}, dict(CONF, columns=8), "only the standard 7x6"),
    ({"mark": 1}, CONF, "list of 42 cells"),
])
def test_connectx_bad_observation_logged_and_legal(perfect, capsys, obs, conf, message):
    col = perfect(obs, conf)
    err = capsys.readouterr().err
    assert err.startswith("connectx agent: error: ") and message in err
    assert err.count("\n") == 1
    cells = obs.get("board") or [0] * 42
    if len(cells) == 42 and any(v == 0 for v in cells[:7]):
        assert cells[col] == 0                  # a column with room
    assert isinstance(col, int) and 0 <= col < 7


def test_connectx_full_column_never_played(capsys):
    # column 1 full, the game not over: whatever happens, another column
    agent = kaggle.connectx_agent("random", seed=3)
    cells = _board("111111")
    for _ in range(10):
        assert agent({"board": cells, "mark": 1}, CONF) != 0


def test_connectx_late_move_is_replaced(capsys):
    """A move not ready by its deadline: a quick legal column (here the win), logged."""
    agent = kaggle.connectx_agent("mcts", time=1.0, margin=1.99, seed=1)
    col = agent({"board": _board("414243"), "mark": 1}, CONF)
    assert col == 3
    assert "not ready within" in capsys.readouterr().err
    assert agent.stats.late == 1


def test_unknown_engine_lists_valid():
    with pytest.raises(ValueError, match="unknown Connect Four engine 'nope'; valid engines: "
                                         "perfect, .*best"):
        kaggle.connectx_agent("nope")


def test_connectx_matches_against_negamax():
    records = kaggle.run_matches("connect4", "perfect", "negamax", 2, seed=5)
    assert [r["result"] for r in records][0] == "win"            # ours first
    assert records[1]["result"] in ("win", "draw")                 # ours second
    assert all(r["status"] == ["DONE", "DONE"] for r in records)


@pytest.mark.parametrize("game,budget", [("connect4", {"simulations": 50}),
                                         ("uttt", {"simulations": 50}),
                                         ("clobber", {"simulations": 50})])
def test_game_arena_match_both_sides_ours(game, budget):
    from kaggle_environments import make
    a = kaggle.arena_agent(game, "mcts", seed=1, **budget)
    b = kaggle.arena_agent(game, "mcts", seed=2, **budget)
    env = make(kaggle.ARENA[game])
    steps = env.run([a, b])
    last = steps[-1]
    assert [s["status"] for s in last] == ["DONE", "DONE"]
    assert sorted(s["reward"] for s in last) in ([-1, 1], [0, 0])
    assert len(a.times) + len(b.times) >= 7
