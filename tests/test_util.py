"""Shared helpers of the Python layer: validation, seeds, atomic writes."""
import os
import re

import pytest

from ttt_engine._util import (atomic_write, board_arguments, check_bool, check_choice, check_int,
                              check_real, resolve_seed)


def test_atomic_write_replaces_whole_file_with_umask_permissions(tmp_path):
    path = tmp_path / "model.bin"
    path.write_bytes(b"old")
    old_umask = os.umask(0o022)
    try:
        atomic_write(path, lambda f: f.write(b"new contents"))
    finally:
        os.umask(old_umask)
    assert path.read_bytes() == b"new contents"
    assert (path.stat().st_mode & 0o777) == 0o644
    assert os.listdir(tmp_path) == ["model.bin"]          # no temporary left behind


def test_atomic_write_failure_keeps_the_old_file(tmp_path):
    path = tmp_path / "model.bin"
    path.write_bytes(b"good")

    def crash(f):
        f.write(b"half")
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError):
        atomic_write(path, crash)
    assert path.read_bytes() == b"good"
    assert os.listdir(tmp_path) == ["model.bin"]


@pytest.mark.parametrize("bad", [-1, 2**64, 1.5, "7", True])
def test_resolve_seed_rejects_bad_seeds(bad):
    with pytest.raises(ValueError, match="seed"):
        resolve_seed(bad)


def test_resolve_seed_keeps_given_seed_and_draws_fresh_ones():
    assert resolve_seed(42) == 42
    assert resolve_seed(None) != resolve_seed(None)


def test_check_bool_takes_python_and_numpy_bools_only():
    import numpy as np
    assert check_bool("flag", np.True_) is True and check_bool("flag", False) is False
    for bad in ("no", 0, 1, None, 1.0):
        with pytest.raises(ValueError, match=f"^flag must be True or False, got {re.escape(repr(bad))}$"):
            check_bool("flag", bad)


def test_board_arguments_refuse_what_the_board_does_not_take():
    d = {"rows": 6, "cols": 5}
    assert board_arguments("clobber.Board", (4,), {"cols": 3}, d) == {"rows": 4, "cols": 3}
    with pytest.raises(ValueError, match="has no option 'colls'.*did you mean 'cols'"):
        board_arguments("clobber.Board", (), {"colls": 3}, d)
    with pytest.raises(ValueError, match=r"takes at most 2 argument\(s\) \(rows, cols\), got 3"):
        board_arguments("clobber.Board", (1, 2, 3), {}, d)
    with pytest.raises(ValueError, match="got rows twice"):
        board_arguments("clobber.Board", (4,), {"rows": 3}, d)


def test_validators_name_the_parameter():
    with pytest.raises(ValueError, match=r"alpha must be in \(0, 1\]"):
        check_real("alpha", 0, low=0, high=1, low_open=True)
    with pytest.raises(ValueError, match=r"gamma must be in \[0, 1\], got nan"):
        check_real("gamma", float("nan"), low=0, high=1)
    with pytest.raises(ValueError, match="finite number > 0, got inf"):
        check_real("c", float("inf"), low=0, low_open=True)
    with pytest.raises(ValueError, match="episodes must be an integer >= 0"):
        check_int("episodes", -3, min=0)
    assert check_int("episodes", 1e6, min=0) == 1_000_000
    with pytest.raises(ValueError, match="side must be one of"):
        check_choice("side", "x", ("X", "O", "random"))


# ------------------------------------------------------- the one writer of every saved file
def _savers(tmp_path):
    """Every way the package saves a file, as ``name -> save(path)``."""
    import numpy as np

    import ttt_engine
    from ttt_engine import clobber, quixo
    from ttt_engine.plot import plot_history
    from ttt_engine.tree_agents import TreeQAgent
    q = ttt_engine.QAgent(np.zeros((19683, 9)))
    table = quixo.ValueTable(size=3)
    hist = [{"episodes": 10, "wins": 1, "draws": 0, "losses": 0, "epsilon": 0.1}]
    return {
        "QAgent.save": q.save,
        "TreeQAgent.save": TreeQAgent(simulations=10, seed=1).save,
        "GreedyValueAgent.save": quixo.GreedyValueAgent(table).save,
        "quixo.save_values": lambda p: quixo.save_values(table, p),
        "quixo.save_values json": lambda p: quixo.save_values(table, p, format="json"),
        "clobber certificate": lambda p: clobber.solve(clobber.Board(2, 3), certificate=p),
        "clobber board file": clobber.Board(2, 3).write_file,
        "plot_history": lambda p: plot_history(hist, p),
        "atomic_write": lambda p: atomic_write(p, lambda f: f.write(b"x")),
    }


SAVERS = ["QAgent.save", "TreeQAgent.save", "GreedyValueAgent.save", "quixo.save_values",
          "quixo.save_values json", "clobber certificate", "clobber board file", "plot_history",
          "atomic_write"]


@pytest.mark.parametrize("name", SAVERS)
def test_every_saver_leaves_a_fifo_a_folder_and_a_device_untouched(name, tmp_path):
    import stat
    save = _savers(tmp_path)[name]
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "keep").write_text("k")
    for path, kind in ((fifo, "a FIFO"), (folder, "a folder"), ("/dev/null", "a character device")):
        with pytest.raises(OSError) as info:
            save(str(path))
        msg = str(info.value)
        assert str(path) in msg and kind in msg and "\n" not in msg and ".tmp-" not in msg
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert os.listdir(folder) == ["keep"]
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    assert sorted(os.listdir(tmp_path)) == ["folder", "pipe"]     # no temporary left


@pytest.mark.parametrize("name", SAVERS)
def test_every_saver_refuses_a_missing_folder_and_a_non_path(name, tmp_path):
    save = _savers(tmp_path)[name]
    missing = tmp_path / "nodir" / "x.npz"
    with pytest.raises(FileNotFoundError, match="folder .*nodir does not exist"):
        save(str(missing))
    assert not (tmp_path / "nodir").exists()
    with pytest.raises(TypeError, match="must be a str or os.PathLike, got int"):
        save(5)
    with pytest.raises(ValueError, match="path is empty"):
        save("")
    save(str(tmp_path / "ok.out"))
    assert (tmp_path / "ok.out").stat().st_size > 0


def test_a_missing_folder_is_named_as_given(tmp_path, monkeypatch):
    """A relative path's missing folder is named as the user typed it (the console
    prints this line), not made absolute."""
    from ttt_engine._util import check_output_path
    monkeypatch.chdir(tmp_path)
    with pytest.raises(FileNotFoundError) as info:
        check_output_path("no/such/m.npz", "model file")
    assert str(info.value) == ("cannot write the model file no/such/m.npz: the folder "
                               "no/such does not exist; create it first")


def test_a_symbolic_link_is_kept_and_its_file_replaced(tmp_path):
    target = tmp_path / "real.bin"
    target.write_bytes(b"old")
    link = tmp_path / "link.bin"
    link.symlink_to(target)
    atomic_write(link, lambda f: f.write(b"new"))
    assert link.is_symlink() and target.read_bytes() == b"new"
    os.symlink("/dev/null", tmp_path / "to-null")
    with pytest.raises(OSError, match="to-null: it is a character device"):
        atomic_write(tmp_path / "to-null", lambda f: f.write(b"x"))


def test_write_errors_name_the_users_path_not_the_temporary(tmp_path):
    def disk_full(f):
        raise OSError(28, "No space left on device", str(tmp_path / ".tmp-abc"))
    with pytest.raises(OSError) as info:
        atomic_write(tmp_path / "m.npz", disk_full, "model file")
    assert str(info.value) == f"cannot write the model file {tmp_path / 'm.npz'}: " \
                              "No space left on device"
    assert os.listdir(tmp_path) == []


# ------------------------------------------------------------- one rule per input
@pytest.mark.parametrize("bad", [1e300, float("inf"), -1, 0, float("nan"), 86400.5])
def test_time_budgets_have_one_rule_and_one_message(bad):
    from ttt_engine import MCTS, Board, search, uttt
    from ttt_engine.agents import MCTSAgent
    from ttt_engine.tournament import round_robin
    from ttt_engine.tree_agents import TreeQAgent
    rule = "must be a number of seconds in (0, 86400]"
    calls = [lambda: MCTSAgent(time=bad), lambda: TreeQAgent(time=bad),
             lambda: MCTS(seed=1).search(Board(), time=bad),
             lambda: search.alphabeta(Board(), time_limit=bad),
             lambda: uttt.solve(uttt.Board(), time_limit=bad),
             lambda: round_robin("ttt", ["random", "perfect"], 1, time_per_move=bad)]
    for call in calls:
        with pytest.raises(ValueError) as info:
            call()
        assert rule in str(info.value), str(info.value)
    from ttt_engine.cli._options import seconds
    import argparse
    with pytest.raises(argparse.ArgumentTypeError, match=re.escape(rule)):
        seconds()(repr(bad))


def test_integer_ranges_are_stated_whole():
    with pytest.raises(ValueError, match="simulations must be an integer from 1 to "
                                         "1,000,000,000,000, got 0"):
        check_int("simulations", 0, min=1, max=10**12)
    with pytest.raises(ValueError, match=r"seed must be an integer from 0 to "
                                         r"18,446,744,073,709,551,615 \(or None"):
        resolve_seed(-1)
