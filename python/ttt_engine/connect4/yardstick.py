"""Connect Four's yardstick suite: positions from uniformly random games and
from alpha-beta (depth 6) self-play with 15% random moves, spread over the
phases, every column scored exactly by the ``perfect`` engine (the opening
book, then the solver: :func:`ttt_engine.yardstick.build_suite`), then
weighted towards the critical positions (:func:`ttt_engine.yardstick.compose`:
every critical one, and no more of the others than leave 65% critical)."""
from __future__ import annotations

__all__ = ["build", "reweight"]


def reweight(suite, seed=1, critical_share=0.65):
    """``suite`` (a :class:`~ttt_engine.yardstick.Suite`) with every critical
    position and no more of the others than leave ``critical_share`` critical."""
    from ttt_engine._yardstick_build import compose
    found = [(suite.lines[i], suite.scores[i], suite.sources[i], 0) for i in range(len(suite))]
    return compose("connect4", found, size=len(found), critical_share=critical_share,
                   seed=seed, sources=suite.info.get("sources", ("random games",
                                                                 "strong engine")),
                   bounds=suite.bounds, info=dict(suite.info, reweighted=critical_share))


def build(seed=1, progress=True, per_phase=(150, 750, 750), cap=5.0, checkpoint=None):
    """The suite (about 45 minutes of one core for the positions, most of it
    the openings' scores; ``cap``: CPU seconds a position's scoring may take;
    ``checkpoint`` is not used: ``build_suite`` starts again when stopped)."""
    from ttt_engine._yardstick_build import build_suite
    suite = build_suite("connect4", per_phase=per_phase, seed=seed, strong="alphabeta",
                        strong_budget={"depth": 6}, epsilon=0.15, cap=cap, progress=progress)
    return reweight(suite, seed)
