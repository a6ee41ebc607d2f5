# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""PUCT with the network attached to its forest (``PUCTForest.attach_network``,
the packed weights of ``ttt_engine.network.Network``): ``forest_run_network``
runs a lane's gather / forward pass (network.pxd) / backup loop in C without
the GIL, with that lane's own buffers, so every thread of a tree-parallel
search evaluates at once.  The forest and its gather / backup steps are
puct.pyx's (puct.pxd, the interface)."""
from libc.stdint cimport int32_t, int64_t

from ttt_engine._core.core.clock cimport now_monotonic
from ttt_engine._core.core.interrupt cimport (
    interrupt_t, interrupt_init, interrupt_poll, interrupt_finish,
)
from ttt_engine._core.core.spinlock cimport spin_unlock, spin_yield
from ttt_engine._core.algorithms.game cimport GameState, GameBoard
from ttt_engine._core.algorithms.network cimport (
    NetScratch, net_forward, net_scratch_bind, net_scratch_floats, net_scratch_ints,
)
from ttt_engine._core.algorithms.puct cimport (
    PUCTForest, LANE_INTS, gather_lane, backup_lane,
)


cdef int _network_lane(GameState* proto, PUCTForest f, int64_t budget, double deadline,
                       int lane, interrupt_t* it, volatile int* other_stop,
                       int64_t* calls, int64_t* evaluations) noexcept nogil:
    """Gather, evaluate with the attached network and back up on ``lane`` of
    a one-tree forest until the budget, the deadline (> 0), a solved root, an
    interrupt or ``other_stop``.  -1 if the network's output was not finite
    (the lane's leaves are left pending: the caller clears the tree)."""
    cdef size_t base = <size_t>lane * f.n * f.k
    cdef NetScratch s
    cdef int got
    cdef bint held = False          # the lane holds the tree's lock from a back-up
    net_scratch_bind(&s, f.net, f.net_floats + lane * net_scratch_floats(f.net),
                     f.net_ints + lane * net_scratch_ints(f.net))
    while f.done[0] < budget:
        gather_lane(proto, f, budget, lane, held)
        held = False
        got = f.lane_leaves[lane * LANE_INTS]
        if got == 0 and f.trees[0].nodes[0].proven != 0:
            break                   # solved (the solver): nothing left to learn
        if got:
            if not net_forward(f.net, f.obs_p + base * f.obs_size, got,
                               f.net_logits + base * f.num_actions, f.net_values + base, &s):
                return -1
            backup_lane(proto, f, f.net_logits + base * f.num_actions, f.net_values + base,
                         False, lane, True)
            held = f.lanes > 1
            calls[0] += 1
            evaluations[0] += got
        if deadline > 0.0 and now_monotonic() >= deadline:
            break
        if interrupt_poll(it) or (other_stop != NULL and other_stop[0] != 0):
            break
        if got == 0 and f.lanes > 1:
            # the gathering backed every visit up under the lock (a full arena
            # keeps its leaves' values) and would take it again at once: a
            # lane waiting on the same core (a busy machine) gets its turn,
            # and with it its checks for Ctrl-C
            spin_yield()
    if held:
        spin_unlock(f.lock)
    return 0


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
        rc = _network_lane(&proto.state, f, budget, deadline, lane, &it, other, &calls,
                           &evaluations)
    interrupt_finish(&it)
    return calls, evaluations, rc == 0
