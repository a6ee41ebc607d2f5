# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Compiled checker of Clobber proof certificates ("ttt-engine clobber certificate 2").

The format and the rules it trusts are those of the reference checker,
``ttt_engine.clobber_check_reference`` (plain Python); this module replays the same
records with the same checks and the same verdicts, in a ``nogil`` loop.  It
shares no code with the solver: its move generator, component finder,
canonical form (``check_positions.pxd``, cimported by nothing else) and
brute force are its own, written from the rules only (only the bit
primitives - popcount, lowest bit, column masks - come from the rules core,
``games/clobber/rules.pxd``).

What differs from the reference, and what that costs:

- the record stream is read in chunks from a Python callable (the caller
  decompresses the zlib stream piece by piece), so a proof of many GB never
  has to be in memory;
- the proven positions are kept as 128-bit fingerprints of (canonical
  form, claim) - two independent 64-bit hashes over the sorted least images
  of the components, seeded by the claim - instead of the forms themselves.
  A reference ``R`` to a position that was never proven is accepted wrongly
  only if its fingerprint equals one of the ``n`` stored ones; for
  well-mixed hashes the chance that this happens anywhere in a check of
  ``N`` records is at most about N * n / 2^128 <= N^2 / 2^128 (below 10^-20
  for N = 10^9);
- brute-force outcomes (components of at most ``MAX_BRUTE`` stones, dead
  stones stripped, translated to the corner) are memoised under their exact
  128-bit key (the two masks), so no approximation there.

Both tables grow (doubling, rehash at load 0.6) up to a memory limit (85%
of the physical memory unless told); there they fill up to load 0.9, and
then the check stops with ``MemoryError`` (never a crash).  The proven set
costs 27-53 bytes per proven position (16-byte slots at load 0.3-0.6); it
is split into 256 shards by hash, each doubling on its own, so growing
never needs memory for two copies of the whole set.
Ctrl-C stops it within ~100 ms (``KeyboardInterrupt``).
"""
from libc.stdint cimport uint64_t, uint8_t
from libc.stdlib cimport malloc, calloc, realloc, free
from ttt_engine._core.core.interrupt cimport (interrupt_t, interrupt_init, interrupt_poll,
                                         interrupt_finish)
from ttt_engine._core.games.clobber.rules cimport CLOBBER_POPCOUNT as cc_popcount
# the checker's own rules and canonical form (no solver code)
from ttt_engine._core.solvers.clobber.check_positions cimport (
    live_components, live_mask, move_legal, legal_moves, play, corner_shift, least_image,
    mix1, mix2, fingerprint,
)

MAX_BRUTE = 16
cdef int C_MAX_BRUTE = 16

# verdicts of the replay (0: the proof holds)
cdef enum:
    OK = 0
    E_EARLY
    E_REF
    E_M_LOSS
    E_ILLEGAL
    E_A_WIN
    E_Z_CUT
    E_Z_EMPTY
    E_Z_LARGE
    E_Z_NONZERO
    E_N_COMPS
    E_N_NOTNEG
    E_O_LARGE
    E_O_WIN
    E_O_LOSS
    E_TAG
    E_TRAILING
    E_PYTHON          # the chunk reader raised
    E_MEMORY
    E_INTERRUPT

_MESSAGES = {
    E_EARLY: "certificate ends early",
    E_REF: "reference to an unproven position",
    E_M_LOSS: "a move record where a loss is claimed",
    E_ILLEGAL: "illegal move",
    E_A_WIN: "an all-moves record where a win is claimed",
    E_Z_CUT: "zero set cuts a component",
    E_Z_EMPTY: "zero set holds squares without stones",
    E_Z_LARGE: "zero set too large to check",
    E_Z_NONZERO: "stones are not a zero game",
    E_N_COMPS: "negative pair is not two components",
    E_N_NOTNEG: "components are not colour-swapped copies",
    E_O_LARGE: "outcome rule on a component too large to check",
    E_O_WIN: "outcome rule does not give a win",
    E_O_LOSS: "outcome rule does not give a loss",
    E_TAG: "unknown record tag",
    E_TRAILING: "trailing records after the proof",
}

cdef enum:
    PROVE = 0
    DONE = 1
    SHARD_BITS = 8
    SHARDS = 256            # 1 << SHARD_BITS


cdef struct item_t:
    uint64_t own            # PROVE: the position, from the mover's side
    uint64_t opp
    uint64_t f1             # DONE: fingerprint to record as proven
    uint64_t f2
    int claim
    int kind


# ---------------------------------------------------------------- checker

cdef class Replay:
    """One replay of a record stream (use ``check_records``)."""
    # fingerprint set in SHARDS tables chosen by the top bits of f2, each
    # growing on its own (so a doubling never needs twice the whole set);
    # 2 words per slot, (0, 0) empty, linear probing from f1
    cdef uint64_t* proven[SHARDS]
    cdef size_t proven_cap[SHARDS]
    cdef size_t proven_cnt[SHARDS]
    cdef size_t proven_n        # total
    cdef uint64_t* brute_keys   # brute-force memo: 2 words per slot
    cdef uint8_t* brute_val     # 0 empty, 1 mover loses, 2 mover wins
    cdef size_t brute_cap
    cdef size_t brute_n
    cdef item_t* stack
    cdef size_t stack_cap
    cdef const uint8_t* buf
    cdef size_t buf_len
    cdef size_t buf_pos
    cdef object chunk           # keeps ``buf`` alive
    cdef object reader
    cdef object error           # exception raised by the reader
    cdef uint64_t records
    cdef uint64_t detail        # move or mask of a rejected record
    cdef size_t mem_used        # bytes in the two tables
    cdef size_t mem_limit       # the tables do not grow beyond this
    cdef interrupt_t it

    def __cinit__(self, int proven_bits=16, int brute_bits=14):
        if not (2 <= proven_bits <= 40 and 2 <= brute_bits <= 40):
            raise ValueError("clobber_check: table bits must be in 2..40")
        cdef int k
        cdef bint ok = True
        for k in range(SHARDS):
            self.proven_cap[k] = (<size_t>1) << max(proven_bits - SHARD_BITS, 2)
            self.proven[k] = <uint64_t*>calloc(2 * self.proven_cap[k], sizeof(uint64_t))
            ok = ok and self.proven[k] != NULL
        self.brute_cap = (<size_t>1) << brute_bits
        self.brute_keys = <uint64_t*>calloc(2 * self.brute_cap, sizeof(uint64_t))
        self.brute_val = <uint8_t*>calloc(self.brute_cap, 1)
        self.stack_cap = 4096
        self.stack = <item_t*>malloc(self.stack_cap * sizeof(item_t))
        if not (ok and self.brute_keys and self.brute_val and self.stack):
            raise MemoryError("clobber_check: cannot allocate the checker's tables")
        self.mem_used = 16 * SHARDS * self.proven_cap[0] + 17 * self.brute_cap
        self.mem_limit = <size_t>(-1)
        self.chunk = b""
        self.buf_len = 0
        self.buf_pos = 0

    def __dealloc__(self):
        cdef int k
        for k in range(SHARDS):
            free(self.proven[k])
        free(self.brute_keys)
        free(self.brute_val)
        free(self.stack)

    # -------------------------------------------------- input

    cdef int refill(self) noexcept with gil:
        """Next chunk from the reader: 1 if bytes came, 0 at the end, -1 on an exception."""
        cdef const uint8_t[:] view
        try:
            data = self.reader()
            if not isinstance(data, bytes):
                raise TypeError("clobber_check: the chunk reader must return bytes")
        except BaseException as e:
            self.error = e
            return -1
        self.chunk = data
        self.buf_pos = 0
        self.buf_len = len(<bytes>data)
        self.buf = <const uint8_t*><const char*>(<bytes>data)
        return 1 if self.buf_len else 0

    cdef inline int next_byte(self) noexcept nogil:
        """The next byte, -1 at the end of the stream, -2 on a reader exception."""
        cdef int r
        while self.buf_pos >= self.buf_len:
            r = self.refill()
            if r <= 0:
                return -1 if r == 0 else -2
        self.buf_pos += 1
        return self.buf[self.buf_pos - 1]

    cdef inline int next_mask(self, uint64_t* out) noexcept nogil:
        cdef uint64_t v = 0
        cdef int i, b
        for i in range(8):
            b = self.next_byte()
            if b < 0:
                return b
            v |= (<uint64_t>b) << (8 * i)
        out[0] = v
        return 0

    # -------------------------------------------------- tables

    cdef bint proven_has(self, uint64_t f1, uint64_t f2) noexcept nogil:
        cdef int k = f2 >> (64 - SHARD_BITS)
        cdef uint64_t* t = self.proven[k]
        cdef size_t mask = self.proven_cap[k] - 1, i = f1 & mask
        while t[2 * i] or t[2 * i + 1]:
            if t[2 * i] == f1 and t[2 * i + 1] == f2:
                return True
            i = (i + 1) & mask
        return False

    cdef int proven_add(self, uint64_t f1, uint64_t f2) noexcept nogil:
        """Insert (0 if new or present); -1 when memory runs out.  A shard
        doubles at load 0.6; when it may not (``mem_limit``) or cannot, it
        fills up to load 0.9 first."""
        cdef int k = f2 >> (64 - SHARD_BITS)
        cdef size_t mask, i, j, cap = self.proven_cap[k], n = self.proven_cnt[k]
        cdef uint64_t* old = self.proven[k]
        cdef uint64_t* t = NULL
        if (n + 1) * 5 > cap * 3:
            if self.mem_used + 32 * cap <= self.mem_limit:
                t = <uint64_t*>calloc(4 * cap, sizeof(uint64_t))
            if t == NULL and (n + 1) * 10 > cap * 9:
                return -1
        if t != NULL:
            mask = 2 * cap - 1
            for j in range(cap):
                if old[2 * j] or old[2 * j + 1]:
                    i = old[2 * j] & mask
                    while t[2 * i] or t[2 * i + 1]:
                        i = (i + 1) & mask
                    t[2 * i] = old[2 * j]
                    t[2 * i + 1] = old[2 * j + 1]
            free(old)
            self.proven[k] = t
            self.mem_used += 16 * cap
            self.proven_cap[k] = 2 * cap
        t = self.proven[k]
        mask = self.proven_cap[k] - 1
        i = f1 & mask
        while t[2 * i] or t[2 * i + 1]:
            if t[2 * i] == f1 and t[2 * i + 1] == f2:
                return 0
            i = (i + 1) & mask
        t[2 * i] = f1
        t[2 * i + 1] = f2
        self.proven_cnt[k] += 1
        self.proven_n += 1
        return 0

    cdef int brute_get(self, uint64_t own, uint64_t opp) noexcept nogil:
        """Memoised outcome: 1 loss, 2 win, 0 unknown."""
        cdef size_t mask = self.brute_cap - 1, i = mix2(own ^ mix1(opp)) & mask
        while self.brute_val[i]:
            if self.brute_keys[2 * i] == own and self.brute_keys[2 * i + 1] == opp:
                return self.brute_val[i]
            i = (i + 1) & mask
        return 0

    cdef int brute_put(self, uint64_t own, uint64_t opp, uint8_t v) noexcept nogil:
        cdef size_t mask, i, j, cap
        cdef uint64_t* k = NULL
        cdef uint8_t* vals = NULL
        cdef bint grown = False
        if (self.brute_n + 1) * 5 > self.brute_cap * 3:
            cap = self.brute_cap * 2
            if self.mem_used + 17 * cap <= self.mem_limit:
                k = <uint64_t*>calloc(2 * cap, sizeof(uint64_t))
                vals = <uint8_t*>calloc(cap, 1)
                grown = k != NULL and vals != NULL
                if not grown:
                    free(k)
                    free(vals)
            if not grown and (self.brute_n + 1) * 10 > self.brute_cap * 9:
                return -1
        if grown:
            for j in range(self.brute_cap):
                if self.brute_val[j]:
                    i = mix2(self.brute_keys[2 * j] ^ mix1(self.brute_keys[2 * j + 1])) & (cap - 1)
                    while vals[i]:
                        i = (i + 1) & (cap - 1)
                    k[2 * i] = self.brute_keys[2 * j]
                    k[2 * i + 1] = self.brute_keys[2 * j + 1]
                    vals[i] = self.brute_val[j]
            free(self.brute_keys)
            free(self.brute_val)
            self.brute_keys = k
            self.brute_val = vals
            self.mem_used += 17 * (cap // 2)
            self.brute_cap = cap
        mask = self.brute_cap - 1
        i = mix2(own ^ mix1(opp)) & mask
        while self.brute_val[i]:
            i = (i + 1) & mask
        self.brute_keys[2 * i] = own
        self.brute_keys[2 * i + 1] = opp
        self.brute_val[i] = v
        self.brute_n += 1
        return 0

    cdef int wins(self, uint64_t own, uint64_t opp) noexcept nogil:
        """Brute force: 1 if the mover wins, 0 if not; -1 out of memory, -2 interrupted.
        Plain memoised negamax on the position with dead stones stripped,
        translated to the corner."""
        cdef uint64_t keep = live_mask(own, opp), a, b
        cdef uint8_t moves[256]
        cdef int n, i, v, r, s
        own &= keep
        opp &= keep
        if keep:
            s = corner_shift(keep)
            own >>= s
            opp >>= s
        v = self.brute_get(own, opp)
        if v:
            return v - 1
        if interrupt_poll(&self.it):
            return -2
        r = 0
        n = legal_moves(own, opp, moves)
        for i in range(n):
            play(own, opp, moves[i], &a, &b)
            v = self.wins(a, b)
            if v < 0:
                return v
            if v == 0:
                r = 1
                break
        if self.brute_put(own, opp, <uint8_t>(r + 1)) < 0:
            return -1
        return r

    cdef inline int push(self, uint64_t own, uint64_t opp, int claim, int kind,
                         uint64_t f1, uint64_t f2, size_t* sp) noexcept nogil:
        cdef item_t* s
        if sp[0] == self.stack_cap:
            s = <item_t*>realloc(self.stack, 2 * self.stack_cap * sizeof(item_t))
            if s == NULL:
                return -1
            self.stack = s
            self.stack_cap *= 2
        s = &self.stack[sp[0]]
        s.own = own
        s.opp = opp
        s.claim = claim
        s.kind = kind
        s.f1 = f1
        s.f2 = f2
        sp[0] += 1
        return 0

    # -------------------------------------------------- replay

    cdef int prove(self, uint64_t own, uint64_t opp, int claim) noexcept nogil:
        """Replay the records proving ``claim`` about (own, opp); a verdict code."""
        cdef size_t sp = 0
        cdef item_t e
        cdef uint64_t comps[32]
        cdef uint64_t keep, f1, f2, z, g, h, rest, a, b, o1, w1, o2, w2
        cdef uint8_t moves[256]
        cdef int n, i, tag, m, v, lw, rw, le, ge, gt, ig, ih
        if self.push(own, opp, claim, PROVE, 0, 0, &sp) < 0:
            return E_MEMORY
        while sp > 0:
            sp -= 1
            e = self.stack[sp]
            if e.kind == DONE:
                if self.proven_add(e.f1, e.f2) < 0:
                    return E_MEMORY
                continue
            if interrupt_poll(&self.it):
                return E_INTERRUPT
            claim = e.claim
            n = live_components(e.own, e.opp, comps)
            keep = 0
            for i in range(n):
                keep |= comps[i]
            own = e.own & keep
            opp = e.opp & keep
            fingerprint(own, comps, n, claim, &f1, &f2)
            tag = self.next_byte()
            if tag < 0:
                return E_EARLY if tag == -1 else E_PYTHON
            self.records += 1
            if tag == 82:                                   # R
                if not self.proven_has(f1, f2):
                    return E_REF
                continue
            if self.push(0, 0, claim, DONE, f1, f2, &sp) < 0:
                return E_MEMORY
            if tag == 77:                                   # M
                m = self.next_byte()
                if m < 0:
                    return E_EARLY if m == -1 else E_PYTHON
                self.detail = m
                if not claim:
                    return E_M_LOSS
                if not move_legal(own, opp, m):
                    return E_ILLEGAL
                play(own, opp, m, &a, &b)
                if self.push(a, b, 0, PROVE, 0, 0, &sp) < 0:
                    return E_MEMORY
            elif tag == 65:                                 # A
                if claim:
                    return E_A_WIN
                n = legal_moves(own, opp, moves)
                for i in range(n - 1, -1, -1):
                    play(own, opp, moves[i], &a, &b)
                    if self.push(a, b, 1, PROVE, 0, 0, &sp) < 0:
                        return E_MEMORY
            elif tag == 90:                                 # Z
                v = self.next_mask(&z)
                if v < 0:
                    return E_EARLY if v == -1 else E_PYTHON
                self.detail = z
                rest = z
                for i in range(n):
                    if comps[i] & z:
                        if comps[i] & z != comps[i]:
                            return E_Z_CUT
                        rest &= ~comps[i]
                if rest:
                    return E_Z_EMPTY
                if cc_popcount(z) > 2 * C_MAX_BRUTE:
                    return E_Z_LARGE
                v = self.wins(own & z, opp & z)
                if v == 0:
                    v = self.wins(opp & z, own & z)
                if v < 0:
                    return E_MEMORY if v == -1 else E_INTERRUPT
                if v:
                    return E_Z_NONZERO
                if self.push(own & ~z, opp & ~z, claim, PROVE, 0, 0, &sp) < 0:
                    return E_MEMORY
            elif tag == 78:                                 # N
                v = self.next_mask(&g)
                if v == 0:
                    v = self.next_mask(&h)
                if v < 0:
                    return E_EARLY if v == -1 else E_PYTHON
                ig = ih = -1
                for i in range(n):
                    if comps[i] == g:
                        ig = i
                    if comps[i] == h:
                        ih = i
                if ig < 0 or ih < 0 or g == h:
                    return E_N_COMPS
                least_image(g, opp & g, &o1, &w1)
                least_image(h, own & h, &o2, &w2)
                if o1 != o2 or w1 != w2:
                    return E_N_NOTNEG
                if self.push(own & ~(g | h), opp & ~(g | h), claim, PROVE, 0, 0, &sp) < 0:
                    return E_MEMORY
            elif tag == 79:                                 # O
                le = ge = 1
                gt = 0
                for i in range(n):
                    if cc_popcount(comps[i]) > C_MAX_BRUTE:
                        return E_O_LARGE
                    lw = self.wins(own & comps[i], opp & comps[i])
                    if lw < 0:
                        return E_MEMORY if lw == -1 else E_INTERRUPT
                    rw = self.wins(opp & comps[i], own & comps[i])
                    if rw < 0:
                        return E_MEMORY if rw == -1 else E_INTERRUPT
                    le = le and not lw
                    ge = ge and not rw
                    gt = gt or lw
                if claim and not (ge and gt):
                    return E_O_WIN
                if not claim and not le:
                    return E_O_LOSS
            else:
                self.detail = tag
                return E_TAG
        tag = self.next_byte()
        if tag == -2:
            return E_PYTHON
        if tag >= 0:
            return E_TRAILING
        return OK


def _physical_memory():
    import os
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def check_records(own, opp, bint claim, reader, max_memory=None, _table_bits=(16, 14)):
    """Replay a record stream proving ``claim`` (True: the mover wins) about
    the position (``own``, ``opp``: the mover's and the opponent's stones,
    bit ``r * 8 + c``).

    ``reader()`` returns the next chunk of the decompressed stream (bytes;
    ``b""`` at its end); exceptions it raises propagate.  Returns
    ``(error, records, brute_forced)``: ``error`` None when the stream
    proves the claim with nothing after it, else a message saying which
    check failed; ``records`` read, positions brute-forced.

    ``max_memory``: bytes the two tables may grow to (None: 85% of the
    physical memory).  The proven set takes 16 bytes per slot at load
    0.3-0.6, i.e. 27-53 bytes per proven position, in 256 shards that grow
    one at a time; at the limit they fill up to load 0.9, and then this
    raises ``MemoryError``.  Ctrl-C raises
    ``KeyboardInterrupt`` within ~100 ms."""
    cdef uint64_t o = own, p = opp
    cdef Replay rp = Replay(*_table_bits)
    cdef int code
    if not callable(reader):
        raise TypeError("clobber_check: reader must be callable")
    if o & p:
        raise ValueError("clobber_check: own and opp overlap")
    rp.reader = reader
    if max_memory is None:
        max_memory = _physical_memory()
        if max_memory is not None:
            max_memory = int(max_memory * 0.85)
    if max_memory is not None:
        if max_memory < 0:
            raise ValueError("clobber_check: max_memory must be >= 0 bytes")
        rp.mem_limit = min(max_memory, <size_t>(-1))
    interrupt_init(&rp.it, 256, NULL)
    with nogil:
        code = rp.prove(o, p, claim)
    interrupt_finish(&rp.it)
    if code == E_PYTHON:
        raise rp.error
    if code == E_MEMORY:
        raise MemoryError(f"clobber_check: out of memory after {rp.records:,} records "
                          f"({rp.proven_n:,} proven positions, {rp.brute_n:,} brute-forced; "
                          f"tables {rp.mem_used / 2**20:,.0f} MB, limit "
                          f"{min(rp.mem_limit, 2**63) / 2**20:,.0f} MB)")
    if code == E_INTERRUPT:      # a stop without a kept exception
        raise KeyboardInterrupt
    if code == OK:
        return None, rp.records, rp.brute_n
    msg = _MESSAGES[code]
    if code == E_ILLEGAL:
        msg = f"illegal move {rp.detail}"
    elif code == E_Z_NONZERO:
        msg = f"stones {rp.detail:#x} are not a zero game"
    elif code == E_TAG:
        msg = f"unknown record tag {rp.detail!r}"
    return f"{msg} (record {rp.records:,})", rp.records, rp.brute_n


def canonical_key(own, opp):
    """The canonical form as this module computes it: the sorted tuple of the
    live components' least images ``(stones, mover's stones)``, for tests."""
    cdef uint64_t comps[32]
    cdef uint64_t o, w, a = own, b = opp
    cdef int n = live_components(a, b, comps), i
    out = []
    for i in range(n):
        least_image(comps[i], a & comps[i], &o, &w)
        out.append((o, w))
    return tuple(sorted(out))


def brute_wins(own, opp):
    """Brute-force outcome of (own, opp) for the mover (True: wins), for tests."""
    cdef Replay rp = Replay()
    cdef uint64_t a = own, b = opp
    cdef int v
    interrupt_init(&rp.it, 256, NULL)
    with nogil:
        v = rp.wins(a, b)
    interrupt_finish(&rp.it)
    if v == -1:
        raise MemoryError("clobber_check: out of memory")
    if v == -2:
        raise KeyboardInterrupt
    return bool(v)
