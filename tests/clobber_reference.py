"""Independent pure-Python Clobber, written from the seed's ``clobber.py``
description (lists of lists, ``generate_moves`` / ``apply_move``), used only by
the tests to check the Cython bitboard core."""
import copy

PLAYER_B, PLAYER_W, EMPTY = "B", "W", "_"
DIRECTIONS = [(1, 0), (-1, 0), (0, 1), (0, -1)]


def opponent(p):
    return PLAYER_W if p == PLAYER_B else PLAYER_B


def start(rows, cols):
    return [[PLAYER_B if (r + c) % 2 == 0 else PLAYER_W for c in range(cols)] for r in range(rows)]


def parse(text):
    return [list(line.replace(" ", "")) for line in text.strip().splitlines()]


def generate_moves(board, player):
    rows, cols = len(board), len(board[0])
    moves = []
    for r in range(rows):
        for c in range(cols):
            if board[r][c] == player:
                for dr, dc in DIRECTIONS:
                    nr, nc = r + dr, c + dc
                    if 0 <= nr < rows and 0 <= nc < cols and board[nr][nc] == opponent(player):
                        moves.append(((r, c), (nr, nc)))
    return moves


def apply_move(board, move):
    (r1, c1), (r2, c2) = move
    nb = copy.deepcopy(board)
    nb[r2][c2] = nb[r1][c1]
    nb[r1][c1] = EMPTY
    return nb


def perft(board, player, depth):
    if depth == 0:
        return 1
    moves = generate_moves(board, player)
    if not moves:
        return 1
    if depth == 1:
        return len(moves)
    return sum(perft(apply_move(board, m), opponent(player), depth - 1) for m in moves)


def wins(board, player, memo=None):
    """True if ``player`` (to move) wins with perfect play (plain memoised negamax)."""
    if memo is None:
        memo = {}
    key = (tuple(map(tuple, board)), player)
    if key in memo:
        return memo[key]
    res = any(not wins(apply_move(board, m), opponent(player), memo)
              for m in generate_moves(board, player))
    memo[key] = res
    return res


# The seed's six heuristics, from ``player``'s point of view.
def h_pieces(board, p):
    flat = [x for row in board for x in row]
    return flat.count(p) - flat.count(opponent(p))


def h_mobility(board, p):
    return len(generate_moves(board, p)) - len(generate_moves(board, opponent(p)))


def h_own_moves(board, p):
    return len(generate_moves(board, p))


def h_safe(board, p):
    rows, cols = len(board), len(board[0])
    n = 0
    for r in range(rows):
        for c in range(cols):
            if board[r][c] == p and not any(
                    0 <= r + dr < rows and 0 <= c + dc < cols and board[r + dr][c + dc] == opponent(p)
                    for dr, dc in DIRECTIONS):
                n += 1
    return n


def h_neg_opp_moves(board, p):
    return -len(generate_moves(board, opponent(p)))


def h_centre(board, p):
    rows, cols = len(board), len(board[0])
    rr = range(1, rows - 1) if rows >= 3 else range(rows)
    cc = range(1, cols - 1) if cols >= 3 else range(cols)
    return sum(1 for r in rr for c in cc if board[r][c] == p)


HEURISTICS = {"pieces": h_pieces, "mobility": h_mobility, "own_moves": h_own_moves,
              "safe": h_safe, "neg_opp_moves": h_neg_opp_moves, "centre": h_centre}


def minimax(board, depth, maximizing, root, h):
    """The seed's minimax value (terminal nodes scored as a win / loss of +-1000
    here, as the engine's search scores them itself)."""
    mover = root if maximizing else opponent(root)
    moves = generate_moves(board, mover)
    if not moves:
        return -1000 if maximizing else 1000
    if depth == 0:
        return h(board, root)
    vals = [minimax(apply_move(board, m), depth - 1, not maximizing, root, h) for m in moves]
    return max(vals) if maximizing else min(vals)
