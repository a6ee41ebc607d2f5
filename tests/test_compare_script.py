"""bench/compare_openspiel.py: command line and the no-OpenSpiel exit (no timing here)."""
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(ROOT, "bench", "compare_openspiel.py")


def _run(*args, block_openspiel=False):
    code = "import runpy, sys\n"
    if block_openspiel:
        code += "sys.modules['pyspiel'] = None\n"  # makes `import pyspiel` raise ImportError
    code += f"sys.argv = {[SCRIPT, *args]!r}\nrunpy.run_path({SCRIPT!r}, run_name='__main__')\n"
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, timeout=60)


def test_missing_openspiel_exits_3_with_message():
    r = _run("--quick", block_openspiel=True)
    assert r.returncode == 3
    assert "OpenSpiel is not installed" in r.stderr
    assert "Traceback" not in r.stderr


def test_list_rows():
    r = _run("--list")
    assert r.returncode == 0
    assert "q_random" in r.stdout and "ab_clobber_d4" in r.stdout


@pytest.mark.parametrize("args", [["--rounds", "0"], ["--only", "nonsense"], ["--rounds", "x"]])
def test_bad_arguments_exit_2(args):
    r = _run(*args)
    assert r.returncode == 2
    assert "Traceback" not in r.stderr


def test_quick_row_runs_when_openspiel_installed(tmp_path):
    pytest.importorskip("pyspiel", reason="OpenSpiel not installed (pip install '.[compare]')")
    out = tmp_path / "c.json"
    r = _run("--quick", "--rounds", "1", "--min-time", "0", "--no-sanity",
             "--only", "playouts_ttt", "ab_ttt_plain", "--json", str(out))
    assert r.returncode == 0, r.stderr
    assert "| TTT random playouts | games |" in r.stdout
    assert "18,297" in r.stdout          # OpenSpiel's alpha-beta node count for the TTT solve
    import json
    data = json.loads(out.read_text())
    assert {row["key"] for row in data["rows"]} == {"playouts_ttt", "ab_ttt_plain"}
    assert all(row["openspiel"] and row["ttt_engine"] for row in data["rows"])
