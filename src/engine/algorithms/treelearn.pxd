# cython: language_level=3
"""Tree Q-learning and Sarsa: node arena shared by both learners."""
from libc.stdint cimport int32_t, int16_t, int8_t, uint8_t, uint64_t
from ttt_engine._core.core.rng cimport rng_t
from ttt_engine._core.algorithms.arena cimport TreeArena
from ttt_engine._core.algorithms.nodes cimport TLNode

cdef enum:
    TL_QLEARN = 0
    TL_SARSA = 1
    TL_MAX_PATH = 2048        # longest simulated game kept on the path stack
    TL_ALPHA_TABLE = 2048     # alpha(x) tabulated for x < this (then constant)

cdef struct TLTree:
    TLNode* nodes
    int32_t* remap            # compaction scratch (same length as nodes)
    int32_t cap
    int32_t used
    int algo                  # TL_QLEARN / TL_SARSA
    double epsilon            # probability of a uniformly random move in a simulation
    double win                # utility of a win (a loss is -win, a draw 0)
    double A                  # Q-learning: alpha = max(A * exp(-k x), alpha_min)
    double k
    double alpha_min
    double alpha              # Sarsa: constant learning rate
    double gamma              # Sarsa: discount
    uint64_t tail_sims        # simulations that ran out of arena and finished randomly
    rng_t rng
    int32_t path[TL_MAX_PATH]
    double alpha_tab[TL_ALPHA_TABLE]

cdef class TreeLearner(TreeArena):
    cdef TLTree t
