# cython: language_level=3
"""The Clobber solver's context and tables, shared by the search (``solve.pyx``)
and the certificate writer (``certificate.pyx``).

Rule: a table entry stores the outcome (``R_WIN`` / ``R_LOSS`` for the mover)
of the position, or sum of components, that its key denotes (keys from
``positions.pxd``), so an entry stored under one setting of the techniques
stays valid under any other.  The outcome table has buckets of two entries
(slot 0 kept for the result that cost the most nodes, slot 1 always
replaced); the database maps a single component's exact canonical key to its
outcome.  ``_key_fast`` applies the cheap reductions that the context
switches on (dead stones, claw pairs) and keys what is left.
"""
from libc.stdint cimport uint64_t, uint32_t, uint8_t
from ttt_engine._core.core.interrupt cimport interrupt_t
from ttt_engine._core.solvers.clobber.positions cimport _live, _claws, _flood, _pos_key, _mix

cdef enum:
    R_UNKNOWN = -1
    R_LOSS = 0
    R_WIN = 1
    PN_INF = 0x3FFFFFFF  # proof / disproof number of a settled position


cdef inline int _sum_outcome(int n, const uint64_t* co, const uint64_t* cp, const int* lw,
                             const int* rw) noexcept nogil:
    """Outcome rules for a sum of components (removed ones, without stones,
    skipped) whose outcomes with either side to move (``lw`` the mover's,
    ``rw`` the other's) are known: R_LOSS when every one is a loss for the
    mover, R_WIN when none is a win for the other side and one is for the
    mover; else, or when one is unknown, R_UNKNOWN."""
    cdef bint all_le = True, all_ge = True, any_gt = False
    cdef int i
    for i in range(n):
        if (co[i] | cp[i]) == 0:
            continue
        if lw[i] == R_UNKNOWN:
            return R_UNKNOWN
        if lw[i] == R_WIN:
            all_le = False
            any_gt = True
        if rw[i] == R_WIN:
            all_ge = False
    if all_le:
        return R_LOSS
    if all_ge and any_gt:
        return R_WIN
    return R_UNKNOWN


cdef struct Entry:
    uint64_t k0
    uint64_t k1
    uint32_t work       # nodes the result cost (saturated)
    uint8_t win


cdef struct DEntry:
    uint64_t k0
    uint64_t k1
    uint32_t pn         # proof number: the mover wins
    uint32_t dn         # disproof number: the mover loses
    uint32_t work       # nodes spent on it so far (saturated)
    uint32_t spare


cdef struct SolveCtx:
    Entry* tt
    DEntry* dtt         # proof and disproof numbers of unsettled positions
    uint64_t dmask
    uint64_t mask       # bucket index mask (buckets of 2 entries)
    Entry* db           # small-component outcomes (key = component's canonical key)
    uint64_t dbmask
    uint64_t nodes
    uint64_t tt_hits
    uint64_t db_solves
    uint64_t max_nodes
    double deadline     # monotonic seconds; 0 = none
    double next_report
    double report_every
    int depth
    int max_depth
    bint aborted
    bint interrupted
    # techniques (all on by default)
    bint etc            # probe every child before searching any
    bint ordering       # children by the opponent's reply count, fewest first (then more components)
    bint cancel         # claws (stars) removed in pairs
    bint decompose      # per-component keys, negative pairs removed
    bint database       # small-component outcomes: zeros removed
    bint outcome        # outcome rules for sums of known components
    int db_stones       # components up to this many stones go to the database
    bint dfpn           # proof-number search (depth-first) above ``ab_stones`` stones
    int ab_stones       # positions up to this many stones: alpha-beta
    void* progress      # Python callable(nodes, depth, max_depth) or NULL
    interrupt_t* it     # Ctrl-C check (interrupt.pxd)


# ---------------------------------------------------------------------- table
cdef inline Entry* _bucket(SolveCtx* c, uint64_t k0, uint64_t k1) noexcept nogil:
    cdef uint64_t h = (k0 * <uint64_t>0x9E3779B97F4A7C15ULL) ^ ((k1 + (k1 >> 29)) * <uint64_t>0xBF58476D1CE4E5B9ULL)
    return &c.tt[((h >> 17) & c.mask) << 1]


cdef inline int _probe(SolveCtx* c, uint64_t k0, uint64_t k1) noexcept nogil:
    cdef Entry* e = _bucket(c, k0, k1)
    if e[0].k0 == k0 and e[0].k1 == k1 and (k0 | k1):
        return e[0].win
    if e[1].k0 == k0 and e[1].k1 == k1 and (k0 | k1):
        return e[1].win
    return R_UNKNOWN


cdef inline void _store(SolveCtx* c, uint64_t k0, uint64_t k1, bint win, uint64_t work) noexcept nogil:
    cdef Entry* e = _bucket(c, k0, k1)
    cdef uint32_t w = <uint32_t>(work if work < 0xFFFFFFFFULL else 0xFFFFFFFFULL)
    if (e[0].k0 == k0 and e[0].k1 == k1) or w >= e[0].work:
        if not (e[0].k0 == k0 and e[0].k1 == k1):
            e[1] = e[0]         # the displaced deep entry survives one more round
        e[0].k0 = k0
        e[0].k1 = k1
        e[0].win = win
        e[0].work = w
    else:
        e[1].k0 = k0
        e[1].k1 = k1
        e[1].win = win
        e[1].work = w


cdef inline Entry* _dbslot(SolveCtx* c, uint64_t k0, uint64_t k1) noexcept nogil:
    cdef uint64_t h = _mix(k0 ^ _mix(k1 + <uint64_t>0x632BE59BD9B4E019ULL))
    return &c.db[h & c.dbmask]


# proof-number table (``dfpn``): (pn, dn) of unsettled positions, buckets of two
cdef inline DEntry* _dbucket(SolveCtx* c, uint64_t k0, uint64_t k1) noexcept nogil:
    cdef uint64_t h = (k0 * <uint64_t>0xD6E8FEB86659FD93ULL) ^ ((k1 + (k1 >> 31)) * <uint64_t>0x9E3779B97F4A7C15ULL)
    return &c.dtt[((h >> 19) & c.dmask) << 1]


cdef inline bint _dprobe(SolveCtx* c, uint64_t k0, uint64_t k1, uint32_t* pn, uint32_t* dn,
                         uint32_t* work) noexcept nogil:
    cdef DEntry* e = _dbucket(c, k0, k1)
    cdef int i
    for i in range(2):
        if e[i].k0 == k0 and e[i].k1 == k1 and (k0 | k1):
            pn[0] = e[i].pn
            dn[0] = e[i].dn
            work[0] = e[i].work
            return True
    return False


cdef inline void _dstore(SolveCtx* c, uint64_t k0, uint64_t k1, uint32_t pn, uint32_t dn,
                         uint64_t work) noexcept nogil:
    """Keep the entry that cost more in slot 0, the newest in slot 1."""
    cdef DEntry* e = _dbucket(c, k0, k1)
    cdef uint32_t w = <uint32_t>(work if work < 0xFFFFFFFFULL else 0xFFFFFFFFULL)
    cdef int i = 1
    if (e[0].k0 == k0 and e[0].k1 == k1) or w >= e[0].work:
        if not (e[0].k0 == k0 and e[0].k1 == k1) and not (e[1].k0 == k0 and e[1].k1 == k1):
            e[1] = e[0]
        elif e[1].k0 == k0 and e[1].k1 == k1:
            e[1] = e[0]
        i = 0
    e[i].k0 = k0
    e[i].k1 = k1
    e[i].pn = pn
    e[i].dn = dn
    e[i].work = w


cdef inline void _dforget(SolveCtx* c, uint64_t k0, uint64_t k1) noexcept nogil:
    """Drop the (pn, dn) entry of a position that is now in the outcome table."""
    cdef DEntry* e = _dbucket(c, k0, k1)
    cdef int i
    for i in range(2):
        if e[i].k0 == k0 and e[i].k1 == k1:
            e[i].k0 = 0
            e[i].k1 = 0
            e[i].work = 0


# ---------------------------------------------------------------------- keys
cdef inline int _key_fast(SolveCtx* c, uint64_t* pown, uint64_t* popp, uint64_t* k0, uint64_t* k1) noexcept nogil:
    """Cheap reductions (dead stones, claw pairs) in place, and the key: the
    whole position's canonical masks, or with ``decompose`` the multiset of
    per-component canonical keys."""
    cdef uint64_t own = pown[0], opp = popp[0]
    cdef uint64_t live = _live(own, opp), st
    cdef int nc
    own &= live
    opp &= live
    if c.cancel and (own | opp):
        nc = _claws(own, opp, &st)
        if nc:
            if nc & 1:
                st &= ~_flood(st & (~st + 1), st)      # keep one claw
            own &= ~st
            opp &= ~st
    pown[0] = own
    popp[0] = opp
    return _pos_key(own, opp, c.decompose, k0, k1)


# ---------------------------------------------------------------------- search (solve.pyx)
cdef int _db_outcome(SolveCtx* c, uint64_t co, uint64_t cp, uint64_t k0, uint64_t k1) noexcept nogil
cdef bint _solve_pos(SolveCtx* c, uint64_t own, uint64_t opp) noexcept nogil


cdef class Solver:
    cdef SolveCtx ctx
    cdef readonly int tt_bits
    cdef readonly int db_bits
    cdef readonly int pn_bits
    cdef object _progress
    cdef int depth                  # calls under way, all on the thread ``owner``
    cdef unsigned long owner
    cdef int _enter(self) except -1
