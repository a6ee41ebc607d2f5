"""The grid of Ultimate Tic-Tac-Toe in plain Python: the eight lines of a 3x3
board and where each local board's cells lie on the 9x9 grid (for the Python
side's readers of a board: the value features, the OpenSpiel bridge)."""

#: the eight lines of a 3x3 board, its cells 0-8 row by row
LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))
#: ``CELLS[b][k]``: the grid cell (``9*R + C``) of cell k of local board b
CELLS = tuple(tuple((b // 3 * 3 + k // 3) * 9 + b % 3 * 3 + k % 3 for k in range(9))
              for b in range(9))
