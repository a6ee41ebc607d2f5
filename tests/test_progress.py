"""``progress=`` of the games' solves and the Connect Four book's progress line.

The reports are checked against what the solve then returns (the score
inside every bound reported on the way, the counts never going back, the
last report the result's node count); none of this depends on the clock.
"""
import io
import sys

import pytest

from ttt_engine import _progress, clobber, connect4, quixo, ttt, uttt
from ttt_engine.connect4 import book as connect4_book
from ttt_engine.connect4 import solver as connect4_solve


def _check_counts(reports, nodes):
    counts = [p.nodes for p in reports]
    assert counts == sorted(counts), counts
    assert reports[-1].done and counts[-1] == nodes
    assert all(not p.done for p in reports[:-1])
    seconds = [p.seconds for p in reports]
    assert seconds == sorted(seconds)


def test_connect4_solve_reports_its_bounds_on_the_way_to_the_score():
    board = connect4.from_moves("444333555")          # about 2 M nodes, half a second
    reports = []
    r = connect4_solve.solve(board, progress=reports.append, table_mb=64)
    assert r.score == -2
    _check_counts(reports, r.nodes)
    assert len(reports) >= 4 and reports[0].nodes < reports[-1].nodes
    for p in reports:
        assert isinstance(p, _progress.SolveProgress)
        assert p.low <= r.score <= p.high, p
    widths = [p.high - p.low for p in reports]
    assert widths == sorted(widths, reverse=True) and widths[-1] == 0
    assert reports[-1].stage == "solved"


def test_threads_and_limits_report_as_one_search():
    board = connect4.from_moves("444333555")
    reports = []
    r = connect4_solve.solve(board, progress=reports.append, table_mb=64, threads=2)
    assert r.score == -2
    _check_counts(reports, r.nodes)          # every thread's nodes
    assert all(p.low <= -2 <= p.high for p in reports)
    reports.clear()
    r = connect4_solve.solve(board, progress=reports.append, table_mb=64, max_nodes=50_000)
    assert r.value == "unknown"
    _check_counts(reports, r.nodes)
    assert reports[-1].stage == "stopped by the limit" and reports[-1].low is None


def test_the_timed_reports_come_from_inside_the_search(monkeypatch):
    # with no pause between them, the search reports at every limit check
    # (1024 nodes): far more often than once a root search
    board = connect4.from_moves("444333555")
    few = []
    connect4_solve.solve(board, progress=few.append, table_mb=64)
    monkeypatch.setattr(_progress, "EVERY", 0.0)
    many = []
    r = connect4_solve.solve(board, progress=many.append, table_mb=64)
    assert r.score == -2
    _check_counts(many, r.nodes)
    assert len(many) > 10 * len(few)


def test_connect4_analyse_reports_each_column_as_its_own_score():
    board = connect4.from_moves("444444555555")
    reports = []
    scores = connect4_solve.analyse(board, progress=reports.append, table_mb=64)
    _check_counts(reports, reports[-1].nodes)
    seen = set()
    for p in reports[:-1]:
        col = int(p.stage.split()[-1]) - 1
        seen.add(col)
        assert p.low <= scores[col] <= p.high, (p, scores[col])
    assert seen <= set(scores) and len(seen) >= 2


def test_the_public_verbs_take_progress_and_the_book_answers_in_one_report():
    reports = []
    r = connect4.solve(connect4.Board(), progress=reports.append)
    assert r.score == 1 and len(reports) == 1
    assert reports[0].done and reports[0].stage == "from the book" and reports[0].low == 1
    reports.clear()
    score, cols = connect4.optimal_moves(connect4.from_moves("444333555"), book=False,
                                         progress=reports.append, table_mb=64)
    assert score == -2 and reports[-1].done and reports[-1].low == score
    assert all(p.low <= score <= p.high for p in reports)


def test_progress_true_draws_one_line_on_stderr(capsys):
    connect4_solve.solve(connect4.from_moves("444333555"), progress=True, table_mb=64)
    err = capsys.readouterr().err.splitlines()
    assert err and all(line.startswith("connect4.solve: ") for line in err)
    assert "score -2" in err[-1] and err[-1].endswith("done")


def test_an_error_in_the_callable_stops_the_search_and_is_raised():
    board = connect4.from_moves("444333555")
    calls = []

    def stop(p):
        calls.append(p)
        if len(calls) == 3:
            raise RuntimeError("enough")

    with pytest.raises(RuntimeError, match="enough"):
        connect4_solve.solve(board, progress=stop, table_mb=64)
    assert len(calls) == 3
    # the table is left consistent: the same solve again is exact
    assert connect4_solve.solve(board, table_mb=64).score == -2
    with pytest.raises(RuntimeError, match="enough"):
        clobber.solve(clobber.Board(4, 5), progress=_raiser())


def _raiser():
    def stop(p):
        raise RuntimeError("enough")
    return stop


def test_clobber_reports_nodes_and_depth(monkeypatch):
    monkeypatch.setattr(_progress, "EVERY", 0.0)     # report at every check
    reports = []
    r = clobber.solve(clobber.Board(4, 5), progress=reports.append)
    assert r.value == "win"
    _check_counts(reports, r.nodes)
    assert len(reports) >= 3 and reports[0].nodes < r.nodes
    assert all(p.stage.startswith("depth ") for p in reports[:-1])
    assert reports[-1].stage == "solved: win"


def test_the_deepening_solves_report_each_depth():
    reports = []
    r = ttt.solve(ttt.Board(), progress=reports.append)
    assert r.value == "draw"
    _check_counts(reports, r.nodes)
    depths = [int(p.stage.split()[1]) for p in reports[:-1]]
    assert depths == list(range(1, len(depths) + 1)) and len(depths) >= 3
    reports.clear()
    r = quixo.solve(quixo.Board(), max_nodes=20_000, progress=reports.append)
    assert r.value == "unknown" and reports[-1].stage == "stopped by the limit"
    _check_counts(reports, r.nodes)


@pytest.mark.parametrize("call", [
    lambda p: connect4.solve(connect4.Board(), progress=p),
    lambda p: connect4.analyse(connect4.Board(), progress=p),
    lambda p: connect4.optimal_moves(connect4.Board(), progress=p),
    lambda p: connect4_solve.solve(connect4.from_moves("444444555555"), progress=p),
    lambda p: clobber.solve(clobber.Board(3, 3), progress=p),
    lambda p: quixo.solve(quixo.Board(size=3), progress=p),
    lambda p: ttt.solve(ttt.Board(), progress=p),
    lambda p: uttt.solve(uttt.Board(), max_nodes=10, progress=p),
])
@pytest.mark.parametrize("bad", ["yes", 1, 0, 0.5, None.__class__])
def test_a_bad_progress_is_one_line(call, bad):
    with pytest.raises(ValueError) as e:
        call(bad)
    text = str(e.value)
    assert "\n" not in text and text.startswith("progress must be True")


def test_book_building_shows_done_total_and_time_left(tmp_path):
    start = connect4.from_moves("444444333333")
    out = io.StringIO()
    book = connect4_book.generate(15, str(tmp_path / "b.bin"), start=start, stream=out,
                                  table_mb=16)
    lines = out.getvalue().splitlines()
    total = int(lines[0].split(": ")[1].split()[0].replace(",", ""))
    assert total > 10 and len(book) > total
    assert lines[1].startswith(f"book to 15 discs: 0/{total:,} (0.0%)")
    assert "time left: known once one is done" in lines[1]
    assert lines[-2].startswith(f"book to 15 discs: {total:,}/{total:,} (100.0%)")
    assert lines[-2].endswith("done") and lines[-1].startswith("wrote ")


def test_the_time_left_comes_from_the_pace_so_far():
    line = _progress.WorkLine("job", 10, io.StringIO(), done=2, seconds=40.0)
    # before this run has done a unit: the earlier runs' pace, 20 s a unit
    assert line.left(2) == pytest.approx(160.0)
    assert "about 2:40 left" in line.text(2)
    line.update(2, force=True)
    assert line.stream.getvalue().startswith("job: 2/10 (20.0%)")
    assert _progress.WorkLine("job", 10, io.StringIO()).left(0) is None


def test_ctrl_c_in_a_book_solve_keeps_the_book_resumable(tmp_path, monkeypatch):
    start = connect4.from_moves("444444333333")
    clean = connect4_book.generate(15, str(tmp_path / "clean.bin"), start=start, show=False,
                                   table_mb=16)
    out = str(tmp_path / "b.bin")
    monkeypatch.setattr(_progress, "EVERY", 0.0)
    seen = []
    real = _progress.WorkLine.update

    def update(self, done, detail="", force=False):
        # Ctrl-C arriving while a search reports, within its fourth position
        if detail and done == 3:
            seen.append(done)
            raise KeyboardInterrupt
        return real(self, done, detail, force)

    monkeypatch.setattr(_progress.WorkLine, "update", update)
    with pytest.raises(KeyboardInterrupt):
        connect4_book.generate(15, out, start=start, stream=io.StringIO(), table_mb=16)
    assert seen
    import numpy as np
    with np.load(out + ".progress.npz") as z:
        assert int((z["scores"] != -128).sum()) == 3
    monkeypatch.setattr(_progress.WorkLine, "update", real)
    again = connect4_book.generate(15, out, start=start, stream=io.StringIO(), table_mb=16)
    assert list(again.keys) == list(clean.keys) and list(again.scores) == list(clean.scores)


class _Terminal(io.StringIO):
    def isatty(self):
        return True


@pytest.mark.parametrize("mode", ["solve", "analyse"])
def test_the_console_shows_the_search_on_a_terminal_only(monkeypatch, capsys, mode):
    from ttt_engine.cli import main
    tty = _Terminal()
    monkeypatch.setattr("sys.stderr", tty)
    assert main(["connect4", mode, "444333555"]) == 0
    shown = tty.getvalue()
    assert shown.startswith(f"\rconnect4.{mode}: ") and shown.endswith("done\x1b[K\n")
    answer = capsys.readouterr().out
    assert ("loss" in answer and "best column" in answer) if mode == "solve" \
        else answer.count("column") == 7
    tty.truncate(0)
    tty.seek(0)
    assert main(["connect4", mode, "444333555", "--quiet"]) == 0
    assert tty.getvalue() == ""
    monkeypatch.setattr("sys.stderr", io.StringIO())    # not a terminal: the answer alone
    assert main(["connect4", mode, "444333555"]) == 0
    assert sys.stderr.getvalue() == ""
