"""AlphaZero self-play away from the learner: on a Dask cluster (a 2-worker
``LocalCluster`` on loopback) and on a local process pool.  The same seed and
``workers`` give the same games (the replay buffer and the weights are
identical) wherever they are played; a worker killed mid-iteration has its part
played again, with the same games; Ctrl-C leaves a checkpoint that --resume
continues; a scheduler that does not answer is one line, before any file is
written."""
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")
import dask  # noqa: E402  (installed with distributed)

from ttt_engine.alphazero import load_checkpoint, train  # noqa: E402
from ttt_engine.cli import main  # noqa: E402
from ttt_engine.network import Network  # noqa: E402
from ttt_engine.selfplay import selfplay  # noqa: E402

#: a tiny run: seconds, not minutes
TINY = dict(hidden=(16,), games=6, simulations=8, buffer_size=2000, batch_size=32,
            sample_reuse=1.0, max_steps=20, eval_simulations=4, eval_games=2,
            eval_mcts_simulations=20, eval_every=1e9)
SEED = 11


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address=None) as c:
        yield c


@pytest.fixture(scope="module")
def client(cluster):
    with distributed.Client(cluster) as c:
        yield c


@pytest.fixture(scope="module")
def local_run(tmp_path_factory):
    """Two iterations with the games in 2 parts on a local process pool (--workers 2)."""
    out = tmp_path_factory.mktemp("local") / "ttt.npz"
    r = train("ttt", out=out, iterations=2, seed=SEED, progress=False, workers=2, **TINY)
    assert [rec["workers"] for rec in r.records] == [2, 2]
    return load_checkpoint(r.checkpoint)


def assert_same_run(a, b):
    """The same self-play data (the replay buffer: observations, masks, visit
    distributions, outcomes) and the same weights after the same SGD."""
    assert a.counters["games"] == b.counters["games"] == 2 * TINY["games"]
    assert a.counters["positions"] == b.counters["positions"] > 0
    fields = [k for k in a.raw if k.startswith(("buffer_", "net_param_"))]
    assert {"buffer_obs", "buffer_policies", "buffer_values"} <= set(fields)
    for k in fields:
        np.testing.assert_array_equal(a.raw[k], b.raw[k], err_msg=k)
    assert a.network == b.network


def test_one_part_on_the_cluster_is_the_run_in_this_process(client):
    net = Network.init("ttt", hidden=(16,), seed=3)
    here = selfplay("ttt", net, games=5, simulations=12, seed=7)
    there = selfplay("ttt", net, games=5, simulations=12, seed=7,
                     executor=client.get_executor(), workers=1)
    for k in ("observations", "masks", "policies", "values", "game_ids", "outcomes"):
        np.testing.assert_array_equal(getattr(here, k), getattr(there, k), err_msg=k)


def test_the_cluster_plays_the_games_of_the_local_run(client, local_run, tmp_path):
    r = train("ttt", out=tmp_path / "ttt.npz", iterations=2, seed=SEED, progress=False,
              executor=client.get_executor(), workers=2, **TINY)
    assert [rec["workers"] for rec in r.records] == [2, 2]
    assert r.records[-1]["evaluations_per_s"] > 0
    assert_same_run(load_checkpoint(r.checkpoint), local_run)


class KillSelfPlay(distributed.WorkerPlugin):
    """Kills its worker's process (SIGKILL: no goodbye to the scheduler) as a
    self-play task starts there: every time, or with a ``marker`` file only the
    first time in the cluster (also on the workers the nannies start again)."""

    def __init__(self, marker=None):
        self.marker = marker

    def transition(self, key, start, finish, **kwargs):
        if finish != "executing" or not str(key).startswith("selfplay"):
            return
        if self.marker is not None:
            try:
                open(self.marker, "x").close()
            except FileExistsError:
                return
        os.kill(os.getpid(), signal.SIGKILL)


def test_a_worker_lost_mid_iteration_has_its_games_played_again(client, local_run,
                                                               tmp_path):
    marker = tmp_path / "killed"
    before = set(client.scheduler_info()["workers"])
    client.register_plugin(KillSelfPlay(str(marker)), name="kill-first-selfplay")
    try:
        r = train("ttt", out=tmp_path / "ttt.npz", iterations=2, seed=SEED, progress=False,
                  executor=client.get_executor(), workers=2, **TINY)
    finally:
        client.unregister_worker_plugin("kill-first-selfplay")
    assert marker.exists()                              # a worker died running a part
    client.wait_for_workers(2, timeout=60)
    assert set(client.scheduler_info()["workers"]) != before   # and was replaced
    assert_same_run(load_checkpoint(r.checkpoint), local_run)


def test_a_part_that_keeps_killing_workers_ends_the_command_in_one_line(tmp_path, capsys):
    runs = tmp_path / "runs"
    runs.mkdir()
    with dask.config.set({"distributed.scheduler.allowed-failures": 0}), \
            distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                     host="127.0.0.1", dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        client.register_plugin(KillSelfPlay(), name="kill-selfplay")
        code = main(["az", "train", "--out", str(runs / "x.npz"), "--iterations", "1",
                     "--scheduler", cluster.scheduler_address, *CLI_TINY])
    captured = capsys.readouterr()
    assert code == 1
    assert captured.err.count("\n") == 1 and "Traceback" not in captured.err
    assert (f"self-play on the Dask cluster at {cluster.scheduler_address} failed; no "
            "checkpoint was written (KilledWorker" in captured.err)
    assert os.listdir(runs) == []


def test_executor_needs_workers_and_workers_are_checked(client, tmp_path):
    out = tmp_path / "x.npz"
    with pytest.raises(ValueError, match="executor= needs workers="):
        train("ttt", out=out, iterations=1, executor=client.get_executor(), **TINY)
    with pytest.raises(ValueError, match="workers must be"):
        train("ttt", out=out, iterations=1, workers=0, **TINY)
    with pytest.raises(ValueError, match="executor must be a concurrent.futures.Executor"):
        train("ttt", out=out, iterations=1, executor="tcp://127.0.0.1:8786", workers=2,
              **TINY)
    assert os.listdir(tmp_path) == []


CLI_TINY = ["--hidden", "16", "--games", "8", "--simulations", "48", "--buffer-size", "2000",
            "--batch-size", "32", "--eval-simulations", "4", "--quiet"]


def test_unreachable_scheduler_is_one_line_and_writes_nothing(tmp_path, capsys):
    runs = tmp_path / "runs"
    runs.mkdir()
    code = main(["az", "train", "--out", str(runs / "x.npz"), "--iterations", "1",
                 "--scheduler", "tcp://127.0.0.1:9", *CLI_TINY])
    captured = capsys.readouterr()
    assert code == 1
    assert captured.err.count("\n") == 1 and "Traceback" not in captured.err
    assert "cannot reach the Dask scheduler at tcp://127.0.0.1:9 within 5 s" in captured.err
    assert captured.out == ""
    assert os.listdir(runs) == []


@pytest.mark.parametrize("greeting", [b"SSH-2.0-OpenSSH_9.6\r\n" * 4, None])
def test_a_server_that_is_not_a_scheduler_is_one_line(tmp_path, capsys, greeting):
    """A port that answers with other bytes, or accepts and says nothing, is
    named within seconds, not an internal error or a hang."""
    import socket
    import threading
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]
    accepted = []

    def serve():
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            accepted.append(conn)
            if greeting:
                conn.sendall(greeting)

    threading.Thread(target=serve, daemon=True).start()
    try:
        code = main(["az", "train", "--out", str(tmp_path / "x.npz"), "--iterations", "1",
                     "--scheduler", f"tcp://127.0.0.1:{port}", *CLI_TINY])
    finally:
        server.close()
        for conn in accepted:
            conn.close()
    err = capsys.readouterr().err
    assert code == 1
    assert err.count("\n") == 1 and "Traceback" not in err and "internal error" not in err
    assert f"tcp://127.0.0.1:{port} is not a Dask scheduler" in err
    assert not os.path.exists(tmp_path / "x.npz")


def selfplay_running(client):
    return any(str(k).startswith("selfplay") for keys in client.processing().values()
               for k in keys)


def test_ctrl_c_on_the_cluster_then_resume(cluster, client, tmp_path, cli_env, capsys):
    out = tmp_path / "c.npz"
    ckpt = tmp_path / "c.ckpt.npz"
    cmd = [sys.executable, "-m", "ttt_engine", "az", "train", "--out", str(out), "--seed", "2",
           "--scheduler", cluster.scheduler_address, *CLI_TINY]
    p = subprocess.Popen(cmd + ["--iterations", "100000", "--checkpoint-every", "0.001"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=cli_env)
    try:
        deadline = time.monotonic() + 120
        while not ckpt.exists() and p.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert ckpt.exists(), p.communicate(timeout=60)
        # Ctrl-C while the cluster plays a later iteration's games
        while not selfplay_running(client) and p.poll() is None \
                and time.monotonic() < deadline:
            time.sleep(0.002)
        p.send_signal(signal.SIGINT)
        stdout, stderr = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
            p.communicate()
    assert p.returncode == 130, stderr
    assert "2 worker(s)" in stdout and "in 2 parts" in stdout
    done = load_checkpoint(ckpt).iteration
    assert done >= 1
    assert f"The last checkpoint (iteration {done}) is in {ckpt}; --resume continues" in stderr
    again = [a for a in cmd[3:] if a not in ("--seed", "2")]     # the run keeps its seed
    assert main(again + ["--iterations", str(done + 1), "--resume"]) == 0
    assert f"(resumed at iteration {done})" in capsys.readouterr().out
    assert load_checkpoint(ckpt).iteration == done + 1
