"""The convolutional policy-value network (``Network(architecture="conv")``):
its numpy, JAX and compiled forward passes agree, its files, its errors, PUCT
searching with it in C, and a short training run writing one."""
import json
import subprocess
import sys

import numpy as np
import pytest

import ttt_engine
from ttt_engine import _modelfile, games
from ttt_engine.network import Network, conv_param_shapes
from ttt_engine.search import PUCT
from conftest import random_positions

#: the games whose boards the architecture is for, and the shapes to test them at
BOARDS = [("connect4", {}), ("uttt", {}), ("clobber", dict(rows=6, cols=5)),
          ("quixo", dict(size=5))]


def _random_net(game, options, *, channels=16, blocks=2, seed=0):
    """A conv network with random weights and biases, scaled so no layer is
    all zeros after its ReLU and the value is not saturated."""
    net = Network.init(game, architecture="conv", channels=channels, blocks=blocks, seed=seed,
                       **options)
    rng = np.random.default_rng(seed + 100)
    params = {}
    for k, v in net.params.items():
        if k.startswith("b"):
            params[k] = rng.normal(0, 0.1, v.shape)
        else:
            params[k] = rng.normal(0, 1.0 / np.sqrt(np.prod(v.shape[:-1])), v.shape)
    net.set_params(params)
    return net


def _close(got, want):
    """Equal within 1e-5 of the outputs' scale (float32 sums in other orders)."""
    scale = max(1.0, float(np.abs(want).max()))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * scale)


@pytest.mark.parametrize("game,options", BOARDS)
def test_numpy_jax_and_compiled_forward_agree(game, options):
    jax = pytest.importorskip("jax")
    from ttt_engine.alphazero import jax_forward
    net = _random_net(game, options, seed=len(game))
    obs, masks = random_positions(game, 33, seed=2, **options)
    logits, values = net(obs, masks)
    # not trivially equal: outputs that vary with the position
    assert logits.std(axis=0).max() > 1e-3 and values.std() > 1e-3
    assert np.abs(values).max() < 0.999
    with jax.default_matmul_precision("highest"):
        j_logits, j_values = jax_forward(net.params, obs)
    _close(np.asarray(j_logits), logits)
    _close(np.asarray(j_values), values)
    c_logits, c_values = net.compiled.forward(obs)
    _close(c_logits, logits)
    _close(c_values, values)
    # one row's result does not depend on the rest of its batch
    for i in (0, 17, 32):
        l1, v1 = net.compiled.forward(obs[i:i + 1])
        assert np.array_equal(l1[0], c_logits[i]) and v1[0] == c_values[i]
    # an empty batch is empty, not an error
    for f in (net.forward, net.compiled.forward):
        e_logits, e_values = f(obs[:0])
        assert e_logits.shape == (0, net.num_actions) and e_values.shape == (0,)


def test_channels_not_a_multiple_of_the_kernel_block_and_no_blocks():
    for channels, blocks in ((40, 1), (7, 0)):
        net = _random_net("connect4", {}, channels=channels, blocks=blocks, seed=channels)
        obs, masks = random_positions("connect4", 20, seed=channels)
        logits, values = net(obs, masks)
        c_logits, c_values = net.compiled.forward(obs)
        _close(c_logits, logits)
        _close(c_values, values)


def test_init_shapes_and_first_outputs():
    net = Network.init("connect4", architecture="conv", seed=3)
    assert (net.architecture, net.channels, net.blocks, net.hidden) == ("conv", 32, 2, ())
    assert {k: v.shape for k, v in net.params.items()} == conv_param_shapes((2, 6, 7), 32, 2, 7)
    assert net.name == "Network(connect4, conv 32x2, 2x6x7-7)"
    obs, masks = random_positions("connect4", 50, seed=1)
    logits, values = net(obs, masks)
    # a near uniform first policy and values near 0
    assert np.abs(logits).max() < 1.0 and np.abs(values).max() < 0.5
    assert Network.init("connect4", architecture="conv", seed=3) == net      # seeded
    assert Network.init("connect4", seed=3).architecture == "mlp"            # the default


@pytest.mark.parametrize("game,options", BOARDS)
def test_save_load_and_pickle_round_trip(tmp_path, game, options):
    import pickle
    net = _random_net(game, options, channels=8, blocks=1)
    path = tmp_path / "conv.npz"
    net.save(path)
    back = Network.load(path, game, **options)
    assert back == net and back.architecture == "conv" and (back.channels, back.blocks) == (8, 1)
    assert ttt_engine.load(path) == net
    assert pickle.loads(pickle.dumps(net)) == net and net.copy() == net
    obs, masks = random_positions(game, 5, **options)
    assert np.array_equal(back(obs, masks)[0], net(obs, masks)[0])


def test_mlp_files_without_an_architecture_load(tmp_path):
    """A network file written before there were architectures (no
    ``architecture`` field) is an MLP."""
    net = Network.init("ttt", hidden=(16,), seed=1)
    fields = net._fields()
    del fields["architecture"]
    path = tmp_path / "old.npz"
    _modelfile.write(path, "ttt_engine.Network", fields)
    back = Network.load(path)
    assert back.architecture == "mlp" and back == net and back.channels is None


def _one_line(excinfo, *words):
    text = str(excinfo.value)
    assert "\n" not in text
    for w in words:
        assert w in text, text


def test_bad_architecture_channels_blocks_are_one_line(tmp_path):
    with pytest.raises(ValueError) as e:
        Network.init("connect4", architecture="transformer")
    _one_line(e, "architecture", "'mlp', 'conv'", "transformer")
    with pytest.raises(ValueError) as e:
        Network.init("connect4", architecture="conv", channels=0)
    _one_line(e, "channels")
    with pytest.raises(ValueError) as e:
        Network.init("connect4", architecture="conv", blocks=-1)
    _one_line(e, "blocks")
    with pytest.raises(ValueError) as e:
        Network.init("connect4", architecture="conv", channels="wide")
    _one_line(e, "channels")
    # the other architecture's sizes are refused, not ignored
    with pytest.raises(ValueError) as e:
        Network.init("uttt", channels=999, blocks=-5)
    _one_line(e, "channels and blocks apply to architecture='conv' only")
    with pytest.raises(ValueError) as e:
        Network.init("uttt", architecture="conv", hidden=(7,))
    _one_line(e, "hidden applies to architecture='mlp' only")
    # a file of an architecture this version does not know
    net = Network.init("connect4", architecture="conv", channels=4, blocks=0, seed=1)
    fields = net._fields()
    fields["architecture"] = np.str_("capsule")
    path = tmp_path / "future.npz"
    _modelfile.write(path, "ttt_engine.Network", fields)
    with pytest.raises(ValueError) as e:
        Network.load(path)
    _one_line(e, str(path), "'capsule'", "mlp, conv")
    # weights of other sizes than the file says
    fields = net._fields()
    fields["channels"] = np.int64(5)
    _modelfile.write(path, "ttt_engine.Network", fields)
    with pytest.raises(ValueError) as e:
        Network.load(path)
    _one_line(e, str(path), "5 channels")


def test_config_checks_the_architecture_fields():
    pytest.importorskip("jax")
    from ttt_engine.alphazero import config_for
    c = config_for("connect4", architecture="conv", channels=48, blocks=3)
    assert (c.architecture, c.channels, c.blocks) == ("conv", 48, 3)
    assert json.loads(c.to_json())["architecture"] == "conv"
    for bad, word in ((dict(architecture="cnn"), "architecture"), (dict(channels=0), "channels"),
                      (dict(blocks=100), "blocks")):
        with pytest.raises(ValueError) as e:
            config_for("connect4", **bad)
        _one_line(e, word)


class _Numpy:
    """The network called from Python (no ``compiled``): the numpy forward pass."""

    def __init__(self, net):
        self.net = net

    def __call__(self, observations, legal_mask):
        return self.net(observations, legal_mask)


class _FromPython(_Numpy):
    """The compiled forward pass called from Python: the numbers the search
    computes in C, given through the evaluator protocol."""

    def __call__(self, observations, legal_mask):
        return self.net.compiled.forward(observations)


@pytest.mark.parametrize("game,options", BOARDS)
def test_puct_with_a_conv_network_in_c(game, options):
    """The search evaluates in C with the conv network: legal moves, the
    same tree as the same numbers given from Python, and the same move and
    root priors as the numpy-evaluated search with the same seed."""
    net = _random_net(game, options, seed=7)
    g = games.get(game)
    board = g.new_board(**options)
    rng = np.random.default_rng(1)
    for _ in range(4):
        board.push(board.legal_moves[rng.integers(len(board.legal_moves))])
    runs = []
    for evaluator in (net, _FromPython(net), _Numpy(net)):
        p = PUCT(evaluator, seed=4, batch_size=4, reuse=False)
        move = p.search(board.copy(), simulations=200)
        runs.append((move, p.stats))
    (m_c, s_c), (m_p, s_p), (m_n, s_n) = runs
    assert m_c in board.legal_moves
    assert m_c == m_p and s_c["children"] == s_p["children"]
    assert m_c == m_n
    for a, b in zip(s_c["children"], s_n["children"]):
        assert a["action"] == b["action"] and a["prior"] == pytest.approx(b["prior"], abs=1e-5)
    # a few moves of self-play, each legal
    p = PUCT(net, seed=2, batch_size=4)
    b = g.new_board(**options)
    for _ in range(6):
        if b.is_terminal():
            break
        move = p.search(b, simulations=30)
        assert move in b.legal_moves
        b.push(move)


def test_two_search_threads_and_selfplay_in_c():
    """Each lane of a tree-parallel search has its own buffers; self-play
    evaluates in C too (the numpy pass, made to fail, is never reached)."""
    from ttt_engine.selfplay import selfplay
    net = _random_net("connect4", {}, channels=8, blocks=1, seed=2)

    def no_python(*args):
        raise AssertionError("the numpy forward pass was called")

    net._forward_conv = no_python
    board = games.get("connect4").new_board()
    p = PUCT(net, seed=1, batch_size=8, threads=2)
    assert p.search(board, simulations=400) in board.legal_moves
    assert p.stats["evaluations"] > 0
    data = selfplay("connect4", net, games=2, simulations=16, seed=1)
    assert len(data) > 0 and data.stats["evaluations"] > 0


def test_fine_tune_keeps_the_architecture():
    """Supervised training of a conv network gives a conv network of the same sizes."""
    pytest.importorskip("jax")
    from ttt_engine.alphazero import fine_tune
    net = _random_net("connect4", {}, channels=8, blocks=1)
    obs, masks = random_positions("connect4", 64, seed=4)
    pi = (masks / masks.sum(axis=1, keepdims=True)).astype(np.float32)
    z = np.zeros(len(obs), np.float32)
    tuned, history = fine_tune(net, (obs, masks, pi, z), epochs=2, batch_size=32,
                               augment=False, progress=False)
    assert (tuned.architecture, tuned.channels, tuned.blocks) == ("conv", 8, 1)
    assert tuned != net and len(history) == 3


def test_a_short_training_run_writes_a_conv_network(tmp_path):
    """A few seconds of training on Connect Four: a loadable conv network and
    a checkpoint that keeps the architecture (resume refuses another)."""
    pytest.importorskip("jax")
    from ttt_engine.alphazero import load_checkpoint, train
    out = tmp_path / "c4.npz"
    tiny = dict(architecture="conv", channels=8, blocks=1, games=4, simulations=8,
                buffer_size=2000, batch_size=32, sample_reuse=1.0, max_steps=10,
                eval_simulations=4, eval_games=2, eval_mcts_simulations=20, eval_every=1e9)
    r = train("connect4", out=out, iterations=2, time=20, seed=3, progress=False, **tiny)
    assert r.iteration >= 1
    net = Network.load(out, "connect4")
    assert (net.architecture, net.channels, net.blocks) == ("conv", 8, 1)
    assert net == r.network
    ck = load_checkpoint(r.checkpoint)
    assert ck.config.architecture == "conv" and ck.network == net
    with pytest.raises(ValueError) as e:
        train("connect4", out=out, iterations=3, resume=True, progress=False,
              architecture="mlp")
    _one_line(e, "cannot resume with a different architecture", "architecture=conv")


def test_cli_flags(tmp_path, cli_env):
    pytest.importorskip("jax")
    out = tmp_path / "c4.npz"
    cmd = [sys.executable, "-m", "ttt_engine", "az", "train", "--game", "connect4", "--out",
           str(out), "--iterations", "1", "--architecture", "conv", "--channels", "8",
           "--blocks", "1", "--games", "2", "--simulations", "4", "--batch-size", "16",
           "--eval-games", "0", "--eval-simulations", "2", "--quiet", "--seed", "1"]
    r = subprocess.run(cmd, env=cli_env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    net = Network.load(out)
    assert (net.architecture, net.channels, net.blocks) == ("conv", 8, 1)
    bad = cmd[:cmd.index("--channels")] + ["--channels", "0"]
    r = subprocess.run(bad, env=cli_env, capture_output=True, text=True, timeout=120)
    assert r.returncode != 0 and "--channels" in r.stderr and "Traceback" not in r.stderr
