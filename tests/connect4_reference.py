"""Independent exact Connect Four in plain Python, written from the rules only
(7 columns x 6 rows, discs drop to the lowest empty cell, four in a row across,
up or diagonally wins, a full board is a draw), used by the tests to check the
compiled solver.  Its own board (a list of columns, each a list of the
players' ids from the bottom up), its own win check, no engine code.

Scores follow the standard test-set convention, for the side to move: 0 a draw;
a win in which the side to move wins with its k-th disc of the game scores
22 - k; a loss is minus the winner's score.  Positions are written as move
strings, columns 1..7 from the empty board ("4453").
"""
COLS, ROWS = 7, 6
CELLS = COLS * ROWS
#: centre columns first: they take part in the most lines, so alpha-beta cuts sooner
ORDER = (3, 2, 4, 1, 5, 0, 6)
DIRECTIONS = ((1, 0), (0, 1), (1, 1), (1, -1))
#: a unique incremental key: cell (c, r) holding player p adds (p + 1) * 3 ** (c * ROWS + r)
_POW3 = [3 ** i for i in range(CELLS)]


class Position:
    """A Connect Four position: ``cols[c]`` the discs of column c from the bottom,
    0 for the first player (X), 1 for the second (O)."""

    def __init__(self):
        self.cols = [[] for _ in range(COLS)]
        self.n = 0          # discs played
        self.key = 0
        self.won = False    # the last move made four in a row

    @classmethod
    def from_moves(cls, moves):
        pos = cls()
        for i, ch in enumerate(moves):
            if ch not in "1234567":
                raise ValueError(f"move {i + 1} {ch!r}: not a column 1..7")
            c = int(ch) - 1
            if pos.won:
                raise ValueError(f"move {i + 1} {ch!r}: the game is already over")
            if len(pos.cols[c]) == ROWS:
                raise ValueError(f"move {i + 1} {ch!r}: column {ch} is full")
            pos.won = pos.wins_at(c)
            pos.play(c)
        return pos

    def to_move(self):
        return self.n & 1

    def legal(self):
        if self.won:
            return []
        return [c for c in ORDER if len(self.cols[c]) < ROWS]

    def _owner(self, c, r):
        if 0 <= c < COLS and 0 <= r < len(self.cols[c]):
            return self.cols[c][r]
        return -1

    def wins_at(self, c):
        """True if the side to move makes four in a row by dropping into column c."""
        p, r = self.n & 1, len(self.cols[c])
        for dc, dr in DIRECTIONS:
            run = 1
            for sign in (1, -1):
                cc, rr = c + sign * dc, r + sign * dr
                while self._owner(cc, rr) == p:
                    run += 1
                    cc += sign * dc
                    rr += sign * dr
            if run >= 4:
                return True
        return False

    def play(self, c):
        p = self.n & 1
        self.key += (p + 1) * _POW3[c * ROWS + len(self.cols[c])]
        self.cols[c].append(p)
        self.n += 1

    def undo(self, c):
        self.n -= 1
        p = self.cols[c].pop()
        self.key -= (p + 1) * _POW3[c * ROWS + len(self.cols[c])]


def win_score(n):
    """Score of winning with the next disc when ``n`` discs are on the board:
    22 - k with k = n // 2 + 1 the mover's disc count after the move."""
    return 22 - (n // 2 + 1)


def _over_score(pos):
    """Score of a finished position for the side to move (None if not finished)."""
    if pos.won:
        return -win_score(pos.n - 1)
    if pos.n == CELLS:
        return 0
    return None


class Solver:
    """Negamax with alpha-beta over exact scores and a memo of bounds per position
    (shared by every call: a bound holds whatever window found it)."""

    def __init__(self):
        self.memo = {}
        self.nodes = 0

    def solve(self, pos, alpha=-CELLS, beta=CELLS):
        done = _over_score(pos)
        if done is not None:
            return done
        return self._negamax(pos, alpha, beta)

    def _negamax(self, pos, alpha, beta):
        """Score of ``pos`` (not finished) if within (alpha, beta); otherwise a bound
        on the far side of the window (fail-soft)."""
        self.nodes += 1
        n = pos.n
        if n == CELLS:
            return 0
        moves = pos.legal()
        for c in moves:
            if pos.wins_at(c):
                return win_score(n)
        if n + 1 == CELLS:
            return 0   # the last disc, and it does not win
        # The opponent's immediate wins: two cannot both be blocked; one must be.
        pos.n += 1
        threats = [c for c in moves if pos.wins_at(c)]
        pos.n -= 1
        lose_now = -win_score(n + 1)
        if len(threats) >= 2:
            return lose_now
        if threats:
            moves = threats   # any other move loses at once: the worst score there is
        # Not winning with this disc, the best left is winning with the next one.
        best_possible = win_score(n + 2)
        lo, hi = self.memo.get(pos.key, (lose_now, best_possible))
        if lo >= beta:
            return lo
        if hi <= alpha:
            return hi
        if lo == hi:
            return lo
        a, b = max(alpha, lo), min(beta, hi)
        best = -CELLS - 1
        for c in moves:
            pos.play(c)
            v = -self._negamax(pos, -b, -a)
            pos.undo(c)
            if v > best:
                best = v
                if v > a:
                    a = v
                    if a >= b:
                        break
        # best <= the window's low end: an upper bound; >= its high end: a lower one
        if best <= max(alpha, lo):
            hi = min(hi, best)
        elif best >= b:
            lo = max(lo, best)
        else:
            lo = hi = best
        self.memo[pos.key] = (lo, hi)
        if len(self.memo) > 4_000_000:
            self.memo.clear()
        return best


_SOLVER = Solver()


def score(moves):
    """The exact score of the position after ``moves`` for the side to move."""
    return _SOLVER.solve(Position.from_moves(moves))


def weak(moves):
    """1 win, 0 draw, -1 loss for the side to move (a null window around 0)."""
    pos = Position.from_moves(moves)
    v = _SOLVER.solve(pos, -1, 1)
    return (v > 0) - (v < 0)


def move_scores(moves):
    """{column 0..6: score for the side to move of playing it} over the legal
    columns (a move that ends the game scores as the finished position does)."""
    pos = Position.from_moves(moves)
    out = {}
    for c in sorted(pos.legal()):
        won = pos.wins_at(c)
        pos.play(c)
        pos.won = won
        out[c] = -_SOLVER.solve(pos)
        pos.won = False
        pos.undo(c)
    return out


def brute_score(moves):
    """The same score by plain minimax over every move order (no pruning, no memo,
    no shortcuts): only for positions with few empty cells."""
    pos = Position.from_moves(moves)

    def minimax(pos):
        done = _over_score(pos)
        if done is not None:
            return done
        best = -CELLS
        for c in pos.legal():
            won = pos.wins_at(c)
            pos.play(c)
            pos.won = won
            best = max(best, -minimax(pos))
            pos.won = False
            pos.undo(c)
        return best

    return minimax(pos)


def value_features(text):
    """The value network's ``connect4-v2`` features of a board given as its text
    (six rows of seven ``X``/``O``/``.`` from the top, joined by ``/``), from the
    rules: the discs (X on cell ``7*r + c``, r from the top: that index; O: 42 +
    it), the threats (an empty cell where the side's disc, if it could stand
    there, would make four in a row through it: X 84 +, O 126 + the cell), the
    threats playable now (the empty cell resting on a disc or on the floor: X
    168 + the column, O 175 +) and O to move (182: O has fewer discs than X)."""
    grid = text.split("/")
    assert len(grid) == ROWS and all(len(row) == COLS for row in grid)

    def mark(r, c):
        return grid[r][c] if 0 <= r < ROWS and 0 <= c < COLS else None

    out = []
    for r in range(ROWS):
        for c in range(COLS):
            cell = COLS * r + c
            if grid[r][c] != ".":
                out.append(cell + CELLS * (grid[r][c] == "O"))
                continue
            resting = r == ROWS - 1 or grid[r + 1][c] != "."
            for side, me in enumerate("XO"):
                # the longest run through (r, c) of ``me`` with (r, c) counted as ``me``
                if any(1 + sum(1 for sign in (1, -1) for _ in _run(mark, r, c, sign * dr,
                                                                     sign * dc, me)) >= 4
                       for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1))):
                    out.append(2 * CELLS + side * CELLS + cell)
                    if resting:
                        out.append(4 * CELLS + side * COLS + c)
    if text.count("X") > text.count("O"):
        out.append(4 * CELLS + 2 * COLS)
    return sorted(out)


def _run(mark, r, c, dr, dc, me):
    """The cells of ``me`` in a row from (r, c), not counting it, one way."""
    r, c = r + dr, c + dc
    while mark(r, c) == me:
        yield r, c
        r, c = r + dr, c + dc
