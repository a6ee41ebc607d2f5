"""Ultimate Tic-Tac-Toe in OpenSpiel (``ultimate_tic_tac_toe``): the facts
:mod:`ttt_engine.openspiel` asks.

The same rules as ours with ``tiebreak=False`` (the default): a game whose local
boards are all decided without a line of them is a draw.  OpenSpiel has no
tiebreak (ours, ``tiebreak=True``, gives such a game to the player with more
local boards), so a tiebreak board is refused.  A move is one action when the
board to play in is forced (the cell 0-8 of that local board, row by row) and
two at a free choice: the local board 0-8, then the cell.  Our move is ``9 * R
+ C`` on the 9x9 grid.

OpenSpiel makes its states only by playing from the start, so a position of ours
without a history from the start is reached by a move order found backwards
(:func:`move_order`).
"""
from ttt_engine.uttt import Board
from ttt_engine.uttt.geometry import CELLS as _CELLS, LINES as _LINES

NAME = "ultimate_tic_tac_toe"
#: the Kaggle Game Arena's environment of the game
ARENA = "open_spiel_ultimate_tic_tac_toe"
DIFFERENCES = ("the same rules with tiebreak=False (OpenSpiel has no tiebreak: a game with "
               "no line of local boards is a draw); a free move is two actions (the local "
               "board, then the cell), a forced one the cell")
#: positions a move-order search visits at most
ORDER_NODES = 5_000


def parameters(options):
    """OpenSpiel's game parameters for a board with our ``options``: none, and no tiebreak."""
    if options.get("tiebreak"):
        raise ValueError("OpenSpiel's ultimate_tic_tac_toe has no tiebreak (a game without a "
                         "line of local boards is a draw): only tiebreak=False boards convert")
    return {}


def options(params):
    """Our board options for OpenSpiel's ``params``: ``tiebreak=False``."""
    return {"tiebreak": False}


def _split(move):
    r, c = divmod(int(move), 9)
    return (r // 3) * 3 + c // 3, (r % 3) * 3 + c % 3


def move_actions(board, move):
    """The OpenSpiel actions of ``move``: (local board, cell) at a free choice, else (cell,)."""
    b, k = _split(move)
    return (k,) if board.forced_board is not None else (b, k)


def action_move(board, actions):
    """The move that ``actions`` make on ``board`` (None: the local board is chosen,
    the cell not yet)."""
    if board.forced_board is not None:
        return _CELLS[board.forced_board][int(actions[0])]
    if len(actions) < 2:
        return None
    return _CELLS[int(actions[0])][int(actions[1])]


def _winner(marks):
    for a, b, c in _LINES:
        if marks[a] and marks[a] == marks[b] == marks[c]:
            return marks[a]
    return 0


def _closed(cells, b):
    local = [cells[m] for m in _CELLS[b]]
    return bool(_winner(local)) or all(local)


def _over(cells):
    won = [_winner([cells[m] for m in _CELLS[b]]) for b in range(9)]
    return bool(_winner(won)) or all(_closed(cells, b) for b in range(9))


def _feasible(cells, f):
    """A necessary condition on a position reached with ``f`` forced ("end": the game
    over): every mark whose cell sends to a local board still open was followed by a move
    in that board (but the last), so such a board holds at least as many marks as send
    to it, less one for the last move."""
    sent = [0] * 9
    held = [0] * 9
    for m in range(81):
        if cells[m]:
            b, k = _split(m)
            sent[k] += 1
            held[b] += 1
    for b in range(9):
        last = 1 if f == "end" or f == b else 0
        if sent[b] - last > held[b] and not _closed(cells, b):
            return False
    return True


def move_order(board, max_nodes=ORDER_NODES):
    """Moves from the start that reach ``board``'s position (its marks and the local board
    its side to move must play in), found backwards: the last mover's mark whose cell sends
    the side to move where it must play, whose local board was open before it, and the game
    not over before it; depth first.  ``ValueError`` when no order is found within
    ``max_nodes`` positions."""
    cells = list(board.cells)
    forced = None if board.is_terminal() else board.forced_board
    if board.is_terminal():
        forced = "end"                      # the last move may send anywhere
    failed = set()
    nodes = [0]

    def back(f, mover):
        if not any(cells):
            return [] if f is None else None
        key = (tuple(cells), f)
        if key in failed or not _feasible(cells, f):
            return None
        nodes[0] += 1
        if nodes[0] > max_nodes:
            raise ValueError(f"no move order reaching this Ultimate Tic-Tac-Toe position found "
                             f"within {max_nodes:,} positions")
        for m in range(81):
            if cells[m] != mover:
                continue
            b, k = _split(m)
            if f != "end":
                sent_closed = _closed(cells, k)
                if (f is None) != sent_closed or (f is not None and f != k):
                    continue
            cells[m] = 0
            if not _closed(cells, b) and not _over(cells):
                for before in (b, None):
                    order = back(before, 3 - mover)
                    if order is not None:
                        cells[m] = mover
                        return order + [m]
            cells[m] = mover
        failed.add(key)
        return None

    x, o = cells.count(1), cells.count(2)
    order = back(forced, 1 if x > o else 2) if x + o else []
    if order is None:
        raise ValueError("no move order from the start reaches this Ultimate Tic-Tac-Toe "
                         "position")
    return order


def state_of(game, board):
    """OpenSpiel's state of ``board``'s position, played from the start along
    :func:`move_order`."""
    state, b = game.new_initial_state(), Board()
    for m in move_order(board):
        for a in move_actions(b, m):
            state.apply_action(a)
        b.push(m)
    return state


#: OpenSpiel's states of this game always hold their history from the start
board_of = None
