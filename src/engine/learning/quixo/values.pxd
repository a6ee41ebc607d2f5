# cython: language_level=3
"""Quixo state-value table: ``key -> (sum of scores, count)`` in C memory.

Shared by the agents (``agents``: the greedy agent reads it) and the
tournament runner (``tournament``: it collects scores into it).  Keys
are the board as seen by the player who just moved (``quixo_mover_key``);
a symmetric table stores the smallest of the 8 rotations/reflections.
"""
from libc.stdint cimport uint64_t, uint32_t, int64_t
from ttt_engine._core.games.quixo.rules cimport quixo_mix64
from ttt_engine._core.core.interrupt cimport interrupt_t

cdef enum:
    VT_EMPTY_SLOT = 0xFFFFFFFF


cdef struct VTab:
    uint32_t* slots        # open addressing: dense index or VT_EMPTY_SLOT
    uint64_t* slot_keys    # copy of the key beside its slot (one cache line per probe)
    uint64_t slot_mask     # capacity - 1 (capacity a power of two)
    uint64_t* keys         # dense, in insertion order
    double* sums
    uint32_t* counts
    uint64_t size
    uint64_t dense_cap
    int sym                # 1: keys are canonical under the 8 board symmetries
    int n                  # board size (for the symmetry tables)


cdef uint64_t qx_canonical(int n, uint64_t key) noexcept nogil
cdef int vt_reserve(VTab* t, uint64_t want, interrupt_t* it) noexcept nogil


cdef inline uint64_t vt_key(const VTab* t, uint64_t key) noexcept nogil:
    """The table's key for a mover-view key (canonical when symmetric)."""
    if t.sym:
        return qx_canonical(t.n, key)
    return key


cdef inline int64_t vt_find(const VTab* t, uint64_t key) noexcept nogil:
    """Dense index of ``key`` (a table key, see ``vt_key``), or -1."""
    cdef uint64_t i = quixo_mix64(key) & t.slot_mask
    cdef uint32_t d
    while True:
        d = t.slots[i]
        if d == VT_EMPTY_SLOT:
            return -1
        if t.slot_keys[i] == key:
            return d
        i = (i + 1) & t.slot_mask


cdef inline int64_t vt_slot(VTab* t, uint64_t key) noexcept nogil:
    """Dense index of ``key``, inserting it with sum 0 and count 0 if new;
    -1 if the table could not grow (out of memory)."""
    cdef uint64_t i = quixo_mix64(key) & t.slot_mask
    cdef uint32_t d
    while True:
        d = t.slots[i]
        if d == VT_EMPTY_SLOT:
            break
        if t.slot_keys[i] == key:
            return d
        i = (i + 1) & t.slot_mask
    if (t.size + 1) * 2 > t.slot_mask + 1 or t.size + 1 > t.dense_cap:
        if vt_reserve(t, (t.size + 1) * 2, NULL) != 0:
            return -1
        i = quixo_mix64(key) & t.slot_mask
        while t.slots[i] != VT_EMPTY_SLOT:
            i = (i + 1) & t.slot_mask
    d = <uint32_t>t.size
    t.slots[i] = d
    t.slot_keys[i] = key
    t.keys[d] = key
    t.sums[d] = 0.0
    t.counts[d] = 0
    t.size += 1
    return d


cdef inline int vt_make_room(VTab* t, uint64_t more, interrupt_t* it) noexcept nogil:
    """Grow now, as ``vt_slot`` would, so that ``more`` new keys go in without
    a rehash; a large rehash notices Ctrl-C through ``it``.  Returns 0, -1
    when out of memory, -2 when interrupted (then the index is the old one)."""
    if (t.size + more) * 2 > t.slot_mask + 1 or t.size + more > t.dense_cap:
        return vt_reserve(t, (t.size + more) * 2, it)
    return 0


cdef inline int vt_add(VTab* t, uint64_t key, double score) noexcept nogil:
    """Add one observation; -1 if the table could not grow (out of memory)."""
    cdef int64_t d = vt_slot(t, key)
    if d < 0:
        return -1
    t.sums[d] += score
    t.counts[d] += 1
    return 0


cdef inline int vt_put(VTab* t, uint64_t key, double total, uint32_t count) noexcept nogil:
    """Insert or overwrite an entry (used by the loader)."""
    cdef int64_t d = vt_slot(t, key)
    if d < 0:
        return -1
    t.sums[d] = total
    t.counts[d] = count
    return 0


cdef class ValueTable:
    cdef VTab t
    cdef readonly int size
    cdef uint64_t _key_of(self, board) except? 0
    cdef str _key_str(self, uint64_t k)
    cdef Py_ssize_t _write_json(self, char* out, uint64_t* cache_bits, unsigned char* cache_len,
                                char* cache_txt) except -1
