"""Text faces of the games: move parsing with the reason a move is refused,
move notation, plain-text drawings, legends and prompt hints.

A game's module may define its own face (``Game.text``: the functions
``(parse, format, draw, legend, hint)``, each taking the game's ``Board``),
drawn with the helpers here; a game without one gets :data:`GENERIC_TEXT`,
which needs nothing but its ``Board``.

Drawing functions take an optional ``style``: a callable ``style(text, *tags)``
returning the text to print (tags among ``"bold"``, ``"dim"``, ``"reverse"``,
``"red"``, ``"green"``, ``"yellow"``, ``"blue"``, ``"cyan"``); a true
``style.boxes`` attribute asks for box-drawing characters.  Without a style
the drawing is plain ASCII text.
"""
from __future__ import annotations

__all__ = ["plain", "GENERIC_TEXT", "mark", "boxes", "grid", "move_text", "placed_cell", "fixed",
           "FILES"]

FILES = "abcdefgh"


def plain(text, *tags):
    """The default style: the text unchanged."""
    return str(text)


plain.boxes = False

_MARK_COLOURS = {"X": "red", "O": "cyan", "B": "blue", "W": "yellow"}


def mark(style, mark, highlight=False):
    styles = ("bold", _MARK_COLOURS.get(mark, "bold")) + (("reverse",) if highlight else ())
    return style(mark, *styles)


def boxes(style):
    return bool(getattr(style, "boxes", False))


def grid(style, cells, rows, cols, highlight=None, colours=()):
    """rows x cols board with column letters and row numbers on every edge."""
    head = "    " + " ".join(style(f, "dim") for f in FILES[:cols])
    lines = [head]
    for r in range(rows):
        shown = []
        for c in range(cols):
            ch = cells[r][c]
            if ch in colours:
                shown.append(mark(style, ch, highlight=(highlight == (r, c))))
            elif highlight == (r, c):
                shown.append(style(ch, "reverse"))
            else:
                shown.append(style(ch, "dim"))
        num = style(f"{r + 1:>2}", "dim")
        lines.append(f"{num}  " + " ".join(shown) + f"  {style(str(r + 1), 'dim')}")
    lines.append(head)
    return "\n".join(lines)


def fixed(text):
    """A legend or prompt hint that is ``text`` whatever the board (a text face's
    ``legend`` / ``hint`` function)."""
    return lambda board: text


def move_text(text, example):
    if not isinstance(text, str):
        raise ValueError(f"a move is text such as {example!r}, got {text!r}")
    return text.strip()


# ---------------------------------------------------------------------------- any game
# A game without its own text face gets this one, from its Board alone:
# parse_move/move_to_str for moves and the observation planes for the picture.
def _example(board):
    moves = board.legal_moves if board is not None else []
    return board.move_to_str(moves[0]) if moves else None


def generic_parse(board, text):
    example = _example(board) or "a move"
    t = move_text(text, example)
    if not t:
        raise ValueError(f"empty input: type a move such as {example}")
    m = board.parse_move(t)
    board.copy().push(m)        # ValueError with the game's reason if illegal
    return m


def generic_format(board, move):
    return board.move_to_str(move)


def placed_cell(board, last):
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
    cells = [[ch or "." for ch in row] for row in board.grid()]
    return grid(style, cells, len(cells), len(cells[0]), placed_cell(board, last),
                 colours=set(board.PLAYERS))


def generic_legend(board):
    example = _example(board)
    how = f"A move is typed as the game writes it, e.g. {example}." if example else ""
    return f"{how}\n? lists the legal moves, q quits.".strip()


def generic_hint(board):
    example = _example(board)
    return f"e.g. {example}" if example else ""


GENERIC_TEXT = (generic_parse, generic_format, generic_draw, generic_legend, generic_hint)
