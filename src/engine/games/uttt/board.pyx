# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Ultimate Tic-Tac-Toe (the fast core is in ``uttt.pxd``).

Rules (the standard ones, which are the default here)
-----------------------------------------------------
* The 9x9 grid is nine local 3x3 boards arranged in a 3x3 big board.  X moves
  first and may play in any cell.
* A move in cell (r, c) of a local board (r, c in 0..2 inside that board)
  sends the opponent to the local board at position (r, c) of the big board:
  the opponent's next mark must go there.
* If that local board is closed (won or full), the opponent may instead play
  in any empty cell of any open local board.
* A local board is won by three marks in a row (row, column or diagonal) and is
  then closed: nobody plays there again.  A full local board without a line is
  closed and counts for nobody.
* Three local boards won by the same player in a line of the big board win the
  game.  If every local board is closed without such a line, the game is a draw.

Variant (``tiebreak=True``): a game that ends with every local board closed and
no big-board line goes to whoever won more local boards (still a draw if
equal).  It only changes the result of such games, never the moves.

Moves are numbered ``9*R + C`` (0..80) on the 9x9 grid, R the row and C the
column (0..8), and can be written as the string ``"R, C"`` (``Board.parse_move``).
``Board.winner`` is ``None`` while the game is on, else ``"X"``, ``"O"`` or
``"draw"``.

>>> b = Board()
>>> b.push("4, 4")          # centre of the centre board: O must play in board 4
>>> b.forced_board
4
>>> len(b.legal_moves)
8
"""
import operator

from ttt_engine._core.games.uttt.rules cimport (
    UTTTState, uttt_init_tables, uttt_reset, uttt_make, uttt_unmake,
    uttt_legal_moves, uttt_empty, uttt_hash, uttt_closure_result,
    uttt_move_board, uttt_move_cell, uttt_bc_move, UTTT_FULL,
)
from ttt_engine._core.games.board cimport Board as GameBoard

#: Exhaustive searches (``solve``, ``alphabeta`` without a limit, the ``perfect``
#: engines) take endgames of at most this many empty cells in the open local
#: boards: alpha-beta proves those in well under a second (docs/strength.md).
EXHAUSTIVE_CELLS = 22
from ttt_engine._core.games.board import read_index as _read_index
from ttt_engine._core.games.board import read_marks as _read_marks
from ttt_engine._util import board_arguments as _board_arguments, check_bool as _check_bool
from ttt_engine._core.games.ttt.rules cimport ttt_win_table

uttt_init_tables()

include "board_ops.pxi"

N_CELLS = 81
_SYMBOLS = ".XO"
_EMPTY_CHARS = frozenset(".-_0")
_SKIP_CHARS = frozenset("|/\n\t\r, +")


def _parse_move(move):
    """``move`` as an int 0..80: an int, an ``(R, C)`` pair, or a string ``"R, C"``."""
    if isinstance(move, str):
        text = move.strip()
        parts = text.replace(",", " ").split()
        if len(parts) != 2:
            raise ValueError(
                f"cannot parse move {move!r}: write it as 'R, C' with the row R and "
                "the column C, each 0-8 (e.g. '4, 5')")
        try:
            r, c = int(parts[0]), int(parts[1])
        except ValueError:
            raise ValueError(
                f"cannot parse move {move!r}: R and C must be integers 0-8 (e.g. '4, 5')"
            ) from None
        if not (0 <= r <= 8 and 0 <= c <= 8):
            raise ValueError(f"move {move!r} is off the grid: R and C must be 0-8")
        return 9 * r + c
    if isinstance(move, tuple):
        if len(move) != 2:
            raise ValueError(f"a move as a tuple must be (R, C), got {move!r}")
        try:
            r, c = operator.index(move[0]), operator.index(move[1])
        except TypeError:
            raise ValueError(f"move {move!r}: R and C must be integers 0-8") from None
        if not (0 <= r <= 8 and 0 <= c <= 8):
            raise ValueError(f"move {move!r} is off the grid: R and C must be 0-8")
        return 9 * r + c
    if isinstance(move, bool):
        raise ValueError(f"move must be an integer 0-80 or 'R, C', got {move!r}")
    return _read_index(move, 81, "move must be an integer 0-80 or 'R, C', got {value!r}",
                       "move {} is out of range: moves are 0-80 (9*R + C)")


def _board_rows_cols(b):
    r0, c0 = (b // 3) * 3, (b % 3) * 3
    return f"rows {r0}-{r0 + 2}, columns {c0}-{c0 + 2}"


def local_boards_text(local_winners):
    """The closed local boards in one line, e.g. ``local boards: X won 0,4;
    drawn 8`` (``local_winners``: nine entries "X", "O", "draw" or None, as
    :attr:`Board.local_winners`); None while every local board is open."""
    parts = []
    for who in ("X", "O", "draw"):
        bs = [str(b) for b in range(9) if local_winners[b] == who]
        if bs:
            parts.append(("drawn" if who == "draw" else f"{who} won") + " " + ",".join(bs))
    return "local boards: " + "; ".join(parts) if parts else None


cdef class Board(GameBoard):
    """An Ultimate Tic-Tac-Toe position with move history.

    ``Board(tiebreak=False)``: the start position; ``tiebreak=True`` selects the
    variant where a drawn game goes to whoever won more local boards.

    >>> b = Board()
    >>> b.push("0, 0"); b.push(Board.parse_move("1, 1"))
    >>> b.to_move, b.forced_board, b.moves
    ('X', 4, [0, 10])
    """

    TITLE = "Ultimate Tic-Tac-Toe"
    PLAYOUTS = _PLAYOUTS

    def __cinit__(self, *args, **kwargs):
        uttt_reset(&self.state, 0)
        bind_board(self, &self.state)

    def __init__(self, *args, **kwargs):
        tiebreak = _board_arguments("uttt.Board", args, kwargs, {"tiebreak": False})["tiebreak"]
        uttt_reset(&self.state, 1 if _check_bool("tiebreak", tiebreak) else 0)

    # ------------------------------------------------------------------ moves
    @staticmethod
    def parse_move(move):
        """Move number ``9*R + C`` from ``"R, C"`` (also ``"R C"``, an ``(R, C)``
        tuple or an int 0..80); ``ValueError`` with the reason otherwise.

        >>> Board.parse_move("4, 5")
        41
        """
        return _parse_move(move)

    @staticmethod
    def format_move(move):
        """``"R, C"`` for a move number 0..80."""
        m = _parse_move(move)
        return f"{m // 9}, {m % 9}"

    def _exhaustive_limit(self):
        """Ultimate Tic-Tac-Toe is searched to the end only in endgames: with at
        most ``EXHAUSTIVE_CELLS`` empty cells in its open local boards (see
        ``exhaustive_limit``)."""
        cdef int b, n = 0
        for b in range(9):
            if not (self.state.closed >> b) & 1:
                n += bin(uttt_empty(&self.state, b)).count("1")
        if n <= EXHAUSTIVE_CELLS:
            return None
        return (f"Ultimate Tic-Tac-Toe cannot be solved exhaustively with {n} empty cells in "
                f"its open local boards (an endgame of at most {EXHAUSTIVE_CELLS} can)")

    def _illegal(self, int m):
        cdef int b = uttt_move_board[m], c = uttt_move_cell[m]
        where = f"{m // 9}, {m % 9}"
        if not (uttt_empty(&self.state, b) >> c) & 1:
            who = "X" if (self.state.local[0][b] >> c) & 1 else "O"
            return f"cannot play {where}: the cell is occupied by {who}"
        if (self.state.closed >> b) & 1:
            return f"cannot play {where}: local board {b} is closed ({self._local_result(b)})"
        f = self.state.forced
        return (f"cannot play {where}: {self.to_move} must play in local board "
                f"{f} ({_board_rows_cols(f)})")

    def _key(self):
        return (self.to_string(), self.tiebreak)

    # ------------------------------------------------------------------ actions
    @property
    def observation_shape(self):
        """``(3, 9, 9)``: own marks, the opponent's, the legal cells (docs/envs.md)."""
        return (3, 9, 9)

    @property
    def num_actions(self):
        """Size of the action space: 81, one action per grid cell 9*R + C."""
        return 81

    # ------------------------------------------------------------------ state
    @property
    def forced_board(self):
        """Local board (0..8, row by row) the side to move must play in, or
        ``None`` when it may play in any open board (or the game is over)."""
        if self.state.status or self.state.forced < 0:
            return None
        return self.state.forced

    @property
    def tiebreak(self):
        """True for the variant where a drawn game goes to the player with more local boards."""
        return bool(self.state.tiebreak)

    def _local_result(self, int b):
        if (self.state.won[0] >> b) & 1:
            return "won by X"
        if (self.state.won[1] >> b) & 1:
            return "won by O"
        if (self.state.closed >> b) & 1:
            return "full, drawn"
        return "open"

    @property
    def local_winners(self):
        """Tuple of 9 local-board results: ``None`` (open), ``"X"``, ``"O"`` or
        ``"draw"`` (full without a line)."""
        out = []
        for b in range(9):
            if (self.state.won[0] >> b) & 1:
                out.append("X")
            elif (self.state.won[1] >> b) & 1:
                out.append("O")
            elif (self.state.closed >> b) & 1:
                out.append("draw")
            else:
                out.append(None)
        return tuple(out)

    @property
    def cells(self):
        """Tuple of 81 values in grid order (index ``9*R + C``): 0 empty, 1 X, 2 O."""
        out = []
        for m in range(81):
            b, c = uttt_move_board[m], uttt_move_cell[m]
            out.append(1 if (self.state.local[0][b] >> c) & 1
                       else 2 if (self.state.local[1][b] >> c) & 1 else 0)
        return tuple(out)

    @property
    def ply(self):
        """Number of marks on the grid."""
        return self.state.nmoves


    # ------------------------------------------------------------------ strings
    def to_string(self):
        """81 cells in grid order (``X``, ``O``, ``.``), then ``:`` and the forced
        board (``0``-``8``) or ``*`` (free); round-trips through ``from_string``."""
        f = "*" if self.forced_board is None else str(self.forced_board)
        return "".join(_SYMBOLS[v] for v in self.cells) + ":" + f

    @classmethod
    def from_string(cls, text, tiebreak=False):
        """Board from ``to_string()`` output: 81 cells row by row (``X``, ``O``,
        ``.``/``-``/``_`` empty; spaces, ``|``, ``/``, ``+``, commas and newlines
        ignored), optionally followed by ``:f`` with the local board ``f`` (0-8) the
        side to move must play in, or ``:*`` for a free choice (the default).

        The side to move follows from the counts (X moves first).  The position
        is checked for consistency (counts, no local board or big board with lines
        for both players, marks only in boards that were open, a last move that
        sends the player to the given board); the move order is not reconstructed.
        """
        if not isinstance(text, str):
            raise ValueError(f"expected a string of 81 cells, got {type(text).__name__}")
        _check_bool("tiebreak", tiebreak)
        body, sep, suffix = text.partition(":")
        forced = -1
        if sep:
            suffix = suffix.strip()
            if suffix == "*" or suffix == "":
                forced = -1
            elif len(suffix) == 1 and suffix in "012345678":
                forced = int(suffix)
            else:
                raise ValueError(f"forced board after ':' must be 0-8 or '*', got {suffix!r}")
        cells = _read_marks(body, _EMPTY_CHARS, _SKIP_CHARS, "use X, O and . (empty)")
        if len(cells) != 81:
            raise ValueError(f"expected 81 cells, got {len(cells)}")
        cdef Board bd = cls(tiebreak=tiebreak)
        cdef UTTTState* s = &bd.state
        cdef int m, b, c, p, nx = 0, no = 0
        for m in range(81):
            b, c = uttt_move_board[m], uttt_move_cell[m]
            if cells[m] == 1:
                s.local[0][b] |= 1 << c
                nx += 1
            elif cells[m] == 2:
                s.local[1][b] |= 1 << c
                no += 1
        if nx != no and nx != no + 1:
            raise ValueError(f"{nx} X and {no} O marks: X moves first and players alternate")
        s.nmoves = nx + no
        s.to_move = 0 if nx == no else 1
        for b in range(9):
            xw, ow = ttt_win_table[s.local[0][b]], ttt_win_table[s.local[1][b]]
            if xw and ow:
                raise ValueError(f"local board {b} has lines for both X and O")
            if xw:
                s.won[0] |= 1 << b
            if ow:
                s.won[1] |= 1 << b
            if xw or ow or (s.local[0][b] | s.local[1][b]) == UTTT_FULL:
                s.closed |= 1 << b
        if ttt_win_table[s.won[0]] and ttt_win_table[s.won[1]]:
            raise ValueError("both X and O have a line of local boards")
        if ttt_win_table[s.won[0]]:
            s.status = 1
        elif ttt_win_table[s.won[1]]:
            s.status = 2
        elif s.closed == UTTT_FULL:
            s.status = uttt_closure_result(s)
        s.forced = forced
        if s.status and forced >= 0:
            raise ValueError("the game is over: there is no forced board (use ':*')")
        if (ttt_win_table[s.won[0]] or ttt_win_table[s.won[1]]) and s.status != (s.to_move ^ 1) + 1:
            # a line of local boards is made by the last move (a tiebreak count is not)
            last = "XO"[s.to_move ^ 1]
            raise ValueError(f"the winner must have moved last, but {last} moved last")
        if forced >= 0 and (s.closed >> forced) & 1:
            raise ValueError(f"forced board {forced} is closed: the player may play anywhere (':*')")
        if s.nmoves and not _has_last_move(s, forced):
            where = "a closed board" if forced < 0 else f"board {forced}"
            raise ValueError(f"no mark of the last mover could have sent the player to {where}")
        if s.nmoves == 0 and forced >= 0:
            raise ValueError("on the empty grid X may play anywhere (':*')")
        return bd

    # ------------------------------------------------------------ common face
    def move_to_str(self, move):
        """``"R, C"`` for a move number 0..80, as :meth:`parse_move` reads it."""
        m = _parse_move(move)
        return f"{m // 9}, {m % 9}"

    def __str__(self):
        """The 9x9 grid with row/column labels 0-8, local boards framed, and a status line."""
        cells = self.cells
        forced = self.forced_board
        sep = "  +-------+-------+-------+"
        lines = ["    0 1 2   3 4 5   6 7 8", sep]
        for r in range(9):
            row = [f"{r} |"]
            for c in range(9):
                v = cells[9 * r + c]
                b = (r // 3) * 3 + c // 3
                if v:
                    ch = "XO"[v - 1]
                elif forced is not None and b == forced:
                    ch = "*"          # legal cells of the forced board
                else:
                    ch = "."
                row.append(" " + ch)
                if c % 3 == 2:
                    row.append(" |")
            lines.append("".join(row))
            if r % 3 == 2:
                lines.append(sep)
        closed = local_boards_text(self.local_winners)
        if closed:
            lines.append(closed)
        if self.state.status:
            lines.append("game over: " + ("draw" if self.winner == "draw" else f"{self.winner} wins"))
        elif forced is not None:
            lines.append(f"{self.to_move} to move in board {forced} ({_board_rows_cols(forced)}, "
                         "cells marked *)")
        else:
            lines.append(f"{self.to_move} to move in any open board")
        return "\n".join(lines)

    def __repr__(self):
        return f"uttt.Board.from_string({self.to_string()!r})"


cdef bint _has_last_move(UTTTState* s, int forced):
    """Some mark of the player who moved last could have been the last move: its
    local board is open without it, and it sends the opponent to ``forced``."""
    cdef int p = s.to_move ^ 1, b, c, lm, om
    cdef int closed_wo
    for b in range(9):
        for c in range(9):
            if not (s.local[p][b] >> c) & 1:
                continue
            lm = s.local[p][b] & ~(1 << c)
            om = s.local[p ^ 1][b]
            if ttt_win_table[lm] or ttt_win_table[om] or (lm | om) == UTTT_FULL:
                continue            # board b was already closed: this mark can't be last
            closed_wo = s.closed
            if forced >= 0:
                if c == forced:
                    return True
            elif (closed_wo >> c) & 1:
                return True
    return False


def parse_move(move):
    """Module-level alias of ``Board.parse_move``: ``parse_move("4, 5") == 41``."""
    return _parse_move(move)
