"""Tic-Tac-Toe's value-network features, ``ttt-v1`` (F = 19).

Cells are the board's own, 0-8 row by row from the top-left (``Board.cells``,
the move codes of ``Board.push``).  X (the first to move) on cell ``c`` ->
``c``; O on ``c`` -> ``9 + c``; O to move -> ``18``.  The game's symmetries
(the 8 of the square) act on the cells.
"""
from __future__ import annotations

import numpy as np

from ttt_engine.valuenet._featureset import ValueFeatures, stone_symmetries

NAME = "ttt-v1"
COUNT = 19


def features(board):
    """The sorted active features of ``board`` (``np.int32``)."""
    cells = board.cells
    out = [c for c in range(9) if cells[c] == 1]
    out += [9 + c for c in range(9) if cells[c] == 2]
    if board.to_move == "O":
        out.append(18)
    return np.array(out, dtype=np.int32)


VALUE_FEATURES = ValueFeatures(
    name=lambda board: NAME, count=lambda board: COUNT, active=features,
    options=lambda name: {} if name == NAME else None, symmetries=stone_symmetries)
