"""What a game declares about its value-network input (``Game.value_features``).

A game's feature set turns a board into the sorted indices of its active
binary features (the network's first layer adds the rows of those indices), and
names itself (``"uttt-v2"``, ``"clobber-6x5-v2"``): the name fixes the number of
features, and a network file records it so that a file of another feature set
is refused at load.  The game's symmetries (where it has them) act on the
features as permutations: a position and its image have the same value, which
training uses to augment its data.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

__all__ = ["ValueFeatures", "cell_symmetries", "cell_permutations_to_features",
           "stone_symmetries"]


@dataclass(frozen=True)
class ValueFeatures:
    """One game's value-network input.

    ``name(board)``: the feature-set name of the board's options; ``count(board)``:
    the number of features F; ``active(board)``: the sorted active indices
    (``np.int32``); ``options(name)``: the board options of a feature-set name
    (``None`` if the name is not one of this game's); ``symmetries(board)``: an
    ``int32 [S, F]`` array whose row ``s`` maps feature ``f`` of a position to
    feature ``perm[s, f]`` of its image under symmetry ``s`` (row 0 the identity;
    one row when the game has no symmetry used here)."""
    name: Callable
    count: Callable
    active: Callable
    options: Callable
    symmetries: Callable


def cell_symmetries(board):
    """The symmetries ``board``'s game declares (its entry's ``symmetries``, the rule
    that self-play's data augmentation reads too) as cell permutations: an ``int32
    [S, h*w]`` array, ``perm[s, c]`` the image of cell ``c`` of the board's ``h x w``
    observation planes (row by row) under symmetry ``s``, identity first; the
    identity alone for a game that declares none."""
    from ttt_engine import _registry, _symmetry
    planes, h, w = board.observation_shape
    rule = _registry.of_board(board).symmetries or _symmetry.identity
    # the rule gives the transformed plane as ``new[i] = old[map[i]]``: cell
    # ``map[i]`` goes to ``i``, the inverse of the image of each cell
    return np.array([np.argsort(obs[:h * w]) for obs, _ in rule((planes, h, w), board.num_actions)],
                    dtype=np.int32)


def cell_permutations_to_features(cell_perms, blocks, fixed):
    """Feature permutations from cell permutations: ``blocks`` is the list of
    feature offsets of the per-cell blocks (e.g. ``[0, N]`` for "X on c", "O on c"),
    ``fixed`` the number of features after them that no symmetry moves."""
    cell_perms = np.asarray(cell_perms, dtype=np.int32)
    n = cell_perms.shape[1]
    rows = []
    for p in cell_perms:
        row = [off + p for off in blocks]
        row.append(np.arange(len(blocks) * n, len(blocks) * n + fixed, dtype=np.int32))
        rows.append(np.concatenate(row))
    return np.array(rows, dtype=np.int32)


def stone_symmetries(board):
    """The feature permutations of a stone game's features (X on cell ``c`` -> ``c``,
    O on ``c`` -> ``N + c`` for the ``N`` cells of :func:`cell_symmetries`, then one
    feature no symmetry moves: O to move) under its declared symmetries."""
    perms = cell_symmetries(board)
    return cell_permutations_to_features(perms, [0, perms.shape[1]], 1)
