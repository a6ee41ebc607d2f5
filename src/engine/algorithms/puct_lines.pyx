# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The principal variations of PUCT trees, read without changing them:
``forest_lines`` walks the most visited children of one or more trees of one
position in C without the GIL; ``forest_children_of`` lists one node's
children, the slow reference the tests check the walk against.

The trees are a ``PUCTForest``'s (puct.pyx); the caller keeps searches off
them meanwhile (``ttt_engine.search.PUCT`` does).
"""
from libc.stdint cimport int8_t, uint8_t, int32_t, int64_t
from libc.string cimport memset
from libc.stdlib cimport malloc, free

from ttt_engine._util import check_int

from ttt_engine._core.algorithms.game cimport MAX_MOVES
from ttt_engine._core.algorithms.mcts import MAX_LINE
from ttt_engine._core.algorithms.nodes cimport PNode
from ttt_engine._core.algorithms.puct_tree cimport PTree
from ttt_engine._core.algorithms.puct cimport PUCTForest


cdef struct LineStep:
    int64_t visits          # summed over the trees that hold the node
    double wsum
    int32_t move
    int8_t proven           # +1 / -1 proven in any tree (proofs are exact), else 0


cdef inline void child_sum(PNode** trees, const int32_t* first, int ntrees, int j,
                           LineStep* out) noexcept nogil:
    """Child ``j`` of the block at ``first[i]`` in every tree that holds the
    block (``first[i] >= 0``), its counts summed.  ``expand`` writes a
    position's children in ascending move order, so the blocks of one
    position line up index by index in every tree."""
    cdef int i
    cdef const PNode* nd
    out.visits = 0
    out.wsum = 0.0
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


cdef inline bint step_better(const LineStep* a, const LineStep* b) noexcept nogil:
    """``choose_move``'s order: a proven win first, proven losses last, then
    more visits (ties go to the earlier child, which the caller keeps)."""
    if a.proven != b.proven:
        return a.proven > b.proven
    return a.visits > b.visits


cdef inline int pick_child(PNode** trees, const int32_t* first, int ntrees, int n,
                           const uint8_t* taken, bint visited, LineStep* best) noexcept nogil:
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
        if b < 0 or step_better(&cand, best):
            b = j
            best[0] = cand
    return b


cdef int line_from(PNode** trees, const int32_t* root_first, int32_t* cur, int ntrees, int j,
                   int depth, LineStep* out) noexcept nogil:
    """The line that starts with root child ``j``: from there, the best
    visited child at each node, to ``depth`` steps or a node no tree has
    expanded (a leaf, a finished game, a proven node); written to ``out``,
    returns its length."""
    cdef int i, n, length = 0
    cdef const PNode* nd
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
        j = pick_child(trees, cur, ntrees, n, NULL, True, &best)
        if j < 0:
            break
    return length


cdef int root_block(PNode** trees, int ntrees, int32_t* first) noexcept nogil:
    """The root's child block in each tree (``first[i]``, -1 where its root
    is unexpanded); returns the number of root children."""
    cdef int i, n = -1
    for i in range(ntrees):
        first[i] = -1
        if trees[i][0].first_child < 0:
            continue
        if n < 0:
            n = trees[i][0].nchildren
        if trees[i][0].nchildren == n:
            first[i] = trees[i][0].first_child
    return max(n, 0)


def forest_lines(forests, slot, k, depth):
    """The principal variations of tree ``slot`` of each of ``forests``
    (trees of one position: the root-parallel trees of one search, or a
    single one): for the ``k`` best root moves (all with None;
    ``forest_best_move``'s order on the counts summed over the trees), the
    line below each, at most ``depth`` moves, following at every node the
    visited child with the most visits summed over the trees that hold the
    node (a proven win first, proven losses last; ties: the first in move
    order).  Returns a list of lines, best first, each a list of ``(move,
    visits, mean, proven)``: ``mean`` in [-1, 1] and ``proven`` (+1 win, -1
    loss, 0 unknown) for the player who made the move.  Read-only; the
    caller keeps searches off the trees meanwhile (``search.PUCT`` does)."""
    cdef list fs = list(forests)
    cdef int ntrees = len(fs), i, j, n, nl, line
    cdef int kk = MAX_MOVES if k is None else min(check_int("k", k, min=1), MAX_MOVES)
    cdef int dd = check_int("depth", depth, min=1, max=MAX_LINE)
    cdef int s = check_int("slot", slot, min=0)
    cdef PUCTForest f
    cdef PNode** ptrs
    cdef int32_t* first
    cdef int32_t* cur
    cdef int32_t lengths[MAX_MOVES]
    cdef uint8_t taken[MAX_MOVES]
    cdef LineStep* out
    cdef LineStep best
    for i in range(ntrees):
        if not isinstance(fs[i], PUCTForest):
            raise TypeError(f"forest_lines reads PUCTForest objects, got {type(fs[i]).__name__}")
        if s >= (<PUCTForest>fs[i]).n:
            raise ValueError(f"slot must be below {(<PUCTForest>fs[i]).n}, the forest's trees; "
                             f"got {s}")
    if ntrees == 0:
        return []
    ptrs = <PNode**>malloc(ntrees * sizeof(PNode*))
    first = <int32_t*>malloc(2 * ntrees * sizeof(int32_t))
    if ptrs == NULL or first == NULL:
        free(ptrs)
        free(first)
        raise MemoryError("forest_lines: no memory for the tree table")
    cur = first + ntrees
    out = NULL
    try:
        for i in range(ntrees):
            f = fs[i]
            ptrs[i] = f.trees[s].nodes
        n = root_block(ptrs, ntrees, first)
        nl = min(kk, n)
        if nl == 0:
            return []
        out = <LineStep*>malloc(<size_t>nl * dd * sizeof(LineStep))
        if out == NULL:
            raise MemoryError(f"forest_lines: no memory for {nl} lines of {dd} moves")
        with nogil:
            memset(taken, 0, sizeof(taken))
            for line in range(nl):
                j = pick_child(ptrs, first, ntrees, n, taken, False, &best)
                taken[j] = 1
                lengths[line] = line_from(ptrs, first, cur, ntrees, j, dd,
                                          out + <size_t>line * dd)
        result = []
        for line in range(nl):
            steps = []
            for i in range(lengths[line]):
                best = out[<size_t>line * dd + i]
                steps.append((int(best.move), int(best.visits),
                              best.wsum / best.visits if best.visits else 0.0,
                              int(best.proven)))
            result.append(steps)
        return result
    finally:
        free(out)
        free(first)
        free(ptrs)


def forest_children_of(PUCTForest f, slot, path):
    """``[(move, visits, mean, proven), ...]`` for the children of the node
    of tree ``slot`` reached from its root by the moves of ``path``, in
    move order (``mean`` and ``proven`` for the player who made the
    child's move); ``[]`` if that node is unexpanded, None if the path
    leaves the tree.  Read-only: the slow reference of ``forest_lines``."""
    cdef PTree* t = &f.trees[check_int("slot", slot, min=0, max=f.n - 1)]
    cdef int32_t node = 0, k
    cdef PNode* nd
    for m in path:
        nd = &t.nodes[node]
        if nd.first_child < 0:
            return None
        for k in range(nd.first_child, nd.first_child + nd.nchildren):
            if t.nodes[k].move == m:
                node = k
                break
        else:
            return None
    nd = &t.nodes[node]
    if nd.first_child < 0:
        return []
    return [(int(t.nodes[k].move), int(t.nodes[k].visits),
             t.nodes[k].wsum / t.nodes[k].visits if t.nodes[k].visits else 0.0,
             int(t.nodes[k].proven))
            for k in range(nd.first_child, nd.first_child + nd.nchildren)]
