# cython: language_level=3
"""Monte Carlo tree search (UCT) over the game interface: the node arena.

Nodes are plain structs in one preallocated array (indices, not pointers to
Python objects).  A node's children are allocated together, contiguously, when
it is expanded; when the arena is full no node is expanded any more and the
search keeps simulating from the leaves it reaches.
"""
from libc.stdint cimport int32_t, int16_t, int8_t, uint8_t, uint64_t
from ttt_engine._core.core.rng cimport rng_t
from ttt_engine._core.algorithms.arena cimport TreeArena
from ttt_engine._core.algorithms.nodes cimport MNode
from ttt_engine._core.algorithms.valuenet cimport VNet

cdef struct MTree:
    MNode* nodes
    MNode* alt           # second arena for compaction on tree reuse (lazy)
    int32_t cap
    int32_t used
    int32_t expand_after # visits a leaf needs before it is expanded (0: at once)
    bint solver          # MCTS-Solver proofs (mcts_iterate_solver)
    int playout          # PLAYOUT_RANDOM or PLAYOUT_DECISIVE (game_policy_playout)
    double c             # exploration constant
    float cf             # the same, as float for the selection loop
    rng_t rng
    # Prior-guided search (off while ``queue`` is NULL): a node with
    # ``prior_visits`` visits is queued for the evaluator, its planes written
    # to ``obs`` / ``mask``; once its children's priors are installed it
    # selects by PUCT with ``c_puct``.
    int32_t* queue
    int32_t queue_len
    int32_t queue_cap
    int32_t prior_visits
    float c_puct
    int8_t* obs
    uint8_t* mask
    int obs_size
    int num_actions
    # Value network at the new leaves (off while ``vnet`` is NULL): a leaf
    # scores ``value_weight`` * the network's value + (1 - value_weight) * a
    # playout's result.  Rewards are then in units of 1 / ``unit`` in
    # ``MNode.wsum`` (1 without the network: whole wins), so a node takes at
    # most ``max_visits`` visits before its int32 sum could overflow.
    const VNet* vnet
    float value_weight
    char* vn_root           # the root's accumulator (refreshed by each run)
    char* vn_leaf           # the new leaf's (from the root's and their feature change)
    char* vn_child          # a child's of the new leaf (``score_children``)
    bint score_children     # an expansion scores every child: one visit of its value
    bint leaf_from_children # the leaf's reward: its best child's value (one ply of minimax)
    # Implicit minimax backups (Lanctot et al. 2014; off while NULL): each
    # node's minimax value over the network values of the tree's frontier,
    # for its mover, one float per node; selection ranks a child by
    # (1 - minimax_weight) * mean + minimax_weight * minimax.
    float* minimax
    float minimax_weight
    # Value priors (off while 0): an expansion with every child scored also
    # gives the children priors softmax(value / prior_temp) and the node
    # selects by PUCT with ``c_puct`` over the children's values.
    float prior_temp
    int32_t unit
    float inv_unit
    int32_t max_visits

cdef enum:
    PRIOR_NONE = 0          # MNode.guide: selection by UCB1
    PRIOR_QUEUED = 1        # waiting for the evaluator (still UCB1)
    PRIOR_READY = 2         # children carry priors: selection by PUCT

cdef enum:
    PLAYOUT_RANDOM = 0      # the game's uniform random playout
    PLAYOUT_DECISIVE = 1    # decisive (and, in UTTT, anti-decisive) moves

cdef class MCTSTree(TreeArena):
    cdef MTree t
    cdef object _queue_buf, _obs_buf, _mask_buf   # numpy arrays behind t.queue / obs / mask
    cdef object _vnet, _vn_buf                      # the CompiledValueNet, its accumulators
    cdef object _minimax_buf                        # numpy array behind t.minimax
    cdef int _compact(self, int32_t new_root) except -1
