"""Quixo's yardstick suite: 4x4 positions scored from the retrograde solution
of the whole 4x4 game (``quixo.solution(4)``, about 10 s and 170 MB; the
distance to the end of every won and lost position), from uniformly random
games and alpha-beta games with a little randomness.

The 5x5 positions come from an endgame tablebase of every position with at
most one blank cube when one is given (``tablebase``: a function ``board ->
{move: score} or None``, scored as ``search.move_values`` scores, the
tablebase's move values): the 5x5 positions of the same games from the first
one with at most one blank cube, on the default board.  Without it the suite
is 4x4 only, and an engine bound to the 5x5 board (a network of it) cannot
be measured on it.
"""
from __future__ import annotations

from ttt_engine import _registry

__all__ = ["build", "blank_cubes"]

#: the moves of a game a suite position may come after (4x4: far below the 200-ply cap)
MAX_PLIES = 150


def blank_cubes(board):
    """The blank cubes left on ``board``."""
    return sum(1 for c in board.cells if c == 0)


def _scorer(values):
    from ttt_engine._yardstick_build import plies_score

    def score(board):
        v = values(board)
        return None if v is None else {int(m): plies_score(x) for m, x in v.items()}
    return score


def build(seed=1, progress=True, size=1400, candidates=2200, tablebase=None, size_5x5=1000,
          candidates_5x5=2000, checkpoint=None):
    """The suite: ``size`` 4x4 positions of ``candidates`` scored, most
    critical; with ``tablebase``, ``size_5x5`` positions of 5x5 more
    (``checkpoint``: see ``_yardstick_build.sample_positions``)."""
    from ttt_engine import quixo
    from ttt_engine._yardstick_build import compose, sample_positions
    g = _registry.get("quixo")
    quixo.solution(4)
    four = {"size": 4}
    strong = g.make_agent("alphabeta", depth=2, seed=seed)
    found = sample_positions(
        "quixo", _scorer(quixo.solved_move_values), candidates, seed=seed, strong=strong,
        epsilon=0.15, options=four, accept=lambda b: len(b.moves) < MAX_PLIES, per_game=8,
        progress=progress, label="Quixo 4x4", checkpoint=checkpoint)
    options, sources = [four], ["4x4 random games", "4x4 alphabeta depth 2, 15% random moves"]
    info = {"seed": seed, "scorer": "the retrograde solution of 4x4 (quixo.solution(4))"}
    out = compose("quixo", found, size=size, seed=seed, sources=sources, options=options,
                  info=info)
    if tablebase is None:
        return out
    # the tablebase's positions: 5x5, at most one blank cube, on the default board
    more = sample_positions(
        "quixo", _scorer(tablebase), candidates_5x5, seed=seed + 1, strong=g.make_agent(
            "alphabeta", depth=2, seed=seed), epsilon=0.15,
        accept=lambda b: blank_cubes(b) <= 1 and len(b.moves) < MAX_PLIES, per_game=4,
        progress=progress, label="Quixo 5x5 (tablebase)",
        checkpoint=checkpoint and f"{checkpoint}.5x5")
    five = compose("quixo", more, size=size_5x5, seed=seed)
    chosen = [(out.lines[i], out.scores[i], out.sources[i], 0) for i in range(len(out))]
    chosen += [(five.lines[i], five.scores[i], 2 + five.sources[i], 1) for i in range(len(five))]
    sources += ["5x5 random games (tablebase)", "5x5 alphabeta depth 2 (tablebase)"]
    return compose("quixo", chosen, size=len(chosen), critical_share=1e-9, seed=seed,
                   sources=sources, options=[four, {}],
                   info=dict(info, tablebase="5x5 with at most one blank cube"))
