# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Exact Connect Four: the score of a position by null-window negamax.

Position: ``cur`` (the side to move's discs) and ``mask`` (every disc), the
bit layout of ``games/connect4/rules.pxd``; a move is the cell bit it fills;
after it the new side to move's discs are ``cur ^ mask``.

Scores (the standard test-set convention): 0 a draw; a win in which the side
to move wins with its k-th disc scores 22 - k; a loss the negative of the
winner's score.

The search:

* null-window negamax, the root's window bisected towards 0 (``[-1, 1]``
  only for a weak solve: win, draw or loss);
* moves that let the opponent win at once are never searched: a single
  forced block is played at once, two open threats of the opponent are a
  loss one move later, and no disc goes under an opponent's winning cell;
  the score is clamped by the earliest possible win and loss;
* moves ordered by the table's move, then by the number of winning cells
  they leave, centre columns first among equals (a history of cutoffs as
  the tie-break instead measured twice the nodes);
* enhanced transposition cutoffs within the first 20 discs: a child whose
  table bound already decides the position saves its search;
* a table of 4-entry buckets (one cache line) of 64-bit words: the check
  bits of the position key (the rest is the bucket index), a lower and an
  upper bound on the score, the move that cut off and the log of the subtree's
  node count, which the replacement keeps (lowest work goes first).  Mirror
  positions share an entry (the smaller of the key and its mirror is used),
  and a symmetric position searches only columns 0..3.  Each entry is one
  word, written and read atomically, so threads share the table lock-free;
* threads share the table and split the moves near the root (a simplified
  ABDADA): within ``SPLIT_PLIES`` of the root a move that another thread is
  searching waits for a second pass, so the threads search different
  subtrees instead of repeating one, and a thread leaves a node once the
  table shows another thread has settled it -- from as deep below it as it
  is (every 1024 nodes it looks at the split nodes on its path).

Everything in the search is ``nogil`` and allocates nothing.
"""
from libc.stdint cimport uint64_t, uint32_t
from libc.stdlib cimport malloc, calloc, free
from libc.string cimport memset
from libc.math cimport INFINITY
from ttt_engine._core.core.bigmem cimport big_alloc, big_free
from ttt_engine._core.core.clock cimport now_monotonic
from ttt_engine._core.core.interrupt cimport (
    interrupt_t, interrupt_init, interrupt_poll, interrupt_finish, interrupt_discard)
from ttt_engine._core.core.bits cimport bits_popcount64 as popcount
from ttt_engine._core.games.connect4.rules cimport (
    C4_BOTTOM, C4_CELLS, C4_COLUMN0, connect4_winning_cells)
from ttt_engine._core.games.connect4.board cimport Board

cdef extern from *:
    """
    #define C4S_LOAD(p) __atomic_load_n((p), __ATOMIC_RELAXED)
    #define C4S_STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)
    static inline int c4s_log2(unsigned long long x) { return 63 - __builtin_clzll(x | 1); }
    #define C4S_USED 0x8000000000000000ULL
    #define C4S_PREFETCH(p) __builtin_prefetch((p), 1, 3)
    #define C4S_LOAD32(p) __atomic_load_n((p), __ATOMIC_RELAXED)
    #define C4S_ADD32(p, v) __atomic_fetch_add((p), (v), __ATOMIC_RELAXED)
    """
    void prefetch "C4S_PREFETCH"(const void* p) noexcept nogil
    const uint64_t USED "C4S_USED"
    uint64_t tt_load "C4S_LOAD"(const uint64_t* p) noexcept nogil
    void tt_store "C4S_STORE"(uint64_t* p, uint64_t v) noexcept nogil
    int log2_floor "c4s_log2"(uint64_t x) noexcept nogil
    uint32_t busy_load "C4S_LOAD32"(const uint32_t* p) noexcept nogil
    uint32_t busy_add "C4S_ADD32"(uint32_t* p, int v) noexcept nogil

cdef enum:
    CELLS = 42
    KEY_BITS = 49                # the key current + mask is below 2**49
    LOG_CAPACITY = 1 << 22       # buckets remembered for a cheap reset (16 MB)
    ABORTED = -1000
    NO_BOUND = -1000             # no known lower bound on a score
    ETC_MOVES = 20               # enhanced transposition cutoffs below this many discs
    SPLIT_PLIES = 12             # threads split the moves of nodes this near the root
    BUSY_BITS = 16               # the searching-now counters: 2**16 of them

# columns, centre first: they take part in the most lines
cdef int ORDER[7]
#: the columns in the order the search tries them, and picks among equals
COLUMN_ORDER = (3, 2, 4, 1, 5, 0, 6)
ORDER[:] = COLUMN_ORDER

#: Table sizes accepted (MB): 1 MB up to 16 GB.
MIN_TABLE_MB = 1
MAX_TABLE_MB = 16384
#: Threads accepted.
MAX_THREADS = 8


cdef struct Table:
    uint64_t* slots          # 4 words per bucket
    uint64_t bytes
    int bits                 # bucket index bits in use (table_focus)
    int max_bits             # bucket index bits allocated
    uint64_t check_mask      # the key bits kept in a word: 49 - bits
    uint32_t* log            # buckets that got a new word since the last clear
    uint64_t nlog
    bint log_full            # more than LOG_CAPACITY: clear by remapping
    uint32_t* busy           # threads searching a position now, by its key's hash


cdef struct Ctx:
    Table* tt
    uint64_t nodes
    uint64_t max_nodes
    uint64_t next_check      # node count of the next limit check
    double deadline          # monotonic time, INFINITY for none
    interrupt_t* it
    bint aborted
    int helper               # 0 the main thread; k > 0 the k-th helper
    bint shared              # other threads search the same root
    int root_moves
    bint logging             # record new buckets (one thread only)
    # the split nodes on this thread's path from the root (outermost first), so
    # that it can leave them all once another thread has settled one
    int nsplit
    int unwind_level         # the split node an abort unwinds to; -1: a limit's abort
    uint64_t* path_bucket[SPLIT_PLIES]
    uint64_t path_check[SPLIT_PLIES]
    int path_alpha[SPLIT_PLIES]
    int path_beta[SPLIT_PLIES]



# ------------------------------------------------------------------ the table
cdef inline uint64_t mirror_key(uint64_t k) noexcept nogil:
    """The key of the mirrored position: the key holds one 7-bit value per column."""
    cdef uint64_t c = 0x7F
    return (((k & c) << 42) | ((k & (c << 7)) << 28) | ((k & (c << 14)) << 14)
            | (k & (c << 21))
            | ((k >> 14) & (c << 14)) | ((k >> 28) & (c << 7)) | ((k >> 42) & c))


cdef inline uint64_t key_mix(uint64_t k) noexcept nogil:
    """A bijection of the 49-bit keys (an odd multiplier modulo 2**49): its top
    bits are the bucket, the rest are kept in the word, so a matching word
    means the same key."""
    return (k * <uint64_t>0x9E3779B97F4A7C15) & ((<uint64_t>1 << KEY_BITS) - 1)


cdef inline uint64_t* bucket_of(const Table* t, uint64_t key) noexcept nogil:
    """The bucket of a position key (canonical between it and its mirror)."""
    cdef uint64_t mk = mirror_key(key)
    return t.slots + ((key_mix(mk if mk < key else key) >> (KEY_BITS - t.bits)) << 2)


cdef inline uint64_t word_in(const Table* t, const uint64_t* bucket, uint64_t check) noexcept nogil:
    """The word of ``check`` in ``bucket``, 0 if none."""
    cdef uint64_t e
    cdef int i
    for i in range(4):
        e = tt_load(bucket + i)
        if (e & (USED | t.check_mask)) == (USED | check):
            return e
    return 0


cdef inline uint64_t tt_find(const Table* t, uint64_t key) noexcept nogil:
    """The word of a position (0 if absent); its move is in canonical orientation."""
    cdef uint64_t mk = mirror_key(key)
    cdef uint64_t h = key_mix(mk if mk < key else key)
    return word_in(t, t.slots + ((h >> (KEY_BITS - t.bits)) << 2), h & t.check_mask)


cdef inline uint64_t pack(uint64_t check, int lower, int upper, int move, int work) noexcept nogil:
    return (USED | check | (<uint64_t>(lower + 32) << 40) | (<uint64_t>(upper + 32) << 46)
            | (<uint64_t>(move + 1) << 52) | (<uint64_t>work << 55))


cdef inline void tt_put(Ctx* c, uint64_t* bucket, uint64_t check, int lower, int upper,
                        int move, int work) noexcept nogil:
    """Merge the bounds into the position's word, or replace the bucket's word
    of least work."""
    cdef Table* t = c.tt
    cdef uint64_t e, want = USED | check, keep = USED | t.check_mask
    cdef int i, victim = 0, w, least = 1 << 30, v
    for i in range(4):
        e = tt_load(bucket + i)
        if (e & keep) == want:
            v = <int>((e >> 40) & 63) - 32
            if v > lower:
                lower = v
            v = <int>((e >> 46) & 63) - 32
            if v < upper:
                upper = v
            if move < 0:
                move = <int>((e >> 52) & 7) - 1
            v = <int>((e >> 55) & 31)
            if v > work:
                work = v
            tt_store(bucket + i, pack(check, lower, upper, move, work))
            return
        w = -1 if e == 0 else <int>((e >> 55) & 31)
        if w < least:
            least = w
            victim = i
    if least < 0 and c.logging:
        if t.nlog < LOG_CAPACITY:
            t.log[t.nlog] = <uint32_t>((bucket - t.slots) >> 2)
            t.nlog += 1
        else:
            t.log_full = True
    tt_store(bucket + victim, pack(check, lower, upper, move, work))


cdef int table_open(Table* t, uint64_t mb) except -1:
    cdef int bits = 0
    while ((<uint64_t>32) << (bits + 1)) <= mb * 1048576 and bits < 32:
        bits += 1
    t.bits = bits
    t.max_bits = bits
    t.bytes = (<uint64_t>32) << bits
    t.check_mask = ((<uint64_t>1) << (KEY_BITS - bits)) - 1
    t.slots = <uint64_t*>big_alloc(t.bytes)
    t.log = <uint32_t*>malloc(LOG_CAPACITY * sizeof(uint32_t))
    t.busy = <uint32_t*>calloc(1 << BUSY_BITS, sizeof(uint32_t))
    t.nlog = 0
    t.log_full = False
    if t.slots == NULL or t.log == NULL or t.busy == NULL:
        table_close(t)
        raise MemoryError(f"cannot allocate a Connect Four table of {mb} MB")
    return 0


cdef void table_close(Table* t) noexcept:
    if t.slots != NULL:
        big_free(t.slots, t.bytes)
        t.slots = NULL
    if t.log != NULL:
        free(t.log)
        t.log = NULL
    if t.busy != NULL:
        free(t.busy)
        t.busy = NULL


cdef void table_clear_nogil(Table* t) noexcept nogil:
    cdef uint64_t i
    if t.log_full:
        memset(t.slots, 0, t.bytes)
    else:
        for i in range(t.nlog):
            memset(t.slots + ((<uint64_t>t.log[i]) << 2), 0, 32)
    t.nlog = 0
    t.log_full = False


cdef int table_clear(Table* t) except -1:
    """Empty the table: zero the buckets written since the last clear, or,
    after too many, all of it."""
    with nogil:
        table_clear_nogil(t)
    return 0


cdef void table_focus(Table* t, int moves) noexcept nogil:
    """Use only the first 2**(e/2 - 7) MB of the table for a root with e empty
    cells (all 1024 MB from 34): a small search over a few cache-friendly
    pages runs faster than over a large table it cannot fill."""
    cdef int b = (CELLS - moves) // 2 + 8
    if b > t.max_bits:
        b = t.max_bits
    t.bits = b
    t.check_mask = ((<uint64_t>1) << (KEY_BITS - b)) - 1


# ------------------------------------------------------------------ the search
cdef bint check_limits(Ctx* c) noexcept nogil:
    """Every 1024 nodes, at the node limit, when ``interrupt_poll`` reports
    Ctrl-C or the stop flag, and once its clock read passes the deadline: the
    limits, Ctrl-C and the stop flag, and with
    other threads whether one of them has settled a split node on this
    thread's path (then it unwinds to that node)."""
    c.next_check = c.nodes + 1024
    if c.next_check > c.max_nodes:
        c.next_check = c.max_nodes
    if c.nodes >= c.max_nodes or interrupt_poll(c.it) or (
            now_monotonic() >= c.deadline):
        c.aborted = True
        c.unwind_level = -1
    elif c.shared and not c.aborted:
        unwind_to_settled(c)
    return c.aborted


cdef inline int settled_by(uint64_t e, int alpha, int beta) noexcept nogil:
    """The bound in the table word ``e`` (0: none) that decides its node
    within (alpha, beta): its lower bound if >= beta, its upper if <= alpha;
    else NO_BOUND."""
    cdef int v
    if e:
        v = <int>((e >> 40) & 63) - 32
        if v >= beta:
            return v
        v = <int>((e >> 46) & 63) - 32
        if v <= alpha:
            return v
    return NO_BOUND


cdef void unwind_to_settled(Ctx* c) noexcept nogil:
    """Abort up to the outermost split node on the path whose table word
    now decides it within its window: another thread settled it (a cutoff
    in its share of the moves), and the work below is no longer needed."""
    cdef int lvl
    for lvl in range(c.nsplit):
        if settled_by(word_in(c.tt, c.path_bucket[lvl], c.path_check[lvl]),
                      c.path_alpha[lvl], c.path_beta[lvl]) != NO_BOUND:
            c.aborted = True
            c.unwind_level = lvl
            return


cdef inline uint64_t column_bits(int col) noexcept nogil:
    return C4_COLUMN0 << (7 * col)


cdef int negamax(Ctx* c, uint64_t cur, uint64_t mask, int moves, int alpha, int beta) noexcept nogil:
    """The score within (alpha, beta) of a position whose side to move cannot
    win at once: a value <= alpha is an upper bound, >= beta a lower bound.
    Returns 0 with ``c.aborted`` set when a limit stops it."""
    cdef uint64_t possible, opp_win, forced, nonlosing, key, mkey, ck, h, check, e, m
    cdef uint64_t* bucket
    cdef uint64_t mv[7]
    cdef int sc[7]
    cdef int col[7]
    cdef int n = 0, i, j, s, lo, hi, ttmove = -1, cm
    cdef bint flip
    cdef uint64_t start = c.nodes

    c.nodes += 1
    # Ctrl-C is polled at every node (a decrement on the fast path), and the
    # deadline against the poll's last clock read (about a millisecond old):
    # while the table is cold a node can cost page faults, and 1024 of them
    # whole seconds
    if (c.nodes >= c.next_check or interrupt_poll(c.it)
            or c.it.last_read >= c.deadline) and check_limits(c):
        return 0
    possible = (mask + C4_BOTTOM) & C4_CELLS
    opp_win = connect4_winning_cells(cur ^ mask, mask)
    forced = possible & opp_win
    if forced:
        if forced & (forced - 1):
            return -((CELLS - moves) // 2)       # two threats: the opponent wins next
        possible = forced
    nonlosing = possible & ~(opp_win >> 1)
    if nonlosing == 0:
        return -((CELLS - moves) // 2)
    if moves >= CELLS - 2:
        return 0
    lo = -((CELLS - 2 - moves) // 2)              # the opponent cannot win next move
    if alpha < lo:
        alpha = lo
        if alpha >= beta:
            return alpha
    hi = (CELLS - 1 - moves) // 2                 # nor can the side to move now
    if beta > hi:
        beta = hi
        if alpha >= beta:
            return beta

    key = cur + mask
    mkey = mirror_key(key)
    flip = mkey < key
    ck = mkey if flip else key
    h = key_mix(ck)
    bucket = c.tt.slots + ((h >> (KEY_BITS - c.tt.bits)) << 2)
    check = h & c.tt.check_mask
    e = word_in(c.tt, bucket, check)
    if e:
        s = <int>((e >> 40) & 63) - 32
        if s > alpha:
            alpha = s
            if alpha >= beta:
                return alpha
        s = <int>((e >> 46) & 63) - 32
        if s < beta:
            beta = s
            if alpha >= beta:
                return beta
        ttmove = <int>((e >> 52) & 7) - 1
        if flip and ttmove >= 0:
            ttmove = 6 - ttmove
    if mkey == key:
        nonlosing &= (<uint64_t>1 << 28) - 1     # symmetric: columns 0..3 suffice

    for i in range(7):
        cm = ORDER[i]
        m = nonlosing & column_bits(cm)
        if m:
            # the child's bucket is fetched while the others are scored
            prefetch(bucket_of(c.tt, (cur ^ mask) + (mask | m)))
            s = popcount(connect4_winning_cells(cur | m, mask | m))
            if cm == ttmove:
                s = 100
            j = n
            while j > 0 and sc[j - 1] < s:
                sc[j] = sc[j - 1]
                mv[j] = mv[j - 1]
                col[j] = col[j - 1]
                j -= 1
            sc[j] = s
            mv[j] = m
            col[j] = cm
            n += 1
    if moves < ETC_MOVES:
        # enhanced transposition cutoff: a child whose upper bound already lifts
        # this position to beta cuts off (worth its probes only far from the leaves)
        for i in range(n):
            e = tt_find(c.tt, (cur ^ mask) + (mask | mv[i]))
            if e:
                s = 32 - <int>((e >> 46) & 63)
                if s >= beta:
                    tt_put(c, bucket, check, s, 31, 6 - col[i] if flip else col[i], 0)
                    return s
    if c.shared and n > 1 and moves - c.root_moves < SPLIT_PLIES:
        return split_moves(c, cur, mask, moves, alpha, beta, mv, col, n, bucket, check,
                           flip, start)

    for i in range(n):
        s = -negamax(c, cur ^ mask, mask | mv[i], moves + 1, -beta, -alpha)
        if c.aborted:
            return 0
        if s >= beta:
            return store_cut(c, bucket, check, s, 6 - col[i] if flip else col[i], start)
        if s > alpha:
            alpha = s
    return store_upper(c, bucket, check, alpha, start)


cdef inline int store_cut(Ctx* c, uint64_t* bucket, uint64_t check, int s, int col,
                          uint64_t start) noexcept nogil:
    """Record the lower bound ``s`` that column ``col`` (canonical) gave the
    node, with the log of the node's work; returns ``s``."""
    cdef int work = log2_floor(c.nodes - start)
    tt_put(c, bucket, check, s, 31, col, work if work < 31 else 31)
    return s


cdef inline int store_upper(Ctx* c, uint64_t* bucket, uint64_t check, int alpha,
                            uint64_t start) noexcept nogil:
    """Record that no move lifted the node above ``alpha``; returns ``alpha``."""
    cdef int work = log2_floor(c.nodes - start)
    tt_put(c, bucket, check, -32, alpha, -1, work if work < 31 else 31)
    return alpha


cdef int split_moves(Ctx* c, uint64_t cur, uint64_t mask, int moves, int alpha, int beta,
                     const uint64_t* mv, const int* col, int n, uint64_t* bucket,
                     uint64_t check, bint flip, uint64_t start) noexcept nogil:
    """negamax's move loop where threads share the node: a move that another
    thread is searching now (its counter in ``busy``) waits for a second pass,
    except the first move, which usually settles the node alone; after each
    move the node's table word may show another thread has settled it, and
    meanwhile ``check_limits`` watches it (the node is on the thread's path)."""
    cdef int s, lvl = c.nsplit
    if lvl >= SPLIT_PLIES:              # not reached: a split node is this near the root
        return split_loop(c, cur, mask, moves, alpha, beta, mv, col, n, bucket, check, flip,
                          start, -2)
    c.path_bucket[lvl] = bucket
    c.path_check[lvl] = check
    c.path_alpha[lvl] = alpha
    c.path_beta[lvl] = beta
    c.nsplit = lvl + 1
    s = split_loop(c, cur, mask, moves, alpha, beta, mv, col, n, bucket, check, flip, start, lvl)
    c.nsplit = lvl
    return s


cdef int split_loop(Ctx* c, uint64_t cur, uint64_t mask, int moves, int alpha, int beta,
                    const uint64_t* mv, const int* col, int n, uint64_t* bucket,
                    uint64_t check, bint flip, uint64_t start, int lvl) noexcept nogil:
    """``split_moves``' loop, the node being split node ``lvl`` of the path."""
    cdef uint32_t* slot[7]
    cdef uint32_t later = 0
    cdef int i, s, sweep, v
    for sweep in range(2):
        for i in range(n):
            if sweep == 0:
                slot[i] = c.tt.busy + (key_mix((cur ^ mask) + (mask | mv[i]))
                                       >> (KEY_BITS - BUSY_BITS))
                if i > 0 and busy_load(slot[i]) != 0:
                    later |= 1u << i
                    continue
            elif not (later >> i) & 1:
                continue
            busy_add(slot[i], 1)
            while True:
                s = -negamax(c, cur ^ mask, mask | mv[i], moves + 1, -beta, -alpha)
                if not (c.aborted and c.unwind_level == lvl):
                    break
                # unwound to here: another thread settled this node
                c.aborted = False
                c.unwind_level = -1
                v = settled_by(word_in(c.tt, bucket, check), alpha, beta)
                if v != NO_BOUND:
                    busy_add(slot[i], -1)
                    return v
                # the word was replaced in between: search the move again
            busy_add(slot[i], -1)
            if c.aborted:
                return 0
            if s >= beta:
                return store_cut(c, bucket, check, s, 6 - col[i] if flip else col[i], start)
            if s > alpha:
                alpha = s
                if lvl >= 0:
                    c.path_alpha[lvl] = alpha
            v = settled_by(word_in(c.tt, bucket, check), alpha, beta)
            if v != NO_BOUND:
                return v
    return store_upper(c, bucket, check, alpha, start)


cdef inline bint wins_now(uint64_t cur, uint64_t mask) noexcept nogil:
    return (connect4_winning_cells(cur, mask) & (mask + C4_BOTTOM) & C4_CELLS) != 0


cdef int solve_root(Ctx* c, uint64_t cur, uint64_t mask, int moves, bint weak,
                    int lower=NO_BOUND) noexcept nogil:
    """The score of an ongoing position (ABORTED when a limit stops it); for a
    weak solve only its sign is exact.  ``lower``: a score the position is
    known to reach (minus a parent's score, from a book), tried first: a
    child that keeps its parent's score is solved by one search."""
    cdef int lo, hi, med, r
    if wins_now(cur, mask):
        return (CELLS + 1 - moves) // 2
    if moves >= CELLS:
        return 0
    c.root_moves = moves
    lo = -((CELLS - moves) // 2)
    hi = (CELLS + 1 - moves) // 2
    if weak:
        lo = -1
        hi = 1
    elif lower > lo:
        lo = lower
        if lo < hi:
            r = negamax(c, cur, mask, moves, lo, lo + 1)
            if c.aborted:
                return ABORTED
            if r <= lo:
                return lo
            lo = r
    while lo < hi:
        # bisect, but try near 0 first: small scores are the common case
        med = lo + (hi - lo) // 2
        if med <= 0 and lo // 2 < med:
            med = lo // 2
        elif med >= 0 and hi // 2 > med:
            med = hi // 2
        r = negamax(c, cur, mask, moves, med, med + 1)
        if c.aborted:
            return ABORTED
        if r <= med:
            hi = r
        else:
            lo = r
    return lo


cdef int child_at_most(Ctx* c, uint64_t cur, uint64_t mask, int moves, int col, int t) noexcept nogil:
    """1 if playing ``col`` leaves the opponent a score <= t, 0 if not, ABORTED."""
    cdef uint64_t m = (mask + C4_BOTTOM) & column_bits(col)
    cdef uint64_t ncur = cur ^ mask, nmask = mask | m
    cdef int r
    if wins_now(ncur, nmask):
        return (CELLS - moves) // 2 <= t
    if moves + 1 >= CELLS:
        return 0 <= t
    r = negamax(c, ncur, nmask, moves + 1, t, t + 1)
    if c.aborted:
        return ABORTED
    return r <= t


cdef int best_move(Ctx* c, uint64_t cur, uint64_t mask, int moves, int score, bint weak) noexcept nogil:
    """A column keeping ``score``: the fastest win, the slowest loss, a drawing
    move (a weak solve: a winning move, a drawing move, a move that does not
    lose at once).  -1 if none is left (full board); ABORTED."""
    cdef uint64_t possible = (mask + C4_BOTTOM) & C4_CELLS, win
    cdef int i, cm, r, first = -1
    win = connect4_winning_cells(cur, mask) & possible
    for i in range(7):
        cm = ORDER[i]
        if win & column_bits(cm):
            return cm
    for i in range(7):
        cm = ORDER[i]
        if not possible & column_bits(cm):
            continue
        if first < 0:
            first = cm
        if weak and score < 0:
            # every move loses: any that does not lose at once
            if not wins_now(cur ^ mask, mask | (possible & column_bits(cm))):
                return cm
            continue
        r = child_at_most(c, cur, mask, moves, cm, -score)
        if r == ABORTED:
            return ABORTED
        if r:
            return cm
    return first


cdef int keeping_columns(Ctx* c, uint64_t cur, uint64_t mask, int moves, int score,
                         int only) noexcept nogil:
    """The columns among ``only`` (bits) whose move keeps ``score``, the
    position's exact score, as bits (column i: bit i): one null-window test a
    column, cheaper than each column's exact score; ABORTED when a limit
    stops it."""
    cdef uint64_t possible = (mask + C4_BOTTOM) & C4_CELLS, win
    cdef int i, cm, r, out = 0
    win = connect4_winning_cells(cur, mask) & possible
    if win:
        # only a move that wins at once scores the best score
        for i in range(7):
            if win & column_bits(i):
                out |= 1 << i
        return out & only if score == (CELLS + 1 - moves) // 2 else 0
    for i in range(7):
        cm = ORDER[i]
        if not possible & column_bits(cm) or not (only >> cm) & 1:
            continue
        r = child_at_most(c, cur, mask, moves, cm, -score)
        if r == ABORTED:
            return ABORTED
        if r:
            out |= 1 << cm
    return out


# ------------------------------------------------------------------ Python side
cdef class _Tables:
    """The table, kept between solves (allocating and faulting in a large table
    costs more than a small solve) and emptied before each."""
    cdef Table t
    cdef uint64_t mb
    cdef bint busy
    cdef bint kept           # the last solve kept it: all of it in use, not emptied

    def __cinit__(self, uint64_t mb):
        self.t.slots = NULL
        self.t.log = NULL
        self.t.busy = NULL
        table_open(&self.t, mb)
        self.mb = mb
        self.busy = False
        self.kept = False

    def __dealloc__(self):
        table_close(&self.t)


_cached = None


def searching_now():
    """The sum of the cached table's searching-now counters: 0 between solves,
    however the last one ended (a limit or Ctrl-C included)."""
    cdef _Tables t = _cached
    cdef uint64_t total = 0, i
    if t is None:
        return 0
    for i in range(1 << BUSY_BITS):
        total += t.t.busy[i]
    return total


def forget_kept_table():
    """The next ``keep`` solve starts from an empty table, as after an
    ordinary solve (to time one move cold)."""
    cdef _Tables t = _cached
    if t is not None and not t.busy:
        t.kept = False


cdef _Tables _take_table(uint64_t mb, bint keep=False):
    """The cached table (a new one if it is in use or of another size),
    emptied -- unless ``keep`` and the last solve kept it too: entries stored
    under a focused (smaller) index would not be found again, so a kept
    table is only ever used whole."""
    global _cached
    cdef _Tables t = _cached
    if t is None or t.mb != mb or t.busy:
        if t is not None and not t.busy:
            _cached = None
            t = None                       # free the old one before the new one
        t = _Tables(mb)
        if _cached is None:
            _cached = t
    elif not (keep and t.kept):
        table_clear(&t.t)
    t.kept = keep
    t.busy = True
    return t


cdef class _Search:
    """One thread's search context over a shared table."""
    cdef Ctx ctx
    cdef interrupt_t it
    cdef _Tables tables
    cdef object stop_array
    cdef int stop_flag
    cdef public int result

    def __cinit__(self, _Tables tables, int helper, max_nodes, time_limit):
        self.tables = tables
        self.ctx.tt = &tables.t
        self.ctx.nodes = 0
        self.ctx.max_nodes = <uint64_t>max_nodes if max_nodes is not None else <uint64_t>-1
        self.ctx.next_check = 1
        self.ctx.deadline = now_monotonic() + time_limit if time_limit is not None else INFINITY
        self.ctx.aborted = False
        self.ctx.helper = helper
        self.ctx.nsplit = 0
        self.ctx.unwind_level = -1
        self.ctx.shared = False
        self.ctx.logging = helper == 0
        self.ctx.it = &self.it
        self.result = ABORTED

    @property
    def nodes(self):
        return self.ctx.nodes

    def run_helper(self, uint64_t cur, uint64_t mask, int moves, bint weak, _Search main,
                   int lower):
        """A helper thread's search: the same root, until it ends or the main
        thread sets the stop flag."""
        interrupt_init(&self.it, 64, &main.stop_flag)
        with nogil:
            solve_root(&self.ctx, cur, mask, moves, weak, lower)
        interrupt_discard(&self.it)


def _run(_Search main, list helpers, uint64_t cur, uint64_t mask, int moves, bint weak,
         int score=ABORTED, bint every=False, int lower=NO_BOUND, int only=0x7F):
    """The root score by the main search with the helpers beside it, or (given
    ``score``) a move that keeps it (``every``: the bits of all the columns
    among ``only`` that keep it), by the main search alone."""
    import threading
    cdef int r = ABORTED, target = score
    cdef bint move = score != ABORTED
    cdef _Search h
    threads = []
    main.ctx.shared = len(helpers) > 0
    for h in helpers:
        h.ctx.aborted = False
        h.ctx.shared = True
        threads.append(threading.Thread(target=h.run_helper,
                                        args=(cur, mask, moves, weak, main, lower), daemon=True))
    main.stop_flag = 0
    interrupt_init(&main.it, 64, &main.stop_flag)
    try:
        for t in threads:
            t.start()
        with nogil:
            if move and every:
                r = keeping_columns(&main.ctx, cur, mask, moves, target, only)
            elif move:
                r = best_move(&main.ctx, cur, mask, moves, target, weak)
            else:
                r = solve_root(&main.ctx, cur, mask, moves, weak, lower)
    finally:
        main.stop_flag = 1
        for t in threads:
            t.join()
    interrupt_finish(&main.it)
    return None if r == ABORTED else r


cdef tuple _position(Board board):
    return (board.state.bb[board.state.to_move], board.state.bb[0] | board.state.bb[1],
            board.state.ply)


cdef tuple _searches(Board board, max_nodes, time_limit, uint64_t table_mb, int threads,
                     bint keep):
    """The table (taken: busy until the caller frees it), the position and the
    main search with its helpers, as every solve below starts."""
    cdef _Tables tables = _take_table(table_mb, keep)
    cur, mask, moves = _position(board)
    tables.t.log_full = tables.t.log_full or threads > 1
    main = _Search(tables, 0, max_nodes, time_limit)
    helpers = [_Search(tables, k, max_nodes, time_limit) for k in range(1, threads)]
    table_focus(&tables.t, 0 if keep else moves)
    return tables, cur, mask, moves, main, helpers


def solve_board(Board board, bint weak=False, max_nodes=None, time_limit=None,
                uint64_t table_mb=1024, int threads=1, bint with_move=True, bint keep=False,
                lower=None):
    """``(score, best move, nodes)`` of an ongoing board (checked by the caller):
    the score exact, or its sign only (-1, 0, 1) with ``weak``; None for the
    score and the move when a limit stopped the search (or ``with_move`` is
    False, for the move).  ``keep``: start from the table of the previous
    ``keep`` solve (an entry bounds its own position's score, whatever the root).
    ``lower``: a score the board is known to reach (it must be true: the
    search trusts it), e.g. minus a parent's exact score; None for none."""
    cdef _Tables tables
    tables, cur, mask, moves, main, helpers = _searches(board, max_nodes, time_limit, table_mb,
                                                        threads, keep)
    move = None
    try:
        score = _run(main, helpers, cur, mask, moves, weak,
                     lower=NO_BOUND if lower is None else lower)
        if weak and score is not None:
            score = (score > 0) - (score < 0)
        if score is not None and with_move:
            move = _run(main, [], cur, mask, moves, weak, score)
            if move is None:
                score = None
        nodes = main.nodes + sum(h.nodes for h in helpers)
    finally:
        tables.busy = False
    return score, move, nodes


def optimal_columns_board(Board board, score=None, max_nodes=None, time_limit=None,
                          uint64_t table_mb=1024, int threads=1, bint keep=False,
                          lower=None, int only=0x7F):
    """``(score, columns, nodes)`` for an ongoing board: its exact score (solved
    unless given, e.g. from a book) and the sorted columns among ``only``
    (bits) that keep it; None for both when a limit stopped the search.
    ``keep``, ``lower``: as ``solve_board``'s."""
    cdef _Tables tables
    tables, cur, mask, moves, main, helpers = _searches(board, max_nodes, time_limit, table_mb,
                                                        threads, keep)
    columns = None
    try:
        if score is None:
            score = _run(main, helpers, cur, mask, moves, False,
                         lower=NO_BOUND if lower is None else lower)
        if score is not None:
            bits = _run(main, [], cur, mask, moves, False, score, True, only=only)
            if bits is None:
                score = None
            else:
                columns = [col for col in range(7) if bits >> col & 1]
        nodes = main.nodes + sum(h.nodes for h in helpers)
    finally:
        tables.busy = False
    return score, columns, nodes


def analyse_board(Board board, max_nodes=None, time_limit=None, uint64_t table_mb=1024,
                  int threads=1, bint keep=False):
    """``({column: exact score of playing it}, nodes)`` for an ongoing board;
    None for the columns left when a limit stopped the search.  ``keep``: as
    ``solve_board``'s."""
    cdef _Tables tables
    cdef _Search main
    cdef uint64_t cur, mask, m
    cdef int moves, col
    tables, cur, mask, moves, main, helpers = _searches(board, max_nodes, time_limit, table_mb,
                                                        threads, keep)
    out = {}
    try:
        for col in range(7):
            m = (mask + C4_BOTTOM) & column_bits(col)
            if not m:
                continue
            if connect4_winning_cells(cur, mask) & m:
                out[col] = (CELLS + 1 - moves) // 2
            elif moves + 1 == CELLS:
                out[col] = 0
            else:
                r = None if main.ctx.aborted else _run(main, helpers, cur ^ mask, mask | m,
                                                       moves + 1, False)
                out[col] = None if r is None else -r
        nodes = main.nodes + sum(h.nodes for h in helpers)
    finally:
        tables.busy = False
    return out, nodes


cdef extern from "<time.h>" nogil:
    ctypedef long time_t
    struct timespec:
        time_t tv_sec
        long tv_nsec
    int clock_gettime(int clk, timespec* ts)
    enum: CLOCK_THREAD_CPUTIME_ID


cdef inline double thread_cpu() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return ts.tv_sec + ts.tv_nsec * 1e-9


def time_positions(list boards, bint weak=False, uint64_t table_mb=1024, bint keep=False):
    """For each ongoing board: ``(score, nodes, CPU seconds)`` of its score
    alone (no best move), the table emptied before each (counted in the time)
    and its pages faulted in before the first (not counted): the solver's own
    time per position, without the Python call around it.  ``keep``: the
    table is kept from one position to the next (all of it in use: an entry
    holds bounds on its position's own score, whatever the root)."""
    cdef _Tables tables = _take_table(table_mb, keep)
    cdef _Search main = _Search(tables, 0, None, None)
    cdef Board b
    cdef uint64_t cur, mask, nodes0
    cdef int moves, r
    cdef double t0, t1
    out = []
    interrupt_init(&main.it, 64, NULL)
    with nogil:
        # fault the pages in first: the kernel's zeroing belongs to no position
        memset(tables.t.slots, 0, tables.t.bytes)
    tables.t.nlog = 0
    tables.t.log_full = False
    try:
        for b in boards:
            cur, mask, moves = _position(b)
            nodes0 = main.ctx.nodes
            with nogil:
                t0 = thread_cpu()
                if not keep:
                    table_clear_nogil(&tables.t)
                    table_focus(&tables.t, moves)
                else:
                    table_focus(&tables.t, 0)
                r = solve_root(&main.ctx, cur, mask, moves, weak)
                t1 = thread_cpu()
            if r == ABORTED:
                break
            if weak:
                r = (r > 0) - (r < 0)
            out.append((r, main.ctx.nodes - nodes0, t1 - t0))
    finally:
        tables.busy = False
    interrupt_finish(&main.it)
    return out
