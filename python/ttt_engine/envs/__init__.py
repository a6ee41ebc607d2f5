"""Reinforcement-learning environments for the games of the registry.

- :class:`BatchEnv`: ``n`` games stepped together in C (numpy views, no
  allocation per step), the fast core for vectorised learners;
- ``ttt_engine.envs.gymnasium``: single-agent Gymnasium envs
  ``ttt_engine/<Game>-v0`` against a built-in opponent, and a
  ``gymnasium.vector.VectorEnv`` over :class:`BatchEnv`;
- ``ttt_engine.envs.pettingzoo``: a two-player PettingZoo AEC env per game.

Gymnasium and PettingZoo are optional (``pip install ttt_engine[rl]``); they
are imported only by their own submodules.  Importing ``ttt_engine.envs``
registers the Gymnasium ids when Gymnasium is installed.

Action numbering, observation planes and the rules for illegal actions and
finished games: docs/envs.md.
"""
from ttt_engine.envs._batch import BatchEnv
from ttt_engine.envs._games import GAME_KEYS

__all__ = ["GAME_KEYS", "BatchEnv", "register_envs"]


def register_envs():
    """Register ``ttt_engine/<Game>-v0`` with Gymnasium (idempotent); returns
    the ids.  Needs the ``[rl]`` extra."""
    from ttt_engine.envs.gymnasium import register_envs as _register
    return _register()


try:  # register the Gymnasium ids when Gymnasium is installed (cheap, lazy entry points)
    import importlib.util as _ilu
    if _ilu.find_spec("gymnasium") is not None:
        register_envs()
except ImportError:  # pragma: no cover - a broken gymnasium install
    pass
