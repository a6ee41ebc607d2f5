# cython: language_level=3
"""What MCTS's and tree learning's node arenas share, written once: their node
count, capacity and seeded generator.  A subclass points ``_used``, ``_cap``
and ``_rng`` at the fields of its own tree struct in ``__cinit__``."""
from ttt_engine._core.core.rng cimport rng_seed


cdef class TreeArena:

    def clear(self):
        """Drop the whole tree (the RNG stream continues)."""
        self._used[0] = 0

    def reseed(self, uint64_t seed):
        """Restart the generator from ``seed``."""
        self.seed = seed
        rng_seed(self._rng, seed)

    @property
    def nodes_used(self):
        return self._used[0]

    @property
    def max_nodes(self):
        return self._cap[0]
