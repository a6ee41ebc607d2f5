# cython: language_level=3
"""The principal-variation walk over one position's trees, written once for
MCTS (``mcts_lines.pyx``) and PUCT (``puct_lines.pyx``): both node layouts
keep ``move``, ``visits``, ``wsum``, ``proven``, ``prior`` and a contiguous
child block (``first_child``, ``nchildren``), which is all the walk reads.

Several trees of one position (root-parallel search) are read as one: at
every node the children's counts are summed over the trees that hold it.
The same position's children come in the same move order in every tree (one
move generator, expanded in its order), so the blocks line up index by index.
The walk changes nothing; the callers keep searches off the trees meanwhile.
"""
from libc.stdint cimport int8_t, uint8_t, int32_t, int64_t
from libc.stdlib cimport malloc, free
from libc.string cimport memset

from ttt_engine._core.algorithms.game cimport MAX_MOVES
from ttt_engine._core.algorithms.nodes cimport MNode, PNode


cdef enum:
    MAX_LINE = 1024         # longest line read from a tree (plies)

cdef enum:
    TIES_MEAN = 0           # children of equal visits: the higher mean first (MCTS)
    TIES_PRIOR = 1          # the higher prior first (PUCT: its priors are the evaluator's)


# The nodes whose principal variations are read.
ctypedef fused LineNode:
    MNode
    PNode


cdef struct LineStep:
    int64_t visits          # summed over the trees that hold the node
    double wsum             # MCTS's integer sums stay exact (far below 2**53)
    float prior             # the first tree's (MCTS: only meaningful in a guided node)
    int32_t move
    int8_t proven           # +1 / -1 proven in any tree (proofs are sound), else 0


cdef inline void child_sum(LineNode** trees, const int32_t* first, int ntrees, int j,
                           LineStep* out) noexcept nogil:
    """Child ``j`` of the block at ``first[i]`` in every tree that holds the
    block (``first[i] >= 0``), its counts summed."""
    cdef int i
    cdef LineNode* nd
    out.visits = 0
    out.wsum = 0.0
    out.proven = 0
    out.prior = 0.0
    out.move = -1
    for i in range(ntrees):
        if first[i] < 0:
            continue
        nd = &trees[i][first[i] + j]
        if out.move < 0:
            out.move = nd.move
            out.prior = <float>nd.prior
        out.visits += nd.visits
        out.wsum += nd.wsum
        if out.proven == 0:
            out.proven = nd.proven


cdef inline bint step_better(const LineStep* a, const LineStep* b, bint proofs,
                             int ties) noexcept nogil:
    """The search's own move order: with ``proofs``, a proven win first and
    proven losses last; then more visits; then the higher mean
    (``TIES_MEAN``) or the higher prior (``TIES_PRIOR``); else the caller
    keeps the earlier child."""
    cdef int ra = a.proven if proofs else 0
    cdef int rb = b.proven if proofs else 0
    if ra != rb:
        return ra > rb
    if a.visits != b.visits:
        return a.visits > b.visits
    if ties == TIES_PRIOR:
        return a.prior > b.prior
    return a.wsum * <double>b.visits > b.wsum * <double>a.visits


cdef inline int pick_child(LineNode** trees, const int32_t* first, int ntrees, int n,
                           bint proofs, int ties, const uint8_t* taken, bint visited,
                           LineStep* best) noexcept nogil:
    """Index of the best of the ``n`` children at ``first`` (``step_better``'s
    order; full ties: the first in move order), skipping those marked in ``taken`` (may be NULL) and, with
    ``visited``, those never visited; -1 if none is left."""
    cdef int j, b = -1
    cdef LineStep cand
    for j in range(n):
        if taken != NULL and taken[j]:
            continue
        child_sum(trees, first, ntrees, j, &cand)
        if visited and cand.visits == 0:
            continue
        if b < 0 or step_better(&cand, best, proofs, ties):
            b = j
            best[0] = cand
    return b


cdef inline int line_from(LineNode** trees, const int32_t* root_first, int32_t* cur, int ntrees,
                          int j, int depth, bint proofs, int ties,
                          LineStep* out) noexcept nogil:
    """The line that starts with root child ``j``: from there, the best
    visited child at each node, to ``depth`` steps or a node no tree has
    expanded (a leaf, a finished game, a proven node the solver stopped at);
    written to ``out``, returns its length."""
    cdef int i, n, length = 0
    cdef LineNode* nd
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
        j = pick_child(trees, cur, ntrees, n, proofs, ties, NULL, True, &best)
        if j < 0:
            break
    return length


cdef inline int root_block(LineNode** trees, int ntrees, int32_t* first) noexcept nogil:
    """The root's child block in each tree (``first[i]``, -1 where the tree is
    empty (NULL) or its root unexpanded); returns the number of root children."""
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


cdef inline list read_lines(LineNode** trees, int ntrees, int k, int depth, bint proofs,
                            int ties, str caller):
    """The lines of the ``k`` best root moves of ``trees`` (one position's,
    NULL for an empty tree), best first, each at most ``depth`` moves: a list
    of lines, each a list of ``(move, visits, mean, proven)``, ``mean`` and
    ``proven`` for the player who made the move.  ``caller`` names the
    public function in the out-of-memory message."""
    cdef int i, j, n, nl, line
    cdef int32_t lengths[MAX_MOVES]
    cdef uint8_t taken[MAX_MOVES]
    cdef int32_t* first
    cdef int32_t* cur
    cdef LineStep* out = NULL
    cdef LineStep best
    if ntrees <= 0:
        return []
    first = <int32_t*>malloc(2 * <size_t>ntrees * sizeof(int32_t))
    if first == NULL:
        raise MemoryError(f"{caller}: no memory for the tree table")
    cur = first + ntrees
    try:
        n = root_block(trees, ntrees, first)
        nl = min(k, n)
        if nl == 0:
            return []
        out = <LineStep*>malloc(<size_t>nl * depth * sizeof(LineStep))
        if out == NULL:
            raise MemoryError(f"{caller}: no memory for {nl} lines of {depth} moves")
        with nogil:
            memset(taken, 0, sizeof(taken))
            for line in range(nl):
                j = pick_child(trees, first, ntrees, n, proofs, ties, taken, False, &best)
                taken[j] = 1
                lengths[line] = line_from(trees, first, cur, ntrees, j, depth, proofs,
                                          ties, out + <size_t>line * depth)
        result = []
        for line in range(nl):
            steps = []
            for i in range(lengths[line]):
                best = out[<size_t>line * depth + i]
                steps.append((int(best.move), int(best.visits),
                              best.wsum / best.visits if best.visits else 0.0,
                              int(best.proven)))
            result.append(steps)
        return result
    finally:
        free(out)
        free(first)
