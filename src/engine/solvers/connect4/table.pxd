# cython: language_level=3
"""The transposition table of the Connect Four solver (``solve.pyx``).

Buckets of four 64-bit words (32 bytes, one cache line).  The position key
(Pons's ``current + mask``, unique, below 2**49) of the smaller of a position
and its mirror goes through a bijection (``key_mix``): its top ``bits`` bits
choose the bucket, the others (the check) are kept in the word, so a
matching word means the same position.  A word:

    bits  0..33  the check (49 - bits of them; bits >= MIN_BITS)
         34..39  a lower bound on the score + 32
         40..45  an upper bound + 32
         46..48  the move that cut off + 1 (0: none), canonical orientation
         49..53  log2 of the subtree's node count (replacement: least work goes first)
         54..63  the generation that wrote it (0: never written)

**Resetting costs nothing**: a word counts only when its generation is the
table's current one, so emptying the table is one increment; once in 1023
the generations wrap and the memory is handed back to the kernel
(``big_zero``), which maps zero pages in again as they are touched.

**Only the pages in use are touched**: the memory is an anonymous mapping
(``core/bigmem``), faulted in as the words are written.  A solve on one
thread starts on the first ``2**START_BITS`` buckets (1 MB) and doubles the
part in use whenever the words filled reach ``GROW_NUM / GROW_DEN`` of it
(``table_grow`` rehashes in place: the check's top bit becomes the bucket
index's lowest), so an easy position touches a megabyte of the default
gigabyte and a hard one grows to all of it.  Threads sharing a table cannot
rehash under each other: their solves use a part fixed from the root's empty
cells (``table_focus``), as a single thread's table never grows beyond.

Each word is written and read atomically, so threads share the table
without locks; a rehash runs only where one thread owns the table.
"""
from libc.stdint cimport uint64_t, uint32_t
from libc.stdlib cimport calloc, free
from ttt_engine._core.core.bigmem cimport big_alloc, big_free, big_zero
from ttt_engine._core.core.interrupt cimport interrupt_t, interrupt_poll

cdef extern from *:
    """
    #define C4S_LOAD(p) __atomic_load_n((p), __ATOMIC_RELAXED)
    #define C4S_STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)
    static inline int c4s_log2(unsigned long long x) { return 63 - __builtin_clzll(x | 1); }
    #define C4S_PREFETCH(p) __builtin_prefetch((p), 1, 3)
    #define C4S_LOAD32(p) __atomic_load_n((p), __ATOMIC_RELAXED)
    #define C4S_ADD32(p, v) __atomic_fetch_add((p), (v), __ATOMIC_RELAXED)
    #define C4S_GEN_MASK 0xFFC0000000000000ULL
    """
    void prefetch "C4S_PREFETCH"(const void* p) noexcept nogil
    const uint64_t GEN_MASK "C4S_GEN_MASK"
    uint64_t tt_load "C4S_LOAD"(const uint64_t* p) noexcept nogil
    void tt_store "C4S_STORE"(uint64_t* p, uint64_t v) noexcept nogil
    int log2_floor "c4s_log2"(uint64_t x) noexcept nogil
    uint32_t busy_load "C4S_LOAD32"(const uint32_t* p) noexcept nogil
    uint32_t busy_add "C4S_ADD32"(uint32_t* p, int v) noexcept nogil

cdef enum:
    KEY_BITS = 49                # the key current + mask is below 2**49
    MIN_BITS = 15                # bucket index bits at least (1 MB): the check fits 34 bits
    START_BITS = 15              # a one-thread solve starts on 2**15 buckets (1 MB)
    GEN_SHIFT = 54
    GEN_LAST = 1023              # generations 1..1023, then the memory is zeroed
    GROW_NUM = 1                 # grow once the words filled reach 1/2 of those in use
    GROW_DEN = 2
    BUSY_BITS = 16               # the searching-now counters: 2**16 of them
    CELLS = 42


cdef struct Table:
    uint64_t* slots          # 4 words per bucket
    uint64_t bytes
    int bits                 # bucket index bits in use
    int max_bits             # bucket index bits allocated
    uint64_t check_mask      # the key bits kept in a word: 49 - bits
    uint64_t gen             # the current generation, in place (bits 54..63)
    uint64_t fills           # empty words filled since the last reset
    uint64_t grow_at         # double the part in use when fills reach this; 0: never
    interrupt_t* it          # the growing solve's Ctrl-C poll (NULL: none) ...
    double deadline          # ... and its deadline: a rehash gives way to them
    uint32_t* busy           # threads searching a position now, by its key's hash


# ------------------------------------------------------------------ words
cdef inline int word_lower(uint64_t e) noexcept nogil:
    return <int>((e >> 34) & 63) - 32


cdef inline int word_upper(uint64_t e) noexcept nogil:
    return <int>((e >> 40) & 63) - 32


cdef inline int word_move(uint64_t e) noexcept nogil:
    return <int>((e >> 46) & 7) - 1


cdef inline int word_work(uint64_t e) noexcept nogil:
    return <int>((e >> 49) & 31)


cdef inline uint64_t pack(uint64_t gen, uint64_t check, int lower, int upper, int move,
                          int work) noexcept nogil:
    return (gen | check | (<uint64_t>(lower + 32) << 34) | (<uint64_t>(upper + 32) << 40)
            | (<uint64_t>(move + 1) << 46) | (<uint64_t>work << 49))


# ------------------------------------------------------------------ keys
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


cdef inline uint64_t canonical_mix(uint64_t key) noexcept nogil:
    """``key_mix`` of the smaller of a key and its mirror's."""
    cdef uint64_t mk = mirror_key(key)
    return key_mix(mk if mk < key else key)


cdef inline uint64_t* bucket_at(const Table* t, uint64_t h) noexcept nogil:
    """The bucket of a mixed key under the part of the table now in use."""
    return t.slots + ((h >> (KEY_BITS - t.bits)) << 2)


cdef inline uint64_t* bucket_of(const Table* t, uint64_t key) noexcept nogil:
    """The bucket of a position key (canonical between it and its mirror)."""
    return bucket_at(t, canonical_mix(key))


cdef inline uint64_t word_in(const Table* t, const uint64_t* bucket, uint64_t check) noexcept nogil:
    """The current word of ``check`` in ``bucket``, 0 if none."""
    cdef uint64_t e, want = t.gen | check, keep = GEN_MASK | t.check_mask
    cdef int i
    for i in range(4):
        e = tt_load(bucket + i)
        if (e & keep) == want:
            return e
    return 0


cdef inline uint64_t tt_find(const Table* t, uint64_t key) noexcept nogil:
    """The word of a position (0 if absent); its move is in canonical orientation."""
    cdef uint64_t h = canonical_mix(key)
    return word_in(t, bucket_at(t, h), h & t.check_mask)


cdef inline void tt_put(Table* t, uint64_t h, int lower, int upper, int move,
                        int work) noexcept nogil:
    """Merge the bounds into the word of the position of mixed key ``h``, or
    replace the bucket's word of least work (an old generation's first); the
    table may grow after (a single thread's: see ``table_grow``)."""
    cdef uint64_t* bucket = bucket_at(t, h)
    cdef uint64_t check = h & t.check_mask
    cdef uint64_t e, want = t.gen | check, keep = GEN_MASK | t.check_mask
    cdef int i, victim = 0, w, least = 1 << 30, v
    for i in range(4):
        e = tt_load(bucket + i)
        if (e & keep) == want:
            v = word_lower(e)
            if v > lower:
                lower = v
            v = word_upper(e)
            if v < upper:
                upper = v
            if move < 0:
                move = word_move(e)
            v = word_work(e)
            if v > work:
                work = v
            tt_store(bucket + i, pack(t.gen, check, lower, upper, move, work))
            return
        w = -1 if (e & GEN_MASK) != t.gen else word_work(e)
        if w < least:
            least = w
            victim = i
    tt_store(bucket + victim, pack(t.gen, check, lower, upper, move, work))
    if least < 0 and t.grow_at:
        t.fills += 1
        if t.fills >= t.grow_at:
            table_grow(t)


# ------------------------------------------------------------------ the part in use
cdef inline uint64_t grow_threshold(const Table* t) noexcept nogil:
    """The fills at which a growing table doubles (0 once it is whole)."""
    if t.bits >= t.max_bits:
        return 0
    return ((<uint64_t>4 << t.bits) * GROW_NUM) // GROW_DEN


cdef inline void table_use(Table* t, int bits) noexcept nogil:
    if bits < MIN_BITS:
        bits = MIN_BITS
    if bits > t.max_bits:
        bits = t.max_bits
    t.bits = bits
    t.check_mask = ((<uint64_t>1) << (KEY_BITS - bits)) - 1


cdef inline void table_grow(Table* t) noexcept nogil:
    """Double the part of the table in use, in place: the bucket i holds the
    words of the new buckets 2i and 2i+1 (the check's top bit says which),
    so going from the last bucket down every bucket is read before it is
    written.  Old generations' words are dropped on the way.  Ctrl-C or the
    solve's deadline stops it (polled at every bucket: the last doublings of
    a large table fault in hundreds of megabytes): the table is then emptied
    (half rehashed, it is in neither layout), and the solve, which sees the
    same interrupt or deadline at its next node, ends."""
    cdef uint64_t n = (<uint64_t>1) << t.bits, i, e
    cdef uint64_t w[4]
    cdef uint64_t top = (<uint64_t>1) << (KEY_BITS - t.bits - 1)
    cdef uint64_t* lo
    cdef uint64_t* hi
    cdef int k, nlo, nhi
    if t.bits >= t.max_bits:
        t.grow_at = 0
        return
    i = n
    while i > 0:
        if t.it != NULL and (interrupt_poll(t.it) or t.it.last_read >= t.deadline):
            table_reset(t, START_BITS, True)
            return
        i -= 1
        lo = t.slots + (i << 3)
        hi = lo + 4
        for k in range(4):
            w[k] = t.slots[(i << 2) + k]
        nlo = 0
        nhi = 0
        for k in range(4):
            e = w[k]
            if (e & GEN_MASK) != t.gen:
                continue
            if e & top:
                hi[nhi] = e & ~top
                nhi += 1
            else:
                lo[nlo] = e
                nlo += 1
        while nlo < 4:
            lo[nlo] = 0
            nlo += 1
        while nhi < 4:
            hi[nhi] = 0
            nhi += 1
    table_use(t, t.bits + 1)
    t.grow_at = grow_threshold(t)


cdef inline void table_grow_to(Table* t, int bits) noexcept nogil:
    while t.bits < bits and t.bits < t.max_bits:
        table_grow(t)


cdef inline int table_focus_bits(int moves) noexcept nogil:
    """The part of a table that threads sharing it use for a root of
    ``moves`` discs: 2**(e/2 - 7) MB for e empty cells (all of 1024 MB from
    34, 1 MB at least): a small search over a few cache-friendly pages runs
    faster than over a large table it cannot fill."""
    return (CELLS - moves) // 2 + 8


cdef inline void table_reset(Table* t, int bits, bint grow) noexcept nogil:
    """Empty the table (a new generation) and use its first 2**bits buckets;
    ``grow``: double them as they fill (one thread only)."""
    if (t.gen >> GEN_SHIFT) >= GEN_LAST:
        big_zero(t.slots, t.bytes)
        t.gen = 0
    t.gen += (<uint64_t>1) << GEN_SHIFT
    table_use(t, bits)
    t.fills = 0
    t.grow_at = grow_threshold(t) if grow else 0


cdef inline int table_open(Table* t, uint64_t mb) except -1:
    """Allocate the table (the largest power of two of buckets in ``mb`` MB);
    nothing is touched until a solve writes it."""
    cdef int bits = 0
    while ((<uint64_t>32) << (bits + 1)) <= mb * 1048576 and bits < 32:
        bits += 1
    t.max_bits = bits
    t.bytes = (<uint64_t>32) << bits
    t.slots = <uint64_t*>big_alloc(t.bytes)
    t.busy = <uint32_t*>calloc(1 << BUSY_BITS, sizeof(uint32_t))
    t.gen = 0
    t.it = NULL
    t.deadline = 0
    if t.slots == NULL or t.busy == NULL:
        table_close(t)
        raise MemoryError(f"cannot allocate a Connect Four table of {mb} MB")
    table_reset(t, START_BITS, False)
    return 0


cdef inline void table_close(Table* t) noexcept:
    if t.slots != NULL:
        big_free(t.slots, t.bytes)
        t.slots = NULL
    if t.busy != NULL:
        free(t.busy)
        t.busy = NULL
