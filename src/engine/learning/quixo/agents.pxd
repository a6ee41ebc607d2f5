# cython: language_level=3
"""Quixo agents the C tournament runs: random, epsilon-greedy on a value
table, one-ply heuristic.  ``agent_choose`` is the whole policy in C."""
from ttt_engine._core.core.rng cimport rng_t
from ttt_engine._core.games.quixo.rules cimport QuixoState
from ttt_engine._core.learning.quixo.values cimport VTab

cdef enum:
    AGENT_RANDOM = 0
    AGENT_GREEDY = 1       # epsilon-greedy on a ValueTable
    AGENT_HEURISTIC = 2    # one ply: win now, else best line-count evaluation


cdef struct AgentSpec:
    int kind
    double epsilon
    double unknown
    bint exact_terminal    # greedy: score terminal children 1/0/draw instead of the table
    VTab* table


cdef class Agent:
    cdef AgentSpec spec
    cdef rng_t rng
    cdef readonly str name
    cdef readonly object seed   # the resolved seed of select_move's generator
    cdef object _ref            # keeps the ValueTable alive
    cdef _seed(self, seed)
    cdef _init_plain(self, int kind, str name, seed, simulations, time, depth)


cdef int agent_choose(const AgentSpec* a, const QuixoState* s, rng_t* rng) noexcept nogil
