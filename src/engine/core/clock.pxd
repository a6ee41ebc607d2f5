# cython: language_level=3
"""Monotonic wall clock for time budgets inside ``nogil`` loops."""
from libc.stdint cimport uint64_t
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC


cdef inline double now_monotonic() noexcept nogil:
    """Seconds on the monotonic clock (unaffected by system clock changes)."""
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec + ts.tv_nsec * 1e-9


cdef inline double deadline_after(double start, double time_limit) noexcept nogil:
    """The monotonic time ``time_limit`` seconds after ``start``; 0 (no deadline)
    when ``time_limit`` <= 0."""
    return start + time_limit if time_limit > 0.0 else 0.0


cdef inline bint deadline_passed(double deadline, uint64_t step) noexcept nogil:
    """True when a deadline (> 0) has passed.  The clock is read every 64th step
    only: a step of a search loop is a microsecond or more, a clock read 20 ns."""
    return deadline > 0.0 and (step & 63) == 0 and step > 0 and now_monotonic() >= deadline
