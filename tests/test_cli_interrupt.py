"""Ctrl-C during an engine's long search: the console tool stops within a second
and exits 130, as docs/cli.md promises (the searches notice a pending signal)."""
import re
import time

from conftest import interrupt


def test_ctrl_c_during_a_500m_simulation_engine_move_exits_130_within_1_s(spawn_cli):
    child = spawn_cli(["play", "--game", "uttt", "--opponent", "mcts",
                       "--simulations", "500000000"], dimensions=(50, 120))
    child.expect(r"Your move \(X\) \[R, C\]: ")
    child.sendline("4, 4")
    child.expect("O must play in board 4")      # drawn: the engine's search has begun
    child.expect(r"mcts \(O\) is thinking\.\.\. \(Ctrl-C stops\)", timeout=10)
    out, elapsed = interrupt(child, timeout=1)
    assert child.exitstatus == 130 and child.signalstatus is None
    assert "Interrupted" in out and "Traceback" not in out
    assert elapsed < 1.0


def test_ctrl_c_during_training_exits_130(spawn_cli, tmp_path):
    out = tmp_path / "m.npz"
    child = spawn_cli(["train", "--episodes", "1e11", "--out", str(out)], dimensions=(50, 120))
    child.expect("Training 100,000,000,000 episodes")   # training has begun
    time.sleep(0.5)
    text, _ = interrupt(child, timeout=30)
    assert child.exitstatus == 130 and "Interrupted" in text and "Traceback" not in text
    assert not out.exists()                     # nothing half-trained was saved


def test_ctrl_c_during_eval_prints_the_games_finished(monkeypatch, capsys):
    """An interrupted evaluation reports the games it finished before exiting 130
    (a slow engine's hours are not thrown away)."""
    from ttt_engine.cli import eval as eval_cmd
    from ttt_engine.cli import main

    class Bar:                  # Ctrl-C after the 13th game of 20
        n = 0

        def update(self, k):
            Bar.n += k
            if Bar.n == 13:
                raise KeyboardInterrupt

        def close(self):
            pass

    monkeypatch.setattr(eval_cmd, "_progress_bar", lambda *a: Bar())
    code = main(["eval", "--engine", "random", "--against", "random", "--games", "10",
                 "--side", "both", "--seed", "1"])
    out, err = capsys.readouterr()
    assert code == 130 and "Interrupted." in err
    assert "interrupted after 13 of 20 games" in out
    rows = dict(re.findall(r"^(random as X|random as O \(interrupted\)|total) +([\d,]+) ",
                           out, re.M))
    assert rows == {"random as X": "10", "random as O (interrupted)": "3", "total": "13"}
