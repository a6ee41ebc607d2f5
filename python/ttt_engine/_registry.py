"""The registry's lookups: the games of the game list and their entries.

The games are the lines of the compiled layer's game list
(``src/engine/games/list.txt``, installed beside the compiled modules as
``_core/games/list.txt``); the entry of game ``g`` is ``GAME`` in its public
module ``ttt_engine.g``, imported when the entry is first asked for -- as in
OpenSpiel, a game registers itself in its own file and nothing here names a
game.  The entries are :class:`ttt_engine.games.Game` objects; this module is
the bottom of the package (it imports none of it), so that every module may
ask a game for its facts; :mod:`ttt_engine.games` re-exports it.
"""
from __future__ import annotations

import importlib
from collections.abc import Mapping

from ttt_engine import _game_list

__all__ = ["GAMES", "get", "of_board", "game_list", "default_game", "board_game", "FactView", "LiveView"]

def game_list():
    """The keys of the game list, in its order (see ``ttt_engine._game_list``)."""
    return _game_list()


def default_game(game=None):
    """``game``, or where it is None the first game of the game list (the game
    a command, an environment or a training plays when none is named)."""
    return game_list()[0] if game is None else game


class _Registry(Mapping):
    """``{key: Game}`` over the game list; a game's module is imported when its
    entry is first asked for (iterating the keys imports nothing)."""

    def __init__(self, keys):
        self._keys = keys
        self._entries = {}

    def __getitem__(self, key):
        entry = self._entries.get(key)
        if entry is None:
            if key not in self._keys:
                raise KeyError(key)
            entry = importlib.import_module(f"ttt_engine.{key}").GAME
            if entry.key != key:
                raise RuntimeError(f"ttt_engine.{key}.GAME is registered as {entry.key!r}")
            self._entries[key] = entry
        return entry

    def __iter__(self):
        return iter(self._keys)

    def __len__(self):
        return len(self._keys)

    def __contains__(self, key):
        return key in self._keys

    def __repr__(self):
        return f"<games: {', '.join(self._keys)}>"


GAMES = _Registry(game_list())


class LiveView(Mapping):
    """A read-only mapping made from the registry each time it is used
    (``_items()``), so that it follows the games' entries."""

    def _items(self):
        raise NotImplementedError

    def __getitem__(self, key):
        return self._items()[key]

    def __iter__(self):
        return iter(self._items())

    def __len__(self):
        return len(self._items())

    def __repr__(self):
        return f"{type(self).__name__}({self._items()!r})"


class FactView(LiveView):
    """A read-only ``{key: fact}`` view of one fact of every game that has it
    (not None, not empty), read from the registry when used: e.g.
    ``BEST_MCTS = FactView("best_mcts")``."""

    def __init__(self, fact):
        self._fact = fact

    def _items(self):
        return {k: getattr(g, self._fact) for k, g in GAMES.items()
                if getattr(g, self._fact) not in (None, {}, ())}

    def __repr__(self):
        return f"FactView({self._fact!r}: {self._items()!r})"


_KEY_OF_TYPE = {}


def board_game(obj):
    """The key of the game ``obj`` is a board of (a board class also): the game
    whose entry's ``Board`` it is (the games loaded already are asked first);
    None for anything else."""
    cls = obj if isinstance(obj, type) else type(obj)
    if cls in _KEY_OF_TYPE:
        return _KEY_OF_TYPE[cls]
    loaded = [k for k in GAMES if k in GAMES._entries]
    key = next((k for k in (*loaded, *GAMES) if issubclass(cls, GAMES[k].Board)), None)
    _KEY_OF_TYPE[cls] = key
    return key


def of_board(board):
    """The :class:`Game` whose board ``board`` is; ``ValueError`` otherwise."""
    key = board_game(board)
    if key is not None:
        return GAMES[key]
    raise ValueError(f"not a board of any game here: {type(board).__module__}."
                     f"{type(board).__name__}")


def get(key):
    """The :class:`Game` registered as ``key``; ``ValueError`` listing the valid keys."""
    game = GAMES.get(key) if isinstance(key, str) else None
    if game is None:
        raise ValueError(f"unknown game {key!r}; valid games: {', '.join(GAMES)}")
    return game
