"""The exit statuses of docs/cli.md's table, one run of each kind of case, in several
commands: the table and the commands agree (130, Ctrl-C, is tests/test_cli_interrupt.py's)."""
import os
import re
import subprocess
import sys

import pytest

from conftest import ROOT

PREFIX = "ttt-engine: error: "


def run(args, env, prelude=None, stdin=""):
    if prelude:
        cmd = [sys.executable, "-c", prelude + "; import sys; from ttt_engine.cli import main; "
               f"sys.exit(main({args!r}))"]
    else:
        cmd = [sys.executable, "-m", "ttt_engine", *args]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300,
                          input=stdin)


def _table():
    text = open(os.path.join(ROOT, "docs", "cli.md"), encoding="utf-8").read()
    return dict(re.findall(r"^\| (\d+) \| (.+) \|$", text, re.M))


def test_the_table_names_every_status():
    table = _table()
    assert set(table) == {"0", "1", "2", "130"}
    assert "missing" in table["1"] and "extra" in table["2"] and "--force" in table["2"]
    assert "network file that is not one" in table["2"]


def _error(r, code, *needles):
    assert r.returncode == code, (r.returncode, r.stdout[-400:], r.stderr)
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(PREFIX), r.stderr
    for n in needles:
        assert n in lines[0], (n, lines[0])


@pytest.fixture
def junk(tmp_path):
    p = tmp_path / "junk.npz"
    p.write_text("not a network\n")
    return str(p)


# ---------------------------------------------------------------- 0: done
def test_done_is_0(cli_env):
    r = run(["play", "--watch", "random", "--opponent", "random", "--games", "1", "--seed", "1"],
            cli_env)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    r = run(["play", "--opponent", "random", "--seed", "1"], cli_env, stdin="q\n")
    assert r.returncode == 0, r.stderr


# ---------------------------------------------------------------- 1: the work cannot be done
@pytest.mark.parametrize("args, needle", [
    (["eval", "--model", "MISSING/q.npz"], "no model file"),
    (["play", "--opponent", "az", "--network", "MISSING/n.npz", "--games", "1"], "no such file"),
    (["train", "--episodes", "1000", "--out", "MISSING/sub/q.npz"], "q.npz"),
])
def test_missing_files_are_1(cli_env, tmp_path, args, needle):
    args = [a.replace("MISSING", str(tmp_path / "nowhere")) for a in args]
    _error(run(args, cli_env), 1, needle)


# ---------------------------------------------------------------- 2: bad usage
def test_a_file_that_is_no_network_is_2(cli_env, junk):
    _error(run(["play", "--opponent", "az", "--network", junk, "--games", "1"], cli_env), 2,
           "--network")
    _error(run(["az", "eval", "--network", junk], cli_env), 2, "--network")


@pytest.mark.parametrize("args, blocked, extra", [
    (["serve", "--port", "0"], "starlette", "[web]"),
    (["az", "train", "--out", "OUT"], "jax", "[nn]"),
    (["train", "--episodes", "1000", "--plot", "OUT"], "matplotlib", "[plot]"),
])
def test_a_missing_extra_is_2(cli_env, tmp_path, args, blocked, extra):
    args = [a.replace("OUT", str(tmp_path / "out")) for a in args]
    r = run(args, cli_env, prelude=f"import sys; sys.modules[{blocked!r}] = None")
    _error(r, 2, extra)
    assert not os.path.exists(tmp_path / "out")


@pytest.mark.parametrize("args, what", [
    (["train", "--episodes", "1000", "--out", "OUT"], "model file"),
    (["play", "--watch", "random", "--opponent", "random", "--games", "1", "--save", "OUT"],
     "record file"),
    (["tournament", "--agents", "random,mcts", "--games", "2", "--simulations", "10",
      "--json", "OUT"], "summary file"),
])
def test_an_existing_output_needs_force(cli_env, tmp_path, args, what):
    """One overwrite rule: an output file that exists is refused (2) and left as it is;
    --force replaces it."""
    out = tmp_path / "out"
    out.write_text("keep me\n")
    args = [a.replace("OUT", str(out)) for a in args]
    _error(run(args, cli_env), 2, what, "exists: --force replaces it")
    assert out.read_text() == "keep me\n"
    r = run([*args, "--force"], cli_env)
    assert r.returncode == 0, r.stderr
    assert out.read_bytes() != b"keep me\n"


def test_an_existing_book_file_needs_force(cli_env, tmp_path):
    """The opening book's --out follows the same rule (refused before any solve);
    --partial reads the file back on purpose and is not refused."""
    out = tmp_path / "book.bin"
    out.write_text("keep me\n")
    _error(run(["connect4", "book", "--plies", "1", "--out", str(out)], cli_env), 2,
           "book file", "exists: --force replaces it")
    assert out.read_text() == "keep me\n"
    r = run(["connect4", "book", "--plies", "1", "--out", str(out), "--partial"], cli_env)
    assert "exists: --force" not in r.stderr


def test_bad_options_are_2(cli_env):
    _error(run(["play", "--games", "0"], cli_env), 2, "--games")
    _error(run(["play", "--game", "chess"], cli_env), 2, "chess")
