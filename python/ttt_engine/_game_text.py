"""Text faces of the four games: move parsing with the reason a move is refused,
move notation, plain-text drawings, legends and prompt hints.

Used by :mod:`ttt_engine.games`; every function takes the game's ``Board``.

Drawing functions take an optional ``style``: a callable ``style(text, *tags)``
returning the text to print (tags among ``"bold"``, ``"dim"``, ``"reverse"``,
``"red"``, ``"green"``, ``"yellow"``, ``"blue"``, ``"cyan"``); a true
``style.boxes`` attribute asks for box-drawing characters.  Without a style
the drawing is plain ASCII text.
"""
from __future__ import annotations

from ttt_engine._core.games.uttt.board import local_boards_text
from ttt_engine._util import game_over

__all__ = ["plain", "GAME_TEXT"]

_FILES = "abcdefgh"


def plain(text, *tags):
    """The default style: the text unchanged."""
    return str(text)


plain.boxes = False

_MARK_COLOURS = {"X": "red", "O": "cyan", "B": "blue", "W": "yellow"}


def _mark(style, mark, highlight=False):
    styles = ("bold", _MARK_COLOURS.get(mark, "bold")) + (("reverse",) if highlight else ())
    return style(mark, *styles)


def _boxes(style):
    return bool(getattr(style, "boxes", False))


def _grid(style, cells, rows, cols, highlight=None, colours=()):
    """rows x cols board with column letters and row numbers on every edge."""
    head = "    " + " ".join(style(f, "dim") for f in _FILES[:cols])
    lines = [head]
    for r in range(rows):
        shown = []
        for c in range(cols):
            ch = cells[r][c]
            if ch in colours:
                shown.append(_mark(style, ch, highlight=(highlight == (r, c))))
            elif highlight == (r, c):
                shown.append(style(ch, "reverse"))
            else:
                shown.append(style(ch, "dim"))
        num = style(f"{r + 1:>2}", "dim")
        lines.append(f"{num}  " + " ".join(shown) + f"  {style(str(r + 1), 'dim')}")
    lines.append(head)
    return "\n".join(lines)


def _empty(text, example):
    if not isinstance(text, str):
        raise ValueError(f"a move is text such as {example!r}, got {text!r}")
    return text.strip()


# ---------------------------------------------------------------------------- Tic-Tac-Toe
def _ttt_base(zero_based):
    return 0 if zero_based else 1


def ttt_parse(board, text, zero_based=False):
    base = _ttt_base(zero_based)
    lo, hi = base, base + 8
    t = _empty(text, str(lo + 4))
    if not t:
        raise ValueError(f"empty input: type a cell number {lo}-{hi}")
    try:
        n = int(t)
    except ValueError:
        raise ValueError(f"{t!r} is not a Tic-Tac-Toe move: type a cell number "
                         f"{lo}-{hi}") from None
    if not lo <= n <= hi:
        raise ValueError(f"{n} is out of range: cells are numbered {lo}-{hi}")
    cell = n - base
    who = board.cells[cell]
    if who:
        raise ValueError(f"cell {n} is already taken by {'XO'[who - 1]}")
    if board.is_terminal():
        raise ValueError(f"the game is over ({game_over(board.winner)}): there is no move to make")
    return cell


def ttt_format(board, move, zero_based=False):
    return str(int(move) + _ttt_base(zero_based))


def ttt_draw(board, style, last, zero_based=False):
    base = _ttt_base(zero_based)
    cells = board.cells
    shown = [_mark(style, "XO"[cells[i] - 1], highlight=(i == last)) if cells[i]
             else style(str(i + base), "dim") for i in range(9)]
    rows = [shown[r * 3:r * 3 + 3] for r in range(3)]
    if _boxes(style):
        top, mid, bot = "┌───┬───┬───┐", "├───┼───┼───┤", "└───┴───┴───┘"
        lines = [top]
        for r, row in enumerate(rows):
            lines.append("│ " + " │ ".join(row) + " │")
            lines.append(mid if r < 2 else bot)
    else:
        lines = []
        for r, row in enumerate(rows):
            lines.append(" " + " | ".join(row))
            if r < 2:
                lines.append("---+---+---")
    return "\n".join("  " + line for line in lines)


def ttt_legend(board, zero_based=False):
    b = _ttt_base(zero_based)
    grid = " / ".join(" ".join(str(b + r * 3 + c) for c in range(3)) for r in range(3))
    kind = "0-8" if b == 0 else "1-9 laid out like a phone keypad"
    return (f"Cells are numbered {kind}: {grid}.\n"
            "Type a cell number and Enter; ? shows the legal moves, q quits.")


def ttt_hint(board, zero_based=False):
    b = _ttt_base(zero_based)
    return f"{b}-{b + 8}"


# ---------------------------------------------------------------------------- Ultimate TTT
def uttt_parse(board, text):
    t = _empty(text, "4, 5")
    if not t:
        raise ValueError("empty input: type the row and column as 'R, C', each 0-8 (e.g. 4, 5)")
    m = board.parse_move(t)
    board.copy().push(m)          # the board's own reason when the move is illegal
    return m


def uttt_format(board, move):
    return f"{move // 9}, {move % 9}"


def uttt_draw(board, style, last):
    cells = board.cells
    forced = board.forced_board
    lw = board.local_winners
    free = forced is None and not board.is_terminal()
    if _boxes(style):
        v, top, mid, bot = ("│", "  ┌───────┬───────┬───────┐", "  ├───────┼───────┼───────┤",
                            "  └───────┴───────┴───────┘")
    else:
        v, top, mid, bot = "|", *(["  +-------+-------+-------+"] * 3)
    lines = [style("    0 1 2   3 4 5   6 7 8", "dim"), top]
    for r in range(9):
        row = [style(str(r), "dim") + " " + v]
        for c in range(9):
            b = (r // 3) * 3 + c // 3
            x = cells[9 * r + c]
            if x:
                ch = _mark(style, "XO"[x - 1], highlight=(9 * r + c == last))
            elif lw[b] is not None:
                ch = style(" ", "dim")             # closed local board
            elif forced is not None and b == forced:
                ch = style("*", "bold", "green")  # where the side to move must play
            else:
                ch = style(".", "dim") if not free else style(".", "green")
            row.append(" " + ch)
            if c % 3 == 2:
                row.append(" " + v)
        lines.append("".join(row))
        if r % 3 == 2:
            lines.append(mid if r < 8 else bot)
    closed = local_boards_text(lw)
    if closed:
        lines.append(closed)
    if not board.is_terminal():
        if forced is not None:
            r0, c0 = (forced // 3) * 3, (forced % 3) * 3
            lines.append(f"{board.to_move} must play in board {forced} (rows {r0}-{r0 + 2}, "
                         f"columns {c0}-{c0 + 2}, cells marked *)")
        else:
            lines.append(f"{board.to_move} may play in any open board")
    return "\n".join(lines)


def uttt_legend(board):
    return ("Type moves as 'R, C': the row and column 0-8 of the 9x9 grid (e.g. 4, 5). A move "
            "in cell (r, c)\nof a local board sends your opponent to local board (r, c); "
            "* marks where you must play.\n? lists the legal moves, q quits.")


def uttt_hint(board):
    return "R, C"


# ---------------------------------------------------------------------------- Clobber
def _clobber_span(board):
    R, C = board.rows, board.cols
    return f"columns a-{_FILES[C - 1]}, rows 1-{R}"


def clobber_parse(board, text):
    from ttt_engine._core.games.clobber import board as clobber
    t = _empty(text, "b3-b4")
    if not t:
        raise ValueError("empty input: type a move like b3-b4 (your stone, then the "
                         "neighbouring enemy stone it captures)")
    try:
        m = clobber.parse_move(t)
    except ValueError as e:
        raise ValueError(f"{e} (Clobber moves: {_clobber_span(board)}, e.g. b3-b4)") from None
    (r1, c1), (r2, c2) = clobber.move_squares(m)
    R, C = board.rows, board.cols
    for r, c in ((r1, c1), (r2, c2)):
        if r >= R or c >= C:
            raise ValueError(f"{clobber.square_name(r, c)} is off the {R}x{C} board "
                             f"({_clobber_span(board)})")
    me = board.to_move
    opp = "W" if me == "B" else "B"
    a, b = clobber.square_name(r1, c1), clobber.square_name(r2, c2)
    src, dst = board.cell(r1, c1), board.cell(r2, c2)
    if src == "_":
        raise ValueError(f"there is no stone on {a}")
    if src != me:
        raise ValueError(f"the stone on {a} is {src}'s; you play {me}")
    if dst != opp:
        what = "is empty" if dst == "_" else "holds your own stone"
        raise ValueError(f"{b} {what}: a move must capture a {opp} stone next to yours")
    if not board.is_legal(m):
        raise ValueError(f"{a}-{b} is not legal here")
    return m


def clobber_format(board, move):
    from ttt_engine._core.games.clobber import board as clobber
    return clobber.format_move(move)


def clobber_draw(board, style, last):
    cells = [[board.cell(r, c) for c in range(board.cols)] for r in range(board.rows)]
    hl = None
    if last is not None:
        from ttt_engine._core.games.clobber import board as clobber
        hl = clobber.move_squares(last)[1]
    return _grid(style, cells, board.rows, board.cols, hl, colours={"B", "W"})


def clobber_legend(board):
    span = _clobber_span(board) if board is not None else "columns a-h, rows 1-8"
    return (f"Squares: {span} (row 1 at the top). A move takes one of your "
            "stones onto an\northogonally adjacent enemy stone, e.g. b3-b4; B moves first; "
            "whoever cannot move loses.\n? lists the legal moves, q quits.")


def clobber_hint(board):
    return "e.g. b3-b4"


# ---------------------------------------------------------------------------- Quixo
def _quixo_cube(board, move):
    cell, _side = divmod(move, 4)
    return divmod(cell, board.size)


def quixo_parse(board, text):
    t = _empty(text, "a1R")
    if not t:
        raise ValueError("empty input: type a move like a1R (the cube to take, then the end "
                         "T/B/L/R it is pushed back in from)")
    m = board.parse_move(t)
    r, c = _quixo_cube(board, m)
    v = board.cells[r * board.size + c]
    me = board.to_move
    if v and "XO"[v - 1] != me:
        raise ValueError(f"the cube on {'abcde'[c]}{r + 1} shows {'XO'[v - 1]}: take a blank "
                         f"cube or one showing {me}")
    board.copy().push(m)
    return m


def quixo_format(board, move):
    return board.move_to_str(move)


def quixo_draw(board, style, last):
    n = board.size
    cells = board.cells
    grid = [[".XO"[cells[r * n + c]] for c in range(n)] for r in range(n)]
    hl = None
    if last is not None:
        r, c = _quixo_cube(board, last)
        side = "TBLR"[last % 4]
        hl = {"T": (0, c), "B": (n - 1, c), "L": (r, 0), "R": (r, n - 1)}[side]
    return _grid(style, grid, n, n, hl, colours={"X", "O"})


def quixo_legend(board):
    n = board.size if board is not None else 5
    last = "abcde"[n - 1]
    return (f"Columns a-{last} from the left, rows 1-{n} from the top. A move is the cube you "
            "take from the outer\nring (blank or yours) and the end it is pushed back in from: "
            "T top, B bottom, L left, R right;\ne.g. a1R takes the top-left cube and pushes "
            "it in at the right end of row 1.\n? lists the legal moves, q quits.")


def quixo_hint(board):
    return "e.g. a1R"


# ---------------------------------------------------------------------------- any game
# A game without its own text face gets this one, from its Board alone:
# parse_move/move_to_str for moves and the observation planes for the picture.
def _example(board):
    moves = board.legal_moves if board is not None else []
    return board.move_to_str(moves[0]) if moves else None


def generic_parse(board, text):
    example = _example(board) or "a move"
    t = _empty(text, example)
    if not t:
        raise ValueError(f"empty input: type a move such as {example}")
    m = board.parse_move(t)
    board.copy().push(m)        # ValueError with the game's reason if illegal
    return m


def generic_format(board, move):
    return board.move_to_str(move)


def _placed_cell(board, last):
    """The cell ``last`` (the board's last pushed move) filled with the mover's
    piece, found by comparing the grid before and after it; None otherwise."""
    if last is None or not board.moves or board.moves[-1] != last:
        return None
    before = board.copy()
    before.pop()
    old, new = before.grid(), board.grid()
    mover = before.to_move
    for r, row in enumerate(new):
        for c, ch in enumerate(row):
            if ch == mover and old[r][c] != ch:
                return r, c
    return None


def generic_draw(board, style, last):
    grid = [[ch or "." for ch in row] for row in board.grid()]
    return _grid(style, grid, len(grid), len(grid[0]), _placed_cell(board, last),
                 colours=set(board.PLAYERS))


def generic_legend(board):
    example = _example(board)
    how = f"A move is typed as the game writes it, e.g. {example}." if example else ""
    return f"{how}\n? lists the legal moves, q quits.".strip()


def generic_hint(board):
    example = _example(board)
    return f"e.g. {example}" if example else ""


GENERIC_TEXT = (generic_parse, generic_format, generic_draw, generic_legend, generic_hint)

GAME_TEXT = {
    "ttt": (ttt_parse, ttt_format, ttt_draw, ttt_legend, ttt_hint),
    "uttt": (uttt_parse, uttt_format, uttt_draw, uttt_legend, uttt_hint),
    "clobber": (clobber_parse, clobber_format, clobber_draw, clobber_legend, clobber_hint),
    "quixo": (quixo_parse, quixo_format, quixo_draw, quixo_legend, quixo_hint),
}
