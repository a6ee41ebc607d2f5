"""Clobber's yardstick suite, all on the default 6x5 board, from the exact
solver.

Positions of uniformly random games and of alpha-beta games with a little
randomness, from the first one with at most :data:`MAX_STONES` stones (the
solve of a move's position takes at most :data:`CAP` seconds, or the
position is left out) to the end; every legal move is scored by solving the
position after it (Clobber has no draws: won or lost).  The solver proves
the side, not the distance, so the scores are ``+-10000``
(``info["distance"]`` False) and every winning move counts as optimal.  The
endgame size of the ``best`` preset, 24 stones, is six plies into the game.
"""
from __future__ import annotations

from ttt_engine import _registry

__all__ = ["build", "MAX_STONES", "CAP"]

#: positions from this many stones on (the start has 30)
MAX_STONES = 26
#: seconds the solve of one move's position may take
CAP = 1.0


def move_scores(board, solver, cap=CAP):
    """``{move: +-10000}`` of ``board`` from ``solver`` (a ``clobber.Solver``),
    or None when some move's position is not settled within ``cap`` seconds."""
    out = {}
    for m in board.legal_moves:
        child = board.copy()
        child.push(m)
        if child.is_terminal():             # the side that cannot move loses
            out[int(m)] = 10_000
            continue
        r = solver.solve(child, time_limit=cap)
        if r.win is None:
            return None
        out[int(m)] = -10_000 if r.win else 10_000
    return out


def build(seed=1, progress=True, size=1400, candidates=1900, max_stones=MAX_STONES, cap=CAP,
          checkpoint=None):
    """The suite: ``size`` positions of ``candidates`` scored, most critical
    (``checkpoint``: see ``_yardstick_build.sample_positions``)."""
    from ttt_engine import clobber
    from ttt_engine._yardstick_build import compose, sample_positions
    g = _registry.get("clobber")

    def scorer(board):
        solver = clobber.Solver(20, db_bits=18)     # a table for each position, shared by its moves
        return move_scores(board, solver, cap)

    strong = g.make_agent("alphabeta", depth=2, seed=seed)
    found = sample_positions(
        "clobber", scorer, candidates, seed=seed, strong=strong, epsilon=0.15,
        accept=lambda b: b.stones("B") + b.stones("W") <= max_stones, per_game=4,
        progress=progress, label="Clobber 6x5", checkpoint=checkpoint)
    return compose("clobber", found, size=size, seed=seed,
                   sources=("random games", "alphabeta depth 2, 15% random moves"),
                   info={"seed": seed, "max_stones": max_stones, "cap": cap, "distance": False,
                         "scorer": "the exact solver (clobber.Solver), each move's position"})
