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
from ttt_engine import _verbs, engines
from ttt_engine._core.games.connect4.board import COLS, EXHAUSTIVE_PLIES, ROWS, Board
from ttt_engine._verbs import SolveResult
from ttt_engine.games import Engine, Game

__all__ = ["COLS", "ROWS", "Board", "SolveResult", "perft", "random_playouts", "solve",
           "EXHAUSTIVE_PLIES", "GAME", "read_columns", "write_columns"]


perft, random_playouts = _verbs.module_verbs(
    Board, "connect4", counts="7, 49, 343, 2401, 16807, 117649, 823536, ...")


def solve(board, *, max_nodes=None, time_limit=None):
    """Value of ``board`` for the side to move by alpha-beta, one ply deeper per
    iteration, within ``max_nodes`` positions (checked between iterations)
    and/or ``time_limit`` seconds: one of them is required (a finished game
    excepted), since from the start the game (a first-player win) is far beyond
    this search.  Returns a :class:`SolveResult` whose ``value`` is
    ``"unknown"`` when the limit is hit first; endgames solve exactly."""
    _verbs.check_board(board, Board, "connect4.solve")
    max_nodes, time_limit = _verbs.check_limits(max_nodes, time_limit)
    if max_nodes is None and time_limit is None and not board.is_terminal():
        raise ValueError("connect4.solve needs a limit: pass max_nodes= and/or time_limit= "
                         "(the value is 'unknown' if the limit is hit)")
    return _verbs.bounded_solve(board, max_nodes, time_limit)


def read_columns(board, text):
    """The moves of ``text`` in the standard column notation (one digit 1-7 per
    disc, left to right: ``"4453"``), played from ``board``, as move numbers
    0-6; ``ValueError`` naming the first bad character or move."""
    b = board.copy()
    moves = []
    for i, ch in enumerate(text.strip(), 1):
        if ch not in "1234567":
            raise ValueError(f"character {i} ({ch!r}) is not a column 1-7")
        if b.is_terminal():
            raise ValueError(f"move {i} ({ch}): the game is already over")
        if int(ch) - 1 not in b.legal_moves:
            raise ValueError(f"move {i} ({ch}): column {ch} is full")
        b.push(int(ch) - 1)
        moves.append(int(ch) - 1)
    return moves


def write_columns(board, moves):
    """``moves`` (move numbers 0-6) as the column string ``read_columns`` reads."""
    return "".join(str(m + 1) for m in moves)


#: The registry entry (:mod:`ttt_engine.games`): what generic code asks of Connect
#: Four.  Its text face and picture are the generic ones (from ``Board``).
GAME = Game(
    "connect4", "Connect Four", ("X", "O"), {}, __name__,
    engines.standard(
        "connect4",
        Engine("alphabeta", "alpha-beta with a table and the window heuristic (depth, "
               "default 12; time for iterative deepening)", engines.alphabeta(12),
               engines.DEPTH)),
    default_engine="best",
    best_mcts={"solver": True, "playout": "decisive"},
    move_list=(read_columns, write_columns),
)
