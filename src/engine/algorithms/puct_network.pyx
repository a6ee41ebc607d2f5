# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The Python entry of PUCT's search with the network attached to its
forest (``PUCTForest.attach_network``): ``forest_run_network`` checks its
arguments, sets up the stop flags and Ctrl-C, and runs puct.pyx's
``network_lane`` (gather / forward pass / backup on one lane) without the
GIL."""
from libc.stdint cimport int32_t, int64_t

from ttt_engine._core.core.clock cimport now_monotonic
from ttt_engine._core.core.interrupt cimport (
    interrupt_t, interrupt_init, interrupt_poll, interrupt_finish,
)
from ttt_engine._core.algorithms.game cimport GameBoard
from ttt_engine._core.algorithms.puct cimport PUCTForest, network_lane


def forest_run_network(PUCTForest f, GameBoard proto, int64_t budget, seconds, int lane,
                       stop=None, lanes_stop=None):
    """Search tree 0 of a one-tree forest on ``lane`` with the attached
    network, in C without the GIL, until ``budget`` simulations, ``seconds``
    (None: no limit; <= 0: one batch), a solved root, Ctrl-C
    (``KeyboardInterrupt``) or a set stop flag (``stop``, ``lanes_stop``:
    ``int32[1]`` arrays; the interrupt sets ``lanes_stop``, or ``stop`` when
    there is none, for the other threads).  Returns ``(evaluator calls,
    evaluations, ok)``; ``ok`` False: the network gave a NaN or infinite
    output, and the search stopped there with leaves pending."""
    cdef interrupt_t it
    cdef int rc
    cdef int64_t calls = 0, evaluations = 0
    cdef double deadline = 0.0
    cdef int32_t[::1] flag
    cdef volatile int* watched = NULL
    cdef volatile int* other = NULL
    if f.net == NULL:
        raise ValueError("no network attached to this forest (attach_network)")
    if f.n != 1 or not 0 <= lane < f.lanes:
        raise ValueError(f"lane {lane} of a forest with {f.n} trees and {f.lanes} lanes")
    if lanes_stop is not None:
        flag = lanes_stop
        watched = <volatile int*>&flag[0]
    if stop is not None:
        flag = stop
        if watched == NULL:
            watched = <volatile int*>&flag[0]
        else:
            other = <volatile int*>&flag[0]
    if seconds is not None:
        deadline = now_monotonic() + max(<double>seconds, 1e-9)
    # the compiled network gives a position the same output every time (set
    # here, with the GIL, not by each lane's thread on the shared parameters)
    f.p.keep_leaf_values = f.p.playout_weight <= 0.0
    interrupt_init(&it, 1, watched)
    with nogil:
        rc = network_lane(&proto.state, f, budget, deadline, lane, &it, other, &calls,
                           &evaluations)
    interrupt_finish(&it)
    return calls, evaluations, rc == 0
