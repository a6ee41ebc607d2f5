"""ruff (configured in pyproject.toml) finds nothing in the tree."""
import pathlib
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent


def _ruff():
    exe = shutil.which("ruff")
    if exe:
        return [exe]
    try:
        import ruff  # noqa: F401
    except ImportError:
        pytest.fail("ruff is not installed: it is part of the [test] extra")
    return [sys.executable, "-m", "ruff"]


def test_ruff_check_is_clean():
    if not (ROOT / "pyproject.toml").exists():
        pytest.skip("not run from a source checkout")
    out = subprocess.run([*_ruff(), "check", "--output-format", "concise", "."], cwd=ROOT,
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
