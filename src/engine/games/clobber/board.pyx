# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Clobber for Python: ``Board``, move notation, perft, heuristics and an exact solver.

The bitboard rules are in ``rules.pxd``.  Board text format:
one line per row, one cell per character, ``B``, ``W`` or ``_`` (empty);
cells may be separated by spaces (``B W B W B`` and ``BWBWB`` both read).
B moves first.

Move notation: squares are named by column letter (``a`` = leftmost) and row
number (``1`` = the top row, i.e. the first line of the board file), so the
move ``((r1, c1), (r2, c2))`` (from, to squares) is written ``f"{'abcdefgh'[c1]}{r1+1}-{'abcdefgh'[c2]}{r2+1}"``:
``a1-a2`` moves the stone in the top-left corner one row down.  As an int a
move is ``(r1 * 8 + c1) * 4 + direction`` with directions 0 down, 1 up,
2 right, 3 left (see ``rules.pxd``).  ``Board.push`` takes an int, a string
or a seed-style tuple.
"""
from libc.stdint cimport uint64_t, uint8_t, uint32_t
from ttt_engine._core.games.clobber.rules cimport (
    ClobberState, clobber_setup, clobber_full_mask, clobber_centre_mask,
    clobber_compute_status, clobber_legal_moves, clobber_make, clobber_unmake,
    clobber_is_legal, clobber_hash, clobber_evaluate, clobber_heuristic,
    clobber_count_moves, clobber_adaptive_kind, clobber_pairs_any,
    CLOBBER_MAX_MOVES, CLOBBER_POPCOUNT, CLOBBER_CTZ, CLOBBER_NOT_COL0, CLOBBER_NOT_COL7,
    CLOBBER_H_PERSPECTIVE_SHIFT, clobber_offset,
)
import io
import operator

from ttt_engine._core.games.board cimport Board as GameBoard
from ttt_engine._util import board_arguments as _board_arguments, check_int as _check_int
import os
import sys
import time

MAX_SIDE = 8
#: Most stones on a board the exhaustive search takes (measured from the
#: start: 4x4, 16 stones, 0.5 s; 3x6, 18 stones, 3.5 s; 4x5, 20, 49 s).
EXHAUSTIVE_STONES = 16
PLAYERS = ("B", "W")
_FILES = "abcdefgh"
DIRECTIONS = ((1, 0), (-1, 0), (0, 1), (0, -1))   # move generation order: down, up, right, left

#: Heuristic names -> kind ids (``rules.pxd``); ``B1``..``W3`` are aliases (heuristic 1-3 owned by B or W).
HEURISTICS = {
    "adaptive": 0,
    "pieces": 1, "mobility": 2, "own_moves": 3,
    "safe": 4, "neg_opp_moves": 5, "centre": 6,
}
SEED_HEURISTICS = {
    "B1": "pieces", "B2": "mobility", "B3": "own_moves",
    "W1": "safe", "W2": "neg_opp_moves", "W3": "centre",
}
_KIND_NAMES = {v: k for k, v in HEURISTICS.items()}


def heuristic_id(name="adaptive", perspective=None):
    """The ``game_evaluate`` id of a heuristic.

    ``name``: one of ``HEURISTICS`` (``"adaptive"``, ``"pieces"``, ``"mobility"``,
    ``"own_moves"``, ``"safe"``, ``"neg_opp_moves"``, ``"centre"``), an alias
    ``"B1"``..``"W3"``, or an int id (returned unchanged after a range check).
    ``perspective``: ``None`` for "the side to move owns the heuristic", or
    ``"B"`` / ``"W"`` for a fixed root player P: the value is then
    ``h_P(s)`` when P is to move and ``-h_P(s)`` otherwise, so negamax over it
    is exactly minimax from P's point of view.
    """
    if isinstance(name, int) and not isinstance(name, bool):
        if not 0 <= name < 64 or (name & 15) >= 7:
            raise ValueError(f"heuristic id {name} is out of range")
        return name
    if not isinstance(name, str):
        raise ValueError(f"heuristic must be a name or an int id, got {name!r}")
    key = SEED_HEURISTICS.get(name.upper(), name.lower())
    if key not in HEURISTICS:
        raise ValueError(f"unknown heuristic {name!r}: use one of "
                         f"{', '.join(list(HEURISTICS) + list(SEED_HEURISTICS))}")
    kind = HEURISTICS[key]
    if perspective is None:
        return kind
    return kind | ((_player_index(perspective) + 1) << CLOBBER_H_PERSPECTIVE_SHIFT)


def _player_index(p):
    if isinstance(p, str) and p.upper() in ("B", "W"):
        return 0 if p.upper() == "B" else 1
    if p in (0, 1) and not isinstance(p, bool):
        return int(p)
    raise ValueError(f"player must be 'B' or 'W', got {p!r}")


# ---------------------------------------------------------------------- notation
def square_name(int row, int col):
    """``(row, col)`` -> ``"a1"`` style name (column letter, row number from the top)."""
    if not (0 <= row < MAX_SIDE and 0 <= col < MAX_SIDE):
        raise ValueError(f"square ({row}, {col}) is off an 8x8 board")
    return f"{_FILES[col]}{row + 1}"


def move_from_squares(int r1, int c1, int r2, int c2):
    """The move int for the squares ``((r1, c1), (r2, c2))``; ``ValueError`` unless
    the squares are orthogonal neighbours on an 8x8 grid."""
    for v, what in ((r1, "row"), (c1, "column"), (r2, "row"), (c2, "column")):
        if not 0 <= v < MAX_SIDE:
            raise ValueError(f"{what} {v} is off the board (0-7)")
    cdef int dr = r2 - r1, dc = c2 - c1
    for d, (er, ec) in enumerate(DIRECTIONS):
        if (dr, dc) == (er, ec):
            return (r1 * 8 + c1) * 4 + d
    raise ValueError(f"({r1}, {c1}) -> ({r2}, {c2}) is not a step to an orthogonal neighbour")


def move_squares(move):
    """A move int -> its squares ``((r1, c1), (r2, c2))``."""
    m = _as_move_int(move)
    frm = m >> 2
    r1, c1 = frm >> 3, frm & 7
    dr, dc = DIRECTIONS[m & 3]
    r2, c2 = r1 + dr, c1 + dc
    if not (0 <= r2 < MAX_SIDE and 0 <= c2 < MAX_SIDE):
        raise ValueError(f"move {m} steps off the board")
    return (r1, c1), (r2, c2)


def format_move(move):
    """A move int -> notation ``"b3-b4"`` (from-square, dash, to-square)."""
    (r1, c1), (r2, c2) = move_squares(move)
    return f"{square_name(r1, c1)}-{square_name(r2, c2)}"


def _parse_square(text, whole):
    if len(text) < 2 or text[0].lower() not in _FILES or not text[1:].isdigit():
        raise ValueError(f"cannot read square {text!r} in move {whole!r}: "
                         "use a column letter a-h and a row number 1-8, e.g. 'b3'")
    col = _FILES.index(text[0].lower())
    row = int(text[1:]) - 1
    if not 0 <= row < MAX_SIDE:
        raise ValueError(f"row {row + 1} in move {whole!r} is out of range 1-8")
    return row, col


def parse_move(text):
    """Notation -> move int.  Accepts ``"b3-b4"``, ``"b3xb4"``, ``"b3b4"`` and
    ``"b3 b4"`` (case-insensitive); the squares must be orthogonal neighbours."""
    if not isinstance(text, str):
        raise ValueError(f"a move in notation is a string such as 'b3-b4', got {text!r}")
    t = text.strip().lower()
    for sep in ("-", "x", " "):
        if sep in t:
            a, _, b = t.partition(sep)
            break
    else:
        # split before the second letter
        idx = next((i for i in range(1, len(t)) if t[i].isalpha()), None)
        if idx is None:
            raise ValueError(f"cannot read move {text!r}: write it like 'b3-b4'")
        a, b = t[:idx], t[idx:]
    r1, c1 = _parse_square(a.strip(), text)
    r2, c2 = _parse_square(b.strip(), text)
    try:
        return move_from_squares(r1, c1, r2, c2)
    except ValueError as e:
        raise ValueError(f"move {text!r}: {e}") from None


def _as_move_int(move):
    return _check_int("move", move, min=0, max=CLOBBER_MAX_MOVES - 1)


def _to_move_int(move):
    """int / notation string / seed tuple -> move int (not yet checked for legality)."""
    if isinstance(move, str):
        return parse_move(move)
    if isinstance(move, tuple) and len(move) == 2:
        try:
            (r1, c1), (r2, c2) = move
            return move_from_squares(operator.index(r1), operator.index(c1),
                                     operator.index(r2), operator.index(c2))
        except (TypeError, ValueError) as e:
            raise ValueError(f"cannot read move {move!r}: {e}") from None
    return _as_move_int(move)


# ---------------------------------------------------------------------- parsing
def _parse_board_text(text, source="<string>"):
    """Seed board text -> (rows, cols, bbB, bbW).  Errors name line and column."""
    lines = text.splitlines()
    # surrounding blank lines are ignored; blank lines inside are an error
    first = 0
    while first < len(lines) and not lines[first].strip():
        first += 1
    last = len(lines)
    while last > first and not lines[last - 1].strip():
        last -= 1
    if first == last:
        raise ValueError(f"{source}: line 1, column 1: empty board (expected rows of B, W and _)")
    rows = []
    width = None
    width_line = None
    for ln in range(first, last):
        line = lines[ln]
        cells = []
        for col0, ch in enumerate(line):
            if ch in " \t\r":
                continue
            if ch not in "BW_":
                raise ValueError(f"{source}: line {ln + 1}, column {col0 + 1}: unexpected character "
                                 f"{ch!r} (a board has B, W and _ only)")
            cells.append((ch, col0 + 1))
        if not cells:
            raise ValueError(f"{source}: line {ln + 1}, column 1: blank line inside the board")
        if width is None:
            width = len(cells)
            width_line = ln + 1
            if width > MAX_SIDE:
                raise ValueError(f"{source}: line {ln + 1}, column {cells[MAX_SIDE][1]}: row has "
                                 f"{width} cells; boards are at most {MAX_SIDE} wide")
        elif len(cells) != width:
            col = cells[width][1] if len(cells) > width else len(line.rstrip()) + 1
            raise ValueError(f"{source}: line {ln + 1}, column {col}: ragged row with {len(cells)} "
                             f"cells; line {width_line} has {width}")
        if len(rows) == MAX_SIDE:
            raise ValueError(f"{source}: line {ln + 1}, column 1: more than {MAX_SIDE} rows")
        rows.append(cells)
    cdef uint64_t b0 = 0, b1 = 0
    for r, cells in enumerate(rows):
        for c, (ch, _) in enumerate(cells):
            if ch == "B":
                b0 |= (<uint64_t>1) << (8 * r + c)
            elif ch == "W":
                b1 |= (<uint64_t>1) << (8 * r + c)
    return len(rows), width, b0, b1


include "board_ops.pxi"


cdef class Board(GameBoard):
    """A Clobber position with move history.

    ``Board(rows=6, cols=5)`` is the standard start (every square filled,
    ``B`` on squares with ``row + col`` even, ``B`` to move).

    >>> b = Board(2, 3)
    >>> print(b)
    B W B
    W B W
    >>> len(b.legal_moves), b.to_move
    (7, 'B')
    >>> b.push("a1-a2"); print(b)
    _ W B
    B B W
    """

    TITLE = "Clobber"
    PLAYERS = ("B", "W")
    PLAYOUTS = _PLAYOUTS

    def __cinit__(self, *args, **kwargs):
        bind_board(self, &self.state)

    def __init__(self, *args, **kwargs):
        o = _board_arguments("clobber.Board", args, kwargs, {"rows": 6, "cols": 5})
        r = _check_side("rows", o["rows"])
        c = _check_side("cols", o["cols"])
        clobber_setup(&self.state, r, c)
        self._clear_history()

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_string(cls, text, to_move="B"):
        """Board from text: rows of ``B``, ``W`` and ``_`` (cells may be
        space-separated).  ``ValueError`` naming line and column if malformed."""
        if not isinstance(text, str):
            raise ValueError(f"expected board text, got {type(text).__name__}")
        return cls._from_text(text, to_move, "<string>")

    @classmethod
    def from_file(cls, path, to_move="B"):
        """Board from a file in the text format; ``path`` ``"-"`` or a file
        object reads that stream (``"-"`` = standard input)."""
        if hasattr(path, "read"):
            text = path.read()
            source = getattr(path, "name", "<stream>")
        elif path == "-":
            text = sys.stdin.read()
            source = "<stdin>"
        else:
            try:
                with open(os.fspath(path), "r", encoding="utf-8") as f:
                    text = f.read()
            except (OSError, UnicodeDecodeError) as e:
                raise ValueError(f"cannot read board file {path!r}: {e}") from None
            source = os.fspath(path)
        if isinstance(text, bytes):
            text = text.decode("utf-8", errors="replace")
        return cls._from_text(text, to_move, source)

    @classmethod
    def from_stdin(cls, to_move="B"):
        """Board read from standard input."""
        return cls.from_file("-", to_move)

    @classmethod
    def _from_text(cls, text, to_move, source):
        rows, cols, b0, b1 = _parse_board_text(text, source)
        cdef Board b = cls.__new__(cls)
        b._set(rows, cols, b0, b1, _player_index(to_move))
        return b

    @classmethod
    def from_bitboards(cls, rows, cols, black, white, to_move="B"):
        """Board from two masks (bit ``r * 8 + c``); they must not overlap or
        leave the ``rows x cols`` board."""
        rows = _check_side("rows", rows)
        cols = _check_side("cols", cols)
        for name, v in (("black", black), ("white", white)):
            if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < 2 ** 64:
                raise ValueError(f"{name} must be a 64-bit mask (int in [0, 2**64)), got {v!r}")
        full = clobber_full_mask(rows, cols)
        if black & white:
            raise ValueError("black and white masks overlap")
        if (black | white) & ~full:
            raise ValueError(f"stones outside the {rows}x{cols} board")
        cdef Board b = cls.__new__(cls)
        b._set(rows, cols, black, white, _player_index(to_move))
        return b

    cdef _set(self, int rows, int cols, uint64_t b0, uint64_t b1, int to_move):
        self.state.rows = rows
        self.state.cols = cols
        self.state.ncells = rows * cols
        self.state.full = clobber_full_mask(rows, cols)
        self.state.centre = clobber_centre_mask(rows, cols)
        self.state.bb[0] = b0
        self.state.bb[1] = b1
        self.state.to_move = to_move
        self.state.status = clobber_compute_status(&self.state)
        self._clear_history()

    def to_string(self, sep=" "):
        """The text format: one line per row, cells ``B``/``W``/``_`` joined by ``sep``
        (round-trips through ``from_string``; the side to move is not part of it)."""
        out = []
        for r in range(self.state.rows):
            row = []
            for c in range(self.state.cols):
                sq = 8 * r + c
                row.append("B" if (self.state.bb[0] >> sq) & 1 else "W" if (self.state.bb[1] >> sq) & 1 else "_")
            out.append(sep.join(row))
        return "\n".join(out)

    def write_file(self, path):
        """Write ``to_string()`` plus a newline to ``path`` atomically."""
        from ttt_engine._util import atomic_write
        data = (self.to_string() + "\n").encode()
        atomic_write(path, lambda f: f.write(data), "board file")

    # ------------------------------------------------------------------ moves
    def _read_move(self, move):
        return _to_move_int(move)

    def _exhaustive_limit(self):
        """Boards of more than :data:`EXHAUSTIVE_STONES` stones are beyond the
        exhaustive search (``clobber.solve`` settles them)."""
        cdef int stones = CLOBBER_POPCOUNT(self.state.bb[0] | self.state.bb[1])
        if stones > EXHAUSTIVE_STONES:
            return (f"Clobber with {stones} stones is beyond the exhaustive search (at most "
                    f"{EXHAUSTIVE_STONES})")
        return None

    def _illegal(self, int m):
        return (f"illegal move {format_move(m)} for {self.to_move}: a move takes one of "
                "your stones onto an orthogonally adjacent opponent stone")

    def _key(self):
        return (self.state.rows, self.state.cols, self.state.bb[0], self.state.bb[1],
                self.state.to_move)

    def is_legal(self, move):
        """True if ``move`` (any accepted form) is legal here."""
        try:
            m = _to_move_int(move)
        except ValueError:
            return False
        return bool(clobber_is_legal(&self.state, m))

    # ------------------------------------------------------------------ actions
    @property
    def observation_shape(self):
        """``(2, rows, cols)``: the side to move's stones, then the opponent's (docs/envs.md)."""
        return (2, self.state.rows, self.state.cols)

    @property
    def num_actions(self):
        """Size of the action space: rows * cols * 4, action (r * cols + c) * 4 + direction."""
        return self.state.ncells * 4

    def move_to_action(self, move):
        """The action number of ``move`` (any form ``push`` accepts)."""
        cdef int m = _to_move_int(move)
        cdef int sq = m >> 2
        if (sq >> 3) >= self.state.rows or (sq & 7) >= self.state.cols:
            raise ValueError(f"move {format_move(m)} starts off this {self.state.rows}x{self.state.cols} board")
        return clobber_move_to_action(&self.state, m)

    def legal_moves_str(self):
        """Legal moves in notation (same order as ``legal_moves``)."""
        return [format_move(m) for m in self.legal_moves]

    def parse_move(self, text):
        """Notation / tuple / int -> a move int legal on this board (``ValueError`` if not)."""
        m = _to_move_int(text)
        if not clobber_is_legal(&self.state, m):
            raise ValueError(f"{format_move(m)} is not legal for {self.to_move} here")
        return m

    # ------------------------------------------------------------------ state
    @property
    def bitboards(self):
        """``(black, white)`` masks, bit ``r * 8 + c``."""
        return (self.state.bb[0], self.state.bb[1])

    def stones(self, player):
        """Number of stones of ``"B"`` or ``"W"``."""
        return CLOBBER_POPCOUNT(self.state.bb[_player_index(player)])

    def count_moves(self, player):
        """Number of captures ``player`` could make (whoever is to move)."""
        p = _player_index(player)
        return clobber_count_moves(self.state.bb[p], self.state.bb[p ^ 1])

    def cell(self, int row, int col):
        """``"B"``, ``"W"`` or ``"_"`` at (row, col)."""
        if not (0 <= row < self.state.rows and 0 <= col < self.state.cols):
            raise ValueError(f"({row}, {col}) is off the {self.state.rows}x{self.state.cols} board")
        sq = 8 * row + col
        return "B" if (self.state.bb[0] >> sq) & 1 else "W" if (self.state.bb[1] >> sq) & 1 else "_"

    @property
    def zobrist(self):
        """The 64-bit position key used by the search (``game_hash``)."""
        return clobber_hash(&self.state)

    def evaluate(self, heuristic="adaptive", perspective=None):
        """Static value of a heuristic (see ``heuristic_id``) from the side to move."""
        return clobber_evaluate(&self.state, heuristic_id(heuristic, perspective))

    def heuristic(self, heuristic, player):
        """Heuristic ``X`` of ``player`` on this board: its raw value for ``player``."""
        h = heuristic_id(heuristic)
        return clobber_heuristic(&self.state, h & 15, _player_index(player))

    def adaptive_choice(self, player):
        """The adaptive choice by game phase: the heuristic name (``"B1"``..``"W3"``)
        the adaptive rule picks for ``player`` in this position."""
        k = clobber_adaptive_kind(&self.state, _player_index(player))
        return ("B1", "B2", "B3", "W1", "W2", "W3")[k - 1]

    # ------------------------------------------------------------ common face
    def move_to_str(self, move):
        """Notation ``"b3-b4"`` of ``move``, as :meth:`parse_move` reads it."""
        return format_move(move)

    @property
    def ply(self):
        """Moves pushed on this board so far."""
        return self._nhist

    def __str__(self):
        return self.to_string()

    def __repr__(self):
        return f"<clobber.Board {self.state.rows}x{self.state.cols}, {self.to_move} to move: {self.to_string('')!r}>"
def _check_side(name, v):
    try:
        i = operator.index(v)
    except TypeError:
        raise ValueError(f"{name} must be an integer 1-{MAX_SIDE}, got {v!r}") from None
    if not 1 <= i <= MAX_SIDE:
        raise ValueError(f"{name} must be in 1-{MAX_SIDE}, got {i}")
    return i
