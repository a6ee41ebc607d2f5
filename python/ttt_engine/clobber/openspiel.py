"""Clobber in OpenSpiel (``clobber``): the facts :mod:`ttt_engine.openspiel` asks.

The same rules on any size: our ``rows`` x ``cols`` board is OpenSpiel's
``rows`` x ``columns`` (our default 6x5 is ``clobber(rows=6,columns=5)``;
OpenSpiel's default, 5 rows of 6, is our ``rows=5, cols=6``).  Both start from
the checkerboard with the first player's stone on a1, the bottom-left corner:
our B is OpenSpiel's player 0 (``o``, White), who moves first; our W is its
``x``.  An action is ``(row * columns + column) * 4 + direction`` with row 0
at the top and the directions up, right, down, left.
"""
from ttt_engine.clobber import MAX_SIDE, Board, move_from_squares, move_squares

NAME = "clobber"
#: the Kaggle Game Arena's environment of the game
ARENA = "open_spiel_clobber"
DIFFERENCES = ("the same rules; our rows x cols is OpenSpiel's rows x columns (our default "
               "6x5, OpenSpiel's 5x6), and the first player (our B, OpenSpiel's o) holds a1 "
               "at the start in both")
#: (row step, column step) of OpenSpiel's directions, rows counted from the top
_STEPS = ((-1, 0), (0, 1), (1, 0), (0, -1))


def parameters(options):
    """OpenSpiel's game parameters for a board with our ``options``."""
    return {"rows": int(options["rows"]), "columns": int(options["cols"])}


def options(params):
    """Our board options for OpenSpiel's ``params`` (sides up to ours, MAX_SIDE)."""
    rows, cols = params.get("rows", 5), params.get("columns", 6)
    try:
        Board(rows=rows, cols=cols)
    except ValueError as e:
        raise ValueError(f"at most {MAX_SIDE} rows and columns ({e})") from None
    return {"rows": rows, "cols": cols}


def move_actions(board, move):
    """The OpenSpiel action of ``move`` (our rows count from a1 up, OpenSpiel's from the top)."""
    (r1, c1), (r2, c2) = move_squares(int(move))
    step = (r1 - r2, c2 - c1)
    return (((board.rows - 1 - r1) * board.cols + c1) * 4 + _STEPS.index(step),)


def action_move(board, actions):
    """The move that ``actions`` make on ``board`` (None: more actions needed)."""
    square, direction = divmod(int(actions[0]), 4)
    row, c1 = divmod(square, board.cols)
    r1 = board.rows - 1 - row
    dr, dc = _STEPS[direction]
    return move_from_squares(r1, c1, r1 - dr, c1 + dc)


def state_of(game, board):
    """OpenSpiel's state of ``board``'s position (no history): its board string, the
    player to move first, then the rows from the top."""
    rows = [line.replace(" ", "") for line in board.to_string().splitlines()][::-1]
    text = "".join(rows).replace("B", "o").replace("W", "x").replace("_", ".")
    return game.new_initial_state("01"[board.to_move == "W"] + text)


def board_of(state, opts):
    """Our board of ``state``'s position, read from its text (rows from the top)."""
    lines = str(state).splitlines()[:-1]           # the last line names the columns
    rows = [line.lstrip(" 0123456789") for line in lines][::-1]
    text = "\n".join(r.replace("o", "B").replace("x", "W").replace(".", "_") for r in rows)
    if state.is_terminal():
        to_move = "B" if state.returns()[0] < 0 else "W"      # the side that cannot move
    else:
        to_move = "BW"[state.current_player()]
    return Board.from_string(text, to_move=to_move)
