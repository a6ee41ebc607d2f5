"""Clobber: bitboard core vs an independent pure-Python generator, rules,
file parsing, heuristics, the exact solver and the search hooks."""
import io
import os
import pickle
import random
import sys

import pytest
from hypothesis import strategies as st

sys.path.insert(0, os.path.dirname(__file__))
import clobber_reference as ref  # noqa: E402
from conftest import registry_row  # noqa: E402

from ttt_engine import clobber as C  # noqa: E402


def to_ref(board):
    return [[board.cell(r, c) for c in range(board.cols)] for r in range(board.rows)]


def random_position(rng, rows, cols, empty=0.3, to_move=None):
    cells = [[rng.choice("BW") if rng.random() > empty else "_" for _ in range(cols)]
             for _ in range(rows)]
    text = "\n".join(" ".join(row) for row in cells)
    return C.Board.from_string(text, to_move or rng.choice("BW")), cells


# ---------------------------------------------------------------------- moves and perft
def test_start_position_and_seed_counts():
    b = C.Board()
    assert (b.rows, b.cols, b.to_move) == (6, 5, "B")
    assert str(b).splitlines()[0] == "B W B W B"
    assert C.perft(b, 1) == 49
    assert C.perft(b, 2) == 2116
    assert C.perft(b, 0) == 1


def test_seed_example_2x3_move_list():
    b = C.Board(2, 3)
    seed = [((0, 0), (1, 0)), ((0, 0), (0, 1)), ((0, 2), (1, 2)), ((0, 2), (0, 1)),
            ((1, 1), (0, 1)), ((1, 1), (1, 2)), ((1, 1), (1, 0))]
    assert [C.move_squares(m) for m in b.legal_moves] == seed
    assert b.legal_moves == sorted(b.legal_moves)


@pytest.mark.parametrize("rows,cols", [(6, 5), (1, 8), (2, 7), (3, 3), (4, 4), (8, 8), (5, 6), (7, 2)])
def test_perft_matches_reference_start(rows, cols):
    b = C.Board(rows, cols)
    rb = ref.start(rows, cols)
    for d in range(1, 4):
        assert C.perft(b, d) == ref.perft(rb, "B", d), (rows, cols, d)


def test_perft_matches_reference_random_positions():
    rng = random.Random(6)
    for _ in range(40):
        rows, cols = rng.randint(1, 8), rng.randint(1, 8)
        b, cells = random_position(rng, rows, cols, empty=rng.choice([0.0, 0.2, 0.4]))
        for d in range(1, 4):
            assert C.perft(b, d) == ref.perft(cells, b.to_move, d), (b.to_string(), b.to_move, d)


def test_move_lists_match_reference_along_random_games():
    rng = random.Random(7)
    for _ in range(30):
        rows, cols = rng.randint(1, 8), rng.randint(1, 8)
        b = C.Board(rows, cols)
        rb = ref.start(rows, cols)
        player = "B"
        while True:
            mine = [C.move_squares(m) for m in b.legal_moves]
            assert mine == ref.generate_moves(rb, player)
            assert b.count_moves(player) == len(mine)
            if not mine:
                assert b.is_terminal() and b.winner == ref.opponent(player)
                break
            assert b.winner is None
            m = rng.choice(b.legal_moves)
            b.push(m)
            rb = ref.apply_move(rb, C.move_squares(m))
            player = ref.opponent(player)
            assert to_ref(b) == rb and b.to_move == player


def test_push_pop_restores_exactly():
    rng = random.Random(3)
    b = C.Board(8, 8)
    snaps = []
    for _ in range(40):
        if b.is_terminal():
            break
        snaps.append((b.bitboards, b.to_move, b.zobrist))
        b.push(rng.choice(b.legal_moves))
    while snaps:
        b.pop()
        assert (b.bitboards, b.to_move, b.zobrist) == snaps.pop()
    with pytest.raises(IndexError):
        b.pop()


# ---------------------------------------------------------------------- rules and edge cases
def test_tiny_boards():
    b = C.Board(1, 1)
    assert b.is_terminal() and b.winner == "W" and b.legal_moves == []
    b = C.Board(1, 2)
    assert b.legal_moves_str() == ["a1-b1"]
    b.push("a1-b1")
    assert b.winner == "B" and str(b) == "_ B"


def test_no_wrap_between_rows():
    # B on the right edge of row 1, W on the left edge of row 2 (8 wide): not adjacent
    text = "_______B\nW_______"
    b = C.Board.from_string(text)
    assert b.legal_moves == [] and b.winner == "W"
    b = C.Board.from_string("W______B\n________", to_move="W")
    assert b.legal_moves == [] and b.winner == "B"
    # 5 wide: column 4 stones never reach column 0 of the next row
    b = C.Board.from_string("____B\nW____")
    assert b.is_terminal()


def test_illegal_moves_rejected():
    b = C.Board(3, 3)
    for bad in ["a1-a3", "a1-b2", "b1-c1", "z9-a1", "a1", 1 << 20, -1, ((0, 0), (0, 2)), "a1-a0"]:
        with pytest.raises(ValueError):
            b.push(bad)
    b.push("a1-a2")
    with pytest.raises(ValueError):      # a1 is now empty
        b.push("b1-a1")
    b = C.Board.from_string("B B\nW W")
    with pytest.raises(ValueError):      # onto own stone
        b.push("a1-b1")
    b.push("a1-a2")


def test_game_over_rejects_moves():
    b = C.Board(1, 2)
    b.push(b.legal_moves[0])
    with pytest.raises(ValueError, match="over"):
        b.push(0)


def test_notation_round_trip():
    b = C.Board(8, 8)
    for m in b.legal_moves:
        s = C.format_move(m)
        assert C.parse_move(s) == m
        assert C.parse_move(s.upper().replace("-", "x")) == m
        assert C.parse_move(s.replace("-", "")) == m
        assert C.move_from_squares(*C.move_squares(m)[0], *C.move_squares(m)[1]) == m
    assert C.format_move(C.parse_move("b3-b4")) == "b3-b4"
    assert C.move_squares(C.parse_move("b3-c3")) == ((2, 1), (2, 2))
    for bad in ["", "b3", "b3-b5", "i1-i2", "b0-b1", "3b-4b", 12]:
        with pytest.raises(ValueError):
            C.parse_move(bad)


def test_symmetry_of_moves_mobility_zero():
    rng = random.Random(11)
    for _ in range(200):
        b, _ = random_position(rng, rng.randint(1, 8), rng.randint(1, 8))
        assert b.count_moves("B") == b.count_moves("W")
        assert b.evaluate("mobility") == 0


def test_copy_eq_hash_pickle():
    b = C.Board()
    b.push(b.legal_moves[5])
    c = b.copy()
    assert c == b and hash(c) == hash(b) and c.moves == b.moves
    c.push(c.legal_moves[0])
    assert c != b
    d = pickle.loads(pickle.dumps(c))
    assert d == c and d.moves == c.moves
    d.pop()
    assert d == b


# ---------------------------------------------------------------------- file format
def test_text_round_trip_and_spacing(tmp_path):
    b = C.Board(3, 4)
    assert C.Board.from_string(b.to_string()) == b
    assert C.Board.from_string(b.to_string("")) == b
    p = tmp_path / "board.txt"
    b.write_file(p)
    assert p.read_text() == "B W B W\nW B W B\nB W B W\n"
    assert C.Board.from_file(p) == b
    assert C.Board.from_file(str(p), to_move="W").to_move == "W"
    assert C.Board.from_file(io.StringIO("B W\n")) == C.Board(1, 2)


def test_from_stdin(monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO("BW\nWB\n"))
    assert C.Board.from_file("-") == C.Board(2, 2)
    monkeypatch.setattr(sys, "stdin", io.StringIO("BW\nWB\n"))
    assert C.Board.from_stdin() == C.Board(2, 2)


@pytest.mark.parametrize("text,where", [
    ("", "line 1, column 1"),
    ("\n  \n", "line 1, column 1"),
    ("B W B\nW B\n", "line 2, column 4"),
    ("B W\nW B W\n", "line 2, column 5"),
    ("B W B\nW X W\n", "line 2, column 3"),
    ("BWB\nWBW\n\nBWB\n", "line 3, column 1"),
    ("BWBWBWBWB\n", "line 1, column 9"),
    ("B\n" * 9, "line 9, column 1"),
    ("B W b\n", "line 1, column 5"),
])
def test_malformed_files_name_line_and_column(text, where, tmp_path):
    with pytest.raises(ValueError, match=where):
        C.Board.from_string(text)
    p = tmp_path / "bad.txt"
    p.write_text(text)
    with pytest.raises(ValueError, match=str(p).replace("\\", "\\\\") + ": " + where):
        C.Board.from_file(p)


def test_from_bitboards():
    b = C.Board(3, 4)
    assert C.Board.from_bitboards(3, 4, *b.bitboards) == b
    for args in [(3, 4, 1, 1), (3, 4, 1 << 4, 0), (3, 4, -1, 0), (3, 4, 1.5, 0), (0, 4, 0, 0)]:
        with pytest.raises(ValueError):
            C.Board.from_bitboards(*args)


def test_missing_file_and_bad_args(tmp_path):
    with pytest.raises(ValueError, match="cannot read"):
        C.Board.from_file(tmp_path / "nope.txt")
    for rows, cols in [(0, 5), (9, 1), (6, "x"), (6, 2.5)]:
        with pytest.raises(ValueError):
            C.Board(rows, cols)
    with pytest.raises(ValueError):
        C.Board.from_string("BW", to_move="X")
    with pytest.raises(ValueError):
        C.perft(C.Board(), -1)


# ---------------------------------------------------------------------- heuristics
def test_heuristics_match_reference():
    rng = random.Random(5)
    for _ in range(150):
        b, cells = random_position(rng, rng.randint(1, 8), rng.randint(1, 8))
        for name, fn in ref.HEURISTICS.items():
            for p in "BW":
                assert b.heuristic(name, p) == fn(cells, p), (name, p, b.to_string())
        # perspective ids: h_P when P is to move, -h_P otherwise
        for p in "BW":
            v = b.evaluate("safe", perspective=p)
            raw = ref.h_safe(cells, p)
            assert v == (raw if b.to_move == p else -raw)
        # own moves of one side = minus the "minus opponent's moves" of the same side
        assert b.heuristic("own_moves", "B") == -b.heuristic("neg_opp_moves", "B")


def test_adaptive_choice_by_phase():
    b = C.Board(6, 5)
    assert b.adaptive_choice("B") == "B1" and b.adaptive_choice("W") == "W1"
    assert b.evaluate("adaptive") == b.evaluate("pieces")
    b = C.Board.from_string("B W _ _ _\n" + "_ _ _ _ _\n" * 5)
    assert b.adaptive_choice("B") == "B3" and b.adaptive_choice("W") == "W3"
    assert C.heuristic_id("B2") == C.heuristic_id("mobility") == 2
    assert C.heuristic_id("W1", "W") == 4 | (2 << 4)
    with pytest.raises(ValueError):
        C.heuristic_id("nope")


# ---------------------------------------------------------------------- solver
@pytest.mark.parametrize("rows,cols,win", [(2, 3, False), (3, 3, True), (4, 4, True),
                                           (1, 1, False), (1, 2, True), (2, 2, True)])
def test_solver_known_results(rows, cols, win):
    r = C.solve(C.Board(rows, cols))
    assert r.win is win
    assert r.winner == ("B" if win else "W")
    if win:
        b = C.Board(rows, cols)
        b.push(r.best_move)
        assert C.solve(b).win is False


def test_solver_matches_reference_on_random_positions():
    rng = random.Random(9)
    for _ in range(60):
        rows, cols = rng.choice([(3, 3), (2, 5), (3, 4), (4, 3), (1, 7)])
        b, cells = random_position(rng, rows, cols, empty=rng.choice([0.0, 0.2, 0.35]))
        assert C.solve(b).win == ref.wins(cells, b.to_move), (b.to_string(), b.to_move)


def test_solver_sparse_positions_many_groups():
    # many small groups, isolated dominoes among them: exercises the key reductions
    rng = random.Random(10)
    checked = 0
    for _ in range(80):
        b, cells = random_position(rng, 4, 4, empty=0.45)
        want = ref.wins(cells, b.to_move)
        for cancel in (True, False):
            assert C.Solver(12).solve(b, cancel=cancel).win == want, (b.to_string(), b.to_move)
        checked += 1
    assert checked == 80


def test_solver_on_start_positions_matches_reference():
    for rows, cols in [(2, 4), (2, 5), (3, 4), (1, 6), (1, 8)]:
        assert C.solve(C.Board(rows, cols)).win == ref.wins(ref.start(rows, cols), "B")


def test_solver_node_limit():
    r = C.solve(C.Board(6, 6), max_nodes=1000)
    assert r.win is None and r.nodes >= 1000


# ---------------------------------------------------------------------- search through the core
from ttt_engine import search as S  # noqa: E402
from ttt_engine.clobber import play as P  # noqa: E402


@pytest.mark.parametrize("name", ["pieces", "own_moves", "safe", "neg_opp_moves", "centre", "adaptive"])
def test_minimax_equals_alphabeta_every_depth(name):
    b = C.Board(6, 5)
    h = C.heuristic_id(name, "B")
    for d in range(1, 5):
        mm = S.minimax(b, d, heuristic=h)
        ab = S.minimax(b, d, heuristic=h, alphabeta=True)
        tt = S.alphabeta(b, d, heuristic=h)
        assert mm.value == ab.value == tt.value, (name, d)
        if d >= 2:
            assert ab.nodes < mm.nodes and tt.nodes < mm.nodes
    for d in range(5, 7):            # minimax is too slow here for CI; compare the two pruners
        assert S.minimax(b, d, heuristic=h, alphabeta=True).value == S.alphabeta(b, d, heuristic=h).value


def test_minimax_matches_seed_reference_on_random_positions():
    rng = random.Random(21)
    for _ in range(25):
        rows, cols = rng.choice([(3, 3), (3, 4), (4, 4), (2, 5)])
        b, cells = random_position(rng, rows, cols, empty=0.2)
        if b.is_terminal():
            continue
        name = rng.choice(list(ref.HEURISTICS))
        d = rng.randint(1, 3)
        mover = b.to_move
        want = ref.minimax(cells, d, True, mover, ref.HEURISTICS[name])
        got = S.minimax(b, d, heuristic=C.heuristic_id(name, mover), alphabeta=True).value
        if abs(want) == 1000:
            assert (got > 0) == (want > 0) and abs(got) > 1e8
        else:
            assert got == want, (b.to_string(), mover, name, d)


def test_search_solves_small_boards_like_solver():
    for rows, cols in [(2, 3), (3, 3), (2, 4), (3, 4)]:
        r = S.alphabeta(C.Board(rows, cols))
        assert r.exact and (r.value > 0) == C.solve(C.Board(rows, cols)).win


def test_agent_and_modes_output():
    out, err = io.StringIO(), io.StringIO()
    rec = P.play_basic(C.Board(3, 4), out=out, err=err)
    lines = out.getvalue().splitlines()
    assert lines[-2] == f"Winner: {rec.winner}" and lines[-1] == f"Rounds: {rec.rounds}"
    assert C.Board.from_string("\n".join(lines[:-2])) == C.Board.from_string(rec.board.to_string())
    assert rec.winner in ("B", "W") and rec.rounds == len(rec.moves) > 0
    assert "nodes" in err.getvalue() and "time" in err.getvalue()
    # the moves replay to the final board
    b = C.Board(3, 4)
    for m in rec.moves:
        b.push(m.move)
    assert b == rec.board and b.winner == rec.winner
    out2 = io.StringIO()
    rec2 = P.play_extended(C.Board(4, 4), {"algorithm": "alphabeta", "heuristic": "2", "depth": 2},
                           {"algorithm": "alphabeta-tt", "heuristic": "safe", "depth": 4},
                           out=out2, err=io.StringIO())
    assert rec2.moves[0].heuristic == "B2" and rec2.moves[1].heuristic == "safe"
    with pytest.raises(ValueError):
        P.play_extended(C.Board(), {"algo": "minimax"})
    with pytest.raises(ValueError):
        P.ClobberAgent("negascout")
    with pytest.raises(ValueError):
        P.ClobberAgent(heuristic="bogus")


def test_minimax_and_alphabeta_agents_play_the_same_game():
    a = P.play_extended(C.Board(4, 5), {"algorithm": "minimax"}, {"algorithm": "minimax"},
                        out=io.StringIO(), err=io.StringIO())
    b = P.play_extended(C.Board(4, 5), {"algorithm": "alphabeta"}, {"algorithm": "alphabeta"},
                        out=io.StringIO(), err=io.StringIO())
    assert [m.move for m in a.moves] == [m.move for m in b.moves]
    assert [m.value for m in a.moves] == [m.value for m in b.moves]
    assert sum(m.nodes for m in b.moves) < sum(m.nodes for m in a.moves)


def test_time_limited_agent():
    ag = P.ClobberAgent("alphabeta", "adaptive", depth=30, time=0.05)
    m = ag.select_move(C.Board(5, 5))
    assert m in C.Board(5, 5).legal_moves and ag.last["depth"] >= 1
    ag = P.ClobberAgent("alphabeta-tt", "safe", depth=30, time=0.05)
    assert ag.select_move(C.Board(5, 5)) in C.Board(5, 5).legal_moves


def test_cli(tmp_path, capsys):
    p = tmp_path / "b.txt"
    p.write_text("B W B W\nW B W B\nB W B W\n")
    assert P.main(["basic", str(p)]) == 0
    cap = capsys.readouterr()
    assert "Winner:" in cap.out and "Rounds:" in cap.out and "nodes" in cap.err
    assert P.main(["extended", str(p), "--b-algorithm", "alphabeta-tt", "--w-heuristic", "3",
                   "--w-depth", "2", "--first", "W"]) == 0
    cap = capsys.readouterr()
    assert cap.err.splitlines()[2].split()[2] == "W"          # W moved first
    p.write_text("B W\nW\n")
    assert P.main(["basic", str(p)]) == 2
    assert "line 2, column 2" in capsys.readouterr().err
    assert P.main(["basic", "--size", "2x2"]) == 0
    assert P.main(["basic"]) == 2
    with pytest.raises(SystemExit):
        P.main(["basic", "--size", "9x9"])


def test_module_runs_as_script(tmp_path):
    import subprocess
    p = tmp_path / "b.txt"
    p.write_text("B W B\nW B W\n")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [os.path.dirname(C.__file__) + "/..",
                                                      env.get("PYTHONPATH")]))
    r = subprocess.run([sys.executable, "-m", "ttt_engine.clobber.play", "basic", str(p)],
                       capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 0, r.stderr
    out = r.stdout.splitlines()
    assert out[-2].startswith("Winner: ") and out[-1].startswith("Rounds: ")
    assert "nodes" in r.stderr


def test_playouts_and_mcts_through_the_interface():
    m = S.MCTS(seed=3)
    b = C.Board(4, 4)
    mv = m.search(b, simulations=3000)
    assert mv in b.legal_moves and b == C.Board(4, 4)
    assert m.stats["simulations"] == 3000
    # same seed, same move
    assert S.MCTS(seed=3).search(b, simulations=3000) == mv


# ---------------------------------------------------------------- row of the generic tests
def _reference_legal(board):
    grid = [[board.cell(r, c) for c in range(board.cols)] for r in range(board.rows)]
    return sorted(C.move_from_squares(*a, *b)
                  for a, b in ref.generate_moves(grid, board.to_move))


#: Clobber's row of the generic tests (tests/test_games.py, test_registry.py,
#: test_properties.py; the fields: conftest.REGISTRY_FIELDS)
REGISTRY_CASES = registry_row(
    sides=("B", "W"),
    options={"rows": 6, "cols": 5},
    engines=["alphabeta", "minimax", "mcts", "az", "valuenet", "best", "random"],
    ships_network=True,
    sample_move="a1-a2", syntax="b3-b4",
    from_string_kw=lambda board: {"to_move": board.to_move},
    perft=(49, 2116), num_actions=6 * 5 * 4,
    solve_small=(lambda: C.GAME.new_board(rows=3, cols=3), "win", {}),
    solve_limit_options={"rows": 6, "cols": 6},
    hypothesis_options=st.builds(dict, rows=st.integers(1, 8), cols=st.integers(1, 8)),
    reference_legal=_reference_legal,
)
