"""An exact yardstick for any agent: a fixed suite of positions, each with the
exact score of every legal move, and how often an agent's move keeps the
game-theoretic value and how often it is optimal.

>>> from ttt_engine import games, yardstick
>>> g = games.get("connect4")
>>> r = yardstick.yardstick(g.make_agent("random", seed=1), game="connect4")  # doctest: +SKIP
>>> print(r)                                                                   # doctest: +SKIP

Every game ships a suite, ``ttt_engine/data/yardstick_<key>.npz``, made by
the game's own source (its registry entry's ``yardstick_source``, a module
with ``build(seed=..., progress=...)``: :func:`build`), from whatever scores
its positions exactly (an oracle, a retrograde solution, an exact solver, an
alpha-beta solve that finishes).  :func:`build_suite` is the generic maker
for a game with a ``perfect`` engine with ``move_scores``: it plays random
games and games of a strong engine with a little randomness, takes positions
spread over the phases and scores every move with that engine;
:func:`save` / :func:`load` keep a suite compact (an ``.npz`` of move lists
and scores).

A position is **critical** when some legal move changes its game-theoretic
outcome (a won position with a move that does not win, a drawn one with a
losing move); in the others every move keeps the value, so only the critical
ones tell a strong mover from a random one.  Results lead with them, beside
the exact expectation of a uniformly random mover on the same positions.

For each position the agent is asked for its move (``reset()`` first, so no
position leans on the one before); the move *keeps the value* when the
position's outcome under perfect play is the same after it (a won position
stays won, a drawn one at least drawn; in a lost position every move keeps
it) and is *optimal* when its score is the best (the fastest win, the slowest
loss; where a game's scores carry no distance, ``info["distance"]`` False,
every move that keeps the value is optimal).  Shares come with 95% Wilson
intervals, by phase and overall.  Positions may be of boards other than the
game's default (``Suite.options``, e.g. Quixo 4x4): an agent that cannot play
one is refused with its reason before any move is counted, or judged on the
boards it plays (``boards="playable"``; the engine table's and the console's
default) or on the boards asked (``boards={"size": 5}``), its result saying
which (``Result.boards``).

:func:`table` judges every registry engine of every game at stated budgets
(``ttt-engine yardstick --game G --all``; docs/strength.md), and
:func:`strength_curve` one engine at several thinking times.
"""
from ttt_engine._yardstick_build import build, build_suite, compose
from ttt_engine._yardstick_core import (
    FORMAT_VERSION, PHASES, Result, Share, Suite, check_playable, has_suite, is_critical, load,
    rebuild_hint, save, shipped_suite, suite_path, wilson, yardstick,
)
from ttt_engine._yardstick_report import strength_curve, table

__all__ = ["Suite", "Share", "Result", "yardstick", "build", "build_suite", "compose",
           "save", "load", "suite_path", "has_suite", "shipped_suite", "rebuild_hint",
           "wilson", "is_critical", "check_playable", "PHASES", "FORMAT_VERSION", "table",
           "strength_curve"]
