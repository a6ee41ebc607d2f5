"""The console frontend, driven as a user would: ``python -m ttt_engine`` in a real
pseudo-terminal (pexpect) or with piped stdin."""
import os
import re
import subprocess
import sys

import pytest

import pexpect   # in the [test] extra: a missing one must fail, not skip

import ttt_engine
from ttt_engine.ttt import Board

# The child processes must import the same ttt_engine as this test process: the
# installed package in CI, the in-place build under PYTHONPATH=python when developing.
PYDIR = os.path.dirname(os.path.dirname(os.path.abspath(ttt_engine.__file__)))
CMD = [sys.executable, "-m", "ttt_engine"]
PROMPT = r"Your move \((X|O)\) \[1-9\]: "
ANSI = re.compile(r"\x1b\[[0-9;]*m")
TIMEOUT = 30


@pytest.fixture
def env(tmp_path):
    e = dict(os.environ)
    e["PYTHONPATH"] = PYDIR + os.pathsep + e.get("PYTHONPATH", "")
    e["TTT_ENGINE_CACHE_DIR"] = str(tmp_path / "cache")
    e["NO_COLOR"] = "1"
    e["TERM"] = "xterm"
    e.pop("XDG_CACHE_HOME", None)
    return e


def spawn(args, env, **kw):
    child = pexpect.spawn(CMD[0], CMD[1:] + args, env=env, encoding="utf-8",
                          timeout=TIMEOUT, dimensions=(50, 120), **kw)
    return child


def finish(child):
    child.expect(pexpect.EOF)
    child.close()
    return child.exitstatus, child.signalstatus


def run(args, env, stdin="", timeout=60):
    return subprocess.run(CMD + args, input=stdin, capture_output=True, text=True, env=env,
                          timeout=timeout)


# ------------------------------------------------------------------ --help
@pytest.mark.parametrize("sub,needles", [
    (None, ["play", "train", "eval", "clobber", "quixo"]),
    ("play", ["--game", "--opponent", "--watch", "--time", "--simulations", "--depth",
              "--heuristic", "--side", "--first", "--verbose", "--seed", "--retrain",
              "--train-episodes", "--model", "phone keypad", "TTT_ENGINE_CACHE_DIR",
              "perfect"]),
    ("train", ["--episodes", "--alpha", "--gamma", "--epsilon", "--epsilon-decay",
               "--epsilon-min", "--side", "--shaping", "--seed", "--out", "--plot"]),
    ("eval", ["--model", "--engine", "--against", "--games", "--side"]),
    ("clobber", ["basic", "extended", "board"]),
    ("quixo", ["stage"]),
])
def test_help(sub, needles, env):
    r = run(([sub] if sub else []) + ["--help"], env)
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""
    for n in needles:
        assert n in r.stdout, f"{n!r} missing from {sub} --help"


@pytest.mark.parametrize("sub", ["play", "eval"])
def test_seed_help_names_the_budgets_it_holds_for(sub, env):
    """Same seed, same games holds for simulation and depth budgets only: a
    time budget depends on the machine."""
    text = " ".join(run([sub, "--help"], env).stdout.split())
    assert "same seed, same games with --simulations or --depth budgets" in text
    assert "--time budgets (and best's default thinking time) depend on the machine" in text


def test_eval_shows_progress_on_a_terminal(env):
    """A long evaluation is never silent on a terminal: a bar with the games done
    (and the time left); --quiet turns it off."""
    args = ["eval", "--engine", "random", "--against", "random", "--games", "3", "--seed", "1"]
    child = spawn(args, env)
    child.expect(r"6/6")
    child.expect("total")
    assert finish(child)[0] == 0
    child = spawn(args + ["--quiet"], env)
    child.expect("total")
    assert "6/6" not in child.before
    assert finish(child)[0] == 0


def test_bad_option_is_one_line_usage_error(env):
    r = run(["play", "--opponent", "nonsense"], env)
    assert r.returncode == 2
    assert "Traceback" not in r.stderr
    assert "not an engine of Tic-Tac-Toe" in r.stderr
    r = run(["play", "--time", "-1"], env)
    assert r.returncode == 2 and "Traceback" not in r.stderr


# ------------------------------------------------------------------ whole games
def _play_as(child, mirror, me, engine_name):
    """Play the first free cell each turn, mirror every move; return the result line."""
    while True:
        i = child.expect([PROMPT, rf"{engine_name} \((X|O)\) plays (\d)",
                          r"(\w wins: [^\r\n]*|Draw\.)"])
        if i == 0:
            assert child.match.group(1) == me == mirror.to_move
            cell = mirror.legal_moves[0]
            mirror.push(cell)
            child.sendline(str(cell + 1))
        elif i == 1:
            assert child.match.group(1) == mirror.to_move != me
            mirror.push(int(child.match.group(2)) - 1)
        else:
            return child.match.group(1)


def test_whole_game_against_perfect_engine(env):
    child = spawn(["play", "--opponent", "perfect", "--first", "alternate"], env)
    child.expect("phone keypad")
    for me in ("X", "O"):   # 'alternate': you are X in game 1, O in game 2
        mirror = Board()
        line = _play_as(child, mirror, me, "perfect")
        assert mirror.is_terminal()
        # the announced result is the real one, and the perfect engine never loses
        expected = "Draw." if mirror.winner == "draw" else f"{mirror.winner} wins"
        assert line.startswith(expected)
        assert mirror.winner != me
        child.expect(r"Score: you 0, perfect \d, draws \d")
        child.expect(r"Play again\? \[y/N\] ")
        child.sendline("y" if me == "X" else "n")
    child.expect("Bye.")
    status, sig = finish(child)
    assert status == 0 and sig is None


def test_bad_inputs_get_a_reason_and_the_prompt_again(env):
    child = spawn(["play", "--opponent", "perfect"], env)
    child.expect(PROMPT)
    child.sendline("5")
    child.expect(r"perfect \(O\) plays (\d)")
    taken = child.match.group(1)
    cases = [
        ("abc", r"'abc' is not a .*cell number"),
        ("", r"empty input"),
        ("   ", r"empty input"),
        ("0", r"0 is out of range: cells are numbered 1-9"),
        ("10", r"10 is out of range"),
        ("-3", r"-3 is out of range"),
        ("4.5", r"'4.5' is not a .*cell number"),
        ("5", r"cell 5 is already taken by X"),
        (taken, rf"cell {taken} is already taken by O"),
        ("y", r"'y' is not a .*cell number"),
    ]
    child.expect(PROMPT)
    for text, reason in cases:
        child.sendline(text)
        child.expect(r"Not a legal move: ([^\r\n]*)\r?\n")
        assert re.search(reason, child.match.group(1)), (text, child.match.group(1))
        child.expect(PROMPT)   # asked again
    child.sendline("?")
    child.expect(r"Legal moves: ([\d, ]+)")
    legal = [int(x) for x in child.match.group(1).split(",")]
    assert 5 not in legal and int(taken) not in legal and len(legal) == 7
    child.expect(PROMPT)
    child.sendline("q")
    child.expect("Bye.")
    status, _ = finish(child)
    assert status == 0
    assert "Traceback" not in child.before


def test_ctrl_d_mid_game_exits_0(env):
    child = spawn(["play"], env)
    child.expect(PROMPT)
    child.sendline("1")
    child.expect(PROMPT)
    child.sendeof()
    child.expect("End of input")
    out = child.before
    status, sig = finish(child)
    assert status == 0 and sig is None
    assert "Traceback" not in out + (child.before or "")


def test_ctrl_c_mid_game_exits_130(env):
    child = spawn(["play"], env)
    child.expect(PROMPT)
    child.sendintr()
    child.expect("Interrupted")
    status, sig = finish(child)
    assert status == 130 and sig is None
    assert "Traceback" not in child.before


def test_zero_based_numbering(env):
    child = spawn(["play", "--zero-based"], env)
    child.expect("Cells are numbered 0-8")
    child.expect(r"Your move \(X\) \[0-8\]: ")
    child.sendline("9")
    child.expect("9 is out of range: cells are numbered 0-8")
    child.sendline("0")
    child.expect(r"perfect \(O\) plays")
    child.sendline("q")
    assert finish(child)[0] == 0


# ------------------------------------------------------------------ q engine: train, save, load
def test_q_engine_first_run_trains_and_saves_second_run_loads(env, tmp_path):
    cache = tmp_path / "cache"
    args = ["play", "--opponent", "q", "--train-episodes", "20000", "--seed", "3"]
    child = spawn(args, env)
    child.expect("No saved [^\r\n]*Q-learning model")
    child.expect("Training a [^\r\n]*Q-learning model")
    child.expect(r"saved to ([^\r\n]*) \(the next run loads it at once\)")
    path = child.match.group(1)
    assert os.path.isfile(path)
    assert os.path.dirname(path) == str(cache)
    child.expect(PROMPT)
    child.sendline("q")
    assert finish(child)[0] == 0

    child = spawn(args, env)
    i = child.expect(["Loaded the [^\r\n]*Q-learning model", "Training"])
    assert i == 0
    child.expect(PROMPT)
    child.sendline("q")
    assert finish(child)[0] == 0

    # a corrupt file: said so, retrain offered; declining exits 1 with one line
    with open(path, "wb") as f:
        f.write(b"this is not a model")
    child = spawn(args, env)
    child.expect("cannot be used")
    child.expect(r"Train a new model and overwrite it\? \[Y/n\] ")
    child.sendline("n")
    child.expect("no usable [^\r\n]*Q-learning model")
    status, _ = finish(child)
    assert status == 1 and "Traceback" not in child.before
    # accepting retrains and plays
    child = spawn(args, env)
    child.expect(r"\[Y/n\] ")
    child.sendline("")
    child.expect("saved to")
    child.expect(PROMPT)
    child.sendline("q")
    assert finish(child)[0] == 0


def test_retrain_forces_a_new_model(env, tmp_path):
    model = str(tmp_path / "m.npz")
    args = ["play", "--opponent", "q", "--model", model, "--train-episodes", "20000"]
    r = run(args, env, stdin="n\n")      # a missing --model file: asked first
    assert r.returncode == 1 and "No model file at" in r.stdout and not os.path.exists(model)
    r = run(args, env, stdin="y\nq\n")
    assert r.returncode == 0 and os.path.isfile(model) and "Training" in r.stdout
    r = run(args, env, stdin="q\n")
    assert "Loaded" in r.stdout and "Training" not in r.stdout
    r = run(args + ["--retrain"], env, stdin="q\n")
    assert "Training" in r.stdout


# ------------------------------------------------------------------ colours
def test_colours_only_on_a_terminal_and_not_with_no_color(env):
    r = run(["play"], env | {"NO_COLOR": ""}, stdin="5\nq\n")
    assert r.returncode == 0
    assert not ANSI.search(r.stdout) and "│" not in r.stdout
    assert " 5\n" in r.stdout or "5\n" in r.stdout  # the typed move is echoed when piped

    colour_env = dict(env)
    colour_env.pop("NO_COLOR")
    child = spawn(["play"], colour_env)
    child.expect(r"Your move")
    text = child.before
    child.sendline("q")
    finish(child)
    assert ANSI.search(text) and "┌" in text

    child = spawn(["play"], env)   # NO_COLOR=1 on a terminal
    child.expect(r"Your move")
    text = child.before
    child.sendline("q")
    finish(child)
    assert not ANSI.search(text)


# ------------------------------------------------------------------ watch / eval
def test_watch_engine_vs_engine(env):
    r = run(["play", "--watch", "random", "--opponent", "perfect", "--games", "3",
             "--seed", "1", "--verbose", "--first", "alternate"], env)
    assert r.returncode == 0, r.stderr
    assert r.stdout.count("Score:") == 3
    assert re.search(r"Score: random \(watched\) 0, perfect \d, draws \d\s*$", r.stdout)
    # --verbose: the perfect engine's exact value of its move, and the time
    assert re.search(r"perfect \((X|O)\) plays \d  \[exact value: (draw|win in \d+ pl(y|ies)), "
                     r"[\d.]+ ms\]", r.stdout)
    assert "exact value: loss" not in r.stdout


def test_watch_shows_the_network_guided_engine_thinking(env):
    """--verbose shows the UTTT preset's (the network-guided search's) simulations
    and the value of its move, as for MCTS."""
    r = run(["play", "--game", "uttt", "--watch", "random", "--opponent", "best", "--time",
             "0.02", "--games", "1", "--seed", "2", "--verbose"], env)
    assert r.returncode == 0, r.stderr
    assert re.search(r"best \((X|O)\) plays \d, \d  \[[\d,]+ simulations, [\d,.]+/s, "
                     r"[\d,]+ nodes, value [+-][\d.]+ \([\d,]+ visits\)", r.stdout), r.stdout


def test_eval_table(env):
    r = run(["eval", "--engine", "perfect", "--against", "random", "--games", "30",
             "--seed", "2"], env)
    assert r.returncode == 0, r.stderr
    rows = {line.split()[2]: line.split() for line in r.stdout.splitlines()
            if line.startswith("perfect as")}
    assert set(rows) == {"X", "O"}
    for row in rows.values():
        assert row[3] == "30" and row[6] == "0"  # games, losses


# ------------------------------------------------------------------ the other games
def _reasons(stdout):
    return [line.split("Not a legal move: ", 1)[1] for line in stdout.splitlines()
            if "Not a legal move: " in line]


def test_uttt_bad_inputs_and_forced_board(env):
    child = spawn(["play", "--game", "uttt", "--opponent", "random", "--seed", "5"], env)
    child.expect(r"Your move \(X\) \[R, C\]: ")
    child.sendline("4, 4")
    child.expect(r"random \(O\) plays (\d), (\d)")
    child.expect(r"X must play in board (\d) \(rows")
    forced = int(child.match.group(1))
    other = next(b for b in range(9) if b not in (forced, 4))
    outside = f"{(other // 3) * 3}, {(other % 3) * 3}"
    cases = [
        ("4, 4", "the cell is occupied by X"),
        (outside, f"X must play in local board {forced}"),
        ("9, 0", "off the grid"),
        ("x", "cannot parse move 'x'"),
        ("", "empty input"),
    ]
    for text, reason in cases:
        child.expect(r"Your move \(X\) \[R, C\]: ")
        child.sendline(text)
        child.expect(r"Not a legal move: ([^\r\n]*)")
        assert reason in child.match.group(1), (text, child.match.group(1))
    child.expect(r"Your move")
    child.sendline("q")
    assert finish(child)[0] == 0


def test_clobber_bad_inputs(env):
    r = run(["play", "--game", "clobber", "--opponent", "random", "--seed", "5"], env,
            stdin="a1-a2\na2-b2\nb1-b2\nc1-c1\nzz\nf1-f2\n\nq\n")
    assert r.returncode == 0, r.stderr
    assert "    a b c d e" in r.stdout and " 6  " in r.stdout     # coordinates on the edges
    reasons = _reasons(r.stdout)
    assert len(reasons) == 6, reasons
    assert "b2 holds your own stone" in reasons[0]
    assert "the stone on b1 is W's; you play B" in reasons[1]
    assert "not a step to an orthogonal neighbour" in reasons[2]
    assert "cannot read square" in reasons[3]
    assert "f1 is off the 6x5 board" in reasons[4]
    assert "empty input" in reasons[5]


def test_quixo_bad_inputs(env):
    r = run(["play", "--game", "quixo", "--opponent", "random", "--seed", "5"], env,
            stdin="c3T\na1T\nb2R\na1X\nfoo\n\na1R\na4R\nq\n")
    assert r.returncode == 0, r.stderr
    reasons = _reasons(r.stdout)
    assert len(reasons) == 7, reasons
    assert "only cubes on the outer ring" in reasons[0]
    assert "cannot be pushed back in from its own edge" in reasons[1]   # push from its side
    assert "only cubes on the outer ring" in reasons[2]
    assert "sides T/B/L/R" in reasons[3]
    assert "bad move 'foo'" in reasons[4]
    assert "empty input" in reasons[5]
    assert "the cube on a4 shows O" in reasons[6]                      # not your cube


def test_quixo_greedy_engine_collects_values_once(env, tmp_path):
    args = ["play", "--game", "quixo", "--opponent", "greedy", "--train-episodes", "2000",
            "--seed", "1"]
    r = run(args, env, stdin="a1R\nq\n")
    assert r.returncode == 0, r.stderr
    assert "Scoring the states of 2,000 random games" in r.stdout
    assert (tmp_path / "cache" / "quixo-states-5x5.npz").is_file()
    r = run(args, env, stdin="q\n")
    assert "Loaded Quixo state values" in r.stdout and "Scoring" not in r.stdout


def test_delegated_subcommands(env):
    r = run(["clobber", "--help"], env)
    assert r.returncode == 0 and "basic" in r.stdout and "extended" in r.stdout
    r = run(["clobber", "basic", "-"], env, stdin="B W B\nW B W\n")
    assert r.returncode == 0, r.stderr
    assert "Winner:" in r.stdout and "Rounds:" in r.stdout and "nodes" in r.stderr
    r = run(["clobber", "basic", "-"], env, stdin="B W Q\n")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    r = run(["quixo", "stages", "a", "--games-a", "200", "--no-progress", "--seed", "1"], env)
    assert r.returncode == 0, r.stderr
    assert "X wins" in r.stdout


# ------------------------------------------------------------------ train / eval
def test_train_then_eval_model(env, tmp_path):
    model = tmp_path / "m.npz"
    r = run(["train", "--episodes", "300000", "--side", "X", "--seed", "1", "--out", str(model),
             "--eval-games", "2000", "--quiet"], env)
    assert r.returncode == 0, r.stderr
    assert model.is_file()
    assert re.search(r"episodes\s+300,000", r.stdout)
    assert re.search(r"greedy as X vs random\s+2,000", r.stdout)
    r = run(["eval", "--model", str(model), "--against", "random", "--games", "200",
             "--side", "X", "--seed", "1"], env)
    assert r.returncode == 0, r.stderr
    row = next(line.split() for line in r.stdout.splitlines() if line.startswith("model"))
    assert row[3:5] == ["X", "200"]
    r = run(["eval", "--model", str(tmp_path / "missing.npz")], env)
    assert r.returncode == 1 and "no model file" in r.stderr and "Traceback" not in r.stderr
    r = run(["train", "--alpha", "2", "--quiet"], env)
    assert r.returncode == 2 and "alpha" in r.stderr and "Traceback" not in r.stderr


def test_train_plot(env, tmp_path):
    png = tmp_path / "curves.png"
    r = run(["train", "--episodes", "200000", "--out", str(tmp_path / "m.npz"),
             "--plot", str(png), "--eval-games", "0", "--quiet"], env)
    assert r.returncode == 0, r.stderr                # matplotlib is in the [test] extra
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (tmp_path / "m.npz").is_file()
