"""Connect Four's value-network features, ``connect4-v1`` (F = 85).

Cells are numbered as the board prints them (``to_string``, ``grid()``): row by
row from the top, ``7*r + k`` for row ``r`` (0 the top row) and column ``k``
(0 the column ``a``).  X (the first to move) on cell ``c`` -> ``c``; O on
``c`` -> ``42 + c``; O to move -> ``84``.  The one symmetry is the mirror
left-right (gravity rules out the others).
"""
from __future__ import annotations

import numpy as np

from ttt_engine.valuenet._featureset import ValueFeatures, stone_symmetries

NAME = "connect4-v1"
COUNT = 85
ROWS, COLS = 6, 7


def features(board):
    """The sorted active features of ``board`` (``np.int32``)."""
    grid = board.grid()
    out = [ROWS * COLS * (grid[r][k] == "O") + COLS * r + k
           for r in range(ROWS) for k in range(COLS) if grid[r][k]]
    if board.to_move == "O":
        out.append(84)
    return np.array(sorted(out), dtype=np.int32)


VALUE_FEATURES = ValueFeatures(
    name=lambda board: NAME, count=lambda board: COUNT, active=features,
    options=lambda name: {} if name == NAME else None, symmetries=stone_symmetries)
