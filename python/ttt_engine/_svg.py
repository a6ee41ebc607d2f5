"""Dependency-free SVG pictures of the four games' boards (``Board._repr_svg_``,
shown by Jupyter and other notebooks)."""
from __future__ import annotations

__all__ = ["board_svg"]

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
    return (f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{r * 1.2:.1f}" fill="{_FILL[mark]}" '
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


def board_svg(board):
    """An SVG picture of any game's board, with the side to move in its title."""
    kind = type(board).__module__.rsplit(".", 1)[-1]
    w = board.winner
    state = f"{board.to_move} to move" if w is None else "draw" if w == "draw" else f"{w} wins"
    title = f"{kind}: {state}"
    if kind == "ttt":
        cells = board.cells
        marks = {divmod(i, 3): "XO"[v - 1] for i, v in enumerate(cells) if v}
        return _svg(3 * CELL, 3 * CELL, _grid(3, 3, marks), title)
    if kind == "uttt":
        cells = board.cells
        marks = {divmod(i, 9): "XO"[v - 1] for i, v in enumerate(cells) if v}
        shade = {}
        forced = board.forced_board
        for b, w in enumerate(board.local_winners):
            colour = ({"X": "#ffcdd2", "O": "#bbdefb", "draw": "#e0e0e0"}.get(w)
                      if w else ("#dcedc8" if forced == b else None))
            if colour:
                for k in range(9):
                    shade[(b // 3) * 3 + k // 3, (b % 3) * 3 + k % 3] = colour
        return _svg(9 * CELL, 9 * CELL, _grid(9, 9, marks, 3, shade), title)
    if kind == "clobber":
        R, C = board.rows, board.cols
        marks = {(r, c): board.cell(r, c) for r in range(R) for c in range(C)
                 if board.cell(r, c) in ("B", "W")}
        return _svg(C * CELL, R * CELL, _grid(R, C, marks), title)
    if kind == "quixo":
        n = board.size
        cells = board.cells
        marks = {divmod(i, n): "XO"[v - 1] for i, v in enumerate(cells) if v}
        ring = {(r, c): "#eeeeee" for r in range(n) for c in range(n)
                if r in (0, n - 1) or c in (0, n - 1)}
        return _svg(n * CELL, n * CELL, _grid(n, n, marks, 0, ring), title)
    raise TypeError(f"no picture for {type(board).__name__}")
