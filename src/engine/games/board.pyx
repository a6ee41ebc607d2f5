# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The Python face every game's ``Board`` shares (see board.pxd).

Each game keeps only what is its own: reading and writing moves
(``parse_move``/``move_to_str``), its text and drawing, its options and
properties, its equality key, and the message for an illegal move.
"""
from cpython.mem cimport PyMem_Realloc, PyMem_Free
from libc.string cimport memcpy
from libc.stdint cimport int8_t, uint8_t
cimport numpy as cnp
import hashlib
import operator

import numpy as np

from ttt_engine._core.core.common cimport MAX_MOVES, undo_t
from ttt_engine._util import game_over

cnp.import_array()


cdef class Board:
    """What every game's board does (the game's own class documents its moves).

    Subclasses set ``TITLE`` (the game's name) and ``PLAYERS`` (the two side
    names, first mover first) and define ``parse_move``, ``move_to_str``, ``num_actions``,
    ``observation_shape``, ``_key`` and ``_illegal``.
    """
    TITLE = None
    PLAYERS = ("X", "O")
    PLAYOUTS = ("random",)     # MCTS playout policies that apply (see the game's own)
    #: entries of the transposition table of the module-level depth-first searches
    #: (``ttt_engine.search.alphabeta``, ``solve``, ...) on this game's boards; None:
    #: the search's default (``ttt_engine.search.DEFAULT_TT_SIZE``)
    SEARCH_TT_SIZE = None

    def __dealloc__(self):
        PyMem_Free(self._hist_moves)
        PyMem_Free(self._hist_undos)

    # ------------------------------------------------------------ history
    cdef int _record(self, int move, undo_t undo) except -1:
        cdef Py_ssize_t cap
        cdef void* m
        cdef void* u
        if self._nhist == self._hist_cap:
            cap = 16 if self._hist_cap == 0 else 2 * self._hist_cap
            m = PyMem_Realloc(self._hist_moves, cap * sizeof(int))
            if m == NULL:
                raise MemoryError()
            self._hist_moves = <int*>m
            u = PyMem_Realloc(self._hist_undos, cap * sizeof(undo_t))
            if u == NULL:
                raise MemoryError()
            self._hist_undos = <undo_t*>u
            self._hist_cap = cap
        self._hist_moves[self._nhist] = move
        self._hist_undos[self._nhist] = undo
        self._nhist += 1
        return 0

    cdef int _push_move(self, int move) except -1:
        """Play a legal ``move`` and record it."""
        return self._record(move, self._ops.make(self._state, move))

    cdef bint _is_legal(self, int move) noexcept:
        cdef int moves[MAX_MOVES]
        cdef int i, n = self._ops.legal_moves(self._state, moves)
        for i in range(n):
            if moves[i] == move:
                return True
        return False

    cdef void _clear_history(self) noexcept:
        self._nhist = 0

    # ------------------------------------------------------------ moves
    def push(self, move):
        """Play ``move`` (any form ``parse_move`` reads) for the side to move;
        ``ValueError`` saying why if it is not legal here."""
        cdef int m
        if type(move) is int and 0 <= move < MAX_MOVES and self._is_legal(move):
            self._push_move(move)       # the common case, without a Python-level parse
            return
        m = self._read_move(move)
        if not self._is_legal(m):
            if self._ops.status(self._state):
                raise ValueError(f"cannot play {self._move_phrase(m)}: the game is over "
                                 f"({game_over(self.winner)})")
            raise ValueError(self._illegal(m))
        self._push_move(m)

    @classmethod
    def from_moves(cls, text, **options):
        """A new board (with the game's board ``options``) after the moves of ``text``,
        the game's move-list notation (``Game.read_moves``): Connect Four the columns
        1-7 (``"4453"``), the others their move texts separated by spaces (``"4,4 3,3"``
        Ultimate Tic-Tac-Toe, ``"5 1 9"`` Tic-Tac-Toe, ``"a1-a2 b2-b1"`` Clobber);
        ``ValueError`` naming the first bad move."""
        from ttt_engine import _registry
        return _registry.of_board(cls()).from_moves(text, **options)

    def pop(self):
        """Undo the last pushed move and return it (``IndexError`` if none)."""
        if self._nhist == 0:
            raise IndexError("pop from a board with no pushed moves")
        self._nhist -= 1
        m = self._hist_moves[self._nhist]
        self._ops.unmake(self._state, m, self._hist_undos[self._nhist])
        return m

    def _read_move(self, move):
        """The move number ``move`` names (syntax only; legality is checked by ``push``)."""
        return self.parse_move(move)

    def _move_phrase(self, int move):
        """``move`` as the error messages name it."""
        return self.move_to_str(move)

    @property
    def legal_moves(self):
        """Legal moves in ascending order; empty once the game is over."""
        cdef int moves[MAX_MOVES]
        cdef int n = self._ops.legal_moves(self._state, moves)
        return sorted([moves[i] for i in range(n)])

    @property
    def moves(self):
        """Moves pushed on this board so far, oldest first."""
        return [self._hist_moves[i] for i in range(self._nhist)]

    # ------------------------------------------------------------ state
    @property
    def to_move(self):
        """The side to move: ``PLAYERS[0]`` (who moves first) or ``PLAYERS[1]``."""
        return self.PLAYERS[self._ops.to_move(self._state)]

    @property
    def winner(self):
        """``None`` while the game is on, else a side's name or ``"draw"``."""
        cdef int st = self._ops.status(self._state)
        if st == 0:
            return None
        if st == 3:
            return "draw"
        return self.PLAYERS[st - 1]

    def is_terminal(self):
        """True once the game is over."""
        return self._ops.status(self._state) != 0

    @property
    def draw_truncates(self):
        """True if this game's draws cut a game short (a move cap: truncated in
        RL terms) rather than finish it."""
        return self._ops.draw_truncates

    def hash(self):
        """The engine's 64-bit position key (what the searches key their tables by)."""
        return self._ops.hash(self._state)

    def exhaustive_limit(self):
        """Why an exhaustive search of this position would not finish here (a
        sentence), or None when it does: always for a finished game, else the
        game's ``_exhaustive_limit()`` (None by default: every position of the
        game searches to the end).  ``ttt_engine.solve``, ``move_values`` and the
        ``perfect`` engines refuse a position with a reason."""
        return None if self.is_terminal() else self._exhaustive_limit()

    def _exhaustive_limit(self):
        return None

    def evaluate(self):
        """The game's static heuristic, from the side to move (what depth-limited
        searches score leaves with)."""
        return self._ops.evaluate(self._state, 0)

    @property
    def rows(self):
        """Rows of cells on the board: the height of the observation planes
        ``(k, rows, cols)``."""
        return self.observation_shape[1]

    @property
    def cols(self):
        """Columns of cells on the board: the width of the observation planes."""
        return self.observation_shape[2]

    def grid(self):
        """The board as rows of side names (``""`` for an empty cell), read from
        the observation planes: what generic drawings of a new game use."""
        obs = self.observation()
        me = self._ops.to_move(self._state)
        names = (self.PLAYERS[me], self.PLAYERS[me ^ 1])
        rows, cols = self.rows, self.cols
        return [[names[0] if obs[0, r, c] else names[1] if obs[1, r, c] else ""
                 for c in range(cols)] for r in range(rows)]

    # ------------------------------------------------------------ actions
    def action_mask(self):
        """numpy ``bool [num_actions]``: True for the legal actions (none once the game is over)."""
        cdef cnp.ndarray out = np.empty(self.num_actions, dtype=np.bool_)
        self._ops.write_action_mask(self._state, <uint8_t*>cnp.PyArray_DATA(out))
        return out

    def observation(self):
        """numpy ``int8 [*observation_shape]`` planes from the side to move's view
        (see docs/envs.md)."""
        cdef cnp.ndarray out = np.empty(self.observation_shape, dtype=np.int8)
        self._ops.write_observation(self._state, <int8_t*>cnp.PyArray_DATA(out))
        return out

    def move_to_action(self, move):
        """The action number of ``move`` (any form ``push`` accepts)."""
        return self._ops.move_to_action(self._state, self._read_move(move))

    def action_to_move(self, action):
        """The move of action number ``action`` (``ValueError`` outside ``0..num_actions-1``)."""
        n = self.num_actions
        try:
            if isinstance(action, bool):      # True is no action 1
                raise TypeError
            a = operator.index(action)
        except TypeError:
            raise ValueError(f"action must be an integer in 0..{n - 1}, got {action!r}") from None
        if not 0 <= a < n:
            raise ValueError(f"action {a} is out of range: actions are 0..{n - 1}")
        return self._ops.action_to_move(self._state, a)

    # ------------------------------------------------------------ objects
    def copy(self):
        """An independent copy (history included)."""
        cdef Board b = type(self).__new__(type(self))
        b._copy_from(self)
        return b

    def _copy_from(self, Board other):
        memcpy(self._state, other._state, self._ops.state_size)
        self._nhist = 0
        for i in range(other._nhist):
            self._record(other._hist_moves[i], other._hist_undos[i])

    def __eq__(self, other):
        if type(other) is not type(self):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __reduce__(self):
        # the state struct as bytes plus the history: exact, and written once;
        # a digest of both, because a damaged state struct would be read as
        # it is (an impossible board, or a crash in the rules' loops)
        state = (<char*>self._state)[:self._ops.state_size]
        moves = self.moves
        undos = [self._hist_undos[i] for i in range(self._nhist)]
        return (_rebuild, (type(self), state, moves, undos, _digest(state, moves, undos)))

    def _repr_svg_(self):
        """An SVG picture of the board (shown by notebooks)."""
        from ttt_engine._svg import board_svg
        return board_svg(self)


def _digest(state, moves, undos):
    return hashlib.blake2b(repr((state, moves, undos)).encode(), digest_size=16).digest()


def _rebuild(cls, bytes state, moves, undos, digest=None):
    cdef Board b = cls.__new__(cls)
    if (len(state) != b._ops.state_size or len(moves) != len(undos)
            or digest != _digest(state, moves, undos)):
        raise ValueError(f"not a pickled {getattr(cls, 'TITLE', cls.__name__)} board of this "
                         "build, or a damaged one")
    memcpy(b._state, <char*>state, b._ops.state_size)
    for m, u in zip(moves, undos):
        b._record(m, u)
    return b


def read_marks(text, empty, skip, hint):
    """The cells of a board written as text, in order: 0 empty, 1 for ``X``, 2 for
    ``O`` (either case); characters in ``skip`` are ignored, those in ``empty``
    are empty cells, anything else is a ``ValueError`` naming the character, its
    position and ``hint`` (how to write a board)."""
    cells = []
    for pos, ch in enumerate(text):
        if ch in skip:
            continue
        up = ch.upper()
        if up == "X":
            cells.append(1)
        elif up == "O":
            cells.append(2)
        elif ch in empty:
            cells.append(0)
        else:
            raise ValueError(f"unexpected character {ch!r} at position {pos} in {text!r}: {hint}")
    return cells


def read_index(value, n, bad_type, out_of_range):
    """``value`` as an int in ``0..n-1``: ``ValueError(bad_type)`` (formatted
    with ``value``) if it is no integer (a bool is none: True is not move 1),
    ``ValueError(out_of_range)`` (formatted with the int) if it is outside the range."""
    if isinstance(value, bool):
        raise ValueError(bad_type.format(value=value))
    try:
        i = operator.index(value)
    except TypeError:
        raise ValueError(bad_type.format(value=value)) from None
    if not 0 <= i < n:
        raise ValueError(out_of_range.format(i))
    return i
