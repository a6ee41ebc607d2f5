"""The AlphaZero trainer: the JAX forward pass equals the numpy network, the loss,
the replay buffer, checkpoints (resume = uninterrupted run, Ctrl-C keeps the last
complete one), the [nn] message, and the shipped Tic-Tac-Toe network's bar."""
import json
import os
import sys

import numpy as np
import pytest

import ttt_engine
from ttt_engine import alphazero
from ttt_engine.alphazero import Config, ReplayBuffer, load_checkpoint, train
from ttt_engine.network import Network

import jax.numpy as jnp   # in the [test] extra (through [nn]): a missing one must fail
from conftest import random_positions

#: a tiny run: seconds, not minutes
TINY = dict(hidden=(16,), games=6, simulations=8, buffer_size=2000, batch_size=32,
            sample_reuse=1.0, max_steps=20, eval_simulations=4, eval_games=2,
            eval_mcts_simulations=20, eval_every=1e9)




@pytest.mark.parametrize("game,hidden", [("ttt", (64, 64)), ("uttt", (256, 256)),
                                         ("quixo", (32,))])
def test_jax_forward_equals_numpy(game, hidden):
    net = Network.init(game, hidden=hidden, seed=7)
    # give the biases non-zero values so every term counts
    rng = np.random.default_rng(1)
    net.set_params({k: v + (rng.normal(0, 0.1, v.shape) if k.startswith("b") else 0)
                    for k, v in net.params.items()})
    obs, masks = random_positions(game, 100)
    logits, values = net(obs, masks)
    jl, jv = alphazero.jax_forward({k: jnp.asarray(v) for k, v in net.params.items()},
                                   jnp.asarray(obs))
    np.testing.assert_allclose(np.asarray(jl), logits, atol=1e-5, rtol=1e-5)
    np.testing.assert_allclose(np.asarray(jv), values, atol=1e-5, rtol=1e-5)


def test_loss_parts_match_a_plain_computation():
    net = Network.init("ttt", hidden=(8,), seed=2)
    obs, masks = random_positions("ttt", 20)
    rng = np.random.default_rng(3)
    pi = np.where(masks, rng.random(masks.shape), 0).astype(np.float32)
    pi /= pi.sum(axis=1, keepdims=True)
    z = rng.choice([-1.0, 0.0, 1.0], 20).astype(np.float32)
    params = {k: jnp.asarray(v) for k, v in net.params.items()}
    total, (policy, value, l2) = alphazero._losses(params, obs, masks, pi, z,
                                                   l2_weight=0.01, value_weight=1.0)
    logits, values = net(obs, masks)
    lg = np.where(masks, logits.astype(np.float64), -np.inf)
    logp = lg - lg.max(axis=1, keepdims=True)
    logp -= np.log(np.exp(logp).sum(axis=1, keepdims=True))
    want_policy = -np.mean(np.sum(pi * np.where(masks, logp, 0), axis=1))
    want_value = np.mean((values - z) ** 2)
    want_l2 = sum(np.sum(v.astype(np.float64) ** 2) for k, v in net.params.items()
                  if k.startswith("w"))
    assert float(policy) == pytest.approx(want_policy, rel=1e-5)
    assert float(value) == pytest.approx(want_value, rel=1e-5)
    assert float(l2) == pytest.approx(want_l2, rel=1e-5)
    assert float(total) == pytest.approx(want_policy + want_value + 0.01 * want_l2, rel=1e-5)


@pytest.mark.parametrize("optimizer", ["adam", "adamw"])
def test_train_step_fits_a_batch(optimizer):
    net = Network.init("ttt", hidden=(32,), seed=2)
    obs, masks = random_positions("ttt", 64, seed=4)
    pi = np.zeros(masks.shape, np.float32)
    pi[np.arange(64), np.argmax(masks, axis=1)] = 1.0      # first legal action
    z = np.where(np.arange(64) % 2, 1.0, -1.0).astype(np.float32)
    learner = alphazero._Learner(Config(optimizer=optimizer, learning_rate=1e-2), net.params)
    first = np.asarray(learner.step(obs, masks, pi, z))
    for _ in range(300):
        last = np.asarray(learner.step(obs, masks, pi, z))
    assert last[1] < 0.1 * first[1] and last[2] < 0.5 * first[2]
    net.set_params(learner.numpy_params())
    logits, _ = net(obs, masks)
    assert np.array_equal(np.argmax(np.where(masks, logits, -np.inf), axis=1),
                          np.argmax(masks, axis=1))


def test_replay_buffer_is_a_ring_of_the_latestrandom_positions():
    buf = ReplayBuffer(5, (2, 3, 3), 9)
    for start in (0, 3, 6):
        n = 3
        obs = np.full((n, 2, 3, 3), 0, np.int8)
        vals = np.arange(start, start + n, dtype=np.float32)
        buf.add(obs, np.ones((n, 9), bool), np.full((n, 9), 1 / 9, np.float32), vals)
    assert len(buf) == 5 and sorted(buf.values) == [4, 5, 6, 7, 8]
    buf.add(np.zeros((7, 2, 3, 3), np.int8), np.ones((7, 9), bool),
            np.zeros((7, 9), np.float32), np.arange(100, 107, dtype=np.float32))
    assert sorted(buf.values) == [102, 103, 104, 105, 106]
    _, _, _, v = buf.sample(np.random.default_rng(0), 50)
    assert set(v) <= {102, 103, 104, 105, 106}


def test_every_game_has_a_config_and_options_are_checked():
    # a preset is optional (a game without one trains with Config's defaults)
    assert set(alphazero.PRESETS) <= set(ttt_engine.games.GAMES)
    for key in ttt_engine.games.GAMES:
        assert alphazero.config_for(key).games >= 1
    with pytest.raises(ValueError, match="unknown training option.*'learning_rat'"):
        alphazero.config_for("ttt", learning_rat=0.1)
    with pytest.raises(ValueError, match="learning_rate must be a finite number > 0"):
        alphazero.config_for("ttt", learning_rate=-1)
    with pytest.raises(ValueError, match="optimizer must be one of"):
        alphazero.config_for("ttt", optimizer="sgd")
    assert alphazero.config_for("uttt", mixed_playouts=8).mixed_playouts == 8
    with pytest.raises(ValueError, match="mixed_playouts"):
        alphazero.config_for("ttt", mixed_playouts=0)
    assert alphazero.config_for("uttt").expand_after == 0
    assert alphazero.config_for("uttt", expand_after=1).expand_after == 1
    with pytest.raises(ValueError, match="expand_after"):
        alphazero.config_for("ttt", expand_after=-1)


def _weights(path):
    return Network.load(path).params


def test_train_writes_network_checkpoint_and_metrics(tmp_path):
    out = tmp_path / "ttt.npz"
    r = train("ttt", out=out, iterations=2, seed=5, progress=False, **TINY)
    assert r.iteration == 2 and r.stopped == "iterations"
    net = ttt_engine.load(out)
    assert isinstance(net, Network) and net == r.network and net.hidden == (16,)
    ck = ttt_engine.load(tmp_path / "ttt.ckpt.npz")
    assert isinstance(ck, alphazero.Checkpoint) and ck.iteration == 2 and ck.seed == 5
    assert ck.network == net
    recs = [json.loads(line) for line in open(tmp_path / "ttt.metrics.jsonl")]
    assert [r["iteration"] for r in recs] == [1, 2]
    assert recs[1]["games"] == 12 and recs[1]["buffer"] > 0
    assert all(np.isfinite(r["loss"]) and r["sgd_steps"] > 0 for r in recs)
    assert 0 <= recs[-1]["eval_optimality"] <= 1 and recs[-1]["eval_worst_x"] in (
        "win", "draw", "loss")
    with pytest.raises(FileExistsError, match="resume=True continues"):
        train("ttt", out=out, iterations=3, progress=False, **TINY)


def test_train_never_silently_replaces_an_existing_out(tmp_path):
    q = ttt_engine.train(200, seed=1, progress=False, metrics_every=0)
    q.save(tmp_path / "q.npz")
    Network.init("ttt", hidden=(8,), seed=1).save(tmp_path / "n.npz")
    for overwrite in (False, True):
        with pytest.raises(FileExistsError, match="is a Tic-Tac-Toe QAgent file: only a "
                           "network"):
            train("ttt", out=tmp_path / "q.npz", iterations=1, overwrite=overwrite,
                  progress=False, **TINY)
    with pytest.raises(FileExistsError, match="n.npz exists .*overwrite=True replaces it"):
        train("ttt", out=tmp_path / "n.npz", iterations=1, progress=False, **TINY)
    assert ttt_engine.load(tmp_path / "q.npz").__class__.__name__ == "QAgent"
    assert train("ttt", out=tmp_path / "n.npz", iterations=1, overwrite=True, progress=False,
                 **TINY).iteration == 1


def test_resumed_run_equals_an_uninterrupted_one(tmp_path):
    whole = train("ttt", out=tmp_path / "a.npz", iterations=3, seed=9, progress=False, **TINY)
    train("ttt", out=tmp_path / "b.npz", iterations=1, seed=9, progress=False, **TINY)
    half = train("ttt", out=tmp_path / "b.npz", iterations=3, resume=True, progress=False,
                 **TINY)
    assert half.iteration == 3
    for k, v in whole.network.params.items():
        np.testing.assert_array_equal(half.network.params[k], v)
    recs = alphazero.read_metrics(tmp_path / "b.metrics.jsonl")
    assert [r["iteration"] for r in recs] == [1, 2, 3]
    with pytest.raises(ValueError, match=r"cannot resume with a seed: the run keeps its own \(9\)"):
        train("ttt", out=tmp_path / "b.npz", iterations=4, resume=True, seed=5, progress=False,
              **TINY)
    with pytest.raises(ValueError, match="already at iteration 3: iterations=3 would train"):
        train("ttt", out=tmp_path / "b.npz", iterations=3, resume=True, progress=False, **TINY)
    with pytest.raises(ValueError, match="cannot resume with a different hidden"):
        train("ttt", out=tmp_path / "b.npz", iterations=4, resume=True, progress=False,
              **dict(TINY, hidden=(8,)))
    with pytest.raises(ValueError, match="b.ckpt.npz: this network is for Tic-Tac-Toe.*not "
                       "for Ultimate"):
        train("uttt", out=tmp_path / "b.npz", iterations=4, resume=True, progress=False,
              **TINY)


def test_ctrl_c_keeps_the_last_complete_iteration(tmp_path):
    out = tmp_path / "c.npz"

    def stop_at_2(rec):
        if rec["iteration"] == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        train("ttt", out=out, iterations=5, seed=1, progress=False, log=stop_at_2,
              **dict(TINY, checkpoint_every=1e9))
    assert load_checkpoint(tmp_path / "c.ckpt.npz").iteration == 2
    assert os.path.exists(out)
    assert not [f for f in os.listdir(tmp_path) if f.startswith(".tmp")]


def test_ctrl_c_during_sgd_leaves_the_previous_checkpoint(tmp_path, monkeypatch):
    out = tmp_path / "d.npz"
    train("ttt", out=out, iterations=1, seed=1, progress=False, **TINY)
    before = _weights(out)
    calls = []

    def interrupted_step(self, *batch):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(self, *batch)

    real = alphazero._Learner.step
    monkeypatch.setattr(alphazero._Learner, "step", interrupted_step)
    with pytest.raises(KeyboardInterrupt):
        train("ttt", out=out, iterations=3, resume=True, progress=False, **TINY)
    assert load_checkpoint(tmp_path / "d.ckpt.npz").iteration == 1
    after = _weights(out)
    assert all(np.array_equal(before[k], after[k]) for k in before)


def test_ctrl_c_in_the_first_sgd_phase_saves_that_iteration(tmp_path, monkeypatch):
    """A Ctrl-C (SIGINT) during SGD is held until the iteration is complete,
    which is then logged and checkpointed: no work done is lost."""
    import signal
    calls = []

    def interrupted_step(self, *batch):
        calls.append(1)
        if len(calls) == 2:
            os.kill(os.getpid(), signal.SIGINT)
        return real(self, *batch)

    real = alphazero._Learner.step
    monkeypatch.setattr(alphazero._Learner, "step", interrupted_step)
    out = tmp_path / "s.npz"
    with pytest.raises(KeyboardInterrupt):
        train("ttt", out=out, iterations=5, seed=1, progress=False,
              **dict(TINY, checkpoint_every=1e9))
    assert len(calls) > 2                   # the steps went on to the end of the phase
    assert load_checkpoint(tmp_path / "s.ckpt.npz").iteration == 1
    assert Network.load(out) == load_checkpoint(tmp_path / "s.ckpt.npz").network
    assert [r["iteration"] for r in alphazero.read_metrics(tmp_path / "s.metrics.jsonl")] == [1]


def test_ctrl_c_in_an_evaluation_logs_the_iteration_it_checkpoints(tmp_path, monkeypatch):
    import ttt_engine.alphazero.loop as loop

    def interrupted(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(loop, "evaluate_network", interrupted)
    with pytest.raises(KeyboardInterrupt):
        train("ttt", out=tmp_path / "e.npz", iterations=5, seed=1, progress=False, **TINY)
    assert load_checkpoint(tmp_path / "e.ckpt.npz").iteration == 1
    recs = alphazero.read_metrics(tmp_path / "e.metrics.jsonl")
    assert [r["iteration"] for r in recs] == [1]
    assert not any(k.startswith("eval_") for k in recs[0])


def test_time_budget_stops_with_a_checkpoint(tmp_path):
    r = train("ttt", out=tmp_path / "t.npz", time=0.5, seed=2, progress=False, **TINY)
    assert r.stopped == "time" and r.iteration >= 1
    assert load_checkpoint(tmp_path / "t.ckpt.npz").iteration == r.iteration


def test_progress_bar_of_a_small_budget_shows_tenths(tmp_path, capsys):
    train("ttt", out=tmp_path / "p.npz", time=0.5, seed=2, progress=True, **TINY)
    err = capsys.readouterr().err
    assert "/0.5 s" in err and "0/0 s" not in err, err[-500:]


def test_train_checks_every_path_it_writes_before_any_work(tmp_path, monkeypatch):
    import ttt_engine.selfplay
    monkeypatch.setattr(ttt_engine.selfplay, "selfplay", lambda *a, **k: pytest.fail("played"))
    with pytest.raises(FileNotFoundError, match=r"cannot write the network .*x.npz: the folder "
                       r".*nodir does not exist; create it first"):
        train("ttt", out=tmp_path / "nodir" / "x.npz", iterations=1, progress=False, **TINY)
    (tmp_path / "x.metrics.jsonl").mkdir()
    with pytest.raises(IsADirectoryError, match="metrics log"):
        train("ttt", out=tmp_path / "x.npz", iterations=1, progress=False, **TINY)


@pytest.mark.parametrize("name", ["resume", "overwrite", "progress"])
def test_train_yes_no_options_take_only_true_or_false(tmp_path, name):
    with pytest.raises(ValueError, match=f"^{name} must be True or False, got 'no'"):
        train("ttt", out=tmp_path / "x.npz", iterations=1, **{name: "no"}, **TINY)


def test_missing_nn_extra_is_one_line(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "jax", None)
    with pytest.raises(ImportError, match=r"training needs the \[nn\] extra: pip install "
                       r"'ttt_engine\[nn\]'") as e:
        train("ttt", out=tmp_path / "x.npz", iterations=1)
    assert isinstance(e.value, alphazero.NNExtraMissing)
    assert not os.path.exists(tmp_path / "x.npz")


def test_ttt_table_evaluator_answers_as_the_network():
    net = Network.init("ttt", hidden=(16, 16), seed=4)
    from ttt_engine.ttt.oracle import NetworkTable
    table = NetworkTable(net)
    obs, masks = random_positions("ttt", 300, seed=8)
    for a, b in zip(table(obs, masks), net(obs, masks)):
        np.testing.assert_allclose(a, b, atol=1e-6)


@pytest.mark.parametrize("seed", [1, 2])
def test_policy_yardstick_is_the_policy_agents_yardstick(seed):
    """The training's batched pass over the Connect Four suite scores the policy
    as the yardstick scores PolicyAgent, move by move (two untrained networks,
    whose moves are far from always right, so the shares separate)."""
    from ttt_engine import yardstick
    from ttt_engine.agents import PolicyAgent
    net = Network.init("connect4", hidden=(16,), seed=seed)
    fast = alphazero.evaluation.policy_yardstick(net)
    slow = yardstick.yardstick(PolicyAgent(net), game="connect4")
    assert fast["policy_keeps"] == slow.keeps["all"].rate
    assert fast["policy_optimal"] == slow.optimal["all"].rate
    assert 0.2 < fast["policy_optimal"] < 0.9


def test_learning_curve_plot(tmp_path):
    r = train("ttt", out=tmp_path / "p.npz", iterations=2, seed=3, progress=False,
              plot=tmp_path / "curves.png", **TINY)
    assert r.iteration == 2
    with open(tmp_path / "curves.png", "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"


def test_shipped_ttt_network_meets_the_bar():
    """The network in the package: PUCT at 100 simulations plays an optimal move in
    >= 99% of the 4520 decision positions and never loses, as X or as O."""
    from ttt_engine.agents import shipped_network
    net = Network.load(shipped_network("ttt"), "ttt")
    scores = alphazero.evaluate_network(net, simulations=100)
    assert scores["optimality"] >= 0.99
    assert scores["worst_x"] != "loss" and scores["worst_o"] != "loss"
    agent = ttt_engine.games.get("ttt").make_agent("az", simulations=100, seed=1)
    b = ttt_engine.Board.from_string("XX.OO....")
    assert agent.select_move(b) == 2


def test_shipped_uttt_network_plays_through_the_registry():
    """The shipped UTTT network loads with numpy alone and plays a legal move
    with the search setting it was measured with."""
    from ttt_engine import uttt
    from ttt_engine.agents import SHIPPED_SETTINGS
    agent = ttt_engine.games.get("uttt").make_agent("az", simulations=200, seed=1)
    b = uttt.Board()
    move = agent.select_move(b)
    assert move in b.legal_moves
    assert agent.last_stats["simulations"] == 200
    shipped = SHIPPED_SETTINGS["uttt"]
    for name in ("playout_weight", "mixed_playouts"):
        assert getattr(agent._puct, name) == shipped[name]
    assert agent._puct.batch_size == shipped["batch_size"]["simulations"]
    timed = ttt_engine.games.get("uttt").make_agent("az", time=0.05, seed=1)
    timed.select_move(b)
    assert timed._puct.batch_size == shipped["batch_size"]["time"]
    # a network of the user's own gets the plain defaults, and explicit settings win
    from ttt_engine.agents import AZAgent, shipped_network
    own = AZAgent(shipped_network("uttt"), simulations=50, seed=1)
    own.select_move(b)
    for name, value in AZAgent.DEFAULTS.items():
        assert getattr(own._puct, name) == value
    set_ = ttt_engine.games.get("uttt").make_agent("az", simulations=50, seed=1, batch_size=2,
                                                   mixed_playouts=3)
    set_.select_move(b)
    assert (set_._puct.batch_size, set_._puct.mixed_playouts) == (2, 3)
    two = ttt_engine.games.get("uttt").make_agent("az", simulations=40, seed=1, threads=2)
    assert two.select_move(b) in b.legal_moves and two.last_stats["threads"] == 2
    assert set_._puct.playout_weight == SHIPPED_SETTINGS["uttt"]["playout_weight"]
