"""Tic-Tac-Toe's yardstick suite: every decision position of the game (each
position reachable from the empty board where the game is not over, once),
every move scored by exact alpha-beta (the ``perfect`` engine's
``move_scores``: the fastest win, the slowest loss), and checked against the
oracle (``ttt_engine.exact``: the value and the moves that keep it)."""
from __future__ import annotations

import sys

from ttt_engine import _registry

__all__ = ["build"]


def decision_lines(game):
    """One move line from the empty board to each decision position (depth first)."""
    out, seen = [], set()

    def walk(board, line):
        key = tuple(board.cells)
        if key in seen or board.is_terminal():
            return
        seen.add(key)
        out.append(tuple(line))
        for m in board.legal_moves:
            child = board.copy()
            child.push(m)
            walk(child, line + [int(m)])

    walk(game.new_board(), [])
    return out


def build(seed=1, progress=True, checkpoint=None):
    """The suite (``seed`` only picks the perfect engine's ties, which the scores
    do not use; a few seconds: ``checkpoint`` is not needed)."""
    from ttt_engine import exact
    from ttt_engine._yardstick_build import compose, plies_score
    g = _registry.get("ttt")
    scorer = g.make_agent("perfect", seed=seed)
    candidates = []
    lines = decision_lines(g)
    for k, line in enumerate(lines, 1):
        b = g.new_board()
        for m in line:
            b.push(m)
        s = {int(m): plies_score(v) for m, v in scorer.move_scores(b).items()}
        value, keeping = exact.oracle(b)
        best = max((v > 0) - (v < 0) for v in s.values())
        if best != value or sorted(keeping) != sorted(m for m, v in s.items()
                                                     if (v > 0) - (v < 0) == value):
            raise RuntimeError(f"the alpha-beta scores of {line} disagree with the oracle")
        candidates.append((line, s, 0, 0))
        if progress and (k % 500 == 0 or k == len(lines)):
            print(f"\rTic-Tac-Toe: {k:,}/{len(lines):,} positions", end="", file=sys.stderr,
                  flush=True)
    if progress:
        print(file=sys.stderr)
    # every decision position: none is left out, critical or not
    return compose("ttt", candidates, size=len(candidates), critical_share=1e-9, seed=seed,
                   sources=("every decision position",),
                   info={"seed": seed, "scorer": "exact alpha-beta, checked by the oracle"})
