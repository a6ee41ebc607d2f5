"""Game lookup for the environments, through the registry ``ttt_engine.games``
(keys, options, boards, sides and engines all come from there)."""
from __future__ import annotations

import threading

from ttt_engine import games as _registry

GAME_KEYS = tuple(_registry.GAMES)
#: simulations per move of the ``"mcts"`` opponent (the registry's default is
#: meant for play, not for thousands of training episodes)
OPPONENT_MCTS_SIMULATIONS = 1000
#: The ``ValueError`` of ``step()`` before the first ``reset()``, in every env.
NOT_STARTED = "call reset() before step(): the episode has not started"


def get(game):
    """The registry entry of ``game`` (``ValueError`` listing the valid keys)."""
    return _registry.get(game)


def game_key(game):
    """The registry key of ``game`` (``ValueError`` listing the valid ones); None:
    the first game of the game list."""
    return get(_registry.default_game(game)).key


def env_name(game):
    """The id stem used for Gymnasium: the title without spaces or dashes,
    e.g. ``"TicTacToe"``, ``"UltimateTicTacToe"``."""
    return "".join(ch for ch in get(game).title if ch.isalnum())


def sides(game):
    """The two side symbols in move order, e.g. ``("X", "O")``."""
    return tuple(get(game).sides)


def new_board(game, options):
    """A start position of ``game`` with ``options`` (``ValueError`` naming an
    unknown option and the valid ones; the Board validates the values)."""
    return get(game).new_board(**options)


def make_agent(game, name, seed=None):
    """The registry engine ``name`` of ``game`` as an opponent (``"mcts"`` with
    :data:`OPPONENT_MCTS_SIMULATIONS` simulations per move)."""
    g = get(game)
    if name == "mcts":
        return g.make_agent(name, seed=seed, simulations=OPPONENT_MCTS_SIMULATIONS)
    return g.make_agent(name, seed=seed)


def render(board, mode):
    """Render ``board`` for the environments' ``render_mode``: ``"ansi"`` returns
    the text (with a final newline), ``"human"`` prints it and returns None, as
    does no mode."""
    if mode == "ansi":
        return str(board) + "\n"
    if mode == "human":
        print(board, end="\n\n")
    return None


class OneThread:
    """``with guard:`` around an env's ``reset``/``step``: a second thread
    entering while one is inside gets ``RuntimeError`` at once (never a wait,
    never interleaved steps); the thread inside may enter again (a wrapper's
    step calling the bare one)."""

    def __init__(self, what):
        self._what = what
        self._lock = threading.Lock()
        self._owner = None
        self._depth = 0

    def __enter__(self):
        me = threading.get_ident()
        if self._owner != me:
            if not self._lock.acquire(blocking=False):
                raise RuntimeError(f"this {self._what} is already stepping in another "
                                   f"thread: use one {self._what} per thread")
            self._owner = me
        self._depth += 1
        return self

    def __exit__(self, *exc):
        self._depth -= 1
        if not self._depth:
            self._owner = None
            self._lock.release()
        return False
