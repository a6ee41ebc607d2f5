"""bench/compare_openspiel.py: command line and the no-OpenSpiel exit (no timing here)."""
import os
import subprocess
import sys

import pytest
from conftest import PYDIR

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(ROOT, "bench", "compare_openspiel.py")


def _run(*args, block_openspiel=False):
    code = "import runpy, sys\n"
    if block_openspiel:
        code += "sys.modules['pyspiel'] = None\n"  # makes `import pyspiel` raise ImportError
    code += f"sys.argv = {[SCRIPT, *args]!r}\nrunpy.run_path({SCRIPT!r}, run_name='__main__')\n"
    env = dict(os.environ, PYTHONPATH=PYDIR)   # the ttt_engine these tests run against
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


# ------------------------------------------------------------ the parts, without OpenSpiel
@pytest.fixture
def compare_pkg(monkeypatch):
    monkeypatch.syspath_prepend(os.path.join(ROOT, "bench"))
    from compare import measure, report, sides
    return measure, report, sides


def test_engine_side_does_each_kind_of_work(compare_pkg):
    _, _, sides = compare_pkg
    eng = sides.Engine()
    assert eng.board("clobber").rows == 6 and eng.board("clobber").cols == 5
    r = eng.mcts("ttt", 500, seed=1)
    assert r["units"] == 500 and r["seconds"] > 0 and r["nodes_used"] > 1
    r = eng.playouts("uttt", 200, seed=1)
    res = r["result"]
    assert res["first_wins"] + res["second_wins"] + res.get("draws", 0) <= 200
    r = eng.alphabeta("ttt", None, "full")
    assert r["value"] == 0 and r["nodes"] > 0            # Tic-Tac-Toe is a draw
    r = eng.alphabeta("clobber", 2, "plain")
    assert r["nodes"] > 0
    assert eng.qlearning(1000, True, seed=1)["units"] == 1000
    s = eng.playout_sample("ttt", 2000, 20, seed=5)
    assert 5 <= s["marks_per_game"] <= 9 and -1 <= s["mean_first"] <= 1


def _fake_row(key, kind, os_rate, tte_rate):
    def m(rate):
        return {"units": rate, "seconds": 1.0, "cpu_seconds": 1.0, "calls": 1, "rate": rate,
                "cpu_rate": rate, "cpu_share": 1.0,
                "last": {"nodes": 10, "value": 0.0, "move": 4}}
    return {"key": key, "title": key.upper(), "unit": "games", "kind": kind, "note": "",
            "openspiel": [m(os_rate)] * 3, "ttt_engine": [m(tte_rate)] * 3,
            "skipped": None, "error": None, "os_nodes": 20}


def test_report_of_measurements(compare_pkg):
    _, report, _ = compare_pkg
    rows = [_fake_row("playouts_ttt", "rate", 1000.0, 50_000.0),
            _fake_row("ab_ttt_full", "search", 1.0, 4.0)]
    for r in rows:
        r["summary"] = report.summarize(r)
    assert rows[0]["summary"]["ratio"] == pytest.approx(50.0)
    assert rows[1]["summary"]["ratio"] == pytest.approx(1.0)   # same seconds per call
    info = {"date_utc": "d", "cpu": "c", "cores": 2, "usable_cores": 2,
            "load_avg_start": (0.1, 0.1, 0.1), "load_avg_end": None, "python": "3",
            "open_spiel": "1", "ttt_engine": "0", "git": None, "command": "cmd"}

    class Args:
        rounds = 3
    text = report.markdown(rows, info, Args)
    assert "| PLAYOUTS_TTT | games | 1.0 k/s | 50.0 k/s | 50.0x |" in text
    assert "| AB_TTT_FULL | 20 |" in text
    sample = {"mean_first": 0.3, "marks_per_game": 7.6}
    data = {g: {"openspiel": sample, "ttt_engine": sample} for g in ("ttt", "uttt", "clobber")}
    data["uttt"]["ttt_engine"] = {"error": "boom"}
    table = report.sanity_text(1000, 10, data)
    assert "| TTT | mean +0.3000, 7.6 marks/game | mean +0.3000" in table
    assert "error: boom" in table
