"""``BatchEnv``: the batched C core with the game looked up here, in the Python layer.

The compiled class (``ttt_engine._core.algorithms.batch.BatchEnv``) takes the
game's registry entry; this subclass takes the game's key, as documented in
docs/envs.md, so the compiled module imports nothing above it.
"""
from __future__ import annotations

from ttt_engine._core.algorithms import batch as _batch
from ttt_engine.envs import _games

__all__ = ["BatchEnv"]


class BatchEnv(_batch.BatchEnv):
    __doc__ = _batch.BatchEnv.__doc__

    def __init__(self, game, n, seed=None, *, autoreset=False, **game_options):
        super().__init__(_games.get(game), n, seed, autoreset=autoreset, **game_options)
