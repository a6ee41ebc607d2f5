"""Connect Four perfect play from any position: the opening book
(:mod:`ttt_engine.connect4.book`) while the board's children are in it, then
the solver itself (:mod:`ttt_engine.connect4.solver`).  :class:`PerfectAgent`
is the ``perfect`` engine of Connect Four."""
from __future__ import annotations

import os
import time

import numpy as np

from ttt_engine import _parallel, _util
from ttt_engine._agent import require_moves
from ttt_engine._core.games.connect4.board import Board as _Board
from ttt_engine.agents import _StreamAgent
from ttt_engine.connect4.book import (AGENT_TABLE_MB, Book, load, scores_to_plies,
                                      shipped_book)

__all__ = ["PerfectAgent"]


class PerfectAgent(_StreamAgent):
    """Exact Connect Four from any position, from the opening book while the
    board's children are in it (``book``: a :class:`ttt_engine.connect4.book.Book`, a path, None for
    the shipped one, False for none), else by the solver on a ``table_mb``
    table, searched by ``threads`` threads (default: both cores of a machine
    with two or more; the moves do not depend on it).  It plays the best
    score: the fastest win, else a draw, else the slowest loss; among equal
    scores the first column, or with ``randomize=True`` a random one fixed
    by ``seed`` -- except where the book keeps the solver's best column (its
    deepest positions, whose children it does not hold), which it plays at
    once.  To move it finds only the columns of the best score
    (:meth:`optimal_columns`); the analysis (:meth:`column_scores`) scores
    every column exactly.  No budget applies (it always answers exactly).

    ``move_scores`` gives every column's score in the win-distance scale of
    :class:`ttt_engine.agents.PerfectAgent` (a win in p plies ``WIN_SCORE -
    p``), ``column_scores`` in the solver's (22 - k)."""

    def __init__(self, randomize=True, seed=None, book=None, table_mb=AGENT_TABLE_MB, *,
                 threads=None, simulations=None, time=None, depth=None):
        from ttt_engine._agent import no_budget
        from ttt_engine.connect4.solver import _solve
        no_budget("the Connect Four perfect engine", simulations=simulations, time=time,
                  depth=depth)
        self.randomize = _util.check_bool("randomize", randomize)
        self._seed_stream(seed)
        self.table_mb = _util.check_int("table_mb", table_mb, min=_solve.MIN_TABLE_MB,
                                        max=_solve.MAX_TABLE_MB)
        # the answer is exact whatever the count: more threads change only the time
        self.threads = min(2, _parallel.cores()) if threads is None else \
            _parallel.check_threads(_util.check_int("threads", threads, min=1,
                                                    max=_solve.MAX_THREADS))
        self._book_arg = book
        if book is None:
            self.book = shipped_book()
        elif book is False:
            self.book = None
        elif isinstance(book, Book):
            self.book = book
        elif isinstance(book, (str, os.PathLike)):
            self.book = load(os.fspath(book))
        else:
            raise ValueError(f"book must be a path, a connect4_book.Book, None (the shipped "
                             f"book) or False (none), got {type(book).__name__}")
        self.name = "perfect"
        self.last_stats = {}

    def column_scores(self, board):
        """``{column: exact score}`` (22 - k scale) of every legal column."""
        from ttt_engine.connect4 import solver as connect4_solve
        require_moves(self, board)
        _util.check_board(board, _Board, "the Connect Four perfect engine")
        t0 = time.perf_counter()
        scores = self.book.column_scores(board) if self.book is not None else None
        source = "book"
        if scores is None:
            scores = connect4_solve.analyse(board, table_mb=self.table_mb, keep_table=True,
                                            threads=self.threads)
            source = "solver"
        self.last_stats = {"source": source, "exact": True,
                           "time": time.perf_counter() - t0}
        return scores

    def move_scores(self, board):
        """``{column: score}``: a win in p plies ``WIN_SCORE - p``, a loss
        ``-(WIN_SCORE - p)``, a draw 0 (the scale of the exact engines)."""
        from ttt_engine.search import WIN_SCORE
        scores = self.column_scores(board)
        ply = board.ply
        return {c: 0.0 if s == 0 else
                float(np.copysign(WIN_SCORE - scores_to_plies(ply, s), s))
                for c, s in scores.items()}

    def optimal_columns(self, board):
        """The columns of the best score (sorted): from the book while the
        board's children are in it, else by the solver, which needs only the
        position's score (the book's when it holds the board) and one
        null-window test a column the book does not answer, not every
        column's exact score.  The position's score is then
        ``last_stats["score"]``."""
        t0 = time.perf_counter()
        best, ties = self._book_ties(board)
        if ties is not None:
            source = "book"
        else:
            best, ties = self._solved_columns(board)
            source = "solver"
        self.last_stats = {"source": source, "exact": True, "score": best,
                           "time": time.perf_counter() - t0}
        return ties

    def _book_ties(self, board):
        """The board checked, then ``(best score, sorted best columns)`` from
        the book when it holds every child, else ``(None, None)``."""
        require_moves(self, board)
        _util.check_board(board, _Board, "the Connect Four perfect engine")
        scores = self.book.column_scores(board) if self.book is not None else None
        if scores is None:
            return None, None
        best = max(scores.values())
        return best, [c for c in sorted(scores) if scores[c] == best]

    def _book_facts(self, board):
        """What the book says of a board it does not answer whole: its score
        (or None), ``{column: score}`` of the children it holds, and a lower
        bound on the score when the score is unknown (the best held child,
        minus the best parent's score), or None."""
        book = self.book
        if book is None:
            return None, {}, None
        score = book.score(board)
        held = {c: v for c, v in book.known_column_scores(board).items() if v is not None}
        lower = None
        if score is None:
            bounds = list(held.values()) + [book.parent_bound(board)]
            lower = max((v for v in bounds if v is not None), default=None)
        return score, held, lower

    def _solved_columns(self, board):
        """``(score, best columns)`` by the solver, helped by what the book
        holds: the position's score, and the children it holds (a partly
        made level), whose columns need no test and whose best bounds the
        score from below, as its parents' scores do."""
        from ttt_engine.connect4 import solver as connect4_solve
        score, held, lower = self._book_facts(board)
        rest = [c for c in board.legal_moves if c not in held]
        # the table is kept from move to move: a game's next position is
        # mostly in it (a game from 6 discs: 5.9 s of CPU against 12.2 s)
        score, ties = connect4_solve.optimal_moves(
            board, score=score, lower_bound=lower, columns=rest if held else None,
            table_mb=self.table_mb, keep_table=True, threads=self.threads)
        if held:
            ties = sorted(ties + [c for c, v in held.items() if v == score])
        return score, ties

    def solved_move(self, board, order, time_limit=None):
        """``(score, column)``: the first column of ``order`` that keeps the
        board's exact score, by the solver helped by the book as in
        :meth:`optimal_columns`, testing the columns one at a time and
        stopping at the first that keeps it (the others are not proven:
        about 0.74x the CPU of finding every best column, over 20 slow
        positions).  ``time_limit`` (for measuring): ``(None, None)`` when
        it runs out."""
        from ttt_engine.connect4 import solver as connect4_solve
        deadline = None if time_limit is None else time.perf_counter() + time_limit

        def left():
            return None if deadline is None else max(deadline - time.perf_counter(), 1e-3)
        score, held, lower = self._book_facts(board)
        opts = dict(table_mb=self.table_mb, keep_table=True, threads=self.threads)
        if score is None:
            score, _ = connect4_solve.optimal_moves(board, lower_bound=lower, columns=[],
                                                    time_limit=left(), **opts)
            if score is None:
                return None, None
        legal = set(board.legal_moves)
        for c in order:
            if c not in legal:
                continue
            if c in held:
                if held[c] == score:
                    return score, c
                continue
            _, keeps = connect4_solve.optimal_moves(board, score=score, columns=[c],
                                                    time_limit=left(), **opts)
            if keeps is None:
                return None, None
            if keeps:
                return score, c
        raise ValueError(f"no column keeps the score {score}: the book is wrong")

    def select_move(self, board):
        """The first best column of a random order (fixed by the seed; the
        leftmost with ``randomize=False``): uniform over the best columns,
        and only the chosen one is proven best; where the book keeps the
        solver's best column, that one."""
        t0 = time.perf_counter()
        best, ties = self._book_ties(board)
        kept = self.book.best_column(board) if ties is None and self.book is not None else None
        if ties is not None:
            move = self._rng.choice(ties) if self.randomize and len(ties) > 1 else ties[0]
            source = "book"
        elif kept is not None:
            # proving another best column could take seconds
            best, move = self.book.score(board), kept
            source = "book"
        else:
            order = sorted(board.legal_moves)
            if self.randomize:
                self._rng.shuffle(order)
            best, move = self.solved_move(board, order)
            source = "solver"
        self.last_stats = {"source": source, "exact": True, "score": best,
                           "time": time.perf_counter() - t0}
        return move

    def analyse(self, board):
        """Every column's exact result (the analysis protocol, docs/agents.md):
        the score in [-1, 1] (a quicker win a little higher), the exact score
        as the value, the verdict in plies and its label on the board."""
        from ttt_engine.analysis import Analysis
        t0 = time.perf_counter()
        rows = self._column_rows(board)
        return Analysis.of(board, rows, engine=self.name,
                           stats={"exact": True, "time": time.perf_counter() - t0})

    def _column_rows(self, board):
        scores = self.column_scores(board)
        ply = board.ply
        rows = {}
        for c, s in scores.items():         # each column's line: the column (no search below)
            plies = scores_to_plies(ply, s)
            if s == 0:
                rows[c] = {"score": 0.0, "value": 0.0, "verdict": "draw", "label": "=",
                           "pv": [c]}
            else:
                word = "win" if s > 0 else "loss"
                rows[c] = {"score": float(np.copysign(1.0 - min(plies, 99) * 1e-4, s)),
                           "value": float(s), "verdict": f"{word} in {plies}",
                           "label": f"{word[0].upper()}{plies}", "pv": [c]}
        return rows

    def reset(self, seed=None):
        """Forget the last move's statistics; with ``seed``, restart the random stream."""
        self.last_stats = {}
        super().reset(seed)

    def _config(self):
        book = self._book_arg if self._book_arg is None or self._book_arg is False or \
            not isinstance(self._book_arg, Book) else self._book_arg.path
        return {"randomize": self.randomize, "seed": self.seed, "book": book,
                "table_mb": self.table_mb, "threads": self.threads}

    def __repr__(self):
        return f"PerfectAgent(randomize={self.randomize}, book={self.book!r})"


# ---------------------------------------------------------------------------- making a book
