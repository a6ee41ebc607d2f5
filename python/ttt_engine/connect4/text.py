"""Connect Four's text face: the board drawn with its column numbers, the legend and
the prompt hint of the notation (a column's number 1..7; its letter a..g is read too)."""
from ttt_engine import _game_text as _text

__all__ = ["TEXT"]


def _draw(board, style, last):
    cells = [[ch or "." for ch in row] for row in board.grid()]
    placed = _text.placed_cell(board, last)
    head = "  " + " ".join(style(str(c + 1), "dim") for c in range(len(cells[0])))
    lines = [head]
    for r, row in enumerate(cells):
        shown = [_text.mark(style, ch, highlight=(placed == (r, c))) if ch in board.PLAYERS
                 else style(ch, "dim") for c, ch in enumerate(row)]
        lines.append("  " + " ".join(shown))
    lines.append(head)
    return "\n".join(lines)


_LEGEND = ("A move is a column, numbered 1-7 from the left (the letters a-g are read too);\n"
           "a move list is the columns in a row, e.g. 4453.\n"
           "? lists the legal moves, q quits.")


#: ``Game.text``: the generic parse and format (the board's own notation), this drawing
TEXT = (_text.generic_parse, _text.generic_format, _draw, _text.fixed(_LEGEND),
        _text.fixed("column 1-7"))
