"""The exact Connect Four solver (``connect4.solve`` / ``connect4.analyse``) against
the independent plain-Python solver in ``connect4_reference.py``: scores in the
standard test-set convention (0 a draw; a win with the mover's k-th disc of the
game 22 - k; a loss minus the winner's score), values, winners, best moves and
per-column scores on late positions reached by seeded random play; the
convention on positions worked by hand; limits; one-line errors for bad input.
Only positions of 26 discs or more: earlier ones are beyond the reference."""
import os
import random
import re

import pytest

import connect4_reference as ref
from ttt_engine import connect4, uttt
from ttt_engine.connect4 import solver as connect4_solve


def board_of(moves):
    """The engine's board after ``moves`` (columns 1..7 from the empty board)."""
    parse = getattr(connect4, "from_moves", None) or connect4.Board.from_moves
    return parse(moves)


def random_positions(n, lo, hi, seed, careful=False):
    """``n`` move strings of ``lo``..``hi`` discs by uniformly random play from the
    empty board (the reference's rules), none of them finished.  ``careful``: each
    side takes a win it has and blocks one of the opponent's, which leaves closer
    games and longer wins to find."""
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        discs = rng.randint(lo, hi)
        pos, moves = ref.Position(), ""
        while pos.n < discs and not pos.won:
            choices = pos.legal()
            if careful:
                wins = [c for c in choices if pos.wins_at(c)]
                pos.n += 1      # the opponent's view of the same cells
                blocks = [c for c in choices if pos.wins_at(c)]
                pos.n -= 1
                choices = wins or blocks or choices
            c = rng.choice(choices)
            pos.won = pos.wins_at(c)
            pos.play(c)
            moves += str(c + 1)
        if not pos.won and pos.n == discs:
            out.append(moves)
    return out


LATE = random_positions(300, 28, 36, seed=11)
EARLIER = random_positions(40, 26, 27, seed=12)
CAREFUL = random_positions(60, 26, 32, seed=16, careful=True)


def sign(v):
    return (v > 0) - (v < 0)


def mover(moves):
    return "XO"[len(moves) % 2]


def other(symbol):
    return "O" if symbol == "X" else "X"


# ---------------------------------------------------------------- the reference itself
def test_reference_matches_plain_minimax():
    """The reference's alpha-beta with its memo and shortcuts against minimax over
    every move order, on positions of 34-38 discs."""
    positions = random_positions(60, 34, 38, seed=13)
    for moves in positions:
        want = ref.brute_score(moves)
        assert ref.score(moves) == want, moves
        assert ref.weak(moves) == sign(want), moves
        assert max(ref.move_scores(moves).values()) == want, moves
    # a mix of outcomes, or the comparison would prove little
    assert {sign(ref.brute_score(m)) for m in positions} == {-1, 0, 1}


def test_reference_convention_by_hand():
    # X (to move, 3 discs) wins at once with its 4th: 22 - 4
    assert ref.score("121212") == 18
    # O (to move, 3 discs) likewise
    assert ref.score("1212123") == 18
    # O to move against X's open three on columns 2-4: X wins with its 4th disc
    assert ref.score("22334") == -18
    # X makes that open three with column 4 (index 3) and wins with its 4th disc
    assert ref.score("2233") == 18


# ---------------------------------------------------------------- exactness
#: the table of the bulk checks: these positions need far less than the default
#: (whose fresh pages cost seconds to fault in the first time a process uses them)
TABLE_MB = 64


def check_position(moves):
    b = board_of(moves)
    want = ref.score(moves)
    per_column = ref.move_scores(moves)
    r = connect4_solve.solve(b, table_mb=TABLE_MB)
    assert r.score == want, moves
    assert r.value == {1: "win", 0: "draw", -1: "loss"}[sign(want)], moves
    assert r.winner == {1: mover(moves), 0: "draw", -1: other(mover(moves))}[sign(want)], moves
    # the fastest win, the slowest loss, a drawing move in a draw
    assert r.best_move in per_column and per_column[r.best_move] == want, (moves, r.best_move)
    assert connect4_solve.analyse(b, table_mb=TABLE_MB) == per_column, moves
    keeping = sorted(c for c, s in per_column.items() if s == want)
    assert connect4_solve.optimal_moves(b, table_mb=TABLE_MB) == (want, keeping), moves
    assert connect4_solve.optimal_moves(b, score=want, table_mb=TABLE_MB) == (want, keeping), moves
    w = connect4_solve.solve(b, weak=True, table_mb=TABLE_MB)
    assert w.value == r.value and w.winner == r.winner and w.score is None, moves
    assert b.moves == [int(ch) - 1 for ch in moves]   # the solve left the board as it was


def test_late_positions_match_reference():
    for moves in LATE:
        check_position(moves)
    # the positions cover every outcome, and wins and losses of several lengths
    scores = [ref.score(m) for m in LATE]
    assert {sign(s) for s in scores} == {-1, 0, 1}
    assert len(set(scores)) >= 8


def test_optimal_moves_find_every_tied_column():
    """``optimal_moves`` tests each column against the root's score: every
    column of the best score, several of them where several tie."""
    ties = 0
    for moves in LATE[:100]:
        per_column = ref.move_scores(moves)
        best = max(per_column.values())
        keeping = [c for c in sorted(per_column) if per_column[c] == best]
        assert connect4_solve.optimal_moves(board_of(moves), threads=2, table_mb=TABLE_MB) == (
            best, keeping), moves
        ties += len(keeping) > 1
    assert ties >= 10


def test_optimal_moves_of_a_finished_game_and_a_wrong_score():
    won = board_of("1212121")
    assert connect4_solve.optimal_moves(won) == (-18, [])
    moves = LATE[0]
    want = ref.score(moves)
    assert want < 21
    b = board_of(moves)
    # a score above the truth is kept by no column
    msg = one_line_error(lambda: connect4_solve.optimal_moves(b, score=want + 1, table_mb=TABLE_MB))
    assert "no column keeps it" in msg
    for bad in (22, -22, 1.5, "3"):
        assert "score" in one_line_error(lambda: connect4_solve.optimal_moves(b, score=bad))


def test_26_and_27_disc_positions_match_reference():
    for moves in EARLIER:
        check_position(moves)


def test_careful_play_positions_match_reference():
    for moves in CAREFUL:
        check_position(moves)
    # long wins and losses among them, the search's hardest cases here
    scores = [ref.score(m) for m in CAREFUL]
    assert max(scores) >= 6 and min(scores) <= -6 and 0 in scores


def test_immediate_wins_score_22_minus_k():
    """Wherever random play reaches a position the mover wins at once, its score is
    22 - k, k the mover's disc count after the winning move; every winning column
    scores that in ``analyse`` and the best move is one of them."""
    rng = random.Random(14)
    ks = []
    while len(ks) < 30:
        pos, moves = ref.Position(), ""
        while not pos.won and pos.n < ref.CELLS:
            wins = [c for c in pos.legal() if pos.wins_at(c)]
            if wins and pos.n >= 26:
                k = pos.n // 2 + 1
                ks.append(k)
                r = connect4_solve.solve(board_of(moves), table_mb=TABLE_MB)
                assert (r.score, r.value, r.winner) == (22 - k, "win", mover(moves)), moves
                assert r.best_move in wins, moves
                scores = connect4_solve.analyse(board_of(moves), table_mb=TABLE_MB)
                assert all(scores[c] == 22 - k for c in wins), moves
                break
            c = rng.choice(pos.legal())
            pos.won = pos.wins_at(c)
            pos.play(c)
            moves += str(c + 1)
    assert len(set(ks)) >= 4     # wins at several stages, both sides


def test_double_threat_loses_to_the_next_disc():
    """The mover without a win facing two immediate wins of the opponent loses to the
    opponent's next disc: minus (22 - k), k the opponent's disc count after it."""
    rng = random.Random(15)
    found = 0
    while found < 15:
        pos, moves = ref.Position(), ""
        while not pos.won and pos.n < ref.CELLS - 1:
            if pos.n >= 26 and not any(pos.wins_at(c) for c in pos.legal()):
                pos.n += 1
                threats = [c for c in pos.legal() if pos.wins_at(c)]
                pos.n -= 1
                if len(threats) >= 2:
                    found += 1
                    k = (pos.n + 1) // 2 + 1
                    r = connect4_solve.solve(board_of(moves), table_mb=TABLE_MB)
                    assert (r.score, r.value, r.winner) == (-(22 - k), "loss",
                                                            other(mover(moves))), moves
                    assert r.best_move in pos.legal(), moves
                    break
            c = rng.choice(pos.legal())
            pos.won = pos.wins_at(c)
            pos.play(c)
            moves += str(c + 1)


def test_convention_on_early_positions_by_hand():
    for moves, want in (("121212", 18), ("1212123", 18), ("22334", -18), ("2233", 18)):
        r = connect4_solve.solve(board_of(moves))
        assert r.score == want, moves
    assert connect4_solve.solve(board_of("2233")).best_move == 3
    assert connect4_solve.solve(board_of("121212")).best_move == 0


def test_finished_game():
    b = board_of("33441212121")      # X's four up column 1
    r = connect4_solve.solve(b)
    # X made four with its 6th disc: the side to move scores -(22 - 6)
    assert (r.value, r.winner, r.best_move, r.score) == ("loss", "X", None, -16)
    assert connect4_solve.analyse(b) == {}


def test_same_position_twice_same_result():
    for moves in LATE[:20]:
        b = board_of(moves)
        first, second = (connect4_solve.solve(b, table_mb=TABLE_MB) for _ in range(2))
        assert (first.score, first.value, first.winner, first.best_move) == \
            (second.score, second.value, second.winner, second.best_move), moves
        assert (connect4_solve.analyse(b, table_mb=TABLE_MB)
                == connect4_solve.analyse(b, table_mb=TABLE_MB)), moves


def test_small_table_and_two_threads_stay_exact():
    for moves in LATE[:30] + EARLIER[:10]:
        want = ref.score(moves)
        b = board_of(moves)
        per_column = ref.move_scores(moves)
        for r in (connect4_solve.solve(b, table_mb=1), connect4_solve.solve(b, threads=2, table_mb=TABLE_MB)):
            assert r.score == want and per_column[r.best_move] == want, moves


SETS = os.path.join(os.path.dirname(__file__), os.pardir, "bench", "data", "connect4")


@pytest.mark.parametrize("kind", ["middle-medium", "begin-easy"])
def test_threads_splitting_the_moves_keep_the_score(kind):
    """With two or three threads the moves near the root are split between
    them (a move another thread is searching waits); the score and the move
    must stay those of one thread, on positions far enough from the end that
    the split happens at many nodes (the sets' scores: one thread, checked
    against an independent solver in docs/connect4.md)."""
    with open(os.path.join(SETS, kind + ".txt")) as f:
        rows = [line.split() for line in f][:12]
    for moves, score in rows:
        b = board_of(moves)
        one = connect4_solve.solve(b, table_mb=TABLE_MB)
        assert one.score == int(score), moves
        for threads in (2, 3):
            r = connect4_solve.solve(b, threads=threads, table_mb=TABLE_MB)
            assert (r.score, r.best_move) == (one.score, one.best_move), (moves, threads)
        assert connect4_solve.analyse(b, threads=2, table_mb=TABLE_MB) == connect4_solve.analyse(
            b, table_mb=TABLE_MB), moves


@pytest.mark.parametrize("kind,table_mb", [("begin-medium", TABLE_MB), ("middle-medium", 1)])
def test_threads_leaving_nodes_another_settled_keep_the_score(kind, table_mb):
    """A thread leaves a split node on its path, from however deep below it,
    once another thread's cutoff has settled it (read from the table), and
    searches its move again if the word was replaced meanwhile (a 1-MB table
    replaces often): the score must stay exact and every searching-now count
    must be back at 0 after each solve."""
    from ttt_engine._core.solvers.connect4 import solve as compiled
    with open(os.path.join(SETS, kind + ".txt")) as f:
        rows = [line.split() for line in f][:6]
    for moves, score in rows:
        b = board_of(moves)
        for threads in (2, 3):
            for weak in (False, True):
                r = connect4_solve.solve(b, threads=threads, weak=weak, table_mb=table_mb)
                want = int(score)
                assert r.value == ("win" if want > 0 else "loss" if want < 0 else "draw"), moves
                if not weak:
                    assert r.score == want, (moves, threads)
                assert compiled.searching_now() == 0


def _set(kind, n):
    with open(os.path.join(SETS, kind + ".txt")) as f:
        return [(m, int(s)) for m, s in (line.split() for line in f)][:n]


def test_the_table_grows_as_it_fills_and_empties_by_generation():
    """A one-thread solve starts on the table's first megabyte and doubles the
    part in use as it fills (rehashing in place); the next solve starts
    empty on the first megabyte again.  Scores stay the sets', and a position
    solved twice searches the same nodes both times (the second table is as
    empty as the first: nothing of the previous generation is read)."""
    from ttt_engine._core.solvers.connect4 import solve as compiled
    hard, hard_score = _set("begin-medium", 3)[2]         # 324,175 nodes
    first = connect4.solve(board_of(hard))
    grown, whole = compiled.table_in_use()
    assert first.score == hard_score and whole == 1 << 25 and 1 << 15 < grown < whole
    for moves, score in _set("begin-easy", 20):
        assert connect4.solve(board_of(moves)).score == score, moves
    assert compiled.table_in_use()[0] < grown
    again = connect4.solve(board_of(hard))
    assert (again.score, again.best_move, again.nodes) == (first.score, first.best_move,
                                                          first.nodes)


def test_generations_wrap_to_a_zeroed_table():
    """After ``GENERATIONS`` solves a table's generation numbers come round
    again: the memory is zeroed then, so a position solved again under the
    same generation number as before searches the same nodes (a stale word
    read as current would save some)."""
    from ttt_engine._core.solvers.connect4 import solve as compiled
    (moves, score), = _set("begin-medium", 1)
    b, easy = board_of(moves), board_of("121212")       # X wins at once
    first = compiled.solve_board(b, table_mb=TABLE_MB)
    for _ in range(compiled.GENERATIONS - 1):
        compiled.solve_board(easy, table_mb=TABLE_MB)
    assert compiled.solve_board(b, table_mb=TABLE_MB) == first and first[0] == score


def test_a_kept_table_grows_and_threads_take_it_whole():
    """``keep_table`` solves on one thread keep growing one layout; a kept
    solve on two threads first grows it whole (threads cannot rehash under
    each other): every score stays the set's."""
    rows = _set("middle-medium", 6)
    for i, (moves, score) in enumerate(rows):
        r = connect4_solve.solve(board_of(moves), keep_table=True, threads=1 + i % 2,
                                 table_mb=TABLE_MB)
        assert r.score == score, (moves, i)


def test_two_python_threads_solve_at_once():
    """Two threads of the caller solving at the same time: the first takes
    the module's table, the second a table of its own; both exact."""
    import threading
    rows = _set("begin-medium", 4)
    out = {}

    def work(part):
        out[part] = [connect4.solve(board_of(m)).score for m, _ in rows[part::2]]

    threads = [threading.Thread(target=work, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert out == {k: [s for _, s in rows[k::2]] for k in range(2)}


# ---------------------------------------------------------------- limits
FAR = "4453"    # 38 empty cells: no solve finishes in one node or a microsecond


@pytest.mark.parametrize("limits", [dict(max_nodes=1), dict(time_limit=1e-6)])
@pytest.mark.parametrize("weak", [False, True])
def test_limits_give_unknown(limits, weak):
    r = connect4_solve.solve(board_of(FAR), weak=weak, **limits)
    assert (r.value, r.winner, r.best_move, r.score) == ("unknown", None, None, None)
    assert not r.exact
    if not weak:
        assert connect4_solve.optimal_moves(board_of(FAR), **limits) == (None, None)


def test_threads_stopped_by_a_limit_leave_no_count_behind():
    """Threads that split the moves count the positions they are searching; a
    search stopped by its time limit must leave every count at 0, or later
    searches would keep putting those moves last."""
    from ttt_engine._core.solvers.connect4 import solve as compiled
    for limit in (1e-3, 0.02, 0.05):
        r = connect4_solve.solve(board_of(FAR), threads=2, time_limit=limit, table_mb=TABLE_MB)
        assert r.value == "unknown"
        assert compiled.searching_now() == 0
    moves, score = "53375532", 12          # begin-easy: the first row of bench/data
    assert connect4_solve.solve(board_of(moves), threads=2, table_mb=TABLE_MB).score == score
    assert compiled.searching_now() == 0


def test_a_time_limit_holds_on_a_cold_table():
    """The deadline is checked against the interrupt poll's clock at every node,
    not every 1024 nodes: on a fresh 1 GB table a node can cost a page fault
    of a millisecond (a 0.2-s limit ran 0.6 s), so the limit holds there too.
    In a fresh process, whose table no earlier solve has touched."""
    import subprocess
    import sys
    code = ("from ttt_engine import connect4\n"
            "b = connect4.Board()\n"
            "for m in (3, 3, 4, 2):\n"
            "    b.push(m)\n"
            "r = connect4.solve(b, time_limit=0.2, table_mb=1024, book=False)\n"
            "print(r.value, r.seconds)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60, check=True).stdout.split()
    assert out[0] == "unknown" and float(out[1]) < 0.2 + 0.25, out


def test_generous_limits_stay_exact():
    moves = LATE[0]
    r = connect4_solve.solve(board_of(moves), max_nodes=10**9, time_limit=600)
    assert r.score == ref.score(moves)


# ---------------------------------------------------------------- bad input
def one_line_error(call):
    with pytest.raises(ValueError) as e:
        call()
    msg = str(e.value)
    assert msg and "\n" not in msg
    return msg.lower()


PREFIX = "1234567123"   # ten moves, nobody wins: the bad move is the 11th


@pytest.mark.parametrize("bad, why", [
    (PREFIX + "8", ("range", "1..7", "1-7")),
    (PREFIX + "0", ("range", "1..7", "1-7")),
    (PREFIX + "x", ("not a column", "digit", "character")),
    ("1122" + "444444" + "4", ("full",)),
    ("33441212121" + "5", ("over", "ended", "finished", "won")),
])
def test_bad_move_strings(bad, why):
    # the reference agrees the prefix is fine and the last move is not
    ref.Position.from_moves(bad[:-1])
    with pytest.raises(ValueError):
        ref.Position.from_moves(bad)
    msg = one_line_error(lambda: board_of(bad))
    i = len(bad) - 1
    ch = bad[-1]
    # the character, quoted or (a digit) standing alone
    assert f"'{ch}'" in msg or f'"{ch}"' in msg or (
        ch.isdigit() and re.search(rf"(?<![0-9]){ch}(?![0-9])", msg)), msg
    assert re.search(rf"\b({i}|{i + 1})\b", msg), msg     # its position, 0- or 1-based
    assert any(w in msg for w in why), msg


@pytest.mark.parametrize("kwargs, name", [
    (dict(threads=0), "threads"), (dict(threads=-1), "threads"),
    (dict(threads=100000), "threads"),
    (dict(table_mb=0), "table_mb"), (dict(table_mb=-8), "table_mb"),
    (dict(table_mb=10**9), "table_mb"),
])
@pytest.mark.parametrize("verb", ["solve", "analyse", "optimal_moves"])
def test_bad_options(kwargs, name, verb):
    b = board_of(LATE[0])
    msg = one_line_error(lambda: getattr(connect4, verb)(b, **kwargs))
    assert name in msg, msg


@pytest.mark.parametrize("verb", ["solve", "analyse", "optimal_moves"])
def test_board_of_another_game(verb):
    msg = one_line_error(lambda: getattr(connect4, verb)(uttt.Board()))
    assert "connect four" in msg or "connect4" in msg, msg


def test_a_kept_table_gives_the_same_scores():
    """``keep_table``: solves that start from the previous one's table (the book
    generator's) score as the reference does -- the table's entries hold no
    trace of the root they were found under -- also with ordinary solves
    (which empty and focus it) between them."""
    seq = LATE[:40] + CAREFUL[:20]
    for i, moves in enumerate(seq):
        keep = i % 7 != 3                     # now and then an ordinary solve between
        r = connect4_solve.solve(board_of(moves), keep_table=keep, table_mb=64)
        assert r.score == ref.score(moves), (moves, keep)
    # siblings of one parent, as a book solves them: kept and fresh agree
    parent = EARLIER[0]
    kids = [parent + str(c + 1) for c in range(7) if board_of(parent).heights[c] < 6]
    kept = [connect4_solve.solve(board_of(k), keep_table=True, table_mb=64).score for k in kids]
    fresh = [connect4_solve.solve(board_of(k), table_mb=64).score for k in kids]
    assert kept == fresh


def test_a_parents_score_as_lower_bound_keeps_the_score():
    """``lower_bound``: minus the parent's exact score bounds each child's
    score from below (exactly it for a child that keeps the parent's score);
    with that bound the solve (and the best columns) agree with the reference,
    including with threads and a bound below the score."""
    for parent in EARLIER[:8] + CAREFUL[:4]:
        top = ref.score(parent)
        for c in range(7):
            if board_of(parent).heights[c] >= 6:
                continue
            kid = parent + str(c + 1)
            b = board_of(kid)
            if b.winner is not None:
                continue
            want = ref.score(kid)
            assert want >= -top
            for bound, threads in ((-top, 1), (-top, 2), (want, 1), (want - 3, 1)):
                r = connect4_solve.solve(b, lower_bound=bound, threads=threads, table_mb=16)
                assert r.score == want, (kid, bound, threads)
            s, cols = connect4_solve.optimal_moves(b, lower_bound=-top, table_mb=16)
            assert s == want and cols == connect4_solve.optimal_moves(b, table_mb=16)[1]


@pytest.mark.parametrize("bad", [22, -30, "x", 1.5])
def test_bad_lower_bound_is_one_line(bad):
    b = board_of(LATE[0])
    msg = one_line_error(lambda: connect4_solve.solve(b, lower_bound=bad))
    assert "lower_bound" in msg, msg


def test_optimal_moves_among_some_columns():
    """``columns``: only those are tested; the answer is the full answer's
    share of them."""
    for moves in EARLIER[:10] + CAREFUL[:10]:
        b = board_of(moves)
        score, every = connect4_solve.optimal_moves(b, table_mb=16)
        legal = b.legal_moves
        some = legal[::2]
        assert connect4_solve.optimal_moves(b, columns=some, table_mb=16) == (
            score, [c for c in every if c in some])
        assert connect4_solve.optimal_moves(b, columns=[], table_mb=16) == (score, [])


@pytest.mark.parametrize("bad", [[7], [-1], "12", 3, [1.5]])
def test_bad_columns_are_one_line(bad):
    b = board_of(LATE[0])
    msg = one_line_error(lambda: connect4_solve.optimal_moves(b, columns=bad))
    assert "column" in msg, msg


def test_the_verbs_answer_book_positions_from_the_book_as_the_solver_does():
    """``connect4.solve/analyse/optimal_moves`` read the shipped opening book where it
    holds the position (every position up to 8 discs), instantly; their answers are the
    solver's (the book is the solver's, stored)."""
    rng = random.Random(5)
    for discs in (0, 3, 8):
        b = connect4.Board()
        while b.ply < discs:
            b.push(rng.choice(b.legal_moves))
            if b.winner is not None:
                b.pop()
        fast = connect4.solve(b)
        assert fast.nodes == 0 or discs == 8           # no search for a book position
        if discs < 8:
            continue                                     # the empty board takes minutes
        slow = connect4_solve.solve(b, table_mb=TABLE_MB)
        assert (fast.value, fast.score, fast.plies) == (slow.value, slow.score, slow.plies)
        assert fast.best_move in connect4_solve.optimal_moves(b, table_mb=TABLE_MB)[1]
        assert connect4.optimal_moves(b) == connect4_solve.optimal_moves(b, table_mb=TABLE_MB)
    b = connect4.from_moves("4453")
    assert connect4.analyse(b) == connect4_solve.analyse(b, table_mb=TABLE_MB)
    with pytest.raises(ValueError, match="book must be True"):
        connect4.solve(b, book="shipped")
