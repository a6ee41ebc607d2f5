"""The Clobber solver (ttt_engine._core.solvers.clobber.solve): results on the boards of
docs/strength.md's solved table, each technique switched off, certificates replayed by the
independent checker, the resumable runner and its command line."""
import json
import os
import re
import signal
import subprocess
import sys
import time
import zlib

import clobber_reference as ref
import pytest
from ttt_engine import clobber as C
from ttt_engine.clobber.cert import certificate_bytes, write_certificate
from ttt_engine.clobber.check_reference import CertificateError, check_certificate
from ttt_engine.clobber.settle import load_table, main, solve_board

# (rows, cols) -> the side to move wins (docs/strength.md's table; every entry under ~1 s)
KNOWN = {(1, 1): False, (1, 2): True, (1, 3): True, (1, 4): True, (1, 5): False, (1, 6): False,
         (1, 7): False, (1, 8): True, (2, 2): True, (2, 3): False, (2, 4): True, (2, 5): True,
         (2, 6): False, (2, 7): True, (2, 8): True, (3, 3): True, (3, 4): False, (3, 5): True,
         (3, 6): False, (3, 7): True, (4, 4): True, (4, 5): True}
OFF = [{"etc": False}, {"ordering": False}, {"cancel": False}, {"decompose": False},
       {"database": False}, {"outcome": False}, {"db_stones": 14},
       {"decompose": False, "database": False, "cancel": False},
       {"dfpn": True, "ab_stones": 0}, {"dfpn": True, "ab_stones": 8}]


@pytest.mark.parametrize("size", sorted(KNOWN))
def test_readme_table(size):
    r = C.solve(C.Board(*size))
    assert r.win is KNOWN[size]
    assert r.winner == ("B" if KNOWN[size] else "W")
    if r.win:
        b = C.Board(*size)
        b.push(r.best_move)
        assert C.solve(b).win is False


@pytest.mark.parametrize("cfg", OFF, ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items()))
def test_each_technique_off_same_results(cfg):
    s = C.Solver(18)
    for size in [(2, 6), (3, 4), (3, 6), (4, 4), (4, 5), (2, 8)]:
        s.clear()
        assert s.solve(C.Board(*size), **cfg).win is KNOWN[size], size
    assert s.settings["etc"] and s.settings["decompose"]        # per call only


def test_unknown_technique_names_the_valid_ones():
    with pytest.raises(TypeError, match="dfpn.*ab_stones"):
        C.Solver(10).solve(C.Board(2, 2), dfnp=True)


def test_solver_refuses_other_boards_and_its_result_pickles():
    import pickle
    from ttt_engine import games
    with pytest.raises(ValueError, match="^clobber.Solver plays Clobber, got a Tic-Tac-Toe board"):
        C.Solver(tt_bits=10).solve(games.get("ttt").new_board())
    r = C.Solver(tt_bits=10).solve(C.Board(3, 3))
    assert pickle.loads(pickle.dumps(r)) == r and r.win is True
    with pytest.raises(ValueError, match="^etc must be True or False, got 5"):
        C.solve(C.Board(3, 3), etc=5)


def test_solve_board_checks_its_board_and_resume(tmp_path):
    from ttt_engine import games
    with pytest.raises(ValueError, match="^clobber_solve.solve_board plays Clobber, got a "
                       "Tic-Tac-Toe board"):
        solve_board(games.get("ttt").new_board(), C.Solver(10))
    with pytest.raises(ValueError, match="^resume must be True or False, got 'no'"):
        solve_board(C.Board(2, 3), C.Solver(10), table=tmp_path / "t.json", resume="no")


def test_5x5_and_4x6_losses():
    s = C.Solver(22)
    assert s.solve(C.Board(5, 5)).win is False
    assert s.solve(C.Board(4, 6)).win is False


def test_sparse_positions_agree_with_reference():
    import random
    rng = random.Random(7)
    s = C.Solver(16)
    for _ in range(120):
        rows, cols = rng.randint(2, 5), rng.randint(2, 5)
        cells = [[rng.choice("BW__" if rng.random() < 0.5 else "BW_") for _ in range(cols)]
                 for _ in range(rows)]
        text = "\n".join("".join(r) for r in cells)
        for to_move in "BW":
            b = C.Board.from_string(text, to_move=to_move)
            want = ref.wins(ref.parse(text), to_move)
            for cfg in ({}, {"decompose": False, "database": False}, {"outcome": False},
                        {"dfpn": True, "ab_stones": 0}):
                assert s.solve(b, **cfg).win is want, (text, to_move, cfg)


def test_reduce_removes_zero_and_negative_pairs():
    s = C.Solver(14)
    # B W _ W B : two dominoes (*, *) cancel as a claw pair -> nothing left
    b = C.Board.from_string("BW_WB")
    a, bb, _, _ = s.reduce(*b.bitboards)
    assert a == 0 and bb == 0
    # a component and its colour-swapped mirror cancel
    b = C.Board.from_string("BBW__WWB")
    a, bb, _, _ = s.reduce(*b.bitboards)
    assert a == 0 and bb == 0


@pytest.mark.parametrize("size", [(2, 3), (3, 3), (2, 6), (3, 4), (4, 4), (3, 5), (4, 5)])
def test_certificates_check(tmp_path, size):
    s = C.Solver(18)
    b = C.Board(*size)
    path = tmp_path / "c.cert"
    write_certificate(path, b, s)
    rep = check_certificate(path)
    assert ("WIN" if KNOWN[size] else "LOSS") in rep


def test_corrupt_certificates_rejected(tmp_path):
    s = C.Solver(16)
    b = C.Board(3, 4)                        # a loss for B
    header, data, _ = certificate_bytes(b, s)
    def write(h, d):
        p = tmp_path / "x.cert"
        p.write_bytes(json.dumps(h).encode() + b"\n" + zlib.compress(d))
        return p
    assert "LOSS" in check_certificate(write(header, data))
    with pytest.raises(CertificateError):      # claim flipped
        check_certificate(write(dict(header, claim="win"), data))
    with pytest.raises(CertificateError):      # truncated
        check_certificate(write(header, data[:len(data) // 2]))
    bad = bytearray(data)
    i = bad.index(b"M")
    bad[i + 1] = (bad[i + 1] + 1) % 256        # another (illegal or losing) move
    with pytest.raises(CertificateError):
        check_certificate(write(header, bytes(bad)))


def _subproofs(data, own, opp):
    """The record spans of the proofs of the root's replies (root: an A record)."""
    from ttt_engine.clobber.check_reference import legal_moves, play
    pos = 0

    def skip(own, opp):
        nonlocal pos
        tag = chr(data[pos])
        pos += 1
        if tag == "M":
            m = data[pos]
            pos += 1
            skip(*play(own, opp, m))
        elif tag == "A":
            for m in legal_moves(own, opp):
                skip(*play(own, opp, m))
        elif tag in "ZN":
            z = int.from_bytes(data[pos:pos + 8], "little")
            if tag == "N":
                z |= int.from_bytes(data[pos + 8:pos + 16], "little")
            pos += 8 if tag == "Z" else 16
            skip(own & ~z, opp & ~z)
    assert data[:1] == b"A"
    pos = 1
    spans = []
    for m in legal_moves(own, opp):
        start = pos
        skip(*play(own, opp, m))
        spans.append(data[start:pos])
    assert pos == len(data)
    return spans


def test_certificate_refers_to_mirror_images():
    # on 2x3 (a loss for B) B's moves come in mirror-image pairs: the proof of
    # the second of each pair is a reference to the first
    s = C.Solver(16)
    b = C.Board(2, 3)
    header, data, _ = certificate_bytes(b, s)
    spans = _subproofs(data, *b.bitboards)
    assert len(spans) == 7
    assert sum(sp == b"R" for sp in spans) >= 3


def test_write_proof_refuses_a_wrong_claim_and_stops_on_request(tmp_path):
    s = C.Solver(18)
    b = C.Board(3, 4)                        # a loss for B
    own, opp = b.bitboards
    chunks = []
    with pytest.raises(ValueError, match="claim"):
        s.write_proof(own, opp, True, lambda d: chunks.append(d) or True)
    with pytest.raises(RuntimeError, match="sink"):
        s.write_proof(own, opp, False, lambda d: False, chunk=64)
    with pytest.raises(TimeoutError):
        C.Solver(18).write_proof(*C.Board(5, 5).bitboards, False, lambda d: True, time_limit=1e-3)
    with pytest.raises(TypeError):
        s.write_proof(own, opp, False, None)
    with pytest.raises((TypeError, ValueError), match="chunk"):
        s.write_proof(own, opp, False, lambda d: True, chunk="big")
    with pytest.raises(ValueError, match="small"):
        s.write_proof(own, opp, False, lambda d: True, small=-1)
    with pytest.raises(ValueError):
        s.write_proof(own, own, False, lambda d: True)


def test_failed_certificate_write_leaves_no_file(tmp_path):
    path = tmp_path / "c.cert"
    path.write_bytes(b"old")
    real = C.Solver(16)

    class Failing:                           # the writer stops after its first chunk
        settings = real.settings
        outcome_of = real.outcome_of

        def write_proof(self, own, opp, claim, sink, **kw):
            calls = []
            return real.write_proof(own, opp, claim, lambda d: not calls.append(sink(d)) and len(calls) < 2,
                                    chunk=64, **kw)
    with pytest.raises(RuntimeError, match="sink"):
        write_certificate(path, C.Board(3, 4), Failing())
    assert path.read_bytes() == b"old" and len(list(tmp_path.iterdir())) == 1


def test_solve_writes_a_checked_certificate(tmp_path):
    path = tmp_path / "c.cert"
    r = C.solve(C.Board(3, 4), certificate=path)
    assert r.value == "loss" and "LOSS for B confirmed" in check_certificate(path, pure=True)
    path2 = tmp_path / "w.cert"
    r = C.solve(C.Board.from_bitboards(4, 4, *C.Board(4, 4).bitboards, to_move="W"), certificate=path2)
    assert r.value == "win" and "WIN for W confirmed" in check_certificate(path2)
    unknown = tmp_path / "u.cert"
    assert C.solve(C.Board(5, 5), max_nodes=100, certificate=unknown).value == "unknown"
    assert not unknown.exists()
    with pytest.raises(TypeError, match="certificate"):
        C.solve(C.Board(2, 2), certificate=3)


def test_runner_resumes_from_table(tmp_path):
    table = str(tmp_path / "t.npz")
    s = C.Solver(18)
    out = solve_board(C.Board(4, 5), s, table=table)
    assert out["result"] == "win" and os.path.exists(table)
    s2 = C.Solver(18)
    out2 = solve_board(C.Board(4, 5), s2, table=table)
    assert out2["result"] == "win" and out2["winning_move"] == out["winning_move"]
    assert out2["nodes"] == 0                  # settled from the saved first moves


def test_runner_time_limit_then_resume(tmp_path):
    table = str(tmp_path / "t.npz")
    out = solve_board(C.Board(5, 5), C.Solver(20), table=table, time_limit=0.3)
    assert out["result"] in ("timeout", "loss")
    out2 = solve_board(C.Board(5, 5), C.Solver(20), table=table)
    assert out2["result"] == "loss"
    assert set(out["proven"]) <= set(out2["proven"])


def test_runner_ctrl_c_counts_the_nodes_of_the_move_in_search(tmp_path):
    """Ctrl-C inside a first move's search: the nodes it searched are in the
    result and in the saved table, as a time-out's are."""
    table = str(tmp_path / "t.npz")
    seen = []

    def report(info):
        seen.append(info["nodes"])
        if info["nodes"] >= 20_000:
            raise KeyboardInterrupt
    out = solve_board(C.Board(6, 6), C.Solver(18), table=table, report=report, report_every=0.0)
    assert out["result"] == "interrupted" and out["proven"] == {}
    assert out["nodes"] >= seen[-1] >= 20_000 and out["total_nodes"] == out["nodes"]
    assert load_table(table, C.Solver(10))["nodes"] == out["nodes"]


def test_cli_solve_and_certificate(tmp_path, capsys):
    cert = str(tmp_path / "c.cert")
    rc = main(["3x4", "--table", "none", "--quiet", "--certificate", cert])
    out = capsys.readouterr().out
    assert rc == 0 and "LOSS for B" in out and "confirmed" in out
    assert main(["9x9", "--quiet"]) == 2
    with pytest.raises(SystemExit) as e:
        main(["4x4", "--tt-bits", "3", "--quiet"])
    assert e.value.code == 2


@pytest.mark.parametrize("args,code,needle", [
    (["--table", "none", "--certificate", "{tmp}/no/c.bin"], 1, "cannot write the certificate"),
    (["--table", "{tmp}/no/t.npz"], 1, "cannot write the solver table"),
    (["--table", "{tmp}"], 2, "is a folder"),
    (["--table", ""], 2, "--table: must not be empty"),
    (["--certificate", ""], 2, "--certificate: must not be empty"),
    (["--time-limit", "abc"], 2, "--time-limit: must be a number of seconds"),
    (["--min-work", "-1"], 2, "--min-work: must be an integer from 0"),
    (["--table", "t.npz", "--certificate", "./t.npz"], 2,
     "--table and --certificate name the same file"),
])
def test_console_solve_checks_everything_before_the_search(args, code, needle, tmp_path,
                                                           capsys, monkeypatch):
    from ttt_engine.clobber import settle as clobber_solve
    from ttt_engine.cli import main as console

    def search(*a, **k):
        raise AssertionError("the search started")
    monkeypatch.setattr(clobber_solve, "solve_board", search)
    monkeypatch.chdir(tmp_path)
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    assert console(["clobber", "solve", "3x3", "--quiet", *args]) == code
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and err.startswith("ttt-engine: error: "), err
    assert needle in err, err
    assert os.listdir(tmp_path) == []


def test_a_file_that_is_no_solver_table_is_said_so(tmp_path, capsys):
    from ttt_engine.cli import main as console
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"not a table\n")
    assert console(["clobber", "solve", "3x3", "--quiet", "--table", str(junk)]) == 2
    err = capsys.readouterr().err
    assert err == f"ttt-engine: error: {junk} is not a Clobber solver table (give another " \
                  "--table, or --fresh to write a new one over it)\n"
    assert console(["clobber", "solve", "3x3", "--quiet", "--table", str(junk), "--fresh"]) == 0


def test_cli_ctrl_c_stops_quickly_and_keeps_table(tmp_path):
    table = tmp_path / "t.npz"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    p = subprocess.Popen([sys.executable, "-m", "ttt_engine", "clobber", "solve", "6x6", "--table",
                          str(table), "--save-every", "0.5", "--quiet"],
                         env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.time() + 60
    while not table.exists() and time.time() < deadline:
        time.sleep(0.2)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=60)
    assert p.returncode == 130, (out, err)
    assert b"not settled (interrupted)" in out
    nodes = int(re.search(rb"; ([\d,]+) nodes, CPU", out).group(1).replace(b",", b""))
    assert nodes > 0, out       # the search ran until the table was saved
    s = C.Solver(16)
    meta = load_table(str(table), s)
    assert meta["position"].startswith("6x6:B:") and meta["nodes"] == nodes
