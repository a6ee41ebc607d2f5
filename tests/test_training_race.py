"""bench/training_race.py and bench/networks_match.py: the comparison of training
runs (when each reaches a level, against the first) and their command lines."""
import json
import os
import subprocess
import sys

from conftest import PYDIR

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RACE = os.path.join(ROOT, "bench", "training_race.py")
MATCH = os.path.join(ROOT, "bench", "networks_match.py")


def _run(script, *args, cwd=None):
    env = dict(os.environ, PYTHONPATH=PYDIR)
    return subprocess.run([sys.executable, script, *args], capture_output=True, text=True,
                          env=env, timeout=300, cwd=cwd)


def _log(path, points):
    """A metrics log with evaluations ``(seconds, policy_keeps)`` and a record between."""
    with open(path, "w") as f:
        for i, (t, v) in enumerate(points):
            f.write(json.dumps({"iteration": 2 * i + 1, "seconds": t,
                                "eval_policy_keeps": v, "eval_score": 0.5}) + "\n")
            f.write(json.dumps({"iteration": 2 * i + 2, "seconds": t + 1}) + "\n")


def test_the_race_reports_when_each_run_reaches_the_level(tmp_path):
    _log(tmp_path / "a.metrics.jsonl", [(0, 0.6), (600, 0.7), (1200, 0.8)])
    _log(tmp_path / "b.metrics.jsonl", [(0, 0.6), (300, 0.75), (600, 0.82)])
    _log(tmp_path / "c.metrics.jsonl", [(0, 0.5), (1200, 0.7)])
    r = _run(RACE, "base=a.metrics.jsonl", "b.metrics.jsonl", "late=c.metrics.jsonl",
             "--target", "0.8", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    rows = {line.split("|")[1].strip(): [c.strip() for c in line.split("|")[2:-1]]
            for line in r.stdout.splitlines() if line.startswith("| ") and "---" not in line}
    assert rows["base"][-2:] == ["20.0", "1.00"]       # 0.8 at 20 minutes
    assert rows["b"][-2:] == ["10.0", "0.50"]          # the label is the file's stem
    assert rows["late"][-2:] == ["never", "-"]
    assert r.stdout.splitlines()[0] == "eval_policy_keeps"
    # judged by the mean of the last two evaluations, b reaches 0.78 only at 10 min
    # and the baseline never (0.75 at most): no ratio to give
    r = _run(RACE, "a.metrics.jsonl", "b.metrics.jsonl", "--target", "0.78", "--smooth", "2",
             cwd=tmp_path)
    assert "| a | 20.0 | 3 | 0.750 | 0.750 | never | - |" in r.stdout
    assert "| b | 10.0 | 3 | 0.785 | 0.785 | 10.0 | - |" in r.stdout


def test_bad_input_is_one_line(tmp_path):
    r = _run(RACE, "nothere.jsonl", cwd=tmp_path)
    assert r.returncode == 2 and r.stderr.strip().splitlines()[-1].endswith(
        "no such metrics log: nothere.jsonl")
    _log(tmp_path / "a.metrics.jsonl", [(0, 0.6)])
    r = _run(RACE, "a.metrics.jsonl", "--key", "eval_nothing", cwd=tmp_path)
    assert r.returncode == 2 and "has no 'eval_nothing' evaluation" in r.stderr
    assert "Traceback" not in r.stderr
    r = _run(MATCH, "--game", "connect4", "x", cwd=tmp_path)
    assert r.returncode == 2 and "a network is NAME=PATH, got 'x'" in r.stderr
    r = _run(MATCH, "--game", "connect4", "x=missing.npz", cwd=tmp_path)
    assert r.returncode == 2 and "no such network file: missing.npz" in r.stderr
