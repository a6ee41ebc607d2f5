# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The principal variations of MCTS trees, read without changing them:
``mcts_lines`` walks the best children of one or more trees of one position
in C without the GIL (the walk of ``tree_lines.pxd``, in ``best_move``'s
order).

The trees are ``MCTSTree``s (mcts.pyx); the caller keeps searches off them
meanwhile (``ttt_engine.search.MCTS`` does).
"""
from ttt_engine._util import check_int

from ttt_engine._core.algorithms.game cimport MAX_MOVES
from ttt_engine._core.algorithms.nodes cimport MNode
from ttt_engine._core.algorithms.mcts cimport MCTSTree
from ttt_engine._core.algorithms.tree_lines cimport MAX_LINE, TIES_MEAN, read_lines


def mcts_lines(trees, k, depth):
    """The principal variations of one position's trees (the root-parallel
    trees of one search, or a single one): for the ``k`` best root moves
    (``best_move``'s order on the counts summed over the trees), the line of
    best children below each, at most ``depth`` moves.  At every step the
    children's counts are summed over the trees that hold the node, so the
    lines follow the merged counts all the way down.  Returns a list of lines,
    best first, each a list of ``(move, visits, mean, proven)``: ``mean`` in
    [-1, 1] and ``proven`` (+1 win, -1 loss, 0 unknown) for the player who
    made the move.  Read-only; the caller keeps searches off the trees
    meanwhile (``search.MCTS`` does)."""
    cdef list ts = list(trees)
    cdef int ntrees = len(ts), i
    cdef int kk = MAX_MOVES if k is None else min(check_int("k", k, min=1), MAX_MOVES)
    cdef int dd = check_int("depth", depth, min=1, max=MAX_LINE)
    cdef MCTSTree tr
    cdef bint solver = False
    cdef bytearray table
    cdef MNode** ptrs
    table = bytearray(ntrees * sizeof(MNode*))     # the trees' arenas, freed with it
    ptrs = <MNode**><char*>table
    for i in range(ntrees):
        tr = ts[i]
        ptrs[i] = tr.t.nodes if tr.t.used else NULL
        solver = solver or tr.t.solver
    # best_move's order: proofs only with the solver, equal visits by the higher mean
    lines = read_lines(ptrs, ntrees, kk, dd, solver, TIES_MEAN, "mcts_lines")
    unit = (<MCTSTree>ts[0]).t.unit if ntrees else 1
    if unit == 1:
        return lines
    # a value network's trees sum rewards in units of 1 / unit (mcts.pyx)
    return [[(m, v, q / unit, p) for m, v, q, p in line] for line in lines]
