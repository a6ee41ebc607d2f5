"""The exact endgame policy of :class:`MCTS <ttt_engine.search.MCTS>` and
:class:`PUCT <ttt_engine.search.PUCT>` (``endgame=``): once few cells are left,
an exact solve before the tree search or beside it, a proven win played at
once, and the tree's move checked against the proof.  The solve is the game's
own where it has one (``Game.endgame_solve``), else the generic alpha-beta."""
from __future__ import annotations

import time as _time
from typing import NamedTuple

from ttt_engine import _parallel
from ttt_engine import _registry as games
from ttt_engine._util import game_title
from ttt_engine.search.depth_first import _run, alphabeta


def endgame_empty_cells(board):
    """The empty cells of ``board`` that the exact endgame solve counts (the
    game's ``endgame_cells``: in Ultimate Tic-Tac-Toe those of the open local
    boards); ``ValueError`` for a game without an endgame solve."""
    cells = games.of_board(board).endgame_cells
    if cells is None:
        raise ValueError(f"{game_title(board)} has no exact endgame solve")
    return cells(board)


def _endgame_cells(who, board):
    """The game's count of the cells the endgame solve looks at; a
    ``ValueError`` naming ``who`` if the game has no endgame solve."""
    cells = games.of_board(board).endgame_cells
    if cells is None:
        # the games that have one, from the registry (this loads every game: an error path)
        titles = [g.title for g in games.GAMES.values() if g.endgame_cells is not None]
        having = " or ".join([", ".join(titles[:-1]), titles[-1]] if len(titles) > 1 else titles)
        raise ValueError(f"{who} endgame= applies to {having} only, not "
                         f"{game_title(board)}; use endgame=0")
    return cells


class Proof(NamedTuple):
    """A position's value proven by the game's own solve (``Game.endgame_solve``):
    ``outcome`` +1 / 0 / -1 for the side to move, ``best_move`` keeping it,
    ``time`` the seconds the solve took."""
    outcome: int
    best_move: object
    time: float


def _own_solve(board, limit):
    """The game's own exact solve of ``board`` (``Game.endgame_solve``) within
    ``limit`` seconds (None: the game's bound of work): a :class:`Proof`, or
    None if it proved nothing; ``False`` for a game without one (alpha-beta
    solves its endgames)."""
    solve = games.of_board(board).endgame_solve
    if solve is None:
        return False
    start = _time.perf_counter()
    found = solve(board, limit)
    if found is None:
        return None
    return Proof(found[0], found[1], _time.perf_counter() - start)


def endgame_solve(who, board, endgame, limit, searcher=None, stop=None):
    """``(result, seconds)``: the exact result of ``board`` (with ``outcome``
    and ``best_move``) if it has at most ``endgame`` empty cells and the solve
    proves its value within ``limit`` seconds, else ``(None, seconds spent)``.
    The solve is the game's own (``Game.endgame_solve``: a :class:`Proof`;
    ``limit`` None, a simulation budget, leaves it its bound of work), else
    alpha-beta (``limit`` None: 0.05 s).  A ``ValueError`` naming ``who``
    for a game without an endgame solve (``Game.endgame_cells``).
    ``searcher``: the :class:`ttt_engine.search.ABSearcher` of alpha-beta (None: this thread's);
    ``stop``: a shared stop flag that ends an alpha-beta solve early
    (unproven), for a solve in a thread that does not see Ctrl-C (a game's
    own solve ends at its limit)."""
    if _endgame_cells(who, board)(board) > endgame:
        return None, 0.0
    start = _time.perf_counter()
    own = _own_solve(board, limit)
    if own is not False:
        return own, _time.perf_counter() - start
    # alphabeta(board, time_limit=limit, searcher=searcher), watching ``stop``
    r = _run(board, 2, None, 0, True, True, True, 0.05 if limit is None else limit, True,
             searcher, pvs=True, stop=stop)
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
    reason.  ``searcher``: the :class:`ttt_engine.search.ABSearcher` of the solves (None: this
    thread's)."""
    exact, spent = endgame_solve(who, board, endgame, t * share if t else None, searcher)
    value = None if exact is None else exact.outcome
    if value == 1:
        won(exact, spent)
        return exact.best_move, value
    if t:
        # the time left, less what the check of the tree's move may take
        t = max(t - spent * (2 if value == 0 else 1), 1e-3)
    move = search_tree(t)
    if value == 0:
        move = _keep_draw(board, move, exact, spent, searcher, timed=bool(t))
    return move, value


def _keep_draw(board, move, exact, spent, searcher, timed=True):
    """In a proven draw: the tree's ``move`` if it draws too (checked within
    about the solve's time ``spent``; a game's own solve, on a simulation
    budget (not ``timed``), within its bound of work), else the solve's
    drawing move."""
    if move == exact.best_move:
        return move
    after = board.copy()
    after.push(move)
    if after.is_terminal():             # it ends the game: in a proven draw, with a draw
        return move if after.winner == "draw" else exact.best_move
    own = _own_solve(after, max(spent, 0.005) if timed else None)
    if own is not False:
        return move if own is not None and own.outcome == 0 else exact.best_move
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
        own = _own_solve(after, left)
        if own is not False:
            if not (own is not None and own.outcome == 1):
                return move
            continue
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
    if _endgame_cells(who, board)(board) > endgame:
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
