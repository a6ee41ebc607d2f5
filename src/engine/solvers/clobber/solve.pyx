# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Exact win/loss solver for Clobber, with the combinatorial game theory of sums.

A position is searched from the side to move: ``own`` and ``opp`` stone masks
(bit ``r * 8 + c``; the board's shape does not matter, edges and empty squares
are alike because nothing ever moves onto an empty square).  Before a
position is searched or stored it is reduced; every reduction keeps the
outcome (who wins with the mover to play):

1. dead stones: 4-connected groups of one colour can never move or be taken
   and are removed;
2. components: the live stones fall into 4-connected components, independent
   games whose (disjunctive) sum is the position;
3. stars: a "claw" component (one stone whose neighbours are all stones of the
   other colour) is * = {0 | 0}; * + * = 0, so claws are removed in pairs;
4. zeros: a component with at most ``db_stones`` stones whose value is 0
   (the mover loses it moving first and loses it moving second) is removed,
   since G + 0 = G.  The outcomes of small components (mover first, opponent
   first) come from a database the solver fills itself, by solving the
   component alone, and keeps in its own table;
5. negatives: a component and the colour-swapped copy of it (same shape under
   the 8 symmetries) sum to G + (-G) = 0 and are removed together;
6. outcome rules: when every remaining component is in the database, with
   the mover as Left: if every component is <= 0 (Left moving first loses each)
   the sum is <= 0 and the mover loses; if every component is >= 0 (Right
   moving first loses each) and one is |> 0 (Left moving first wins it), the
   sum is |> 0 and the mover wins.

The table key is the multiset of the remaining components, each reduced to
the minimum over the 8 symmetries of the square after translation to the
corner; one component is keyed exactly by its two masks, several by a 128-bit
hash of their sorted keys (marked so that it can never equal an exact key).

Search: negamax over win/loss, stop at the first winning move; a move leaving
the opponent stuck wins at once; every child is reduced and its table slot
prefetched before any is probed (enhanced transposition cutoff); children
are tried by the opponent's number of replies, fewest first, and among
equals the one leaving more components first.  The table has
two entries per bucket: one kept for the result that cost the most nodes,
one always replaced.

Each technique is a field of the solver's context (``SolveCtx``), switchable
per call for measurements; nothing is module-global.
"""
from libc.stdint cimport uint64_t, uint32_t, uint8_t, int64_t
from libc.string cimport memset, memcpy
from ttt_engine._core.core.bigmem cimport big_alloc, big_free
from ttt_engine._core.core.clock cimport now_monotonic
from ttt_engine._core.core.interrupt cimport interrupt_t, interrupt_init, interrupt_poll, interrupt_finish
from ttt_engine._core.games.clobber.rules cimport (
    ClobberState, clobber_pairs_any, clobber_count_moves, clobber_moves_of,
    CLOBBER_MAX_MOVES, CLOBBER_POPCOUNT, CLOBBER_CTZ, CLOBBER_NOT_COL0, CLOBBER_NOT_COL7,
)
from ttt_engine._core.games.clobber.board cimport Board

cdef extern from *:
    """
    #if defined(__GNUC__) || defined(__clang__)
    #define CS_BSWAP64(x) __builtin_bswap64(x)
    #define CS_CLZ(x) __builtin_clzll(x)
    #define CS_PREFETCH(p) __builtin_prefetch(p)
    #else
    static unsigned long long CS_BSWAP64(unsigned long long x) {
        x = ((x & 0x00FF00FF00FF00FFULL) << 8) | ((x >> 8) & 0x00FF00FF00FF00FFULL);
        x = ((x & 0x0000FFFF0000FFFFULL) << 16) | ((x >> 16) & 0x0000FFFF0000FFFFULL);
        return (x << 32) | (x >> 32);
    }
    static int CS_CLZ(unsigned long long x) { int n = 0; while (!(x >> 63)) { x <<= 1; n++; } return n; }
    #define CS_PREFETCH(p) ((void)0)
    #endif
    """
    uint64_t CS_BSWAP64(uint64_t x) nogil
    int CS_CLZ(uint64_t x) nogil
    void CS_PREFETCH(const void* p) nogil

cdef enum:
    MAXCOMP = 40
    MAXMOVES = 128       # at most 112 adjacent pairs on 8x8, plus one spare write
    R_UNKNOWN = -1
    R_LOSS = 0
    R_WIN = 1
    PN_INF = 0x3FFFFFFF  # proof / disproof number of a settled position
    # certificate record tags (ASCII)
    REC_MOVE = 77       # M
    REC_ALL = 65        # A
    REC_REF = 82        # R
    REC_ZERO = 90       # Z
    REC_NEG = 78        # N
    REC_RULES = 79      # O


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


# ---------------------------------------------------------------------- geometry
cdef inline uint64_t _nb(uint64_t x) noexcept nogil:
    return (x << 8) | (x >> 8) | ((x << 1) & CLOBBER_NOT_COL0) | ((x >> 1) & CLOBBER_NOT_COL7)


cdef inline uint64_t _flood(uint64_t x, uint64_t occ) noexcept nogil:
    cdef uint64_t y
    while True:
        y = x | (_nb(x) & occ)
        if y == x:
            return x
        x = y


cdef inline uint64_t _live(uint64_t own, uint64_t opp) noexcept nogil:
    """Stones in 4-connected groups that hold both colours."""
    return _flood(clobber_pairs_any(own, opp) | clobber_pairs_any(opp, own), own | opp)


cdef inline uint64_t _flip_h(uint64_t x) noexcept nogil:
    x = ((x >> 1) & <uint64_t>0x5555555555555555ULL) | ((x & <uint64_t>0x5555555555555555ULL) << 1)
    x = ((x >> 2) & <uint64_t>0x3333333333333333ULL) | ((x & <uint64_t>0x3333333333333333ULL) << 2)
    x = ((x >> 4) & <uint64_t>0x0F0F0F0F0F0F0F0FULL) | ((x & <uint64_t>0x0F0F0F0F0F0F0F0FULL) << 4)
    return x


cdef inline uint64_t _transpose(uint64_t x) noexcept nogil:
    cdef uint64_t t
    t = <uint64_t>0x0F0F0F0F00000000ULL & (x ^ (x << 28))
    x ^= t ^ (t >> 28)
    t = <uint64_t>0x3333000033330000ULL & (x ^ (x << 14))
    x ^= t ^ (t >> 14)
    t = <uint64_t>0x5500550055005500ULL & (x ^ (x << 7))
    x ^= t ^ (t >> 7)
    return x


cdef inline void _better(uint64_t a, uint64_t b, uint64_t* ba, uint64_t* bb) noexcept nogil:
    if a < ba[0] or (a == ba[0] and b < bb[0]):
        ba[0] = a
        bb[0] = b


cdef inline void _canon(uint64_t own, uint64_t opp, uint64_t* kown, uint64_t* kopp) noexcept nogil:
    """Translate to the corner, minimum over the 8 symmetries (empty stays 0, 0)."""
    cdef uint64_t occ = own | opp
    if occ == 0:
        kown[0] = 0
        kopp[0] = 0
        return
    cdef uint64_t cols = occ
    cols |= cols >> 32
    cols |= cols >> 16
    cols |= cols >> 8
    cols &= 0xFF
    cdef int shift = (CLOBBER_CTZ(occ) & ~7) + CLOBBER_CTZ(cols)
    own >>= shift
    opp >>= shift
    occ >>= shift
    cols >>= CLOBBER_CTZ(cols)
    cdef int w = 64 - CS_CLZ(cols)
    cdef int h = ((63 - CS_CLZ(occ)) >> 3) + 1
    if h > w:
        own = _transpose(own)
        opp = _transpose(opp)
        shift = h
        h = w
        w = shift
    cdef uint64_t ba = own, bb = opp
    cdef uint64_t ho = _flip_h(own) >> (8 - w), hp = _flip_h(opp) >> (8 - w)
    cdef uint64_t vo = CS_BSWAP64(own) >> (8 * (8 - h)), vp = CS_BSWAP64(opp) >> (8 * (8 - h))
    cdef uint64_t hvo = CS_BSWAP64(ho) >> (8 * (8 - h)), hvp = CS_BSWAP64(hp) >> (8 * (8 - h))
    _better(ho, hp, &ba, &bb)
    _better(vo, vp, &ba, &bb)
    _better(hvo, hvp, &ba, &bb)
    if h == w:
        _better(_transpose(own), _transpose(opp), &ba, &bb)
        _better(_transpose(ho), _transpose(hp), &ba, &bb)
        _better(_transpose(vo), _transpose(vp), &ba, &bb)
        _better(_transpose(hvo), _transpose(hvp), &ba, &bb)
    kown[0] = ba
    kopp[0] = bb


cdef int _OFF[4]
_OFF[0] = 8
_OFF[1] = -8
_OFF[2] = 1
_OFF[3] = -1


cdef inline void _child(uint64_t own, uint64_t opp, int m, uint64_t* a, uint64_t* b) noexcept nogil:
    """The position after the mover plays ``m``, from the new mover's side."""
    cdef int sq = m >> 2
    cdef uint64_t fbit = (<uint64_t>1) << sq
    cdef uint64_t tbit = (<uint64_t>1) << (sq + _OFF[m & 3])
    a[0] = opp & ~tbit
    b[0] = (own ^ fbit) | tbit


cdef inline uint64_t _mix(uint64_t z) noexcept nogil:
    z = (z ^ (z >> 30)) * <uint64_t>0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * <uint64_t>0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef inline bint _is_claw(uint64_t co, uint64_t cp) noexcept nogil:
    """One stone of one colour, every other stone of the component next to it."""
    if co & (co - 1) == 0:
        return (cp & ~_nb(co)) == 0
    if cp & (cp - 1) == 0:
        return (co & ~_nb(cp)) == 0
    return False


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


cdef int _db_outcome(SolveCtx* c, uint64_t co, uint64_t cp, uint64_t k0, uint64_t k1) noexcept nogil:
    """Outcome of a single component with the mover to play: R_WIN / R_LOSS,
    from the database or by solving the component alone (R_UNKNOWN if aborted)."""
    cdef Entry* e = _dbslot(c, k0, k1)
    if e.k0 == k0 and e.k1 == k1:
        return e.win
    cdef bint r = _solve_pos(c, co, cp)
    if c.aborted:
        return R_UNKNOWN
    c.db_solves += 1
    e.k0 = k0
    e.k1 = k1
    e.win = r
    return r


# ---------------------------------------------------------------------- reduction
cdef inline int _claws(uint64_t own, uint64_t opp, uint64_t* stones) noexcept nogil:
    """Number of claw components among live stones (branch-free), and their stones."""
    cdef uint64_t occ = own | opp
    cdef uint64_t a = occ >> 8, b = occ << 8
    cdef uint64_t c = (occ >> 1) & CLOBBER_NOT_COL7, d = (occ << 1) & CLOBBER_NOT_COL0
    cdef uint64_t one = a | b | c | d
    cdef uint64_t two = (a & b) | (c & d) | ((a | b) & (c | d))
    cdef uint64_t leaf = occ & one & ~two                    # exactly one neighbour
    cdef uint64_t dom = leaf & _nb(leaf)                     # 2-stone components
    cdef uint64_t inner = occ & ~leaf
    cdef uint64_t centre = inner & ~_nb(inner)
    centre &= (own & ~_nb(leaf & own)) | (opp & ~_nb(leaf & opp))
    stones[0] = dom | centre | (leaf & _nb(centre))
    return (CLOBBER_POPCOUNT(dom) >> 1) + CLOBBER_POPCOUNT(centre)


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


cdef inline int _pos_key(uint64_t own, uint64_t opp, bint decompose, uint64_t* k0, uint64_t* k1) noexcept nogil:
    """Key of a position without dead stones: its canonical masks, or with
    ``decompose`` the multiset of per-component canonical keys; returns the
    number of components keyed (1 for the whole position)."""
    cdef uint64_t occ = own | opp, rest, comp
    cdef int n
    cdef uint64_t ka[MAXCOMP]
    cdef uint64_t kb[MAXCOMP]
    if not decompose or occ == 0:
        _canon(own, opp, k0, k1)
        return 1
    comp = _flood(occ & (~occ + 1), occ)
    if comp == occ:
        _canon(own, opp, k0, k1)
        return 1
    n = 0
    rest = occ
    while rest:
        comp = _flood(rest & (~rest + 1), occ)
        rest &= ~comp
        _canon(own & comp, opp & comp, &ka[n], &kb[n])
        n += 1
    _key(n, ka, kb, k0, k1)
    return n


cdef int _reduce(SolveCtx* c, uint64_t* pown, uint64_t* popp) noexcept nogil:
    """Game-theory reductions of a position with dead stones and claw pairs
    already gone: small zero components and negative pairs removed in place.
    Returns R_WIN / R_LOSS when the outcome rules settle it, else R_UNKNOWN
    (also on abort)."""
    cdef uint64_t own = pown[0], opp = popp[0]
    cdef uint64_t occ = own | opp
    cdef uint64_t co[MAXCOMP]
    cdef uint64_t cp[MAXCOMP]
    cdef uint64_t ka[MAXCOMP]
    cdef uint64_t kb[MAXCOMP]
    cdef int lw[MAXCOMP]
    cdef int rw[MAXCOMP]
    cdef int n = 0, i, j, ns
    cdef uint64_t comp, rest, na, nb_
    cdef bint known, all_le, all_ge, any_gt, changed = False
    if occ == 0:
        return R_LOSS
    if not (c.decompose or c.database):
        return R_UNKNOWN
    comp = _flood(occ & (~occ + 1), occ)
    if comp == occ:
        return R_UNKNOWN         # one component: nothing to reduce
    rest = occ
    while rest:
        comp = _flood(rest & (~rest + 1), occ)
        rest &= ~comp
        co[n] = own & comp
        cp[n] = opp & comp
        lw[n] = R_UNKNOWN
        rw[n] = R_UNKNOWN
        ka[n] = 0
        n += 1
    if c.database:
        for i in range(n):
            ns = CLOBBER_POPCOUNT(co[i] | cp[i])
            if ns > c.db_stones:
                continue
            if _is_claw(co[i], cp[i]):
                lw[i] = R_WIN
                rw[i] = R_WIN
                continue
            _canon(co[i], cp[i], &ka[i], &kb[i])
            lw[i] = _db_outcome(c, co[i], cp[i], ka[i], kb[i])
            if c.aborted:
                return R_UNKNOWN
            _canon(cp[i], co[i], &na, &nb_)
            rw[i] = _db_outcome(c, cp[i], co[i], na, nb_)
            if c.aborted:
                return R_UNKNOWN
            if lw[i] == R_LOSS and rw[i] == R_LOSS:
                co[i] = 0        # a zero: removed
                cp[i] = 0
                changed = True
    if c.decompose:
        for i in range(n):
            if (co[i] | cp[i]) == 0:
                continue
            na = 0
            for j in range(i + 1, n):
                if (co[j] | cp[j]) == 0:
                    continue
                if (CLOBBER_POPCOUNT(co[i]) != CLOBBER_POPCOUNT(cp[j])
                        or CLOBBER_POPCOUNT(cp[i]) != CLOBBER_POPCOUNT(co[j])):
                    continue
                if na == 0:
                    _canon(cp[i], co[i], &na, &nb_)
                if ka[j] == 0:
                    _canon(co[j], cp[j], &ka[j], &kb[j])
                if na == ka[j] and nb_ == kb[j]:
                    co[i] = 0
                    cp[i] = 0
                    co[j] = 0
                    cp[j] = 0
                    changed = True
                    break
    if changed:
        own = 0
        opp = 0
        for i in range(n):
            own |= co[i]
            opp |= cp[i]
        pown[0] = own
        popp[0] = opp
        if (own | opp) == 0:
            return R_LOSS
    if c.outcome and c.database:
        known = True
        all_le = True
        all_ge = True
        any_gt = False
        for i in range(n):
            if (co[i] | cp[i]) == 0:
                continue
            if lw[i] == R_UNKNOWN:
                known = False
                break
            if lw[i] == R_WIN:
                all_le = False
                any_gt = True
            if rw[i] == R_WIN:
                all_ge = False
        if known:
            if all_le:
                return R_LOSS
            if all_ge and any_gt:
                return R_WIN
    return R_UNKNOWN


cdef inline void _key(int n, uint64_t* ka, uint64_t* kb, uint64_t* k0, uint64_t* k1) noexcept nogil:
    """One component: its canonical masks; several: a hash of the sorted keys
    with bit 0 set in both halves (real masks never share a bit)."""
    cdef int i, j
    cdef uint64_t ta, tb, h0, h1
    if n == 1:
        k0[0] = ka[0]
        k1[0] = kb[0]
        return
    for i in range(1, n):
        ta = ka[i]
        tb = kb[i]
        j = i - 1
        while j >= 0 and (ka[j] > ta or (ka[j] == ta and kb[j] > tb)):
            ka[j + 1] = ka[j]
            kb[j + 1] = kb[j]
            j -= 1
        ka[j + 1] = ta
        kb[j + 1] = tb
    h0 = <uint64_t>0x243F6A8885A308D3ULL
    h1 = <uint64_t>0x13198A2E03707344ULL
    for i in range(n):
        h0 = _mix(h0 ^ ka[i]) + kb[i]
        h0 = _mix(h0)
        h1 = _mix(h1 + ka[i] * <uint64_t>0x9E3779B97F4A7C15ULL) ^ _mix(kb[i] + <uint64_t>0xA4093822299F31D0ULL)
    k0[0] = h0 | 1
    k1[0] = h1 | 1


# ---------------------------------------------------------------------- move order
cdef inline int _order_key(int replies, int components) noexcept nogil:
    """Sort key of a child: the opponent's replies, fewest first; among
    equals, the one that splits the position into more components first."""
    return (replies << 4) | (15 - (components if components < 15 else 15))


cdef inline void _sort_ints(int* a, int n) noexcept nogil:
    """Ascending insertion sort (move lists are short)."""
    cdef int i, j, k
    for i in range(1, n):
        k = a[i]
        j = i - 1
        while j >= 0 and a[j] > k:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = k


# ---------------------------------------------------------------------- search
cdef void _checkpoint(SolveCtx* c) noexcept nogil:
    """Every few thousand nodes: deadline and progress report (about every
    ``report_every`` seconds, with the GIL)."""
    cdef double t = now_monotonic()
    if c.deadline > 0 and t >= c.deadline:
        c.aborted = True
        return
    if c.progress == NULL or t < c.next_report:
        return
    c.next_report = t + c.report_every
    with gil:
        try:
            (<object>c.progress)(c.nodes, c.depth, c.max_depth)
        except BaseException:
            c.aborted = True
            c.interrupted = True


cdef bint _solve_pos(SolveCtx* c, uint64_t own, uint64_t opp) noexcept nogil:
    """True if the mover wins (own, opp): key, probe, then search (alpha-beta,
    or proof-number search when ``dfpn`` is on)."""
    cdef uint64_t k0, k1
    cdef uint32_t pn = 1, dn = 1
    cdef int r
    _key_fast(c, &own, &opp, &k0, &k1)
    if (own | opp) == 0:
        return False
    r = _probe(c, k0, k1)
    if r != R_UNKNOWN:
        c.tt_hits += 1
        return r == R_WIN
    if not c.dfpn:
        return _solve_rec(c, own, opp, k0, k1)
    while pn != 0 and dn != 0 and not c.aborted:
        _mid(c, own, opp, k0, k1, PN_INF, PN_INF, &pn, &dn)
    return pn == 0


cdef bint _solve_rec(SolveCtx* c, uint64_t own, uint64_t opp, uint64_t k0, uint64_t k1) noexcept nogil:
    """True if the mover wins (own, opp), whose cheap reductions are done and
    whose key (k0, k1) is not in the table; the result is stored under it."""
    cdef int moves[MAXMOVES]
    cdef int order[MAXMOVES]
    cdef uint64_t cst[MAXMOVES][4]
    cdef int n = 0, i, j, k, r, nc
    cdef uint64_t a, b, start = c.nodes
    c.nodes += 1
    if c.max_nodes and c.nodes > c.max_nodes:
        c.aborted = True
        return False
    if interrupt_poll(c.it):
        c.aborted = True
        c.interrupted = True
        return False
    if (c.nodes & 0xFFF) == 0:
        _checkpoint(c)
        if c.aborted:
            return False
    r = _reduce(c, &own, &opp)
    if c.aborted:
        return False
    if r != R_UNKNOWN:
        _store(c, k0, k1, r == R_WIN, c.nodes - start)
        return r == R_WIN
    n = clobber_moves_of(own, opp, moves)
    if n == 0:
        return False
    c.depth += 1
    if c.depth > c.max_depth:
        c.max_depth = c.depth
    # pass 1: reduce every child (opponent to move), settle what the rules
    # settle, prefetch the rest
    for i in range(n):
        _child(own, opp, moves[i], &a, &b)   # child mover: the opponent
        nc = _key_fast(c, &a, &b, &cst[i][2], &cst[i][3])
        if (a | b) == 0:                 # the opponent is stuck
            c.depth -= 1
            _store(c, k0, k1, True, c.nodes - start)
            return True
        cst[i][0] = a
        cst[i][1] = b
        CS_PREFETCH(_bucket(c, cst[i][2], cst[i][3]))
        order[i] = ((_order_key(clobber_count_moves(a, b), nc) if c.ordering else 0) << 9) | i
    if c.etc:
        for i in range(n):
            if order[i] >= (1 << 29):
                continue
            r = _probe(c, cst[i][2], cst[i][3])
            if r == R_LOSS:
                c.tt_hits += 1
                c.depth -= 1
                _store(c, k0, k1, True, c.nodes - start)
                return True
            if r == R_WIN:
                order[i] = (1 << 29) | i
    _sort_ints(order, n)
    for i in range(n):
        if order[i] >= (1 << 29):
            break
        j = order[i] & 511
        if not c.etc:
            r = _probe(c, cst[j][2], cst[j][3])
            if r != R_UNKNOWN:
                c.tt_hits += 1
                if r == R_LOSS:
                    c.depth -= 1
                    _store(c, k0, k1, True, c.nodes - start)
                    return True
                continue
        r = _solve_rec(c, cst[j][0], cst[j][1], cst[j][2], cst[j][3])
        if c.aborted:
            c.depth -= 1
            return False
        if not r:
            c.depth -= 1
            _store(c, k0, k1, True, c.nodes - start)
            return True
    c.depth -= 1
    _store(c, k0, k1, False, c.nodes - start)
    return False


# ---------------------------------------------------------------------- proof-number search
# Depth-first proof-number search (df-pn) in negamax form: a position's proof
# number pn (how many leaves must still be shown won for the mover) is the
# least disproof number of its children, its disproof number dn the sum of
# its children's proof numbers.  A settled position goes to the outcome table;
# an unsettled one keeps (pn, dn) in ``dtt`` between visits.  A new child
# starts at pn = 1 and dn = its mover's number of moves (each must be
# refuted), so the first child tried is the one the alpha-beta ordering
# would try first.  Positions with at most ``ab_stones`` stones are settled
# by the alpha-beta search, which is cheaper there.
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


cdef void _mid(SolveCtx* c, uint64_t own, uint64_t opp, uint64_t k0, uint64_t k1,
               uint32_t thpn, uint32_t thdn, uint32_t* opn, uint32_t* odn) noexcept nogil:
    """Search (own, opp) (cheap reductions done, key (k0, k1), not in the
    outcome table) until its proof number reaches ``thpn`` or its disproof
    number ``thdn``, or it is settled (pn 0: the mover wins; dn 0: loses).
    The numbers it ends with are written to ``opn`` / ``odn``."""
    cdef int moves[MAXMOVES]
    cdef uint64_t ca[MAXMOVES]
    cdef uint64_t cb[MAXMOVES]
    cdef uint64_t ck0[MAXMOVES]
    cdef uint64_t ck1[MAXMOVES]
    cdef uint32_t cpn[MAXMOVES]
    cdef uint32_t cdn[MAXMOVES]
    cdef uint32_t wpn, wdn, work0 = 0, pn, dn
    cdef uint64_t sum_pn, start = c.nodes, a, b, t_pn, t_dn
    cdef int n, i, j, best, r
    cdef uint32_t d1, d2
    opn[0] = 1
    odn[0] = 1
    if c.max_nodes and c.nodes > c.max_nodes:
        c.aborted = True
        return
    if CLOBBER_POPCOUNT(own | opp) <= c.ab_stones:
        r = _solve_rec(c, own, opp, k0, k1)
        if c.aborted:
            return
        opn[0] = 0 if r else PN_INF
        odn[0] = PN_INF if r else 0
        return
    c.nodes += 1
    if interrupt_poll(c.it):
        c.aborted = True
        c.interrupted = True
        return
    if (c.nodes & 0xFFF) == 0:
        _checkpoint(c)
        if c.aborted:
            return
    _dprobe(c, k0, k1, &wpn, &wdn, &work0)     # only its work so far is used
    r = _reduce(c, &own, &opp)
    if c.aborted:
        return
    if r != R_UNKNOWN:
        _store(c, k0, k1, r == R_WIN, c.nodes - start)
        _dforget(c, k0, k1)
        opn[0] = 0 if r == R_WIN else PN_INF
        odn[0] = PN_INF if r == R_WIN else 0
        return
    n = clobber_moves_of(own, opp, moves)
    c.depth += 1
    if c.depth > c.max_depth:
        c.max_depth = c.depth
    j = 0
    for i in range(n):
        _child(own, opp, moves[i], &a, &b)
        _key_fast(c, &a, &b, &ck0[j], &ck1[j])
        if (a | b) == 0:
            r = R_LOSS                   # the opponent is stuck
        else:
            r = _probe(c, ck0[j], ck1[j])
        if r == R_LOSS:
            c.tt_hits += 1
            c.depth -= 1
            _store(c, k0, k1, True, c.nodes - start + work0)
            _dforget(c, k0, k1)
            opn[0] = 0
            odn[0] = PN_INF
            return
        if r == R_WIN:
            c.tt_hits += 1
            continue                     # a child the opponent wins: no use
        ca[j] = a
        cb[j] = b
        if not _dprobe(c, ck0[j], ck1[j], &cpn[j], &cdn[j], &wpn):
            cpn[j] = 1
            cdn[j] = <uint32_t>clobber_count_moves(a, b)
        j += 1
    n = j
    while True:
        d1 = PN_INF
        d2 = PN_INF
        best = -1
        sum_pn = 0
        for i in range(n):
            sum_pn += cpn[i]
            if cdn[i] < d1:
                d2 = d1
                d1 = cdn[i]
                best = i
            elif cdn[i] < d2:
                d2 = cdn[i]
        if sum_pn > PN_INF - 1:
            sum_pn = PN_INF - 1
        pn = d1
        dn = <uint32_t>sum_pn
        if pn == 0 or dn == 0:
            c.depth -= 1
            _store(c, k0, k1, pn == 0, c.nodes - start + work0)
            _dforget(c, k0, k1)
            opn[0] = 0 if pn == 0 else PN_INF
            odn[0] = PN_INF if pn == 0 else 0
            return
        if pn >= thpn or dn >= thdn:
            break
        # child thresholds: its dn may grow to the second best (+ a quarter,
        # which saves many switches between siblings); its pn as far as our
        # dn threshold allows
        t_dn = <uint64_t>d2 + 1 + (d2 >> 2)
        if t_dn > thpn:
            t_dn = thpn
        t_pn = <uint64_t>thdn - dn + cpn[best]
        if t_pn > PN_INF:
            t_pn = PN_INF
        _mid(c, ca[best], cb[best], ck0[best], ck1[best], <uint32_t>t_pn, <uint32_t>t_dn,
             &cpn[best], &cdn[best])
        if c.aborted:
            c.depth -= 1
            return
    c.depth -= 1
    _dstore(c, k0, k1, pn, dn, c.nodes - start + work0)
    opn[0] = pn
    odn[0] = dn


# ---------------------------------------------------------------------- proof certificates
# The writer walks a proof depth-first and emits the records that
# ``ttt_engine.clobber_check`` replays (the format is in its docstring).  The
# position of every record is the one the checker sees: the raw position after
# the moves so far, dead stones stripped, minus what earlier Z / N records
# removed; the solver's own reductions only guide the choice of records.  A
# claimed win names one move whose position is known lost (the table first,
# fewest replies; else the first the search refutes, in the search's order);
# a claimed loss proves every reply won.  Positions already proven (same
# canonical form: the table's component multiset key) become R records.
cdef struct MemoEntry:
    uint64_t k0
    uint64_t k1
    uint8_t proven      # bit 0: proven lost for the mover, bit 1: proven won; 0 = free slot


cdef struct ProofCtx:
    SolveCtx* c
    uint8_t* buf
    size_t len
    size_t cap
    MemoEntry* memo
    uint64_t memo_mask
    uint64_t memo_used
    uint64_t records
    uint64_t refs
    uint64_t bytes_out
    int small           # components up to this many stones: zeros and outcome rules
    int failed          # 0 ok, 1 stopped (limit, Ctrl-C, output error), 2 claim not provable, 3 no memory
    void* sink          # Python callable(bytes) -> truthy on success
    void* progress      # Python callable(records, bytes, nodes) or NULL
    double next_report
    double report_every


cdef inline MemoEntry* _memo_slot(MemoEntry* memo, uint64_t mask, uint64_t k0, uint64_t k1) noexcept nogil:
    cdef uint64_t i = _mix(k0 ^ _mix(k1 + <uint64_t>0x9E3779B97F4A7C15ULL)) & mask
    while memo[i].proven and (memo[i].k0 != k0 or memo[i].k1 != k1):
        i = (i + 1) & mask
    return &memo[i]


cdef bint _memo_has(ProofCtx* p, uint64_t k0, uint64_t k1, bint claim) noexcept nogil:
    return (_memo_slot(p.memo, p.memo_mask, k0, k1).proven >> claim) & 1


cdef void _memo_add(ProofCtx* p, uint64_t k0, uint64_t k1, bint claim) noexcept nogil:
    """Record a proven claim; the table doubles when half full."""
    cdef MemoEntry* e
    cdef MemoEntry* grown
    cdef uint64_t i, size = p.memo_mask + 1
    if 2 * (p.memo_used + 1) > size:
        grown = <MemoEntry*>big_alloc(2 * size * sizeof(MemoEntry))
        if grown == NULL:
            p.failed = 3
            return
        for i in range(size):
            if p.memo[i].proven:
                _memo_slot(grown, 2 * size - 1, p.memo[i].k0, p.memo[i].k1)[0] = p.memo[i]
        big_free(p.memo, size * sizeof(MemoEntry))
        p.memo = grown
        p.memo_mask = 2 * size - 1
    e = _memo_slot(p.memo, p.memo_mask, k0, k1)
    if e.proven == 0:
        p.memo_used += 1
        e.k0 = k0
        e.k1 = k1
    e.proven |= 1 << claim


cdef void _flush(ProofCtx* p) noexcept nogil:
    """Hand the buffered records to the sink."""
    with gil:
        try:
            if not (<object>p.sink)((<char*>p.buf)[:p.len]):
                p.failed = 1
        except BaseException:
            p.failed = 1
    p.bytes_out += p.len
    p.len = 0


cdef inline void _emit(ProofCtx* p, uint8_t tag, uint64_t m1, uint64_t m2, int masks) noexcept nogil:
    """One record: the tag, then ``masks`` 8-byte masks (little-endian), or
    with ``masks`` -1 one move byte ``m1``."""
    cdef int i
    if p.len + 17 > p.cap:
        _flush(p)
    p.buf[p.len] = tag
    p.len += 1
    if masks < 0:
        p.buf[p.len] = <uint8_t>m1
        p.len += 1
        return
    if masks >= 1:
        for i in range(8):
            p.buf[p.len + i] = <uint8_t>(m1 >> (8 * i))
        p.len += 8
    if masks == 2:
        for i in range(8):
            p.buf[p.len + i] = <uint8_t>(m2 >> (8 * i))
        p.len += 8


cdef void _proof_tick(ProofCtx* p) noexcept nogil:
    """Every thousand records: Ctrl-C, deadline, and the progress report."""
    cdef SolveCtx* c = p.c
    cdef double t
    if interrupt_poll(c.it):
        c.aborted = True
        c.interrupted = True
    else:
        t = now_monotonic()
        if c.deadline > 0 and t >= c.deadline:
            c.aborted = True
        elif p.progress != NULL and t >= p.next_report:
            p.next_report = t + p.report_every
            with gil:
                try:
                    (<object>p.progress)(p.records, p.bytes_out + p.len, c.nodes)
                except BaseException:
                    c.aborted = True
                    c.interrupted = True
    if c.aborted:
        p.failed = 1


cdef int _winning_move(ProofCtx* p, uint64_t own, uint64_t opp, int n, int* moves) noexcept nogil:
    """Index of a move after which the opponent loses: among the children the
    table knows lost, the one with the fewest replies; else the first the
    search refutes, in its order.  -1 if none (or the search stopped)."""
    cdef SolveCtx* c = p.c
    cdef int order[MAXMOVES]
    cdef int i, j, k, r, nc, best = -1, best_k = 1 << 20
    cdef uint64_t a, b, k0, k1
    for i in range(n):
        _child(own, opp, moves[i], &a, &b)
        nc = _key_fast(c, &a, &b, &k0, &k1)
        k = clobber_count_moves(a, b)
        if (a | b) == 0:
            return i
        r = _probe(c, k0, k1)
        if r == R_LOSS and k < best_k:
            best = i
            best_k = k
        order[i] = (_order_key(k, nc) << 9) | i
    if best >= 0:
        return best
    _sort_ints(order, n)
    for i in range(n):
        j = order[i] & 511
        _child(own, opp, moves[j], &a, &b)
        r = _solve_pos(c, a, b)
        if c.aborted:
            p.failed = 1
            return -1
        if not r:
            return j
    return -1


cdef void _prove(ProofCtx* p, uint64_t own, uint64_t opp, bint claim) noexcept nogil:
    """Emit the records proving ``claim`` (True: the mover wins) about (own, opp)."""
    cdef SolveCtx* c = p.c
    cdef uint64_t co[MAXCOMP]
    cdef uint64_t cp[MAXCOMP]
    cdef int lw[MAXCOMP]
    cdef int rw[MAXCOMP]
    cdef int moves[MAXMOVES]
    cdef uint64_t live = _live(own, opp), k0, k1, occ, st, z, rest, comp, na, nb_, ka, kb
    cdef int n, i, j, nc
    cdef bint known, all_le, all_ge, any_gt
    if p.failed:
        return
    own &= live
    opp &= live
    occ = own | opp
    _pos_key(own, opp, True, &k0, &k1)
    p.records += 1
    if (p.records & 0x3FF) == 0:
        _proof_tick(p)
        if p.failed:
            return
    if _memo_has(p, k0, k1, claim):
        p.refs += 1
        _emit(p, REC_REF, 0, 0, 0)
        return
    # claw pairs: * + * = 0
    nc = _claws(own, opp, &st) if occ else 0
    if nc >= 2:
        z = _flood(st & (~st + 1), st)
        rest = st & ~z
        z |= _flood(rest & (~rest + 1), rest)
        _emit(p, REC_ZERO, z, 0, 1)
        _prove(p, own & ~z, opp & ~z, claim)
        _memo_add(p, k0, k1, claim)
        return
    n = 0
    if occ and _flood(occ & (~occ + 1), occ) != occ:
        rest = occ
        while rest:
            comp = _flood(rest & (~rest + 1), occ)
            rest &= ~comp
            co[n] = own & comp
            cp[n] = opp & comp
            lw[n] = R_UNKNOWN
            rw[n] = R_UNKNOWN
            n += 1
    # small components of value 0
    for i in range(n):
        if CLOBBER_POPCOUNT(co[i] | cp[i]) > p.small:
            continue
        if _is_claw(co[i], cp[i]):
            lw[i] = R_WIN
            rw[i] = R_WIN
            continue
        _canon(co[i], cp[i], &ka, &kb)
        lw[i] = _db_outcome(c, co[i], cp[i], ka, kb)
        _canon(cp[i], co[i], &ka, &kb)
        rw[i] = _db_outcome(c, cp[i], co[i], ka, kb)
        if c.aborted:
            p.failed = 1
            return
        if lw[i] == R_LOSS and rw[i] == R_LOSS:
            z = co[i] | cp[i]
            _emit(p, REC_ZERO, z, 0, 1)
            _prove(p, own & ~z, opp & ~z, claim)
            _memo_add(p, k0, k1, claim)
            return
    # a component and its colour-swapped copy: G + (-G) = 0
    for i in range(n):
        _canon(cp[i], co[i], &na, &nb_)
        for j in range(i + 1, n):
            if (CLOBBER_POPCOUNT(co[i]) != CLOBBER_POPCOUNT(cp[j])
                    or CLOBBER_POPCOUNT(cp[i]) != CLOBBER_POPCOUNT(co[j])):
                continue
            _canon(co[j], cp[j], &ka, &kb)
            if na == ka and nb_ == kb:
                z = co[i] | cp[i] | co[j] | cp[j]
                _emit(p, REC_NEG, co[i] | cp[i], co[j] | cp[j], 2)
                _prove(p, own & ~z, opp & ~z, claim)
                _memo_add(p, k0, k1, claim)
                return
    # outcome rules for a sum of known components
    if n:
        known = True
        all_le = True
        all_ge = True
        any_gt = False
        for i in range(n):
            if lw[i] == R_UNKNOWN:
                known = False
                break
            if lw[i] == R_WIN:
                all_le = False
                any_gt = True
            if rw[i] == R_WIN:
                all_ge = False
        if known and (all_le or (all_ge and any_gt)):
            if claim != (not all_le):
                p.failed = 2
                return
            _emit(p, REC_RULES, 0, 0, 0)
            _memo_add(p, k0, k1, claim)
            return
    n = clobber_moves_of(own, opp, moves)
    if claim:
        i = _winning_move(p, own, opp, n, moves)
        if i < 0:
            if not p.failed:
                p.failed = 2
            return
        _emit(p, REC_MOVE, moves[i], 0, -1)
        _child(own, opp, moves[i], &na, &nb_)
        _prove(p, na, nb_, False)
    else:
        _emit(p, REC_ALL, 0, 0, 0)
        for i in range(n):
            _child(own, opp, moves[i], &na, &nb_)
            _prove(p, na, nb_, True)
            if p.failed:
                return
    _memo_add(p, k0, k1, claim)


# ---------------------------------------------------------------------- Python face
def _moves(uint64_t own, uint64_t opp):
    """Legal moves of the mover, ascending (the core's move ints)."""
    cdef int buf[MAXMOVES]
    cdef int n = clobber_moves_of(own, opp, buf)
    return [buf[i] for i in range(n)]


PARAMETERS = ("db_stones", "ab_stones")
TECHNIQUES = ("etc", "ordering", "cancel", "decompose", "database", "outcome", "dfpn")


cdef class Solver:
    """Exact Clobber solver (see the module docstring) with a transposition table
    of ``2**tt_bits`` entries (24 bytes each, buckets of two) and a database of
    small-component outcomes of ``2**db_bits`` entries; both are kept between
    calls, so related positions are cheap to solve.

    Techniques (keyword arguments of ``solve``, all on by default but
    ``dfpn``): ``etc``, ``ordering``, ``cancel`` (claw pairs), ``decompose``
    (per-component keys, negative pairs), ``database`` (small-component
    outcomes, zeros removed), ``outcome`` (outcome rules for sums), ``dfpn``
    (proof-number search above ``ab_stones`` stones, alpha-beta below; measured
    slower on the boards up to 4x7, so off); parameters ``db_stones`` (database
    size limit) and ``ab_stones``.  ``pn_bits``: the proof-number table has
    ``2**pn_bits`` entries of 32 bytes (default ``tt_bits - 1``).
    """
    cdef SolveCtx ctx
    cdef readonly int tt_bits
    cdef readonly int db_bits
    cdef readonly int pn_bits
    cdef object _progress

    def __cinit__(self, tt_bits=22, db_bits=20, pn_bits=None):
        from ttt_engine._util import check_int
        self.tt_bits = check_int("tt_bits", tt_bits, min=4, max=31)
        self.db_bits = check_int("db_bits", db_bits, min=4, max=30)
        self.pn_bits = check_int("pn_bits", self.tt_bits - 1 if pn_bits is None else pn_bits, min=4, max=31)
        self.ctx.tt = <Entry*>big_alloc(((<uint64_t>1) << self.tt_bits) * sizeof(Entry))
        self.ctx.db = <Entry*>big_alloc(((<uint64_t>1) << self.db_bits) * sizeof(Entry))
        if self.ctx.tt == NULL or self.ctx.db == NULL:
            raise MemoryError(f"cannot allocate a 2**{self.tt_bits}-entry table")
        self.ctx.mask = ((<uint64_t>1) << (self.tt_bits - 1)) - 1
        self.ctx.dbmask = ((<uint64_t>1) << self.db_bits) - 1
        self.ctx.dmask = ((<uint64_t>1) << (self.pn_bits - 1)) - 1
        self.configure()

    def __dealloc__(self):
        if self.ctx.tt != NULL:
            big_free(self.ctx.tt, ((<uint64_t>1) << self.tt_bits) * sizeof(Entry))
        if self.ctx.db != NULL:
            big_free(self.ctx.db, ((<uint64_t>1) << self.db_bits) * sizeof(Entry))
        if self.ctx.dtt != NULL:
            big_free(self.ctx.dtt, ((<uint64_t>1) << self.pn_bits) * sizeof(DEntry))

    def clear(self):
        """Forget every stored result (table, database, proof numbers)."""
        memset(self.ctx.tt, 0, ((<uint64_t>1) << self.tt_bits) * sizeof(Entry))
        memset(self.ctx.db, 0, ((<uint64_t>1) << self.db_bits) * sizeof(Entry))
        if self.ctx.dtt != NULL:
            memset(self.ctx.dtt, 0, ((<uint64_t>1) << self.pn_bits) * sizeof(DEntry))

    def configure(self, etc=True, ordering=True, cancel=True, decompose=True, database=True,
                  outcome=True, dfpn=False, db_stones=10, ab_stones=16):
        """Switch techniques on or off for the following calls.  Results stored
        under one setting stay valid under any other (every key denotes a
        position, or a sum of components, whose outcome it stores)."""
        from ttt_engine._util import check_int
        self.ctx.db_stones = check_int("db_stones", db_stones, min=0, max=64)
        self.ctx.etc = bool(etc)
        self.ctx.ordering = bool(ordering)
        self.ctx.cancel = bool(cancel)
        self.ctx.decompose = bool(decompose)
        self.ctx.database = bool(database)
        self.ctx.outcome = bool(outcome)
        if dfpn and self.ctx.dtt == NULL:     # the proof-number table is made on first use
            self.ctx.dtt = <DEntry*>big_alloc(((<uint64_t>1) << self.pn_bits) * sizeof(DEntry))
            if self.ctx.dtt == NULL:
                raise MemoryError(f"cannot allocate a 2**{self.pn_bits}-entry proof-number table")
        self.ctx.dfpn = bool(dfpn)
        self.ctx.ab_stones = check_int("ab_stones", ab_stones, min=0, max=64)

    @property
    def settings(self):
        """The current technique switches as a dict."""
        return {"etc": bool(self.ctx.etc), "ordering": bool(self.ctx.ordering),
                "cancel": bool(self.ctx.cancel), "decompose": bool(self.ctx.decompose),
                "database": bool(self.ctx.database), "outcome": bool(self.ctx.outcome),
                "dfpn": bool(self.ctx.dfpn), "db_stones": self.ctx.db_stones,
                "ab_stones": self.ctx.ab_stones}

    @property
    def nodes(self):
        return self.ctx.nodes

    @property
    def tt_hits(self):
        return self.ctx.tt_hits

    @property
    def db_solves(self):
        return self.ctx.db_solves

    def _begin(self, max_nodes, time_limit, progress, report_every):
        from ttt_engine._util import check_int, check_real
        cdef uint64_t limit = check_int("max_nodes", max_nodes, min=1, allow_none=True) or 0
        tl = check_real("time_limit", time_limit, low=0, low_open=True, allow_none=True)
        if progress is not None and not callable(progress):
            raise TypeError("progress must be callable(nodes, depth, max_depth) or None")
        self._progress = progress
        self.ctx.progress = <void*>progress if progress is not None else NULL
        self.ctx.report_every = report_every
        t = now_monotonic()
        self.ctx.deadline = t + tl if tl else 0.0
        self.ctx.next_report = t + report_every
        self.ctx.max_nodes = limit
        self.ctx.aborted = False
        self.ctx.interrupted = False
        self.ctx.depth = 0
        self.ctx.max_depth = 0

    def reset_counters(self):
        self.ctx.nodes = 0
        self.ctx.tt_hits = 0
        self.ctx.db_solves = 0

    def outcome_of(self, uint64_t own, uint64_t opp, max_nodes=None, time_limit=None,
                   progress=None, double report_every=1.0):
        """True / False: the mover wins / loses the position (own, opp) (masks,
        bit r * 8 + c, the mover's stones first); None if a limit stopped it.
        ``KeyboardInterrupt`` propagates (the table stays consistent)."""
        if own & opp:
            raise ValueError("own and opp masks overlap")
        self._begin(max_nodes, time_limit, progress, report_every)
        cdef bint r
        cdef interrupt_t it
        interrupt_init(&it, 64, NULL)
        self.ctx.it = &it
        with nogil:
            r = _solve_pos(&self.ctx, own, opp)
        self.ctx.progress = NULL
        self.ctx.it = NULL
        self._progress = None
        interrupt_finish(&it)           # raises KeyboardInterrupt after Ctrl-C
        if self.ctx.interrupted:
            raise KeyboardInterrupt
        if self.ctx.aborted:
            return None
        return bool(r)

    def reduce(self, uint64_t own, uint64_t opp):
        """The solver's reduction of (own, opp): ``(own', opp', key, settled)``:
        dead stones, claw pairs, small zero components and negative pairs
        removed; ``key`` the table key of (own, opp) after the cheap reductions;
        ``settled`` True / False when the outcome rules decide the position for
        the mover, else None.  May fill the database."""
        cdef uint64_t a = own, b = opp, k0, k1
        self._begin(None, None, None, 1.0)
        cdef int r
        cdef interrupt_t it
        interrupt_init(&it, 64, NULL)
        self.ctx.it = &it
        with nogil:
            _key_fast(&self.ctx, &a, &b, &k0, &k1)
            r = _reduce(&self.ctx, &a, &b)
        self.ctx.it = NULL
        interrupt_finish(&it)
        if self.ctx.interrupted:
            raise KeyboardInterrupt
        return a, b, (k0, k1), (None if r == R_UNKNOWN else bool(r == R_WIN))

    def component_outcomes(self, uint64_t own, uint64_t opp):
        """Outcome of a single component both ways: ``(mover first wins,
        opponent first wins)`` (each as seen by the one who moves first)."""
        return (self.outcome_of(own, opp), self.outcome_of(opp, own))

    def probe(self, uint64_t own, uint64_t opp):
        """The stored outcome of the reduced position, or None."""
        cdef uint64_t a = own, b = opp, k0, k1
        _key_fast(&self.ctx, &a, &b, &k0, &k1)
        if (a | b) == 0:
            return False
        cdef int p = _probe(&self.ctx, k0, k1)
        return None if p == R_UNKNOWN else bool(p == R_WIN)

    def child(self, uint64_t own, uint64_t opp, int move):
        """(own, opp) of the position after the mover plays ``move``, from the new mover's side."""
        cdef uint64_t a, b
        _child(own, opp, move, &a, &b)
        return a, b

    def moves(self, uint64_t own, uint64_t opp):
        """Legal moves of the mover (ascending move ints)."""
        return _moves(own, opp)

    def write_proof(self, uint64_t own, uint64_t opp, bint claim, sink, small=10,
                    progress=None, double report_every=1.0, time_limit=None, chunk=1 << 22):
        """Emit certificate records (``ttt_engine.clobber_check`` format) proving
        ``claim`` (True: the mover wins) about (own, opp), in chunks of about
        ``chunk`` bytes passed to ``sink(data)``, which returns True to go on.
        Components of up to ``small`` stones are reduced (zeros, outcome
        rules).  Positions the table has lost are solved again.  Returns
        ``(records, references, bytes)``; raises ``ValueError`` if ``claim``
        is wrong, ``KeyboardInterrupt`` after Ctrl-C, ``TimeoutError`` when
        ``time_limit`` (seconds) runs out, ``RuntimeError`` if ``sink`` refused."""
        from ttt_engine._util import check_int
        if own & opp:
            raise ValueError("own and opp masks overlap")
        if not callable(sink):
            raise TypeError("sink must be callable(bytes) -> bool")
        if progress is not None and not callable(progress):
            raise TypeError("progress must be callable(records, bytes, nodes) or None")
        cdef ProofCtx p
        memset(&p, 0, sizeof(ProofCtx))
        p.small = check_int("small", small, min=0, max=64)
        p.cap = check_int("chunk", chunk, min=64, max=1 << 30)
        self._begin(None, time_limit, None, report_every)
        p.c = &self.ctx
        p.sink = <void*>sink
        p.progress = <void*>progress if progress is not None else NULL
        p.report_every = report_every
        p.next_report = now_monotonic() + report_every
        p.memo_mask = ((<uint64_t>1) << 16) - 1
        p.buf = <uint8_t*>big_alloc(p.cap)
        p.memo = <MemoEntry*>big_alloc((p.memo_mask + 1) * sizeof(MemoEntry))
        if p.buf == NULL or p.memo == NULL:
            big_free(p.buf, p.cap)
            big_free(p.memo, (p.memo_mask + 1) * sizeof(MemoEntry))
            raise MemoryError("cannot allocate the certificate buffers")
        cdef interrupt_t it
        interrupt_init(&it, 64, NULL)
        self.ctx.it = &it
        with nogil:
            _prove(&p, own, opp, claim)
            if p.failed == 0 and p.len:
                _flush(&p)
        self.ctx.it = NULL
        big_free(p.buf, p.cap)
        big_free(p.memo, (p.memo_mask + 1) * sizeof(MemoEntry))
        interrupt_finish(&it)
        if self.ctx.interrupted:
            raise KeyboardInterrupt
        if p.failed == 1 and self.ctx.aborted:
            raise TimeoutError("time limit reached while writing the certificate")
        if p.failed == 1:
            raise RuntimeError("the certificate sink refused the records")
        if p.failed == 2:
            raise ValueError(f"the claim ({'win' if claim else 'loss'} for the mover) is wrong")
        if p.failed == 3:
            raise MemoryError("out of memory for the table of proven positions")
        return p.records, p.refs, p.bytes_out

    def order_moves(self, uint64_t own, uint64_t opp):
        """Legal moves sorted as the search tries them: the opponent's replies
        (after the cheap reductions), fewest first; among equals, the move
        leaving more components first."""
        ms = _moves(own, opp)
        keyed = []
        cdef uint64_t a, b, k0, k1
        cdef int nc
        for m in ms:
            _child(own, opp, m, &a, &b)
            nc = _key_fast(&self.ctx, &a, &b, &k0, &k1)
            keyed.append((clobber_count_moves(a, b), -nc, m))
        keyed.sort()
        return [m for _, _, m in keyed]

    # -------------------------------------------------------------- table on disk
    def export_entries(self, min_work=64):
        """Table entries whose result cost at least ``min_work`` nodes, and every
        database entry, as a numpy uint64 array of rows (k0, k1, win | work << 1 | db << 40)."""
        import numpy as np
        cdef uint64_t size = (<uint64_t>1) << self.tt_bits, dsize = (<uint64_t>1) << self.db_bits
        cdef uint64_t i, cnt = 0
        cdef uint32_t mw = min_work
        for i in range(size):
            if (self.ctx.tt[i].k0 | self.ctx.tt[i].k1) and self.ctx.tt[i].work >= mw:
                cnt += 1
        for i in range(dsize):
            if self.ctx.db[i].k0 | self.ctx.db[i].k1:
                cnt += 1
        out = np.zeros((cnt, 3), dtype=np.uint64)
        cdef uint64_t[:, :] v = out
        cdef uint64_t j = 0
        for i in range(size):
            if (self.ctx.tt[i].k0 | self.ctx.tt[i].k1) and self.ctx.tt[i].work >= mw:
                v[j, 0] = self.ctx.tt[i].k0
                v[j, 1] = self.ctx.tt[i].k1
                v[j, 2] = self.ctx.tt[i].win | (<uint64_t>self.ctx.tt[i].work << 1)
                j += 1
        for i in range(dsize):
            if self.ctx.db[i].k0 | self.ctx.db[i].k1:
                v[j, 0] = self.ctx.db[i].k0
                v[j, 1] = self.ctx.db[i].k1
                v[j, 2] = self.ctx.db[i].win | ((<uint64_t>1) << 40)
                j += 1
        return out

    def import_entries(self, rows):
        """Load rows from ``export_entries`` (a 2-D uint64 array)."""
        import numpy as np
        arr = np.ascontiguousarray(rows, dtype=np.uint64)
        if arr.ndim != 2 or arr.shape[1] != 3:
            raise ValueError("expected an (n, 3) uint64 array of table rows")
        cdef uint64_t[:, :] v = arr
        cdef Py_ssize_t i
        cdef Entry* e
        for i in range(arr.shape[0]):
            if (v[i, 2] >> 40) & 1:
                e = _dbslot(&self.ctx, v[i, 0], v[i, 1])
                e.k0 = v[i, 0]
                e.k1 = v[i, 1]
                e.win = v[i, 2] & 1
            else:
                _store(&self.ctx, v[i, 0], v[i, 1], v[i, 2] & 1, (v[i, 2] >> 1) & 0xFFFFFFFF)

    # -------------------------------------------------------------- boards
    def solve(self, Board board not None, max_nodes=None, time_limit=None, progress=None,
              report_every=1.0, **techniques):
        """Solve ``board`` for the side to move: a ``SolveResult``.

        ``techniques``: any of ``TECHNIQUES`` (and ``db_stones``) to switch for
        this call (the solver's settings otherwise).  ``progress``: called
        about every ``report_every`` seconds as ``progress(nodes, depth, max_depth)``.
        """
        saved = self.settings
        if techniques:
            bad = set(techniques) - set(TECHNIQUES) - set(PARAMETERS)
            if bad:
                raise TypeError(f"unknown technique(s) {sorted(bad)}: use {', '.join(TECHNIQUES)}, "
                                f"{', '.join(PARAMETERS)}")
            cfg = dict(saved)
            cfg.update(techniques)
            self.configure(**cfg)
        try:
            return self._solve(board, max_nodes, time_limit, progress, report_every)
        finally:
            self.configure(**saved)

    def _solve(self, Board board, max_nodes, time_limit, progress, report_every):
        import time
        cdef ClobberState s = board.state
        own = s.bb[s.to_move]
        opp = s.bb[s.to_move ^ 1]
        self.reset_counters()
        t0 = time.perf_counter()
        c0 = time.process_time()
        best = None
        win = None
        aborted = False
        from ttt_engine._util import check_real
        tl = check_real("time_limit", time_limit, low=0, low_open=True, allow_none=True)
        t_end = now_monotonic() + tl if tl else None
        for m in self.order_moves(own, opp):
            a, b = self.child(own, opp, m)
            left = None
            if t_end is not None:
                left = t_end - now_monotonic()
                if left <= 0:
                    aborted = True
                    break
            r = self.outcome_of(a, b, max_nodes=max_nodes, time_limit=left,
                                progress=progress, report_every=report_every)
            if r is None:
                aborted = True
                break
            if not r:
                win, best = True, m
                break
        else:
            win = False
        self.ctx.nodes += 1
        dt = time.perf_counter() - t0
        if aborted:
            return SolveResult(None, None, None, self.ctx.nodes, self.ctx.tt_hits, dt)
        mover = "BW"[s.to_move]
        winner = mover if win else "BW"[s.to_move ^ 1]
        return SolveResult(win, winner, best, self.ctx.nodes, self.ctx.tt_hits, dt)


from collections import namedtuple
SolveResult = namedtuple("SolveResult", "win winner best_move nodes tt_hits seconds")
SolveResult.__doc__ = """Result of ``solve``: ``win`` is True if the side to move wins (None when
a limit stopped the search), ``winner`` ``"B"``/``"W"``, ``best_move`` a winning
move (None for a loss), ``nodes`` positions searched, ``tt_hits``, ``seconds`` (wall)."""

