"""The Connect Four opening book and the perfect engine: the book's scores
against the solver, the file's checks, resuming an interrupted generation,
the engine's exact play (against the generic exact alpha-beta where it
finishes), and the console's solve / analyse."""
import os
import pickle
import random
import re

import numpy as np
import pytest

from ttt_engine import agents, connect4, games
from ttt_engine.connect4 import book as connect4_book
from ttt_engine.connect4 import solver as connect4_solve
from ttt_engine.cli import main
from ttt_engine.connect4.book import BookError
from ttt_engine.connect4.perfect import PerfectAgent

# a 28-disc position: its subtree to 31 discs solves in a moment
ROOT = "4712261114742652452672575155"


def _board(moves):
    return connect4.from_moves(moves)


@pytest.fixture(scope="module")
def small_book(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("book") / "book.bin")
    book = connect4_book.generate(31, out, start=_board(ROOT), show=False)
    return book, out


def _random_boards(n, lo, hi, seed):
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        b = connect4.Board()
        for _ in range(rng.randint(lo, hi)):
            if b.is_terminal():
                break
            b.push(rng.choice(b.legal_moves))
        if not b.is_terminal():
            out.append(b)
    return out


def test_mirror_key_is_the_mirror_positions_key():
    for b in _random_boards(50, 0, 30, 1):
        m = connect4.Board()
        for col in b.moves:
            m.push(6 - col)
        assert connect4_book.mirror_key(b.hash()) == m.hash()
        assert connect4_book.canonical_key(b) == connect4_book.canonical_key(m)
    assert connect4_book.canonical_key(_board("1")) != connect4_book.canonical_key(_board("2"))


def test_plies_to_the_end_match_the_solver():
    for b in _random_boards(30, 24, 34, 2):
        r = connect4.solve(b, table_mb=16)
        assert connect4_book.scores_to_plies(b.ply, r.score) == r.plies


def test_child_score_of_finishing_moves():
    b = _board("112233")                      # X plays 4 and wins with its 4th disc
    assert connect4_book.child_score(b, 3) == 22 - 4
    assert connect4_book.child_score(b, 6) is None
    assert b.ply == 6                         # the board is unchanged


def test_generated_book_holds_the_solvers_scores(small_book):
    book, out = small_book
    levels = connect4_book.positions(31, _board(ROOT))
    assert len(book) == sum(len(level) for level in levels)
    assert book.plies == 31
    for level in levels:
        for board in level.values():
            assert book.score(board) == connect4.solve(board, table_mb=16).score
    assert book.score(_board(ROOT + "7")) is not None            # 29 discs: in it
    assert book.score(_board("4")) is None                       # not in this subtree
    assert not os.path.exists(out + ".progress.npz")


def test_book_file_round_trips_and_is_sorted(small_book):
    book, out = small_book
    again = connect4_book.load(out)
    assert np.array_equal(again.keys, book.keys) and np.array_equal(again.scores, book.scores)
    assert np.all(np.diff(book.keys.astype(np.float64)) > 0)
    assert again.plies == 31


def _keeps_score(board, col, score):
    c = board.copy()
    c.push(col)
    if c.winner is not None:
        return connect4_book.child_score(board, col) == score
    return -connect4.solve(c, table_mb=16).score == score


def test_the_deepest_level_keeps_a_best_column_for_both_mirrors(small_book):
    """The solved level keeps the solver's best column (of the canonical
    key's position): ``best_column`` turns it for a mirrored board, and the
    column keeps the exact score; shallower levels keep none."""
    book, out = small_book
    levels = connect4_book.positions(31, _board(ROOT))
    checked = mirrored = 0
    for board in levels[-1].values():
        score = book.score(board)
        col = book.best_column(board)
        assert col is not None and _keeps_score(board, col, score)
        m = connect4.Board()
        for mv in [6 - x for x in board.moves]:
            m.push(mv)
        assert book.best_column(m) is not None and _keeps_score(m, book.best_column(m), score)
        mirrored += m.hash() != board.hash()
        checked += 1
    assert checked == len(levels[-1]) and mirrored > 0
    for level in levels[:-1]:
        assert all(book.best_column(b) is None for b in level.values())
    assert book.best_column(_board("4")) is None                 # not held
    again = connect4_book.load(out)
    assert np.array_equal(again.columns, book.columns)


def test_a_version_1_book_reads_with_no_columns(tmp_path, small_book):
    """Books written before best columns were kept (format version 1: keys
    and scores) still load, keeping none."""
    import struct
    import zlib
    book, _ = small_book
    payload = book.keys.astype("<u8").tobytes() + book.scores.tobytes()
    head = struct.pack("<8sIIQII", connect4_book.MAGIC, 1, book.plies, len(book),
                       zlib.crc32(payload), 0)
    p = tmp_path / "v1.bin"
    p.write_bytes(head + payload)
    old = connect4_book.load(str(p))
    assert np.array_equal(old.scores, book.scores)
    assert (old.columns == connect4_book.NO_COLUMN).all()
    assert old.best_column(next(iter(connect4_book.positions(31, _board(ROOT))[-1].values()))) \
        is None
    # a column out of range with a right checksum is still named corrupt
    cols = book.columns.copy()
    cols[0] = 9
    payload = book.keys.astype("<u8").tobytes() + book.scores.tobytes() + cols.tobytes()
    head = struct.pack("<8sIIQII", connect4_book.MAGIC, 2, book.plies, len(book),
                       zlib.crc32(payload), 0)
    p.write_bytes(head + payload)
    with pytest.raises(BookError, match="best column out of range"):
        connect4_book.load(str(p))


@pytest.mark.parametrize("forge, why", [
    ("score", "score out of the range"),
    ("order", "not in strictly increasing order"),
    ("depth", "depth"),
])
def test_a_forged_book_with_a_right_checksum_is_refused(tmp_path, small_book, forge, why):
    """A checksum proves the file is as written, not that it is possible: impossible
    scores (which would make the perfect engine play a wrong column), unordered keys
    (which lookups rely on) or an impossible depth are refused at load."""
    import struct
    import zlib
    book, _ = small_book
    keys, scores, plies = book.keys.copy(), book.scores.copy(), book.plies
    if forge == "score":
        scores[0] = 40
    elif forge == "order":
        keys[[0, 1]] = keys[[1, 0]]
    else:
        plies = 50
    payload = keys.astype("<u8").tobytes() + scores.tobytes() + book.columns.tobytes()
    head = struct.pack("<8sIIQII", connect4_book.MAGIC, 2, plies, len(book),
                       zlib.crc32(payload), 0)
    p = tmp_path / "forged.bin"
    p.write_bytes(head + payload)
    with pytest.raises(BookError, match=why):
        connect4_book.load(str(p))


def test_the_engine_plays_the_kept_column_without_a_search(small_book, monkeypatch):
    book, _ = small_book
    board = next(iter(connect4_book.positions(31, _board(ROOT))[-1].values()))
    agent = PerfectAgent(book=book, seed=3)

    def no_search(*a, **kw):
        raise AssertionError("searched a position whose best column the book keeps")
    monkeypatch.setattr(connect4_solve, "optimal_moves", no_search)
    monkeypatch.setattr(connect4_solve, "solve", no_search)
    assert agent.select_move(board) == book.best_column(board)
    assert agent.last_stats["source"] == "book"
    assert agent.last_stats["score"] == book.score(board)


def test_columns_are_found_again_for_a_level_solved_without_them(tmp_path, small_book):
    """A side file written before columns were kept (scores only) resumes:
    each scored position is solved again from its score for its column,
    and the book equals the one made in one go."""
    book, _ = small_book
    out = str(tmp_path / "c.bin")
    assert connect4_book.generate(31, out, start=_board(ROOT), show=False, limit=5) is None
    with np.load(out + ".progress.npz") as z:
        fields = {k: z[k] for k in z.files if k != "columns"}
    assert (fields["scores"] != -128).sum() == 5
    np.savez(out + ".progress.npz", **fields)
    again = connect4_book.generate(31, out, start=_board(ROOT), show=False)
    assert np.array_equal(again.keys, book.keys) and np.array_equal(again.scores, book.scores)
    level = connect4_book.positions(31, _board(ROOT))[-1]
    assert (again.columns != connect4_book.NO_COLUMN).sum() == len(level)
    for board in level.values():
        assert _keeps_score(board, again.best_column(board), again.score(board))


def test_bad_book_files_are_one_line_errors(tmp_path, small_book):
    _book, out = small_book
    data = open(out, "rb").read()
    cases = {"truncated": data[:-5], "format version 9": data[:8] + b"\x09" + data[9:],
             "not a Connect Four book": b"hello world, not a book at all.." * 2,
             "corrupt": data[:-1] + bytes([data[-1] ^ 1])}
    for why, content in cases.items():
        p = tmp_path / "bad.bin"
        p.write_bytes(content)
        with pytest.raises(BookError, match=why) as e:
            connect4_book.load(str(p))
        assert "\n" not in str(e.value)
    with pytest.raises(BookError, match="cannot be read"):
        connect4_book.load(str(tmp_path / "missing.bin"))
    p = tmp_path / "bad.bin"
    with pytest.raises(ValueError, match="truncated|corrupt|version|not a"):
        games.get("connect4").make_agent("perfect", book=str(p))


def test_unusable_shipped_book_warns_and_the_engine_searches(tmp_path, monkeypatch):
    monkeypatch.setattr(connect4_book, "SHIPPED", str(tmp_path / "none.bin"))
    monkeypatch.setattr(connect4_book, "_shipped", {})
    with pytest.warns(RuntimeWarning, match="cannot be read.*solves every position"):
        agent = games.get("connect4").make_agent("perfect", seed=1)
    b = _board(ROOT)
    assert agent.book is None
    assert agent.column_scores(b) == connect4.analyse(b, table_mb=16)
    assert agent.last_stats["source"] == "solver"


def test_interrupted_generation_resumes_to_the_same_book(tmp_path, small_book, monkeypatch):
    book, _ = small_book
    out = str(tmp_path / "b.bin")
    assert connect4_book.generate(31, out, start=_board(ROOT), show=False, limit=7) is None
    assert not os.path.exists(out) and os.path.exists(out + ".progress.npz")
    calls = [0]
    solve = connect4_solve.solve

    def interrupted(*a, **kw):
        calls[0] += 1
        if calls[0] == 5:
            raise KeyboardInterrupt
        return solve(*a, **kw)
    monkeypatch.setattr(connect4_solve, "solve", interrupted)
    with pytest.raises(KeyboardInterrupt):
        connect4_book.generate(31, out, start=_board(ROOT), show=False)
    assert not os.path.exists(out)
    with np.load(out + ".progress.npz") as z:
        assert (z["scores"] != -128).sum() == 7 + 4
    monkeypatch.setattr(connect4_solve, "solve", solve)
    again = connect4_book.generate(31, out, start=_board(ROOT), show=False)
    assert np.array_equal(again.keys, book.keys) and np.array_equal(again.scores, book.scores)
    foreign = str(tmp_path / "foreign.npz")
    np.savez(foreign, version=connect4_book.FORMAT_VERSION, plies=31,
             keys=np.array([1, 2], dtype=np.uint64), scores=np.zeros(2, np.int8), seconds=0.0)
    with pytest.raises(BookError, match="another book"):
        connect4_book.generate(31, str(tmp_path / "c.bin"), progress=foreign, show=False,
                               start=_board(ROOT))


def test_a_damaged_progress_file_is_one_line_to_remove(tmp_path, capsys):
    """A side file cut short (a crash, a full disk) or empty is refused as
    unreadable, in the library and the console, and left for the user."""
    out = str(tmp_path / "b.bin")
    assert connect4_book.generate(31, out, start=_board(ROOT), show=False, limit=3) is None
    side = out + ".progress.npz"
    data = open(side, "rb").read()
    for content in (data[:len(data) // 2], b""):
        with open(side, "wb") as f:
            f.write(content)
        with pytest.raises(BookError, match="unreadable.*remove it") as e:
            connect4_book.generate(31, out, start=_board(ROOT), show=False)
        assert "\n" not in str(e.value)
        assert main(["connect4", "book", "--plies", "3", "--out", out, "--quiet"]) == 2
        err = capsys.readouterr().err.strip()
        assert "\n" not in err and "unreadable" in err and "internal" not in err, err
        assert open(side, "rb").read() == content and not os.path.exists(out)


def test_a_run_split_in_parts_makes_the_same_book(tmp_path, small_book, capsys):
    """Two parts solve disjoint halves in their own side files (each also takes
    what the other has already saved); the run without a part solves what is
    left, writes the same book and removes every side file."""
    book, _ = small_book
    out = str(tmp_path / "p.bin")
    assert connect4_book.generate(31, out, start=_board(ROOT), show=False, limit=3) is None
    assert connect4_book.generate(31, out, start=_board(ROOT), show=False, part=(1, 2)) is None
    assert os.path.exists(connect4_book.part_progress(out, (1, 2))) and not os.path.exists(out)
    with np.load(connect4_book.part_progress(out, (1, 2))) as z:
        first = z["scores"] != -128
    assert first[0::2].all() and first[:3].all()        # its half, and the whole run's three
    assert connect4_book.generate(31, out, start=_board(ROOT), show=True, part="2/2",
                                  stream=__import__("sys").stdout, limit=2) is None
    assert "part 2 of 2" in capsys.readouterr().out
    again = connect4_book.generate(31, out, start=_board(ROOT), show=False)
    assert np.array_equal(again.keys, book.keys) and np.array_equal(again.scores, book.scores)
    assert [f for f in os.listdir(tmp_path) if "progress" in f] == []


def test_a_partial_book_deepens_a_level_across_runs(tmp_path, small_book, monkeypatch):
    """``partial``: a run that stops early writes the book so far (every
    position to 30 discs and the solved ones of 31), which answers at once
    where it holds a position and from which the next run resumes, with no
    side file left; the last run writes the complete book."""
    book, _ = small_book
    out = str(tmp_path / "deeper.bin")
    connect4_book.generate(30, out, start=_board(ROOT), show=False)
    got = connect4_book.generate(31, out, start=_board(ROOT), show=False, partial=True, limit=4)
    assert (got.plies, got.deepest) == (30, 31)
    again = connect4_book.load(out)
    assert (again.plies, again.deepest, len(again)) == (30, 31, len(got))
    level = connect4_book.positions(31, _board(ROOT))[31 - 28]
    held = [b for b in level.values() if again.score(b) is not None]
    assert len(held) == 4 and len(level) > 4
    for b in held:
        assert again.score(b) == connect4.solve(b).score
    assert "some of 31" in repr(again)
    # a 30-disc position answers from the book once all its children are held
    whole = connect4_book.Book(book.keys, book.scores, 30, deepest=31)
    b30 = next(iter(connect4_book.positions(30, _board(ROOT))[2].values()))
    assert whole.column_scores(b30) == connect4.analyse(b30)
    assert connect4_book.Book(book.keys, book.scores, 30).column_scores(b30) is None
    # an earlier level's position answers from its children once all are held
    os.remove(out + ".progress.npz")
    calls = [0]
    solve = connect4_solve.solve

    def counted(*a, **kw):
        calls[0] += 1
        if calls[0] == 3:
            raise KeyboardInterrupt             # a kill writes the book too
        return solve(*a, **kw)
    monkeypatch.setattr(connect4_solve, "solve", counted)
    with pytest.raises(KeyboardInterrupt):
        connect4_book.generate(31, out, start=_board(ROOT), show=False, partial=True)
    assert len(connect4_book.load(out)) == len(got) + 2
    os.remove(out + ".progress.npz")
    calls[0] = -10**9
    done = connect4_book.generate(31, out, start=_board(ROOT), show=False, partial=True)
    assert calls[0] == -10**9 + len(level) - 6          # only the positions not yet held
    assert (done.plies, done.deepest) == (31, 31)
    assert np.array_equal(done.keys, book.keys) and np.array_equal(done.scores, book.scores)
    assert [f for f in os.listdir(tmp_path) if "progress" in f] == []


def test_engine_uses_a_partial_levels_children_and_tests_only_the_rest(small_book,
                                                                       monkeypatch):
    """Past the complete levels, the children a partly made level holds need
    no test (only the other columns go to the solver, with the best held
    child's score as a lower bound where the position's own is unknown), and
    the engine's columns stay exactly the solver's."""
    book, _ = small_book
    rng = random.Random(3)
    levels = connect4_book.positions(31, _board(ROOT))
    held = set(rng.sample(sorted(levels[3]), len(levels[3]) // 2))
    keep = np.array([int(k) not in set(levels[3]) or int(k) in held for k in book.keys])
    # complete to 29 discs, half of 31 held, none of 30: the agent's 30-disc
    # boards get no score of their own, only some children
    keep &= np.array([int(k) not in set(levels[2]) for k in book.keys])
    part = connect4_book.Book(book.keys[keep], book.scores[keep], 29, deepest=31)
    calls = []
    real = connect4_solve.optimal_moves

    def spy(board, **kw):
        calls.append(kw)
        return real(board, **kw)
    monkeypatch.setattr(connect4_solve, "optimal_moves", spy)
    agent = PerfectAgent(book=part, randomize=False)
    restricted = 0
    for b in list(levels[2].values())[:25]:
        calls.clear()
        got = agent.optimal_columns(b)
        want = real(b, table_mb=16)
        assert got == want[1] and agent.last_stats["score"] == want[0]
        if not calls:                           # every child held: the book answers
            assert agent.last_stats["source"] == "book"
            continue
        kw = calls[0]
        if kw["columns"] is not None:
            restricted += 1
            known = part.known_column_scores(b)
            assert sorted(kw["columns"]) == sorted(c for c, v in known.items() if v is None)
            assert kw["lower_bound"] == max(v for v in known.values() if v is not None)
    assert restricted > 0


def test_partial_book_needs_the_levels_below(tmp_path, capsys):
    out = str(tmp_path / "none.bin")
    with pytest.raises(BookError, match="does not exist"):
        connect4_book.generate(31, out, start=_board(ROOT), show=False, partial=True)
    connect4_book.generate(29, out, start=_board(ROOT), show=False)
    with pytest.raises(BookError, match="only to 29"):
        connect4_book.generate(31, out, start=_board(ROOT), show=False, partial=True)
    with pytest.raises(BookError, match="already holds every position to 29"):
        connect4_book.generate(29, out, start=_board(ROOT), show=False, partial=True)
    assert main(["connect4", "book", "--plies", "31", "--out", out, "--partial"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "only to 29" in err, err


def test_a_damaged_book_at_out_is_made_again(tmp_path, small_book):
    book, _ = small_book
    out = str(tmp_path / "damaged.bin")
    with open(out, "wb") as f:
        f.write(b"not a book")
    again = connect4_book.generate(31, out, start=_board(ROOT), show=False)
    assert np.array_equal(again.keys, book.keys)


@pytest.mark.parametrize("bad", ["3/2", "0/2", "1", "a/b", "1/65"])
def test_bad_book_part_is_one_line(bad, capsys):
    with pytest.raises(ValueError, match="part"):
        connect4_book.parse_part(bad)
    assert main(["connect4", "book", "--plies", "2", "--out", "x.bin", "--part", bad]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "--part" in err and ("I/N" in err or "1 <= I" in err), err


def test_console_book_checks_its_files_before_any_solve(tmp_path, capsys, monkeypatch):
    def generate(*args, **kwargs):
        raise AssertionError("solving started")
    monkeypatch.setattr(connect4_book, "generate", generate)
    (tmp_path / "b.bin.part1of2.progress.npz").mkdir()
    for out, part, code, needle in [(str(tmp_path), None, 2, "is a folder"),
                                    (str(tmp_path / "no" / "b.bin"), None, 1, "does not exist"),
                                    ("", None, 2, "must not be empty"),
                                    (" ", None, 2, "must not be blank"),
                                    (str(tmp_path / "b.bin"), "1/2", 2, "progress file")]:
        argv = ["connect4", "book", "--plies", "3", "--out", out] + \
            (["--part", part] if part else [])
        assert main(argv) == code
        err = capsys.readouterr().err.strip()
        assert "\n" not in err and needle in err, err
    assert os.listdir(tmp_path) == ["b.bin.part1of2.progress.npz"]


def test_shipped_book_entries_re_solve_or_its_absence_is_said(monkeypatch):
    """A random sample of the shipped book's deepest complete level (and of
    the level being deepened, if any), solved again; while none ships
    (docs/connect4.md: generating it), the engine says so once and answers by
    search."""
    path = connect4_book.SHIPPED
    if not os.path.exists(path):
        monkeypatch.setattr(connect4_book, "_shipped", {})
        with pytest.warns(RuntimeWarning, match="solves every position instead"):
            assert connect4_book.shipped_book() is None
        return
    book = connect4_book.load(path)
    deepest = connect4_book.positions(book.plies)[book.plies]
    rng = random.Random(5)
    kept = 0
    for key in rng.sample(sorted(deepest), 3):
        board = deepest[key]
        assert book.score(board) == connect4.solve(board, table_mb=64).score
        if book.best_column(board) is not None:     # the solver's column: keeps the score
            assert _keeps_score(board, book.best_column(board), book.score(board))
            kept += 1
    if book.deepest > book.plies:
        # a level being deepened: a few of the positions it holds, by random play
        held = [b for b in _random_boards(1500, book.deepest, book.deepest, seed=6)
                if b.ply == book.deepest and book.score(b) is not None][:2]
        assert held
        for board in held:
            assert book.score(board) == connect4.solve(board, table_mb=64).score
            if book.best_column(board) is not None:
                assert _keeps_score(board, book.best_column(board), book.score(board))
                kept += 1
    if (book.columns != connect4_book.NO_COLUMN).any():
        assert kept                   # a book keeping columns: some sampled were checked
    # the published first-move scores (X wins only in the centre, draws beside it)
    empty = connect4.Board()
    assert book.score(empty) == 1
    assert PerfectAgent(book=book).column_scores(empty) == {
        0: -2, 1: -1, 2: 0, 3: 1, 4: 0, 5: -1, 6: -2}


def test_engine_plays_from_the_book_exactly(small_book):
    book, _ = small_book
    agent = PerfectAgent(book=book, seed=3)
    for moves in (ROOT, ROOT + "7", ROOT + "71"):
        b = _board(moves)
        scores = agent.column_scores(b)
        assert agent.last_stats["source"] == "book"
        assert scores == connect4.analyse(b, table_mb=16)
        assert scores[agent.select_move(b)] == max(scores.values())
        assert agent.last_stats == {**agent.last_stats, "source": "book",
                                    "score": max(scores.values())}
    b = _board(ROOT + "717")                   # 31 discs: its children are past the book
    assert agent.column_scores(b) == connect4.analyse(b, table_mb=16)
    assert agent.last_stats["source"] == "solver"


def _spy_optimal_moves(monkeypatch, keyword):
    """The ``keyword`` argument of every call of the solver's ``optimal_moves``
    from now on, in a list that grows as they are made."""
    seen = []
    real = connect4_solve.optimal_moves

    def spy(board, **kw):
        seen.append(kw.get(keyword))
        return real(board, **kw)

    monkeypatch.setattr(connect4_solve, "optimal_moves", spy)
    return seen


def test_engine_moves_past_the_book_by_the_best_columns_alone(small_book, monkeypatch):
    """Past the book the engine solves the position (or takes its score from the
    book at the book's deepest level) and tests each column against it: the
    columns of the best score, as every column's exact score gives them."""
    book, _ = small_book
    seen = _spy_optimal_moves(monkeypatch, "score")
    agent = PerfectAgent(book=book, seed=3)
    for moves, known in ((ROOT + "717", True), (ROOT + "7173", False)):
        b = _board(moves)                      # 31 discs (in the book), then 32
        scores = connect4.analyse(b, table_mb=16)
        best = max(scores.values())
        assert agent.optimal_columns(b) == [c for c in sorted(scores) if scores[c] == best]
        assert agent.last_stats["source"] == "solver" and agent.last_stats["score"] == best
        assert (seen[-1] == book.score(b)) if known else seen[-1] is None
        assert scores[agent.select_move(b)] == best


def test_engine_proves_only_the_column_it_plays(small_book, monkeypatch):
    """To move past the book the engine tests columns in a random order fixed
    by the seed and stops at the first that keeps the score: every move is
    best, every best column gets played under some seed, the leftmost with
    ``randomize=False``, and it tests fewer columns than finding them all."""
    book, _ = small_book
    tests = _spy_optimal_moves(monkeypatch, "columns")
    boards = [b for b in _random_boards(60, 10, 22, seed=8)
              if connect4.solve(b, table_mb=16, time_limit=2).value != "unknown"][:12]
    several = 0
    for b in boards + [_board(ROOT + "717"), _board(ROOT + "7173")]:
        scores = connect4.analyse(b, table_mb=16)
        best = [c for c in sorted(scores) if scores[c] == max(scores.values())]
        picks = set()
        for seed in range(8):
            tests.clear()
            move = PerfectAgent(book=book, seed=seed, threads=1).select_move(b)
            assert move in best
            assert sum(len(t) for t in tests if t) <= len(scores)
            picks.add(move)
        several += len(best) > 1
        assert picks <= set(best) and (len(best) == 1 or len(picks) > 1)
        assert PerfectAgent(book=book, randomize=False, threads=1).select_move(b) == best[0]
    assert several >= 2
    b = boards[0]
    assert PerfectAgent(book=False).solved_move(b, [0, 1, 2, 3, 4, 5, 6],
                                                time_limit=1e-6)[1] in (None, *range(7))


def test_forget_table_makes_the_next_kept_solve_start_empty():
    for b in _random_boards(20, 14, 16, seed=2):
        connect4_solve.forget_table()
        cold = connect4_solve.solve(b, keep_table=True, table_mb=16).nodes
        if cold > 1000:
            break
    warm = connect4_solve.solve(b, keep_table=True, table_mb=16).nodes
    connect4_solve.forget_table()
    again = connect4_solve.solve(b, keep_table=True, table_mb=16).nodes
    assert warm < cold == again


def test_engine_keeps_its_table_through_a_game_and_stays_exact():
    """The engine keeps the solver's table from one move to the next (and other
    solves between its moves take it away): every move of a game, both sides
    played by it, is one of the best columns by every column's exact score."""
    agent = PerfectAgent(book=False, seed=2)
    b = _board(ROOT[:24])
    while not b.is_terminal():
        scores = connect4.analyse(b, table_mb=16) if b.ply % 3 else None
        move = agent.select_move(b)
        if scores is not None:
            assert scores[move] == max(scores.values()), (b.moves, move)
        b.push(move)


def test_move_scores_agree_with_exact_alpha_beta():
    """Past ``EXHAUSTIVE_PLIES`` discs the generic exact engine finishes:
    the same win distances for every column."""
    ours = PerfectAgent(book=False)
    generic = agents.PerfectAgent()
    for b in _random_boards(12, connect4.EXHAUSTIVE_PLIES, 34, 4):
        assert ours.move_scores(b) == generic.move_scores(b)


def test_seed_picks_among_equal_columns():
    b = _board("444444555555")                 # columns 3 and 6 win at once
    picks = {games.get("connect4").make_agent("perfect", seed=s, book=False).select_move(b)
             for s in range(12)}
    assert picks == {2, 5}
    a1 = PerfectAgent(seed=7, book=False)
    a2 = pickle.loads(pickle.dumps(a1))
    assert [a1.select_move(b) for _ in range(6)] == [a2.select_move(b) for _ in range(6)]
    assert PerfectAgent(randomize=False, book=False).select_move(b) == 2


def test_analysis_shows_every_columns_exact_score():
    g = games.get("connect4")
    b = _board("444444555555")
    a = g.analyse(b, g.make_agent("perfect", book=False))
    rows = {r.move: r for r in a.rows}
    assert rows[2].verdict == "win in 3" and rows[2].value == 14
    assert rows[1].verdict == "draw"
    assert a.best_move in (2, 5)
    with pytest.raises(ValueError, match="does not take time="):
        g.make_agent("perfect", time=1.0)


def test_console_solve_and_analyse(capsys):
    assert main(["connect4", "solve", "444444555555"]) == 0
    out = capsys.readouterr().out
    assert "X to move: win, win in 3 plies (+14); best column 3" in out
    assert main(["connect4", "analyse", "444444555555"]) == 0
    out = capsys.readouterr().out
    assert "column 3: win in 3 plies (+14)" in out and "column 2: draw (0)" in out
    assert "column 4" not in out                                   # full


def test_console_answers_the_opening_from_the_shipped_book(capsys):
    """The empty board and a book position whose children are past the book:
    the published result at once (the solver alone takes minutes), the best
    column centre first among equals."""
    assert main(["connect4", "solve", "-"]) == 0
    assert "X to move: win, win in 41 plies (+1); best column 4" in capsys.readouterr().out
    assert main(["connect4", "analyse", "-"]) == 0
    out = capsys.readouterr().out
    assert "column 4: win in 41 plies (+1)" in out and "column 1: loss in 40 plies (-2)" in out
    b = _board("444444")                        # 6 discs: the book's deepest level
    score = connect4_book.shipped_book().score(b)
    _, keeping = connect4.optimal_moves(b, table_mb=64)
    assert main(["connect4", "solve", "444444"]) == 0
    out = capsys.readouterr().out
    best = min(keeping, key=(3, 2, 4, 1, 5, 0, 6).index)
    assert out.startswith("X to move: ") and f"({score:+d}); best column {best + 1}" in out


def test_console_threads_limit_is_the_solvers(capsys):
    from ttt_engine._core.solvers.connect4 import solve as compiled
    from ttt_engine.cli import build_parser
    parser = build_parser()
    top = str(compiled.MAX_THREADS)
    assert parser.parse_args(["connect4", "solve", "4", "--threads", top]).threads == \
        compiled.MAX_THREADS
    with pytest.raises(SystemExit):
        parser.parse_args(["connect4", "solve", "4", "--threads", str(compiled.MAX_THREADS + 1)])


def test_console_says_a_library_warning_in_one_line(capsys, monkeypatch):
    """Without a shipped book the console's analyse says so on one line of its
    own (``ttt-engine: warning: ...``), not with a source file and line, and
    still answers by search; ``--threads 2`` gives the same scores."""
    monkeypatch.setattr(connect4_book, "SHIPPED", os.path.join(os.sep, "nonexistent", "book.bin"))
    monkeypatch.setattr(connect4_book, "_shipped", {})
    assert main(["connect4", "analyse", "444444555555", "--threads", "2"]) == 0
    out, err = capsys.readouterr()
    assert "column 3: win in 3 plies (+14)" in out
    assert err.startswith("ttt-engine: warning: Connect Four book ") and err.count("\n") == 1
    assert "solves every position instead" in err and ".py" not in err


@pytest.mark.parametrize("moves, why", [("4458", "'8'.*column out of range"),
                                        ("44x", "'x'.*not a column 1-7"),
                                        ("4444444", "column 4 is full")])
def test_console_bad_moves_are_one_line(capsys, moves, why):
    assert main(["connect4", "analyse", moves]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and re.search(why, err)


def test_bad_book_argument():
    with pytest.raises(ValueError, match="book must be"):
        PerfectAgent(book=3)


def test_threads_change_only_the_time():
    """``threads``: both cores by default; the moves and the analysis are the
    same with one thread or two (exact either way)."""
    g = games.get("connect4")
    assert g.make_agent("perfect").threads == min(2, len(os.sched_getaffinity(0)))
    boards = _random_boards(6, 12, 18, seed=21)
    one = PerfectAgent(seed=4, book=False, threads=1)
    two = g.make_agent("perfect", seed=4, book=False, threads=2)
    assert [one.select_move(b) for b in boards] == [two.select_move(b) for b in boards]
    assert [one.column_scores(b) for b in boards[:2]] == [two.column_scores(b)
                                                          for b in boards[:2]]
    assert pickle.loads(pickle.dumps(two)).threads == 2


@pytest.mark.parametrize("bad", [0, 99, "two"])
def test_bad_threads_is_one_line(bad):
    with pytest.raises(ValueError, match="threads"):
        PerfectAgent(threads=bad)


def test_parents_bound_a_position_past_the_book(small_book):
    """``parent_keys``: the positions one disc earlier (checked against the
    book's own enumeration of a subtree); ``parent_bound``: minus the best parent's score,
    never above the exact score and equal to it for a child that keeps its
    parent's score."""
    book, _ = small_book
    levels = connect4_book.positions(31, _board(ROOT))
    parents = {}
    for k, q in levels[2].items():                # 30 discs -> their 31-disc children
        for col in q.legal_moves:
            q.push(col)
            if q.winner is None:
                parents.setdefault(connect4_book.canonical_key(q), set()).add(k)
            q.pop()
    for k, b in levels[3].items():
        got = set(connect4_book.parent_keys(b))
        # the others are parents outside the subtree of ROOT
        assert parents[k] <= got and not (got - parents[k]) & set(levels[2])
    exact = equal = 0
    for q in levels[3].values():                   # 31 discs, the deepest: children of 32
        sq = book.score(q)
        for col in q.legal_moves:
            q.push(col)
            if q.winner is None:
                bound, score = book.parent_bound(q), connect4.solve(q).score
                assert bound is not None and -sq <= bound <= score
                exact += bound == score
                equal += score == -sq
            q.pop()
    assert exact >= equal > 0
    assert book.parent_bound(connect4.Board()) is None
