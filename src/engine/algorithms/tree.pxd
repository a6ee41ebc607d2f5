# cython: language_level=3
"""Tree reuse, shared by every tree search (MCTS, PUCT, tree Q-learning, Sarsa).

After moves are played, the search looks for the new position among the old
root's descendants (``tree_find``), or for the root's child reached by the
move just played (``tree_root_child``), and keeps that subtree
(``tree_keep``: copied into a second arena, which becomes the tree).  The node
layouts differ per algorithm (``MNode``, ``TLNode``, ``PNode``) but all keep
children in one contiguous block (``first_child``, ``nchildren``) and the
``move`` that led to a node, so one fused implementation serves them all.
"""
from libc.stdint cimport int32_t, uint64_t
from ttt_engine._core.algorithms.game cimport (
    GameState, undo_t, game_hash, game_to_move, game_make, game_unmake,
)
from ttt_engine._core.algorithms.nodes cimport TreeNode, LinkedNode


cdef inline int32_t tree_find_at(GameState* s, TreeNode* nodes, int32_t node, uint64_t key,
                                 int to_move, int depth) noexcept nogil:
    """Node exactly ``depth`` plies below ``node`` (``s`` is its position, restored
    on return) whose position matches ``key`` and ``to_move``; -1 if none."""
    cdef int32_t k, r, first = nodes[node].first_child
    cdef undo_t u
    if depth == 0:
        if game_hash(s) == key and game_to_move(s) == to_move:
            return node
        return -1
    if first < 0:
        return -1
    for k in range(first, first + nodes[node].nchildren):
        u = game_make(s, nodes[k].move)
        r = tree_find_at(s, nodes, k, key, to_move, depth - 1)
        game_unmake(s, nodes[k].move, u)
        if r >= 0:
            return r
    return -1


cdef inline int32_t tree_find(const GameState* root, TreeNode* nodes, const GameState* target,
                              int max_depth) noexcept nogil:
    """Index of ``target``'s node in the tree rooted at node 0 (position ``root``),
    at most ``max_depth`` plies down; -1 if absent.  Shallowest match first
    (depth 0, 1, 2, ...), so a move pair is found at depth 2 without walking
    the deeper subtrees of the other children."""
    cdef GameState work = root[0]
    cdef uint64_t key = game_hash(target)
    cdef int to_move = game_to_move(target), d
    cdef int32_t r
    for d in range(max_depth + 1):
        r = tree_find_at(&work, nodes, 0, key, to_move, d)
        if r >= 0:
            return r
    return -1


cdef inline int32_t tree_root_child(const TreeNode* nodes, int move) noexcept nogil:
    """Index of the root's (node 0's) child reached by ``move``; -1 if the
    root has none (or is not expanded)."""
    cdef int32_t k, first = nodes[0].first_child
    if first < 0:
        return -1
    for k in range(first, first + nodes[0].nchildren):
        if nodes[k].move == move:
            return k
    return -1


cdef inline int32_t tree_copy_subtree(const LinkedNode* src, LinkedNode* dst,
                                      int32_t new_root) noexcept nogil:
    """Copy the subtree under ``src[new_root]`` breadth first into ``dst`` (root
    at index 0, each child block kept contiguous, parent links renumbered);
    returns the number of nodes copied.  The caller swaps its two arenas."""
    cdef int32_t head = 0, tail = 1, old_first, k, nch
    dst[0] = src[new_root]
    dst[0].parent = -1
    while head < tail:
        old_first = dst[head].first_child
        if old_first >= 0:
            nch = dst[head].nchildren
            dst[head].first_child = tail
            for k in range(nch):
                dst[tail + k] = src[old_first + k]
                dst[tail + k].parent = head
            tail += nch
        head += 1
    return tail


cdef inline void tree_keep(LinkedNode** nodes, LinkedNode** alt, int32_t* used,
                           int32_t new_root) noexcept nogil:
    """Keep the subtree under ``new_root`` of the tree ``nodes[0]`` (``used``
    nodes): copied into the second arena ``alt[0]``, which becomes the tree
    (the two arenas swap; ``used`` becomes the subtree's size)."""
    cdef LinkedNode* src = nodes[0]
    used[0] = tree_copy_subtree(src, alt[0], new_root)
    nodes[0] = alt[0]
    alt[0] = src
