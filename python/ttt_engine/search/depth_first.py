"""Depth-first search: minimax, negamax, alpha-beta (table, ordering,
principal variation search, iterative deepening), every move's value, and the
exact answers built on them (:func:`solve`, :func:`optimal_moves`).  The hot
loops are in ``ttt_engine._core.algorithms.alphabeta``; scores as described in
:mod:`ttt_engine.search`."""
from __future__ import annotations

import numbers
import threading

from ttt_engine import _registry as games
from ttt_engine._util import RangeError, check_bool, check_int, check_seconds
from ttt_engine.search.common import (MAX_PLY, SearchResult, _check_board, _compiled_value_net,
                                      _dispatch, _OneSearchAtATime)

from ttt_engine._core.algorithms import alphabeta as _ab

#: Table size (entries) of the module-level functions' searcher, unless the
#: board's game sizes it (``Board.SEARCH_TT_SIZE``: Tic-Tac-Toe's small tree).
DEFAULT_TT_SIZE = 1 << 18


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
        # the compiled base has checked and applied the sizes (__cinit__)
        check_bool("ply_in_key", ply_in_key)
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
    size = getattr(board, "SEARCH_TT_SIZE", None) or DEFAULT_TT_SIZE
    searchers = getattr(_local, "searchers", None)
    if searchers is None:
        searchers = _local.searchers = {}
    searcher = searchers.get(size)
    if searcher is None:
        searcher = searchers[size] = ABSearcher(size)
    return searcher


def _with_searcher(searcher, fn, *args):
    """``fn(searcher, *args)`` holding ``searcher`` (``RuntimeError`` if another
    thread is searching with it); the thread's own searcher when None."""
    if searcher is None:
        searcher = _shared(args[0] if args else None)
    elif not isinstance(searcher, ABSearcher):
        raise TypeError("searcher must be a ttt_engine.search.ABSearcher or None, got "
                        f"{type(searcher).__module__}.{type(searcher).__name__}")
    return searcher._exclusive(_dispatch, fn, searcher, *args)


def check_heuristic(board, heuristic):
    """``heuristic`` as an int if it is one of the static evaluations of
    ``board``'s game (its ``heuristic_ok`` fact; only 0 where it has none);
    a ``ValueError`` stating the game's rule otherwise."""
    if heuristic == 0 and type(heuristic) is int:     # every game's default
        return 0
    game = games.of_board(board)
    rule = game.heuristic_rule or f"must be 0 ({game.title} has one static evaluation)"
    if isinstance(heuristic, bool) or not isinstance(heuristic, numbers.Integral):
        raise RangeError("heuristic", rule, heuristic)
    heuristic = int(heuristic)
    ok = heuristic == 0 if game.heuristic_ok is None else \
        heuristic >= 0 and game.heuristic_ok(heuristic)
    if not ok:
        raise RangeError("heuristic", rule, heuristic)
    return heuristic


def check_heuristic_of_some_game(heuristic):
    """``heuristic`` as an int if some game has it (0: every game's default):
    what an agent not yet given a board can check; its moves check the game's own."""
    heuristic = check_int("heuristic", heuristic, min=0, max=1 << 20)
    if heuristic == 0:
        return 0
    own = [g for g in games.GAMES.values() if g.heuristic_ok is not None]
    if not any(g.heuristic_ok(heuristic) for g in own):
        rules = " or ".join(g.heuristic_rule.removeprefix("must be ") for g in own)
        raise RangeError("heuristic", f"must be 0 (every game's default) or {rules}",
                         heuristic)
    return heuristic


def _depth(depth):
    if depth is None:
        return MAX_PLY
    return check_int("depth", depth, min=0, max=MAX_PLY)


def _make_result(raw):
    value, best, pv, nodes, seconds, depth, exact = raw
    value = float(value) + 0.0   # normalise -0.0
    return SearchResult(value, best, list(pv), int(nodes), float(seconds), int(depth), bool(exact))


#: the depth-first formulations by their kernel id (``_ab.search``'s ``kind``)
_KINDS = ("minimax", "negamax", "alphabeta")


def _run(board, kind, depth, heuristic, pruning, ordering, tt, time_limit, iterative,
         searcher=None, pvs=False, stop=None, value_network=None):
    _check_board(board, allow_terminal=False)
    vnet = _compiled_value_net(value_network)
    if vnet is not None:
        vnet.check_board(board)
    d = _depth(depth)
    heuristic = check_heuristic(board, heuristic)
    time_limit = check_seconds("time_limit", time_limit, allow_none=True)
    if depth is None and time_limit is None:
        refuse_unbounded(board, _KINDS[kind], "depth= or time_limit=")
    if iterative is None:
        iterative = time_limit is not None
    # the formulations name pruning "alphabeta"
    pruning = check_bool("alphabeta", pruning)
    ordering, tt = check_bool("ordering", ordering), check_bool("tt", tt)
    iterative, pvs = check_bool("iterative", iterative), check_bool("pvs", pvs)
    # a copy: each deepening reads the root without the GIL, while another
    # thread may play on the caller's board
    raw = _with_searcher(searcher, _ab.search, board.copy(), kind, d, heuristic, pruning,
                         ordering, tt, time_limit or 0.0, iterative, pvs, stop, vnet)
    if raw is None:   # fixed-depth search interrupted by the clock
        raise TimeoutError("search ran out of time before completing depth "
                           f"{d}; use iterative=True to get the last completed depth")
    return _make_result(raw)


def alphabeta(board, depth=None, *, heuristic=0, time_limit=None, ordering=True, tt=True,
              iterative=None, searcher=None, pvs=True, value_network=None):
    """Negamax alpha-beta with a transposition table, move ordering and
    iterative deepening.

    - depth: plies to search; None searches to the end of the game (exact).
    - heuristic: the game's static-evaluation id used at the horizon (0 = default).
    - time_limit: seconds; enables iterative deepening (1, 2, ... plies) and
      returns the last completed iteration (depth 1 always completes).
    - ordering: table move first, then history heuristic.  tt: use the table.
    - iterative: force iterative deepening on/off (default: on iff time_limit).
    - pvs: principal variation search (null windows after the first move); with
      ``pvs=False, tt=False, ordering=False`` this is plain negamax alpha-beta.
    - searcher: an ``ttt_engine.search.ABSearcher`` to use instead of the shared one.
    - value_network: a value network (``CompiledValueNet``, or a ``ValueNetwork``)
      as the horizon evaluation instead of ``heuristic``, updated from the
      root's accumulator by each horizon node's feature change
      (docs/valuenet.md); a board of another feature set is a ``ValueError``.

    With neither ``depth`` nor ``time_limit`` the search is exhaustive, and a
    position no exhaustive search finishes (``Board.exhaustive_limit``:
    Ultimate Tic-Tac-Toe, 5x5 Quixo, large Clobber boards, Connect Four
    openings) is refused at once (:func:`refuse_unbounded`, naming the
    keywords to add).  A finished board is refused ("the game is over"), as
    by the agents, the tree searches and ``analyse``: there is no move to
    search (:func:`solve` gives a finished game's value).

    >>> from ttt_engine import Board
    >>> r = alphabeta(Board())
    >>> r.value, r.exact
    (0.0, True)
    """
    return _run(board, 2, depth, heuristic, True, ordering, tt, time_limit, iterative, searcher,
                pvs, value_network=value_network)


def minimax(board, depth=None, *, heuristic=0, alphabeta=False, time_limit=None):
    """Min/max formulation: MAX nodes maximise, MIN nodes minimise the
    root player's score; ``alphabeta=True`` adds pruning.  No table and no
    ordering, so node counts are the textbook ones (plain minimax from the empty
    Tic-Tac-Toe board visits all 549,946 positions).  Value is reported from the
    side to move at the root, like every other search here.  Unbounded and
    finished boards as :func:`alphabeta`.
    """
    return _run(board, 0, depth, heuristic, alphabeta, False, False, time_limit, False)


def negamax(board, depth=None, *, heuristic=0, alphabeta=False, time_limit=None):
    """Negamax formulation (values from the side to move at every node), with
    optional alpha-beta pruning; no table, no ordering.  Same values and node
    counts as :func:`minimax`; unbounded and finished boards as :func:`alphabeta`."""
    return _run(board, 1, depth, heuristic, alphabeta, False, False, time_limit, False)


def move_values(board, depth=None, *, heuristic=0, searcher=None):
    """``({move: score}, exact)``: every legal move's score (from the side to move
    at ``board``, win distance counted from ``board``), each searched with a
    full window.  ``exact`` is True when all scores are game-theoretic.
    ``depth=None`` (to the end) is refused where no exhaustive search finishes
    (:func:`refuse_unbounded`); a finished board has no moves: ``({}, True)``."""
    _check_board(board)
    d = _depth(depth)
    heuristic = check_heuristic(board, heuristic)
    if depth is None:
        refuse_unbounded(board, "move_values", "depth=")
    pairs, _nodes, exact = _with_searcher(searcher, _ab.root_values, board.copy(), d, heuristic)
    return {m: float(v) + 0.0 for m, v in pairs}, bool(exact)


def _sign(v):
    return (v > 0) - (v < 0)


def limit_needed(who, reason, keywords):
    """The one message of a search that would never finish without a limit:
    "alphabeta needs a limit: <reason>; pass depth= or time_limit="."""
    return f"{who} needs a limit: {reason}; pass {keywords}"


def refuse_unbounded(board, who, keywords=None):
    """``ValueError`` unless an exhaustive search finishes ``board``: the board
    says where its game's limit lies (``Board.exhaustive_limit``: Ultimate
    Tic-Tac-Toe only in endgames, Quixo never beyond 3x3, Clobber up to ``clobber.EXHAUSTIVE_STONES``
    stones, Connect Four from ``connect4.EXHAUSTIVE_PLIES`` discs on; finished
    games always).  ``keywords``: the limits ``who`` takes ("depth= or
    time_limit="), named by :func:`limit_needed`; None for an exact answer,
    whose message points to the game's ``solve``, which takes a node or time
    limit.  One check per call, before any search.  (A game may answer some
    boards an exhaustive search cannot finish: see ``_exact_values``.)"""
    reason = board.exhaustive_limit()
    if reason is None:
        return
    if keywords is not None:
        raise ValueError(limit_needed(who, reason, keywords))
    raise ValueError(f"{who}: {reason}; use ttt_engine.{games.board_game(board)}.solve(board, "
                     "max_nodes=..., time_limit=...), which answers 'unknown' when a "
                     "limit is hit")


def _exact_values(board):
    """``{move: exact score}`` of ``board`` as its game answers it without a
    search (``Game.exact_values``; e.g. 3x3 and 4x4 Quixo from the retrograde
    solution, which alpha-beta cannot finish), scored as :func:`move_values`
    scores; None when the game has no such answer for it."""
    answer = games.of_board(board).exact_values
    return None if answer is None else answer(board)


def exact_move_values(board, searcher=None, who="move_values"):
    """``{move: exact score}`` for every legal move of a board the exact
    engines finish or its game answers itself (:func:`refuse_unbounded`
    otherwise)."""
    values = None if board.is_terminal() else _exact_values(board)
    if values is not None:
        return values
    refuse_unbounded(board, who)
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
    if not board.is_terminal():
        values = _exact_values(board)
        if values is not None:
            return max(_sign(v) for v in values.values())
    refuse_unbounded(board, "solve")
    if board.is_terminal():
        w = board.winner
        return 0 if w == "draw" else (1 if w == board.to_move else -1)
    r = alphabeta(board)
    if not r.exact:
        raise ValueError(f"position not solved within {MAX_PLY} plies")
    return r.outcome


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
