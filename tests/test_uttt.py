"""Ultimate Tic-Tac-Toe: rules, perft against an independent brute force, push/pop, I/O."""
import os
import pickle
import random

import pytest
from hypothesis import strategies as st

from conftest import TTT_LINES, registry_row, uttt_winning_position

from ttt_engine import uttt
from ttt_engine.uttt import Board
from ttt_engine._core.algorithms.playout import random_games

# ---------------------------------------------------------------------------
# An independent, deliberately naive pure-Python implementation of the rules,
# written from the rule text only (grid coordinates, no bit tricks, no tables
# shared with the engine).



def _has_line(marks):
    return any(all(marks[i] for i in line) for line in TTT_LINES)


class Ref:
    """Reference position: grid[9*R + C] in {0, 1 (X), 2 (O)}; local board
    results kept in ``states`` (recomputed for the board just played)."""

    def __init__(self, tiebreak=False):
        self.grid = [0] * 81
        self.states = [None] * 9   # per local board: None (open), "X", "O", "draw"
        self.player = 1
        self.target = None         # big-board cell index the mover is sent to
        self.result = None         # None, "X", "O", "draw"
        self.tiebreak = tiebreak

    def local(self, board):
        """Local board ``board`` (big-board row board//3, column board%3) as 9 values."""
        br, bc = divmod(board, 3)
        return [self.grid[9 * (3 * br + r) + 3 * bc + c] for r in range(3) for c in range(3)]

    def local_state(self, board):
        cells = self.local(board)
        if _has_line([v == 1 for v in cells]):
            return "X"
        if _has_line([v == 2 for v in cells]):
            return "O"
        if all(cells):
            return "draw"
        return None

    def legal(self):
        if self.result is not None:
            return []
        if self.target is not None and self.states[self.target] is None:
            boards = [self.target]
        else:
            boards = [b for b in range(9) if self.states[b] is None]
        out = []
        for b in boards:
            br, bc = divmod(b, 3)
            for r in range(3):
                for c in range(3):
                    m = 9 * (3 * br + r) + 3 * bc + c
                    if self.grid[m] == 0:
                        out.append(m)
        return sorted(out)

    def play(self, move, check=True):
        if check:
            assert move in self.legal()
        R, C = divmod(move, 9)
        self.grid[move] = self.player
        board = 3 * (R // 3) + C // 3
        self.states[board] = self.local_state(board)
        self.target = 3 * (R % 3) + C % 3
        for who in ("X", "O"):
            if _has_line([s == who for s in self.states]):
                self.result = who
        if self.result is None and all(s is not None for s in self.states):
            self.result = "draw"
            if self.tiebreak:
                nx, no = self.states.count("X"), self.states.count("O")
                if nx != no:
                    self.result = "X" if nx > no else "O"
        self.player = 3 - self.player

    def copy(self):
        r = Ref.__new__(Ref)
        r.grid, r.states = self.grid[:], self.states[:]
        r.player, r.target, r.result, r.tiebreak = self.player, self.target, self.result, self.tiebreak
        return r

    def forced_board(self):
        if self.result is None and self.target is not None and self.states[self.target] is None:
            return self.target
        return None


def ref_perft(ref, depth):
    if depth == 0:
        return 1
    moves = ref.legal()
    if not moves:
        return 1
    total = 0
    if depth == 1:
        return len(moves)
    for m in moves:
        child = ref.copy()
        child.play(m, check=False)
        total += ref_perft(child, depth - 1)
    return total


def _random_game(rng, tiebreak=False, stop=None):
    """Play one random game on both implementations, checking them move by move."""
    b, ref = Board(tiebreak=tiebreak), Ref(tiebreak)
    while not b.is_terminal() and (stop is None or b.ply < stop):
        assert b.legal_moves == ref.legal()
        assert b.forced_board == ref.forced_board()
        m = rng.choice(b.legal_moves)
        b.push(m)
        ref.play(m)
        assert b.winner == ref.result
    assert b.legal_moves == ref.legal()
    return b, ref


# --------------------------------------------------------------------------- perft

def test_perft_known_values():
    assert [uttt.perft(Board(), d) for d in range(4)] == [1, 81, 720, 6336]


@pytest.mark.parametrize("depth", [1, 2, 3, 4])
def test_perft_matches_bruteforce_from_start(depth):
    assert uttt.perft(Board(), depth) == ref_perft(Ref(), depth)


def test_perft_depth5_matches_bruteforce():
    # 473,256 leaves: the brute force takes a few seconds
    assert uttt.perft(Board(), 5) == ref_perft(Ref(), 5) == 473256


@pytest.mark.skipif(not os.environ.get("TTT_ENGINE_SLOW_TESTS"),
                    reason="about a minute of pure Python; set TTT_ENGINE_SLOW_TESTS=1")
def test_perft_depth6_matches_bruteforce():
    assert uttt.perft(Board(), 6) == ref_perft(Ref(), 6) == 4020960


def test_perft_from_midgame_positions_matches_bruteforce():
    """Positions with closed boards and free moves, where the rules get subtle."""
    rng = random.Random(7)
    checked = 0
    while checked < 12:
        b, ref = _random_game(rng, stop=rng.randrange(20, 60))
        if b.is_terminal():
            continue
        assert uttt.perft(b, 3) == ref_perft(ref, 3)
        checked += 1


def test_generic_perft_accepts_uttt_board():
    from ttt_engine._core.algorithms.perft import perft
    assert perft(Board(), 2) == 720


def test_perft_validates():
    with pytest.raises(ValueError, match="depth"):
        uttt.perft(Board(), -1)
    with pytest.raises(ValueError, match="plays Ultimate Tic-Tac-Toe, got str"):
        uttt.perft("start", 2)


# --------------------------------------------------------------------------- random games

def test_random_games_match_reference_both_rules():
    rng = random.Random(2024)
    results = {"X": 0, "O": 0, "draw": 0}
    for i in range(150):
        b, ref = _random_game(rng, tiebreak=(i % 2 == 1))
        results[b.winner] += 1
    assert all(results.values())          # every outcome occurred


def test_push_pop_round_trip_random_games():
    rng = random.Random(99)
    for _ in range(40):
        b = Board()
        strings, hashes = [b.to_string()], [b.hash()]
        while not b.is_terminal():
            b.push(rng.choice(b.legal_moves))
            strings.append(b.to_string())
            hashes.append(b.hash())
        for k in range(len(strings) - 1, 0, -1):
            assert b.to_string() == strings[k]
            b.pop()
            assert b.to_string() == strings[k - 1]
            assert b.hash() == hashes[k - 1]
        assert b.ply == 0 and b.winner is None


def test_string_round_trip_random_positions():
    rng = random.Random(5)
    for _ in range(60):
        b, _ = _random_game(rng, stop=rng.randrange(0, 81))
        c = Board.from_string(b.to_string())
        assert c.to_string() == b.to_string()
        assert c.legal_moves == b.legal_moves
        assert c.winner == b.winner and c.to_move == b.to_move
        assert c.hash() == b.hash()



def test_string_round_trip_finished_tiebreak_games():
    """A tiebreak game can be won on the count by the player who did not move last;
    its final position still reads back from its text."""
    rng = random.Random(6)
    counted_for_the_other = 0
    for _ in range(60):
        b, ref = _random_game(rng, tiebreak=True)
        c = Board.from_string(b.to_string(), tiebreak=True)
        assert c.to_string() == b.to_string() and c.winner == b.winner == ref.result
        assert c.legal_moves == [] and c.hash() == b.hash()
        last = "XO"[(b.ply - 1) % 2]
        counted_for_the_other += b.winner not in (last, "draw")
    assert counted_for_the_other >= 1

def test_hash_distinguishes_forced_board_and_equal_positions_match():
    a = Board()
    for m in ("4, 4", "3, 3", "0, 0"):     # X's last move (board 0, cell 0) sends O to board 0
        a.push(m)
    assert a.forced_board == 0
    cells = a.to_string().split(":")[0]
    b = Board.from_string(cells + ":4")      # same marks, X's last move was 4, 4 instead
    assert b.cells == a.cells and b.forced_board == 4
    assert a.hash() != b.hash()
    assert Board.from_string(a.to_string()).hash() == a.hash()


# --------------------------------------------------------------------------- rule edge cases

def bc(b, c):
    """Move number of cell c (0-8) of local board b (0-8)."""
    return (3 * (b // 3) + c // 3) * 9 + 3 * (b % 3) + c % 3


def test_move_numbering_and_sending():
    b = Board()
    b.push(Board.parse_move("4, 5"))       # board 4, cell 5 -> O goes to board 5
    assert b.forced_board == 5
    assert b.legal_moves == sorted(bc(5, c) for c in range(9))
    assert bc(4, 5) == 41


def test_sent_to_won_board_plays_anywhere():
    b = Board()
    for m in [bc(4, 0), bc(0, 4), bc(4, 1), bc(1, 4), bc(4, 2)]:   # X wins board 4
        b.push(m)
    assert b.local_winners[4] == "X"
    assert b.forced_board == 2
    b.push(bc(2, 4))                       # O sends X to the won board 4
    assert b.forced_board is None
    legal = b.legal_moves
    assert len(legal) == 81 - 9 - 3
    assert not any(bc(4, c) in legal for c in range(9))
    with pytest.raises(ValueError, match="closed"):
        b.push(bc(4, 8))
    b.push(bc(7, 7))                       # anywhere open is fine
    assert b.forced_board == 7


def _full_draw_board_position():
    # local board 0: X O X / X O O / O X . ; X to play its last cell 8
    rows = ["." * 9 for _ in range(9)]
    grid = [list(r) for r in rows]
    for c, v in zip(range(8), "XOXXOOOX"):
        R, C = c // 3, c % 3
        grid[R][C] = v
    grid[4][5] = "X"          # board 4, cell 5
    grid[3][0] = "O"          # board 3, cell 0: O's last move sent X to board 0
    return "".join("".join(r) for r in grid) + ":0"


def test_drawn_local_board_and_sent_to_full_board():
    b = Board.from_string(_full_draw_board_position())
    assert b.to_move == "X" and b.forced_board == 0
    assert b.legal_moves == [bc(0, 8)]
    before = b.to_string()
    b.push(bc(0, 8))                       # fills board 0 without a line
    assert b.local_winners[0] == "draw"     # closed, counts for nobody
    assert b.forced_board == 8
    b.push(bc(8, 0))                       # O sends X to the full board 0
    assert b.forced_board is None
    assert all(bc(0, c) not in b.legal_moves for c in range(9))
    assert len(b.legal_moves) == 81 - 9 - 3
    b.pop()
    b.pop()
    assert b.to_string() == before and b.local_winners[0] is None and b.forced_board == 0


def test_big_board_line_wins():
    b = uttt_winning_position()
    assert b.local_winners[:3] == ("X", "X", None)
    assert b.to_move == "X" and b.forced_board == 2
    b.push(bc(2, 2))
    assert b.winner == "X" and b.is_terminal()
    assert b.legal_moves == []
    with pytest.raises(ValueError, match="game is over"):
        b.push(bc(8, 8))
    b.pop()
    assert b.winner is None and b.forced_board == 2


def _all_closed_draw_position(tiebreak=False):
    grid = [["."] * 9 for _ in range(9)]

    def put(board, cell, v):
        grid[3 * (board // 3) + cell // 3][3 * (board % 3) + cell % 3] = v

    for board in (0, 2, 3, 7):          # X's boards: no big-board line
        for cell in (0, 1, 2):
            put(board, cell, "X")
    for board in (1, 4, 5, 6):          # O's boards: no line either
        for cell in (0, 1, 2):
            put(board, cell, "O")
    put(8, 0, "X")
    put(8, 1, "X")
    put(8, 3, "O")
    put(8, 4, "O")
    return Board.from_string("".join("".join(r) for r in grid) + ":*", tiebreak=tiebreak)


def test_game_ends_drawn_when_every_board_closed():
    b = _all_closed_draw_position()
    assert b.forced_board is None and b.to_move == "X"
    assert b.legal_moves == sorted(bc(8, c) for c in (2, 5, 6, 7, 8))
    b.push(bc(8, 2))                     # X wins the last open board, no big line
    assert b.local_winners == ("X", "O", "X", "X", "O", "O", "O", "X", "X")
    assert b.winner == "draw" and b.is_terminal() and b.legal_moves == []


def test_tiebreak_variant_awards_drawn_game_to_more_boards():
    b = _all_closed_draw_position(tiebreak=True)
    b.push(bc(8, 2))
    assert b.winner == "X"               # 5 boards to 4
    b.pop()
    b.push(bc(8, 5))                     # X does not win board 8 ...
    assert b.winner is None
    assert b.tiebreak


def test_status_line_and_grid_labels():
    b = Board()
    b.push("4, 4")
    text = str(b)
    assert text.splitlines()[0].split() == [str(i) for i in range(9)]
    assert "O to move in board 4" in text
    assert text.count("*") == 8 + 1   # 8 legal cells + the legend
    assert "X to move in any open board" in str(Board())


# --------------------------------------------------------------------------- input validation

@pytest.mark.parametrize("text, move", [("4, 5", 41), ("0,0", 0), (" 8 , 8 ", 80), ("4 5", 41),
                                        ((4, 5), 41), (41, 41)])
def test_parse_move(text, move):
    assert Board.parse_move(text) == move
    assert uttt.parse_move(text) == move


@pytest.mark.parametrize("bad, msg", [("9, 0", "off the grid"), ("a, b", "integers"),
                                       ("4", "R, C"), ("1, 2, 3", "R, C"), (81, "out of range"),
                                       (-1, "out of range"), (1.5, "integer"), (True, "integer"),
                                       ((1, 2, 3), "tuple")])
def test_parse_move_errors(bad, msg):
    with pytest.raises(ValueError, match=msg):
        Board.parse_move(bad)


def test_push_errors_are_clear():
    b = Board()
    b.push("4, 4")
    with pytest.raises(ValueError, match="occupied"):
        b.push("4, 4")
    with pytest.raises(ValueError, match="must play in local board 4"):
        b.push("0, 0")
    with pytest.raises(IndexError):
        Board().pop()


@pytest.mark.parametrize("text, msg", [
    ("X" * 81, "alternate"),
    ("." * 80, "81 cells"),
    ("." * 81 + ":9", "0-8"),
    ("." * 81 + ":4", "empty grid"),
    ("Z" + "." * 80, "unexpected character"),
    ("X" + "." * 80 + ":4", "sent"),
])
def test_from_string_errors(text, msg):
    with pytest.raises(ValueError, match=msg):
        Board.from_string(text)


def test_copy_pickle_and_equality():
    b = Board()
    for m in ("4, 4", "3, 3", "0, 0"):
        b.push(m)
    c = b.copy()
    c.push(c.legal_moves[0])
    assert b.ply == 3 and c.ply == 4
    d = pickle.loads(pickle.dumps(b))
    assert d == b and d.moves == b.moves
    assert Board(tiebreak=True) != Board()
    with pytest.raises(ValueError, match="tiebreak"):
        Board(tiebreak=1)


def _games(board, n, seed):
    r = random_games(board, n, seed=seed)
    return r["first_wins"], r["second_wins"], r["draws"], r["plies"]


def test_random_playouts_counts():
    r = uttt.random_playouts(Board(), 2000, seed=3)
    x, o, d = r["first_wins"], r["second_wins"], r["draws"]
    assert x + o + d == r["games"] == 2000 and x > o > d > 0
    assert uttt.random_playouts(Board(), 500, seed=3) == uttt.random_playouts(Board(), 500, seed=3)
    # the generic move-by-move games are the same games, and sum the plies played
    x2, o2, d2, plies = _games(Board(), 2000, seed=3)
    assert (x2, o2, d2) == (x, o, d) and 40 * 2000 < plies < 81 * 2000


def test_old_call_forms_are_deprecated():
    with pytest.deprecated_call(match=r"perft\(board, depth\)"):
        assert uttt.perft(2) == 720
    with pytest.deprecated_call(match=r"random_playouts\(board, n, seed\)"):
        assert uttt.random_playouts(50, seed=1) == _games(Board(), 50, seed=1)


def _exact_outcomes(ref, memo, budget):
    """(P[X wins], P[O wins], P[draw], E[plies]) of uniformly random play from
    ``ref``, by full enumeration; budget[0] counts positions (None if exceeded)."""
    key = (tuple(ref.grid), ref.forced_board(), ref.player)
    if key in memo:
        return memo[key]
    budget[0] -= 1
    if budget[0] < 0:
        return None
    if ref.result is not None:
        out = ((1.0, 0.0, 0.0) if ref.result == "X" else (0.0, 1.0, 0.0)
               if ref.result == "O" else (0.0, 0.0, 1.0)) + (0.0,)
    else:
        moves = ref.legal()
        acc = [0.0, 0.0, 0.0, 0.0]
        for m in moves:
            child = ref.copy()
            child.play(m, check=False)
            sub = _exact_outcomes(child, memo, budget)
            if sub is None:
                return None
            for i in range(3):
                acc[i] += sub[i] / len(moves)
            acc[3] += (1.0 + sub[3]) / len(moves)
        out = tuple(acc)
    memo[key] = out
    return out


def test_random_playouts_match_exact_outcome_probabilities():
    """The playout loop (a register-resident copy of the rules, the engine's
    hottest code) against exact outcome probabilities and game lengths
    enumerated with the naive reference, from late positions of random games
    (forced and free moves, closed boards, both draw rules)."""
    rng = random.Random(11)
    checked = free_starts = 0
    n = 40_000
    while checked < 8:
        tiebreak = checked % 2 == 1
        b, ref = _random_game(rng, tiebreak=tiebreak)
        # back off from the end while the random-play tree stays small
        found = None
        for back in range(3, 12):
            if b.ply - back < 1:
                break
            start, sref = Board(tiebreak=tiebreak), Ref(tiebreak)
            for m in b.moves[:b.ply - back]:
                start.push(m)
                sref.play(m, check=False)
            exact = _exact_outcomes(sref, {}, [4_000])
            if exact is None:
                break
            found = start, exact
        if found is None:
            continue
        start, exact = found
        x, o, d, plies = _games(start, n, seed=checked)
        for got, p in zip((x, o, d), exact[:3]):
            sd = (p * (1 - p) / n) ** 0.5
            assert abs(got / n - p) <= 5 * sd + 1e-9, (start.to_string(), got / n, p)
        assert abs(plies / n - exact[3]) < 0.05 * max(1.0, exact[3]), (plies / n, exact[3])
        free_starts += start.forced_board is None
        checked += 1
    assert free_starts >= 1


# --------------------------------------------------------------------------- console play

def test_console_play_scripted_game():
    from ttt_engine.uttt.play import play
    out = []
    inputs = iter(["moves", "9, 9", "hello", "4, 4", "undo", "undo", "4, 4", "quit"])
    result = play("random", 0.01, "X", seed=1, input_fn=lambda prompt: next(inputs),
                  print_fn=out.append)
    text = "\n".join(out)
    assert result is None and text.endswith("bye")
    assert "legal: 0, 0" in text
    assert "illegal: move '9, 9' is off the grid" in text
    assert "illegal: cannot parse move 'hello'" in text
    assert "nothing to undo" in text
    assert text.count("random plays") == 2      # after each "4, 4"


def test_console_play_to_the_end_and_validation():
    import random as _random
    from ttt_engine.uttt.play import play
    rng = _random.Random(3)
    mirror = Board()                      # follows the game from the console output

    def printer(line):
        if line.startswith("random plays "):
            mirror.push(line[len("random plays "):])

    def reader(prompt):
        mv = Board.format_move(rng.choice(mirror.legal_moves))
        mirror.push(mv)
        return mv

    result = play("random", 0.01, "O", seed=2, input_fn=reader, print_fn=printer)
    assert result in ("X", "O", "draw") and mirror.is_terminal() and mirror.winner == result
    with pytest.raises(ValueError, match="side"):
        play("random", 0.01, "Z")
    with pytest.raises(ValueError, match="engine"):
        play("alphazero", 0.01, "X")


# ---------------------------------------------------------------- row of the generic tests
def _near_the_end():
    """A position of a random game near its end (at most 60 plies, game on)."""
    rng = random.Random(1)
    while True:
        b = Board()
        while not b.is_terminal() and b.ply < 60:
            b.push(rng.choice(b.legal_moves))
        if not b.is_terminal():
            return b


def _reference_legal(board):
    ref = Ref(tiebreak=board.tiebreak)
    for m in board.moves:
        ref.play(m, check=False)
    return ref.legal()


#: Ultimate Tic-Tac-Toe's row of the generic tests (tests/test_games.py,
#: test_registry.py, test_properties.py; the fields: conftest.REGISTRY_FIELDS)
REGISTRY_CASES = registry_row(
    options={"tiebreak": False},
    engines=["treeq", "sarsa", "mcts", "az", "valuenet", "best", "random"],
    ships_network=True,
    sample_move="4, 4",
    syntax="'R, C'",
    from_string_kw=lambda board: {"tiebreak": board.tiebreak},
    perft=(81, 720),
    num_actions=81,
    # near the end of a game the solve settles it within the limit, whatever the value
    solve_small=(_near_the_end, None, {"max_nodes": 10_000_000}),
    solve_finished_limits={"max_nodes": 10},
    hypothesis_options=st.builds(dict, tiebreak=st.booleans()),
    reference_legal=_reference_legal,
)
