"""Ultimate Tic-Tac-Toe's value-network features, ``uttt-v2`` (F = 379):
the marks and the threats.

Cells are the board's own: ``9*R + C`` on the 9x9 grid, R the row and C the
column 0-8 from the top-left (``Board.cells``, the move codes); local board
``b = 3*(R // 3) + C // 3`` (0-8 row by row).

- X (the first to move) on cell ``c`` -> ``c`` (0-80); O on ``c`` -> ``81 + c``;
- local board ``b`` won by X -> ``162 + b``; won by O -> ``171 + b``; full
  without a line (drawn) -> ``180 + b``;
- the forced board ``b`` (where the side to move must play) -> ``189 + b``; no
  feature when the mover may play in any open board (or the game is over);
- O to move -> ``198``;
- X's threat on cell ``c`` (an empty cell of an open local board that would
  complete a line of X's marks there) -> ``199 + c``; O's -> ``280 + c``;
- an open local board ``b`` that would complete a big-board line of the
  boards X has won -> ``361 + b``; of O's -> ``370 + b``.

The 8 symmetries of the square act on the 9x9 grid, and so on the big board
and every local board alike.
"""
from __future__ import annotations

import numpy as np

from ttt_engine.uttt.geometry import CELLS, LINES
from ttt_engine.valuenet._featureset import ValueFeatures, cell_symmetries

NAME = "uttt-v2"
COUNT = 379
_LOCAL = {"X": 162, "O": 171, "draw": 180}
_THREATS = (199, 280)
_BIG = (361, 370)


def _completing(own, empty):
    """The cells of ``empty`` (0-8) that complete a line with two of ``own``."""
    return {c for line in LINES for c in line
            if c in empty and sum(x in own for x in line) == 2}


def features(board):
    """The sorted active features of ``board`` (``np.int32``)."""
    cells = board.cells
    out = [c for c in range(81) if cells[c] == 1]
    out += [81 + c for c in range(81) if cells[c] == 2]
    winners = board.local_winners
    out += sorted(_LOCAL[w] + b for b, w in enumerate(winners) if w is not None)
    if board.forced_board is not None:
        out.append(189 + board.forced_board)
    if board.to_move == "O":
        out.append(198)
    open_boards = {b for b in range(9) if winners[b] is None}
    for p, mark in enumerate((1, 2)):
        for b in open_boards:
            local = [cells[m] for m in CELLS[b]]
            own = {c for c in range(9) if local[c] == mark}
            empty = {c for c in range(9) if local[c] == 0}
            out += [_THREATS[p] + CELLS[b][c] for c in _completing(own, empty)]
        won = {b for b in range(9) if winners[b] == "XO"[p]}
        out += [_BIG[p] + b for b in _completing(won, open_boards)]
    return np.array(sorted(out), dtype=np.int32)


def _symmetries(board):
    cells = cell_symmetries(board)
    # a local board goes where its centre cell goes
    centres = np.array([CELLS[b][4] for b in range(9)])
    rows = []
    for p in cells:
        image = p[centres]
        q = 3 * (image // 27) + (image % 9) // 3
        rows.append(np.concatenate([p, 81 + p, 162 + q, 171 + q, 180 + q, 189 + q, [198],
                                    199 + p, 280 + p, 361 + q, 370 + q]))
    return np.array(rows, dtype=np.int32)


VALUE_FEATURES = ValueFeatures(
    name=lambda board: NAME, count=lambda board: COUNT, active=features,
    options=lambda name: {} if name == NAME else None, symmetries=_symmetries)
