# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Tic-Tac-Toe board for Python (the fast core is in ``ttt.pxd``).

Cells are numbered 0..8 row by row (0 1 2 / 3 4 5 / 6 7 8).  X moves first.
``Board.winner`` is ``None`` while the game is on, else ``"X"``, ``"O"`` or
``"draw"``.
"""
from ttt_engine._core.games.ttt.rules cimport (
    TTTState, ttt_init_tables, ttt_reset, ttt_make, ttt_unmake, ttt_legal_moves,
    ttt_set_index, ttt_hash, TTT_STATES,
)
from ttt_engine._core.games.board cimport Board as GameBoard
from ttt_engine._core.games.board import read_index as _read_index
from ttt_engine._core.games.board import read_marks as _read_marks
from ttt_engine._util import board_arguments as _board_arguments
import operator

ttt_init_tables()

N_CELLS = 9
N_STATES = TTT_STATES

_SYMBOLS = ".XO"
_WINNERS = (None, "X", "O", "draw")
_EMPTY_CHARS = frozenset(".-_ 0")
_SKIP_CHARS = frozenset("|/\n\t\r,")


def _as_cell(cell):
    return _read_index(cell, 9, "cell must be an integer 0-8, got {value!r}",
                       "cell {} is out of range: cells are numbered 0-8")


include "board_ops.pxi"


cdef class Board(GameBoard):
    """A Tic-Tac-Toe position with move history.

    >>> b = Board()
    >>> b.push(4); b.push(0)
    >>> print(b)
    O . .
    . X .
    . . .
    >>> b.index, b.to_move, b.winner
    (83, 'X', None)
    """
    TITLE = "Tic-Tac-Toe"
    PLAYOUTS = _PLAYOUTS
    #: the module-level searches' table: 24 KB, as a first search in a process pays a
    #: page fault per 4 KB of table it touches (a big game's 6 MB table made the first
    #: solve 0.3-0.6 ms, of a 0.02 ms search)
    SEARCH_TT_SIZE = 1 << 10

    def __cinit__(self, *args, **kwargs):
        ttt_reset(&self.state)
        bind_board(self, &self.state)

    def __init__(self, *args, **kwargs):
        # no options: a stray argument (a position's text) is refused, not ignored
        _board_arguments("ttt.Board", args, kwargs, {})

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_index(cls, index):
        """Board for a base-3 index ``sum(cell[i] * 3**i)`` (0 empty, 1 X, 2 O).

        Raises ``ValueError`` unless the index is a position reachable by legal
        play from the empty board (X first, nobody moving after a win).
        """
        try:
            i = operator.index(index)
        except TypeError:
            raise ValueError(f"index must be an integer, got {index!r}") from None
        cdef Board b = cls()
        if not 0 <= i < TTT_STATES:
            raise ValueError(f"index {i} is out of range: indices are 0..{TTT_STATES - 1}")
        if not ttt_set_index(&b.state, i):
            raise ValueError(f"index {i} is not a reachable Tic-Tac-Toe position")
        return b

    @classmethod
    def from_string(cls, text):
        """Board from nine cells in row order: ``X``, ``O`` and ``.`` (or ``-``, ``_``,
        space) for empty; ``|``, ``/``, commas and newlines are ignored,
        e.g. ``"X.O......"`` or ``"X.O/.../..."``.
        """
        if not isinstance(text, str):
            raise ValueError(f"expected a string of 9 cells, got {type(text).__name__}")
        cells = _read_marks(text, _EMPTY_CHARS, _SKIP_CHARS, "use X, O and . (empty)")
        if len(cells) != 9:
            raise ValueError(f"expected 9 cells, got {len(cells)} in {text!r}")
        index = sum(v * 3 ** i for i, v in enumerate(cells))
        cdef Board b = cls()
        if not ttt_set_index(&b.state, index):
            raise ValueError(f"{text!r} is not reachable by legal play "
                             "(X moves first, players alternate, nobody moves after a win)")
        return b

    # ------------------------------------------------------------------ moves
    def _illegal(self, int c):
        who = "X" if (self.state.mask[0] >> c) & 1 else "O"
        return f"cannot play cell {c}: it is occupied by {who}"

    def _move_phrase(self, int c):
        return f"cell {c}"

    def parse_move(self, move):
        """The cell 0..8 that ``move`` names: a cell number as text (``"4"``) or
        an int; ``ValueError`` naming the syntax otherwise."""
        if isinstance(move, str):
            t = move.strip()
            if not (len(t) == 1 and t.isdigit() and t != "9"):
                raise ValueError(f"cannot read Tic-Tac-Toe move {move!r}: a move is a cell "
                                 "number 0-8, row by row")
            return int(t)
        return _as_cell(move)

    def _read_move(self, move):
        return _as_cell(move)

    def move_to_str(self, move):
        """The text of cell ``move`` (``"4"``), as :meth:`parse_move` reads it."""
        return str(_as_cell(move))

    # ------------------------------------------------------------------ actions
    @property
    def num_actions(self):
        """Size of the action space: 9, one action per cell 0..8."""
        return 9

    @property
    def observation_shape(self):
        """``(2, 3, 3)``: the side to move's marks, then the opponent's (docs/envs.md)."""
        return (2, 3, 3)

    # ------------------------------------------------------------------ state
    @property
    def index(self):
        """Base-3 index ``sum(cell[i] * 3**i)``: the Q-table row of this position."""
        return self.state.index

    @property
    def cells(self):
        """Tuple of 9 cell values: 0 empty, 1 X, 2 O."""
        return tuple(1 if (self.state.mask[0] >> i) & 1 else 2 if (self.state.mask[1] >> i) & 1 else 0
                     for i in range(9))

    @property
    def ply(self):
        """Number of marks on the board."""
        return self.state.nmoves


    def to_string(self):
        """The nine cells as ``X``, ``O`` and ``.`` (round-trips through ``from_string``)."""
        return "".join(_SYMBOLS[v] for v in self.cells)

    def _key(self):
        return self.state.index

    def __str__(self):
        s = self.to_string()
        return "\n".join(" ".join(s[r * 3:r * 3 + 3]) for r in range(3))

    def __repr__(self):
        return f"Board.from_string({self.to_string()!r})"
