# cython: language_level=3
"""Interrupt checks for long ``nogil`` loops (Ctrl-C, other signals, a shared stop flag).

A hot loop calls ``interrupt_poll(&it)`` once per unit of work (a simulation, a
node, an episode).  The fast path is one decrement and a compare.  Every
``it.every`` calls it reads the monotonic clock (``it.every`` adapts so that
this happens about once a millisecond whatever a unit costs), and every
``it.period`` seconds (10 ms; up to 80 ms while another Python thread keeps
the GIL busy, so that waiting for the GIL never costs more than a few per
cent) the thread that handles signals - the main thread - takes the GIL and
calls ``PyErr_CheckSignals``.  Other threads never take the GIL here; they
only watch the optional shared ``stop`` flag, which the main thread sets when
it sees a signal (root-parallel searches share one flag between their threads).

When a signal handler raised (``KeyboardInterrupt`` for SIGINT), the exception
is kept in ``it`` and ``interrupt_poll`` returns True from then on; the loop
stops at the next point where its object is consistent, and the Python
boundary calls ``interrupt_finish(&it)``, which raises the kept exception.
Usage::

    cdef interrupt_t it
    interrupt_init(&it, 64, NULL)          # with the GIL
    with nogil:
        while work_left():
            if interrupt_poll(&it):
                break
            do_unit()
    interrupt_finish(&it)                  # with the GIL: raises KeyboardInterrupt if hit

Every ``interrupt_init`` must be paired with ``interrupt_finish`` (which also
releases the kept exception) on every path.
"""
from libc.stdint cimport uint32_t
from cpython.ref cimport PyObject
from cpython.pythread cimport PyThread_get_thread_ident
from ttt_engine._core.core.clock cimport now_monotonic

cdef extern from *:
    """
    /* Thread ident of the main thread (the one that runs signal handlers); 0 until known. */
    static unsigned long ttt_interrupt_main_ident = 0;
    /* Seconds between signal checks: base, and the cap while the GIL is contended. */
    #define TTT_INTERRUPT_PERIOD 0.010
    #define TTT_INTERRUPT_PERIOD_MAX 0.080
    """
    unsigned long ttt_interrupt_main_ident
    const double INTERRUPT_PERIOD "TTT_INTERRUPT_PERIOD"
    const double INTERRUPT_PERIOD_MAX "TTT_INTERRUPT_PERIOD_MAX"

cdef extern from "Python.h":
    int PyErr_CheckSignals()
    void PyErr_Fetch(PyObject** ptype, PyObject** pvalue, PyObject** ptb)
    void PyErr_Restore(PyObject* ptype, PyObject* pvalue, PyObject* ptb)
    void Py_XDECREF(PyObject* o)


cdef enum:
    INTERRUPT_NONE = 0        # keep going
    INTERRUPT_SIGNAL = 1      # a signal handler raised; the exception is kept in the struct
    INTERRUPT_STOP = 2        # the shared stop flag was set (by another thread's signal)


cdef struct interrupt_t:
    uint32_t countdown        # polls left before the next clock read
    uint32_t every            # polls between clock reads (adapted to ~1 ms)
    double last_read          # monotonic time of the last clock read
    double next_check         # monotonic time of the next signal check
    double period             # seconds between signal checks
    bint main                 # this thread handles signals
    volatile int* stop        # shared stop flag (NULL: none)
    int hit                   # INTERRUPT_NONE / _SIGNAL / _STOP
    PyObject* exc_type
    PyObject* exc_value
    PyObject* exc_tb


cdef inline int interrupt_init(interrupt_t* it, uint32_t every, volatile int* stop) except -1:
    """Prepare ``it`` for a loop on this thread (with the GIL).  ``every``: polls
    between clock reads to start with (about a millisecond of work); ``stop``:
    shared stop flag or NULL."""
    global ttt_interrupt_main_ident
    if ttt_interrupt_main_ident == 0:
        import threading
        ttt_interrupt_main_ident = threading.main_thread().ident
    it.every = every if every > 0 else 1
    it.countdown = it.every
    it.last_read = now_monotonic()
    it.period = INTERRUPT_PERIOD
    it.next_check = it.last_read + it.period
    it.main = PyThread_get_thread_ident() == ttt_interrupt_main_ident
    it.stop = stop
    it.hit = INTERRUPT_NONE
    it.exc_type = NULL
    it.exc_value = NULL
    it.exc_tb = NULL
    return 0


cdef inline bint _interrupt_slow(interrupt_t* it) noexcept nogil:
    cdef double now, waited
    cdef int rc
    it.countdown = it.every
    if it.hit != INTERRUPT_NONE:
        it.countdown = 1
        return True
    if it.stop != NULL and it.stop[0] != 0:
        it.hit = INTERRUPT_STOP
        it.countdown = 1
        return True
    now = now_monotonic()
    # aim at one clock read per millisecond of work
    if now - it.last_read < 0.0005 and it.every < (1u << 30):
        it.every *= 2
    elif now - it.last_read > 0.002 and it.every > 1:
        it.every //= 2
    it.countdown = it.every
    it.last_read = now
    if not it.main or now < it.next_check:
        return False
    with gil:
        waited = now_monotonic() - now
        rc = PyErr_CheckSignals()
        if rc < 0:
            PyErr_Fetch(&it.exc_type, &it.exc_value, &it.exc_tb)
    if rc < 0:
        it.hit = INTERRUPT_SIGNAL
        it.countdown = 1
        if it.stop != NULL:
            it.stop[0] = 1
        return True
    # Waiting long for the GIL means another thread is busy in Python: check less often.
    it.period = waited * 20.0
    if it.period < INTERRUPT_PERIOD:
        it.period = INTERRUPT_PERIOD
    elif it.period > INTERRUPT_PERIOD_MAX:
        it.period = INTERRUPT_PERIOD_MAX
    it.last_read = now_monotonic()
    it.next_check = it.last_read + it.period
    return False


cdef inline bint interrupt_poll(interrupt_t* it) noexcept nogil:
    """True when the loop must stop (a signal handler raised, or the stop flag is set)."""
    if it.countdown > 1:
        it.countdown -= 1
        return False
    return _interrupt_slow(it)


cdef inline int interrupt_finish(interrupt_t* it) except -1:
    """End of the loop (with the GIL): raise the exception a signal handler raised
    during it; returns 1 if the loop was stopped by the shared flag, else 0."""
    if it.hit == INTERRUPT_SIGNAL and it.exc_type != NULL:
        PyErr_Restore(it.exc_type, it.exc_value, it.exc_tb)
        it.exc_type = NULL
        it.exc_value = NULL
        it.exc_tb = NULL
        return -1
    return 1 if it.hit == INTERRUPT_STOP else 0


cdef inline void interrupt_discard(interrupt_t* it) noexcept:
    """Drop a kept exception without raising it (with the GIL)."""
    Py_XDECREF(it.exc_type)
    Py_XDECREF(it.exc_value)
    Py_XDECREF(it.exc_tb)
    it.exc_type = NULL
    it.exc_value = NULL
    it.exc_tb = NULL
