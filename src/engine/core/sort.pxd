# cython: language_level=3
"""Sorting of the short integer lists of the hot loops (move lists, move
orders): inline, nogil, in place, no allocation."""


cdef inline void sort_ints(int* a, int n) noexcept nogil:
    """Ascending insertion sort of ``a[0:n]`` (short lists: moves of a node)."""
    cdef int i, j, k
    for i in range(1, n):
        k = a[i]
        j = i - 1
        while j >= 0 and a[j] > k:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = k
