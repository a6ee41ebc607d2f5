"""``ttt-engine az``: train a small network, refuse to clobber a run, resume it,
evaluate it; every failure one line with its exit status."""
import os
import subprocess
import sys

import pytest

import ttt_engine
from ttt_engine.alphazero import load_checkpoint
from ttt_engine.network import Network

CMD = [sys.executable, "-m", "ttt_engine"]
PREFIX = "ttt-engine: error: "
TINY = ["--hidden", "16", "--games", "6", "--simulations", "8", "--buffer-size", "2000",
        "--batch-size", "32", "--eval-simulations", "4", "--quiet"]


@pytest.fixture
def env(cli_env):
    return cli_env


def run(args, env, timeout=300, prelude=None):
    if prelude:
        cmd = [sys.executable, "-c",
               prelude + "; import sys; from ttt_engine.cli import main; "
               f"sys.exit(main({args!r}))"]
    else:
        cmd = CMD + args
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)


def one_line_error(r, code, *needles):
    assert r.returncode == code, (r.returncode, r.stdout[-500:], r.stderr)
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(PREFIX), r.stderr
    assert "Traceback" not in r.stderr + r.stdout
    for n in needles:
        assert n in lines[0], (n, lines[0])


def test_train_resume_and_eval(tmp_path, env):
    out = str(tmp_path / "ttt.npz")
    r = run(["az", "train", "--game", "ttt", "--out", out, "--iterations", "1", "--seed", "3",
             *TINY], env)
    assert r.returncode == 0, r.stderr
    assert "iterations" in r.stdout and "PUCT: optimal moves" in r.stdout
    assert Network.load(out).hidden == (16,)
    assert load_checkpoint(tmp_path / "ttt.ckpt.npz").iteration == 1
    # a second run does not silently start over
    r = run(["az", "train", "--out", out, "--iterations", "2", *TINY], env)
    one_line_error(r, 2, "ttt.ckpt.npz exists: --resume continues that run, --force starts")
    r = run(["az", "train", "--out", out, "--iterations", "2", "--resume", "--quiet",
             "--plot", str(tmp_path / "c.png")], env)
    assert r.returncode == 0, r.stderr
    assert load_checkpoint(tmp_path / "ttt.ckpt.npz").iteration == 2
    assert os.path.getsize(tmp_path / "c.png") > 1000
    r = run(["az", "eval", "--network", out, "--simulations", "10"], env)
    assert r.returncode == 0, r.stderr
    assert "worst case as X" in r.stdout and "%" in r.stdout


def test_resume_refusals_come_before_the_banner(tmp_path, env):
    out = str(tmp_path / "r.npz")
    r = run(["az", "train", "--out", out, "--iterations", "2", "--seed", "1", *TINY], env)
    assert r.returncode == 0, r.stderr
    for args, needle in [
            (["--seed", "5"], "--seed does not apply with --resume"),
            (["--hidden", "8"], "cannot resume with a different hidden"),
            (["--game", "uttt"], "not for Ultimate"),
            (["--iterations", "2"], "already at iteration 2: iterations=2 would train nothing")]:
        extra = [] if "--iterations" in args else ["--iterations", "3"]
        r = run(["az", "train", "--out", out, "--resume", *args, *extra], env)
        one_line_error(r, 2, needle)
        assert r.stdout == "", r.stdout
    assert load_checkpoint(tmp_path / "r.ckpt.npz").iteration == 2
    # records after the checkpoint are dropped, and the console says so
    with open(tmp_path / "r.metrics.jsonl", "a") as f:
        f.write('{"iteration": 3}\n')
    r = run(["az", "train", "--out", out, "--resume", "--iterations", "3"], env)
    assert r.returncode == 0, r.stderr
    assert "up to iteration 3 (resumed at iteration 2)" in r.stdout
    assert "Dropped 1 metrics record(s) after iteration 2" in r.stdout
    lines = (tmp_path / "r.metrics.jsonl").read_text().splitlines()
    lines[0] = "garbage"
    (tmp_path / "r.metrics.jsonl").write_text("\n".join(lines) + "\n")
    one_line_error(run(["az", "train", "--out", out, "--resume", "--iterations", "4"], env),
                   2, "r.metrics.jsonl: line 1 is not a metrics record")


def test_ctrl_c_before_any_iteration_says_nothing_was_saved(tmp_path, env):
    prelude = ("import ttt_engine.selfplay as s\n"
               "def stop(*a, **k): raise KeyboardInterrupt\n"
               "s.selfplay = stop")
    r = run(["az", "train", "--out", str(tmp_path / "b.npz"), *TINY], env, prelude=prelude)
    assert r.returncode == 130, r.stderr
    assert "No iteration was completed: nothing saved." in r.stderr
    assert not os.path.exists(tmp_path / "b.npz")


@pytest.mark.parametrize("args,code,needles", [
    (["az", "train", "--out", "{tmp}/x.npz", "--hidden", "12,x"], 2, ["--hidden must be"]),
    (["az", "train", "--out", "{tmp}/x.npz", "--learning-rate", "-1", "--quiet"], 2,
     ["cannot train: learning_rate must be a finite number > 0"]),
    (["az", "train", "--out", "{tmp}/x.npz", "--resume", "--force"], 2, ["exclude"]),
    (["az", "train", "--out", "{tmp}"], 2, ["is a folder"]),
    (["az", "train", "--out", "{tmp}/x.npz", "--scheduler", ""], 2,
     ["--scheduler: must not be empty"]),
    (["tournament", "--scheduler", ""], 2, ["--scheduler: must not be empty"]),
    (["tournament", "--scheduler", "  "], 2, ["--scheduler: must not be blank"]),
    (["play", "--network", " "], 2, ["--network: must not be blank"]),
    (["az", "train"], 2, ["--out"]),
    (["az", "eval", "--model", "{tmp}/none.npz"], 1, ["does not exist"]),
    (["az", "train", "--game", "clobber", "--rows", "9", "--out", "{tmp}/x.npz"], 2,
     ["--rows"]),
    (["az", "eval", "--model", "{tmp}/none.npz", "--playout-weight", "1.5"], 2,
     ["--playout-weight: must be in [0, 1]"]),
    (["az", "eval", "--model", "{tmp}/none.npz", "--mixed-playouts", "0"], 2,
     ["--mixed-playouts"]),
    (["az", "train", "--out", "{tmp}/x.npz", "--expand-after", "-1"], 2, ["--expand-after"]),
])
def test_bad_usage_is_one_line(tmp_path, env, args, code, needles):
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    one_line_error(run(args, env), code, *needles)
    assert not os.path.exists(tmp_path / "x.npz")


@pytest.mark.parametrize("args,needle", [
    (["--channels", "8"], "--channels applies only with --architecture conv"),
    (["--blocks", "4"], "--blocks applies only with --architecture conv"),
    (["--simulations-start", "4"], "--simulations-start applies only with --simulations-ramp"),
    (["--gumbel-k", "4"], "--gumbel-k applies only with --gumbel"),
    (["--cheap-simulations", "4"], "--cheap-simulations applies only with --playout-cap"),
    (["--eval-games", "4"], "--eval-games does not apply to Tic-Tac-Toe"),
])
def test_train_options_that_do_not_apply_are_refused(tmp_path, env, args, needle):
    one_line_error(run(["az", "train", "--out", str(tmp_path / "x.npz"), *args], env), 2,
                   needle)
    assert os.listdir(tmp_path) == ["cache"] or os.listdir(tmp_path) == []


@pytest.mark.parametrize("option,value", [("--games", "3"), ("--mcts-simulations", "5"),
                                          ("--playout-weight", "1"), ("--mixed-playouts", "2"),
                                          ("--seed", "1")])
def test_eval_game_options_do_not_apply_to_a_ttt_network(tmp_path, env, option, value):
    net = tmp_path / "ttt.npz"
    Network.init("ttt", hidden=(8,), seed=1).save(net)
    one_line_error(run(["az", "eval", "--network", str(net), option, value, "--quiet"], env), 2,
                   f"{option} does not apply to a Tic-Tac-Toe network")


def test_train_never_silently_replaces_an_existing_out(tmp_path, env):
    """A network without its checkpoint is replaced only with --force; a file
    of another kind never."""
    net = tmp_path / "n.npz"
    Network.init("ttt", hidden=(8,), seed=1).save(net)
    before = net.read_bytes()
    one_line_error(run(["az", "train", "--out", str(net), *TINY], env), 2,
                   "n.npz exists and is a policy-value Network", "--force replaces it")
    assert net.read_bytes() == before
    (tmp_path / "notes.txt").write_text("mine\n")
    for extra in ([], ["--force"]):
        one_line_error(run(["az", "train", "--out", str(tmp_path / "notes.txt"), *extra,
                            *TINY], env), 2,
                       "notes.txt exists and is not a ttt_engine model file",
                       "only a network file is overwritten")
    assert (tmp_path / "notes.txt").read_text() == "mine\n"
    r = run(["az", "train", "--out", str(net), "--force", "--iterations", "1", *TINY], env)
    assert r.returncode == 0, r.stderr
    assert net.read_bytes() != before


def test_eval_refuses_a_file_that_is_not_a_network(tmp_path, env):
    """A file that is not a network is bad input (exit 2, as play --network
    says); a missing one is work that cannot be done (exit 1, as eval --model)."""
    q = ttt_engine.train(1000, seed=1, progress=False, metrics_every=0)
    q.save(tmp_path / "q.npz")
    one_line_error(run(["az", "eval", "--model", str(tmp_path / "q.npz")], env), 2,
                   "--network: ", "is a Tic-Tac-Toe QAgent file, not a policy-value Network")
    (tmp_path / "junk.npz").write_text("junk\n")
    one_line_error(run(["az", "eval", "--network", str(tmp_path / "junk.npz")], env), 2,
                   "not a ttt_engine model")
    one_line_error(run(["az", "eval", "--network", str(tmp_path)], env), 2, "is a directory")


def test_missing_nn_extra_exits_2_with_the_extra_to_install(tmp_path, env):
    r = run(["az", "train", "--out", str(tmp_path / "x.npz")], env,
            prelude="import sys; sys.modules['jax'] = None")
    one_line_error(r, 2, "training needs the [nn] extra: pip install 'ttt_engine[nn]'")
    assert not os.path.exists(tmp_path / "x.npz")


def test_eval_with_the_shipped_uttt_settings(env):
    """The leaf-value flags reach the search: the shipped UTTT network with
    8 playouts per leaf plays its games against MCTS."""
    import ttt_engine.agents as agents
    r = run(["az", "eval", "--model", agents.shipped_network("uttt"), "--simulations", "30",
             "--games", "2", "--mcts-simulations", "30", "--playout-weight", "1",
             "--mixed-playouts", "8", "--seed", "1"], env)
    assert r.returncode == 0, r.stderr
    assert "vs mcts30: W/D/L (2 games)" in r.stdout
