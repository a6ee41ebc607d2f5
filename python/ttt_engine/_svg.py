"""Dependency-free SVG pictures of the games' boards (``Board._repr_svg_``,
shown by Jupyter and other notebooks)."""
from __future__ import annotations

from ttt_engine._registry import of_board

__all__ = ["board_svg", "heat_colour", "move_geometry"]

CELL = 36
_FILL = {"X": "#c62828", "O": "#1565c0", "B": "#212121", "W": "#fafafa"}


def _mark(x, y, mark, size=CELL):
    cx, cy, r = x + size / 2, y + size / 2, size * 0.32
    if mark == "X":
        d = r * 0.9
        return (f'<path d="M{cx - d:.1f},{cy - d:.1f}L{cx + d:.1f},{cy + d:.1f}'
                f'M{cx + d:.1f},{cy - d:.1f}L{cx - d:.1f},{cy + d:.1f}" '
                f'stroke="{_FILL["X"]}" stroke-width="{size / 9:.1f}" stroke-linecap="round"/>')
    if mark == "O":
        return (f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{r:.1f}" fill="none" '
                f'stroke="{_FILL["O"]}" stroke-width="{size / 9:.1f}"/>')
    return (f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{r * 1.2:.1f}" fill="{_FILL.get(mark, "#757575")}" '
            f'stroke="#212121" stroke-width="1.5"/>')


def _svg(width, height, body, title):
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}"><title>{title}</title>'
            f'<rect width="{width}" height="{height}" fill="#fffdf5"/>{"".join(body)}</svg>')


def _grid(rows, cols, marks, thick_every=0, shade=None):
    """marks: {(r, c): symbol}; shade: {(r, c): colour}."""
    body = []
    for (r, c), colour in (shade or {}).items():
        body.append(f'<rect x="{c * CELL}" y="{r * CELL}" width="{CELL}" height="{CELL}" '
                    f'fill="{colour}"/>')
    for i in range(rows + 1):
        w = 3 if thick_every and i % thick_every == 0 else 1
        body.append(f'<line x1="0" y1="{i * CELL}" x2="{cols * CELL}" y2="{i * CELL}" '
                    f'stroke="#555" stroke-width="{w}"/>')
    for j in range(cols + 1):
        w = 3 if thick_every and j % thick_every == 0 else 1
        body.append(f'<line x1="{j * CELL}" y1="0" x2="{j * CELL}" y2="{rows * CELL}" '
                    f'stroke="#555" stroke-width="{w}"/>')
    for (r, c), mark in marks.items():
        body.append(_mark(c * CELL, r * CELL, mark))
    return body


def heat_colour(score):
    """A score in [-1, 1] as a fill: red (bad for the side to move), pale yellow
    (even), green (good)."""
    s = max(-1.0, min(1.0, float(score)))
    if s >= 0:
        a, b = (255, 249, 196), (102, 187, 106)
    else:
        a, b = (255, 249, 196), (239, 83, 80)
        s = -s
    r, g, bl = (round(x + (y - x) * s) for x, y in zip(a, b))
    return f"#{r:02x}{g:02x}{bl:02x}"


def move_geometry(board, move):
    """Where ``move`` is on the board: ``(from_cell, to_cell, direction)`` with
    cells as ``(row, col)``; ``to_cell`` the captured square (Clobber) or the end
    the cube is pushed in at (Quixo), else None; ``direction`` Quixo's T/B/L/R.
    The game answers: its ``Game.move_geometry``, else its ``Board``'s own
    ``move_geometry(move)`` method."""
    game = of_board(board)
    if game.move_geometry is not None:
        return game.move_geometry(board, move)
    if hasattr(board, "move_geometry"):
        return board.move_geometry(move)
    raise TypeError(f"no geometry for {type(board).__name__}")


def _overlay(board, heat, best, alternatives, last_move):
    """(shade, extra SVG) for a heat map: ``heat`` {move: (score, label)} drawn on
    each move's first cell (the best score where several moves share it), the
    best move in green and the close alternatives in grey (an arrow for moves
    with two cells), the last move outlined in blue."""
    cells = {}
    for move, (score, label) in (heat or {}).items():
        cell = move_geometry(board, move)[0]
        if cell not in cells or score > cells[cell][0]:
            cells[cell] = (score, label)
    shade = {cell: heat_colour(score) for cell, (score, _) in cells.items()}
    extra = []
    for (r, c), (_, label) in cells.items():
        if label:
            extra.append(f'<text x="{c * CELL + CELL / 2:.1f}" y="{r * CELL + CELL - 3}" '
                         f'font-size="9" font-family="sans-serif" text-anchor="middle" '
                         f'fill="#222" stroke="#fff" stroke-width="2" paint-order="stroke">'
                         f'{_escape(label)}</text>')
    marked = [(m, "#9e9e9e", 2) for m in alternatives or ()]
    if best is not None:
        marked.append((best, "#2e7d32", 3))
    if last_move is not None:
        marked.insert(0, (last_move, "#1e88e5", 2))
    for move, colour, width in marked:
        (r, c), to, _d = move_geometry(board, move)
        extra.append(f'<rect x="{c * CELL + 2}" y="{r * CELL + 2}" width="{CELL - 4}" '
                     f'height="{CELL - 4}" fill="none" stroke="{colour}" '
                     f'stroke-width="{width}"/>')
        if to is not None and to != (r, c):
            x1, y1 = c * CELL + CELL / 2, r * CELL + CELL / 2
            x2, y2 = to[1] * CELL + CELL / 2, to[0] * CELL + CELL / 2
            extra.append(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" '
                         f'stroke="{colour}" stroke-width="{width + 1}" opacity="0.8" '
                         f'marker-end="url(#head{colour[1:]})"/>')
    colours = sorted({colour for _, colour, _ in marked})
    defs = "".join(f'<marker id="head{c[1:]}" markerWidth="10" markerHeight="10" '
                   f'markerUnits="userSpaceOnUse" refX="5" '
                   f'refY="5" orient="auto"><path d="M0,0L10,5L0,10z" fill="{c}"/></marker>'
                   for c in colours)
    return shade, ([f"<defs>{defs}</defs>"] if defs else []) + extra


def _escape(text):
    return (str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;"))


def board_svg(board, heat=None, best=None, alternatives=(), last_move=None):
    """An SVG picture of any game's board, with the side to move in its title.

    heat: ``{move: (score in [-1, 1], label)}`` drawn as a heat map (see
    :class:`ttt_engine.analysis.Analysis`); best / alternatives: moves marked
    in green / grey; last_move: outlined in blue."""
    game = of_board(board)
    w = board.winner
    state = f"{board.to_move} to move" if w is None else "draw" if w == "draw" else f"{w} wins"
    title = f"{game.key}: {state}"
    if heat or best is not None or alternatives or last_move is not None:
        shade, extra = _overlay(board, heat, best, alternatives, last_move)
    else:
        shade, extra = {}, []
    # the game's pieces as its grid shows them, on its own background
    thick, background = game.svg_decor(board) if game.svg_decor is not None else (0, {})
    background = dict(background)
    background.update(shade)
    grid = board.grid()
    R, C = len(grid), len(grid[0])
    marks = {(r, c): grid[r][c] for r in range(R) for c in range(C) if grid[r][c]}
    return _svg(C * CELL, R * CELL, _grid(R, C, marks, thick, background) + extra, title)
