"""Clobber's value-network features, ``clobber-<R>x<C>-v1`` (F = 2N + 1, N = R*C).

Cells are the board's own, ``C*r + k`` row by row from the top-left as
``to_string`` prints them (``Board.cell(r, k)``).  A stone of the first player
to move ("X", Black ``B``) on cell ``c`` -> ``c``; a stone of the second ("O",
White ``W``) on ``c`` -> ``N + c``; the second player to move -> ``2N``.  The
symmetries of the rectangle (8 on a square board) act on the cells.
"""
from __future__ import annotations

import re

import numpy as np

from ttt_engine.valuenet._featureset import ValueFeatures, stone_symmetries


def _shape(board):
    return board.rows, board.cols


def name(board):
    rows, cols = _shape(board)
    return f"clobber-{rows}x{cols}-v1"


def count(board):
    rows, cols = _shape(board)
    return 2 * rows * cols + 1


def features(board):
    """The sorted active features of ``board`` (``np.int32``)."""
    grid = board.grid()
    first, second = board.PLAYERS
    rows, cols = len(grid), len(grid[0])
    n = rows * cols
    out = [cols * r + k + (n if grid[r][k] == second else 0)
           for r in range(rows) for k in range(cols) if grid[r][k] in (first, second)]
    if board.to_move == second:
        out.append(2 * n)
    return np.array(sorted(out), dtype=np.int32)


def options(text):
    m = re.fullmatch(r"clobber-([1-9][0-9]?)x([1-9][0-9]?)-v1", text)
    return None if m is None else {"rows": int(m.group(1)), "cols": int(m.group(2))}


VALUE_FEATURES = ValueFeatures(name=name, count=count, active=features, options=options,
                               symmetries=stone_symmetries)
