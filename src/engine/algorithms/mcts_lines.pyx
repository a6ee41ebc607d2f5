# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The principal variations of MCTS trees, read without changing them:
``mcts_lines`` walks the best children of one or more trees of one position
in C without the GIL.

The trees are ``MCTSTree``s (mcts.pyx); the caller keeps searches off them
meanwhile (``ttt_engine.search.MCTS`` does).
"""
from libc.stdint cimport int8_t, uint8_t, int32_t, int64_t
from libc.stdlib cimport malloc, free
from libc.string cimport memset

from ttt_engine._util import check_int

from ttt_engine._core.algorithms.game cimport MAX_MOVES
from ttt_engine._core.algorithms.mcts import MAX_LINE
from ttt_engine._core.algorithms.nodes cimport MNode
from ttt_engine._core.algorithms.mcts cimport MCTSTree


cdef struct LineStep:
    int64_t visits          # summed over the trees that hold the node
    int64_t wsum
    int32_t move
    int8_t proven           # +1 / -1 proven in any tree (proofs are sound), else 0


cdef inline void child_sum(MNode** trees, const int32_t* first, int ntrees, int j,
                           LineStep* out) noexcept nogil:
    """Child ``j`` of the block at ``first[i]`` in every tree that holds the
    block (``first[i] >= 0``), its counts summed.  The same position's
    children come in the same move order in every tree (one move
    generator), so the blocks line up index by index."""
    cdef int i
    cdef MNode* nd
    out.visits = 0
    out.wsum = 0
    out.proven = 0
    out.move = -1
    for i in range(ntrees):
        if first[i] < 0:
            continue
        nd = &trees[i][first[i] + j]
        if out.move < 0:
            out.move = nd.move
        out.visits += nd.visits
        out.wsum += nd.wsum
        if out.proven == 0:
            out.proven = nd.proven


cdef inline bint step_better(const LineStep* a, const LineStep* b, bint solver) noexcept nogil:
    """``best_move``'s order: a proven win first and proven losses last (with
    the solver), then more visits, then the higher mean."""
    cdef int ra = a.proven if solver else 0
    cdef int rb = b.proven if solver else 0
    if ra != rb:
        return ra > rb
    if a.visits != b.visits:
        return a.visits > b.visits
    return <double>a.wsum * <double>b.visits > <double>b.wsum * <double>a.visits


cdef inline int pick_child(MNode** trees, const int32_t* first, int ntrees, int n,
                           bint solver, const uint8_t* taken, bint visited,
                           LineStep* best) noexcept nogil:
    """Index of the best of the ``n`` children at ``first`` (ties: the first
    in move order), skipping those marked in ``taken`` (may be NULL) and, with
    ``visited``, those never visited; -1 if none is left."""
    cdef int j, b = -1
    cdef LineStep cand
    for j in range(n):
        if taken != NULL and taken[j]:
            continue
        child_sum(trees, first, ntrees, j, &cand)
        if visited and cand.visits == 0:
            continue
        if b < 0 or step_better(&cand, best, solver):
            b = j
            best[0] = cand
    return b


cdef int line_from(MNode** trees, const int32_t* root_first, int32_t* cur, int ntrees, int j,
                   int depth, bint solver, LineStep* out) noexcept nogil:
    """The line that starts with root child ``j``: from there, the best
    visited child at each node, to ``depth`` steps or a node no tree has
    expanded (unexpanded, finished, or a proven node the solver stopped at);
    written to ``out``, returns its length."""
    cdef int i, n, length = 0
    cdef MNode* nd
    cdef LineStep best
    for i in range(ntrees):
        cur[i] = root_first[i]
    while True:
        child_sum(trees, cur, ntrees, j, &out[length])
        length += 1
        if length >= depth:
            break
        n = -1                      # the chosen child's block in each tree holding one
        for i in range(ntrees):
            if cur[i] < 0:
                continue
            nd = &trees[i][cur[i] + j]
            if nd.first_child < 0 or (n >= 0 and nd.nchildren != n):
                cur[i] = -1
                continue
            n = nd.nchildren
            cur[i] = nd.first_child
        if n <= 0:
            break
        j = pick_child(trees, cur, ntrees, n, solver, NULL, True, &best)
        if j < 0:
            break
    return length


cdef int root_block(MNode** trees, int ntrees, int32_t* first) noexcept nogil:
    """The root's child block in each tree (``first[i]``, -1 where the tree is
    empty or its root unexpanded); returns the number of root children."""
    cdef int i, n = -1
    for i in range(ntrees):
        first[i] = -1
        if trees[i] == NULL or trees[i][0].first_child < 0:
            continue
        if n < 0:
            n = trees[i][0].nchildren
        if trees[i][0].nchildren == n:
            first[i] = trees[i][0].first_child
    return max(n, 0)


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
    cdef int ntrees = len(ts), i, j, n, nl, line, length
    cdef int kk = MAX_MOVES if k is None else min(check_int("k", k, min=1), MAX_MOVES)
    cdef int dd = check_int("depth", depth, min=1, max=MAX_LINE)
    cdef MCTSTree tr
    cdef bint solver = False
    cdef MNode** ptrs
    cdef int32_t* first
    cdef int32_t* cur
    cdef int32_t lengths[MAX_MOVES]
    cdef uint8_t taken[MAX_MOVES]
    cdef LineStep* out
    cdef LineStep best
    if ntrees == 0:
        return []
    ptrs = <MNode**>malloc(ntrees * sizeof(MNode*))
    first = <int32_t*>malloc(2 * ntrees * sizeof(int32_t))
    if ptrs == NULL or first == NULL:
        free(ptrs)
        free(first)
        raise MemoryError("mcts_lines: no memory for the tree table")
    cur = first + ntrees
    out = NULL
    try:
        for i in range(ntrees):
            tr = ts[i]
            ptrs[i] = tr.t.nodes if tr.t.used else NULL
            solver = solver or tr.t.solver
        n = root_block(ptrs, ntrees, first)
        nl = min(kk, n)
        if nl == 0:
            return []
        out = <LineStep*>malloc(<size_t>nl * dd * sizeof(LineStep))
        if out == NULL:
            raise MemoryError(f"mcts_lines: no memory for {nl} lines of {dd} moves")
        with nogil:
            memset(taken, 0, sizeof(taken))
            for line in range(nl):
                j = pick_child(ptrs, first, ntrees, n, solver, taken, False, &best)
                taken[j] = 1
                lengths[line] = line_from(ptrs, first, cur, ntrees, j, dd, solver,
                                          out + <size_t>line * dd)
        result = []
        for line in range(nl):
            steps = []
            for i in range(lengths[line]):
                best = out[<size_t>line * dd + i]
                steps.append((best.move, best.visits,
                              <double>best.wsum / best.visits if best.visits else 0.0,
                              best.proven))
            result.append(steps)
        return result
    finally:
        free(out)
        free(first)
        free(ptrs)
