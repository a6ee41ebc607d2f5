"""Independent pure-Python Quixo rules (lists of lists, no bit tricks), used by
tests/test_quixo.py as an oracle for the Cython bitboard core."""

SIDES = "TBLR"


def new_board(n):
    return [[0] * n for _ in range(n)]


def from_cells(cells, n):
    return [list(cells[r * n:(r + 1) * n]) for r in range(n)]


def to_cells(grid):
    return tuple(v for row in grid for v in row)


def legal_moves(grid, player):
    """Move codes (cell*4+side) for ``player`` (1 = X, 2 = O), ascending."""
    n = len(grid)
    out = []
    for r in range(n):
        for c in range(n):
            if not (r in (0, n - 1) or c in (0, n - 1)):
                continue
            if grid[r][c] not in (0, player):
                continue
            for side in range(4):
                if (side == 0 and r == 0) or (side == 1 and r == n - 1) or \
                   (side == 2 and c == 0) or (side == 3 and c == n - 1):
                    continue
                out.append((r * n + c) * 4 + side)
    return sorted(out)


def apply(grid, move, player):
    """New grid after ``player`` plays ``move`` (the cube is lifted out, the
    line slides towards the hole, the cube goes in at the chosen end)."""
    n = len(grid)
    cell, side = divmod(move, 4)
    r, c = divmod(cell, n)
    g = [row[:] for row in grid]
    if side in (0, 1):
        col = [g[i][c] for i in range(n)]
        del col[r]
        col = [player] + col if side == 0 else col + [player]
        for i in range(n):
            g[i][c] = col[i]
    else:
        row = g[r][:]
        del row[c]
        row = [player] + row if side == 2 else row + [player]
        g[r] = row
    return g


def has_line(grid, player):
    n = len(grid)
    lines = [[(r, c) for c in range(n)] for r in range(n)]
    lines += [[(r, c) for r in range(n)] for c in range(n)]
    lines.append([(i, i) for i in range(n)])
    lines.append([(i, n - 1 - i) for i in range(n)])
    return any(all(grid[r][c] == player for r, c in ln) for ln in lines)


def outcome_after(grid, mover):
    """Winner (1/2) after ``mover`` moved into ``grid``, or 0: a line of the
    opponent makes the mover lose even if the mover has one too."""
    opp = 3 - mover
    if has_line(grid, opp):
        return opp
    if has_line(grid, mover):
        return mover
    return 0


def perft(grid, player, depth):
    if depth == 0:
        return 1
    moves = legal_moves(grid, player)
    if depth == 1:
        return len(moves)
    total = 0
    for m in moves:
        g = apply(grid, m, player)
        if outcome_after(g, player):
            total += 1
        else:
            total += perft(g, 3 - player, depth - 1)
    return total
