"""docs/cli.md and docs/cli-sessions.md show real runs: docs/cli_examples.py runs every example again and
compares (timings and rates aside), so the page cannot drift from the tool."""
import os
import subprocess
import sys

import ttt_engine

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PYDIR = os.path.dirname(os.path.dirname(os.path.abspath(ttt_engine.__file__)))


def test_cli_md_examples_match_real_runs():
    env = dict(os.environ, PYTHONPATH=PYDIR + os.pathsep + os.environ.get("PYTHONPATH", ""))
    r = subprocess.run([sys.executable, os.path.join(ROOT, "docs", "cli_examples.py"),
                        "--check"], capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stderr


def test_the_check_sees_a_drift():
    sys.path.insert(0, os.path.join(ROOT, "docs"))
    try:
        import cli_examples
    finally:
        sys.path.pop(0)
    shown = "Trained in 1.5 s; 20,000 simulations, 448,272/s, 44.8 ms]\nx  |   y"
    assert cli_examples.mask(shown) == cli_examples.mask(
        "Trained in 12.25 s; 20,000 simulations, 1,448,272/s, 4.8 ms]\nx | y")
    assert cli_examples.mask(shown) != cli_examples.mask(
        "Trained in 1.5 s; 20,001 simulations, 448,272/s, 44.8 ms]\nx | y")
    assert cli_examples.mask("Q-learning: 100%|#| 10.0M/10.0M [00:02<00:00, 4.77Mep/s]") == \
        cli_examples.mask("Q-learning: 100%|#| 10.0M/10.0M [00:03<00:00, 2.61Mep/s]")
