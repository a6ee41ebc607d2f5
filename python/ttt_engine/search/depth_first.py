"""Game-generic search: minimax, negamax, alpha-beta (table, ordering, iterative
deepening) and MCTS (UCT with a node arena and tree reuse).

Every function takes any game's ``Board`` (Tic-Tac-Toe, and every game added to
the ``GameBoard`` fused type in ``src/engine/algorithms/game.pxd``) and searches a private
copy: the caller's board is never changed.  The hot loops are in
``ttt_engine._core.algorithms.alphabeta`` and ``ttt_engine._core.algorithms.mcts`` (Cython, no GIL, no Python
object per node); this module validates arguments and packages results.

Scores (alpha-beta family) are from the point of view of the side to move at
the root: a win ``p`` plies from the root scores ``WIN_SCORE - p``
(``WIN_SCORE = 1e9``), a loss ``-(WIN_SCORE - p)``, a draw 0, and a horizon
position the game's static evaluation (``|v| < 1e6``).  So among wins the
fastest scores highest, and among losses the slowest.
"""
from __future__ import annotations

import math
import threading
import time as _time
from dataclasses import dataclass, field

from ttt_engine import _parallel
from ttt_engine._util import (board_game, check_int, check_real, check_seconds,
                              check_simulations, game_over, game_title, resolve_seed)

from ttt_engine._core.algorithms import alphabeta as _ab
from ttt_engine._core.algorithms import mcts as _mcts
from ttt_engine._core.algorithms import puct as _puct
from ttt_engine._core.games.ttt import board as _ttt_core

__all__ = [
    "SearchResult", "alphabeta", "minimax", "negamax", "move_values", "solve",
    "optimal_moves", "MCTS", "PUCT", "ABSearcher", "WIN_SCORE", "MAX_PLY",
]

WIN_SCORE = float(_ab.PY_WIN_SCORE)
MATE_BOUND = float(_ab.PY_MATE_BOUND)
MAX_PLY = int(_ab.PY_MAX_PLY)
DEFAULT_TT_SIZE = 1 << 18
#: The playout policies by name (``MCTS`` and ``PUCT``'s ``playout=``); each
#: game lists those it has in ``Board.PLAYOUTS``.
PLAYOUTS = tuple(_mcts.PLAYOUTS)
#: Table size (entries) of the module-level functions' searcher for
#: Tic-Tac-Toe (24 KB: a first search in a process pays a page fault per 4 KB
#: of table it touches, and a big game's 6 MB table made it 0.3-0.6 ms).
SMALL_TT_SIZE = 1 << 10

class _OneSearchAtATime:
    """One search at a time per object (:class:`MCTS`, :class:`PUCT`,
    :class:`ABSearcher`): whatever touches the tree or table runs as
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


class ABSearcher(_ab.ABSearcher, _OneSearchAtATime):
    """Owns a transposition table and search context: ``ABSearcher(tt_size=2**18,
    tt_min_depth=2, ply_in_key=False)``; pass one as ``searcher=`` to keep its
    table size / settings (one search at a time: see :class:`MCTS`).
    ``tt_size`` is rounded up to a power of two.  ``ply_in_key=True`` matches
    table entries only at the same distance from the root: needed for exact
    searches of games whose outcome depends on a ply count the game hash leaves
    out (Quixo's cap).

    Pickles from its settings: the copy starts with an empty table (a table
    only speeds searches up, so it finds the same results)."""

    _what = "ABSearcher"

    def __init__(self, tt_size=1 << 18, tt_min_depth=2, ply_in_key=False):
        # the compiled base has checked and applied the arguments (__cinit__)
        self._init_exclusive()

    def __reduce__(self):
        return (ABSearcher, (int(self.tt_size), self.tt_min_depth, self.ply_in_key))

    def __repr__(self):
        return (f"ABSearcher(tt_size={self.tt_size}, tt_min_depth={self.tt_min_depth}, "
                f"ply_in_key={self.ply_in_key})")


# The module-level functions use one searcher (transposition table + context)
# per thread and table size, made on the thread's first search of that size:
# threads search in parallel.
_local = threading.local()


def _shared(board=None):
    size = SMALL_TT_SIZE if isinstance(board, _ttt_core.Board) else DEFAULT_TT_SIZE
    searchers = getattr(_local, "searchers", None)
    if searchers is None:
        searchers = _local.searchers = {}
    searcher = searchers.get(size)
    if searcher is None:
        searcher = searchers[size] = ABSearcher(size)
    return searcher


def _warm_up():
    """Make the importing thread's small searcher and run one small solve
    (about 0.1 ms, at import): the first Tic-Tac-Toe solve of the process
    then finds its table and context paged in and the code paths warm,
    instead of paying for that itself (0.1 ms of a 0.02 ms search)."""
    _run(_ttt_core.Board.from_string("XO.X....."), 2, None, 0, True, True, True, None, None)


def _with_searcher(searcher, fn, *args):
    """``fn(searcher, *args)`` holding ``searcher`` (``RuntimeError`` if another
    thread is searching with it); the thread's own searcher when None."""
    if searcher is None:
        searcher = _shared(args[0] if args else None)
    elif not isinstance(searcher, ABSearcher):
        raise TypeError("searcher must be a ttt_engine.search.ABSearcher or None, got "
                        f"{type(searcher).__module__}.{type(searcher).__name__}")
    return searcher._exclusive(_dispatch, fn, searcher, *args)


@dataclass(frozen=True)
class SearchResult:
    """Result of a depth-first search.

    value: score from the side to move at the root (see module docstring).
    best_move: a best root move (None at a finished position or depth 0).
    pv: principal variation (best line), root move first.
    nodes: positions visited (every call of the search, root included;
        iterative deepening sums all iterations).
    time: seconds.
    depth: plies of the last completed iteration (``MAX_PLY`` = to the end).
    exact: True when no horizon position influenced ``value``, or when the
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


def endgame_empty_cells(board):
    """Empty cells in the open local boards of an Ultimate Tic-Tac-Toe board."""
    cells, open_boards = board.cells, board.local_winners
    return sum(1 for m in range(81) if cells[m] == 0
               and open_boards[(m // 27) * 3 + (m % 9) // 3] is None)


def _check_endgame_game(who, board):
    if board_game(board) != "uttt":
        raise ValueError(f"{who} endgame= applies to Ultimate Tic-Tac-Toe only, not "
                         f"{game_title(board)}; use endgame=0")


def endgame_solve(who, board, endgame, limit, searcher=None, stop=None):
    """``(result, seconds)``: the exact alpha-beta result of ``board`` if it
    has at most ``endgame`` empty cells and the solve proves its value within
    ``limit`` seconds, else ``(None, seconds spent)``.  UTTT only (a
    ``ValueError`` naming ``who`` on another game).  ``searcher``: the
    :class:`ABSearcher` to use (None: this thread's); ``stop``: a shared stop
    flag that ends the solve early (unproven), for a solve in a thread that
    does not see Ctrl-C."""
    _check_endgame_game(who, board)
    if endgame_empty_cells(board) > endgame:
        return None, 0.0
    # alphabeta(board, time_limit=limit, searcher=searcher), watching ``stop``
    r = _run(board, 2, None, 0, True, True, True, limit, True, searcher, pvs=True, stop=stop)
    if r.exact and r.best_move is not None:
        return r, r.time
    return None, r.time


def endgame_search(who, board, endgame, share, t, search_tree, won, searcher=None):
    """The exact endgame rule of ``MCTS`` and ``PUCT`` (``endgame=``): the
    move and the proven value (None: not proven).

    A proven win is played at once (the fastest): ``won(result, seconds)``
    records it.  Otherwise ``search_tree(seconds or None)`` searches in the
    time left; in a proven draw its move stands if it draws too, else the
    solve's drawing move is played (among drawing moves the tree's gives a
    fallible opponent the most ways to go wrong; MCTS-Solver proves wins and
    losses but never draws).  A proven loss is left to the tree, for the same
    reason.  ``searcher``: the :class:`ABSearcher` of the solves (None: this
    thread's)."""
    exact, spent = endgame_solve(who, board, endgame, t * share if t else 0.05, searcher)
    value = None if exact is None else exact.outcome
    if value == 1:
        won(exact, spent)
        return exact.best_move, value
    if t:
        # the time left, less what the check of the tree's move may take
        t = max(t - spent * (2 if value == 0 else 1), 1e-3)
    move = search_tree(t)
    if value == 0:
        move = _keep_draw(board, move, exact, spent, searcher)
    return move, value


def _keep_draw(board, move, exact, spent, searcher):
    """In a proven draw: the tree's ``move`` if it draws too (checked within
    about the solve's time ``spent``), else the solve's drawing move."""
    if move == exact.best_move:
        return move
    after = board.copy()
    after.push(move)
    check = alphabeta(after, time_limit=max(spent, 0.005), searcher=searcher)
    return move if check.exact and check.outcome == 0 else exact.best_move


#: The share of a move's time kept for checking the tree's move when the
#: endgame solve beside it proved nothing (a losing move in a 20-30 cell
#: endgame is typically proven in 5-20 ms).
ENDGAME_CHECK_SHARE = 0.2


def _avoid_loss(board, ranked, limit, searcher):
    """The first of ``ranked`` (the tree's moves, its choice first) that
    short solves (``limit`` seconds in all) do not prove lost: the tree's
    move unless it is a proven loss and an alternative is not."""
    deadline = _time.perf_counter() + limit
    for move in ranked:
        left = deadline - _time.perf_counter()
        if left <= 0:
            return move                 # not checked: better than a proven loss
        after = board.copy()
        after.push(move)
        if after.is_terminal():
            return move
        r = alphabeta(after, time_limit=left, searcher=searcher)
        if not (r.exact and r.outcome == 1):
            return move
    return ranked[0]


def endgame_search_beside(who, board, endgame, share, t, search_tree, won, searcher, ranked):
    """The rule of :func:`endgame_search` for a tree searched by several
    threads on a time budget ``t``: the solve runs in a thread of its own
    (with ``searcher``) for up to ``share`` of the move's time while the tree
    goes on with one thread fewer (``search_tree(seconds, spare, stop)``:
    ``spare`` threads left to the solve, the search ending when ``stop[0]``
    is set, as the solve does when it ends), then the tree has every thread
    for the time left.  The second core, idle while a sequential solve runs, gives the
    solve about ``share / 0.3`` times the time at a small cost to the tree
    (docs/strength.md, "The endgame solve beside the tree").  When the solve
    proves nothing, the tree's move is checked with short solves
    (``ENDGAME_CHECK_SHARE`` of the time at most, kept from the tree): if it
    is a proven loss, the
    next of ``ranked()`` (the tree's moves, most visited first) that is not
    is played."""
    _check_endgame_game(who, board)
    if endgame_empty_cells(board) > endgame:
        return search_tree(t, 0, None), None
    start = _time.perf_counter()
    solved = []

    def tree_part(stop):
        search_tree(t * share, 1, stop)

    def solve_part(stop):
        try:
            # ``stop`` is set too when the tree's thread gets Ctrl-C: the solve ends then
            solved.append(endgame_solve(who, board, endgame, t * share, searcher, stop))
        finally:
            stop[0] = 1             # the tree gets its other thread back

    _parallel.run_parts(lambda part, stop: part(stop), [(tree_part,), (solve_part,)])
    exact, spent = solved[0]
    value = None if exact is None else exact.outcome
    if value == 1:
        won(exact, _time.perf_counter() - start)
        return exact.best_move, value
    # the time left, less what the check of the tree's move may take
    check = spent if value == 0 else ENDGAME_CHECK_SHARE * t if value is None else 0.0
    left = max(t - (_time.perf_counter() - start) - check, 1e-3)
    move = search_tree(left, 0, None)
    if value == 0:
        move = _keep_draw(board, move, exact, spent, searcher)
    elif value is None:
        moves = ranked()
        move = _avoid_loss(board, [move] + [m for m in moves if m != move], check, searcher)
    return move, value


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


def _depth(depth):
    if depth is None:
        return MAX_PLY
    return check_int("depth", depth, min=0, max=MAX_PLY)


def _make_result(raw):
    value, best, pv, nodes, seconds, depth, exact = raw
    value = float(value) + 0.0   # normalise -0.0
    return SearchResult(value, best, list(pv), int(nodes), float(seconds), int(depth), bool(exact))


def _run(board, kind, depth, heuristic, pruning, ordering, tt, time_limit, iterative,
         searcher=None, pvs=False, stop=None):
    _check_board(board)
    d = _depth(depth)
    heuristic = check_int("heuristic", heuristic, min=0, max=1 << 20)
    time_limit = check_seconds("time_limit", time_limit, allow_none=True)
    if iterative is None:
        iterative = time_limit is not None
    raw = _with_searcher(searcher, _ab.search, board, kind, d, heuristic, bool(pruning),
                         bool(ordering), bool(tt), time_limit or 0.0, bool(iterative), bool(pvs),
                         stop)
    if raw is None:   # fixed-depth search interrupted by the clock
        raise TimeoutError("search ran out of time before completing depth "
                           f"{d}; use iterative=True to get the last completed depth")
    return _make_result(raw)


def alphabeta(board, depth=None, *, heuristic=0, time_limit=None, ordering=True, tt=True,
              iterative=None, searcher=None, pvs=True):
    """Negamax alpha-beta with a transposition table, move ordering and
    iterative deepening.

    depth: plies to search; None searches to the end of the game (exact).
    heuristic: the game's static-evaluation id used at the horizon (0 = default).
    time_limit: seconds; enables iterative deepening (1, 2, ... plies) and
        returns the last completed iteration (depth 1 always completes).
    ordering: table move first, then history heuristic.  tt: use the table.
    iterative: force iterative deepening on/off (default: on iff time_limit).
    pvs: principal variation search (null windows after the first move); with
        ``pvs=False, tt=False, ordering=False`` this is plain negamax alpha-beta.
    searcher: an ``ttt_engine.search.ABSearcher`` to use instead of the shared one.

    >>> from ttt_engine import Board
    >>> r = alphabeta(Board())
    >>> r.value, r.exact
    (0.0, True)
    """
    return _run(board, 2, depth, heuristic, True, ordering, tt, time_limit, iterative, searcher,
                pvs)


def minimax(board, depth=None, *, heuristic=0, alphabeta=False, time_limit=None):
    """Min/max formulation: MAX nodes maximise, MIN nodes minimise the
    root player's score; ``alphabeta=True`` adds pruning.  No table and no
    ordering, so node counts are the textbook ones (plain minimax from the empty
    Tic-Tac-Toe board visits all 549,946 positions).  Value is reported from the
    side to move at the root, like every other search here.
    """
    return _run(board, 0, depth, heuristic, alphabeta, False, False, time_limit, False)


def negamax(board, depth=None, *, heuristic=0, alphabeta=False, time_limit=None):
    """Negamax formulation (values from the side to move at every node), with
    optional alpha-beta pruning; no table, no ordering.  Same values and node
    counts as :func:`minimax`."""
    return _run(board, 1, depth, heuristic, alphabeta, False, False, time_limit, False)


def move_values(board, depth=None, *, heuristic=0, searcher=None):
    """``({move: score}, exact)``: every legal move's score (from the side to move
    at ``board``, win distance counted from ``board``), each searched with a
    full window.  ``exact`` is True when all scores are game-theoretic."""
    _check_board(board)
    d = _depth(depth)
    heuristic = check_int("heuristic", heuristic, min=0, max=1 << 20)
    pairs, _nodes, exact = _with_searcher(searcher, _ab.root_values, board, d, heuristic)
    return {m: float(v) + 0.0 for m, v in pairs}, bool(exact)


def _sign(v):
    return (v > 0) - (v < 0)


def refuse_unbounded(board, who):
    """``ValueError`` unless an exhaustive search finishes ``board``: the board
    says where its game's limit lies (``Board.exhaustive_limit``: Ultimate
    Tic-Tac-Toe and 5x5 Quixo never, Clobber up to ``clobber.EXHAUSTIVE_STONES``
    stones, Connect Four from ``connect4.EXHAUSTIVE_PLIES`` discs on; finished
    games always).  The message points to the game's ``solve``, which takes a
    node or time limit.  (3x3 and 4x4 Quixo are answered from the retrograde
    solution: see :func:`_quixo_values`.)"""
    reason = board.exhaustive_limit()
    if reason is not None:
        raise ValueError(f"{who}: {reason}; use ttt_engine.{board_game(board)}.solve(board, "
                         "max_nodes=..., time_limit=...), which answers 'unknown' when a "
                         "limit is hit")


def _quixo_small(board):
    return board_game(board) == "quixo" and board.size in (3, 4)


def _quixo_values(board):
    """``{move: score}`` of a 3x3 or 4x4 Quixo position from the retrograde
    solution, scored as :func:`move_values` scores (a win in ``p`` plies
    ``WIN_SCORE - p``; the move cap is ignored there, as in ``quixo.solve``)."""
    from ttt_engine import quixo
    sol = quixo.solution(board.size)
    me = board.to_move
    values = {}
    for m in board.legal_moves:
        child = board.copy()
        child.push(m)
        if child.is_terminal():
            w = child.winner
            v = 0.0 if w == "draw" else (WIN_SCORE - 1.0 if w == me else -(WIN_SCORE - 1.0))
        else:
            value, plies = sol.value(child)          # for the opponent, to move there
            v = {"loss": WIN_SCORE - (plies + 1), "win": -(WIN_SCORE - (plies + 1)),
                 "draw": 0.0}[value]
        values[m] = float(v)
    return values


def exact_move_values(board, searcher=None, who="move_values"):
    """``{move: exact score}`` for every legal move of a board the exact
    engines finish (:func:`refuse_unbounded` otherwise)."""
    refuse_unbounded(board, who)
    if _quixo_small(board):
        return _quixo_values(board)
    values, exact = move_values(board, searcher=searcher)
    if not exact:
        raise ValueError(f"{who}: position not solved within {MAX_PLY} plies")
    return values


def solve(board):
    """Game-theoretic value of ``board`` for the side to move: +1 win, 0 draw,
    -1 loss (exhaustive alpha-beta; 3x3 and 4x4 Quixo from the retrograde
    solution).  A finished game is scored for the player who would be to move.

    Boards out of reach of an exhaustive search are refused at once with a
    ``ValueError`` naming the game's ``solve(board, max_nodes=...,
    time_limit=...)``, which searches within a limit and says ``"unknown"``
    when it is hit: Ultimate Tic-Tac-Toe, 5x5 Quixo and Clobber with more
    than ``clobber.EXHAUSTIVE_STONES`` stones."""
    _check_board(board)
    refuse_unbounded(board, "solve")
    if _quixo_small(board):
        from ttt_engine import quixo
        return quixo.solve(board).outcome
    r = alphabeta(board)
    if not r.exact:
        raise ValueError(f"position not solved within {MAX_PLY} plies")
    return r.outcome


_warm_up()


def optimal_moves(board):
    """All legal moves that keep the game-theoretic value (win stays win, draw
    stays draw; any move when every move loses), ascending.  Ignores win
    distance: use :func:`move_values` for fastest-win ordering.  Refuses the
    boards :func:`solve` refuses."""
    _check_board(board)
    if board.is_terminal():
        return []
    values = exact_move_values(board, who="optimal_moves")
    best = max(_sign(v) for v in values.values())
    return sorted(m for m, v in values.items() if _sign(v) == best)


class MCTS(_OneSearchAtATime):
    """Monte Carlo tree search (UCT) with a preallocated node arena and tree reuse.

    c: exploration constant of UCB1 (default sqrt(2)).
    max_nodes: arena size per tree (nodes of 32 bytes, allocated once, in huge
        pages on Linux; a second arena of the same size is added at the first
        tree reuse); when it is full the tree stops growing and simulations
        continue from its leaves.
    seed: RNG seed (None: random; see ``ttt_engine._util.resolve_seed``).
    reuse: keep the subtree of the new position between searches.  ``search``
        looks for the new board among the previous root's descendants up to
        ``reuse_depth`` plies (matched by the game's hash and side to move);
        ``advance(move)`` moves the root explicitly.
    expand_after: a leaf is expanded once it has this many visits (0, the
        default, expands on the first visit, as classic UCT does; a few visits
        save arena space in games with many moves, e.g. Clobber).
    solver: MCTS-Solver (off by default): finished games
        prove their nodes, proofs propagate up (a move that wins for the side
        to move proves a loss for the parent's mover; all moves losing proves a
        win); selection plays proven wins and skips proven losses; the final
        move is a proven win if there is one; the search stops once the root
        is proven.  ``stats["root_proven"]``: +1 / -1 / 0 for the side to move.
    threads: root parallelism.  ``threads=k`` keeps ``k`` independent trees
        (each with ``max_nodes`` nodes and its own generator, seeded from
        ``seed`` by ``ttt_engine._parallel.split_seeds``), searches them at
        the same time in ``k`` threads without the GIL, and sums their root
        statistics (visits, wins, proofs) to choose the move.  The budget is
        shared: ``simulations`` is the total over the trees, ``time`` the wall
        time.  Same seed and ``threads`` => same move with a simulation budget.
        ``threads=1`` (default) is the single-tree search.  More threads than
        the machine has cores are allowed (a warning, once per process).
    playout: the simulation step.  ``"random"`` (default): the game's uniform
        random playout (classic UCT).  ``"decisive"``: play a move that wins
        at once when there is one, and never one that lets the opponent win at
        once where that is cheap to see: Ultimate Tic-Tac-Toe (a big-board
        line through a local board won now; anti-decisive: the board the move
        sends the opponent to, or any board after a free move, holds no such
        win for it) and Quixo (a move completing an own line wins, one
        completing an opponent line is never played).  The registry lists the
        playouts of each game (``Board.PLAYOUTS``, ``games.get(key).playouts``); asking for one a
        game does not have is a ``ValueError`` at the search, naming the valid
        ones.
    endgame: Ultimate Tic-Tac-Toe only (0, the default, is off): once at most
        this many cells are empty in the open local boards, each search first
        tries an exact alpha-beta solve (:func:`alphabeta`, iterative deepening)
        for ``endgame_share`` of the move's time (0.05 s with a simulation
        budget).  A proven win is played at once (the fastest; no tree
        search).  In a proven draw the tree searches as usual and its move
        stands if it draws too, else a drawing move is played (among drawing
        moves the tree's gives a fallible opponent the most ways to go wrong;
        MCTS-Solver proves wins and losses but never draws).  A proven loss is
        left to the tree.  ``stats["endgame"]``: the proven value (+1, 0, -1)
        or None.  A ``ValueError`` on another game.
    prior: an evaluator (``evaluate(observations, legal_mask) -> (logits,
        values)``, see :mod:`ttt_engine.evaluators`; e.g. a
        ``ttt_engine.network.Network``) whose policy guides the tree where it
        matters: a node is sent to it once it has ``prior_visits`` visits (the
        root at once), ``prior_batch`` nodes per call, and from then on selects
        its children by PUCT, ``mean + c_puct * P * sqrt(N) / (1 + n)``, with
        the evaluator's softmax as ``P`` (a move not yet visited counts as a
        draw); every other node keeps UCB1 and every simulation still ends in
        a playout, so the search runs at nearly the speed of plain MCTS while
        the network's knowledge steers its most visited part (progressive
        bias in PUCT's form; the evaluator's values are not used).  The tree
        keeps searching while a batch fills (the root is evaluated at once;
        nodes still queued when the budget ends are dropped and queued again
        by the next search).  None (default): plain UCT.

    One search at a time per object: a second thread calling ``search`` (or
    ``advance``/``reset``) while one runs gets ``RuntimeError("this MCTS is
    already searching in another thread")``; separate objects search in
    parallel.  Ctrl-C stops a search between simulations with
    ``KeyboardInterrupt``; the object stays usable.

    Pickles from its constructor arguments (the seed resolved): the copy
    starts with an empty tree and searches as the original did after
    ``reset(seed)``; a fresh object and its copy search alike.

    >>> from ttt_engine import Board
    >>> m = MCTS(seed=1)
    >>> m.search(Board(), simulations=2000) in range(9)
    True
    """

    DEFAULT_SIMULATIONS = 10_000
    _what = "MCTS"

    def __init__(self, c=math.sqrt(2), max_nodes=1_000_000, seed=None, *, reuse=True,
                 reuse_depth=4, expand_after=0, solver=False, threads=1, playout="random",
                 endgame=0, endgame_share=0.3, prior=None, prior_visits=16,
                 prior_batch=16, c_puct=1.25):
        self.c = check_real("c", c, low=0)
        if prior is not None and not callable(prior):
            raise TypeError(f"prior must be an evaluator callable as evaluate(observations, "
                            f"legal_mask), got {type(prior).__name__}")
        self.prior = prior
        self.prior_visits = check_int("prior_visits", prior_visits, min=0, max=(1 << 31) - 1)
        self.prior_batch = check_int("prior_batch", prior_batch, min=1, max=4096)
        self.c_puct = check_real("c_puct", c_puct, low=0, high=1e6)
        self._guided = None             # (board type, planes) the trees are set up for
        self.endgame = check_int("endgame", endgame, min=0, max=81)
        self.endgame_share = check_real("endgame_share", endgame_share, low=0, low_open=True,
                                        high=1)
        self.max_nodes = check_int("max_nodes", max_nodes, min=int(_mcts.MIN_NODES),
                                   max=(1 << 31) - 1)
        self.seed = resolve_seed(seed)
        self.reuse = bool(reuse)
        self.reuse_depth = check_int("reuse_depth", reuse_depth, min=0, max=64)
        self.expand_after = check_int("expand_after", expand_after, min=0, max=(1 << 31) - 1)
        self.solver = bool(solver)
        self.threads = _parallel.check_threads(threads)
        self.playout = playout_name(playout)
        self._trees = [_mcts.MCTSTree(self.max_nodes, self.c, s, self.expand_after, self.solver,
                                      playout)
                       for s in _parallel.split_seeds(self.seed, self.threads)]
        self._tree = self._trees[0]
        self._root = None
        self._stats = {}
        self._init_exclusive()

    def __reduce__(self):
        return (_rebuild_mcts, (dict(
            c=self.c, max_nodes=self.max_nodes, seed=self.seed, reuse=self.reuse,
            reuse_depth=self.reuse_depth, expand_after=self.expand_after, solver=self.solver,
            threads=self.threads, playout=self.playout, endgame=self.endgame,
            endgame_share=self.endgame_share, prior=self.prior, prior_visits=self.prior_visits,
            prior_batch=self.prior_batch, c_puct=self.c_puct),))

    def reset(self, seed=None):
        """Drop the tree; with ``seed``, restart the random stream from it."""
        self._exclusive(self._reset, seed)

    def _reset(self, seed):
        for tree in self._trees:
            tree.clear()
        self._root = None
        self._stats = {}
        if seed is not None:
            self.seed = resolve_seed(seed)
            for tree, s in zip(self._trees, _parallel.split_seeds(self.seed, self.threads)):
                tree.reseed(s)

    def advance(self, move):
        """Tell the tree that ``move`` was played at its root: keep that subtree."""
        self._exclusive(self._advance, move)

    def _advance(self, move):
        if self._root is None:
            return
        try:
            nxt = self._root.copy()
            nxt.push(move)
        except ValueError:
            for tree in self._trees:
                tree.clear()
            self._root = None
            raise
        for tree in self._trees:
            if not tree.advance_root(move):
                tree.clear()
        self._root = nxt

    def search(self, board, simulations=None, time=None):
        """Search from ``board`` and return the most visited move.

        simulations: number of simulations (with ``threads=k``: in total);
        time: seconds (re-rooting the kept tree included); with both, stop at
        whichever comes first; with neither, ``DEFAULT_SIMULATIONS``.
        """
        _check_board(board, allow_terminal=False)
        sims, t = _budget(simulations, time, self.DEFAULT_SIMULATIONS)
        return self._exclusive(self._search, board, sims, t)

    def _search(self, board, sims, t):
        check_playout(self._what, self.playout, board)
        if not self.endgame:
            return self._search_tree(board, sims, t)

        def won(result, seconds):
            self._root = None
            for tree in self._trees:
                tree.clear()
            self._stats = {
                "simulations": 0, "time": float(seconds), "simulations_per_s": 0.0,
                "nodes_used": 0, "max_nodes": self.max_nodes * self.threads,
                "reused": False, "reused_visits": 0, "root_visits": 0,
                "children": [{"move": result.best_move, "visits": 1, "mean": 1.0,
                              "proven": 1}],
                "root_proven": 1, "best_move": result.best_move, "threads": self.threads,
                "evaluator_calls": 0, "evaluations": 0, "priors": None}

        move, value = endgame_search(self._what, board, self.endgame, self.endgame_share, t,
                                     lambda left: self._search_tree(board, sims, left), won)
        self._stats["endgame"] = value
        self._stats["best_move"] = move
        return move

    def _search_tree(self, board, sims, t):
        start = _time.perf_counter()        # the re-rooting's copy is part of the move's time
        reuse = self.reuse and self._root is not None and type(self._root) is type(board)
        reused = []
        for tree in self._trees:
            tree.c = self.c
            if reuse:
                reused.append(bool(_dispatch(_mcts.mcts_reroot, tree, self._root, board,
                                             self.reuse_depth)))
            else:
                tree.clear()
                reused.append(False)
        reused_visits = sum(tree.root_visits for tree in self._trees)
        self._root = None               # until the search is done (an interrupt leaves no root)
        calls = [0, 0]                  # evaluator calls, positions evaluated
        if self.prior is not None:
            self._guide(board)
        left = _seconds_left(t, start)
        if self.threads == 1:
            done, _ = _search_part(self.prior, calls, self._tree, board, sims or 0, left, None)
            seconds = _time.perf_counter() - start
            move = self._tree.best_move()
            children = [{"move": m, "visits": int(v), "mean": float(q), "proven": int(p)}
                        for m, v, q, p in self._tree.root_children(proofs=True)]
            root_proven = int(self._tree.root_proven) if self.solver else 0
        else:
            budgets = _parallel.split_counts(sims, self.threads) if sims else [0] * self.threads
            parts = [(self.prior, calls, tree, board.copy(), n, left)
                     for tree, n in zip(self._trees, budgets)]
            runs = _parallel.run_parts(_search_part, parts)
            seconds = _time.perf_counter() - start
            done = sum(r[0] for r in runs)
            children, move = _merge_roots(self._trees, self.solver)
            proofs = [int(tree.root_proven) for tree in self._trees] if self.solver else [0]
            root_proven = next((p for p in proofs if p), 0)
        if move is None:   # cannot happen on a non-terminal board; be loud if it does
            raise RuntimeError("MCTS root was not expanded")
        self._root = board.copy()
        self._stats = {
            "simulations": int(done),
            "time": float(seconds),
            "simulations_per_s": done / seconds if seconds > 0 else float("inf"),
            "nodes_used": sum(tree.nodes_used for tree in self._trees),
            "max_nodes": self.max_nodes * self.threads,
            "reused": any(reused),
            "reused_visits": int(reused_visits),
            "root_visits": sum(tree.root_visits for tree in self._trees),
            "children": children,
            "root_proven": root_proven,
            "best_move": move,
            "threads": self.threads,
            "endgame": None,
            "evaluator_calls": calls[0],
            "evaluations": calls[1],
            "priors": self._tree.root_priors,
        }
        return move

    def _guide(self, board):
        """Set the trees up for this game's planes (once per board type)."""
        key = (type(board), board.num_actions, board.observation().shape)
        if self._guided != key:
            for tree in self._trees:
                tree.guide(board, self.prior_batch, self.prior_visits, self.c_puct)
            self._guided = key
        for tree in self._trees:
            tree.c_puct = self.c_puct

    @property
    def stats(self):
        """Statistics of the last search: simulations, time, simulations_per_s,
        nodes_used, max_nodes (summed over the trees), reused (subtree kept),
        reused_visits, root_visits, children (move, visits, mean in [-1, 1] for
        the side to move, proven: +1 winning / -1 losing move when the solver
        proved it, else 0; with ``threads=k`` summed / visit-weighted over the
        trees), root_proven, best_move, threads; with a ``prior``:
        evaluator_calls, evaluations (positions sent to it) and priors (``{move:
        prior}`` at the root of the first tree, None until they are installed)."""
        return dict(self._stats)


def _rebuild_mcts(config):
    return MCTS(**config)


def _search_part(evaluator, calls, tree, board, sims, seconds, stop):
    """One tree's search, ``(simulations, seconds)``: ``mcts_search`` itself
    without an evaluator; with one (a prior-guided tree), search until the
    budget is spent, stopping whenever the tree's batch of nodes is due to run
    the evaluator on it and install its priors, adding to ``calls``
    (evaluator calls, positions)."""
    if evaluator is None:
        return _dispatch(_mcts.mcts_search, tree, board, sims, seconds, stop)
    from ttt_engine.evaluators import call_evaluator, check_output
    start = _time.perf_counter()
    done = 0
    try:
        while True:
            left = 0.0
            if seconds:
                left = seconds - (_time.perf_counter() - start)
                if left <= 0:
                    break
            if sims and done >= sims:
                break
            n, _ = _dispatch(_mcts.mcts_search, tree, board, sims - done if sims else 0,
                             left, stop)
            done += n
            if not tree.prior_due:
                break                   # budget spent, root solved or stopped
            obs, mask = tree.prior_inputs()
            out = call_evaluator(evaluator, obs, mask)
            logits, _ = check_output(evaluator, out, len(obs), board.num_actions)
            tree.prior_install(board, logits)
            calls[0] += 1
            calls[1] += len(obs)
    finally:
        tree.prior_drop()               # nodes still queued are queued again next time
    return done, _time.perf_counter() - start


def _merge_roots(trees, solver):
    """Root children summed over root-parallel trees, and the move to play:
    a proven win first (solver), proven losses last, then the most visits,
    then the higher mean, then the first in move order (the rule of
    ``MCTSTree.best_move`` on the summed counts)."""
    order, visits, wsum, proven = [], {}, {}, {}
    for tree in trees:
        for m, v, q, p in tree.root_children(proofs=True):
            if m not in visits:
                order.append(m)
                visits[m] = wsum[m] = proven[m] = 0
            visits[m] += v
            wsum[m] += int(round(q * v))
            proven[m] = proven[m] or int(p)
    best, key = None, None
    for m in order:
        k = ((proven[m] if solver else 0), visits[m])
        if best is None or k > key or (k == key and wsum[m] * visits[best] > wsum[best] * visits[m]):
            best, key = m, k
    children = [{"move": m, "visits": visits[m],
                 "mean": wsum[m] / visits[m] if visits[m] else 0.0, "proven": proven[m]}
                for m in order]
    return children, best


# ---------------------------------------------------------------------------- PUCT
def _merged_phases(phases):
    """One move's statistics from the searches of its phases (the endgame
    solve beside the tree): counts and times summed, the tree's state from
    the last phase, its reuse from the first."""
    out = dict(phases[-1])
    for key in ("simulations", "time", "evaluations", "evaluator_calls"):
        out[key] = type(out[key])(sum(p[key] for p in phases))
    out["simulations_per_s"] = (out["simulations"] / out["time"] if out["time"] > 0
                                else float("inf"))
    out["reused"], out["reused_visits"] = phases[0]["reused"], phases[0]["reused_visits"]
    return out


class PUCT(_OneSearchAtATime):
    """AlphaZero's tree search (PUCT), guided by an evaluator.

    evaluator: ``evaluate(observations, legal_mask) -> (logits, values)`` (see
        :mod:`ttt_engine.evaluators`), e.g. a ``ttt_engine.network.Network``
        or ``UniformEvaluator()`` (random playouts in C).
    c_puct: exploration constant of ``Q + c * P * sqrt(N_parent) / (1 + N)``;
        with ``c_base`` set, AlphaZero's schedule
        ``c = c_init + log((N_parent + c_base + 1) / c_base)`` instead
        (``c_init`` defaults to ``c_puct``).
    dirichlet_alpha: if set, Dirichlet noise of that concentration is mixed
        into the root's priors at the start of every search, with weight
        ``noise_fraction`` (AlphaZero's exploration in self-play).
    batch_size: leaves gathered per evaluator call, with virtual losses so
        that one tree yields several different leaves (1: the exact sequential
        search).
    max_nodes: node arena of the tree; when it is full, leaves are still
        evaluated but no longer expanded.
    reuse: keep the subtree of the new root between searches (a position up
        to ``reuse_depth`` plies below the last root).
    playout_weight: ``w`` in [0, 1]: every evaluated leaf's value becomes
        ``(1 - w) * value + w * z`` where ``z`` is the result of one random
        playout from the leaf, played in C (AlphaGo's mixed evaluation; 0:
        the evaluator's value alone, as AlphaZero).
    mixed_playouts: ``z`` is the mean result of this many random playouts
        (default 1; more playouts give a less noisy mixed value at a small
        cost: a playout takes about a microsecond).
    playout: the policy of those playouts (and of the uniform evaluator's), as
        :class:`MCTS`'s: ``"random"`` (default) or ``"decisive"`` (a move that
        wins at once is played; in UTTT never one that lets the opponent win at
        once); a game without it is a ``ValueError`` at the search.
    endgame, endgame_share: the exact endgame solve of UTTT, as
        :class:`MCTS`'s (the same rule: a proven win played at once, a proven
        draw kept, ``stats["endgame"]`` the proven value or None).  With
        ``threads`` > 1 on a time budget the solve runs beside the tree, in a
        thread of its own, for up to ``endgame_share`` of the move's time
        while the tree goes on with one thread fewer; once it ends, the tree
        has every thread for the time left (statistics of both phases
        summed).
    expand_after: a leaf below the root goes to the evaluator (and gets its
        children) once it has this many visits; those visits are valued by
        ``mixed_playouts`` random playouts alone, without an evaluator call
        (as ``MCTS(expand_after=...)`` waits before expanding).  0 (the
        default): every leaf at its first visit, as AlphaZero.  Many leaves of
        a search are visited only once, so 1 saves many evaluator calls.
    solver: MCTS-Solver proofs, as ``MCTS(solver=True)``: a finished game
        proves its node, proofs climb the tree (a move that wins for the player
        to move proves the parent lost for its mover; all moves losing prove
        it won), selection takes a proven win at once and skips proven losses,
        a proven node's result is backed up like a finished game's, and a
        solved root ends the search early.  The move is a proven win if there
        is one, never a proven loss while another move is not.
    threads: tree parallelism: that many threads search the one tree at
        once, each gathering its own batch of leaves (virtual losses keep
        them apart); the tree changes under a lock, while the playouts and
        the evaluator run in parallel.  The evaluator is called from several
        threads at once if it says it may (``thread_safe = True``, as
        :class:`~ttt_engine.network.Network`), else one call at a time.
        Needs an evaluator called from Python (not the uniform one, whose
        search runs in C).  Results then depend on the threads' timing.

    The rules (selection, back-up, virtual loss, noise) are in
    docs/puct.md.  One search at a time per object (``RuntimeError``
    from a second thread); Ctrl-C stops a search with ``KeyboardInterrupt``
    and leaves the object usable (the tree is dropped).

    Pickles from its constructor arguments (the evaluator pickled with it):
    the copy starts with an empty tree, as :class:`MCTS`.

    >>> from ttt_engine import Board
    >>> from ttt_engine.evaluators import UniformEvaluator
    >>> p = PUCT(UniformEvaluator(), seed=1)
    >>> p.search(Board.from_string("XX.OO...."), simulations=400)
    2
    """

    DEFAULT_SIMULATIONS = 800
    _what = "PUCT"

    def __init__(self, evaluator, *, c_puct=1.25, c_base=None, c_init=None,
                 dirichlet_alpha=None, noise_fraction=0.25, batch_size=1, max_nodes=200_000,
                 reuse=True, reuse_depth=4, seed=None, playout_weight=0.0, mixed_playouts=1,
                 expand_after=0, solver=False, threads=1, playout="random", endgame=0,
                 endgame_share=0.3):
        from ttt_engine.evaluators import UniformEvaluator
        if not callable(evaluator):
            raise TypeError(f"evaluator must be callable as evaluate(observations, legal_mask), "
                            f"got {type(evaluator).__name__}")
        self.evaluator = evaluator
        self.c_puct = check_real("c_puct", c_puct, low=0, high=1e6)
        self.c_base = check_real("c_base", c_base, low=0, low_open=True, high=1e12,
                                 allow_none=True)
        self.c_init = check_real("c_init", c_init, low=0, high=1e6, allow_none=True)
        self.dirichlet_alpha = check_real("dirichlet_alpha", dirichlet_alpha, low=0,
                                          low_open=True, high=1e6, allow_none=True)
        self.noise_fraction = check_real("noise_fraction", noise_fraction, low=0, high=1)
        self.batch_size = check_int("batch_size", batch_size, min=1, max=4096)
        self.max_nodes = check_int("max_nodes", max_nodes, min=int(_puct.MIN_NODES),
                                   max=(1 << 31) - 1)
        self.reuse = bool(reuse)
        self.reuse_depth = check_int("reuse_depth", reuse_depth, min=0, max=64)
        self.seed = resolve_seed(seed)
        self.playout_weight = check_real("playout_weight", playout_weight, low=0, high=1)
        self.mixed_playouts = check_int("mixed_playouts", mixed_playouts, min=1, max=10_000)
        self.expand_after = check_int("expand_after", expand_after, min=0, max=1_000_000)
        self.solver = bool(solver)
        self.playout = playout_name(playout)
        self.endgame = check_int("endgame", endgame, min=0, max=81)
        self.endgame_share = check_real("endgame_share", endgame_share, low=0, low_open=True,
                                        high=1)
        self._native = isinstance(evaluator, UniformEvaluator)   # run in C, no Python call
        self.threads = check_tree_threads(evaluator, threads)
        # several threads call the evaluator at once only if it says it is safe
        self._eval_lock = (None if getattr(evaluator, "thread_safe", False)
                           else threading.Lock())
        self._forest = None
        self._key = None
        self._root = None
        self._stats = {}
        self._endgame_searcher = None    # the endgame solves' (``_solver``)
        self._init_exclusive()

    def __reduce__(self):
        return (_rebuild_puct, (self.evaluator, dict(
            c_puct=self.c_puct, c_base=self.c_base, c_init=self.c_init,
            dirichlet_alpha=self.dirichlet_alpha, noise_fraction=self.noise_fraction,
            batch_size=self.batch_size, max_nodes=self.max_nodes, reuse=self.reuse,
            reuse_depth=self.reuse_depth, seed=self.seed, playout_weight=self.playout_weight,
            mixed_playouts=self.mixed_playouts, expand_after=self.expand_after,
            solver=self.solver, threads=self.threads, playout=self.playout,
            endgame=self.endgame, endgame_share=self.endgame_share)))

    def _forest_for(self, board):
        key = (type(board), board.num_actions, board.observation().shape)
        if self._forest is None or self._key != key:
            c_base = self.c_base or 0.0
            c_init = self.c_puct if self.c_init is None else self.c_init
            playouts = self.evaluator.playouts if self._native else 0
            self._forest = _puct.PUCTForest(
                board, 1, self.batch_size, self.max_nodes, self.seed, self.c_puct, c_base,
                c_init, self.dirichlet_alpha or 0.0, self.noise_fraction, playouts,
                lanes=self.threads)
            self._forest.set_playout_weight(self.playout_weight, self.mixed_playouts)
            self._forest.set_expand_after(self.expand_after)
            self._forest.set_solver(self.solver)
            self._forest.set_playout_policy(_mcts.PLAYOUTS[self.playout])
            self._key = key
            self._root = None
        return self._forest

    def reset(self, seed=None):
        """Drop the tree; with ``seed``, restart the random stream from it."""
        self._exclusive(self._reset, seed)

    def _reset(self, seed):
        if seed is not None:
            self.seed = resolve_seed(seed)
        if self._forest is not None:
            self._forest.clear(0)
            self._forest.reseed(self.seed)
        self._root = None
        self._stats = {}

    def advance(self, move):
        """Tell the tree that ``move`` was played at its root: keep that subtree."""
        self._exclusive(self._advance, move)

    def _advance(self, move):
        if self._root is None:
            return
        nxt = self._root.copy()
        try:
            nxt.push(move)
        except ValueError:
            self._forest.clear(0)
            self._root = None
            raise
        self._forest.advance(0, int(move))
        self._root = nxt

    # ------------------------------------------------------------ searching
    def search(self, board, simulations=None, time=None):
        """Search from ``board`` and return the most visited move (ties: the
        first in move order).  simulations: leaves backed up (the first one
        evaluates the root); time: seconds (re-rooting the kept tree
        included); with both, whichever comes first; with neither,
        ``DEFAULT_SIMULATIONS``."""
        _check_board(board, allow_terminal=False)
        sims, t = _budget(simulations, time, self.DEFAULT_SIMULATIONS)
        return self._exclusive(self._search, board, sims, t)

    def _search(self, board, sims, t, stop=None):
        check_playout(self._what, self.playout, board)
        if not self.endgame:
            return self._search_tree(board, sims, t, stop)

        def won(result, seconds):
            if self._forest is not None:
                self._forest.clear(0)
            self._root = None
            self._stats = {
                "simulations": 0, "time": float(seconds), "simulations_per_s": 0.0,
                "evaluations": 0, "evaluator_calls": 0, "nodes_used": 0,
                "max_nodes": self.max_nodes, "reused": False, "reused_visits": 0,
                "root_visits": 0, "root_value": 1.0, "root_proven": 1,
                "children": [{"move": result.best_move, "visits": 1, "prior": 1.0, "mean": 1.0,
                              "action": int(board.move_to_action(result.best_move)),
                              "proven": 1}],
                "best_move": result.best_move, "num_actions": board.num_actions}

        if self.threads > 1 and t is not None and sims is None and stop is None:
            # the solve beside the tree, on a thread of its own
            phases = []

            def tree(left, spare, flag):
                move = self._search_tree(board, None, left, flag, self.threads - spare)
                phases.append(self._stats)
                return move

            def ranked():
                children = sorted(self._stats["children"], key=lambda c: -c["visits"])
                return [c["move"] for c in children]

            move, value = endgame_search_beside(self._what, board, self.endgame,
                                                self.endgame_share, t, tree, won,
                                                self._solver(), ranked)
            if value != 1 and len(phases) > 1:
                self._stats = _merged_phases(phases)
        else:
            move, value = endgame_search(self._what, board, self.endgame, self.endgame_share, t,
                                         lambda left: self._search_tree(board, sims, left, stop),
                                         won, self._solver())
        self._stats["endgame"] = value
        self._stats["best_move"] = move
        return move

    def _solver(self):
        """The searcher of the endgame solves (made once: the solve beside
        the tree runs in a new thread each move, and a thread's own searcher
        would be a new table each time)."""
        if self._endgame_searcher is None:
            self._endgame_searcher = ABSearcher()
        return self._endgame_searcher

    def _search_tree(self, board, sims, t, stop, lanes=None):
        # the clock starts before the re-rooting: copying a large kept subtree
        # takes milliseconds, and they are part of the move's time
        start = _time.perf_counter()
        f = self._forest_for(board)
        reused = False
        if self.reuse and self._root is not None:
            reused = bool(_dispatch(_puct.forest_reroot, f, self._root, board, 0,
                                    self.reuse_depth))
        else:
            _dispatch(_puct.forest_set_root, f, board, 0)
        reused_visits = f.root_visits(0)
        self._root = None                    # until the search is done
        budget = sims if sims is not None else 1 << 62
        calls = evaluations = 0
        try:
            if self._native:
                _dispatch(_puct.forest_native, f, board, budget, _seconds_left(t, start))
            else:
                deadline = start + t if t is not None else None
                parts = [(f, board, lane, budget, deadline, stop)
                         for lane in range(self.threads if lanes is None else lanes)]
                if len(parts) == 1:
                    counts = [self._run_lane(*parts[0], None)]
                else:
                    counts = _parallel.run_parts(self._run_lane, parts)
                calls = sum(c for c, _ in counts)
                evaluations = sum(e for _, e in counts)
        except BaseException:
            f.clear(0)                        # pending leaves would corrupt the tree
            raise
        seconds = _time.perf_counter() - start
        done = int(f.done_in(0))
        if self._native:
            evaluations = done
        move = _puct.forest_best_move(f, 0)
        if move is None:
            raise RuntimeError("PUCT root was not expanded")
        self._root = board.copy()
        children = [{"move": m, "action": a, "visits": v, "prior": p, "mean": q, "proven": pr}
                    for m, a, v, p, q, pr in _dispatch(_puct.forest_root_children, f, board, 0)]
        self._stats = {
            "simulations": done,
            "time": float(seconds),
            "simulations_per_s": done / seconds if seconds > 0 else float("inf"),
            "evaluations": int(evaluations),
            "evaluator_calls": int(calls),
            "nodes_used": int(f.nodes_used(0)),
            "max_nodes": self.max_nodes,
            "reused": reused,
            "reused_visits": int(reused_visits) if reused else 0,
            "root_visits": int(f.root_visits(0)),
            "root_value": float(f.root_value(0)),
            "root_proven": int(f.root_proven(0)),
            "children": children,
            "best_move": move,
            "num_actions": board.num_actions,
            "endgame": None,
        }
        return move

    def _run_lane(self, f, board, lane, budget, deadline, stop, lanes_stop):
        """Gather, evaluate and back up on ``lane`` of the forest until the
        budget, the deadline, a solved root or a stop flag (``stop``: the
        caller's root-parallel search; ``lanes_stop``: this search's other
        threads).  Returns ``(evaluator calls, evaluations)``."""
        from ttt_engine.evaluators import call_evaluator, check_output
        num_actions = board.num_actions
        shape = self._key[2]
        rows = lane * f.n * f.k
        calls = evaluations = 0
        while f.done_in(0) < budget:
            n = _puct.forest_gather(f, board, budget, lane)
            if n == 0 and f.root_proven(0):
                break                     # solved (the solver): nothing left to learn
            if n:
                obs = f.observations[rows:rows + n].reshape((n,) + shape)
                mask = f.masks[rows:rows + n]
                if self._eval_lock is None:
                    out = call_evaluator(self.evaluator, obs, mask)
                else:
                    with self._eval_lock:
                        out = call_evaluator(self.evaluator, obs, mask)
                logits, values = check_output(self.evaluator, out, n, num_actions)
                _puct.forest_backup(f, board, logits, values, lane)
                calls += 1
                evaluations += n
            if deadline is not None and _time.perf_counter() >= deadline:
                break
            if (stop is not None and stop[0]) or (lanes_stop is not None and lanes_stop[0]):
                break
        return calls, evaluations

    @property
    def stats(self):
        """Statistics of the last search: simulations, time, simulations_per_s,
        evaluations (positions given to the evaluator), evaluator_calls,
        nodes_used, max_nodes, reused, reused_visits, root_visits, root_value
        (mean value for the side to move), root_proven (with the solver: +1 a
        proven win for the side to move, -1 a proven loss, 0 unknown),
        children (move, action, visits, prior, mean for the side to move,
        proven as root_proven, in move order), best_move."""
        return dict(self._stats)

    def policy(self, temperature=1.0):
        """The last search's visit distribution over actions (float32, length
        ``num_actions``): ``N ** (1 / temperature)`` normalised; temperature 0
        puts all weight on the best move."""
        import numpy as np
        temperature = check_real("temperature", temperature, low=0, high=1e6)
        if not self._stats:
            raise ValueError("policy() needs a search first")
        pi = np.zeros(self._stats["num_actions"], dtype=np.float64)
        kids = self._stats["children"]
        if temperature == 0:
            best = next(c for c in kids if c["move"] == self._stats["best_move"])
            pi[best["action"]] = 1.0
            return pi.astype(np.float32)
        visits = np.array([c["visits"] for c in kids], dtype=np.float64)
        if visits.sum() == 0:
            visits[:] = 1.0
        w = visits ** (1.0 / temperature) if temperature != 1 else visits
        if not np.isfinite(w).all() or w.sum() == 0:   # tiny temperature: the most visited
            w = (visits == visits.max()).astype(np.float64)
        for c, x in zip(kids, w / w.sum()):
            pi[c["action"]] = x
        return pi.astype(np.float32)


def check_tree_threads(evaluator, threads):
    """``threads`` for one PUCT tree searched with ``evaluator``; ``ValueError``
    if it is more than one and the evaluator is the uniform one (searched in C,
    on one thread)."""
    from ttt_engine.evaluators import UniformEvaluator
    threads = _parallel.check_threads(threads)
    if threads > 1 and isinstance(evaluator, UniformEvaluator):
        raise ValueError("threads > 1 on one tree needs an evaluator called from Python (a "
                         "network); the uniform evaluator's search runs in C on one thread "
                         "(AZAgent: parallel='root' searches one tree per thread)")
    return threads


def _rebuild_puct(evaluator, config):
    return PUCT(evaluator, **config)


def _puct_part(puct, board, sims, seconds, stop):
    """One tree of a root-parallel PUCT search (``AZAgent(threads=k)``): its
    move; stops early when the shared ``stop`` flag is set."""
    _check_board(board, allow_terminal=False)
    return puct._exclusive(puct._search, board, sims, seconds, stop)


def merge_puct_roots(searches):
    """Root children of root-parallel PUCT searches, summed: ``(children,
    move)`` with the visits added, the mean visit-weighted, the prior of the
    first, a proof if any tree found one (proofs are exact, so trees never
    disagree); the move is a proven win if any, else the most visited that is
    not a proven loss (ties: the first in move order)."""
    order, rows = [], {}
    for s in searches:
        for c in s.stats["children"]:
            r = rows.get(c["move"])
            if r is None:
                order.append(c["move"])
                rows[c["move"]] = r = {"move": c["move"], "action": c["action"], "visits": 0,
                                       "prior": c["prior"], "wsum": 0.0, "proven": 0}
            r["visits"] += c["visits"]
            r["wsum"] += c["mean"] * c["visits"]
            r["proven"] = r["proven"] or c.get("proven", 0)
    children = [{"move": m, "action": rows[m]["action"], "visits": rows[m]["visits"],
                 "prior": rows[m]["prior"],
                 "mean": rows[m]["wsum"] / rows[m]["visits"] if rows[m]["visits"] else 0.0,
                 "proven": rows[m]["proven"]}
                for m in order]
    best = None
    for c in children:
        if best is None or (c["proven"], c["visits"]) > (best["proven"], best["visits"]):
            best = c
    return children, best["move"] if best else None
