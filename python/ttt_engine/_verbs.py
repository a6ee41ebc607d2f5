"""The module functions every game module shares: ``perft``, ``random_playouts``
and the parts of ``solve`` (its result type and the bounded alpha-beta solve).

Each game module (``ttt_engine.ttt``, ``.uttt``, ``.clobber``, ``.quixo``)
exposes ``perft(board, depth)``, ``random_playouts(board, n, seed=None)`` and
``solve(board, *, max_nodes=None, time_limit=None)`` built from these.
"""
from __future__ import annotations

import time as _time
from dataclasses import dataclass

from ttt_engine._util import check_board as _check_board
from ttt_engine._util import MAX_DEPTH, check_int, check_seconds

__all__ = ["SolveResult", "bounded_solve", "check_board", "check_limits", "children", "perft",
           "random_playouts"]

VALUES = ("win", "loss", "draw", "unknown")


@dataclass(frozen=True)
class SolveResult:
    """Result of a game module's ``solve``.

    - value: ``"win"``, ``"loss"`` or ``"draw"`` for the side to move, or
      ``"unknown"`` when a node or time limit stopped the search first.
    - winner: the winning side's symbol, ``"draw"``, or None when unknown.
    - best_move: a move that keeps the value (None for a loss, an unknown value
      or a finished game).
    - plies: plies to the end under best play when the solver reports them
      (None otherwise).
    - nodes: positions searched; seconds: wall time; tt_hits: table hits where
      the solver counts them (else 0).
    - score: the exact score where the solver gives one (Connect Four: the
      test-set convention, docs/connect4.md), else None.
    """
    value: str
    winner: object
    best_move: object
    plies: object
    nodes: int
    seconds: float
    tt_hits: int = 0
    score: object = None

    @property
    def exact(self):
        """True unless a limit stopped the search."""
        return self.value != "unknown"

    @property
    def win(self):
        """True (side to move wins), False (it does not), None (unknown)."""
        return None if self.value == "unknown" else self.value == "win"

    @property
    def outcome(self):
        """+1 win, 0 draw, -1 loss for the side to move; None when unknown."""
        return {"win": 1, "draw": 0, "loss": -1}.get(self.value)


def check_board(board, cls, where):
    """``ValueError`` unless ``board`` is a ``cls`` (the exception every entry point
    raises for a wrong board)."""
    return _check_board(board, cls, where)


#: The largest node limit a solve takes (the compiled counters are 64-bit; no solve
#: here comes near it: the empty Connect Four board takes under 10**9 nodes).
MAX_NODES = 10**18


def check_limits(max_nodes, time_limit):
    return (check_int("max_nodes", max_nodes, min=1, max=MAX_NODES, allow_none=True),
            check_seconds("time_limit", time_limit, allow_none=True))


def children(board):
    """``(move, child)`` for every legal move of ``board``, in its order: ``child`` a
    copy of ``board`` with the move played (``board`` itself is not changed)."""
    for m in board.legal_moves:
        child = board.copy()
        child.push(m)
        yield m, child


def perft(board, depth, cls, where):
    """Leaf count of ``board``'s move tree to ``depth`` plies."""
    from ttt_engine._core.algorithms.perft import perft as _perft
    check_board(board, cls, where)
    return _perft(board, check_int("depth", depth, min=0, max=MAX_DEPTH))


def random_playouts(board, n, seed, cls, where, threads=1):
    """``{"games", "first_wins", "second_wins", "draws", "seed"}`` of ``n``
    uniformly random games from ``board`` (unchanged); same seed, same counts
    (for the same ``threads``: the games are split over that many threads)."""
    from ttt_engine._core.algorithms.playout import random_playouts as _playouts
    check_board(board, cls, where)
    # a copy: the games start from the root without the GIL held
    return _playouts(board.copy(), check_int("n", n, min=0), seed, threads=threads)


def module_verbs(cls, game, counts="", outcomes=""):
    """``perft`` and ``random_playouts`` for the public module of ``game`` (whose
    board class is ``cls``): the same checks and messages in every game module.
    ``counts``: the perft numbers from the start, for the docstring; ``outcomes``:
    what the game's results mean (e.g. "first = B")."""
    module = f"ttt_engine.{game}"

    def perft_of(board, depth):
        return perft(board, depth, cls, f"{game}.perft")

    def random_playouts_of(board, n, seed=None, threads=1):
        return random_playouts(board, n, seed, cls, f"{game}.random_playouts", threads=threads)

    perft_of.__doc__ = ("Leaf count of ``board``'s move tree to ``depth`` plies"
                        + (f" ({counts} from the start)" if counts else "") + ".")
    random_playouts_of.__doc__ = (
        "Play ``n`` uniformly random games from ``board`` (unchanged) in C; returns\n"
        '    ``{"games", "first_wins", "second_wins", "draws", "seed"}``'
        + (f" ({outcomes})" if outcomes else "") + ".  Same seed, same counts\n"
        "    (for the same ``threads``, the number of threads the games are split over).")
    for fn, name in ((perft_of, "perft"), (random_playouts_of, "random_playouts")):
        fn.__name__ = fn.__qualname__ = name
        fn.__module__ = module
    return perft_of, random_playouts_of


def _winner(board, value):
    sides = board.sides if hasattr(board, "sides") else None
    me = board.to_move
    if value == "draw":
        return "draw"
    if value == "unknown":
        return None
    if value == "win":
        return me
    if sides is None:
        sides = ("B", "W") if me in ("B", "W") else ("X", "O")
    return sides[1] if sides[0] == me else sides[0]


def make_result(board, value, best_move, plies, nodes, seconds, tt_hits=0):
    return SolveResult(value, _winner(board, value), best_move, plies, int(nodes),
                       float(seconds), int(tt_hits))


def finished(board):
    """The result for a finished game: scored for the player who would move."""
    w = board.winner
    value = "draw" if w == "draw" else ("win" if w == board.to_move else "loss")
    return make_result(board, value, None, 0, 0, 0.0)


def bounded_solve(board, max_nodes=None, time_limit=None, searcher=None, progress=False,
                  where="solve"):
    """Alpha-beta, one more ply per iteration, until the value is exact or a
    limit is reached (``max_nodes`` is checked between iterations; the time
    limit also stops an iteration in the middle).  Unbounded when both are None.
    ``progress``: as every game's ``solve`` (``ttt_engine._progress``), a
    report after each iteration, named ``where``."""
    from ttt_engine import _progress, search
    with _progress.reporter(progress, where) as rep:
        if board.is_terminal():
            rep.finish(0)
            return finished(board)
        t0 = _time.perf_counter()
        nodes = 0
        depth = 0
        while depth < search.MAX_PLY:
            depth += 1
            remaining = None
            if time_limit is not None:
                remaining = time_limit - (_time.perf_counter() - t0)
                if remaining <= 0:
                    break
            try:
                r = search.alphabeta(board, depth, time_limit=remaining, iterative=False,
                                     searcher=searcher)
            except TimeoutError:
                break
            nodes += r.nodes
            if r.exact:
                value = {1: "win", 0: "draw", -1: "loss"}[r.outcome]
                best = r.best_move if value != "loss" else None
                rep.finish(nodes, f"solved at depth {depth}: {value}")
                return make_result(board, value, best, r.plies_to_end, nodes,
                                   _time.perf_counter() - t0)
            rep.report(nodes, f"depth {depth} searched")
            if max_nodes is not None and nodes >= max_nodes:
                break
        rep.finish(nodes, "stopped by the limit")
        return make_result(board, "unknown", None, None, nodes, _time.perf_counter() - t0)
