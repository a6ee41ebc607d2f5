"""Moves read from a game's endgame table before a search (``MCTSAgent``'s
``tablebase=True``, which ``best`` turns on where the game has a table).

The game answers ``Game.table_value(board)``: a position's exact score for
its side to move, read from a table on disk (``search.move_values``
scores: a win in ``p`` plies ``WIN_SCORE - p``, 0 a draw), or None where no
table is installed or the table does not hold the board.  Every legal move
is scored by the table's value of the position it leads to (a move that ends
the game by its result):

- every move known (a position the table holds, whose moves all stay in it):
  the table's best move is played, no search -- the fastest win, the slowest
  loss, a drawing move;
- some moves known (a position one move away from the table): a known win is
  played at once (the fastest); otherwise the search chooses, and a move it
  chooses that the table knows to be worse than a known one (a loss where a
  known move draws) gives way to the best known move;
- no position a move leads to in the table, or no table: the search alone,
  as without one.
"""
from __future__ import annotations

from typing import NamedTuple

from ttt_engine import _registry
from ttt_engine.analysis import Analysis, search_score

__all__ = ["TableView", "table_view", "table_analysis"]

#: what an analysis's ``stats["answered"]`` says when the table chose the move
ANSWERED = "endgame table"


class TableView(NamedTuple):
    """The table's view of a position: ``known`` ``{move: score}`` for the
    moves whose result it knows (from the mover's side), ``complete`` when it
    knows them all."""
    known: dict
    complete: bool

    def decided(self):
        """The table's move when it decides alone (every move known, or a known
        win), else None: the best score, the first such move in move order."""
        if not self.known:
            return None
        best = max(self.known.values())
        if self.complete or best > 0:
            return next(m for m, v in self.known.items() if v == best)
        return None

    def overrule(self, move):
        """The search's ``move``, unless the table knows it is worse than the
        best move it knows: then that move."""
        if move not in self.known:
            return move
        best = max(self.known.values())
        if self.known[move] >= best:
            return move
        return next(m for m, v in self.known.items() if v == best)


def _child_score(value):
    """The mover's score of the position after a move, whose side to move has
    ``value`` (a win ``p`` plies away for it is a loss ``p + 1`` plies away)."""
    if value == 0:
        return 0.0
    return -(value - 1.0) if value > 0 else -(value + 1.0)


def table_view(board):
    """The :class:`TableView` of ``board`` (its game's ``table_value``), or
    None when the game has no table, the game is over, or the table holds no
    position a move leads to (not installed, or too far from it)."""
    value = _registry.of_board(board).table_value
    if value is None or board.is_terminal():
        return None
    from ttt_engine.search import WIN_SCORE
    me = board.to_move
    known, found = {}, False
    for m in board.legal_moves:
        child = board.copy()
        child.push(m)
        if child.is_terminal():
            w = child.winner
            if w == "draw":
                # a draw at the move cap is the board's only: outside the table
                known[m] = 0.0
            else:
                known[m] = WIN_SCORE - 1.0 if w == me else -(WIN_SCORE - 1.0)
            continue
        v = value(child)
        if v is not None:
            known[m] = _child_score(v)
            found = True
    # the rules alone (moves that end the game) are the search's: no table, no view
    return TableView(known, len(known) == len(board.legal_moves)) if found else None


def table_analysis(agent, board, view):
    """The :class:`~ttt_engine.analysis.Analysis` of a move the table decided (``view.decided()``):
    every known move with its exact verdict, kind ``"exact"``, ``stats``
    saying the table answered."""
    game = _registry.of_board(board)
    rows = {}
    for m, v in view.known.items():
        score, verdict = search_score(game.key, v) if v else (0.0, "draw")
        rows[m] = {"score": score, "value": float(v), "verdict": verdict,
                   "label": verdict.replace("win in ", "W").replace("loss in ", "L")
                   .replace("draw", "D")}
    name = getattr(agent, "name", type(agent).__name__)
    return Analysis.of(board, rows, best_move=view.decided(), engine=name, kind="exact",
                       stats={"answered": ANSWERED})
