"""Connect Four: the board (7 columns x 6 rows, X moves first), perft, random
playouts and a bounded solve.

Rules: a move drops the mover's disc into a column that is not full; it lands
on the lowest empty cell.  Four of one's discs in a row -- across, up or
diagonally -- wins; a full board without one is a draw.

Moves are columns: the ints 0..6 left to right (``Board.legal_moves``, the
same numbers as the actions), written and read as the letters ``a``..``g``
(``board.parse_move("d") == 3``, ``board.move_to_str(3) == "d"``).

The board is compiled (``ttt_engine._core.games.connect4.board``); this module
is its public face.  Every game module has the same verbs: see ``docs/api.md``;
the game's page is ``docs/connect4.md``.
"""
from ttt_engine import _verbs, connect4_solve, engines
from ttt_engine._core.games.connect4.board import COLS, EXHAUSTIVE_PLIES, ROWS, Board
from ttt_engine._verbs import SolveResult
from ttt_engine.connect4_solve import from_moves, read_columns, write_columns
from ttt_engine.games import MIDDLE_TRAINING, Engine, Game

__all__ = ["COLS", "ROWS", "Board", "SolveResult", "perft", "random_playouts", "solve",
           "analyse", "optimal_moves", "from_moves", "EXHAUSTIVE_PLIES", "GAME", "read_columns", "write_columns"]


perft, random_playouts = _verbs.module_verbs(
    Board, "connect4", counts="7, 49, 343, 2401, 16807, 117649, 823536, ...")


def solve(board, *, weak=False, time_limit=None, max_nodes=None,
          table_mb=connect4_solve.DEFAULT_TABLE_MB, threads=1):
    """The exact solve of ``board``: see :func:`ttt_engine.connect4_solve.solve`."""
    return connect4_solve.solve(board, weak=weak, time_limit=time_limit, max_nodes=max_nodes,
                                table_mb=table_mb, threads=threads)


def analyse(board, *, time_limit=None, max_nodes=None,
            table_mb=connect4_solve.DEFAULT_TABLE_MB, threads=1):
    """``{column: score}`` of every legal column: see :func:`ttt_engine.connect4_solve.analyse`."""
    return connect4_solve.analyse(board, time_limit=time_limit, max_nodes=max_nodes,
                                  table_mb=table_mb, threads=threads)


def optimal_moves(board, *, score=None, time_limit=None, max_nodes=None,
                  table_mb=connect4_solve.DEFAULT_TABLE_MB, threads=1):
    """``(score, columns)``: the exact score and every column keeping it: see
    :func:`ttt_engine.connect4_solve.optimal_moves`."""
    return connect4_solve.optimal_moves(board, score=score, time_limit=time_limit,
                                        max_nodes=max_nodes, table_mb=table_mb,
                                        threads=threads)


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
    """``(value, column)`` from the exact solver (the fastest win, the slowest
    loss, a drawing column), or None when ``time_limit`` seconds (None:
    ``ENDGAME_NODES`` positions) run out first."""
    r = connect4_solve.solve(board, time_limit=time_limit,
                             max_nodes=ENDGAME_NODES if time_limit is None else None,
                             table_mb=ENDGAME_TABLE_MB)
    if not r.exact:
        return None
    # a position lost at once (two threats) has no slowest loss: any column
    return (r.score > 0) - (r.score < 0), (r.best_move if r.best_move is not None
                                           else board.legal_moves[0])


def _perfect(seed=None, randomize=True, book=None, threads=None):
    """Exact play from the opening book and the solver (``connect4_book.PerfectAgent``)."""
    from ttt_engine.connect4_book import PerfectAgent
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
        network_best=True),
    default_engine="best",
    # the exact solve once 28 cells are empty: 0.59 against the same search
    # without it over 200 games at 0.05 s a move (docs/connect4.md)
    best_mcts={"solver": True, "playout": "decisive", "endgame": 28},
    move_list=(read_columns, write_columns),
    yardstick_source="ttt_engine._yardstick_connect4",
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
)
