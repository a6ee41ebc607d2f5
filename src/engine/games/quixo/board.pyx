# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Quixo board for Python (the bitboard core is in ``quixo.pxd``).

Public import path: ``ttt_engine.quixo.Board`` (``ttt_engine.quixo`` is the
Python module that wires this class, the tournaments and the CLI together).

Coordinates: columns ``a``.. from the left, rows ``1``.. from the TOP (row 1
is the first row of the 25-character string).  A move is written
``<cell><side>``: the cube taken, then the end of its row/column it is pushed
back in from: ``T`` top, ``B`` bottom, ``L`` left, ``R`` right.  ``"a1R"``
takes the top-left corner and pushes it back in at the right end of row 1;
``"c5T"`` takes the bottom-middle cube and inserts it at the top of column c.
Integer move codes are ``cell * 4 + side`` with cell ``r * n + c`` and side
0..3 = T, B, L, R.
"""
from libc.stdint cimport uint32_t
from ttt_engine._core.games.quixo.rules cimport (
    QuixoState, quixo_init_tables, quixo_reset, quixo_is_legal, quixo_hash, quixo_key,
    quixo_compute_status, qx_index, QX_MAX_MOVES, QX_DEFAULT_MAX_PLIES,
)
import operator

from ttt_engine._core.games.board cimport Board as GameBoard
from ttt_engine._core.games.board import read_marks as _read_marks
from ttt_engine._util import board_arguments as _board_arguments, check_int as _check_int

quixo_init_tables()

SIDES = "TBLR"
DEFAULT_MAX_PLIES = QX_DEFAULT_MAX_PLIES
MAX_MOVES = QX_MAX_MOVES
_WINNERS = (None, "X", "O", "draw")
_SKIP_CHARS = frozenset("|/\n\t\r,")


def _check_size(size):
    return _check_int("size", size, min=3, max=5)


def _check_max_plies(max_plies):
    return _check_int("max_plies", max_plies, min=1, max=1_000_000_000)


def _move_code(move):
    """``move`` as an int move code (not a bool: True is no move 1)."""
    if not isinstance(move, bool):
        try:
            return operator.index(move)
        except TypeError:
            pass
    raise ValueError(f"move must be a string like 'a1R' or an int code, got {move!r}")


def move_to_str(move, int size=5):
    """Notation of move code ``move`` on a ``size`` board, e.g. ``"a1R"``."""
    n = _check_size(size)
    move = _move_code(move)
    if not 0 <= move < 100 or qx_index[n][move] < 0:
        raise ValueError(f"{move} is not a Quixo move code on a {n}x{n} board")
    cell, side = divmod(move, 4)
    r, c = divmod(cell, n)
    return f"{'abcde'[c]}{r + 1}{SIDES[side]}"


def parse_move(text, int size=5):
    """Move code of notation ``text`` (``"a1R"``, case-insensitive) on a ``size``
    board; also accepts an int code.  ``ValueError`` if it is no Quixo move
    shape (legality in a position is checked by ``Board.push``)."""
    n = _check_size(size)
    if not isinstance(text, str):
        m = _move_code(text)
        if not 0 <= m < 100 or qx_index[n][m] < 0:
            raise ValueError(f"{m} is not a Quixo move code on a {n}x{n} board")
        return m
    t = text.strip()
    if len(t) != 3:
        raise ValueError(f"bad move {text!r}: write <column><row><side>, e.g. 'a1R' "
                         "(side T/B/L/R = where the cube is pushed back in)")
    col = "abcde".find(t[0].lower())
    row = "12345".find(t[1])
    side = SIDES.find(t[2].upper())
    if not (0 <= col < n) or not (0 <= row < n) or side < 0:
        raise ValueError(f"bad move {text!r} on a {n}x{n} board: columns a-{'abcde'[n - 1]}, "
                         f"rows 1-{n} (1 = top), sides T/B/L/R")
    if not (row == 0 or col == 0 or row == n - 1 or col == n - 1):
        raise ValueError(f"bad move {text!r}: only cubes on the outer ring can be taken")
    m = (row * n + col) * 4 + side
    if qx_index[n][m] < 0:
        raise ValueError(f"bad move {text!r}: a cube cannot be pushed back in from its own edge")
    return m


def _unreachable(cells, n, to_move):
    """Why the cells (0 blank, 1 X, 2 O, row order) with ``to_move`` to play
    cannot arise from the empty board, or "" when they can.  A cube never
    changes symbol once turned, so counts only grow; X moves first and the
    players alternate; the cube a move turns ends on the border."""
    counts = {1: cells.count(1), 2: cells.count(2)}
    if not counts[1] and not counts[2]:
        return "O cannot be to move on the empty board (X moves first)" if to_move == "O" else ""
    last, last_v = ("O", 2) if to_move == "X" else ("X", 1)
    if not counts[last_v]:
        return f"{to_move} to move means {last} has just moved, but there is no {last} cube"
    if to_move == "X" and not counts[1]:
        return "X to move means X has moved before, but there is no X cube"
    if to_move == "O" and not counts[2] and counts[1] != 1:
        return (f"O to move with no O cube means X has made one move, but there are "
                f"{counts[1]} X cubes")
    border = [i for i in range(n * n) if i // n in (0, n - 1) or i % n in (0, n - 1)]
    if not any(cells[i] == last_v for i in border):
        return f"{last} has just moved, so one of its cubes must be on the border"
    return ""


include "board_ops.pxi"


cdef class Board(GameBoard):
    """A Quixo position with move history.

    ``Board(size=5, max_plies=200)``: empty n x n board, X to move.  After
    ``max_plies`` moves without a line the game is a draw (``winner ==
    "draw"``), which keeps games between weak players finite.

    >>> b = Board()
    >>> b.push("a1R")
    >>> b.to_string()[:5]
    '    X'
    """

    TITLE = "Quixo"
    PLAYOUTS = _PLAYOUTS

    def __cinit__(self, *args, **kwargs):
        quixo_reset(&self.state, 5, QX_DEFAULT_MAX_PLIES)
        bind_board(self, &self.state)

    def __init__(self, *args, **kwargs):
        o = _board_arguments("quixo.Board", args, kwargs,
                             {"size": 5, "max_plies": QX_DEFAULT_MAX_PLIES})
        quixo_reset(&self.state, _check_size(o["size"]), _check_max_plies(o["max_plies"]))

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_string(cls, text, to_move="X", max_plies=QX_DEFAULT_MAX_PLIES):
        """Board from the text format: ``n*n`` characters in row order (9, 16 or
        25), ``' '`` blank, ``'X'``, ``'O'`` (``'.'``/``'-'``/``'_'`` also blank;
        ``|``, ``/``, newlines ignored).  The string does not say whose turn it
        is: ``to_move`` (default ``"X"``) does.  The ply counter starts at 0.
        A position no game reaches is refused with the reason, as in the other
        games (``"X" * 25``: X to move means O has just moved, but there is no O cube).
        """
        if not isinstance(text, str):
            raise ValueError(f"expected a string of 9, 16 or 25 cells, got {type(text).__name__}")
        tm = check_side(to_move)
        cells = _read_marks(text, " .-_", _SKIP_CHARS, "use ' ' (blank), 'X' and 'O'")
        sizes = {9: 3, 16: 4, 25: 5}
        if len(cells) not in sizes:
            raise ValueError(f"expected 9, 16 or 25 cells, got {len(cells)} in {text!r}")
        n = sizes[len(cells)]
        why = _unreachable(cells, n, "XO"[tm])
        if why:
            raise ValueError(f"{text!r} is not reachable by legal play: {why}")
        cdef Board b = cls(n, max_plies)
        cdef uint32_t xb = 0, ob = 0
        for i, v in enumerate(cells):
            if v == 1:
                xb |= (<uint32_t>1) << i
            elif v == 2:
                ob |= (<uint32_t>1) << i
        b.state.bb[0] = xb
        b.state.bb[1] = ob
        b.state.to_move = tm
        st = quixo_compute_status(xb, ob, n, tm ^ 1)
        b.state.status = st
        return b

    # ------------------------------------------------------------------ moves
    # ------------------------------------------------------------------ actions
    @property
    def num_actions(self):
        """Size of the action space: size * size * 4, the move codes (r * size + c) * 4 + side."""
        return self.state.n * self.state.n * 4

    def _exhaustive_limit(self):
        """Only 3x3 boards are searched to the end; 4x4 ones are answered from
        the retrograde solution (``quixo.solution``, the game's exact values)
        and 5x5 ones are not solved."""
        if self.state.n == 5:
            return "5x5 Quixo cannot be solved exhaustively"
        if self.state.n == 4:
            return ("4x4 Quixo cannot be searched exhaustively (its exact values come from "
                    "the retrograde solution: ttt_engine.quixo.solution(4))")
        return None

    def _illegal(self, int m):
        return (f"cannot play {move_to_str(m, self.state.n)}: that cube shows "
                f"{'XO'[self.state.to_move ^ 1]}, the opponent's symbol")

    def _key(self):
        return (quixo_key(&self.state), self.state.status)

    @property
    def observation_shape(self):
        """``(2, size, size)``: the side to move's cubes, then the opponent's (docs/envs.md)."""
        return (2, self.state.n, self.state.n)

    def legal_moves_str(self):
        """Legal moves in notation, same order as ``legal_moves``."""
        return [move_to_str(m, self.state.n) for m in self.legal_moves]

    def parse_move(self, text):
        """Move code for notation ``text`` on this board's size."""
        return parse_move(text, self.state.n)

    def move_to_str(self, move):
        """Notation for move code ``move`` on this board's size."""
        return move_to_str(move, self.state.n)

    def perft(self, depth):
        """Leaf count of the move tree to ``depth`` plies: ``quixo.perft(board,
        depth)``, the one perft of every game, reached through the game registry
        (a game does not import the algorithms built on it).  Ctrl-C stops it."""
        from ttt_engine._registry import of_board   # not at import: it loads the game's module
        return of_board(self).module.perft(self, depth)

    # ------------------------------------------------------------------ state
    @property
    def size(self):
        """Board side n (3, 4 or 5)."""
        return self.state.n

    @property
    def max_plies(self):
        """Move cap: a game reaching this many plies without a line is a draw."""
        return self.state.max_plies

    @property
    def ply(self):
        """Moves made so far."""
        return self.state.ply

    @property
    def bitboards(self):
        """``(x_mask, o_mask)``: bit ``r * n + c`` set where the cube shows X / O
        (the same name as Clobber's ``Board.bitboards``)."""
        return (self.state.bb[0], self.state.bb[1])

    @property
    def masks(self):
        """Old name of :attr:`bitboards`."""
        return (self.state.bb[0], self.state.bb[1])

    @property
    def cells(self):
        """Tuple of n*n values in row order: 0 blank, 1 X, 2 O."""
        cdef int i
        return tuple(1 if (self.state.bb[0] >> i) & 1 else 2 if (self.state.bb[1] >> i) & 1 else 0
                     for i in range(self.state.n * self.state.n))


    def hash64(self):
        """The 64-bit ``game_hash`` the searches key their tables by: cubes, side
        to move, size and the plies left before the move cap."""
        return quixo_hash(&self.state)

    def to_string(self):
        """The text format: n*n characters ``' '``, ``'X'``, ``'O'`` in row order."""
        return "".join(" XO"[v] for v in self.cells)

    # ------------------------------------------------------------ common face
    def hash(self):
        """Position hash, equal for equal positions (``==``: cubes, side to move
        and size; ``hash64`` also mixes in the plies left before the move cap)."""
        return quixo_key(&self.state)

    def __str__(self):
        n = self.state.n
        cols = " ".join("abcde"[:n])
        cells = self.cells
        lines = [f"   {cols}"]
        for r in range(n):
            row = " ".join(".XO"[v] for v in cells[r * n:(r + 1) * n])
            lines.append(f"{r + 1:>2} {row} {r + 1}")
        lines.append(f"   {cols}")
        return "\n".join(lines)

    def __repr__(self):
        return (f"Board.from_string({self.to_string()!r}, to_move={self.to_move!r})"
                f"  # ply {self.state.ply}, winner {self.winner}")
def check_side(side):
    """0 for ``"X"``/0, 1 for ``"O"``/1; ``ValueError`` otherwise."""
    if side in ("X", "x", 0):
        return 0
    if side in ("O", "o", 1):
        return 1
    raise ValueError(f"side must be 'X' or 'O', got {side!r}")
