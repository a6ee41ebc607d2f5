# cython: language_level=3
"""Monotonic wall clock for time budgets inside ``nogil`` loops."""
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC


cdef inline double now_monotonic() noexcept nogil:
    """Seconds on the monotonic clock (unaffected by system clock changes)."""
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec + ts.tv_nsec * 1e-9
