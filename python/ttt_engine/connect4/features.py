"""Connect Four's value-network features, ``connect4-v2`` (F = 183): the discs,
and the threats that decide Connect Four's middle and end games.

Cells are numbered as the board prints them (``to_string``, ``grid()``): row by
row from the top, ``7*r + k`` for row ``r`` (0 the top row) and column ``k``
(0 the column ``a``).  X is the first to move.

- X's disc on cell ``c`` -> ``c``; O's -> ``42 + c``;
- X's threat on ``c`` -> ``84 + c``, O's -> ``126 + c``: an empty cell (playable
  now or not) that would complete four in a row of that side's discs;
- X's threat playable now in column ``k`` (the column's lowest empty cell is
  one of X's threats) -> ``168 + k``, O's -> ``175 + k``;
- O to move -> ``182``.

The one symmetry is the mirror left-right (gravity rules out the others).
"""
from __future__ import annotations

import numpy as np

from ttt_engine.valuenet._featureset import ValueFeatures, cell_symmetries

NAME = "connect4-v2"
ROWS, COLS = 6, 7
CELLS = ROWS * COLS
THREATS = 2 * CELLS             # X's threat on cell c -> THREATS + c; O's -> THREATS + CELLS + c
PLAYABLE = 4 * CELLS            # X's threat playable in column k -> PLAYABLE + k; O's -> + COLS
TO_MOVE = PLAYABLE + 2 * COLS   # O to move
COUNT = TO_MOVE + 1

#: the 69 lines of four cells (as (row, column) pairs): across, up, and both diagonals
_LINES = [[(r + i * dr, k + i * dk) for i in range(4)]
          for dr, dk in ((0, 1), (1, 0), (1, 1), (1, -1))
          for r in range(ROWS) for k in range(COLS)
          if 0 <= r + 3 * dr < ROWS and 0 <= k + 3 * dk < COLS]


def threats(grid):
    """``(X's, O's)`` threat cells of ``grid`` (rows from the top, ``""`` for an
    empty cell): sets of ``(row, column)``, the empty cell of every line of four
    whose other three cells are the side's."""
    out = (set(), set())
    for line in _LINES:
        marks = [grid[r][k] for r, k in line]
        empty = [p for p, m in zip(line, marks) if not m]
        if len(empty) == 1:
            for side, mark in enumerate("XO"):
                if marks.count(mark) == 3:
                    out[side].add(empty[0])
    return out


def features(board):
    """The sorted active features of ``board`` (``np.int32``)."""
    grid = board.grid()
    out = [CELLS * (grid[r][k] == "O") + COLS * r + k
           for r in range(ROWS) for k in range(COLS) if grid[r][k]]
    # the lowest empty cell of each column that is not full
    lowest = {(max(r for r in range(ROWS) if not grid[r][k]), k)
              for k in range(COLS) if not grid[0][k]}
    for side, cells in enumerate(threats(grid)):
        out += [THREATS + side * CELLS + COLS * r + k for r, k in cells]
        out += [PLAYABLE + side * COLS + k for r, k in cells & lowest]
    if board.to_move == "O":
        out.append(TO_MOVE)
    return np.array(sorted(out), dtype=np.int32)


def symmetries(board):
    """The identity and the mirror, as feature permutations: the cell blocks
    (discs and threats) by the declared cell symmetry, the columns of the
    playable threats by the column it sends the bottom row's cells to."""
    perms = cell_symmetries(board)
    rows = []
    for p in perms:
        column = p[CELLS - COLS:] - (CELLS - COLS)      # the bottom row's image
        rows.append(np.concatenate([off + p for off in range(0, PLAYABLE, CELLS)] +
                                   [PLAYABLE + column, PLAYABLE + COLS + column, [TO_MOVE]]))
    return np.array(rows, dtype=np.int32)


VALUE_FEATURES = ValueFeatures(
    name=lambda board: NAME, count=lambda board: COUNT, active=features,
    options=lambda name: {} if name == NAME else None, symmetries=symmetries)
