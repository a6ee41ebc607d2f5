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
          candidates_5x5=2000, four_by_four=True, checkpoint=None):
    """The suite: ``size`` 4x4 positions of ``candidates`` scored, most
    critical (``four_by_four`` False: none); with ``tablebase``, ``size_5x5``
    positions of 5x5 of ``candidates_5x5`` more, most critical
    (``checkpoint``: see ``_yardstick_build.sample_positions``)."""
    from ttt_engine import quixo
    from ttt_engine._yardstick_build import compose, sample_positions
    if not four_by_four and tablebase is None:
        raise ValueError("a Quixo suite needs the 4x4 positions or a 5x5 tablebase")
    g = _registry.get("quixo")
    chosen, options, sources, info = [], [], [], {"seed": seed}
    parts = []
    if four_by_four:
        quixo.solution(4)
        parts.append(({"size": 4}, quixo.solved_move_values, size, candidates, "4x4",
                      lambda b: len(b.moves) < MAX_PLIES, 8, checkpoint))
        info["scorer"] = "the retrograde solution of 4x4 (quixo.solution(4))"
    if tablebase is not None:
        # the tablebase's positions: 5x5, at most one blank cube, on the default board
        parts.append(({}, tablebase, size_5x5, candidates_5x5, "5x5 (tablebase)",
                      lambda b: blank_cubes(b) <= 1 and len(b.moves) < MAX_PLIES, 4,
                      checkpoint and f"{checkpoint}.5x5"))
        info["tablebase"] = "5x5 with at most one blank cube"
    for v, (opts, values, want, tries, name, accept, per_game, ck) in enumerate(parts):
        strong = g.make_agent("alphabeta", depth=2, seed=seed)
        found = sample_positions(
            "quixo", _scorer(values), tries, seed=seed + v, strong=strong, epsilon=0.15,
            options=opts, accept=accept, per_game=per_game, progress=progress,
            label=f"Quixo {name}", checkpoint=ck)
        part = compose("quixo", found, size=want, seed=seed)
        info["candidates"] = info.get("candidates", 0) + part.info["candidates"]
        chosen += [(part.lines[i], part.scores[i], len(sources) + part.sources[i], v)
                   for i in range(len(part))]
        options.append(opts)
        sources += [f"{name}: random games", f"{name}: alphabeta depth 2, 15% random moves"]
    return compose("quixo", chosen, size=len(chosen), critical_share=1e-9, seed=seed,
                   sources=sources, options=options, info=info)
