# cython: language_level=3
"""The tree nodes of the search algorithms, one struct per algorithm.

Every layout keeps a node's children in one contiguous block (``first_child``,
``nchildren``) and the ``move`` that led to the node, which is all that
``tree.pxd``'s tree reuse needs.  They live here, below both ``tree.pxd`` and
the algorithms, so the shared helper does not depend on its users.
"""
from libc.stdint cimport int32_t, int16_t, int8_t, uint16_t, uint8_t


# Monte Carlo tree search (mcts.pyx)
cdef struct MNode:          # 32 bytes
    int32_t parent       # -1 for the root
    int32_t first_child  # -1 while unexpanded; children are contiguous
    int32_t visits
    int32_t wsum         # sum of rewards (+1 win, 0 draw, -1 loss) for ``mover``
    float mean           # wsum / visits (cached for the selection loop)
    float isq            # 1 / sqrt(visits) (cached for the selection loop)
    int16_t move         # move that led here from the parent (-1 at the root)
    uint16_t prior       # prior-guided search: P(parent, move) in units of 1/65535
    uint8_t nchildren    # at most 224 (Clobber 8x8); every game's MAX_MOVES < 256
    int8_t mover         # player who made ``move`` (0 / 1)
    int8_t proven        # solver: +1 proven win for ``mover``, -1 proven loss, 0 unknown
    uint8_t guide        # prior-guided search: PRIOR_NONE / PRIOR_QUEUED / PRIOR_READY


# Tree Q-learning and Sarsa (treelearn.pyx)
cdef struct TLNode:           # 24 bytes
    double q                  # Q of (parent board, move), from the side to move HERE
    int32_t first_child       # -1 while unexpanded; children are contiguous
    int32_t visits            # simulations through this node
    int16_t nchildren
    int16_t move              # move that led here (-1 at the root)
    int8_t to_move            # side to move at this node's board
    int8_t terminal           # 1 when the game is over at this node


# PUCT, AlphaZero's search (puct.pyx)
cdef struct PNode:          # 32 bytes
    int32_t parent          # -1 for the root
    int32_t first_child     # -1 while unexpanded; children are contiguous, in move order
    int32_t visits
    int32_t pending         # leaves below waiting for the evaluator (virtual losses)
    double wsum             # sum of backed-up values from the view of the player who moved here
    float prior             # P(parent, move) from the evaluator's policy
    uint8_t nchildren       # every game's MAX_MOVES < 256
    int8_t proven           # solver: +1 proven win for the player who moved here, -1 loss, 0 unknown
    int16_t move            # move that led here from the parent (-1 at the root)


ctypedef fused TreeNode:
    MNode
    TLNode
    PNode

# The nodes that keep a parent link (the searches that back values up the tree).
ctypedef fused LinkedNode:
    MNode
    PNode
