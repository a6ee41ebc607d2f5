# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Connect Four board for Python (the fast core is in ``rules.pxd``).

7 columns x 6 rows; a disc drops to the lowest empty cell of its column; four
in a row (across, up or diagonal) wins; a full board is a draw.  X moves first.

A move is a column: the int 0..6 (left to right; the same number as an
action).  Its text, the notation of the game, is the column's number ``1``..``7``
(as in move lists such as ``"4453"``); the letters ``a``..``g`` are read too.  ``Board.winner`` is ``None`` while the game is on, else ``"X"``,
``"O"`` or ``"draw"``.
"""
from ttt_engine._core.games.connect4.rules cimport (
    Connect4State, connect4_init_tables, connect4_reset, connect4_make, connect4_unmake,
    connect4_legal_moves, connect4_hash,
    connect4_set_cells, C4_COLS, C4_ROWS, C4_STRIDE,
)
from ttt_engine._core.games.board cimport Board as GameBoard
from ttt_engine._core.games.board import read_index as _read_index
from ttt_engine._util import board_arguments as _board_arguments
import operator

COLS = 7
ROWS = 6
#: Positions with at least this many discs are solved by exhaustive search.
EXHAUSTIVE_PLIES = 26

_DIGITS = "1234567"
_LETTERS = "abcdefg"
_SYMBOLS = ".XO"
_EMPTY_CHARS = frozenset(".-_")
_SKIP_CHARS = frozenset("|/, \n\t\r")
_WHY = {
    1: "a disc floats above an empty cell",
    2: "the disc counts must be equal or X one ahead (X moves first, players alternate)",
    3: "both sides have four in a row",
    4: "the side with four in a row could not have made it with its last disc",
}


def _as_column(move):
    return _read_index(move, 7, "a Connect Four move is a column: its number 1-7 as text "
                       "(or its letter a-g), or the int 0-6 of a move code, got {value!r}",
                       "column code {} is out of range: move codes are 0-6 (columns 1-7)")


include "board_ops.pxi"


cdef class Board(GameBoard):
    """A Connect Four position with move history.

    >>> b = Board()
    >>> b.push("4"); b.push(3); b.push("e")
    >>> print(b)
    . . . . . . .
    . . . . . . .
    . . . . . . .
    . . . . . . .
    . . . O . . .
    . . . X X . .
    >>> b.to_move, b.winner, b.legal_moves
    ('O', None, [0, 1, 2, 3, 4, 5, 6])
    """
    TITLE = "Connect Four"
    PLAYOUTS = _PLAYOUTS

    def __cinit__(self, *args, **kwargs):
        connect4_reset(&self.state)
        bind_board(self, &self.state)

    def __init__(self, *args, **kwargs):
        # no options (the board is 6x7): a stray argument is refused, not ignored
        _board_arguments("connect4.Board", args, kwargs, {})

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_string(cls, text):
        """Board from 6 rows of 7 cells, TOP row first: ``X``, ``O`` and ``.``
        (or ``-``, ``_``) for empty; spaces, ``|``, ``/``, commas and newlines
        are ignored, so ``to_string()`` and ``str(board)`` both read back.
        ``ValueError`` unless the position is reachable by legal play."""
        if not isinstance(text, str):
            raise ValueError(f"expected a string of 42 cells, got {type(text).__name__}")
        cdef int cells[42]
        cdef int n = 0
        for pos, ch in enumerate(text):
            if ch in _SKIP_CHARS:
                continue
            up = ch.upper()
            if up == "X":
                v = 1
            elif up == "O":
                v = 2
            elif ch in _EMPTY_CHARS:
                v = 0
            else:
                raise ValueError(f"unexpected character {ch!r} at position {pos} in {text!r}: "
                                 "use X, O and . (empty), 6 rows of 7, top row first")
            if n == 42:
                raise ValueError(f"expected 42 cells (6 rows of 7), got more in {text!r}")
            cells[n] = v
            n += 1
        if n != 42:
            raise ValueError(f"expected 42 cells (6 rows of 7), got {n} in {text!r}")
        cdef Board b = cls()
        cdef int why = connect4_set_cells(&b.state, cells)
        if why:
            raise ValueError(f"{text!r} is not reachable by legal play: {_WHY[why]}")
        return b

    # ------------------------------------------------------------------ moves
    def _exhaustive_limit(self):
        """Positions before :data:`EXHAUSTIVE_PLIES` discs are beyond the
        exhaustive search here (``connect4.solve`` takes a limit)."""
        if self.ply < EXHAUSTIVE_PLIES:
            return (f"Connect Four with {42 - self.ply} empty cells is beyond the exhaustive "
                    f"search here (it takes {EXHAUSTIVE_PLIES} discs or more)")
        return None

    def _illegal(self, int c):
        return f"cannot play column {_DIGITS[c]}: it is full"

    def _move_phrase(self, int c):
        return f"column {_DIGITS[c]}"

    def parse_move(self, move):
        """The column code 0..6 that ``move`` names: its number ``"1"``..``"7"``
        as text (the notation), its letter ``"a"``..``"g"`` (either case), or the
        int code itself; ``ValueError`` naming the syntax otherwise (legality is
        checked by ``push``)."""
        if isinstance(move, str):
            t = move.strip().lower()
            if len(t) == 1 and t in _DIGITS:
                return _DIGITS.index(t)
            if len(t) == 1 and t in _LETTERS:
                return _LETTERS.index(t)
            raise ValueError(f"cannot read Connect Four move {move!r}: a move is a column "
                             "number 1-7, left to right (the letters a-g are read too)")
        return _as_column(move)

    def move_to_str(self, move):
        """The number of column ``move`` (code ``3`` -> ``"4"``), as :meth:`parse_move` reads it."""
        return _DIGITS[_as_column(move)]

    def move_geometry(self, move):
        """``((row, col), None, None)``: the cell the disc of ``move`` lands on
        (row 0 the top; the top cell for a full column), for the pictures."""
        c = _as_column(move)
        return (max(C4_ROWS - 1 - self.state.height[c], 0), c), None, None

    # ------------------------------------------------------------------ actions
    @property
    def num_actions(self):
        """Size of the action space: 7, one action per column 0..6."""
        return 7

    @property
    def max_plies(self):
        """42: a game ends when the board is full, if not before."""
        return C4_ROWS * C4_COLS

    @property
    def observation_shape(self):
        """``(2, 6, 7)``: the side to move's discs, then the opponent's; row 0 the
        top row (docs/envs.md)."""
        return (2, 6, 7)

    # ------------------------------------------------------------------ state
    @property
    def ply(self):
        """Number of discs on the board."""
        return self.state.ply

    @property
    def heights(self):
        """Tuple of the 7 column heights (discs in each column)."""
        return tuple(self.state.height[c] for c in range(C4_COLS))


    def _cell(self, int r, int c):
        """0 empty, 1 X, 2 O at row ``r`` (0 the top) and column ``c``."""
        cdef int bit = c * C4_STRIDE + (C4_ROWS - 1 - r)
        if (self.state.bb[0] >> bit) & 1:
            return 1
        if (self.state.bb[1] >> bit) & 1:
            return 2
        return 0

    def to_string(self):
        """The 6 rows of 7 cells, top row first, ``/`` between rows
        (``X``, ``O``, ``.``; round-trips through ``from_string``)."""
        return "/".join("".join(_SYMBOLS[self._cell(r, c)] for c in range(C4_COLS))
                        for r in range(C4_ROWS))

    def _key(self):
        return connect4_hash(&self.state)

    def __str__(self):
        return "\n".join(" ".join(_SYMBOLS[self._cell(r, c)] for c in range(C4_COLS))
                         for r in range(C4_ROWS))

    def __repr__(self):
        return f"Board.from_string({self.to_string()!r})"
