"""The shipped yardstick suites of every game: their size, their share of
critical positions, and a sample of every suite's scores checked against an
independent slow reference written here or in tests/ from the rules (plain
negamax / minimax; nothing of the package's solvers): every legal move of a
sampled position, its outcome and, where the suite has them, its distance."""
import os
import random
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
import clobber_reference as clobber_ref  # noqa: E402
import connect4_reference as c4_ref  # noqa: E402
import quixo_ref  # noqa: E402

from ttt_engine import yardstick  # noqa: E402

WIN = 10_000
GAMES = ("ttt", "uttt", "clobber", "quixo", "connect4")


def suite_of(key):
    if not yardstick.has_suite(key):
        pytest.fail(f"no suite ships for {key}")
    return yardstick.load(yardstick.suite_path(key), key)


@pytest.mark.parametrize("key", GAMES)
def test_every_game_ships_a_suite_of_its_size(key):
    assert yardstick.has_suite(key)
    assert os.path.getsize(yardstick.suite_path(key)) <= 2 * 1024 * 1024
    suite = suite_of(key)
    assert suite.game == key and len(suite) >= 1000
    if key == "ttt":            # every decision position of the game, critical or not
        assert len(suite) == 4520
    else:
        assert suite.critical_share >= 0.6
    assert set(suite.phases) == {0, 1, 2}
    rng = random.Random(key)
    for i in rng.sample(range(len(suite)), 50):
        b = suite.board(i)
        assert not b.is_terminal() and sorted(suite.scores[i]) == sorted(b.legal_moves)
        assert suite.critical[i] == (len({(v > 0) - (v < 0)
                                          for v in suite.scores[i].values()}) > 1)


def _sample(suite, n, key=None, seed=1):
    idx = list(range(len(suite)))
    if key is not None:
        idx.sort(key=key)
        idx = idx[:4 * n]
    return random.Random(seed).sample(idx, min(n, len(idx)))


def _stored(value, plies):
    """The suite's score of a move worth ``value`` (+1/0/-1) ending the game ``plies`` on."""
    return 0 if value == 0 else value * (WIN - plies)


# ---------------------------------------------------------------------------- Tic-Tac-Toe
LINES3 = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8),
          (2, 4, 6)]


class TTT:
    """Tic-Tac-Toe from the rules: 9 cells, row by row; three in a line win; a full
    board without one is a draw."""

    def __init__(self, cells=(0,) * 9, player=1, over=None):
        self.cells, self.player, self.over = cells, player, over

    def legal(self):
        return [] if self.over is not None else [m for m in range(9) if not self.cells[m]]

    def play(self, m):
        cells = self.cells[:m] + (self.player,) + self.cells[m + 1:]
        over = self.player if any(all(cells[c] == self.player for c in ln) for ln in LINES3) \
            else 0 if all(cells) else None
        return TTT(cells, 3 - self.player, over)

    def key(self):
        return self.cells, self.player


def negamax(state, memo):
    """(value, plies) for the side to move of an unfinished ``state`` (a game from
    the rules: ``legal()``, ``play(m)``, ``over``, ``key()``): plain negamax,
    fastest win, slowest loss."""
    k = state.key()
    if k not in memo:
        memo[k] = max((move_value(state, m, memo) for m in state.legal()),
                      key=lambda cand: _stored(*cand))
    return memo[k]


def move_value(state, m, memo):
    """(value, plies) of the move ``m`` for the side to move of ``state``."""
    child = state.play(m)
    if child.over is not None:
        return (0, 1) if child.over == 0 else (1, 1)
    v, p = negamax(child, memo)
    return -v, p + 1


def test_tic_tac_toe_scores_match_plain_negamax():
    suite, memo = suite_of("ttt"), {}
    for i in _sample(suite, 300):
        state = TTT()
        for m in suite.lines[i]:
            state = state.play(m)
        for m, stored in suite.scores[i].items():
            assert stored == _stored(*move_value(state, m, memo)), (suite.lines[i], m)


# ---------------------------------------------------------------------------- Ultimate Tic-Tac-Toe
class UTTT:
    """Ultimate Tic-Tac-Toe from the rules: 81 cells, cell r*9+c; a move's cell
    within its local board sends the opponent to that local board, or anywhere
    open when that board is decided (won, or full); three local boards won in a
    line win; no move left without that is a draw."""

    def __init__(self):
        self.cells = [0] * 81
        self.local = [0] * 9            # 0 open, 1/2 won, 3 full
        self.forced = None
        self.player = 1
        self.over = None                # None, or the winner (0 a draw)

    @staticmethod
    def board_of(m):
        r, c = divmod(m, 9)
        return (r // 3) * 3 + c // 3

    @staticmethod
    def cells_of(b):
        r0, c0 = (b // 3) * 3, (b % 3) * 3
        return [(r0 + k // 3) * 9 + c0 + k % 3 for k in range(9)]

    def legal(self):
        if self.over is not None:
            return []
        boards = [self.forced] if self.forced is not None and not self.local[self.forced] \
            else [b for b in range(9) if not self.local[b]]
        return sorted(m for b in boards for m in self.cells_of(b) if not self.cells[m])

    def play(self, m):
        s = UTTT.__new__(UTTT)
        s.cells, s.local = self.cells[:], self.local[:]
        s.cells[m] = self.player
        b = self.board_of(m)
        own = self.cells_of(b)
        if any(all(s.cells[own[k]] == self.player for k in ln) for ln in LINES3):
            s.local[b] = self.player
        elif all(s.cells[x] for x in own):
            s.local[b] = 3
        r, c = divmod(m, 9)
        s.forced = (r % 3) * 3 + c % 3
        s.over = None
        if any(all(s.local[k] == self.player for k in ln) for ln in LINES3):
            s.over = self.player
        s.player = 3 - self.player
        if s.over is None and not s.legal():
            s.over = 0
        return s

    def key(self):
        return (tuple(self.cells), self.forced if not self.local[self.forced] else None)


def test_uttt_scores_match_plain_negamax():
    suite = suite_of("uttt")
    empty = [sum(1 for m in range(81) if not suite.board(i).cells[m]) for i in range(len(suite))]
    for i in _sample(suite, 8, key=lambda i: empty[i]):
        state, board = UTTT(), suite.board(i)
        for m in suite.lines[i]:
            assert m in state.legal()
            state = state.play(m)
        assert state.legal() == sorted(board.legal_moves)
        memo = {}
        for m, stored in suite.scores[i].items():
            assert stored == _stored(*move_value(state, m, memo)), (suite.lines[i], m)


# ---------------------------------------------------------------------------- Clobber
def test_clobber_scores_match_plain_negamax():
    from ttt_engine.clobber import move_squares
    suite = suite_of("clobber")
    assert suite.info["distance"] is False
    assert all(abs(v) == WIN for s in suite.scores for v in s.values())
    memo = {}
    for i in _sample(suite, 40, key=lambda i: -len(suite.lines[i])):
        grid, player = clobber_ref.start(6, 5), "B"
        for m in suite.lines[i]:
            grid = clobber_ref.apply_move(grid, move_squares(m))
            player = clobber_ref.opponent(player)
        moves = clobber_ref.generate_moves(grid, player)
        assert sorted(moves) == sorted(move_squares(m) for m in suite.scores[i])
        for m, stored in suite.scores[i].items():
            child = clobber_ref.apply_move(grid, move_squares(m))
            opponent_wins = clobber_ref.wins(child, clobber_ref.opponent(player), memo)
            assert stored == (-WIN if opponent_wins else WIN), (suite.lines[i], m)


# ---------------------------------------------------------------------------- Quixo 4x4
def q_win_within(grid, player, d):
    """``player`` to move forces a win within ``d`` plies (d odd >= 1)."""
    for m in quixo_ref.legal_moves(grid, player):
        g = quixo_ref.apply(grid, m, player)
        w = quixo_ref.outcome_after(g, player)
        if w == player:
            return True
        if w == 0 and d >= 3 and q_lose_within(g, 3 - player, d - 1):
            return True
    return False


def q_lose_within(grid, player, d):
    """``player`` to move loses within ``d`` plies whatever it plays (d even >= 2)."""
    for m in quixo_ref.legal_moves(grid, player):
        g = quixo_ref.apply(grid, m, player)
        w = quixo_ref.outcome_after(g, player)
        if w == player or (w == 0 and not q_win_within(g, 3 - player, d - 1)):
            return False
    return True


def test_quixo_scores_match_a_forward_search():
    """Every move that wins or loses within 3 plies is checked exactly (the
    result and the distance, by an AND-OR search from the rules); every other
    move is checked to do neither (a longer result or a draw: beyond a plain
    search from the rules, since a drawn Quixo game never ends)."""
    suite = suite_of("quixo")
    checked = 0
    for i in _sample(suite, 10, key=lambda i: -sum(abs(v) > WIN - 4 for v in
                                                  suite.scores[i].values())):
        n = int(suite.options_of(i).get("size", 5))
        grid, player = quixo_ref.new_board(n), 1
        for m in suite.lines[i]:
            grid = quixo_ref.apply(grid, m, player)
            player = 3 - player
        assert quixo_ref.legal_moves(grid, player) == sorted(suite.scores[i])
        for m, stored in suite.scores[i].items():
            g = quixo_ref.apply(grid, m, player)
            w = quixo_ref.outcome_after(g, player)
            if w:
                assert stored == _stored(1 if w == player else -1, 1)
                checked += 1
                continue
            opp = 3 - player
            plies = WIN - abs(stored) if stored else None
            if stored > 0 and plies <= 3:       # the opponent loses in plies - 1
                assert q_lose_within(g, opp, plies - 1), (suite.lines[i], m)
                checked += 1
            elif stored < 0 and plies <= 3:     # the opponent wins in plies - 1 (= 2: never)
                assert q_win_within(g, opp, plies - 1) and plies == 2, (suite.lines[i], m)
                checked += 1
            else:
                assert not q_win_within(g, opp, 1), (suite.lines[i], m)
                assert not q_lose_within(g, opp, 2), (suite.lines[i], m)
    assert checked >= 20


# ---------------------------------------------------------------------------- Connect Four
def test_connect4_scores_match_the_reference_solver():
    """The reference's score (the winner's k-th disc: 22 - k) as plies from the
    position, for every column of late positions."""
    suite = suite_of("connect4")
    for i in _sample(suite, 20, key=lambda i: -len(suite.lines[i])):
        line = suite.lines[i]
        n = len(line)
        ref = c4_ref.move_scores("".join(str(c + 1) for c in line))
        assert sorted(ref) == sorted(suite.scores[i])
        for c, s in ref.items():
            if s == 0:
                want = 0
            else:
                k = 22 - abs(s)                         # the winner's disc
                winner_first = (n % 2 == 0) == (s > 0)  # the mover is first when n is even
                end = 2 * k - 1 if winner_first else 2 * k
                want = _stored(1 if s > 0 else -1, end - n)
            assert suite.scores[i][c] == want, (line, c)
