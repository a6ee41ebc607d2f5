# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The principal variations of a tree learner's Q tree (treelearn.pyx), read
without changing it: ``tl_lines`` follows, from each root move, the child the
learner itself would play at every node (``TreeLearner.best_move``'s order:
the lowest q, ties to more visits, then to the first in move order) down to a
node the tree has not expanded, in C without the GIL; ``tl_children_of``
lists one node's children, the slow reference the tests walk instead.

MCTS's and PUCT's shared walk (``tree_lines.pxd``) does not fit these nodes:
it orders children by visits and proofs, while a tree learner plays by its
Q-values, which carry no visit-weighted sum to merge.  The caller keeps
training off the tree meanwhile (``tree_agents`` does).
"""
from libc.stdint cimport int8_t, int32_t
from libc.stdlib cimport malloc, free
from libc.string cimport memset

from ttt_engine._util import check_int

from ttt_engine._core.algorithms.game cimport MAX_MOVES
from ttt_engine._core.algorithms.nodes cimport TLNode
from ttt_engine._core.algorithms.treelearn cimport TreeLearner
from ttt_engine._core.algorithms cimport tree_lines

#: Longest principal variation read from a tree (plies), as for MCTS and PUCT.
MAX_LINE = tree_lines.MAX_LINE


cdef struct TLStep:
    double q            # from the side to move after the move (lower: better for its mover)
    int32_t visits
    int32_t move
    int8_t terminal


cdef inline bint tl_better(const TLNode* a, const TLNode* b) noexcept nogil:
    """The learner's own choice between two children: the lower q, then the
    more visited (the caller keeps the earlier child on a full tie)."""
    if a.q != b.q:
        return a.q < b.q
    return a.visits > b.visits


cdef inline int32_t tl_best(const TLNode* nodes, int32_t first, int n,
                            const char* taken) noexcept nogil:
    """Index of the best of the ``n`` children at ``first``, skipping those
    marked in ``taken`` (may be NULL); -1 if none is left."""
    cdef int32_t k, best = -1
    for k in range(first, first + n):
        if taken != NULL and taken[k - first]:
            continue
        if best < 0 or tl_better(&nodes[k], &nodes[best]):
            best = k
    return best


cdef inline int tl_line_from(const TLNode* nodes, int32_t node, int depth,
                             TLStep* out) noexcept nogil:
    """The line that starts at root child ``node``: the learner's choice at
    each node below, to ``depth`` steps or an unexpanded node; written to
    ``out``, returns its length."""
    cdef int length = 0
    cdef const TLNode* nd
    while True:
        nd = &nodes[node]
        out[length].q = nd.q
        out[length].visits = nd.visits
        out[length].move = nd.move
        out[length].terminal = nd.terminal
        length += 1
        if length >= depth or nd.first_child < 0 or nd.nchildren <= 0:
            return length
        node = tl_best(nodes, nd.first_child, nd.nchildren, NULL)


def tl_lines(TreeLearner tree, k, depth):
    """The principal variations of ``tree`` as its last training left it:
    for the ``k`` best root moves (all with None; ``best_move``'s order), the
    line below each, at most ``depth`` moves, following at every node the
    child the learner plays (the lowest q; ties: more visits, then the first
    in move order) down to a node the tree has not expanded.  Returns a list
    of lines, best first, each a list of ``(move, q, visits, terminal)``:
    ``q`` as in ``root_children`` (from the side to move after the move),
    ``terminal`` 1 where the move ends the game (its q is then exact).
    Read-only; ``[]`` for an empty tree or an unexpanded root."""
    cdef int kk = MAX_MOVES if k is None else min(check_int("k", k, min=1), MAX_MOVES)
    cdef int dd = check_int("depth", depth, min=1, max=tree_lines.MAX_LINE)
    cdef TLNode* nodes = tree.t.nodes
    cdef int32_t first, j
    cdef int n, nl, line, i
    cdef int lengths[MAX_MOVES]
    cdef char taken[MAX_MOVES]
    cdef TLStep* out
    cdef TLStep st
    if tree.t.used == 0 or nodes[0].first_child < 0 or nodes[0].nchildren <= 0:
        return []
    first = nodes[0].first_child
    n = nodes[0].nchildren
    nl = min(kk, n)
    out = <TLStep*>malloc(<size_t>nl * dd * sizeof(TLStep))
    if out == NULL:
        raise MemoryError(f"tl_lines: no memory for {nl} lines of {dd} moves")
    try:
        with nogil:
            memset(taken, 0, sizeof(taken))
            for line in range(nl):
                j = tl_best(nodes, first, n, taken)
                taken[j - first] = 1
                lengths[line] = tl_line_from(nodes, j, dd, out + <size_t>line * dd)
        result = []
        for line in range(nl):
            steps = []
            for i in range(lengths[line]):
                st = out[<size_t>line * dd + i]
                steps.append((int(st.move), float(st.q), int(st.visits), int(st.terminal)))
            result.append(steps)
        return result
    finally:
        free(out)


def tl_children_of(TreeLearner tree, path):
    """``[(move, q, visits, terminal), ...]`` for the children of the node
    reached from the root by the moves of ``path``, in move order; ``[]`` if
    that node is unexpanded, None if the path leaves the tree (or the tree
    is empty).  Read-only: the slow reference of ``tl_lines``."""
    cdef TLNode* nodes = tree.t.nodes
    cdef int32_t node = 0, c
    if tree.t.used == 0:
        return None
    for m in path:
        if nodes[node].first_child < 0:
            return None
        for c in range(nodes[node].first_child,
                       nodes[node].first_child + nodes[node].nchildren):
            if nodes[c].move == m:
                node = c
                break
        else:
            return None
    if nodes[node].first_child < 0:
        return []
    return [(int(nodes[c].move), float(nodes[c].q), int(nodes[c].visits),
             int(nodes[c].terminal))
            for c in range(nodes[node].first_child,
                           nodes[node].first_child + nodes[node].nchildren)]
