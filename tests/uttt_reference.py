"""Ultimate Tic-Tac-Toe's value-network features (``uttt-v2``) in plain
Python, written from the rules and docs/valuenet.md only, read off a board's
text (81 cells row by row over the 9x9 grid, ``X``/``O``/``.``, then ``:``
and the forced board or ``*``), used by the tests to check the compiled and
the numpy features.  No engine code."""
LINES = [[(r, c) for c in range(3)] for r in range(3)] + \
        [[(r, c) for r in range(3)] for c in range(3)] + \
        [[(i, i) for i in range(3)], [(i, 2 - i) for i in range(3)]]


def _grid_cell(b, r, c):
    """The 9x9 grid's cell of row r, column c of local board b."""
    return 9 * (3 * (b // 3) + r) + 3 * (b % 3) + c


def _result(get):
    """'X', 'O', 'draw' or None for a 3x3 board read through get(r, c)."""
    for line in LINES:
        marks = {get(*p) for p in line}
        if len(marks) == 1 and marks != {"."}:
            return marks.pop()
    return "draw" if all(get(r, c) != "." for r in range(3) for c in range(3)) else None


def _completions(get, mark):
    """The empty cells (r, c) of a 3x3 board where ``mark`` would make a line."""
    out = set()
    for line in LINES:
        marks = [get(*p) for p in line]
        if marks.count(mark) == 2 and marks.count(".") == 1:
            out.add(line[marks.index(".")])
    return out


def value_features(text):
    """The sorted active features of the position ``text``."""
    cells, forced = text.split(":")
    out = [i for i, ch in enumerate(cells) if ch == "X"]
    out += [81 + i for i, ch in enumerate(cells) if ch == "O"]
    results = [_result(lambda r, c, b=b: cells[_grid_cell(b, r, c)]) for b in range(9)]
    for b, res in enumerate(results):
        if res is not None:
            out.append({"X": 162, "O": 171, "draw": 180}[res] + b)
    if forced != "*":
        out.append(189 + int(forced))
    if cells.count("X") > cells.count("O"):
        out.append(198)
    for side, mark in enumerate("XO"):
        for b in range(9):
            if results[b] is None:
                got = _completions(lambda r, c, b=b: cells[_grid_cell(b, r, c)], mark)
                out += [199 + 81 * side + _grid_cell(b, r, c) for r, c in got]

        def big(r, c):      # an open board is empty here, a drawn one blocks
            res = results[3 * r + c]
            return "." if res is None else mark if res == mark else "#"
        out += [361 + 9 * side + 3 * r + c for r, c in _completions(big, mark)]
    return sorted(out)
