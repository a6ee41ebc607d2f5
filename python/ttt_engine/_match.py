"""The match runner: :func:`play_match` between two agents of any game, its
:class:`~ttt_engine.agents.MatchResult` (re-exported by :mod:`ttt_engine.agents`, where they are
documented for users)."""
from __future__ import annotations

import inspect
import random
import time
from dataclasses import dataclass, field

from ttt_engine import _registry
from ttt_engine._util import check_int, resolve_seed
from ttt_engine.games import capped as _capped

__all__ = ["MatchResult", "play_match"]


@dataclass
class MatchResult:
    """Outcome of :func:`play_match`, from the first agent's (``a``) point of view.

    ``as_first`` / ``as_second``: (wins, draws, losses) of ``a`` when it moved
    first / second.  ``games``: list of (first_agent_name, winner label, plies);
    a game stopped by a move cap (``max_plies``, or the board's own: see
    :func:`ttt_engine.games.capped`) has winner label ``"cap"`` and counts as a
    draw; ``capped`` says how many of the ``draws`` these are (the others are
    true draws).  ``think_time`` / ``moves``: seconds spent in ``select_move``
    and moves made, ``[a, b]``.
    """
    wins: int = 0
    draws: int = 0
    losses: int = 0
    as_first: list = field(default_factory=lambda: [0, 0, 0])
    as_second: list = field(default_factory=lambda: [0, 0, 0])
    games: list = field(default_factory=list)
    think_time: list = field(default_factory=lambda: [0.0, 0.0])
    moves: list = field(default_factory=lambda: [0, 0])
    capped: int = 0

    @property
    def true_draws(self):
        """Draws by the game's rules, not by a move cap."""
        return self.draws - self.capped

    @property
    def total(self):
        return self.wins + self.draws + self.losses

    @property
    def mean_move_time(self):
        """Mean seconds per move ``(a, b)`` (0.0 for an agent that never moved)."""
        return tuple(t / m if m else 0.0 for t, m in zip(self.think_time, self.moves))

    def __iter__(self):   # wins, draws, losses = play_match(...)
        return iter((self.wins, self.draws, self.losses))

    def __str__(self):
        capped = f", {self.capped} of the draws capped" if self.capped else ""
        return (f"W/D/L {self.wins}/{self.draws}/{self.losses} "
                f"(first {'/'.join(map(str, self.as_first))}, "
                f"second {'/'.join(map(str, self.as_second))}{capped})")


def _reset(agent, seed):
    reset = getattr(agent, "reset", None)
    if reset is None:
        return
    try:
        params = inspect.signature(reset).parameters
    except (TypeError, ValueError):
        params = {}
    if "seed" in params:
        reset(seed=seed)
    else:
        reset()


def _default_board():
    return _registry.get(_registry.default_game()).new_board()


def _match_board(board_factory):
    """A board from ``board_factory``, or a ``TypeError`` saying what it gave."""
    board = board_factory()
    if not (hasattr(board, "to_move") and callable(getattr(board, "push", None))
            and callable(getattr(board, "is_terminal", None))):
        raise TypeError("board_factory must return a board (with to_move, push() and "
                        f"is_terminal()), got {type(board).__name__}: {board!r:.40}")
    return board


def play_match(a, b, games=100, board_factory=None, seed=None, *, max_plies=None,
               on_game=None):
    """Play ``games`` games between agents ``a`` and ``b``, alternating who moves
    first (``a`` first in even-numbered games), and return a :class:`~ttt_engine.agents.MatchResult`
    (W/D/L for ``a``).

    board_factory: zero-argument callable giving a fresh starting board (any
    game); default the first game of the game list (Tic-Tac-Toe).  seed: each game ``i`` resets both agents
    (``reset(seed=...)`` if they accept a seed) with seeds drawn from it, so a
    match is reproducible.  max_plies: stop a game after that many plies and
    count it as a draw (for games that can cycle); None = no cap.
    on_game: optional callable ``on_game(games_done, result)`` after each game
    (progress bars).
    """
    games = check_int("games", games, min=0)
    max_plies = check_int("max_plies", max_plies, min=1, allow_none=True)
    if board_factory is None:
        board_factory = _default_board
    elif not callable(board_factory):
        raise ValueError("board_factory must be a callable returning a fresh board")
    for agent, label in ((a, "a"), (b, "b")):
        if not callable(getattr(agent, "select_move", None)):
            raise ValueError(f"agent {label} has no select_move(board) method")
    if on_game is not None and not callable(on_game):
        raise TypeError(f"on_game must be a callable on_game(games_done, result) or None, "
                        f"got {type(on_game).__name__}")
    # the first board is made and checked before any game is played
    first = _match_board(board_factory) if games else None
    rng = random.Random(resolve_seed(seed))
    result = MatchResult()
    for g in range(games):
        _reset(a, rng.getrandbits(63))
        _reset(b, rng.getrandbits(63))
        board = first if g == 0 else board_factory()
        first_label = board.to_move
        players = (a, b) if g % 2 == 0 else (b, a)
        plies = 0
        while not board.is_terminal():
            if max_plies is not None and plies >= max_plies:
                break
            # by the side to move, so games where a side may move twice work too
            agent = players[0] if board.to_move == first_label else players[1]
            t0 = time.perf_counter()
            move = agent.select_move(board)
            slot = 0 if agent is a else 1
            result.think_time[slot] += time.perf_counter() - t0
            result.moves[slot] += 1
            board.push(move)
            plies += 1
        winner = board.winner if board.is_terminal() and not _capped(board) else "cap"
        if winner in (None, "draw", "cap"):
            k = 1
        elif winner == first_label:
            k = 0 if players[0] is a else 2
        else:
            k = 2 if players[0] is a else 0
        if players[0] is a and players[1] is not a:
            result.as_first[k] += 1
        else:
            result.as_second[k] += 1
        if k == 0:
            result.wins += 1
        elif k == 1:
            result.draws += 1
            result.capped += winner == "cap"
        else:
            result.losses += 1
        result.games.append((getattr(players[0], "name", repr(players[0])),
                             winner if winner is not None else "draw", plies))
        if on_game is not None:
            on_game(g + 1, result)
    return result
