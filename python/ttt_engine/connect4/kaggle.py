"""Connect Four in Kaggle's ConnectX (``kaggle_environments.make("connectx")``), the
game's own Kaggle environment (the ``kaggle`` extra; :mod:`ttt_engine.kaggle` plays
it, and exports :func:`connectx_agent`, :func:`connectx_board` and :data:`STANDARD`).

>>> from ttt_engine.connect4 import kaggle
>>> agent = kaggle.connectx_agent("perfect")
>>> agent({"board": [0] * 42, "mark": 1}, {"columns": 7, "rows": 6, "inarow": 4})
3

:func:`connectx_agent` returns ``agent(observation, configuration) -> column`` for
``kaggle_environments.make("connectx")``: ``observation.board`` is the 42 cells row
by row from the top (0 empty, 1 the first player, 2 the second), ``observation.mark``
the side to move.  Each move is searched in a worker thread and given
``actTimeout`` minus :data:`ttt_engine.kaggle.MARGIN` seconds (an engine on a time budget gets
``time=`` within that); a move not ready by then is replaced by a quick legal
column (a win, else a block, else the most central), so the agent never times out
or plays an illegal column.  Only the standard board (7 columns, 6 rows, four in a
row) is played; another configuration, a malformed board, a finished game or a mark
that does not match the discs is one line ``connectx agent: error: ...`` on stderr
(Kaggle's log of the agent) and a legal column whenever one exists: the agent never
raises mid-episode.
"""
from __future__ import annotations

from ttt_engine.connect4 import Board
from ttt_engine.kaggle import MARGIN, _build, _get, _log, _Mover, _seconds

__all__ = ["connectx_agent", "connectx_board", "agent", "ENVIRONMENT", "CONFIGURATION",
           "STANDARD", "EXPORTS"]

#: the environment's name, and its configuration for a match
ENVIRONMENT = "connectx"
CONFIGURATION = {}
#: ConnectX's standard configuration, the only one played
STANDARD = {"columns": 7, "rows": 6, "inarow": 4}
#: the names :mod:`ttt_engine.kaggle` exports from here
EXPORTS = ("connectx_agent", "connectx_board", "STANDARD")


def _fours(grid, r, c, ch):
    """Would ``ch`` at (r, c) of ``grid`` (rows of text) make four in a row?"""
    for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
        n = 1
        for sign in (1, -1):
            rr, cc = r + sign * dr, c + sign * dc
            while 0 <= rr < 6 and 0 <= cc < 7 and grid[rr][cc] == ch:
                n += 1
                rr, cc = rr + sign * dr, cc + sign * dc
        if n >= 4:
            return True
    return False


def _quick_column(board):
    """A legal column at once: a win, else a block of the opponent's win, else the most
    central."""
    cols = sorted(board.legal_moves, key=lambda c: abs(c - 3))
    grid = board.to_string().split("/")             # rows from the top
    me = board.to_move
    for ch in (me, "O" if me == "X" else "X"):
        for c in cols:
            r = max(r for r in range(6) if grid[r][c] == ".")
            if _fours(grid, r, c, ch):
                return c
    return cols[0]


def _open_columns(cells, columns=7):
    """Columns whose top cell is empty (from a flat row-major list, row 0 the top)."""
    return [c for c in range(columns) if c < len(cells) and cells[c] == 0]


def _central(columns):
    return min(columns, key=lambda c: abs(c - 3)) if columns else 0


def connectx_board(observation, configuration=None):
    """Our Connect Four board of a ConnectX observation; ``ValueError`` saying what is
    wrong with it (a size other than 7x6 with four in a row, a malformed board, a
    finished game, a mark that does not match the discs)."""
    if configuration is not None:
        conf = {k: _get(configuration, k, v) for k, v in STANDARD.items()}
        if conf != STANDARD:
            raise ValueError(f"ConnectX {conf['columns']}x{conf['rows']} with {conf['inarow']} "
                             "in a row: only the standard 7x6, four in a row, is played")
    cells = _get(observation, "board")
    if not isinstance(cells, (list, tuple)) or len(cells) != 42:
        raise ValueError(f"observation.board must be a list of 42 cells, got "
                         f"{type(cells).__name__}{'' if not hasattr(cells, '__len__') else f' of {len(cells)}'}")
    if any(isinstance(v, bool) or v not in (0, 1, 2) for v in cells):
        raise ValueError("observation.board cells must be 0, 1 or 2")
    for c in range(7):
        column = [cells[r * 7 + c] for r in range(6)]
        top = next((r for r, v in enumerate(column) if v), 6)
        if any(v == 0 for v in column[top:]):
            raise ValueError(f"observation.board: column {c + 1} has a disc above an empty cell")
    x, o = cells.count(1), cells.count(2)
    if x - o not in (0, 1):
        raise ValueError(f"observation.board has {x} discs of mark 1 and {o} of mark 2")
    text = "/".join("".join(".XO"[cells[r * 7 + c]] for c in range(7)) for r in range(6))
    try:
        board = Board.from_string(text)
    except ValueError as e:
        raise ValueError(f"observation.board is not a Connect Four position: {e}") from None
    if board.is_terminal():
        raise ValueError(f"the game is over ({board.winner if board.winner == 'draw' else board.winner + ' won'}): "
                         "there is no move to make")
    mark = _get(observation, "mark")
    expected = 1 if x == o else 2
    if mark != expected:
        raise ValueError(f"observation.mark is {mark!r} but the discs ({x} of mark 1, {o} of "
                         f"mark 2) say mark {expected} is to move")
    return board


def connectx_agent(engine="perfect", *, margin=MARGIN, **budget):
    """A ConnectX agent ``agent(observation, configuration) -> column`` playing our
    Connect Four engine ``engine`` (a name of ``games.get("connect4").engines``; an
    unknown one is a ``ValueError`` listing them) with ``budget`` (``time=``,
    ``simulations=``, ``depth=``, ``seed=`` as :meth:`ttt_engine.games.Game.make_agent` takes them).
    See the module docstring.  The agent's ``stats`` holds its move times and late
    moves (its ``times`` are the move times too, as an arena agent's)."""
    if not (isinstance(margin, (int, float)) and 0 <= margin < 60):
        raise ValueError(f"margin must be seconds in [0, 60), got {margin!r}")
    agent = _build("connect4", engine, budget)
    mover = _Mover(agent)
    who = "connectx agent"

    def act(observation, configuration):
        try:
            board = connectx_board(observation, configuration)
        except (ValueError, TypeError, AttributeError) as e:
            _log(who, e)
            cells = _get(observation, "board")
            open_cols = _open_columns(cells if isinstance(cells, (list, tuple)) else [])
            return _central(open_cols)
        try:
            seconds = _seconds(observation, configuration, margin)
            move = mover.move(board, seconds)
            if move is None:
                move = _quick_column(board)
                _log(who, f"the {engine} move was not ready within {seconds:.2f} s: played "
                          f"column {move + 1}")
            elif move not in board.legal_moves:
                _log(who, f"the {engine} engine chose column {move!r}, not legal: played "
                          "another")
                move = _quick_column(board)
            return int(move)
        except Exception as e:          # noqa: BLE001 - an agent must not crash mid-episode
            _log(who, f"{type(e).__name__}: {e}")
            return _quick_column(board)

    act.stats = mover
    act.times = mover.times
    act.engine = agent
    return act


#: what the generic module asks of the game's own environment
agent = connectx_agent
