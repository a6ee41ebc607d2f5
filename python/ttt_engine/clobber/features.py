"""Clobber's value-network features, ``clobber-<R>x<C>-v2``: contacts.

A Clobber move is a capture between orthogonal neighbours, so a stone's worth
is in its contacts.  Cells are the board's own, ``C*r + k`` row by row from
the top-left as ``to_string`` prints them (``Board.cell(r, k)``), ``N = R*C``;
side ``p`` = 0 for the first player to move ("X", Black ``B``), 1 for the
second ("O", White ``W``).  The ``E = R*(C-1) + (R-1)*C`` edges (orthogonally
adjacent cells): the horizontal ones ``r*(C-1) + k`` (cells ``(r, k)``,
``(r, k+1)``), then the vertical ones ``R*(C-1) + r*C + k`` (cells ``(r, k)``,
``(r+1, k)``); an edge's first cell is its left or upper one.

- a stone of side ``p`` on cell ``c`` with ``j`` opposing orthogonal
  neighbours (0-4) -> ``(5p + j)*N + c``;
- edge ``e`` with X on its first cell and O on its second -> ``10N + 2e``, O
  then X -> ``10N + 2e + 1`` (a capture either side may play);
- the second player to move -> ``10N + 2E``; F = 10N + 2E + 1 (399 on 6x5).

The symmetries of the rectangle (8 on a square board) act on the cells, and so
on the edges (an edge's image may hold its stones the other way round).
"""
from __future__ import annotations

import re

import numpy as np

from ttt_engine.valuenet._featureset import ValueFeatures, cell_symmetries


def _shape(board):
    return board.rows, board.cols


def edges(rows, cols):
    """The edges ``[(first cell, second cell)]`` in feature order."""
    horizontal = [(cols * r + k, cols * r + k + 1) for r in range(rows) for k in range(cols - 1)]
    vertical = [(cols * r + k, cols * (r + 1) + k) for r in range(rows - 1) for k in range(cols)]
    return horizontal + vertical


def name(board):
    rows, cols = _shape(board)
    return f"clobber-{rows}x{cols}-v2"


def count(board):
    rows, cols = _shape(board)
    return 10 * rows * cols + 2 * len(edges(rows, cols)) + 1


def features(board):
    """The sorted active features of ``board`` (``np.int32``)."""
    grid = board.grid()
    first, second = board.PLAYERS
    rows, cols = len(grid), len(grid[0])
    n = rows * cols
    side = [{first: 0, second: 1}.get(grid[c // cols][c % cols]) for c in range(n)]
    nbrs = [[] for _ in range(n)]
    links = edges(rows, cols)
    for a, b in links:
        nbrs[a].append(b)
        nbrs[b].append(a)
    out = [(5 * side[c] + sum(side[m] == 1 - side[c] for m in nbrs[c])) * n + c
           for c in range(n) if side[c] is not None]
    out += [10 * n + 2 * e + side[a] for e, (a, b) in enumerate(links)
            if side[a] is not None and side[b] == 1 - side[a]]
    if board.to_move == second:
        out.append(10 * n + 2 * len(links))
    return np.array(sorted(out), dtype=np.int32)


def options(text):
    m = re.fullmatch(r"clobber-([1-9][0-9]?)x([1-9][0-9]?)-v2", text)
    return None if m is None else {"rows": int(m.group(1)), "cols": int(m.group(2))}


def symmetries(board):
    """The feature permutations under the board's symmetries: the stone features
    go with their cell, an edge's with its image, turned round where the image
    of its first cell is the second cell of the image."""
    cells = cell_symmetries(board)
    rows, cols = _shape(board)
    n = rows * cols
    links = edges(rows, cols)
    index = {pair: e for e, pair in enumerate(links)}
    out = []
    for p in cells:
        row = [block * n + p for block in range(10)]
        image = np.empty(2 * len(links), dtype=np.int32)
        for e, (a, b) in enumerate(links):
            pa, pb = int(p[a]), int(p[b])
            flip = pa > pb
            f = index[(pb, pa) if flip else (pa, pb)]
            image[2 * e] = 10 * n + 2 * f + flip
            image[2 * e + 1] = 10 * n + 2 * f + (not flip)
        row += [image, [10 * n + 2 * len(links)]]
        out.append(np.concatenate(row).astype(np.int32))
    return np.array(out, dtype=np.int32)


VALUE_FEATURES = ValueFeatures(name=name, count=count, active=features, options=options,
                               symmetries=symmetries)
