"""The slow reference of the principal-variation walk (``tree_lines.pxd``),
shared by the tests of MCTS's and PUCT's lines: it walks the trees' child
lists in plain Python, one node at a time, with the search's own move order.

A tree is read through ``children_of(tree, path)``: the children of the node
``path`` leads to, in move order, as ``(move, visits, wsum, proven)`` or
``(move, visits, wsum, proven, prior)`` with ``wsum`` the sum of values for
the player who made the move; ``[]`` or None where the tree has no such
expanded node.
"""
from ttt_engine.ttt import exact


def merged_children(children_of, trees, path):
    """The children of the node ``path`` leads to, ``(move, visits, wsum,
    proven, prior)`` summed over the trees that have it expanded (the prior
    of the first, 0 where the trees give none)."""
    got = [c for c in (children_of(t, path) for t in trees) if c]
    if not got:
        return []
    out = []
    for j, first in enumerate(got[0]):
        move = first[0]
        rows = [c[j] for c in got]
        assert all(r[0] == move for r in rows)          # one move order in every tree
        out.append((move, sum(r[1] for r in rows), sum(r[2] for r in rows),
                    next((r[3] for r in rows if r[3]), 0),
                    first[4] if len(first) > 4 else 0.0))
    return out


def better(a, b, proofs, mean_ties):
    """With ``proofs``, a proven win first and proven losses last; then more
    visits; then, with ``mean_ties``, the higher mean, else the higher prior."""
    if proofs and a[3] != b[3]:
        return a[3] > b[3]
    if a[1] != b[1]:
        return a[1] > b[1]
    if not mean_ties:
        return a[4] > b[4]
    return a[2] * b[1] > b[2] * a[1]


def best_of(children, proofs, mean_ties):
    best = None
    for c in children:                                  # ties: the first in move order
        if best is None or better(c, best, proofs, mean_ties):
            best = c
    return best


def slow_lines(children_of, trees, depth, proofs, mean_ties):
    """Every root move's line, best first, each ``(move, visits, wsum,
    proven)`` per step, by walking the child lists (``mean_ties``: children
    of equal visits by their mean, else by their prior)."""
    left = merged_children(children_of, trees, [])
    lines = []
    while left:
        first = best_of(left, proofs, mean_ties)
        left.remove(first)
        steps = [first]
        while len(steps) < depth:
            visited = [c for c in merged_children(children_of, trees, [s[0] for s in steps])
                       if c[1] > 0]
            if not visited:
                break
            steps.append(best_of(visited, proofs, mean_ties))
        lines.append([step[:4] for step in steps])
    return lines


def rounded(lines, digits=None):
    """``slow_lines``' lines with each ``wsum`` rounded (None: to an integer)."""
    return [[(m, v, round(w, digits), p) for m, v, w, p in line] for line in lines]


def as_tuples(lines, digits=None):
    """The engine's lines (dicts with ``mean``) in ``slow_lines``' form."""
    return [[(s["move"], s["visits"], round(s["mean"] * s["visits"], digits), s["proven"])
             for s in line] for line in lines]


def check_legal(board, lines):
    """Every line is a sequence of legal moves from ``board``."""
    for line in lines:
        b = board.copy()
        for s in line:
            assert s["move"] in b.legal_moves
            b.push(s["move"])


def check_forced_win(board, line, winner):
    """``line`` from a Tic-Tac-Toe ``board`` the side to move wins is a proven
    forced win, checked move by move against the oracle: the winner's every
    move wins and is proven won, the loser's every position is lost and
    proven so, and the line ends in ``winner``'s win."""
    replay = board.copy()
    for i, step in enumerate(line):
        value, optimal = exact.oracle(replay)
        if i % 2 == 0:                              # the winner: a winning move, proven so
            assert value == 1 and step["move"] in optimal and step["proven"] == 1
        else:                                       # the loser: every move loses, proven so
            assert value == -1 and step["proven"] == -1
        replay.push(step["move"])
    assert replay.is_terminal() and replay.winner == winner


def check_reading_changes_nothing(read, plain, board):
    """Two engines of one seed search ``board``; ``read``'s lines are read
    (the same each time, shorter ones their prefixes), then both search on:
    ``read`` reuses its tree and ends where ``plain`` does.  Returns the root
    visits before the second search."""
    for e in (read, plain):
        e.search(board, simulations=3000)
    first = read.lines()
    assert read.lines() == first and read.lines(depth=5) == [line[:5] for line in first]
    visits = read.stats["root_visits"]
    for e in (read, plain):
        e.search(board, simulations=2000)
    assert read.stats["reused"] and read.stats["reused_visits"] == visits
    assert read.stats["root_visits"] == plain.stats["root_visits"] > visits
    assert read.stats["children"] == plain.stats["children"]    # reading changed nothing
    assert read.lines() == plain.lines()
    return visits


def check_full_lines(engine, board, lines, best):
    """``engine``'s lines of every root move from ``board`` after a search
    that chose ``best``: legal, the best line first, one per legal move,
    read below the root through visited nodes, and the shorter and fewer
    lines their prefixes."""
    check_legal(board, lines)
    assert lines[0][0]["move"] == best == engine.stats["best_move"]
    assert sorted(line[0]["move"] for line in lines) == sorted(board.legal_moves)
    assert max(len(line) for line in lines) >= 5             # the tree is read below the root
    assert all(s["visits"] >= 1 for line in lines for s in line[1:])
    assert engine.lines(k=2, depth=3) == [line[:3] for line in lines[:2]]
