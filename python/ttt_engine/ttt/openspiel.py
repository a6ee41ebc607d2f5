"""Tic-Tac-Toe in OpenSpiel (``tic_tac_toe``): the facts :mod:`ttt_engine.openspiel` asks.

The same rules.  OpenSpiel's actions are the cells 0-8 row by row, our move
numbers; player 0 is ``x``, our X, who moves first.
"""
import json

from ttt_engine.ttt import Board

NAME = "tic_tac_toe"
DIFFERENCES = "the same rules; actions are the cells 0-8 row by row, as our moves"
_MARK = {"X": "x", "O": "o", ".": "."}


def parameters(options):
    """OpenSpiel's game parameters for a board with our ``options`` (none)."""
    return {}


def options(params):
    """Our board options for OpenSpiel's ``params`` (none)."""
    return {}


def move_actions(board, move):
    """The OpenSpiel actions of ``move``: the cell."""
    return (int(move),)


def action_move(board, actions):
    """The move that ``actions`` make on ``board`` (None: more actions needed)."""
    return int(actions[0])


def _player(board):
    return "Terminal" if board.is_terminal() else _MARK[board.to_move]


def state_of(game, board):
    """OpenSpiel's state of ``board``'s position (no history), from its state struct."""
    cells = [_MARK[ch] for ch in board.to_string()]
    return game.new_initial_state(json.dumps({"board": cells, "current_player": _player(board)}))


def board_of(state, opts):
    """Our board of ``state``'s position, from its state struct."""
    cells = json.loads(state.to_json())["board"]
    return Board.from_string("".join({"x": "X", "o": "O"}.get(c, ".") for c in cells))
