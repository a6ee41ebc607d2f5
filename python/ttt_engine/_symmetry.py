"""The symmetries a game declares (its entry's ``symmetries``): the maps of a
position's observation planes and of its actions under which the rules are
the same, for the data augmentation of self-play (:func:`ttt_engine.selfplay.symmetries`).

A rule is a function ``(obs_shape, num_actions) -> [(obs_index, action_index),
...]``, the identity first: ``obs_flat[:, obs_index]`` and ``policy[:, action_index]``
are the transformed position's planes and policy.  Three kinds of action are
here, by what an action is on the ``h x w`` grid of the planes:

- :func:`cells`: an action is a cell (``h * w`` actions);
- :func:`cells_and_directions`: a cell and one of four directions (``4 * h * w``:
  down/top, up/bottom, right/left, left/right);
- :func:`columns`: a column (``w`` actions) of a board whose pieces fall: only the
  identity and the mirror keep the rules.

The square's 8 maps (4 for a rectangle: identity, flips, half turn) are used;
a game whose rules are not the same under them declares :func:`identity`
(or leaves ``symmetries`` None, which means the same: no augmentation).
"""
from __future__ import annotations

import numpy as np

__all__ = ["identity", "cells", "cells_and_directions", "columns"]


def _grid_maps(h, w):
    """The board's symmetries as (index map on an h x w grid, direction map on
    the four directions 0 down/top, 1 up/bottom, 2 right/left, 3 left/right):
    the 8 of the square, 4 (identity, flips, half turn) of a rectangle.
    ``out[i] = src[map[i]]`` gives the transformed plane."""
    r, c = np.divmod(np.arange(h * w), w)
    maps = [((r, c), (0, 1, 2, 3)),                       # identity
            ((h - 1 - r, c), (1, 0, 2, 3)),               # upside down
            ((r, w - 1 - c), (0, 1, 3, 2)),               # mirror
            ((h - 1 - r, w - 1 - c), (1, 0, 3, 2))]       # half turn
    if h == w:
        maps += [((c, r), (2, 3, 0, 1)),                  # transpose
                 ((w - 1 - c, r), (3, 2, 0, 1)),
                 ((c, h - 1 - r), (2, 3, 1, 0)),
                 ((w - 1 - c, h - 1 - r), (3, 2, 1, 0))]
    return [(rr * w + cc, np.array(d)) for (rr, cc), d in maps]


def _obs_index(obs_shape, grid):
    planes, h, w = obs_shape
    return (np.arange(planes)[:, None] * h * w + grid[None, :]).reshape(-1)


def _check(obs_shape, num_actions, want, what):
    if num_actions != want:
        _planes, h, w = obs_shape
        raise ValueError(f"{num_actions} actions on a {h}x{w} board are not {what} "
                         f"({want})")


def identity(obs_shape, num_actions):
    """No symmetry: the position alone."""
    return [(np.arange(int(np.prod(obs_shape))), np.arange(num_actions))]


def cells(obs_shape, num_actions):
    """An action is a cell: every map of the grid."""
    _planes, h, w = obs_shape
    _check(obs_shape, num_actions, h * w, "one per cell")
    return [(_obs_index(obs_shape, grid), grid) for grid, _dirs in _grid_maps(h, w)]


def cells_and_directions(obs_shape, num_actions):
    """An action is a cell and one of four directions: every map of the grid,
    the directions turned with it."""
    _planes, h, w = obs_shape
    _check(obs_shape, num_actions, 4 * h * w, "four per cell")
    out = []
    for grid, dirs in _grid_maps(h, w):
        # transformed action (cell i, direction d) is source (grid[i], dirs_inv[d])
        inv = np.argsort(dirs)
        out.append((_obs_index(obs_shape, grid),
                    (grid[:, None] * 4 + inv[None, :]).reshape(-1)))
    return out


def columns(obs_shape, num_actions):
    """An action is a column of a board whose pieces fall: the maps that keep
    the rows in place (the identity and the mirror)."""
    _planes, h, w = obs_shape
    _check(obs_shape, num_actions, w, "one per column")
    return [(_obs_index(obs_shape, grid), grid[:w] % w)
            for grid, dirs in _grid_maps(h, w) if dirs[0] == 0]
