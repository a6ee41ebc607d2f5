"""Quixo's value-network features, ``quixo-<S>x<S>-v1`` (F = 2N + 1, N = S*S).

Cells are the board's own, ``S*r + k`` row by row from the top-left
(``Board.cells``, ``to_string`` order).  An X cube (the first to move) on cell
``c`` -> ``c``; an O cube on ``c`` -> ``N + c`` (a blank cube: none); O to move
-> ``2N``.  The 8 symmetries of the square act on the cells.
"""
from __future__ import annotations

import re

import numpy as np

from ttt_engine.valuenet._featureset import ValueFeatures, stone_symmetries


def name(board):
    return f"quixo-{board.size}x{board.size}-v1"


def count(board):
    return 2 * board.size * board.size + 1


def features(board):
    """The sorted active features of ``board`` (``np.int32``)."""
    cells = board.cells
    n = len(cells)
    out = [c for c in range(n) if cells[c] == 1] + [n + c for c in range(n) if cells[c] == 2]
    if board.to_move == "O":
        out.append(2 * n)
    return np.array(out, dtype=np.int32)


def options(text):
    m = re.fullmatch(r"quixo-([1-9][0-9]?)x([1-9][0-9]?)-v1", text)
    if m is None or m.group(1) != m.group(2):
        return None
    return {"size": int(m.group(1))}


VALUE_FEATURES = ValueFeatures(name=name, count=count, active=features, options=options,
                               symmetries=stone_symmetries)
