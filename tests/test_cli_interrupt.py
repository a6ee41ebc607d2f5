"""Ctrl-C during an engine's long search: the console tool stops within a second
and exits 130, as docs/cli.md promises (the searches notice a pending signal)."""
import os
import sys
import time

import pexpect

import ttt_engine

PYDIR = os.path.dirname(os.path.dirname(os.path.abspath(ttt_engine.__file__)))


def test_ctrl_c_during_a_500m_simulation_engine_move_exits_130_within_1_s(tmp_path):
    env = dict(os.environ, PYTHONPATH=PYDIR + os.pathsep + os.environ.get("PYTHONPATH", ""),
               TTT_ENGINE_CACHE_DIR=str(tmp_path / "cache"), NO_COLOR="1", TERM="xterm")
    child = pexpect.spawn(sys.executable, ["-m", "ttt_engine", "play", "--game", "uttt",
                                           "--opponent", "mcts", "--simulations", "500000000"],
                          env=env, encoding="utf-8", timeout=60, dimensions=(50, 120))
    try:
        child.expect(r"Your move \(X\) \[R, C\]: ")
        child.sendline("4, 4")
        child.expect("O must play in board 4")      # drawn: the engine's search has begun
        time.sleep(0.5)
        child.sendintr()
        t0 = time.monotonic()
        child.expect(pexpect.EOF, timeout=1)
        elapsed = time.monotonic() - t0
        out = child.before
        child.close()
        assert child.exitstatus == 130 and child.signalstatus is None
        assert "Interrupted" in out and "Traceback" not in out
        assert elapsed < 1.0
    finally:
        if child.isalive():
            child.terminate(force=True)


def test_ctrl_c_during_training_exits_130(tmp_path):
    env = dict(os.environ, PYTHONPATH=PYDIR + os.pathsep + os.environ.get("PYTHONPATH", ""),
               TTT_ENGINE_CACHE_DIR=str(tmp_path / "cache"), NO_COLOR="1", TERM="xterm")
    out = tmp_path / "m.npz"
    child = pexpect.spawn(sys.executable, ["-m", "ttt_engine", "train", "--episodes", "1e11",
                                           "--out", str(out)],
                          env=env, encoding="utf-8", timeout=60, dimensions=(50, 120))
    try:
        child.expect("Training 100,000,000,000 episodes")   # training has begun
        time.sleep(0.5)
        child.sendintr()
        child.expect(pexpect.EOF, timeout=30)
        text = child.before
        child.close()
        assert child.exitstatus == 130 and "Interrupted" in text and "Traceback" not in text
        assert not out.exists()                     # nothing half-trained was saved
    finally:
        if child.isalive():
            child.terminate(force=True)
