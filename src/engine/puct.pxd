# cython: language_level=3
"""PUCT (AlphaZero's search): the node of its arena (see puct.pyx)."""
from libc.stdint cimport int32_t, int16_t


cdef struct PNode:          # 32 bytes
    int32_t parent          # -1 for the root
    int32_t first_child     # -1 while unexpanded; children are contiguous, in move order
    int32_t visits
    int32_t pending         # leaves below waiting for the evaluator (virtual losses)
    double wsum             # sum of backed-up values from the view of the player who moved here
    float prior             # P(parent, move) from the evaluator's policy
    int16_t nchildren
    int16_t move            # move that led here from the parent (-1 at the root)
