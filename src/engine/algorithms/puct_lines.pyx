# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""What PUCT trees say, read without changing them: the root's children and
the move to play (``forest_root_children``, ``forest_best_move``: the most
visited, ties to the higher prior, puct_tree.pxd's ``choose_move``), and
the principal variations: ``forest_lines`` walks the most visited children
of one or more trees of one position in C without the GIL (the walk of
``tree_lines.pxd``, in ``choose_move``'s order); ``forest_children_of``
lists one node's children, the slow reference the tests check the walk
against.

The trees are a ``PUCTForest``'s (puct.pyx); the caller keeps searches off
them meanwhile (``ttt_engine.search.PUCT`` does).
"""
from libc.stdint cimport int32_t

from ttt_engine._util import check_int

from ttt_engine._core.algorithms.game cimport GameState, GameBoard, MAX_MOVES
from ttt_engine._core.algorithms.game_actions cimport game_move_to_action
from ttt_engine._core.algorithms.nodes cimport PNode
from ttt_engine._core.algorithms.puct_tree cimport PTree, choose_move
from ttt_engine._core.algorithms.puct cimport PUCTForest
from ttt_engine._core.algorithms cimport tree_lines
from ttt_engine._core.algorithms.tree_lines cimport TIES_PRIOR, read_lines

#: Longest principal variation read from a tree (plies).
MAX_LINE = tree_lines.MAX_LINE


def forest_lines(forests, slot, k, depth):
    """The principal variations of tree ``slot`` of each of ``forests``
    (trees of one position: the root-parallel trees of one search, or a
    single one): for the ``k`` best root moves (all with None;
    ``forest_best_move``'s order on the counts summed over the trees), the
    line below each, at most ``depth`` moves, following at every node the
    visited child with the most visits summed over the trees that hold the
    node (a proven win first, proven losses last; ties: the higher prior,
    the first tree's, then the first in move order).  Returns a list of
    lines, best first, each a list of ``(move, visits, mean, proven)``:
    ``mean`` in [-1, 1] and ``proven`` (+1 win, -1 loss, 0 unknown) for the
    player who made the move.  Read-only; the
    caller keeps searches off the trees meanwhile (``search.PUCT`` does)."""
    cdef list fs = list(forests)
    cdef int ntrees = len(fs), i
    cdef int kk = MAX_MOVES if k is None else min(check_int("k", k, min=1), MAX_MOVES)
    cdef int dd = check_int("depth", depth, min=1, max=tree_lines.MAX_LINE)
    cdef int s = check_int("slot", slot, min=0)
    cdef bytearray table
    cdef PNode** ptrs
    for i in range(ntrees):
        if not isinstance(fs[i], PUCTForest):
            raise TypeError(f"forest_lines reads PUCTForest objects, got {type(fs[i]).__name__}")
        if s >= (<PUCTForest>fs[i]).n:
            raise ValueError(f"slot must be below {(<PUCTForest>fs[i]).n}, the forest's trees; "
                             f"got {s}")
    table = bytearray(ntrees * sizeof(PNode*))     # the trees' arenas, freed with it
    ptrs = <PNode**><char*>table
    for i in range(ntrees):
        ptrs[i] = (<PUCTForest>fs[i]).trees[s].nodes
    # choose_move's order: proofs always, equal visits to the higher prior
    return read_lines(ptrs, ntrees, kk, dd, True, TIES_PRIOR, "forest_lines")


def forest_children_of(PUCTForest f, slot, path):
    """``[(move, visits, mean, proven, prior), ...]`` for the children of the
    node of tree ``slot`` reached from its root by the moves of ``path``, in
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
             int(t.nodes[k].proven), float(t.nodes[k].prior))
            for k in range(nd.first_child, nd.first_child + nd.nchildren)]


cdef inline int _root_action(PUCTForest f, GameState* proto, int slot, int move) noexcept nogil:
    """The action of ``move`` at tree ``slot``'s root (``proto``: its game)."""
    return game_move_to_action(&(<GameState*>f.roots)[slot], move)


def forest_root_children(PUCTForest f, GameBoard proto, int slot):
    """``[(move, action, visits, prior, mean, proven), ...]`` of tree ``slot``'s
    root in move order; ``mean`` from the side to move at the root, ``proven``
    +1 a proven win for it, -1 a proven loss, 0 unknown."""
    cdef PTree* t = &f.trees[slot]
    cdef PNode* root = &t.nodes[0]
    cdef int32_t k
    out = []
    if root.first_child < 0:
        return out
    for k in range(root.first_child, root.first_child + root.nchildren):
        out.append((int(t.nodes[k].move), _root_action(f, &proto.state, slot, t.nodes[k].move),
                    int(t.nodes[k].visits), float(t.nodes[k].prior),
                    t.nodes[k].wsum / t.nodes[k].visits if t.nodes[k].visits else 0.0,
                    int(t.nodes[k].proven)))
    return out


def forest_best_move(PUCTForest f, int slot):
    """The move to play: the most visited root move (ties: the higher prior,
    then the first in move order; a proven win first, proven losses last);
    None if unexpanded."""
    cdef PTree* t = &f.trees[slot]
    if t.nodes[0].first_child < 0:
        return None
    return choose_move(t, False, NULL)
