"""The agent protocol's shared pieces: budget keywords, deprecated aliases, pickling.

Every agent in the library has ``select_move(board) -> move``, ``name`` and
``reset(seed=None)``, and its constructor takes the budget keywords
``simulations=``, ``time=``, ``depth=`` and ``seed=`` (a keyword that does not
apply to an agent must be None, so a caller can pass all four uniformly; any
other value is refused, never ignored).  Searching agents keep the statistics
of their last move in ``last_stats`` (a dict; ``{}`` before the first move).

Pickling: :class:`Agent` pickles by ``__reduce__`` from ``_config()`` (the
constructor's keyword arguments, with the resolved seed) and ``_state()``
(learned state, None for agents that learn nothing).  A restored agent is the
agent as constructed, with its learned state: it plays the same moves as the
original did from the same seed.  Search trees, tables and the position of the
random stream are per-game caches and are not carried (``reset(seed)`` puts an
agent into the same state on both sides of a process boundary).  The game an
agent was made for (below) is carried.

Bound game: an agent built from its class plays any game (``game`` is None);
one made by ``Game.make_agent`` is bound to that game (``game`` is its registry
key) and refuses a board of another game at ``select_move`` with one line
naming both (:func:`check_game`), instead of playing it.
"""
from __future__ import annotations

import warnings

from ttt_engine._util import check_board, check_seconds, game_over, resolve_seed

__all__ = ["Agent", "SearchAgent", "no_budget", "alias", "check_game", "require_moves"]


def no_budget(cls_name, **budgets):
    """Refuse a budget keyword (``simulations``/``time``/``depth``) that an agent
    does not use: None is accepted (so callers may pass all four), anything else
    is a ``ValueError`` naming it."""
    for key, value in budgets.items():
        if value is not None:
            raise ValueError(f"{cls_name} has no {key} budget: {key} does not apply "
                             f"(pass None), got {value!r}")


def alias(cls_name, name, value, old_name, old_value, *, stacklevel=3):
    """The value of keyword ``name``, taking the deprecated ``old_name`` if it
    was given instead (with a ``DeprecationWarning``); both given: ``ValueError``."""
    if old_value is None:
        return value
    if value is not None:
        raise ValueError(f"{cls_name}: give {name}= or its old name {old_name}=, not both")
    warnings.warn(f"{cls_name}({old_name}=...) is deprecated; use {name}=",
                  DeprecationWarning, stacklevel=stacklevel)
    return old_value


def _rebuild(cls, config, state, bound=None):
    agent = cls(**config)
    if state is not None:
        agent._set_state(state)
    if bound is not None:
        agent._bind(*bound)
    return agent


def check_game(agent, board):
    """``ValueError`` naming both games unless ``board`` is a board of the game
    ``agent`` is bound to (``agent.game``; None: any game): "the Tic-Tac-Toe
    mcts engine plays Tic-Tac-Toe, got a Connect Four board"."""
    key = getattr(agent, "game", None)
    if key is None:
        return
    from ttt_engine import _registry
    game = _registry.get(key)
    engine = getattr(agent, "_engine", None) or getattr(agent, "name", "agent")
    check_board(board, game.Board, f"the {game.title} {engine} engine")


def require_moves(agent, board):
    """The one check of a board an agent is asked to move on: a game board, of
    the agent's bound game (:func:`check_game`), with a move to make (a finished
    game: "the game is over (X won): there is no move to select")."""
    if not hasattr(board, "legal_moves") or not hasattr(board, "is_terminal"):
        raise ValueError(f"board must be a ttt_engine game Board, got {type(board).__name__}")
    check_game(agent, board)
    if board.is_terminal():
        raise ValueError(f"the game is over ({game_over(board.winner)}): there is no move to "
                         "select")


class Agent:
    """Base of the library's Python agents (the protocol above).

    Subclasses implement ``select_move(board)``, set ``self.name`` and return
    their constructor keywords from ``_config()``; agents that learn override
    ``_state()`` / ``_set_state(state)``; agents that search keep a
    ``last_stats`` dict (agents that do not search have no such attribute).
    """

    name = "agent"
    #: the registry key of the game this agent was made for (``Game.make_agent``
    #: binds it); None: any game
    game = None
    _engine = None

    def _bind(self, game, engine):
        """Bind this agent to the game ``game`` (a registry key) as its engine ``engine``."""
        self.game, self._engine = game, engine
        return self

    def select_move(self, board):  # pragma: no cover - every agent overrides it
        """The move this agent plays in ``board`` (a legal move; ``ValueError`` for
        a finished game or a board of another game than the one it is bound to)."""
        raise NotImplementedError

    def reset(self, seed=None):
        """Forget per-game state; with ``seed``, restart the random stream from it."""

    def _config(self):  # pragma: no cover - every agent overrides it
        raise NotImplementedError

    def _state(self):
        return None

    def _set_state(self, state):  # pragma: no cover - only learning agents have state
        raise TypeError(f"{type(self).__name__} has no learned state")

    def __reduce__(self):
        bound = None if self.game is None else (self.game, self._engine)
        return (_rebuild, (type(self), self._config(), self._state(), bound))


class SearchAgent(Agent):
    """Base of the depth-first searchers: ``time`` (seconds per move, None: a
    fixed depth) with its deprecated name ``time_limit``, no ``simulations``
    budget, ``seed`` and ``last_stats``."""

    def _init_search(self, cls_name, time, time_limit, seed, simulations, *, stacklevel=4):
        """Validate and set the shared keywords; the default ``stacklevel``
        points a deprecation warning at the caller of a constructor that calls
        this directly."""
        no_budget(cls_name, simulations=simulations)
        time = alias(cls_name, "time", time, "time_limit", time_limit, stacklevel=stacklevel)
        self.time = check_seconds("time", time, allow_none=True)
        self.seed = resolve_seed(seed)
        self.last_stats = {}

    @property
    def time_limit(self):
        """Deprecated name of :attr:`time`."""
        return self.time

    def reset(self, seed=None):
        """Forget the last move's statistics; ``seed`` is recorded."""
        self.last_stats = {}
        if seed is not None:
            self.seed = resolve_seed(seed)
