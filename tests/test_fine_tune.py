"""Supervised fine-tuning (``alphazero.fine_tune``) and the UTTT distillation
script built on it (``examples/distill.py``)."""
import os
import subprocess
import sys

import numpy as np
import pytest

from ttt_engine import alphazero
from ttt_engine.network import Network

import jax  # noqa: F401  (the [nn] extra is in [test]: a missing one must fail)
from conftest import random_positions

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _targets(n, seed):
    """Tic-Tac-Toe positions whose target is the highest legal cell (a rule a
    network can learn) and whose value is +1 when the centre is empty."""
    obs, masks = random_positions("ttt", n, seed=seed)
    pi = np.zeros(masks.shape, np.float32)
    pi[np.arange(n), 8 - np.argmax(masks[:, ::-1], axis=1)] = 1.0
    z = np.where(masks[:, 4], 1.0, -1.0).astype(np.float32)
    return obs, masks, pi, z


def test_fine_tune_learns_the_targets_and_keeps_the_best_epoch():
    net = Network.init("ttt", hidden=(32,), seed=0)
    train, held = _targets(600, 1), _targets(200, 2)
    # the rule is not symmetric: no augmentation
    tuned, history = alphazero.fine_tune(net, train, held, epochs=6, learning_rate=1e-2,
                                         augment=False, progress=False)
    assert [h["epoch"] for h in history] == list(range(7))
    assert history[-1]["policy_ce"] < 0.5 * history[0]["policy_ce"]
    assert history[-1]["top1"] > 0.9 > history[0]["top1"]
    best = min(h["policy_ce"] for h in history)
    logits, _ = tuned(held[0], held[1])
    assert np.mean(np.argmax(np.where(held[1], logits, -1e9), 1) == np.argmax(held[2], 1)) \
        == pytest.approx([h["top1"] for h in history if h["policy_ce"] == best][0])
    # the given network is not changed; the same seed gives the same network
    assert net == Network.init("ttt", hidden=(32,), seed=0)
    again, _ = alphazero.fine_tune(net, train, held, epochs=6, learning_rate=1e-2,
                                   augment=False, progress=False)
    assert again == tuned


def test_fine_tune_without_held_out_returns_the_last_epoch():
    net = Network.init("ttt", hidden=(16,), seed=3)
    tuned, history = alphazero.fine_tune(net, _targets(300, 4), epochs=2, progress=False,
                                         augment=False)
    assert history == [{"epoch": 0}, {"epoch": 1}, {"epoch": 2}]
    assert tuned != net and tuned.hidden == net.hidden


@pytest.mark.parametrize("change,message", [
    (lambda d: (d[0][:, :1], *d[1:]), "observations has shape"),
    (lambda d: (d[0], d[1], d[2] * 2, d[3]), "distribution over its legal actions"),
    (lambda d: (d[0], ~d[1], d[2], d[3]), "distribution over its legal actions"),
    (lambda d: (*d[:3], d[3] * 3), r"values must lie in \[-1, 1\]"),
    (lambda d: d[:3], r"\(observations, masks, policies, values\)"),
])
def test_fine_tune_refuses_bad_targets(change, message):
    net = Network.init("ttt", hidden=(8,), seed=0)
    with pytest.raises(ValueError, match=message):
        alphazero.fine_tune(net, change(_targets(300, 0)), progress=False)
    with pytest.raises(ValueError, match="held_out"):
        alphazero.fine_tune(net, _targets(300, 0), change(_targets(50, 1)), progress=False)


def test_fine_tune_refuses_bad_settings():
    net = Network.init("ttt", hidden=(8,), seed=0)
    data = _targets(300, 0)
    with pytest.raises(TypeError, match="Network"):
        alphazero.fine_tune("net.npz", data, progress=False)
    with pytest.raises(ValueError, match="epochs"):
        alphazero.fine_tune(net, data, epochs=0, progress=False)
    with pytest.raises(ValueError, match="learning_rate"):
        alphazero.fine_tune(net, data, learning_rate=-1, progress=False)
    with pytest.raises(ValueError, match="fewer than batch_size"):
        alphazero.fine_tune(net, _targets(10, 0), augment=False, progress=False)


def _script(*args, cwd, env):
    return subprocess.run([sys.executable, os.path.join(ROOT, "examples", "distill.py"),
                           *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=600)


def test_distill_script_records_positions_and_fits_a_network(tmp_path, cli_env):
    # games 0-4 hold game 4 out (its file name hashes to 0 modulo 10)
    r = _script("positions", "--out", "data", "--games", "5", "--time", "0.005",
                cwd=tmp_path, env=cli_env)
    assert r.returncode == 0, r.stderr
    files = sorted(os.listdir(tmp_path / "data"))
    assert files == [f"g{k:06d}.npz" for k in range(5)]
    for name in files:
        d = np.load(tmp_path / "data" / name)
        n = len(d["z"])
        assert n >= 10 and d["obs"].shape == (n, 3, 9, 9) and d["pi"].shape == (n, 81)
        np.testing.assert_allclose(d["pi"].sum(1), 1.0, atol=1e-5)
        assert not np.any(d["pi"][~d["mask"]])
        # a decided game alternates +1 / -1 between the sides, a draw is all 0
        assert set(np.unique(d["z"])) in ({0.0}, {-1.0, 1.0})
    before = os.path.getmtime(tmp_path / "data" / files[0])
    r = _script("positions", "--out", "data", "--games", "5", "--time", "0.005",
                cwd=tmp_path, env=cli_env)
    assert r.returncode == 0 and os.path.getmtime(tmp_path / "data" / files[0]) == before
    r = _script("fit", "--data", "data", "--out", "tuned.npz", "--epochs", "1", cwd=tmp_path, env=cli_env)
    assert r.returncode == 0, r.stderr
    assert "4 games trained on, 1 held out" in r.stdout
    tuned = Network.load(tmp_path / "tuned.npz")
    assert tuned.game_key == "uttt" and tuned.hidden == (256, 256)


def test_distill_script_errors_are_one_line(tmp_path, cli_env):
    r = _script("fit", "--data", "nowhere", "--out", "x.npz", cwd=tmp_path, env=cli_env)
    assert r.returncode != 0 and r.stderr.strip() == "error: no position files (g*.npz) in nowhere"
    r = _script("positions", "--out", "d", "--games", "0", cwd=tmp_path, env=cli_env)
    assert r.returncode != 0 and r.stderr.strip().startswith("error: games") \
        and "Traceback" not in r.stderr


def test_distill_script_plays_any_game_with_a_network_guided_preset(tmp_path, cli_env):
    r = _script("positions", "--game", "connect4", "--out", "c4", "--games", "2",
                "--time", "0.005", cwd=tmp_path, env=cli_env)
    assert r.returncode == 0, r.stderr
    d = np.load(tmp_path / "c4" / "g000000.npz")
    assert d["obs"].shape[1:] == (2, 6, 7) and d["pi"].shape[1] == 7
    np.testing.assert_allclose(d["pi"].sum(1), 1.0, atol=1e-5)
    r = _script("positions", "--game", "quixo", "--out", "qx", "--games", "1",
                cwd=tmp_path, env=cli_env)
    assert r.returncode != 0 and r.stderr.strip() == (
        "error: Quixo has no network-guided preset (best_az) to distil")


def test_distill_script_teacher_moves_the_student_towards_the_teacher(tmp_path, cli_env):
    Network.init("connect4", hidden=(16,), seed=1).save(tmp_path / "teacher.npz")
    Network.init("connect4", hidden=(8,), seed=2).save(tmp_path / "student.npz")
    args = ("teacher", "--game", "connect4", "--teacher", "teacher.npz", "--base",
            "student.npz", "--games", "40", "--epochs", "3", "--seed", "3")
    r = _script(*args, "--out", "a.npz", cwd=tmp_path, env=cli_env)
    assert r.returncode == 0, r.stderr
    kl = [float(line.split("KL ")[1].split(",")[0]) for line in r.stdout.splitlines()
          if line.startswith("epoch ")]
    assert len(kl) == 4 and min(kl[1:]) < kl[0]          # closer to the teacher's policy
    assert "the policy alone after: keeps the value" in r.stdout
    a = Network.load(tmp_path / "a.npz")
    assert a.game_key == "connect4" and a.hidden == (8,)     # the student's shape
    # the same seed, the same data and fit
    r = _script(*args, "--out", "b.npz", cwd=tmp_path, env=cli_env)
    assert r.returncode == 0, r.stderr
    obs, masks = random_positions("connect4", 64, seed=4)
    b = Network.load(tmp_path / "b.npz")
    np.testing.assert_allclose(a(obs, masks)[0], b(obs, masks)[0], atol=1e-5)


def test_distill_script_teacher_of_another_game_is_one_line(tmp_path, cli_env):
    Network.init("ttt", hidden=(8,), seed=1).save(tmp_path / "t.npz")
    r = _script("teacher", "--game", "connect4", "--teacher", "t.npz", "--out", "x.npz",
                cwd=tmp_path, env=cli_env)
    assert r.returncode != 0 and r.stderr.strip().startswith("error: ") \
        and len(r.stderr.strip().splitlines()) == 1 and not (tmp_path / "x.npz").exists()
