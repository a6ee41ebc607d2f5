# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Retrograde endgame tablebase of Quixo: every position with at most one
blank cube, on an n x n board (n = 3, 4 or 5).

Cubes never become blank again, so the positions without a blank cube and
those with exactly one are closed under play: they are solved backward on
their own, the no-blank class first (its moves stay in it), then the
one-blank class (its moves lead to one-blank or no-blank positions).

Positions are seen from the side to move (``me``, ``opp`` masks, bit
``r * n + c``), as in :mod:`solve`.  Index (``N = n * n``):

* no blank: ``me`` itself, ``0 .. 2**N - 1`` (``opp`` is the rest);
* one blank at cell ``b``: ``2**N + b * 2**(N-1) + squeeze(me, b)`` where
  ``squeeze`` drops bit ``b`` (the bits above it move down one).

Arrays (the caller allocates them; nothing is allocated in the loops):

* ``val``: 2 bits a position, four to a byte (position ``i`` in byte
  ``i >> 2`` at bits ``2 * (i & 3)``): 0 unknown (a draw when the build is
  done), 1 win, 2 loss, 3 no position (a full line is on the board);
* ``cnt``: one byte a position of the class being solved (its first index
  is 0): the moves not yet known to lead to a position won by the opponent;
* ``dist0``: plies to the end of each no-blank position (16 bits, exact);
* ``dist1``: the same for the one-blank class, capped at 255 (255: "255 or
  more"; the levels are counted apart, so the cap loses nothing else);
* ``cur``, ``nxt``: bitmaps over the one-blank class, its positions
  resolved at the level being processed and at the next one.

Rules (rules.pxd): a move that completes an opponent line loses at once,
even if it completes an own line too; one that completes only an own line
wins at once.  A move counts for ``cnt`` when it does neither.  Level ``t``
takes every position resolved at distance ``t`` and walks its predecessors
by un-pushing (the previous mover's cube is at the insertion end; the cube
taken was blank or the previous mover's): a predecessor of a loss is a win
at ``t + 1``; a predecessor of a win loses one count and is a loss at
``t + 1`` when none is left.  Whatever is never resolved is a draw by
endless play (no move cap here).  Distances are plies under optimal play
(fastest win, slowest loss).

Threads share the arrays: positions are claimed with a compare-and-swap on
their byte, counts are decremented and bitmap bits set atomically, and work
is handed out in chunks of 2**16 indexes by an atomic counter.  A pass's
result does not depend on the number of threads.
"""
from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t, int64_t
from ttt_engine._core.games.quixo.rules cimport (
    qx_nall, qx_src, qx_seg, qx_keep, qx_dest, qx_shl, qx_shr, qx_full,
    quixo_line_flags, quixo_push, quixo_move_outcomes, quixo_init_tables,
)
from ttt_engine._core.core.interrupt cimport (
    interrupt_t, interrupt_init, interrupt_poll, interrupt_discard,
)

quixo_init_tables()

cdef extern from *:
    """
    static inline int tb_get(const unsigned char* v, long long i) {
        return (__atomic_load_n(v + (i >> 2), __ATOMIC_RELAXED) >> ((i & 3) * 2)) & 3;
    }
    /* Set position i from unknown to value x; 1 if this call did it. */
    static inline int tb_claim(unsigned char* v, long long i, int x) {
        unsigned char* p = v + (i >> 2);
        int s = (int)(i & 3) * 2;
        unsigned char old = __atomic_load_n(p, __ATOMIC_RELAXED);
        while (((old >> s) & 3) == 0) {
            if (__atomic_compare_exchange_n(p, &old, (unsigned char)(old | (x << s)), 1,
                                            __ATOMIC_RELAXED, __ATOMIC_RELAXED))
                return 1;
        }
        return 0;
    }
    static inline int tb_dec(unsigned char* c) { return __atomic_sub_fetch(c, 1, __ATOMIC_RELAXED); }
    static inline void tb_setbit(unsigned long long* w, long long i) {
        __atomic_fetch_or(w + (i >> 6), 1ULL << (i & 63), __ATOMIC_RELAXED);
    }
    static inline long long tb_take(long long* c) { return __atomic_fetch_add(c, 1, __ATOMIC_RELAXED); }
    static inline void tb_add(long long* c, long long x) { __atomic_fetch_add(c, x, __ATOMIC_RELAXED); }
    static inline int tb_ctz(unsigned int x) { return __builtin_ctz(x); }
    static inline int tb_ctz64(unsigned long long x) { return __builtin_ctzll(x); }
    """
    int tb_get(const uint8_t* v, int64_t i) noexcept nogil
    int tb_claim(uint8_t* v, int64_t i, int x) noexcept nogil
    int tb_dec(uint8_t* c) noexcept nogil
    void tb_setbit(uint64_t* w, int64_t i) noexcept nogil
    int64_t tb_take(int64_t* c) noexcept nogil
    void tb_add(int64_t* c, int64_t x) noexcept nogil
    int tb_ctz(uint32_t x) noexcept nogil
    int tb_ctz64(uint64_t x) noexcept nogil

cdef enum:
    V_UNKNOWN = 0
    V_WIN = 1
    V_LOSS = 2
    V_NONE = 3
    CHUNK_BITS = 16
    DIST1_CAP = 255

cdef enum:
    K_INIT0 = 0     # first pass over the no-blank class
    K_LEVEL0 = 1    # a level of the no-blank class
    K_INIT1 = 2     # first pass over the one-blank class
    K_LEVEL1 = 3    # a level of the one-blank class

#: pass kinds (:meth:`Builder.run`)
INIT0, LEVEL0, INIT1, LEVEL1 = K_INIT0, K_LEVEL0, K_INIT1, K_LEVEL1


cdef struct Tab:
    int n
    int N
    uint32_t full
    int64_t nb              # 2**N: no-blank positions
    int64_t n1              # N * 2**(N-1): one-blank positions
    uint8_t* val
    uint8_t* cnt
    uint16_t* dist0
    uint8_t* dist1
    uint64_t* cur
    uint64_t* nxt


cdef inline int64_t index1(const Tab* T, uint32_t me, int b) noexcept nogil:
    """Index of the one-blank position with the blank at ``b`` (``me`` lacks bit b)."""
    cdef uint32_t lo = me & ((1u << b) - 1u)
    return T.nb + ((<int64_t>b) << (T.N - 1)) + (lo | ((me >> (b + 1)) << b))


cdef inline int decode(const Tab* T, int64_t i, uint32_t* me, uint32_t* opp) noexcept nogil:
    """Masks of position ``i``; returns the blank cell or -1."""
    cdef int64_t j
    cdef int b
    cdef uint32_t r, m
    if i < T.nb:
        me[0] = <uint32_t>i
        opp[0] = T.full ^ <uint32_t>i
        return -1
    j = i - T.nb
    b = <int>(j >> (T.N - 1))
    r = <uint32_t>(j & ((1 << (T.N - 1)) - 1))
    m = (r & ((1u << b) - 1u)) | ((r >> b) << (b + 1))
    me[0] = m
    opp[0] = T.full & ~m & ~(1u << b)
    return b


cdef inline void set_dist(Tab* T, int64_t i, int d) noexcept nogil:
    if i < T.nb:
        T.dist0[i] = <uint16_t>d
    else:
        T.dist1[i - T.nb] = <uint8_t>(d if d < DIST1_CAP else DIST1_CAP)


cdef int64_t init_chunk(Tab* T, int64_t lo, int64_t hi, int64_t* res, interrupt_t* it) noexcept nogil:
    """First pass over positions ``lo .. hi - 1`` of one class: no position,
    win in 1, loss in 1 (every move completes an opponent line), else the
    count of moves that do neither.  Returns -1 when interrupted."""
    cdef int n = T.n, nonlosing, win, b
    cdef uint32_t me, opp
    cdef int64_t i, base = 0 if lo < T.nb else T.nb
    for i in range(lo, hi):
        if interrupt_poll(it):
            return -1
        b = decode(T, i, &me, &opp)
        if quixo_line_flags(me, opp, n):
            tb_claim(T.val, i, V_NONE)
            continue
        nonlosing = quixo_move_outcomes(me, opp, n)
        win = nonlosing < 0
        if nonlosing <= 0:
            tb_claim(T.val, i, V_WIN if win else V_LOSS)
            res[0 if win else 1] += 1
            set_dist(T, i, 1)
            if b >= 0:
                tb_setbit(T.cur, i - T.nb)
        else:
            T.cnt[i - base] = <uint8_t>nonlosing
    return 0


cdef inline int resolve_pred(Tab* T, int64_t p, int64_t cbase, int qv, int t, int64_t* res) noexcept nogil:
    """Position ``p`` has a move to a position of value ``qv`` resolved at
    level ``t``; returns 1 if ``p`` is resolved now (at ``t + 1``)."""
    if tb_get(T.val, p) != V_UNKNOWN:
        return 0
    if qv == V_LOSS:
        if not tb_claim(T.val, p, V_WIN):
            return 0
        res[0] += 1
    else:
        if tb_dec(&T.cnt[p - cbase]) != 0:
            return 0
        if not tb_claim(T.val, p, V_LOSS):
            return 0
        res[1] += 1
    set_dist(T, p, t + 1)
    if p >= T.nb:
        tb_setbit(T.nxt, p - T.nb)
    return 1


cdef void predecessors(Tab* T, int64_t q, int t, bint from_blank, int64_t* res) noexcept nogil:
    """Resolve the predecessors of position ``q``, resolved at level ``t``, in
    the class being solved: the cube taken was the previous mover's
    (``from_blank`` false: a predecessor of ``q``'s class) or blank (true: a
    one-blank predecessor of a no-blank ``q``)."""
    cdef int n = T.n, k, nall = qx_nall[T.n], qv = tb_get(T.val, q)
    cdef uint32_t me, opp, nm, no, segp, keep, src
    cdef int shl, shr
    cdef bint one_blank = q >= T.nb
    cdef int64_t p, cbase = T.nb if (one_blank or from_blank) else 0
    decode(T, q, &me, &opp)
    for k in range(nall):
        if not (qx_dest[n][k] & opp):
            continue
        shl = qx_shl[n][k]
        shr = qx_shr[n][k]
        keep = qx_keep[n][k]
        src = qx_src[n][k]
        segp = (qx_seg[n][k] << shl) >> shr
        # after the push, seg's cells sit at segp: slide them back
        nm = (opp & keep) | (((opp & segp) << shr) >> shl)
        no = (me & keep) | (((me & segp) << shr) >> shl)
        if from_blank:
            p = index1(T, nm, tb_ctz(src))
        elif not one_blank:
            p = nm | src
        else:
            p = index1(T, nm | src, tb_ctz(T.full & ~(nm | src | no)))
        resolve_pred(T, p, cbase, qv, t, res)


cdef int64_t level_chunk(Tab* T, int kind, int64_t lo, int64_t hi, int t, int64_t* res,
                         interrupt_t* it) noexcept nogil:
    """Level ``t`` over the positions ``lo .. hi - 1`` resolved at ``t``."""
    cdef int64_t i, w, wlo, whi
    cdef uint64_t bits
    if lo < T.nb:
        for i in range(lo, hi):
            if T.dist0[i] != t:
                continue
            if interrupt_poll(it):
                return -1
            # no-blank position: its no-blank predecessors (phase 0) or its
            # one-blank ones, where the cube taken was the blank (phase 1)
            predecessors(T, i, t, kind == K_LEVEL1, res)
        return 0
    wlo = (lo - T.nb) >> 6
    whi = (hi - T.nb + 63) >> 6
    for w in range(wlo, whi):
        bits = T.cur[w]
        while bits:
            i = T.nb + (w << 6) + tb_ctz64(bits)
            bits &= bits - 1
            if interrupt_poll(it):
                return -1
            predecessors(T, i, t, False, res)
    return 0


cdef class Builder:
    """The arrays of one build and its passes (see the module docstring).

    ``Builder(size, val, cnt, dist0, dist1, cur, nxt)`` with numpy arrays of
    the sizes :func:`array_sizes` gives; ``run(kind, t, threads)`` runs one
    pass on ``threads`` threads and returns ``(wins, losses)`` it resolved.
    """
    cdef Tab T
    cdef object arrays
    cdef int64_t next_chunk
    cdef int64_t first_chunk
    cdef int64_t last_chunk
    cdef int64_t done_chunks
    cdef int64_t counts[64][2]
    cdef int stop
    cdef int kind
    cdef int level
    cdef bint noblank

    def __cinit__(self, int size, val, cnt, dist0, dist1, cur, nxt):
        cdef uint8_t[::1] v = val
        cdef uint8_t[::1] c = cnt
        cdef uint16_t[::1] d0 = dist0
        cdef uint8_t[::1] d1 = dist1
        cdef uint64_t[::1] b0 = cur
        cdef uint64_t[::1] b1 = nxt
        sizes = array_sizes(size)
        got = {"val": v.shape[0], "cnt": c.shape[0], "dist0": d0.shape[0],
               "dist1": d1.shape[0], "cur": b0.shape[0], "nxt": b1.shape[0]}
        for name, want in sizes.items():
            if got[name] != want:
                raise ValueError(f"{name} has {got[name]} items, {want} wanted")
        self.T.n = size
        self.T.N = size * size
        self.T.full = qx_full[size]
        self.T.nb = (<int64_t>1) << self.T.N
        self.T.n1 = self.T.N * ((<int64_t>1) << (self.T.N - 1))
        self.T.val = &v[0]
        self.T.cnt = &c[0]
        self.T.dist0 = &d0[0]
        self.T.dist1 = &d1[0]
        self.T.cur = &b0[0]
        self.T.nxt = &b1[0]
        self.arrays = [val, cnt, dist0, dist1, cur, nxt]

    def swap(self):
        """After a one-blank level: the next level's frontier becomes the
        current one, and the next one is cleared."""
        cdef uint64_t* tmp = self.T.cur
        self.T.cur = self.T.nxt
        self.T.nxt = tmp
        a = self.arrays
        a[4], a[5] = a[5], a[4]
        a[5][:] = 0

    @property
    def frontier(self):
        """The array that holds the current one-blank frontier."""
        return self.arrays[4]

    def progress(self):
        """Fraction of the running pass's chunks handed out."""
        cdef int64_t total = self.last_chunk - self.first_chunk
        cdef int64_t done = self.next_chunk - self.first_chunk
        if total <= 0:
            return 1.0
        return min(1.0, done / <double>total)

    def _work(self, int tid):
        """One thread's share of the pass (chunks taken from the shared counter)."""
        cdef interrupt_t it
        cdef int64_t ch, lo, hi, mid, rc = 0
        cdef int64_t nb = self.T.nb
        cdef int64_t end = nb if (self.kind == K_INIT0 or self.kind == K_LEVEL0) else nb + self.T.n1
        cdef int kind = self.kind, t = self.level
        cdef int64_t res[2]
        res[0] = 0
        res[1] = 0
        interrupt_init(&it, 64, &self.stop)
        with nogil:
            while rc == 0:
                ch = tb_take(&self.next_chunk)
                if ch >= self.last_chunk:
                    break
                lo = ch << CHUNK_BITS
                hi = lo + (1 << CHUNK_BITS)
                if hi > end:
                    hi = end
                if kind == K_INIT1 and lo < nb:
                    lo = nb           # small boards: a chunk holds both classes
                mid = nb if lo < nb < hi else hi
                rc = self._piece(lo, mid, res, &it)
                if rc == 0 and mid < hi:
                    rc = self._piece(mid, hi, res, &it)
        self.counts[tid][0] = res[0]
        self.counts[tid][1] = res[1]
        interrupt_discard(&it)

    cdef int64_t _piece(self, int64_t lo, int64_t hi, int64_t* res, interrupt_t* it) noexcept nogil:
        if lo >= hi:
            return 0
        if self.kind == K_INIT0 or self.kind == K_INIT1:
            return init_chunk(&self.T, lo, hi, res, it)
        if lo < self.T.nb and not self.noblank:
            return 0
        return level_chunk(&self.T, self.kind, lo, hi, self.level, res, it)

    def run(self, int kind, int t=0, int threads=1, monitor=None, bint noblank=True):
        """One pass (``INIT0``: the no-blank class's first pass, ``LEVEL0``
        its level ``t``, ``INIT1``/``LEVEL1`` the same for the one-blank
        class; a one-blank level also takes the no-blank positions of level
        ``t`` unless ``noblank`` is false: there are none past the no-blank
        class's longest distance) on ``threads`` threads; ``(wins, losses)``
        resolved.

        The calling thread waits and calls ``monitor(fraction_done)`` about
        every 50 ms; an exception there (``KeyboardInterrupt``) stops the
        threads within milliseconds and is raised: the arrays are then in
        the middle of a pass (start again from a checkpoint)."""
        import threading
        if not 1 <= threads <= 64:
            raise ValueError(f"threads must be in 1..64, got {threads}")
        cdef int64_t chunk = (<int64_t>1) << CHUNK_BITS
        cdef int64_t nbc = (self.T.nb + chunk - 1) // chunk
        cdef int64_t allc = (self.T.nb + self.T.n1 + chunk - 1) // chunk
        if kind not in (K_INIT0, K_LEVEL0, K_INIT1, K_LEVEL1):
            raise ValueError(f"unknown pass {kind}")
        self.kind = kind
        self.level = t
        self.noblank = noblank
        if kind == K_INIT0 or kind == K_LEVEL0:
            self.first_chunk, self.last_chunk = 0, nbc
        elif kind == K_INIT1:
            # the one-blank class starts at 2**N, a multiple of the chunk from 4x4 on
            self.first_chunk = self.T.nb // chunk
            self.last_chunk = allc
        else:
            self.first_chunk, self.last_chunk = 0, allc
        if kind == K_INIT1 and self.T.nb % chunk:
            self.first_chunk = 0      # small boards: one chunk holds both classes
        elif kind == K_LEVEL1 and not noblank:
            self.first_chunk = nbc if self.T.nb % chunk == 0 else 0
        self.next_chunk = self.first_chunk
        self.stop = 0
        for i in range(threads):
            self.counts[i][0] = 0
            self.counts[i][1] = 0
        workers = [threading.Thread(target=self._work, args=(i,), daemon=True)
                   for i in range(threads)]
        for w in workers:
            w.start()
        try:
            while True:
                alive = [w for w in workers if w.is_alive()]
                if not alive:
                    break
                alive[0].join(0.05)
                if monitor is not None:
                    monitor(self.progress())
        except BaseException:
            self.stop = 1
            for w in workers:
                w.join()
            raise
        wins = sum(self.counts[i][0] for i in range(threads))
        losses = sum(self.counts[i][1] for i in range(threads))
        return wins, losses


def array_sizes(int size):
    """Items of each array a build of the ``size`` x ``size`` board needs."""
    if size not in (3, 4, 5):
        raise ValueError(f"size must be 3, 4 or 5, got {size}")
    N = size * size
    nb = 1 << N
    n1 = N << (N - 1)
    total = nb + n1
    return {"val": (total + 3) // 4, "cnt": max(nb, n1), "dist0": nb, "dist1": n1,
            "cur": (n1 + 63) // 64, "nxt": (n1 + 63) // 64}


def position_index(int size, uint32_t me, uint32_t opp):
    """Index of the position (side to move's ``me``, the other's ``opp``), or
    -1 when it has more than one blank cube."""
    cdef Tab T
    if size not in (3, 4, 5):
        raise ValueError(f"size must be 3, 4 or 5, got {size}")
    T.N = size * size
    T.full = qx_full[size]
    T.nb = (<int64_t>1) << T.N
    cdef uint32_t blank = T.full & ~(me | opp)
    if me & opp or (me | opp) & ~T.full:
        raise ValueError(f"masks {me:#x}, {opp:#x} overlap or leave the {size}x{size} board")
    if blank == 0:
        return me
    if blank & (blank - 1):
        return -1
    return index1(&T, me, tb_ctz(blank))


def position_masks(int size, int64_t i):
    """``(me, opp)`` of position index ``i``."""
    cdef Tab T
    cdef uint32_t me, opp
    if size not in (3, 4, 5):
        raise ValueError(f"size must be 3, 4 or 5, got {size}")
    T.N = size * size
    T.full = qx_full[size]
    T.nb = (<int64_t>1) << T.N
    T.n1 = T.N * ((<int64_t>1) << (T.N - 1))
    if not 0 <= i < T.nb + T.n1:
        raise ValueError(f"index {i} out of range")
    decode(&T, i, &me, &opp)
    return me, opp
