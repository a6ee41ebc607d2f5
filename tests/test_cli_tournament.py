"""The tournament and sweep commands of the console tool."""
import json

import pytest
from ttt_engine.cli import main

TOURNEY = ["tournament", "--game", "uttt", "--agents", "mcts,random", "--simulations", "30",
           "--games", "4", "--seed", "5", "--quiet", "--bootstrap", "100"]


def test_tournament_prints_table_and_resumes(tmp_path, capsys):
    out = tmp_path / "r.jsonl"
    assert main(TOURNEY + ["--workers", "1", "--out", str(out), "--json",
                           str(tmp_path / "s.json")]) == 0
    text = capsys.readouterr().out
    assert "| **mcts** |" in text and "By colour" in text and "Elo" in text
    lines = out.read_text().splitlines()
    assert len(lines) == 5
    summary = json.loads((tmp_path / "s.json").read_text())
    assert summary["games"] == 4 and sum(summary["table"]["mcts vs random"]) == 4
    # the same command again: nothing to play, the same table, the file unchanged
    assert main(TOURNEY + ["--workers", "2", "--out", str(out)]) == 0
    again = capsys.readouterr().out
    assert out.read_text().splitlines() == lines
    table = [x for x in text.splitlines() if x.startswith("| **")]
    assert table == [x for x in again.splitlines() if x.startswith("| **")]


def test_tournament_on_dask_scheduler(capsys):
    distributed = pytest.importorskip("distributed")
    assert main(TOURNEY + ["--workers", "1"]) == 0
    local = capsys.readouterr().out
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        assert main(TOURNEY + ["--scheduler", cluster.scheduler_address]) == 0
    remote = capsys.readouterr().out
    assert "2 worker(s)" in remote
    rows = [x for x in local.splitlines() if x.startswith("| **")]
    assert rows and rows == [x for x in remote.splitlines() if x.startswith("| **")]


def test_a_results_file_of_another_run_is_refused_before_the_q_model_is_trained(
        tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("TTT_ENGINE_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "cache").mkdir()
    out = tmp_path / "r.jsonl"
    out.write_text('{"ttt_engine": "tournament", "format": 1}\n')
    assert main(["tournament", "--game", "ttt", "--agents", "q,random", "--games", "2",
                 "--quiet", "--workers", "1", "--out", str(out)]) == 2
    captured = capsys.readouterr()
    assert "refusing to use results file" in captured.err and len(captured.err.splitlines()) == 1
    assert "Training" not in captured.out
    assert list((tmp_path / "cache").iterdir()) == []    # no model trained for nothing
    assert out.read_text() == '{"ttt_engine": "tournament", "format": 1}\n'


def test_tournament_bad_input(tmp_path, capsys):
    # without --game: the first game of the game list
    assert main(["tournament", "--agents", "mcts,nope", "--quiet"]) == 2
    assert "unknown agent 'nope' for ttt: choose from perfect, q, alphabeta, mcts" in \
        capsys.readouterr().err
    assert main(["tournament", "--game", "uttt", "--agents", "mcts,nope", "--quiet"]) == 2
    assert "unknown agent 'nope' for uttt: choose from treeq, sarsa, mcts" in capsys.readouterr().err
    assert main(["tournament", "--agents", "mcts,random", "--games", "0"]) == 2
    assert "--games" in capsys.readouterr().err
    assert main(["tournament", "--agents", "mcts"]) == 2
    assert "at least two" in capsys.readouterr().err
    foreign = tmp_path / "notes.jsonl"
    foreign.write_text("my notes\n")
    assert main(TOURNEY + ["--workers", "1", "--out", str(foreign)]) == 2
    err = capsys.readouterr().err
    assert "refusing to use results file" in err and "left unchanged" in err
    assert err.count("\n") == 1 and foreign.read_text() == "my notes\n"


def test_tournament_resume_with_other_options_is_a_usage_error(tmp_path, capsys):
    out = tmp_path / "r.jsonl"
    argv = ["tournament", "--game", "ttt", "--agents", "mcts,random", "--games", "2",
            "--simulations", "20", "--quiet", "--workers", "1", "--out", str(out)]
    assert main(argv) == 0
    capsys.readouterr()
    content = out.read_bytes()
    for other, needle in [(["--agents", "random,mcts"],
                           "entrants are 'mcts', 'random' in this order, and 'random', 'mcts'"),
                          (["--simulations", "30"], "simulations is 20 there and 30 here")]:
        assert main(argv + other) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and needle in err, err
        assert out.read_bytes() == content


def test_tournament_plays_the_az_engine_with_a_network_file(tmp_path, capsys):
    """``--network`` gives the az engine the user's network (the results file
    records it, and the games are played); a file of another game, a missing
    file or a list without az is one line before any game."""
    from ttt_engine.network import Network
    net = Network.init("connect4", hidden=(8,), seed=1)
    mine = tmp_path / "mine.npz"
    net.save(mine)
    base = ["tournament", "--game", "connect4", "--agents", "az,random", "--simulations", "8",
            "--games", "2", "--seed", "3", "--quiet", "--bootstrap", "10", "--workers", "1"]
    out = tmp_path / "r.jsonl"
    assert main(base + ["--network", str(mine), "--out", str(out)]) == 0
    lines = out.read_text().splitlines()
    assert json.loads(lines[0])["entrants"]["az"]["kwargs"] == {"network": str(mine)}
    assert len(lines) == 3              # the header and the two games
    capsys.readouterr()
    other = tmp_path / "uttt.npz"
    Network.init("uttt", hidden=(8,), seed=1).save(other)
    assert main(base + ["--network", str(other)]) == 2
    err = capsys.readouterr().err
    assert "--network: " in err and "not for Connect Four" in err and err.count("\n") == 1
    assert main(base[:4] + ["mcts,random"] + base[5:] + ["--network", str(mine)]) == 2
    assert "--network applies to the az and best engine(s) of Connect Four" in \
        capsys.readouterr().err
    assert main(base + ["--network", str(tmp_path / "none.npz")]) == 1
    assert "none.npz" in capsys.readouterr().err


def test_unreachable_scheduler_is_a_clear_error(capsys):
    pytest.importorskip("distributed")
    code = main(TOURNEY + ["--scheduler", "tcp://127.0.0.1:9"])
    err = capsys.readouterr().err
    assert code == 1
    assert "cannot reach the Dask scheduler at tcp://127.0.0.1:9 within 5 s" in err


def test_sweep_table_csv_plot(tmp_path, capsys):
    args = ["sweep", "--alpha", "0.1,0.3", "--gamma", "0.9", "--episodes", "2e3,1e4",
            "--repeats", "2", "--seed", "1", "--workers", "2", "--quiet",
            "--csv", str(tmp_path / "s.csv"), "--out", str(tmp_path / "s.jsonl")]
    pytest.importorskip("matplotlib")
    assert main(args + ["--plot", str(tmp_path / "s.png")]) == 0
    text = capsys.readouterr().out
    assert "optimal (mean)" in text and "never loses" in text
    assert len([x for x in text.splitlines() if x.startswith(("0.1 ", "0.3 "))]) == 4
    csv_lines = (tmp_path / "s.csv").read_text().splitlines()
    assert csv_lines[0].startswith("alpha,gamma,episodes,repeat,seed,optimality")
    assert len(csv_lines) == 9
    assert (tmp_path / "s.png").read_bytes()[:4] == b"\x89PNG"
    assert main(["sweep", "--alpha", "0,0.1", "--repeats", "1"]) == 2
    assert "--alpha values must be in (0, 1], got 0" in capsys.readouterr().err
    assert main(["sweep", "--episodes", "1e5,x"]) == 2
    capsys.readouterr()


def test_ctrl_c_stops_workers_and_the_rerun_resumes(tmp_path):
    import os
    import signal
    import subprocess
    import sys
    import time
    out = tmp_path / "r.jsonl"
    cmd = [sys.executable, "-m", "ttt_engine", "tournament", "--game", "uttt", "--agents",
           "mcts,treeq,random", "--simulations", "1500", "--games", "6", "--block", "1",
           "--workers", "2", "--seed", "2", "--quiet", "--bootstrap", "0", "--out", str(out)]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    p = subprocess.Popen(cmd, env=env, start_new_session=True, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    try:
        for _ in range(2400):                     # until the first game is in the file
            if out.exists() and out.read_text().count("\n") >= 2:
                break
            time.sleep(0.05)
        os.killpg(p.pid, signal.SIGINT)           # what Ctrl-C sends: the whole group
        _, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 130, err
    assert "run the same command again to resume" in err and "Traceback" not in err, err
    for _ in range(100):                          # the worker processes are gone too
        try:
            os.killpg(p.pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    else:
        pytest.fail("worker processes survived Ctrl-C")
    kept = out.read_text().splitlines()
    assert 2 <= len(kept) < 19
    assert subprocess.run(cmd, env=env, capture_output=True).returncode == 0
    lines = out.read_text().splitlines()
    assert lines[:len(kept)] == kept and len(lines) == 19


def test_tournament_from_an_opening_suite(tmp_path, capsys):
    out = tmp_path / "o.jsonl"
    args = ["tournament", "--game", "ttt", "--agents", "perfect,random", "--games", "4",
            "--openings", "2", "--seed", "1", "--quiet", "--bootstrap", "0", "--workers", "1",
            "--out", str(out)]
    assert main(args) == 0
    assert "from 2 openings played twice each" in capsys.readouterr().out
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert len(lines[0]["openings"]) == 2 and [r["opening"] for r in lines[1:]] == [0, 0, 1, 1]
    assert main(["tournament", "--game", "ttt", "--agents", "perfect,random",
                 "--opening-plies", "3", "--quiet"]) == 2
    assert "--opening-plies needs --openings" in capsys.readouterr().err


def test_games_must_fit_the_opening_suite(capsys):
    args = ["tournament", "--game", "ttt", "--agents", "perfect,random", "--openings", "2",
            "--seed", "1", "--quiet", "--workers", "1", "--bootstrap", "0"]
    assert main(args + ["--games", "5"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.strip() == ("ttt-engine: error: --games must be a multiple of 4 with "
                                    "--openings 2 (each opening once with each colour), got 5")
    assert main(args + ["--games", "8"]) == 0
    assert "from 2 openings played 4 times each" in capsys.readouterr().out
    # without --games, the suite once with each colour
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "4 games per pair" in out and "from 2 openings played twice each" in out


def test_intervals_none_without_resamples_and_na_without_variance(capsys):
    args = ["tournament", "--game", "ttt", "--agents", "perfect,random", "--games", "4",
            "--seed", "1", "--quiet", "--workers", "1"]
    assert main(args + ["--bootstrap", "0"]) == 0
    out = capsys.readouterr().out
    assert "resamples" not in out and "Elo (OpenSpiel's MM fit, lowest = 0):" in out
    assert "[" not in out.split("Elo (")[1]
    assert main(args + ["--bootstrap", "100"]) == 0        # perfect wins all 4 games
    out = capsys.readouterr().out
    assert "[n/a]" in out and "the bootstrap gives no interval" in out
    assert "[645, 645]" not in out and "| 645 [n/a] |" in out


@pytest.mark.parametrize("args,needle", [
    (["--x", "alpha", "--y", "alpha", "--plot", "p.png"],
     "--x and --y must be two different parameters, got alpha for both"),
    (["--x", "gamma"], "--x applies only with --plot"),
    (["--y", "gamma"], "--y applies only with --plot"),
    (["--alpha", "0.1,0.1"], "argument --alpha: lists 0.1 twice"),
    (["--episodes", "10,1e1"], "argument --episodes: lists 10 twice"),
])
def test_sweep_refuses_one_parameter_twice(args, needle, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["sweep", "--repeats", "1", "--workers", "1", "--quiet", *args]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and len(captured.err.splitlines()) == 1
    assert captured.err.startswith("ttt-engine: error: ") and needle in captured.err
    assert list(tmp_path.iterdir()) == []


def test_sweep_refuses_a_results_file_of_another_run_as_usage(tmp_path, capsys):
    out = tmp_path / "r.jsonl"
    out.write_text('{"ttt_engine": "tournament", "format": 1}\n')
    assert main(["sweep", "--repeats", "1", "--workers", "1", "--quiet",
                 "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "refusing to use results file" in err, err
    assert out.read_text() == '{"ttt_engine": "tournament", "format": 1}\n'


def test_the_q_entrant_plays_the_cached_model_as_eval_does(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("TTT_ENGINE_CACHE_DIR", str(tmp_path / "cache"))
    out = tmp_path / "r.jsonl"
    args = ["tournament", "--game", "ttt", "--agents", "q,random", "--games", "2", "--seed",
            "1", "--quiet", "--workers", "1", "--bootstrap", "0", "--out", str(out)]
    (tmp_path / "cache").mkdir()
    model = tmp_path / "cache" / "ttt-q.npz"
    model.write_text("junk\n")
    assert main(args) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and len(captured.err.splitlines()) == 1
    assert f"the model file {model} of the q engine cannot be used" in captured.err
    assert "('ttt-engine eval --game ttt --engine q --retrain' trains a new one)" in captured.err
    assert not out.exists() and model.read_text() == "junk\n"
    model.unlink()
    assert main(args) == 0                      # trained once, saved, then played
    assert "Training a tabular Q-learning model" in capsys.readouterr().out
    header = json.loads(out.read_text().splitlines()[0])
    assert header["entrants"]["q"]["kwargs"] == {"model": str(model)}
    out.unlink()
    assert main(args) == 0
    assert f"Loaded the tabular Q-learning model from {model}" in capsys.readouterr().out
