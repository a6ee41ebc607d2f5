# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""MCTS's rewards (mcts.pyx): the back-propagation step at one node, a
finished game's result, and the value network's scores of a new leaf and of
its children (``MTree.vnet``), a playout mixed in where ``value_weight`` < 1.
Rewards are for the first player, in units of 1 / ``MTree.unit``."""
from libc.stdint cimport int32_t
from libc.math cimport sqrtf, lrintf
from ttt_engine._core.algorithms.game cimport (
    GameState, GAME_ONGOING, GAME_WIN_FIRST, GAME_DRAW, game_to_move, game_make, game_status,
)
from ttt_engine._core.algorithms.nodes cimport MNode
from ttt_engine._core.algorithms.mcts cimport MTree
from ttt_engine._core.algorithms.policy_playout cimport policy_playout
from ttt_engine._core.algorithms.valuenet cimport vn_output, vn_update, vn_value_after
from ttt_engine._core.algorithms.game_features cimport game_feature_diff
from ttt_engine._core.core.features cimport FeatureDiff


cdef inline void record(MNode* nd, int32_t reward, float inv_unit) noexcept nogil:
    """Back-propagation at one node: one more visit with ``reward`` for the
    first player (in units of 1 / ``MTree.unit``), scored from the node's
    mover's side (negamax)."""
    cdef float inv
    nd.visits += 1
    nd.wsum += reward if nd.mover == 0 else -reward
    inv = 1.0 / <float>nd.visits
    nd.mean = <float>nd.wsum * inv * inv_unit
    nd.isq = sqrtf(inv)


cdef inline int32_t status_reward(int status, int32_t unit) noexcept nogil:
    """A finished game's reward for the first player: +unit, -unit, 0 for a draw."""
    if status == GAME_DRAW:
        return 0
    return unit if status == GAME_WIN_FIRST else -unit


cdef inline void leaf_accumulator(const GameState* root, MTree* t,
                                  const GameState* work) noexcept nogil:
    """``t.vn_leaf`` becomes the new leaf ``work``'s accumulator (from the
    root's and their feature change)."""
    cdef FeatureDiff d
    game_feature_diff(root, work, &d)
    vn_update(t.vnet, t.vn_leaf, t.vn_root, &d)


cdef inline float leaf_output(MTree* t, const GameState* work) noexcept nogil:
    """The network's value of the leaf whose accumulator ``t.vn_leaf`` holds,
    for the first player."""
    cdef float v = vn_output(t.vnet, t.vn_leaf)
    return v if game_to_move(work) == 0 else -v


cdef inline int32_t score_children(MTree* t, const GameState* leaf, int32_t first,
                                   int n) noexcept nogil:
    """Give each new child of ``leaf`` its first visit: the network's value
    (a finished game: its result), each child's accumulator from the leaf's
    (``t.vn_leaf``, already the leaf's) and the move's change.  Selection then
    ranks the children by their values at once, instead of visiting each once
    in move order first (the evaluations cost less than the visits).  Returns
    the best child's reward for the leaf's side to move, as a reward for the
    first player (one ply of minimax: the leaf's value as its children see it)."""
    cdef FeatureDiff d
    cdef GameState child
    cdef int k, status
    cdef float v
    cdef int32_t reward, best = -2 * t.unit
    cdef int mover = game_to_move(leaf)
    for k in range(n):
        child = leaf[0]
        game_make(&child, t.nodes[first + k].move)
        status = game_status(&child)
        if status != GAME_ONGOING:
            reward = status_reward(status, t.unit)
        else:
            v = vn_value_after(t.vnet, t.vn_child, t.vn_leaf, leaf, &child, &d)
            reward = <int32_t>lrintf((v if game_to_move(&child) == 0 else -v) * <float>t.unit)
        record(&t.nodes[first + k], reward, t.inv_unit)
        if (reward if mover == 0 else -reward) > best:
            best = reward if mover == 0 else -reward
        if t.minimax != NULL:
            t.minimax[first + k] = <float>(reward if mover == 0 else -reward) * t.inv_unit
    # the leaf's own minimax value (its best child's) is the back-propagation's
    # to set: it compares it with the one the leaf's parent last read
    return best if mover == 0 else -best


cdef inline float minimax_of(const MTree* t, int32_t node) noexcept nogil:
    """An expanded node's minimax value for its mover: minus the best of its
    children's for theirs (a proven child: its proof, +1 or -1)."""
    cdef const MNode* nodes = t.nodes
    cdef int32_t k, first = nodes[node].first_child
    cdef float v, best = -2.0
    for k in range(first, first + nodes[node].nchildren):
        v = <float>nodes[k].proven if nodes[k].proven != 0 else t.minimax[k]
        if v > best:
            best = v
    return -best


cdef inline bint minimax_backup(MTree* t, int32_t node) noexcept nogil:
    """Back-propagation of the minimax value at one node on the way up (the
    children below it on the path are already updated).  Returns whether the
    node's parent may need its own again: False once a node's value stands,
    for then no ancestor's changes (each ancestor's value is a function of its
    children's, and only this path changed); the proofs ask on their own
    (the back-propagation's ``proved``)."""
    cdef float v
    if t.minimax == NULL:
        return False
    if t.nodes[node].first_child < 0:
        return True         # a frontier node: its proof or value may be new
    v = minimax_of(t, node)
    if v == t.minimax[node]:
        return False
    t.minimax[node] = v
    return True


cdef inline float selection_value(const MNode* ch, const float* minimax, float weight,
                                  int32_t k) noexcept nogil:
    """The value selection ranks child ``k`` by: its mean, mixed with its
    minimax value under implicit minimax backups (``minimax`` not NULL; the
    caller reads ``t.minimax`` once, so the plain search's loop keeps one
    predictable branch)."""
    if minimax == NULL:
        return ch.mean
    return ch.mean + weight * (minimax[k] - ch.mean)


cdef inline void minimax_rebuild(MTree* t) noexcept nogil:
    """Every node's minimax value again after the tree was compacted (kept
    below a new root): children lie after their parents, so one backward
    sweep; a frontier node's value is its mean (its network value or a
    finished game's result: minimax search runs with ``value_weight`` 1)."""
    cdef int32_t n = t.used - 1
    while n >= 0:
        if t.nodes[n].first_child >= 0:
            t.minimax[n] = minimax_of(t, n)
        elif t.nodes[n].proven != 0:
            t.minimax[n] = <float>t.nodes[n].proven
        else:
            t.minimax[n] = t.nodes[n].mean
        n -= 1


cdef inline int32_t leaf_reward(MTree* t, GameState* work, float r) noexcept nogil:
    """The reward for the first player (units of 1 / ``t.unit``) of a new
    leaf ``work`` whose network value is ``r``: mixed with a playout's result
    when ``t.value_weight < 1`` (the playout plays on ``work``)."""
    cdef int status
    if t.value_weight < 1.0:
        status = policy_playout(work, &t.rng, t.playout)
        r = t.value_weight * r + (1.0 - t.value_weight) * (
            0.0 if status == GAME_DRAW else (1.0 if status == GAME_WIN_FIRST else -1.0))
    return <int32_t>lrintf(r * <float>t.unit)
