"""Connect Four in OpenSpiel (``connect_four``): the facts :mod:`ttt_engine.openspiel` asks.

The same rules on the standard 7x6 board with four in a row (OpenSpiel's
``columns``, ``rows`` and ``x_in_row`` parameters at their defaults; another
size is refused).  Actions are the columns 0-6, our move numbers; player 0 is
``x``, our X, who moves first.
"""
import json

from ttt_engine.connect4 import COLS, ROWS, Board

NAME = "connect_four"
#: the Kaggle Game Arena's environment of the game
ARENA = "open_spiel_connect_four"
DIFFERENCES = ("the same rules on the 7x6 board, four in a row (OpenSpiel's other sizes are "
               "not ours); actions are the columns 0-6, as our moves")
_STANDARD = {"columns": COLS, "rows": ROWS, "x_in_row": 4}


def parameters(options):
    """OpenSpiel's game parameters for a board with our ``options`` (none)."""
    return {}


def options(params):
    """Our board options for OpenSpiel's ``params``: only the standard board."""
    bad = {k: v for k, v in _STANDARD.items() if params.get(k, v) != v}
    if bad:
        raise ValueError("only 7 columns, 6 rows, four in a row")
    return {}


def move_actions(board, move):
    """The OpenSpiel actions of ``move``: the column."""
    return (int(move),)


def action_move(board, actions):
    """The move that ``actions`` make on ``board`` (None: more actions needed)."""
    return int(actions[0])


def state_of(game, board):
    """OpenSpiel's state of ``board``'s position (no history), from its state struct
    (rows bottom up)."""
    rows = board.to_string().split("/")[::-1]
    mark = {"X": "x", "O": "o"}
    grid = [[mark.get(ch, ".") for ch in row] for row in rows]
    if board.is_terminal():
        player, winner = "Terminal", {"X": "x", "O": "o", "draw": "draw"}[board.winner]
    else:
        player, winner = mark[board.to_move], ""
    return game.new_initial_state(json.dumps({"board": grid, "current_player": player,
                                              "is_terminal": board.is_terminal(),
                                              "winner": winner}))


def board_of(state, opts):
    """Our board of ``state``'s position, from its state struct."""
    grid = json.loads(state.to_json())["board"]
    return Board.from_string("/".join("".join({"x": "X", "o": "O"}.get(c, ".") for c in row)
                                      for row in grid[::-1]))
