"""Shared helpers of the Python layer: validation, seeds, atomic writes."""
import os

import pytest

from ttt_engine._util import atomic_write, check_choice, check_int, check_real, resolve_seed


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


def test_validators_name_the_parameter():
    with pytest.raises(ValueError, match=r"alpha must be in \(0, 1\]"):
        check_real("alpha", 0, low=0, high=1, low_open=True)
    with pytest.raises(ValueError, match="finite"):
        check_real("gamma", float("nan"), low=0, high=1)
    with pytest.raises(ValueError, match="episodes must be >= 0"):
        check_int("episodes", -3, min=0)
    assert check_int("episodes", 1e6, min=0) == 1_000_000
    with pytest.raises(ValueError, match="side must be one of"):
        check_choice("side", "x", ("X", "O", "random"))
