"""What the searches share: the one-search-at-a-time guard, the tree kept
between moves (``advance``), the result of a
depth-first search and its score constants, and the checks of boards,
budgets and playout names."""
from __future__ import annotations

import numbers
import threading
import time as _time
from dataclasses import dataclass, field

from ttt_engine._util import check_seconds, check_simulations, game_over, game_title

from ttt_engine._core.algorithms import alphabeta as _ab
from ttt_engine._core.algorithms import mcts as _mcts

WIN_SCORE = float(_ab.PY_WIN_SCORE)
MATE_BOUND = float(_ab.PY_MATE_BOUND)
MAX_PLY = int(_ab.PY_MAX_PLY)
#: The playout policies by name (``MCTS`` and ``PUCT``'s ``playout=``); each
#: game lists those it has in ``Board.PLAYOUTS``.
PLAYOUTS = tuple(_mcts.PLAYOUTS)


class _OneSearchAtATime:
    """One search at a time per object (:class:`ttt_engine.search.MCTS`, :class:`ttt_engine.search.PUCT`,
    :class:`ttt_engine.search.ABSearcher`): whatever touches the tree or table runs as
    ``self._exclusive(fn, *args)``; another thread calling meanwhile gets
    ``RuntimeError("this <_what> is already searching in another thread")``
    at once (never a wait, never a crash).  Separate objects search in
    parallel.  Subclasses call :meth:`_init_exclusive` in ``__init__``."""

    _what = "search"

    def _init_exclusive(self):
        self._lock = threading.Lock()

    def _exclusive(self, fn, *args):
        if not self._lock.acquire(blocking=False):
            raise RuntimeError(f"this {self._what} is already searching in another thread")
        try:
            return fn(*args)
        finally:
            self._lock.release()


class _KeptTree(_OneSearchAtATime):
    """A tree search that keeps its tree between moves (:class:`ttt_engine.search.MCTS`,
    :class:`ttt_engine.search.PUCT`): ``_root`` is the position its tree was left at (None:
    nothing to keep), and ``_keep_child(move)`` keeps the subtree of the
    root's child reached by ``move`` in the compiled tree (tree.pxd's
    re-rooting, shared by both)."""

    def advance(self, move):
        """Tell the tree that ``move`` was played at its root: keep that subtree."""
        self._exclusive(self._advance, move)

    def _advance(self, move):
        move = check_move_code(move)
        if self._root is None:
            return
        nxt = self._root.copy()
        nxt.push(move)          # an illegal move is refused here, the tree kept
        self._keep_child(move)
        self._root = nxt


@dataclass(frozen=True)
class SearchResult:
    """Result of a depth-first search.

    - value: score from the side to move at the root (see :mod:`ttt_engine.search`).
    - best_move: a best root move (None at a finished position or depth 0).
    - pv: principal variation (best line), root move first.
    - nodes: positions visited (every call of the search, root included;
      iterative deepening sums all iterations).
    - time: seconds.
    - depth: plies of the last completed iteration (``MAX_PLY`` = to the end).
    - exact: True when no horizon position influenced ``value``, or when the
      value is a forced win/loss found within the depth: it is then the
      game-theoretic value (with win distance).
    """
    value: float
    best_move: object
    pv: list = field(default_factory=list)
    nodes: int = 0
    time: float = 0.0
    depth: int = 0
    exact: bool = False

    @property
    def outcome(self):
        """+1 (side to move wins), 0 (draw) or -1 (loses) when ``exact``; else None."""
        if not self.exact:
            return None
        return (self.value > 0) - (self.value < 0)

    @property
    def plies_to_end(self):
        """Plies until the forced win/loss when the value is a proven win or loss, else None."""
        if abs(self.value) >= MATE_BOUND:
            return int(round(WIN_SCORE - abs(self.value)))
        return None


def _check_board(board, *, allow_terminal=True):
    if not hasattr(board, "is_terminal") or not hasattr(board, "legal_moves"):
        raise ValueError(f"board must be a ttt_engine game Board, got {type(board).__name__}")
    if not allow_terminal and board.is_terminal():
        raise ValueError(f"the game is over ({game_over(board.winner)}): there is no move to "
                         "search")


def check_move_code(move, name="move"):
    """``move`` as an int if it is a move code (an int, as ``Board.legal_moves``
    lists them; not a bool); a ``ValueError`` otherwise."""
    if isinstance(move, bool) or not isinstance(move, numbers.Integral):
        raise ValueError(f"{name} must be a move code (an int, as Board.legal_moves lists "
                         f"them), got {move!r}")
    return int(move)


def _seconds_left(t, start):
    """What is left of a budget of ``t`` seconds begun at ``start``
    (``perf_counter``) for a kernel whose 0 means no limit: never below a
    microsecond; 0 when there is no time budget."""
    return max(t - (_time.perf_counter() - start), 1e-6) if t else 0.0


def playout_name(playout):
    """``playout`` if it names a playout policy, else a ``ValueError`` listing them."""
    if not isinstance(playout, str) or playout not in PLAYOUTS:
        raise ValueError(f"unknown playout {playout!r}; valid: {', '.join(PLAYOUTS)}")
    return playout


def check_playout(who, playout, board):
    """A ``ValueError`` naming the valid playouts if ``board``'s game has no
    playout policy ``playout`` (every game has ``"random"``)."""
    if playout != "random" and playout not in board.PLAYOUTS:
        raise ValueError(f"{who} playout {playout!r} does not apply to {game_title(board)}; "
                         f"valid playouts there: {', '.join(board.PLAYOUTS)}")


def _budget(simulations, time, default):
    """``(simulations, seconds)`` of a tree search, checked; neither given:
    ``default`` simulations."""
    sims = check_simulations("simulations", simulations, allow_none=True)
    t = check_seconds("time", time, allow_none=True)
    if sims is None and t is None:
        sims = default
    return sims, t


def _dispatch(fn, *args):
    """Call a fused Cython entry point, turning 'unsupported board type' into ValueError."""
    try:
        return fn(*args)
    except TypeError as exc:
        if "signature" in str(exc) or "argument" in str(exc):
            raise ValueError(
                f"unsupported board type {type(args[1]).__name__}: it is not registered "
                "in the GameBoard fused type (src/engine/algorithms/game.pxd)") from None
        raise


def _compiled_value_net(network):
    """``network`` (a ``CompiledValueNet``, a ``ValueNetwork`` or a dict of its
    arrays) as a ``CompiledValueNet`` (int16 when the weights fit); None stays None."""
    if network is None:
        return None
    from ttt_engine._core.algorithms.valuenet import CompiledValueNet
    return CompiledValueNet.from_network(network)
