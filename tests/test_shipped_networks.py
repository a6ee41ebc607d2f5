"""A shipped network that an install lost or damaged: ``az`` names the file and
how to reinstall; ``best`` warns once and plays MCTS-Solver instead."""
import warnings

import pytest

from ttt_engine import agents, engines, games

SHIPPING = [k for k in games.GAMES if games.get(k).ships_network]


def test_the_shipping_games_have_their_files():
    assert {"ttt", "uttt"} <= set(SHIPPING)
    for key in SHIPPING:
        assert agents.load_shipped(key).game_key == key


@pytest.fixture
def lost(monkeypatch, tmp_path):
    """Every shipped network path points into an empty folder."""
    monkeypatch.setattr(agents, "shipped_path", lambda key: str(tmp_path / f"{key}.npz"))
    monkeypatch.setattr(engines, "_WARNED", set())
    return tmp_path


@pytest.mark.parametrize("key", SHIPPING)
def test_missing_file_names_it_and_says_reinstall(lost, key):
    with pytest.raises(ValueError) as e:
        games.get(key).make_agent("az", seed=1, simulations=10)
    msg = str(e.value)
    assert str(lost / f"{key}.npz") in msg and "is missing" in msg and "reinstall" in msg
    assert "\n" not in msg


@pytest.mark.parametrize("key", SHIPPING)
def test_damaged_file_names_it_and_says_reinstall(lost, key):
    (lost / f"{key}.npz").write_bytes(b"PK\x03\x04 not a network")
    with pytest.raises(ValueError) as e:
        games.get(key).make_agent("az", seed=1, simulations=10)
    msg = str(e.value)
    assert f"{key}.npz" in msg and "cannot be read" in msg and "reinstall" in msg


def test_network_of_another_game_is_damage_too(lost):
    import shutil
    shutil.copy(_real_path("ttt"), lost / "uttt.npz")
    with pytest.raises(ValueError, match="cannot be read.*reinstall"):
        games.get("uttt").make_agent("az", seed=1, simulations=10)


def _real_path(key):
    import os
    import ttt_engine
    return os.path.join(os.path.dirname(ttt_engine.__file__), "networks", f"{key}.npz")


def test_best_falls_back_to_mcts_solver_with_one_warning(lost):
    key = next(k for k in SHIPPING if games.get(k).best_az is not None)
    g = games.get(key)
    with pytest.warns(UserWarning, match="reinstall.*MCTS-Solver"):
        a = g.make_agent("best", seed=1, simulations=20)
    assert isinstance(a, agents.MCTSAgent) and a.name.startswith("best(")
    b = g.new_board()
    assert a.select_move(b) in b.legal_moves
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        g.make_agent("best", seed=2, simulations=20)       # said once


def test_best_with_its_network_is_network_guided():
    key = next(k for k in SHIPPING if games.get(k).best_az is not None)
    assert isinstance(games.get(key).make_agent("best", seed=1, simulations=20), agents.AZAgent)


def test_no_network_ships_says_how_to_train(lost, monkeypatch):
    # every game ships one now: a game whose facts say none (as a new game's would)
    import dataclasses
    real = games.get
    unshipped = dataclasses.replace(real("quixo"), ships_network=False)
    monkeypatch.setattr(games, "get", lambda key: unshipped if key == "quixo" else real(key))
    with pytest.raises(ValueError, match="no trained network ships for Quixo.*az train"):
        agents.shipped_network("quixo")


def test_shipped_network_read_once_and_again_when_the_file_changes(monkeypatch, tmp_path):
    import os
    import shutil
    monkeypatch.setattr(agents, "shipped_path", lambda key: str(tmp_path / f"{key}.npz"))
    path = tmp_path / "ttt.npz"
    shutil.copy(_real_path("ttt"), path)
    first = agents.load_shipped("ttt")
    assert agents.load_shipped("ttt") is first  # the engines' check and the agent share it
    st = os.stat(path)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    again = agents.load_shipped("ttt")
    assert again is not first and again.game_key == "ttt"
    path.write_bytes(b"PK\x03\x04 damaged after the first read")
    with pytest.raises(ValueError, match="cannot be read.*reinstall"):
        agents.load_shipped("ttt")


def test_shipped_network_of_another_board_size_says_so():
    g = games.get("clobber")
    agent = g.make_agent("az", seed=1, simulations=20)
    with pytest.raises(ValueError) as e:
        agent.select_move(g.new_board(rows=5, cols=5))
    msg = str(e.value)
    assert "rows=6, cols=5 only" in msg and "az train --game clobber" in msg and "\n" not in msg
    assert agent.select_move(g.new_board()) in g.new_board().legal_moves


def test_best_with_a_network_file_is_the_preset_with_that_network(tmp_path):
    """``best`` of a network-guided game given ``network=``: the same search (its
    proofs and endgame solve) with that network and the shipped network's
    settings; a classical ``best`` (Quixo's) refuses it in one line."""
    from ttt_engine.agents import AZAgent
    from ttt_engine.network import Network
    key = next(k for k in SHIPPING if games.get(k).best_az is not None)
    g = games.get(key)
    path = tmp_path / "mine.npz"
    Network.init(key, hidden=(8,), seed=2).save(path)
    agent = g.make_agent("best", network=str(path), simulations=40, seed=1)
    assert isinstance(agent, AZAgent) and agent.name.startswith("best(")
    settings = games.for_budget({**g.network_settings, **g.best_az}, timed=False)
    assert {k: getattr(agent, k) for k in settings} == settings
    b = g.new_board()
    assert agent.select_move(b) in b.legal_moves
    assert agent._evaluator.describe() == Network.load(path).describe()
    classical = next(k for k in games.GAMES if games.get(k).best_az is None
                     and games.get(k).best_mcts is not None)
    with pytest.raises(ValueError, match="best engine has no option 'network'"):
        games.get(classical).make_agent("best", network=str(path), simulations=40)


def test_a_lost_value_network_makes_connect4_best_the_network_guided_search(
        monkeypatch, tmp_path):
    """Connect Four's ``best`` on a time budget is its value-network search;
    with that file lost it warns once and plays the network-guided preset."""
    from ttt_engine.agents import AZAgent
    from ttt_engine.valuenet import network as vnet
    monkeypatch.setattr(engines, "_WARNED", set())
    monkeypatch.setattr(vnet, "shipped_path", lambda key: str(tmp_path / f"{key}_value.npz"))
    monkeypatch.setattr(vnet, "_SHIPPED", {})
    g = games.get("connect4")
    with pytest.warns(UserWarning, match="value network .*cannot be read.*network-guided"):
        agent = g.make_agent("best", time=0.05, seed=1)
    assert isinstance(agent, AZAgent)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert isinstance(g.make_agent("best", time=0.05, seed=1), AZAgent)
