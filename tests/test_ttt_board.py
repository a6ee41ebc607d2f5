"""Board against an independent brute force over every reachable position.

The reference below is plain Python written from the rules (cells tuples, X
first, nobody moves after a win); it shares no code with the Cython core.
"""
import pickle
import re

import pytest

from ttt_engine import Board

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


def ref_winner(cells):
    for a, b, c in LINES:
        if cells[a] and cells[a] == cells[b] == cells[c]:
            return "XO"[cells[a] - 1]
    if 0 not in cells:
        return "draw"
    return None


def ref_index(cells):
    return sum(v * 3 ** i for i, v in enumerate(cells))


def ref_to_move(cells):
    return "X" if cells.count(1) == cells.count(2) else "O"


def ref_string(cells):
    return "".join(".XO"[v] for v in cells)


def _reachable():
    """DFS from the empty board: {cells: first move sequence reaching it}."""
    seen = {}
    stack = [((0,) * 9, ())]
    while stack:
        cells, path = stack.pop()
        if cells in seen:
            continue
        seen[cells] = path
        if ref_winner(cells) is not None:
            continue
        mark = 1 if ref_to_move(cells) == "X" else 2
        for i in range(9):
            if cells[i] == 0:
                child = cells[:i] + (mark,) + cells[i + 1:]
                stack.append((child, path + (i,)))
    return seen


REACHABLE = _reachable()


def test_reference_counts():
    assert len(REACHABLE) == 5478
    assert sum(ref_winner(c) is not None for c in REACHABLE) == 958
    assert sum(ref_winner(c) is None for c in REACHABLE) == 4520


def test_every_reachable_position():
    for cells, path in REACHABLE.items():
        idx, s, w = ref_index(cells), ref_string(cells), ref_winner(cells)
        legal = [] if w is not None else [i for i in range(9) if cells[i] == 0]
        boards = [Board.from_index(idx), Board.from_string(s)]
        b = Board()
        for m in path:
            b.push(m)
        boards.append(b)
        for b in boards:
            assert b.index == idx, s
            assert b.to_string() == s
            assert b.cells == cells
            assert b.winner == w, s
            assert b.is_terminal() == (w is not None)
            assert b.to_move == ref_to_move(cells)
            assert b.legal_moves == legal
            assert b.ply == 9 - cells.count(0)
        assert Board.from_string(b.to_string()).index == idx
        assert Board.from_index(idx) == b and hash(b) == idx


def test_push_pop_every_transition():
    for cells, path in REACHABLE.items():
        b = Board.from_string(ref_string(cells))
        before = (b.index, b.to_string(), b.to_move, b.winner, b.legal_moves)
        mark = 1 if ref_to_move(cells) == "X" else 2
        for m in b.legal_moves:
            child = cells[:m] + (mark,) + cells[m + 1:]
            b.push(m)
            assert b.index == ref_index(child)
            assert b.winner == ref_winner(child)
            assert b.moves[-1] == m
            assert b.pop() == m
            assert (b.index, b.to_string(), b.to_move, b.winner, b.legal_moves) == before


def test_from_index_rejects_every_unreachable_index():
    reachable = {ref_index(c) for c in REACHABLE}
    rejected = 0
    for i in range(3 ** 9):
        if i in reachable:
            continue
        with pytest.raises(ValueError, match=rf"index {i} is not a reachable"):
            Board.from_index(i)
        rejected += 1
    assert rejected == 3 ** 9 - 5478
    for bad in (-1, 3 ** 9, 10 ** 12):
        with pytest.raises(ValueError, match="out of range"):
            Board.from_index(bad)
    for bad in (1.5, "3", None):
        with pytest.raises(ValueError, match="integer"):
            Board.from_index(bad)


def test_from_string_rejects_unreachable_and_garbage():
    for text in ("XX.......", "OO.X.....", "XXXOOO...", "XXXOO.OO.", "O........"):
        with pytest.raises(ValueError, match="not reachable"):
            Board.from_string(text)
    with pytest.raises(ValueError, match="expected 9 cells"):
        Board.from_string("X.O")
    with pytest.raises(ValueError, match=r"unexpected character 'Q' at position 1"):
        Board.from_string("XQO......")
    with pytest.raises(ValueError, match="string"):
        Board.from_string(123)
    assert Board.from_string("X.O/.../...").to_string() == "X.O......"
    assert Board.from_string("x o|   |   ").to_string() == "X.O......"


def test_illegal_push_names_cell_and_reason():
    b = Board.from_string("X.O......")
    with pytest.raises(ValueError, match=r"cannot play cell 0: it is occupied by X"):
        b.push(0)
    with pytest.raises(ValueError, match=r"cannot play cell 2: it is occupied by O"):
        b.push(2)
    for bad in (-1, 9, 100):
        with pytest.raises(ValueError, match=rf"cell {bad} is out of range"):
            b.push(bad)
    for bad in (1.0, "4", None):
        with pytest.raises(ValueError, match="cell must be an integer"):
            b.push(bad)
    won = Board.from_string("XXXOO....")
    with pytest.raises(ValueError, match=re.escape("cannot play cell 5: the game is over (X won)")):
        won.push(5)
    drawn = Board.from_string("XOXXOOOXX")
    assert drawn.winner == "draw"
    with pytest.raises(ValueError, match=re.escape("cannot play cell 0: the game is over (draw)")):
        drawn.push(0)
    assert b.to_string() == "X.O......"  # failed pushes change nothing
    with pytest.raises(IndexError):
        Board().pop()


def test_copy_str_repr_pickle():
    b = Board()
    for m in (4, 0, 8):
        b.push(m)
    c = b.copy()
    c.push(2)
    assert b.moves == [4, 0, 8] and c.moves == [4, 0, 8, 2]
    assert str(b) == "O . .\n. X .\n. . X"
    assert eval(repr(b)) == b
    p = pickle.loads(pickle.dumps(b))
    assert p == b and p.moves == b.moves
