"""Connect Four: the board (7 columns x 6 rows, X moves first), perft, random
playouts and a bounded solve.

Rules: a move drops the mover's disc into a column that is not full; it lands
on the lowest empty cell.  Four of one's discs in a row -- across, up or
diagonally -- wins; a full board without one is a draw.

Moves are columns: the ints 0..6 left to right (``Board.legal_moves``, the
same numbers as the actions).  The notation, everywhere (console, web page,
records, move lists such as ``"4453"``), is the column's number 1..7
(``board.parse_move("4") == 3``, ``board.move_to_str(3) == "4"``); the letters
a..g are read too (``board.parse_move("d") == 3``).

The board is compiled (``ttt_engine._core.games.connect4.board``); this module
is its public face.  Every game module has the same verbs: see ``docs/api.md``;
the game's page is ``docs/connect4.md``.
"""
from ttt_engine import _progress, _symmetry, _verbs, engines
from ttt_engine.connect4 import solver as connect4_solve
from ttt_engine._core.games.connect4.board import COLS, EXHAUSTIVE_PLIES, ROWS, Board
from ttt_engine._verbs import SolveResult
from ttt_engine.connect4.solver import from_moves, read_columns, write_columns
from ttt_engine.connect4 import text as _text_face
from ttt_engine.games import MIDDLE_TRAINING, Engine, Game
from ttt_engine.connect4.features import VALUE_FEATURES

__all__ = ["COLS", "ROWS", "Board", "SolveResult", "perft", "random_playouts", "solve",
           "analyse", "optimal_moves", "from_moves", "EXHAUSTIVE_PLIES", "GAME", "read_columns", "write_columns"]


perft, random_playouts = _verbs.module_verbs(
    Board, "connect4", counts="7, 49, 343, 2401, 16807, 117649, 823536, ...")


def _book_of(book):
    """The book a solve verb reads: the shipped one (``True``), none (``False``) or
    the :class:`ttt_engine.connect4.book.Book` given."""
    from ttt_engine.connect4 import book as _book
    if book is True:
        return _book.shipped_book()
    if book is False or book is None:
        return None
    if isinstance(book, _book.Book):
        return book
    raise ValueError(f"book must be True (the shipped book), False or a Book, got {book!r}")


def _from_book(progress, where, score=None):
    """The report of an answer the book gave (``progress`` checked first)."""
    with _progress.reporter(progress, where) as rep:
        rep.finish(0, "from the book", score, score)


def solve(board, *, weak=False, time_limit=None, max_nodes=None,
          table_mb=connect4_solve.DEFAULT_TABLE_MB, threads=1, book=True, progress=False):
    """The exact solve of ``board``: see :func:`ttt_engine.connect4.solver.solve`.

    ``book``: a position the opening book holds (every position up to 8 discs in
    the shipped one) is answered from it at once (``nodes`` 0 when no search was
    needed for its best column); ``False`` always searches.  ``progress``: True
    shows the search on stderr, a callable receives its reports (as
    :func:`ttt_engine.connect4.solver.solve`'s)."""
    found = _book_of(book)
    if found is not None and not weak:
        import time as _time
        start = _time.perf_counter()
        connect4_solve._check(board, "connect4.solve", time_limit, max_nodes, table_mb,
                              threads)           # every argument checked first
        _progress.reporter(progress, "connect4.solve")
        score = found.score(board)
        if score is not None:
            col = found.best_column(board)
            nodes = 0
            searched = False             # the search reports for itself
            if col is None:
                scores = found.column_scores(board)
                if scores is not None:
                    col = min((c for c in scores if scores[c] == score),
                              key=connect4_solve._solve.COLUMN_ORDER.index)
                else:
                    searched = True
                    _, ties = connect4_solve.optimal_moves(board, score=score,
                                                           time_limit=time_limit,
                                                           max_nodes=max_nodes,
                                                           table_mb=table_mb, threads=threads,
                                                           progress=progress)
                    col = None if not ties else min(ties,
                                                    key=connect4_solve._solve.COLUMN_ORDER.index)
            if not searched:
                _from_book(progress, "connect4.solve", score)
            return connect4_solve.result_of(board, score, col, nodes,
                                            _time.perf_counter() - start)
        bound = found.parent_bound(board)
        if bound is not None:     # a child of a book position: a known lower bound
            return connect4_solve.solve(board, time_limit=time_limit, max_nodes=max_nodes,
                                        table_mb=table_mb, threads=threads, lower_bound=bound,
                                        progress=progress)
    return connect4_solve.solve(board, weak=weak, time_limit=time_limit, max_nodes=max_nodes,
                                table_mb=table_mb, threads=threads, progress=progress)


def analyse(board, *, time_limit=None, max_nodes=None,
            table_mb=connect4_solve.DEFAULT_TABLE_MB, threads=1, book=True, progress=False):
    """``{column: score}`` of every legal column: see
    :func:`ttt_engine.connect4.solver.analyse`.  ``book``: where the opening book
    holds every child (positions up to 7 discs with the shipped one) the scores
    come from it at once; ``False`` always searches.  ``progress``: as
    :func:`solve`'s."""
    found = _book_of(book)
    if found is not None:
        connect4_solve._check(board, "connect4.analyse", time_limit, max_nodes, table_mb,
                              threads)           # every argument checked first
        _progress.reporter(progress, "connect4.analyse")
        scores = found.column_scores(board)
        if scores is not None:
            _from_book(progress, "connect4.analyse")
            return scores
    return connect4_solve.analyse(board, time_limit=time_limit, max_nodes=max_nodes,
                                  table_mb=table_mb, threads=threads, progress=progress)


def optimal_moves(board, *, score=None, time_limit=None, max_nodes=None,
                  table_mb=connect4_solve.DEFAULT_TABLE_MB, threads=1, book=True,
                  progress=False):
    """``(score, columns)``: the exact score and every column keeping it: see
    :func:`ttt_engine.connect4.solver.optimal_moves`.  ``book``: the position's
    score (and, where it holds every child, the columns) from the opening book;
    ``False`` always searches.  ``progress``: as :func:`solve`'s."""
    found = _book_of(book)
    if found is not None and score is None:
        connect4_solve._check(board, "connect4.optimal_moves", time_limit, max_nodes, table_mb,
                              threads)           # every argument checked first
        _progress.reporter(progress, "connect4.optimal_moves")
        score = found.score(board)
        scores = found.column_scores(board) if score is not None else None
        if scores is not None:
            _from_book(progress, "connect4.optimal_moves", score)
            return score, sorted(c for c in scores if scores[c] == score)
    return connect4_solve.optimal_moves(board, score=score, time_limit=time_limit,
                                        max_nodes=max_nodes, table_mb=table_mb,
                                        threads=threads, progress=progress)


#: The table of the endgame solves of the tree searches (``endgame=``): a 28-cell
#: endgame needs well under a million positions, and a small table is cleared fast.
ENDGAME_TABLE_MB = 64
#: Their bound on a simulation budget: positions, not seconds, so that a seeded
#: search repeats (about 0.5 s; a 28-cell endgame takes 0.01-0.1 s).
ENDGAME_NODES = 4_000_000


def _endgame_cells(board):
    """The empty cells: every one can still be played."""
    return COLS * ROWS - board.ply


def _endgame_solve(board, time_limit):
    """``(value, column)`` from the opening book or the exact solver (the
    fastest win, the slowest loss, a drawing column), or None when
    ``time_limit`` seconds (None: ``ENDGAME_NODES`` positions) run out first."""
    r = solve(board, time_limit=time_limit,
              max_nodes=ENDGAME_NODES if time_limit is None else None, table_mb=ENDGAME_TABLE_MB)
    if not r.exact:
        return None
    # a position lost at once (two threats) has no slowest loss: any column
    return (r.score > 0) - (r.score < 0), (r.best_move if r.best_move is not None
                                           else board.legal_moves[0])


def _perfect(seed=None, randomize=True, book=None, threads=None):
    """Exact play from the opening book and the solver (``ttt_engine.connect4.perfect.PerfectAgent``)."""
    from ttt_engine.connect4.perfect import PerfectAgent
    return PerfectAgent(randomize=randomize, seed=seed, book=book, threads=threads)


#: The registry entry (:mod:`ttt_engine.games`): what generic code asks of Connect
#: Four.  Its text face and picture are the generic ones (from ``Board``).
GAME = Game(
    "connect4", "Connect Four", ("X", "O"), {}, __name__,
    engines.standard(
        "connect4",
        Engine("perfect", "exact play: the opening book, then the exact solver (fastest win, "
               "slowest loss; a random choice among equal columns, fixed by the seed; "
               "book=PATH, or False for none; threads=, default both cores)", _perfect,
               extra=("randomize", "book", "threads")),
        Engine("alphabeta", "alpha-beta with a table and the window heuristic (depth, "
               "default 12; time for iterative deepening)", engines.alphabeta(12),
               engines.DEPTH),
        # the exact solve first with 90% of a move's time: on the yardstick's critical
        # positions at 0.1 s it keeps the value in 99.5% (30%: 97.7% with the cells-only
        # network; docs/valuenet.md)
        network_best=True, value_search=dict(search="alphabeta", depth=8, exact_share=0.9),
        value_best=True),
    default_engine="best",
    # the exact solve once 28 cells are empty: 0.59 against the same search
    # without it over 200 games at 0.05 s a move (docs/connect4.md)
    best_mcts={"solver": True, "playout": "decisive", "endgame": 28},
    move_list=(read_columns, write_columns),
    # the board drawn with its column numbers, the notation's legend and hint
    text=_text_face.TEXT,
    yardstick_source="ttt_engine.connect4.yardstick",
    endgame_cells=_endgame_cells,
    endgame_solve=_endgame_solve,
    # seven moves a ply: a flatter root noise; half the leaf value from one
    # random playout (as for Clobber and Quixo's first runs)
    training=dict(MIDDLE_TRAINING, temperature_moves=8, dirichlet_alpha=1.0,
                  playout_weight=0.5, eval_every=900.0, time=7200.0),
    # the window heuristic's values run to a few dozen in open middlegames
    analysis_scale=30.0,
    # the preset's 2-hour self-play network with a conv network's policy distilled
    # into it (docs/alphazero.md), searched as it was trained: half the leaf value
    # from one random playout
    ships_network=True,
    network_settings={"playout_weight": 0.5},
    # the network-guided search with the same proofs and endgame solve: 115-16-69
    # (0.615) against best_mcts over 200 games at 0.1 s a move, two threads each
    # (results/connect4_distilled_best_vs_classical_seed*.jsonl; docs/alphazero.md)
    best_az={"solver": True, "parallel": "tree", "endgame": 28},
    commands="ttt_engine.connect4.commands",
    moved={"connect4_solve": "ttt_engine.connect4.solver",
           "connect4_book": "ttt_engine.connect4.book",
           "cli.connect4": "ttt_engine.connect4.commands"},
    symmetries=_symmetry.columns,
    openspiel="ttt_engine.connect4.openspiel",
    kaggle="ttt_engine.connect4.kaggle",
    value_features=VALUE_FEATURES,
)
