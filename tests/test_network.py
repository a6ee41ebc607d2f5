"""The numpy policy-value network: the evaluator protocol, its files, pickling,
and clear errors for a network of another game or an observation of the wrong shape."""
import pickle
import zipfile

import numpy as np
import pytest

import ttt_engine
from ttt_engine import clobber, uttt
from ttt_engine.network import Network
from ttt_engine.ttt import Board
from conftest import random_positions




def _reference(net, obs):
    """The forward pass written plainly in float64."""
    x = obs.reshape(len(obs), -1).astype(np.float64)
    for i in range(len(net.hidden)):
        x = np.maximum(x @ net.params[f"w{i}"] + net.params[f"b{i}"], 0)
    logits = x @ net.params["wp"] + net.params["bp"]
    values = np.tanh(x @ net.params["wv"] + net.params["bv"])[:, 0]
    return logits, values


@pytest.mark.parametrize("game,options,shape,actions", [
    ("ttt", {}, (2, 3, 3), 9), ("uttt", {}, (3, 9, 9), 81),
    ("clobber", {"rows": 4, "cols": 4}, (2, 4, 4), 64), ("quixo", {"size": 4}, (2, 4, 4), 64)])
def test_evaluator_protocol_and_exact_forward(game, options, shape, actions):
    net = Network.init(game, hidden=(32, 16), seed=3, **options)
    assert net.obs_shape == shape and net.num_actions == actions
    obs, masks = random_positions(game, 37, **options)
    logits, values = net(obs, masks)
    assert logits.dtype == np.float32 and logits.shape == (37, actions)
    assert values.dtype == np.float32 and values.shape == (37,)
    assert logits.flags.c_contiguous
    assert np.all(np.abs(values) <= 1)
    ref_l, ref_v = _reference(net, obs)
    np.testing.assert_allclose(logits, ref_l, atol=1e-5)
    np.testing.assert_allclose(values, ref_v, atol=1e-5)
    # batch 1 gives the same answers as the batch, and results are new arrays
    l1, v1 = net(obs[5:6], masks[5:6])
    np.testing.assert_allclose(l1[0], logits[5], atol=1e-6)
    np.testing.assert_allclose(v1[0], values[5], atol=1e-6)
    l2, _ = net(obs, masks)
    assert l2 is not logits and np.array_equal(l2, logits)


def test_init_is_seeded_and_near_uniform():
    a = Network.init("uttt", seed=1)
    assert a.hidden == (256, 256)
    assert a == Network.init("uttt", seed=1)
    assert a != Network.init("uttt", seed=2)
    obs, masks = random_positions("uttt", 64)
    logits, values = a(obs, masks)
    assert np.abs(values).max() < 0.5           # small heads: values near 0
    p = np.exp(logits - logits.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    assert p.max() < 3.0 / 81                   # near-uniform first policy


def test_save_load_round_trip_and_ttt_engine_load(tmp_path):
    net = Network.init("clobber", hidden=(20,), seed=5, rows=5, cols=6)
    path = tmp_path / "net.npz"
    net.save(path)
    with zipfile.ZipFile(path) as z:
        assert all(n.endswith(".npy") for n in z.namelist())
    for back in (Network.load(path), ttt_engine.load(path)):
        assert isinstance(back, Network) and back == net
        assert back.board_options == {"rows": 5, "cols": 6}
        obs, masks = random_positions("clobber", 9, rows=5, cols=6)
        for x, y in zip(back(obs, masks), net(obs, masks)):
            assert np.array_equal(x, y)
    assert Network.load(path, "clobber", rows=5, cols=6) == net


def test_pickle_round_trip():
    net = Network.init("ttt", hidden=(8, 8), seed=2)
    obs, masks = random_positions("ttt", 5)
    net(obs, masks)                              # buffers exist: they do not travel
    back = pickle.loads(pickle.dumps(net))
    assert back == net
    assert np.array_equal(back(obs, masks)[0], net(obs, masks)[0])


def test_network_of_another_game_or_shape_names_both(tmp_path):
    path = tmp_path / "ttt.npz"
    Network.init("ttt", hidden=(8,), seed=1).save(path)
    with pytest.raises(ValueError, match=r"ttt.npz: this network is for Tic-Tac-Toe: "
                       r"observations 2x3x3, 9 actions, not for Ultimate Tic-Tac-Toe"):
        Network.load(path, "uttt")
    c = Network.init("clobber", hidden=(8,), seed=1, rows=4, cols=4)
    with pytest.raises(ValueError, match=r"rows=4.*2x4x4, 64 actions, not for Clobber.*"
                       r"2x6x5, 120 actions"):
        c.check_game("clobber", rows=6, cols=5)
    with pytest.raises(ValueError, match="this network is for Clobber.*not for Ultimate "
                       "Tic-Tac-Toe: observations 3x9x9, 81 actions$"):
        c.check_board(uttt.Board())
    c.check_board(clobber.Board(4, 4))


@pytest.mark.parametrize("engine", ["az", "best"])
def test_a_registry_agent_refuses_another_games_network_when_made(tmp_path, engine):
    from ttt_engine import games
    path = tmp_path / "tttnet.npz"
    Network.init("ttt", hidden=(8,), seed=1).save(path)
    with pytest.raises(ValueError, match="this network is for Tic-Tac-Toe.*not for Ultimate"):
        games.get("uttt").make_agent(engine, network=str(path), simulations=10)
    c = Network.init("clobber", hidden=(8,), seed=1, rows=4, cols=4)
    assert games.get("clobber").make_agent(engine, network=c, simulations=10).game == "clobber"


def test_wrong_observation_shapes_are_clear_errors():
    net = Network.init("uttt", hidden=(8,), seed=1)
    obs, masks = random_positions("ttt", 4)
    with pytest.raises(ValueError, match=r"observations must have shape Bx3x9x9 for Ultimate "
                       r"Tic-Tac-Toe: observations 3x9x9, 81 actions; got shape 4x2x3x3"):
        net(obs, masks)
    u, um = random_positions("uttt", 4)
    with pytest.raises(ValueError, match="got shape 3x9x9"):
        net(u[0], um[0])
    with pytest.raises(ValueError, match=r"legal_mask must have shape 4x81.*got shape 4x9"):
        net(u, masks)
    with pytest.raises(ValueError, match="numeric"):
        net(u.astype(str), um)


def test_bad_weights_and_files_are_refused(tmp_path):
    net = Network.init("ttt", hidden=(8,), seed=1)
    params = dict(net.params)
    params["w0"] = params["w0"][:5]
    with pytest.raises(ValueError, match=r"weight 'w0' must have shape \(18, 8\)"):
        Network("ttt", params)
    params = dict(net.params, bp=np.full(9, np.nan))
    with pytest.raises(ValueError, match="non-finite"):
        Network("ttt", params)
    with pytest.raises(ValueError, match="hidden"):
        Network.init("ttt", hidden=(0,))
    with pytest.raises(ValueError, match="valid options"):
        Network.init("ttt", rows=3)
    q = ttt_engine.train(1000, seed=1, progress=False, metrics_every=0)
    q.save(tmp_path / "q.npz")
    with pytest.raises(ValueError, match="is a Tic-Tac-Toe QAgent file, not a policy-value "
                       "Network"):
        Network.load(tmp_path / "q.npz")


def test_threads_get_their_own_buffers():
    from concurrent.futures import ThreadPoolExecutor
    net = Network.init("uttt", hidden=(64, 64), seed=1)
    obs, masks = random_positions("uttt", 200)
    want = net(obs, masks)[0]
    with ThreadPoolExecutor(2) as ex:
        outs = list(ex.map(lambda _: net(obs, masks)[0], range(8)))
    assert all(np.array_equal(o, want) for o in outs)


def test_observations_of_boards_match_the_planes():
    net = Network.init("ttt", hidden=(4,), seed=0)
    b = Board.from_string("XX.OO....")
    logits, values = net(b.observation()[None], b.action_mask()[None])
    assert logits.shape == (1, 9) and values.shape == (1,)
