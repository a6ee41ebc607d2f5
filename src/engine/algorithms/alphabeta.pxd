# cython: language_level=3
"""Depth-first search over the game interface: minimax, negamax and alpha-beta
with a transposition table, move ordering and iterative deepening.

The searcher state (transposition table, principal-variation triangle, history
table, counters) lives in one C struct owned by an ``ABSearcher`` object, so
the fused search functions in alphabeta.pyx run without the GIL and allocate
nothing per node.
"""
from libc.stdint cimport uint64_t, int32_t, int16_t, uint8_t
from ttt_engine._core.algorithms.game cimport MAX_MOVES
from ttt_engine._core.core.interrupt cimport interrupt_t
from ttt_engine._core.core.features cimport FeatureDiff
from ttt_engine._core.algorithms.valuenet cimport VNet

cdef enum:
    MAX_PLY = 256            # deepest ply searched; deeper nodes are horizon nodes
    DEPTH_INF = 30000        # depth stored for subtrees that reached no horizon
    TT_EXACT = 0
    TT_LOWER = 1
    TT_UPPER = 2

# Terminal scores (alphabeta.pyx): a win ``p`` plies from the root scores
# ``WIN_SCORE - p`` = 1e9 - p (a loss ``-(1e9 - p)``), so faster wins and slower
# losses score higher.  Static evaluations are bounded by 1e6 (game.pxd).


cdef struct TTEntry:
    uint64_t key
    double value        # node-relative (win scores counted from the node)
    int32_t move        # best / refutation move, -1 if none
    int16_t depth       # remaining depth searched; DEPTH_INF = horizon-free
    uint8_t flag        # TT_EXACT / TT_LOWER / TT_UPPER
    uint8_t gen         # search generation; other generations are empty


cdef struct SearchCtx:
    TTEntry* tt
    uint64_t tt_size    # power of two
    int tt_shift        # 64 - log2(tt_size)
    uint8_t gen
    bint use_tt
    int tt_min_depth    # nodes with less remaining depth skip the table
    bint ply_in_key     # table key includes the distance from the root
    bint ordering
    bint pruning
    bint pvs            # principal variation search (null windows after the first move)
    int heuristic
    uint64_t nodes
    uint64_t horizon    # horizon evaluations (and TT hits that depended on one)
    bint timed
    bint stopped
    double deadline     # monotonic seconds
    interrupt_t* it     # interrupt check of the running search (NULL: none)
    int root_best
    int pv_len[MAX_PLY + 1]
    int pv[MAX_PLY + 1][MAX_PLY + 1]
    long long history[2][MAX_MOVES]    # history heuristic (sum of depth^2 per cutoff)
    int killers[MAX_PLY + 1][2]        # last two cutoff moves per ply (-1: none)
    # A value network as the horizon evaluation (NULL: the game's heuristic):
    # ``vn_stack`` holds an accumulator per ply (``vn_bytes`` each), the root's
    # at ply 0; every make writes the child's from its parent's.
    const VNet* vnet
    char* vn_stack
    size_t vn_bytes
    FeatureDiff vn_diff


cdef class ABSearcher:
    cdef SearchCtx* ctx
    cdef readonly uint64_t tt_size
