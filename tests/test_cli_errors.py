"""The console tool under bad input and bad outputs: every failure is one line
``ttt-engine: error: ...`` on stderr with the exit status of its kind (1 the work
cannot be done, 2 bad usage), never a traceback, and nothing is computed before
an output that cannot be written is refused."""
import os
import subprocess
import sys
import textwrap

import pytest


CMD = [sys.executable, "-m", "ttt_engine"]
PREFIX = "ttt-engine: error: "


@pytest.fixture
def env(cli_env):
    return cli_env


def run(args, env, stdin="", timeout=120, **kw):
    return subprocess.run(CMD + args, input=stdin, capture_output=True, text=True, env=env,
                          timeout=timeout, **kw)


def one_line_error(r, code, *needles):
    """``r`` failed with ``code`` and exactly one line on stderr, the prefixed error."""
    out = r.stdout or ""
    assert r.returncode == code, (r.returncode, out[-500:], r.stderr)
    lines = r.stderr.splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith(PREFIX), lines[0]
    assert "Traceback" not in r.stderr + out
    for n in needles:
        assert n in lines[0], (n, lines[0])
    return lines[0]


def unwritable_folder(tmp_path):
    """A folder this process cannot create files in (``/proc`` for root, who can
    write into any permission-protected folder)."""
    if os.geteuid() == 0:
        return "/proc"
    d = tmp_path / "locked"
    d.mkdir()
    d.chmod(0o555)
    return str(d)


# ------------------------------------------------------------------ big numbers
@pytest.mark.parametrize("args,option", [
    (["play", "--simulations", "99999999999999999999"], "--simulations"),
    (["play", "--games", "1e20"], "--games"),
    (["play", "--watch", "random", "--delay", "1e308"], "--delay"),
    (["play", "--time", "1e400"], "--time"),
    (["play", "--seed", str(2**70)], "--seed"),
    (["eval", "--games", "1e20"], "--games"),
    (["train", "--episodes", "1e30"], "--episodes"),
    (["train", "--alpha", "nan"], "--alpha"),
    (["quixo", "stages", "--games-a", "99999999999999999999"], "--games-a"),
    (["clobber", "basic", "--size", "4x4", "--depth", "1e9"], "--depth"),
])
def test_huge_numbers_are_one_line_usage_errors(args, option, env):
    one_line_error(run(args, env), 2, option)


@pytest.mark.parametrize("value", ["0", "-1", "true", "True", "1.5"])
def test_counts_have_one_range_message_and_refuse_booleans(value, env):
    line = one_line_error(run(["play", "--games", value], env), 2)
    assert "--games: must be an integer from 1 to 1,000,000,000" in line


# ------------------------------------------------------------------ closed or full output
def test_full_disk_is_one_line(env):
    with open("/dev/full", "w") as full:
        r = subprocess.run(CMD + ["play", "--watch", "random", "--games", "2", "--seed", "1"],
                           stdout=full, stderr=subprocess.PIPE, text=True, env=env, timeout=60)
    one_line_error(r, 1, "cannot write the output", "No space left on device")
    with open("/dev/full", "w") as full:
        r = subprocess.run(CMD + ["--help"], stdout=full, stderr=subprocess.PIPE, text=True,
                           env=env, timeout=60)
    one_line_error(r, 1, "cannot write the output")


def test_closed_pipe_is_one_line(env):
    # like `ttt-engine play --watch random --games 200 | head -1`
    p = subprocess.Popen(CMD + ["play", "--watch", "random", "--games", "200", "--seed", "1"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    p.stdout.readline()
    p.stdout.close()
    err = p.stderr.read()
    p.wait(timeout=60)
    r = subprocess.CompletedProcess(p.args, p.returncode, "", err)
    one_line_error(r, 1, "cannot write the output: the output is closed")


# ------------------------------------------------------------------ board files
@pytest.mark.parametrize("args", [
    ["clobber", "basic", "/dev/zero"],
    ["play", "--game", "clobber", "--board", "/dev/zero"],
    ["play", "--game", "quixo", "--board", "/dev/zero"],
    ["play", "--game", "uttt", "--board", "/dev/zero"],
])
def test_dev_zero_is_not_a_board_file_and_is_not_read_whole(args, env):
    # the peak memory of the command alone: measured by a parent that runs nothing else
    probe = textwrap.dedent(f"""
        import resource, subprocess, sys
        r = subprocess.run({CMD + args!r}, capture_output=True, text=True)
        sys.stderr.write(r.stderr)
        print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
    """)
    r = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env,
                       timeout=120)
    code, max_rss_kib = map(int, r.stdout.split())
    one_line_error(subprocess.CompletedProcess(args, code, "", r.stderr), 2,
                   "/dev/zero is not a board file")
    assert max_rss_kib < 50 * 1024


def test_missing_board_file_same_code_and_prefix_everywhere(env, tmp_path):
    missing = str(tmp_path / "missing.txt")
    lines = [one_line_error(run(args, env), 1, "cannot read the board file", missing)
             for args in (["clobber", "basic", missing], ["clobber", "extended", missing],
                          ["play", "--game", "clobber", "--board", missing],
                          ["play", "--game", "quixo", "--board", missing],
                          ["play", "--game", "uttt", "--board", missing],
                          ["play", "--board", missing])]
    assert len(set(lines)) == 1


@pytest.mark.parametrize("game,text,where", [
    ("quixo", "XO.X.\n..Q..\n.....\n.....\n.....\n", "line 2, column 3"),
    ("uttt", "." * 40 + "\n" + "." * 20 + "Z" + "." * 20 + ":*\n", "line 2, column 21"),
    ("clobber", "B W\nW\n", "line 2, column 2"),
    ("ttt", "X..\n.Q.\n...\n", "line 2, column 2"),
])
def test_board_file_errors_say_line_and_column(game, text, where, env, tmp_path):
    p = tmp_path / "b.txt"
    p.write_text(text)
    line = one_line_error(run(["play", "--game", game, "--board", str(p)], env), 2,
                          f"{p} is not a valid board: {where}")
    assert text.strip() not in line          # the file is not echoed whole


def test_bad_board_from_stdin_and_file_agree(env, tmp_path):
    p = tmp_path / "b.txt"
    p.write_text("B W Q\n")
    a = one_line_error(run(["clobber", "basic", str(p)], env), 2, "line 1, column 5")
    b = one_line_error(run(["clobber", "basic", "-"], env, stdin="B W Q\n"), 2,
                       "standard input is not a valid board: line 1, column 5")
    assert a.split(": ", 2)[2] == b.split(": ", 2)[2].replace("standard input", str(p))


# ------------------------------------------------------------------ outputs checked first
def test_train_out_folder_is_refused_before_training(env, tmp_path):
    # no --quiet: a training would print its progress bar on stderr
    one_line_error(run(["train", "--out", str(tmp_path)], env), 2, "is a folder")
    missing = tmp_path / "no" / "such" / "m.npz"
    one_line_error(run(["train", "--out", str(missing)], env), 1, "does not exist")
    assert not (tmp_path / "no").exists()                 # never created silently
    locked = unwritable_folder(tmp_path)
    one_line_error(run(["train", "--out", os.path.join(locked, "m.npz")], env), 1,
                   "cannot write the model file")
    one_line_error(run(["train", "--out", str(tmp_path / "m.npz"), "--plot",
                        os.path.join(locked, "c.png")], env), 1, "cannot write the plot")
    assert not (tmp_path / "m.npz").exists()
    one_line_error(run(["train", "--out", "/dev/full"], env), 2, "not a regular file")


def test_q_engine_with_an_unwritable_cache_fails_before_training(env, tmp_path):
    locked = unwritable_folder(tmp_path)
    r = run(["play", "--opponent", "q", "--train-episodes", "20000"],
            env | {"TTT_ENGINE_CACHE_DIR": os.path.join(locked, "cache")})
    one_line_error(r, 1, "cache")
    assert "Training" not in r.stdout
    # a missing cache folder is created, and the console says so
    r = run(["play", "--opponent", "q", "--train-episodes", "20000"], env, stdin="q\n")
    assert r.returncode == 0, r.stderr
    assert f"Created the folder {tmp_path / 'cache'}" in r.stdout


def test_quixo_stages_out_dir_checked_first(env, tmp_path):
    one_line_error(run(["quixo", "stages", "b", "--out-dir", str(tmp_path / "nope")], env), 1,
                   "does not exist")
    assert not (tmp_path / "nope").exists()
    one_line_error(run(["quixo", "stages", "c", "--out-dir", str(tmp_path)], env), 1,
                   "run stage B first")
    one_line_error(run(["quixo", "stages", "xyz"], env), 2, "stages must be letters")


# ------------------------------------------------------------------ options that do not apply
@pytest.mark.parametrize("args,needle", [
    (["play", "--size", "3"], "--size does not apply to Tic-Tac-Toe"),
    (["play", "--game", "uttt", "--size", "3"], "--size does not apply"),
    (["play", "--game", "uttt", "--zero-based"], "--zero-based does not apply"),
    (["play", "--game", "quixo", "--zero-based"], "--zero-based does not apply"),
    (["play", "--opponent", "perfect", "--simulations", "100"],
     "--simulations does not apply to the perfect engine of Tic-Tac-Toe"),
    (["play", "--heuristic", "safe"], "--heuristic does not apply"),
    (["play", "--game", "quixo", "--opponent", "mcts", "--depth", "3"], "--depth does not apply"),
    (["play", "--game", "clobber", "--opponent", "random", "--time", "1"], "--time does not"),
    (["play", "--model", "m.npz"], "--model does not apply"),
    (["play", "--game", "uttt", "--opponent", "mcts", "--network", "n.npz"],
     "--network does not apply to the mcts engine of Ultimate Tic-Tac-Toe"),
    (["play", "--game", "quixo", "--opponent", "best", "--network", "n.npz"],
     "--network does not apply to the best engine of Quixo"),
    (["play", "--retrain"], "--retrain does not apply"),
    (["play", "--delay", "1"], "--delay applies to watching"),
    (["eval", "--game", "clobber", "--model", "m.npz"], "--model does not apply to Clobber"),
    (["eval", "--engine", "random", "--depth", "2"], "--depth does not apply"),
    (["play", "--game", "clobber", "--size", "9x9"], "--size"),
    (["play", "--game", "quixo", "--size", "4x5"], "--size"),
    (["play", "--board", "b.txt", "--game", "quixo", "--size", "4"], "not both"),
])
def test_options_that_do_not_apply_are_refused(args, needle, env):
    one_line_error(run(args, env), 2, needle)


def test_a_network_file_for_az_is_read_and_checked_before_any_move(tmp_path, env):
    """``--network`` plays the az engine with the user's own network (here a
    Clobber 4x4 one, where the shipped network plays 6x5 only); a file of another
    game, a missing file or one that is no network is one line before any move."""
    from ttt_engine.network import Network
    mine = tmp_path / "clobber44.npz"
    Network.init("clobber", hidden=(8,), seed=1, rows=4, cols=4).save(mine)
    r = run(["play", "--game", "clobber", "--size", "4x4", "--watch", "az", "--opponent",
             "random", "--network", str(mine), "--simulations", "20", "--games", "1",
             "--seed", "1"], env)
    assert r.returncode == 0, r.stderr
    assert "az (watched)" in r.stdout and "Score:" in r.stdout
    line = one_line_error(run(["play", "--game", "clobber", "--opponent", "az", "--network",
                               str(mine)], env), 2, f"--network {mine}: this network is for "
                          "Clobber (cols=4, rows=4)", "not for Clobber: observations 2x6x5")
    assert "Board" not in line
    # a missing file is work that cannot be done: exit 1, as in every command
    one_line_error(run(["play", "--game", "uttt", "--opponent", "az", "--network",
                        str(tmp_path / "none.npz")], env), 1, "--network", "none.npz",
                   "no such file")
    one_line_error(run(["tournament", "--game", "uttt", "--agents", "az,random",
                        "--network", str(tmp_path / "none.npz")], env), 1, "no such file")
    text = tmp_path / "notes.npz"
    text.write_text("not a network\n")
    one_line_error(run(["play", "--game", "uttt", "--opponent", "az", "--network", str(text)],
                       env), 2, "--network", "not a ttt_engine model")


def test_long_input_is_not_echoed_whole(env):
    r = run(["play", "--opponent", "x" * 500], env)
    line = one_line_error(r, 2, "is not an engine of Tic-Tac-Toe")
    assert len(line) < 200
    for game in ("ttt", "uttt", "clobber", "quixo"):
        r = run(["play", "--game", game, "--opponent", "random"], env, stdin="a" * 500 + "\nq\n")
        assert r.returncode == 0, r.stderr
        reasons = [x for x in r.stdout.splitlines() if x.startswith("Not a legal move")]
        assert len(reasons) == 1 and len(reasons[0]) < 160 and "500 characters" in reasons[0]


# ------------------------------------------------------------------ game texts
def test_clobber_legend_and_errors_use_the_real_board(env):
    r = run(["play", "--game", "clobber", "--size", "4x4", "--opponent", "random", "--seed",
             "1"], env, stdin="?\ne1-e2\nq\n")
    assert r.returncode == 0, r.stderr
    assert "columns a-d, rows 1-4" in r.stdout
    assert "e1 is off the 4x4 board (columns a-d, rows 1-4)" in r.stdout
    assert "a-h" not in r.stdout and "1-8" not in r.stdout


def test_quixo_intro_says_how_to_quit(env):
    r = run(["play", "--game", "quixo", "--opponent", "random"], env, stdin="q\n")
    assert r.returncode == 0, r.stderr
    intro = r.stdout.split("Your move")[0]
    assert "q quits" in intro


# ------------------------------------------------------------------ learned engines' files
def _q_file(path):
    import ttt_engine
    ttt_engine.train(2000, seed=1, progress=False).save(path)
    return path


@pytest.mark.parametrize("game,engine,kind", [("ttt", "q", "network"),
                                              ("quixo", "greedy", "qagent")])
def test_a_model_file_of_another_kind_is_refused_never_overwritten(game, engine, kind, env,
                                                                   tmp_path):
    """Enter at the overwrite question would replace someone's network or Q
    model: a readable file of another kind is one line, before any question."""
    import shutil
    import ttt_engine
    path = tmp_path / "other.npz"
    if kind == "network":
        shutil.copy(os.path.join(os.path.dirname(ttt_engine.__file__), "networks", "ttt.npz"),
                    path)
    else:
        _q_file(path)
    before = path.read_bytes()
    r = run(["play", "--game", game, "--opponent", engine, "--model", str(path)], env,
            stdin="\nq\n")
    one_line_error(r, 2, str(path), "left untouched")
    assert "overwrite" not in r.stdout
    assert path.read_bytes() == before


def test_end_of_input_at_the_overwrite_question_declines(env, tmp_path):
    """The question comes before any work: end of input is "no" (exit 1), not a
    finished run (exit 0 with no table)."""
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / "ttt-q.npz").write_bytes(b"junk")
    r = run(["eval", "--engine", "q", "--games", "10"], env, stdin="")
    one_line_error(r, 1, "no usable")
    assert (cache / "ttt-q.npz").read_bytes() == b"junk"


def test_train_episodes_with_a_saved_model_are_not_silently_ignored(env, tmp_path):
    model = _q_file(tmp_path / "q.npz")
    r = run(["play", "--opponent", "q", "--model", str(model), "--train-episodes", "1000"],
            env, stdin="q\n")
    assert r.returncode == 0 and "--train-episodes is not used" in r.stdout, r.stderr
    for option in (["--train-episodes", "1000"], ["--retrain"]):
        r = run(["eval", "--model", str(model), *option], env)
        one_line_error(r, 2, option[0], "--model")
    # the model trained for one side is the one the other side plays: trained once, no note
    r = run(["eval", "--engine", "q", "--train-episodes", "2000", "--retrain", "--games", "2"],
            env)
    assert r.returncode == 0, r.stderr
    assert r.stdout.count("Training") == 1 and "not used" not in r.stdout


# ------------------------------------------------------------------ empty values
@pytest.mark.parametrize("args,needle", [
    (["train", "--out", ""], "--out"),
    (["train", "--plot", ""], "--plot"),
    (["train", "--episodes", "0"], "--episodes"),
    (["play", "--opponent", ""], "--opponent"),
    (["eval", "--engine", ""], "--engine"),
    (["play", "--opponent", "q", "--model", ""], "--model"),
    (["play", "--from", ""], "--from"),
    (["play", "--save", ""], "--save"),
    (["play", "--board", ""], "--board"),
])
def test_empty_values_are_refused_not_read_as_left_out(args, needle, env):
    r = run(args, env, stdin="q\n")
    one_line_error(r, 2, needle)
    assert not os.path.exists(os.path.join(env["TTT_ENGINE_CACHE_DIR"], "ttt-q.npz"))


# ------------------------------------------------------------------ play: start and record
@pytest.mark.parametrize("target,code", [("missing/x.txt", 1), (".", 2), ("/dev/full", 2)])
def test_play_save_is_checked_before_the_game(target, code, env, tmp_path):
    r = run(["play", "--watch", "random", "--games", "1", "--save", target], env,
            cwd=tmp_path)
    one_line_error(r, code, "record file")
    assert "wins" not in r.stdout and "Draw" not in r.stdout


def test_play_save_writes_the_record(env, tmp_path):
    out = tmp_path / "rec.txt"
    r = run(["play", "--watch", "random", "--games", "1", "--seed", "3", "--save", str(out)],
            env)
    assert r.returncode == 0, r.stderr
    assert out.read_text().startswith("game: ttt\n")
    assert [p.name for p in tmp_path.iterdir()] == ["rec.txt"]     # no temporary file left


def test_from_must_agree_with_an_explicit_game(env, tmp_path):
    rec = tmp_path / "rec.txt"
    rec.write_text("game: connect4\nmoves: 4453\n")
    one_line_error(run(["play", "--game", "uttt", "--from", str(rec), "--watch", "random",
                        "--games", "1"], env), 2, "--game uttt", "Connect Four")
    r = run(["play", "--game", "connect4", "--from", str(rec), "--watch", "random", "--games",
             "1", "--seed", "1"], env)
    assert r.returncode == 0, r.stderr


def test_from_a_missing_file_says_so(env, tmp_path):
    line = one_line_error(run(["play", "--from", "nosuchfile.txt", "--watch", "random",
                               "--games", "1"], env, cwd=tmp_path), 2, "no such file")
    assert "nosuchfile.txt" in line


@pytest.mark.parametrize("args,needle", [
    (["--board", "ttt3.txt"], "--board 'ttt3.txt'"),
    (["--game", "clobber", "--size", "1x1"], "--size '1x1'"),
    (["--from", "game: ttt\nmoves: 1 4 2 5 3\n"], "--from"),
])
def test_a_finished_start_names_the_option_that_gave_it(args, needle, env, tmp_path):
    (tmp_path / "ttt3.txt").write_text("XXXOO....")
    one_line_error(run(["play", *args, "--watch", "random", "--games", "1"], env,
                       cwd=tmp_path), 2, needle, "already over")


def test_piped_input_is_echoed_cut(env):
    r = run(["play", "--opponent", "random"], env, stdin="a" * 100_000 + "\nq\n")
    assert r.returncode == 0, r.stderr
    assert max(len(line) for line in r.stdout.splitlines()) < 200


@pytest.mark.parametrize("args,needle", [
    (["--mode", "self-play", "--side", "O"], "--side applies to --mode random or curriculum"),
    (["--mode", "random", "--curriculum-fraction", "0.5"], "--curriculum-fraction applies"),
    (["--mode", "self-play", "--curriculum-epsilon", "0.5"], "--curriculum-epsilon applies"),
])
def test_train_refuses_an_option_its_mode_ignores(args, needle, env, tmp_path):
    out = tmp_path / "m.npz"
    r = run(["train", "--episodes", "1000", "--out", str(out), *args], env)
    one_line_error(r, 2, needle)
    assert "Training" not in r.stdout and not out.exists()
