# cython: language_level=3
"""The interface of puct.pyx, PUCT's forest search: the ``PUCTForest`` class
(its fields) and the search steps that self-play (puct_selfplay.pyx), the
search with an attached network (puct_network.pyx) and the
principal-variation walk (puct_lines.pyx) run on it."""
from libc.stdint cimport int8_t, uint8_t, int32_t, int64_t, uint64_t
from ttt_engine._core.core.rng cimport rng_t
from ttt_engine._core.core.interrupt cimport interrupt_t
from ttt_engine._core.algorithms.game cimport GameState
from ttt_engine._core.algorithms.nodes cimport PNode
from ttt_engine._core.algorithms.network cimport NetModel
from ttt_engine._core.algorithms.puct_tree cimport PParams, PTree, GumbelParams


cdef enum:
    LANE_INTS = 16      # lane_leaves' stride: a lane's count on a cache line of its own


cdef class PUCTForest:
    cdef PParams p
    cdef PNode* arena
    cdef PNode* arena2
    cdef PTree* trees
    cdef rng_t* rngs             # lane l's tree i: rngs[i + l * rng_stride]
    cdef int rng_stride
    cdef void* roots             # n GameState
    cdef void* leaf_states       # n * k GameState
    cdef size_t state_size
    cdef int32_t* leaf_nodes     # n * k (times lanes)
    cdef int32_t* leaf_slot      # n * k (times lanes)
    cdef double* leaf_values     # n * k (times lanes): the leaves' values during a backup
    cdef int* leaf_moves         # lanes > 1: each leaf's legal moves, their priors
    cdef float* leaf_priors      # (MAX_MOVES a leaf) and their number, made before
    cdef int32_t* leaf_nmoves    # the lock is taken
    cdef int32_t* lane_leaves    # leaves gathered in lane l: lane_leaves[l * LANE_INTS]
    cdef int* lock               # held while a lane changes the tree (lanes > 1); on
                                 # a cache line of its own (its own page): no other
                                 # field's reads miss whenever a lane takes it
    cdef int64_t* done           # simulations of each tree's current search
    cdef uint8_t* active
    cdef uint8_t* noise_due      # the root's priors still need their noise
    cdef int32_t* ply
    cdef int32_t* nrec
    cdef int8_t* rec_player
    cdef readonly int n, k, obs_size, num_actions, max_record, lanes
    cdef readonly int32_t cap
    cdef readonly uint64_t seed
    cdef readonly object observations   # int8 [n * k, obs_size]
    cdef readonly object masks          # bool [n * k, num_actions]
    cdef readonly object rec_obs        # int8 [n, max_record, obs_size]
    cdef readonly object rec_mask       # bool [n, max_record, num_actions]
    cdef readonly object rec_policy     # float32 [n, max_record, num_actions]
    cdef object _rec_player, _nrec, _ply
    cdef int8_t* obs_p
    cdef uint8_t* mask_p
    cdef int8_t* rec_obs_p
    cdef uint8_t* rec_mask_p
    cdef float* rec_policy_p
    cdef object net_owner        # the CompiledNetwork attached (keeps its model alive)
    cdef const NetModel* net
    cdef float* net_floats       # per lane: the forward pass's scratch,
    cdef int32_t* net_ints
    cdef float* net_logits       # its logits [n * k, num_actions]
    cdef float* net_values       # and values [n * k]
    cdef bint gumbel             # self-play with Gumbel root search (forest_set_gumbel)
    cdef GumbelParams gp
    cdef int32_t* gumbel_table   # gp.table
    cdef double* gumbel_g        # n * MAX_MOVES: each root's Gumbel noise

    cdef void _free_network(self) noexcept


cdef bint advance_root(PTree* t, int move) noexcept nogil
cdef void gather_all(GameState* proto, PUCTForest f, int64_t budget, int lane) noexcept nogil
cdef void backup_all(GameState* proto, PUCTForest f, const float* logits, const float* values,
                     bint uniform, int lane) noexcept nogil
cdef void gather_lane(GameState* proto, PUCTForest f, int64_t budget, int lane,
                      bint held) noexcept nogil
cdef void backup_lane(GameState* proto, PUCTForest f, const float* logits, const float* values,
                      bint uniform, int lane, bint keep) noexcept nogil
cdef int network_lane(GameState* proto, PUCTForest f, int64_t budget, double deadline,
                      int lane, interrupt_t* it, volatile int* other_stop,
                      int64_t* calls, int64_t* evaluations) noexcept nogil
