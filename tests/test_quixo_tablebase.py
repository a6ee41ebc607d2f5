"""The Quixo endgame tablebase (every position with at most one blank cube).

3x3 and 4x4: built by the same code as 5x5 and compared with the package's
retrograde solver of the whole game on every such position.  5x5: the file
reader on a small synthetic (sparse) file, and, when a built table is
installed (``QUIXO_TABLEBASE`` or the default path), its values against an
independent forward search written here from the rules."""
import json
import os
import random
import struct
import subprocess
import sys
import zlib

import numpy as np
import pytest

from conftest import PYDIR
from ttt_engine.quixo import tablebase as qtb
from ttt_engine import quixo
from ttt_engine._core.solvers.quixo import tablebase as ctb


# ----------------------------------------------------------------------------- reference
# An independent Quixo from the rules: cells in row order, seen from the side
# to move (1 its cubes, 2 the opponent's, 0 blank).
def ref_lines(n):
    rows = [[r * n + c for c in range(n)] for r in range(n)]
    cols = [[r * n + c for r in range(n)] for c in range(n)]
    return rows + cols + [[i * n + i for i in range(n)], [i * n + n - 1 - i for i in range(n)]]


def ref_moves(n):
    """(taken cell, the line's cells from the taken cube to the end it goes in at)."""
    out = []
    for r in range(n):
        for c in range(n):
            if r not in (0, n - 1) and c not in (0, n - 1):
                continue
            if r != 0:
                out.append((r * n + c, [i * n + c for i in range(r, -1, -1)]))       # top
            if r != n - 1:
                out.append((r * n + c, [i * n + c for i in range(r, n)]))            # bottom
            if c != 0:
                out.append((r * n + c, [r * n + j for j in range(c, -1, -1)]))       # left
            if c != n - 1:
                out.append((r * n + c, [r * n + j for j in range(c, n)]))            # right
    return out


class Ref:
    def __init__(self, n):
        self.n = n
        self.lines = ref_lines(n)
        self.moves = ref_moves(n)

    def line_of(self, cells, who):
        return any(all(cells[i] == who for i in ln) for ln in self.lines)

    def children(self, cells):
        """(result, child) per legal move: result 1 the mover wins at once,
        -1 loses at once (an opponent line, even with an own one), else 0 and
        the child seen from the new side to move."""
        for src, path in self.moves:
            if cells[src] == 2:
                continue
            new = list(cells)
            for a, b in zip(path, path[1:]):
                new[a] = cells[b]        # the line slides towards the hole
            new[path[-1]] = 1            # the cube goes in at the end, the mover's
            if self.line_of(new, 2):
                yield -1, None
            elif self.line_of(new, 1):
                yield 1, None
            else:
                yield 0, tuple(0 if v == 0 else 3 - v for v in new)

    def win_within(self, cells, d):
        if d < 1:
            return False
        for res, child in self.children(cells):
            if res == 1 or (res == 0 and self.loss_within(child, d - 1)):
                return True
        return False

    def loss_within(self, cells, d):
        if d < 1:
            return False
        for res, child in self.children(cells):
            if res == 1 or (res == 0 and not self.win_within(child, d - 1)):
                return False
        return True

    def proven(self, cells, depth):
        """(value, plies) proven within ``depth`` plies, or None."""
        for d in range(1, depth + 1):
            if self.win_within(cells, d):
                return ("win", d)
            if self.loss_within(cells, d):
                return ("loss", d)
        return None


def cells_of(me, opp, n):
    return tuple(1 if me >> i & 1 else 2 if opp >> i & 1 else 0 for i in range(n * n))


def random_position(rng, n, ref):
    """A random position with at most one blank cube and no full line."""
    full = (1 << n * n) - 1
    while True:
        me = rng.getrandbits(n * n)
        opp = full & ~me
        if rng.random() < 0.5:
            b = 1 << rng.randrange(n * n)
            me &= ~b
            opp &= ~b
        cells = cells_of(me, opp, n)
        if not ref.line_of(cells, 1) and not ref.line_of(cells, 2):
            return me, opp, cells


def check_against_search(table, n, samples, depth, seed):
    """Every sampled position: the table's value with a distance <= depth iff
    the search proves it (the same distance); returns how many it proved."""
    ref = Ref(n)
    rng = random.Random(seed)
    proved = 0
    for _ in range(samples):
        me, opp, cells = random_position(rng, n, ref)
        got = table.value_at(me, opp)
        want = ref.proven(cells, depth)
        if want is None:
            assert got[0] == "draw" or got[1] is None or got[1] > depth, (me, opp, got)
        else:
            proved += 1
            assert got == want, (me, opp, got, want)
    return proved


# ----------------------------------------------------------------------------- builds
@pytest.fixture(scope="module")
def built(tmp_path_factory):
    folder = tmp_path_factory.mktemp("qtb")
    out = {}
    for size in (3, 4):
        path = str(folder / f"t{size}.tb")
        qtb.build(path, size=size, threads=2, progress=False)
        out[size] = qtb.Tablebase(path, size)
    return out


def positions(size, sample=None):
    """Every position index of the table (3x3; 4x4: every no-blank one and
    ``sample`` random one-blank ones)."""
    nb = 1 << size * size
    n1 = size * size << (size * size - 1)
    if sample is None:
        indexes = range(nb + n1)
    else:
        rng = random.Random(size)
        indexes = list(range(nb)) + [nb + rng.randrange(n1) for _ in range(sample)]
    for i in indexes:
        yield ctb.position_masks(size, i)


@pytest.mark.parametrize("size", [3, 4])
def test_agrees_with_the_whole_game_solver(built, size):
    """Values and distances equal to the whole-game solve's (every position of
    both classes on 3x3; on 4x4 every no-blank one and 40,000 one-blank ones
    here: all 589,824 agree, docs/quixo.md)."""
    table = built[size]
    sol = quixo.solution(size)
    checked = {"win": 0, "loss": 0, "draw": 0, None: 0}
    for me, opp in positions(size, None if size == 3 else 40_000):
        got = table.value_at(me, opp)
        want = sol.value_of(me, opp)
        assert got == want, (size, me, opp, got, want)
        checked[got[0]] += 1
    assert checked["win"] and checked["loss"] and checked[None]
    assert (checked["draw"] > 0) == (size == 4)            # 3x3 has no draw
    if size == 3:
        counts = table.counts
        total = sum(sum(c.values()) for c in counts.values())
        assert total == sum(checked.values())
        assert sum(c["wins"] for c in counts.values()) == checked["win"]
        assert sum(c["losses"] for c in counts.values()) == checked["loss"]


def test_index_round_trip():
    rng = random.Random(5)
    for size in (3, 4, 5):
        total = (1 << size * size) + (size * size << (size * size - 1))
        for i in [0, total - 1] + [rng.randrange(total) for _ in range(2000)]:
            me, opp = ctb.position_masks(size, i)
            assert me & opp == 0
            assert ctb.position_index(size, me, opp) == i
    assert ctb.position_index(5, 1, 2) == -1          # 23 blanks


def test_threads_give_the_same_table(built, tmp_path):
    path = str(tmp_path / "one.tb")
    qtb.build(path, size=3, threads=1, progress=False)
    one = qtb.Tablebase(path, 3)
    assert one.header["crc32"] == built[3].header["crc32"]
    assert one.counts == built[3].counts


def test_interrupted_build_resumes(built, tmp_path, monkeypatch):
    """Ctrl-C in a pass keeps the last checkpoint; --resume finishes the same table."""
    calls = {"n": 0}
    real = ctb.Builder

    class Stopping(real):
        def run(self, kind, t=0, threads=1, monitor=None, noblank=True):
            calls["n"] += 1
            if calls["n"] == 6:
                raise KeyboardInterrupt
            return real.run(self, kind, t, threads, monitor, noblank)

    monkeypatch.setattr(ctb, "Builder", Stopping)
    path = str(tmp_path / "r.tb")
    with pytest.raises(KeyboardInterrupt):
        qtb.build(path, size=3, threads=2, progress=False, checkpoint_seconds=0)
    assert os.path.isfile(path + ".ckpt") and not os.path.exists(path)
    with pytest.raises(ValueError, match="--resume"):
        qtb.build(path, size=3, progress=False)
    monkeypatch.setattr(ctb, "Builder", real)
    qtb.build(path, size=3, threads=2, progress=False, resume=True)
    assert not os.path.exists(path + ".ckpt")
    again = qtb.Tablebase(path, 3)
    assert again.header["crc32"] == built[3].header["crc32"]
    with pytest.raises(ValueError, match="nothing to resume"):
        qtb.build(path, size=3, progress=False, resume=True)


def test_build_resumes_after_every_pass(built, tmp_path, monkeypatch):
    """Stopped after any pass of either class (its first pass, one of its levels),
    the build resumes from the checkpoint to the same table, and every pass runs
    once in all: the stages of the two classes follow each other."""
    real = ctb.Builder
    passes = []

    class Counting(real):
        def run(self, kind, t=0, threads=1, monitor=None, noblank=True):
            passes.append((kind, t, noblank))
            return real.run(self, kind, t, threads, monitor, noblank)

    monkeypatch.setattr(ctb, "Builder", Counting)
    qtb.build(str(tmp_path / "whole.tb"), size=3, threads=1, progress=False)
    whole = list(passes)
    kinds = [k for k, _, _ in whole]
    assert kinds[0] == ctb.INIT0 and kinds.count(ctb.INIT0) == kinds.count(ctb.INIT1) == 1
    assert kinds.index(ctb.INIT1) > kinds.index(ctb.LEVEL0)
    assert all(k == ctb.LEVEL1 for k in kinds[kinds.index(ctb.INIT1) + 1:])
    for stop in range(1, len(whole)):
        passes.clear()

        class Stopping(Counting):
            def run(self, kind, t=0, threads=1, monitor=None, noblank=True):
                if len(passes) == stop:
                    raise KeyboardInterrupt
                return Counting.run(self, kind, t, threads, monitor, noblank)

        monkeypatch.setattr(ctb, "Builder", Stopping)
        path = str(tmp_path / f"r{stop}.tb")
        with pytest.raises(KeyboardInterrupt):
            qtb.build(path, size=3, threads=1, progress=False, checkpoint_seconds=0)
        monkeypatch.setattr(ctb, "Builder", Counting)
        qtb.build(path, size=3, threads=1, progress=False, resume=True)
        assert passes == whole, stop
        assert qtb.Tablebase(path, 3).header["crc32"] == built[3].header["crc32"], stop


def test_probe_and_best_moves(built):
    table = built[4]
    sol = quixo.solution(4)
    rng = random.Random(3)
    ref = Ref(4)
    seen = set()
    for _ in range(300):
        me, opp, cells = random_position(rng, 4, ref)
        text = "".join(" XO"[v] for v in cells)
        board = quixo.Board.from_string(text, "X") if _reachable(text) else None
        if board is None:
            continue
        value, plies = table.probe(board)
        assert (value, plies) == sol.value(board)
        best = table.best_moves(board)
        assert best
        for m in best:
            child = board.copy()
            child.push(m)
            if child.is_terminal():
                assert value == "win" and plies == 1 and child.winner == "X"
                continue
            v, d = sol.value(child)
            assert v == {"win": "loss", "loss": "win", "draw": "draw"}[value]
            if value != "draw":
                assert d + 1 == plies
        seen.add(value)
    assert seen == {"win", "loss", "draw"}
    two_blanks = quixo.Board(4)
    two_blanks.push(two_blanks.legal_moves[0])
    assert table.probe(two_blanks) is None and table.best_moves(two_blanks) is None


def _reachable(text):
    try:
        quixo.Board.from_string(text, "X")
    except ValueError:
        return False
    return True


def test_probe_refuses_wrong_boards(built):
    with pytest.raises(ValueError, match="4x4"):
        built[4].probe(quixo.Board(5))
    over = quixo.Board.from_string("XXXX" + "OXOO" + "XOXO" + "OOXO", "O")
    with pytest.raises(ValueError, match="over"):
        built[4].probe(over)


# ----------------------------------------------------------------------------- the file
def synthetic_5x5(path, entries, *, game="quixo", version=qtb.VERSION, cut=0):
    """A 5x5 table file where every position is a draw but ``entries``
    (index -> the file's byte: 0 none, 1 draw, 2d win in d, 2d+1 loss in d)."""
    total = (1 << 25) + (25 << 24)
    block = qtb.BLOCK
    nblocks = (total + block - 1) // block
    draws = zlib.compress(bytes([1]) * block, 6)
    special = {}
    for i, code in entries.items():
        special.setdefault(i // block, bytearray([1]) * block)[i % block] = code
    blocks = [zlib.compress(bytes(special[b]), 6) if b in special else draws
              for b in range(nblocks)]
    offsets = np.zeros(nblocks + 1, np.uint64)
    offsets[1:] = np.cumsum([len(b) for b in blocks])
    crc = zlib.crc32(offsets.tobytes())
    for b in blocks:
        crc = zlib.crc32(b, crc)
    header = {"game": game, "size": 5, "version": version, "positions": total,
              "classes": {}, "block": block, "dist_cap": qtb.DIST_CAP,
              "index_bytes": int(offsets.nbytes), "data_bytes": int(offsets[-1]), "crc32": crc}
    head = json.dumps(header).encode()
    with open(path, "wb") as f:
        f.write(qtb.MAGIC + struct.pack("<Q", len(head)) + head)
        f.write(offsets.tobytes())
        for b in blocks:
            f.write(b)
        if cut:
            f.truncate(f.tell() - cut)


def test_5x5_reader_on_a_synthetic_file(tmp_path):
    win = quixo.Board.from_string("XOXOX" "OXOXO" "XO OX" "OXOXO" "XOXOX", "X")
    full = quixo.Board.from_string("XOXOX" "OXOXO" "XOOOX" "OXOXO" "XOXOX", "O")
    x, o = win.bitboards
    i_win = ctb.position_index(5, x, o)
    x, o = full.bitboards
    i_full = ctb.position_index(5, o, x)        # O to move: O's cubes are "mine"
    assert i_win >= 1 << 25 > i_full
    path = str(tmp_path / "q5.tb")
    synthetic_5x5(path, {i_win: 2 * 7, i_full: 2 * qtb.DIST_CAP + 1})
    table = qtb.Tablebase(path, 5)
    assert table.probe(win) == ("win", 7)
    assert table.probe(full) == ("loss", None)      # DIST_CAP plies or more
    other = quixo.Board.from_string("OXOXO" "XOXOX" "OX XO" "XOXOX" "OXOXO", "X")
    assert table.probe(other) == ("draw", None)
    assert table.probe(quixo.Board(5)) is None      # 25 blanks
    with open(path, "r+b") as f:                    # one byte of the last block changed
        f.seek(-5, 2)
        b = f.read(1)
        f.seek(-5, 2)
        f.write(bytes([b[0] ^ 0x55]))
    with pytest.raises(ValueError, match="checksum"):
        qtb.Tablebase(path, 5)


@pytest.mark.parametrize("kind, match", [
    ("missing", "no Quixo tablebase at"),
    ("truncated", "is truncated"),
    ("game", "not of Quixo"),
    ("version", "format version 2"),
    ("magic", "not a Quixo tablebase file"),
])
def test_bad_files_are_one_line(tmp_path, kind, match):
    path = str(tmp_path / "bad.tb")
    if kind == "truncated":
        synthetic_5x5(path, {}, cut=100)
    elif kind == "game":
        synthetic_5x5(path, {}, game="connect4")
    elif kind == "version":
        synthetic_5x5(path, {}, version=2)
    elif kind == "magic":
        with open(path, "wb") as f:
            f.write(b"hello world, not a table")
    with pytest.raises(ValueError, match=match) as e:
        qtb.Tablebase(path, 5, verify=False)
    msg = str(e.value)
    assert "\n" not in msg and path in msg and "ttt-engine quixo tablebase" in msg


def test_damaged_values_fail_the_checksum(built, tmp_path):
    src = built[3].path
    path = str(tmp_path / "d.tb")
    data = bytearray(open(src, "rb").read())
    data[-1] ^= 0xFF
    open(path, "wb").write(bytes(data))
    with pytest.raises(ValueError, match="checksum"):
        qtb.Tablebase(path, 3)


def test_room_is_checked_first(tmp_path, monkeypatch):
    monkeypatch.setattr(qtb, "_available_memory", lambda: 10**6)
    with pytest.raises(MemoryError, match=r"needs 1\.\d\d GB of memory"):
        qtb.build(str(tmp_path / "q.tb"), size=5, progress=False)
    assert os.listdir(tmp_path) == []
    assert 1.0e9 < qtb.requirements(5)["memory"] < 1.3e9


# ----------------------------------------------------------------------------- the console
def run_cli(*args):
    # the package under test: installed in CI, the in-place build when developing
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([PYDIR] + sys.path))
    return subprocess.run([sys.executable, "-m", "ttt_engine", "quixo", "tablebase", *args],
                          capture_output=True, text=True, env=env, timeout=300)


def test_console_builds_and_refuses(tmp_path):
    path = str(tmp_path / "c.tb")
    r = run_cli("--size", "3", "--out", path, "--threads", "2")
    assert r.returncode == 0, r.stderr
    assert "no blank" in r.stdout and "one blank" in r.stdout
    assert qtb.Tablebase(path, 3).counts["no_blank"]["wins"] > 0
    r = run_cli("--size", "3", "--out", path, "--resume")
    assert r.returncode != 0 and r.stderr.count("\n") == 1 and "nothing to resume" in r.stderr
    r = run_cli("--threads", "0")
    assert r.returncode == 2 and "error" in r.stderr


# ----------------------------------------------------------------------------- 5x5 table
def installed_5x5():
    path = os.environ.get("QUIXO_TABLEBASE") or qtb.default_path(5)
    if not os.path.isfile(path):
        pytest.skip(f"no built 5x5 tablebase at {path}")
    return qtb.Tablebase(path, 5, verify=False)


def test_reference_search_on_small_boards(built):
    """The forward search itself, against the 4x4 table (which the whole-game
    solver confirms): it proves the result where the table says it can."""
    assert check_against_search(built[4], 4, 300, 3, seed=11) > 100


def test_5x5_table_against_the_forward_search():
    table = installed_5x5()
    assert check_against_search(table, 5, 150, 3, seed=1) > 50


def test_quixo_solve_uses_the_installed_table(tmp_path, monkeypatch):
    monkeypatch.setenv("TTT_ENGINE_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(qtb, "_opened", {})
    board = quixo.Board.from_string("XOXOX" "OXOXO" "XO OX" "OXOXO" "XOXOX", "X")
    assert quixo.solved_move_values(board) is None          # no table yet
    x, o = board.bitboards
    synthetic_5x5(qtb.default_path(5), {ctb.position_index(5, x, o): 2 * 9})
    r = quixo.solve(board)
    assert (r.value, r.plies) == ("win", 9) and r.best_move in board.legal_moves
    values = quixo.solved_move_values(board)
    assert set(values) == set(board.legal_moves)
    two_blanks = quixo.Board(5)
    two_blanks.push(two_blanks.legal_moves[0])
    assert quixo.solved_move_values(two_blanks) is None
    with pytest.raises(ValueError, match="needs a limit"):
        quixo.solve(two_blanks)


def test_ctrl_c_during_the_5x5_build_exits_130(spawn_cli, tmp_path):
    """Ctrl-C in the first pass (before any checkpoint): exit 130, nothing written."""
    try:
        qtb._check_room(str(tmp_path / "q.tb"), 5)
    except (MemoryError, OSError) as e:
        pytest.skip(str(e))
    from conftest import interrupt
    out = tmp_path / "q.tb"
    child = spawn_cli(["quixo", "tablebase", "--out", str(out)], dimensions=(50, 120))
    child.expect("no blank cube: first pass")
    text, _ = interrupt(child, timeout=30)
    assert child.exitstatus == 130 and "Interrupted" in text and "Traceback" not in text
    assert os.listdir(tmp_path) == []


def test_disk_is_checked_first(tmp_path, monkeypatch):
    class Usage:
        free = 10**8
    monkeypatch.setattr(qtb.shutil, "disk_usage", lambda folder: Usage)
    with pytest.raises(OSError, match=r"needs 1\.\d\d GB of disk .* 0\.10 GB is free"):
        qtb.build(str(tmp_path / "q.tb"), size=5, progress=False)
    assert os.listdir(tmp_path) == []
