"""Game lookup for the environments: the one place that maps a game key to
its board, options and agents (backed by the registry ``ttt_engine.games``
when it is present)."""
from __future__ import annotations

import importlib

from ttt_engine._util import check_choice

#: key -> (title used in environment ids, module of the Board class, option defaults)
_SPECS = {
    "ttt": ("TicTacToe", "ttt_engine._core.ttt", {}),
    "uttt": ("UltimateTicTacToe", "ttt_engine._core.uttt", {"tiebreak": False}),
    "clobber": ("Clobber", "ttt_engine._core.clobber", {"rows": 6, "cols": 5}),
    "quixo": ("Quixo", "ttt_engine._core.quixo", {"size": 5, "max_plies": 200}),
}

GAME_KEYS = tuple(_SPECS)
#: the sides in move order, as the boards name them
SIDES = {"ttt": ("X", "O"), "uttt": ("X", "O"), "clobber": ("B", "W"), "quixo": ("X", "O")}


def game_key(game):
    """The registry key of ``game`` (``ValueError`` listing the valid ones)."""
    check_choice("game", game, GAME_KEYS)
    return game


def env_name(game):
    """The id stem used for Gymnasium, e.g. ``"TicTacToe"``."""
    return _SPECS[game_key(game)][0]


def option_defaults(game):
    return dict(_SPECS[game_key(game)][2])


def new_board(game, options):
    """A start position of ``game`` with ``options`` (``ValueError`` naming an
    unknown option and the valid ones; the Board validates the values)."""
    key = game_key(game)
    _, module, defaults = _SPECS[key]
    for name in options:
        if name not in defaults:
            valid = ", ".join(defaults) or "none"
            raise ValueError(f"unknown option {name!r} for game {key!r}; valid options: {valid}")
    opts = {**defaults, **options}
    Board = importlib.import_module(module).Board
    return Board(**opts)


def make_agent(game, name, seed=None):
    """A built-in opponent by name: ``"random"``, ``"perfect"`` or ``"mcts"``."""
    check_choice("opponent", name, ("random", "perfect", "mcts"))
    from ttt_engine import agents
    if name == "random":
        return agents.RandomAgent(seed=seed)
    if name == "perfect":
        if game_key(game) != "ttt":
            raise ValueError(f"opponent 'perfect' solves the game exactly and is only offered for "
                             f"'ttt'; use 'random' or 'mcts' for {game!r}")
        return agents.PerfectAgent(randomize=True, seed=seed)
    return agents.MCTSAgent(simulations=1000, seed=seed)
