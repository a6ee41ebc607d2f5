# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Quixo discounted state values: ``ValueTable``, a preallocated
open-addressing hash table in C (insertion-ordered dense arrays + a slot
index), with its array form (the binary value files) and the JSON
format ``{"<board>": [average score, count], ...}`` written and parsed by C
code.

Point of view of a score: a state's score belongs to the player who MADE THE
MOVE INTO IT (the player not to move in it).  The 25-character key is written
from that player's side: ``'X'`` are that player's cubes, ``'O'`` the
opponent's.  For states reached by X (odd plies, the usual reading)
that is the board as it stands; states reached by O are stored colour-swapped,
so one table serves both sides and positions that differ only by who is to
move never mix.  The initial empty board counts as "reached by O".  With a
game of N states (N - 1 moves, state 0 = empty board), state i scores
``reward * gamma**(N - 1 - i)`` where reward is 1.0 if its player won,
0.0 if it lost and ``draw_score`` (default 0.5) for a draw by the move cap
(see ``tournament``).
"""
from libc.stdint cimport uint64_t, uint32_t, int64_t
from libc.stdlib cimport malloc, calloc, free, realloc, strtod
from libc.string cimport memset, memcpy, strlen
from cpython.mem cimport PyMem_Free

cdef extern from "Python.h":
    char* PyOS_double_to_string(double val, char format_code, int precision, int flags, int* ptype)
    int Py_DTSF_ADD_DOT_0
from libc.stdio cimport snprintf
from ttt_engine._core.games.quixo.rules cimport quixo_mover_key, quixo_mix64, quixo_init_tables
from ttt_engine._core.games.quixo.board cimport Board
from ttt_engine._core.core.interrupt cimport (
    interrupt_t, interrupt_init, interrupt_poll, interrupt_finish,
)
import numpy as np
cimport numpy as cnp
from ttt_engine._util import check_bool, check_int

cnp.import_array()
quixo_init_tables()


cdef inline int base3_bytes(int n) noexcept nogil:
    """Bytes that hold a base-3 number of n*n digits (3x3: 2, 4x4: 4, 5x5: 5)."""
    return 2 if n == 3 else (4 if n == 4 else 5)


# ---------------------------------------------------------------------- symmetries
# qx_symbyte[n][t][j][v]: image under symmetry t of the cells 8j..8j+7 set in byte v
cdef uint32_t qx_symbyte[6][8][4][256]


cdef void _init_symmetries() noexcept nogil:
    cdef int n, t, j, v, b, cell, r, c, r2, c2
    cdef uint32_t img
    for n in range(3, 6):
        for t in range(8):
            for j in range(4):
                for v in range(256):
                    img = 0
                    for b in range(8):
                        cell = 8 * j + b
                        if not (v >> b) & 1 or cell >= n * n:
                            continue
                        r = cell // n
                        c = cell % n
                        if t == 0:
                            r2 = r; c2 = c
                        elif t == 1:
                            r2 = c; c2 = n - 1 - r
                        elif t == 2:
                            r2 = n - 1 - r; c2 = n - 1 - c
                        elif t == 3:
                            r2 = n - 1 - c; c2 = r
                        elif t == 4:
                            r2 = r; c2 = n - 1 - c
                        elif t == 5:
                            r2 = n - 1 - r; c2 = c
                        elif t == 6:
                            r2 = c; c2 = r
                        else:
                            r2 = n - 1 - c; c2 = n - 1 - r
                        img |= (<uint32_t>1) << (r2 * n + c2)
                    qx_symbyte[n][t][j][v] = img


_init_symmetries()


cdef inline uint32_t qx_sym_apply(int n, int t, uint32_t m) noexcept nogil:
    return (qx_symbyte[n][t][0][m & 255] | qx_symbyte[n][t][1][(m >> 8) & 255]
            | qx_symbyte[n][t][2][(m >> 16) & 255] | qx_symbyte[n][t][3][(m >> 24) & 255])


cdef uint64_t qx_canonical(int n, uint64_t key) noexcept nogil:
    """Smallest key among the 8 rotations/reflections of the board (rules and
    lines are invariant under them, so all 8 share one value)."""
    cdef uint32_t a = <uint32_t>(key & 0x1FFFFFF), b = <uint32_t>(key >> 25)
    cdef uint64_t best = key, k
    cdef int t
    for t in range(1, 8):
        k = (<uint64_t>qx_sym_apply(n, t, a)) | ((<uint64_t>qx_sym_apply(n, t, b)) << 25)
        if k < best:
            best = k
    return best


cdef int vt_reserve(VTab* t, uint64_t want, interrupt_t* it) noexcept nogil:
    """Make room for ``want`` entries at load <= 1/2 (rehash if needed).
    Returns 0, or -1 when out of memory (table unchanged).  With ``it`` (else
    NULL), the new index (gigabytes for a large capacity) is filled a few
    megabytes at a time and the entries are moved into it with a check
    for Ctrl-C; -2 is returned when ``it`` reports one (the old index kept)."""
    cdef uint64_t cap = t.slot_mask + 1 if t.slots != NULL else 0
    cdef uint64_t newcap = 1024, i, j, d, step
    cdef uint32_t* ns
    cdef uint64_t* nk
    cdef void* p
    if want > <uint64_t>4000000000ULL:
        return -1
    if want > t.dense_cap:
        d = t.dense_cap if t.dense_cap else 1024
        while d < want:
            d *= 2
        p = realloc(t.keys, d * sizeof(uint64_t))
        if p == NULL:
            return -1
        t.keys = <uint64_t*>p
        p = realloc(t.sums, d * sizeof(double))
        if p == NULL:
            return -1
        t.sums = <double*>p
        p = realloc(t.counts, d * sizeof(uint32_t))
        if p == NULL:
            return -1
        t.counts = <uint32_t*>p
        t.dense_cap = d
    if want * 2 <= cap:
        return 0
    while newcap < want * 2:
        newcap *= 2
    ns = <uint32_t*>malloc(newcap * sizeof(uint32_t))
    nk = <uint64_t*>malloc(newcap * sizeof(uint64_t))
    if ns == NULL or nk == NULL:
        free(ns)
        free(nk)
        return -1
    i = 0
    while i < newcap:
        if it != NULL and interrupt_poll(it):
            free(ns)
            free(nk)
            return -2
        step = newcap - i if newcap - i < (1 << 20) else (1 << 20)
        memset(ns + i, 0xFF, step * sizeof(uint32_t))
        i += step
    for d in range(t.size):
        if it != NULL and interrupt_poll(it):
            free(ns)
            free(nk)
            return -2
        j = quixo_mix64(t.keys[d]) & (newcap - 1)
        while ns[j] != VT_EMPTY_SLOT:
            j = (j + 1) & (newcap - 1)
        ns[j] = <uint32_t>d
        nk[j] = t.keys[d]
    free(t.slots)
    free(t.slot_keys)
    t.slots = ns
    t.slot_keys = nk
    t.slot_mask = newcap - 1
    return 0


cdef inline Py_ssize_t _skip_space(const char* p, Py_ssize_t pos, Py_ssize_t L) noexcept nogil:
    """The first position at or after ``pos`` that is not JSON whitespace."""
    while pos < L and p[pos] in b' \t\r\n':
        pos += 1
    return pos


cdef inline bint _expect(const char* p, Py_ssize_t* pos, Py_ssize_t L, char ch) noexcept nogil:
    """Skip JSON whitespace, then ``ch``: True when it is there (``pos`` moves
    past it), False when not (``pos`` at the byte found instead)."""
    pos[0] = _skip_space(p, pos[0], L)
    if pos[0] >= L or p[pos[0]] != ch:
        return False
    pos[0] += 1
    return True


cdef class ValueTable:
    """Discounted state values ``key -> (sum of scores, count)`` in C memory.

    Keys are boards seen by the player who just moved (see the module doc).
    ``capacity`` preallocates room for that many states (it still grows by
    doubling if exceeded, outside Python).  ``size`` is the board side of the
    states (fixes the key length in JSON: 9, 16 or 25 characters).
    Picklable (by its arrays, see ``to_arrays``).
    """

    def __cinit__(self, capacity=1 << 20, size=5, symmetric=False):
        memset(&self.t, 0, sizeof(VTab))
        cap = check_int("capacity", capacity, min=1, max=2_000_000_000)
        if isinstance(size, bool) or size not in (3, 4, 5):
            raise ValueError(f"size must be 3, 4 or 5, got {size!r}")
        self.size = int(size)
        self.t.n = self.size
        self.t.sym = 1 if check_bool("symmetric", symmetric) else 0
        cdef interrupt_t it
        cdef int rc
        cdef uint64_t want = cap
        interrupt_init(&it, 1, NULL)
        with nogil:
            rc = vt_reserve(&self.t, want, &it)
        interrupt_finish(&it)
        if rc != 0:
            raise MemoryError(f"cannot allocate a value table for {cap} states")

    def __dealloc__(self):
        free(self.t.slots)
        free(self.t.slot_keys)
        free(self.t.keys)
        free(self.t.sums)
        free(self.t.counts)

    def __len__(self):
        return self.t.size

    @property
    def symmetric(self):
        """True if states are merged over the 8 board symmetries."""
        return self.t.sym != 0

    @property
    def capacity(self):
        """Slots in the open-addressing index (entries fit up to half of it)."""
        return self.t.slot_mask + 1

    @property
    def observations(self):
        """Total number of scored states added (sum of counts)."""
        cdef uint64_t i, tot = 0
        for i in range(self.t.size):
            tot += self.t.counts[i]
        return tot

    cdef uint64_t _key_of(self, board) except? 0:
        cdef int n = self.size
        if isinstance(board, Board):
            b = <Board>board
            if b.state.n != n:
                raise ValueError(f"board is {b.state.n}x{b.state.n}, table is {n}x{n}")
            return vt_key(&self.t, quixo_mover_key(&(<Board>b).state))
        if not isinstance(board, str) or len(board) != n * n:
            raise ValueError(f"expected a Board or a {n * n}-character string, got {board!r}")
        cdef uint64_t k = 0
        cdef int i
        for i in range(n * n):
            ch = board[i]
            if ch == "X":
                k |= (<uint64_t>1) << i
            elif ch == "O":
                k |= (<uint64_t>1) << (25 + i)
            elif ch != " ":
                raise ValueError(f"bad character {ch!r} in board string {board!r}")
        return vt_key(&self.t, k)

    def get(self, board, default=None):
        """``(average score, count)`` of a state, or ``default`` if never seen.

        ``board``: a key string (from the mover's side, as in the JSON) or a
        ``Board`` (looked up from the side of the player who just moved)."""
        cdef int64_t d = vt_find(&self.t, self._key_of(board))
        if d < 0:
            return default
        return (self.t.sums[d] / self.t.counts[d], self.t.counts[d])

    def __contains__(self, board):
        return vt_find(&self.t, self._key_of(board)) >= 0

    def add(self, board, double score):
        """Record one observation of ``score`` for ``board`` (tests / tools)."""
        if vt_add(&self.t, self._key_of(board), score) != 0:
            raise MemoryError("value table is out of memory")

    cdef str _key_str(self, uint64_t k):
        cdef int i, n = self.size
        return "".join("X" if (k >> i) & 1 else "O" if (k >> (25 + i)) & 1 else " "
                       for i in range(n * n))

    def items(self, limit=None):
        """Iterate ``(key string, average, count)`` in insertion order."""
        cdef uint64_t i, stop = self.t.size
        if limit is not None:
            stop = min(stop, int(limit))
        for i in range(stop):
            yield (self._key_str(self.t.keys[i]), self.t.sums[i] / self.t.counts[i], self.t.counts[i])

    def to_arrays(self):
        """``(keys, sums, counts)``: copies of the table as numpy arrays
        (``uint64``, ``float64``, ``uint32``; insertion order).  A key holds
        the mover's cubes in bits 0-24 and the opponent's in bits 25-49
        (bit ``r * n + c``).  The binary value files store exactly these."""
        cdef uint64_t n = self.t.size
        keys = np.empty(n, dtype=np.uint64)
        sums = np.empty(n, dtype=np.float64)
        counts = np.empty(n, dtype=np.uint32)
        cdef cnp.ndarray ka = keys, sa = sums, ca = counts
        if n:
            memcpy(ka.data, self.t.keys, n * sizeof(uint64_t))
            memcpy(sa.data, self.t.sums, n * sizeof(double))
            memcpy(ca.data, self.t.counts, n * sizeof(uint32_t))
        return keys, sums, counts

    @staticmethod
    def from_arrays(keys, sums, counts, size=5, symmetric=False):
        """A new table from the arrays of ``to_arrays``; ``ValueError`` naming
        the first bad entry (cubes outside the board or on both sides, a
        count of 0, a non-finite sum, a repeated key).  A symmetric table
        merges the images of every key (as ``from_json_bytes`` does)."""
        k = np.ascontiguousarray(keys, dtype=np.uint64)
        s = np.ascontiguousarray(sums, dtype=np.float64)
        c = np.ascontiguousarray(counts, dtype=np.uint32)
        if k.ndim != 1 or s.shape != k.shape or c.shape != k.shape:
            raise ValueError(f"keys, sums and counts must be 1-d arrays of one length, got "
                             f"shapes {np.shape(keys)}, {np.shape(sums)}, {np.shape(counts)}")
        if int(size) not in (3, 4, 5):
            raise ValueError(f"size must be 3, 4 or 5, got {size!r}")
        cells = int(size) * int(size)
        mask = np.uint64((1 << cells) - 1)
        mine = k & np.uint64(0x1FFFFFF)
        theirs = k >> np.uint64(25)
        bad = ((mine & ~mask) != 0) | ((theirs & ~mask) != 0) | ((mine & theirs) != 0)
        bad |= (c == 0) | ~np.isfinite(s)
        if bad.any():
            i = int(np.argmax(bad))
            raise ValueError(f"entry {i} is not a {size}x{size} state value: key {int(k[i]):#x}, "
                             f"sum {float(s[i])}, count {int(c[i])}")
        cdef ValueTable t = ValueTable(max(1024, len(k)), size, symmetric)
        cdef const uint64_t[:] kv = k
        cdef const double[:] sv = s
        cdef const uint32_t[:] cv = c
        cdef Py_ssize_t i2, n = kv.shape[0]
        cdef int64_t d
        cdef int err = 0
        with nogil:
            for i2 in range(n):
                d = vt_slot(&t.t, vt_key(&t.t, kv[i2]))
                if d < 0 or <double>t.t.counts[d] + <double>cv[i2] > 4294967295.0:
                    err = 1
                    break
                if t.t.counts[d] and not t.t.sym:
                    err = 2
                    break
                t.t.sums[d] += sv[i2]
                t.t.counts[d] += cv[i2]
        if err == 1:
            raise MemoryError("value table is out of memory (or a count overflowed)")
        if err == 2:
            raise ValueError(f"entry {i2} repeats key {int(kv[i2]):#x}")
        return t

    def to_base3(self):
        """The keys as base-3 numbers (cell ``r * n + c`` the digit of weight
        ``3**(r*n+c)``: 0 blank, 1 the mover's cube, 2 the opponent's), each
        little-endian in the fewest bytes that hold ``3**(n*n) - 1`` (5 on
        5x5): a ``uint8`` array ``[states, bytes]`` in insertion order."""
        cdef int cells = self.size * self.size, nb = base3_bytes(self.size), c, j
        cdef uint64_t i, k, code, w
        out = np.empty((self.t.size, nb), dtype=np.uint8)
        cdef unsigned char[:, ::1] o = out
        with nogil:
            for i in range(self.t.size):
                k = self.t.keys[i]
                code = 0
                w = 1
                for c in range(cells):
                    if (k >> c) & 1:
                        code += w
                    elif (k >> (25 + c)) & 1:
                        code += 2 * w
                    w *= 3
                for j in range(nb):
                    o[i, j] = <unsigned char>(code >> (8 * j))
        return out

    @staticmethod
    def keys_from_base3(cells, size):
        """Inverse of ``to_base3``: ``(keys, bad)`` with ``keys`` uint64 and
        ``bad`` the index of the first number that is not a board code (-1: none)."""
        if int(size) not in (3, 4, 5):
            raise ValueError(f"size must be 3, 4 or 5, got {size!r}")
        cdef int n = int(size), ncell = n * n, nb = base3_bytes(n), c, j
        arr = np.ascontiguousarray(cells, dtype=np.uint8)
        if arr.ndim != 2 or arr.shape[1] != nb:
            raise ValueError(f"cells must have shape (states, {nb}), got {np.shape(cells)}")
        cdef const unsigned char[:, ::1] a = arr
        keys = np.empty(arr.shape[0], dtype=np.uint64)
        cdef uint64_t[::1] kv = keys
        cdef Py_ssize_t i, bad = -1
        cdef uint64_t code, k, limit = 1, digit
        for c in range(ncell):
            limit *= 3
        with nogil:
            for i in range(a.shape[0]):
                code = 0
                for j in range(nb):
                    code |= (<uint64_t>a[i, j]) << (8 * j)
                if code >= limit:
                    bad = i
                    break
                k = 0
                for c in range(ncell):
                    digit = code % 3
                    code = code // 3
                    if digit == 1:
                        k |= (<uint64_t>1) << c
                    elif digit == 2:
                        k |= (<uint64_t>1) << (25 + c)
                kv[i] = k
        return keys, bad

    def __reduce__(self):
        keys, sums, counts = self.to_arrays()
        return (_value_table_from_arrays, (keys, sums, counts, self.size, self.symmetric))

    def to_json_bytes(self):
        """The JSON form (``{"<board>": [average, count], ...}``, one entry a
        line, insertion order) as bytes, written by C code; floats in Python's
        shortest round-trip repr (what ``json.dumps`` writes)."""
        cdef Py_ssize_t per = self.size * self.size + 64
        buf = bytearray(per * self.t.size + 16)
        cdef char* out = buf
        cdef Py_ssize_t pos = 0
        cdef uint64_t* cache_bits = <uint64_t*>calloc(4096, sizeof(uint64_t))
        cdef unsigned char* cache_len = <unsigned char*>calloc(4096, 1)
        cdef char* cache_txt = <char*>malloc(4096 * 32)
        if cache_bits == NULL or cache_len == NULL or cache_txt == NULL:
            free(cache_bits)
            free(cache_len)
            free(cache_txt)
            raise MemoryError()
        try:
            pos = self._write_json(out, cache_bits, cache_len, cache_txt)
        finally:
            free(cache_bits)
            free(cache_len)
            free(cache_txt)
        del buf[pos:]
        return buf

    cdef Py_ssize_t _write_json(self, char* out, uint64_t* cache_bits, unsigned char* cache_len,
                                char* cache_txt) except -1:
        cdef int cells = self.size * self.size
        cdef uint64_t i, k
        cdef Py_ssize_t pos = 0
        cdef int c, w, h
        cdef double avg
        cdef char* rep
        cdef uint64_t bits
        out[pos] = b'{'
        pos += 1
        for i in range(self.t.size):
            out[pos] = b'\n'
            out[pos + 1] = b'"'
            pos += 2
            k = self.t.keys[i]
            for c in range(cells):
                if (k >> c) & 1:
                    out[pos] = b'X'
                elif (k >> (25 + c)) & 1:
                    out[pos] = b'O'
                else:
                    out[pos] = b' '
                pos += 1
            out[pos] = b'"'
            out[pos + 1] = b':'
            out[pos + 2] = b' '
            out[pos + 3] = b'['
            pos += 4
            avg = self.t.sums[i] / self.t.counts[i]
            if avg == 0.0:
                memcpy(out + pos, b"0.0", 3)
                pos += 3
            elif avg == 1.0:
                memcpy(out + pos, b"1.0", 3)
                pos += 3
            else:
                # shortest repr that round-trips (what Python's json writes);
                # most states were seen once, so their averages are one of a few
                # hundred values reward * gamma**k: a direct-mapped cache of the
                # formatted text skips most of the conversions
                memcpy(&bits, &avg, 8)
                h = <int>((bits * <uint64_t>0x9E3779B97F4A7C15ULL) >> 52)
                if cache_bits[h] != bits or cache_len[h] == 0:
                    rep = PyOS_double_to_string(avg, b'r', 0, Py_DTSF_ADD_DOT_0, NULL)
                    if rep == NULL:
                        raise MemoryError()
                    w = <int>strlen(rep)
                    if w > 31:
                        w = 31      # never: a double's repr is at most 24 chars
                    memcpy(cache_txt + 32 * h, rep, w)
                    PyMem_Free(rep)
                    cache_bits[h] = bits
                    cache_len[h] = <unsigned char>w
                w = cache_len[h]
                memcpy(out + pos, cache_txt + 32 * h, w)
                pos += w
            w = snprintf(out + pos, 24, ", %u]", self.t.counts[i])
            pos += w
            if i + 1 < self.t.size:
                out[pos] = b','
                pos += 1
        out[pos] = b'\n'
        out[pos + 1] = b'}'
        out[pos + 2] = b'\n'
        pos += 3
        return pos

    @staticmethod
    def from_json_bytes(data, capacity=None, symmetric=False):
        """Parse the JSON format (any whitespace; ``null`` never
        allowed) into a new table.  Key length (9, 16 or 25) sets the size.
        ``ValueError`` with the byte offset on anything else."""
        cdef const unsigned char[:] mv = memoryview(data).cast("B")
        cdef Py_ssize_t L = mv.shape[0], pos = 0, start, klen = -1
        cdef const char* p
        cdef char* endp
        cdef double avg, cnt
        cdef uint64_t key, ucnt
        cdef int64_t d
        cdef int c, err = 0
        cdef ValueTable t
        if L == 0:
            raise ValueError("empty JSON")
        p = <const char*>&mv[0]
        # key length from the first key
        start = 0
        while start < L and p[start] != b'"' and p[start] != b'}':
            start += 1
        if start < L and p[start] == b'"':
            klen = 0
            while start + 1 + klen < L and p[start + 1 + klen] != b'"':
                klen += 1
        size = {9: 3, 16: 4, 25: 5, -1: 5}.get(klen)
        if size is None:
            raise ValueError(f"keys must be 9, 16 or 25 characters, the first one has {klen}")
        if capacity is None:
            capacity = max(1024, L // (klen + 20 if klen > 0 else 40))
        t = ValueTable(capacity, size, symmetric)
        with nogil:
            pos = _skip_space(p, pos, L)
            if pos >= L or p[pos] != b'{':
                err = 1
            pos += 1
            while err == 0:
                pos = _skip_space(p, pos, L)
                if pos < L and p[pos] == b'}':
                    pos += 1
                    break
                if pos >= L or p[pos] != b'"' or pos + klen + 1 >= L or p[pos + klen + 1] != b'"':
                    err = 2
                    break
                key = 0
                for c in range(klen):
                    if p[pos + 1 + c] == b'X':
                        key |= (<uint64_t>1) << c
                    elif p[pos + 1 + c] == b'O':
                        key |= (<uint64_t>1) << (25 + c)
                    elif p[pos + 1 + c] != b' ':
                        err = 3
                if err:
                    break
                pos += klen + 2
                if not _expect(p, &pos, L, b':'):
                    err = 4
                    break
                if not _expect(p, &pos, L, b'['):
                    err = 5
                    break
                avg = strtod(p + pos, &endp)
                if endp == p + pos or endp - p > L:
                    err = 6
                    break
                pos = endp - p
                if not _expect(p, &pos, L, b','):
                    err = 7
                    break
                pos = _skip_space(p, pos, L)
                ucnt = 0
                start = pos
                while pos < L and p[pos] >= b'0' and p[pos] <= b'9' and ucnt < <uint64_t>10000000000ULL:
                    ucnt = ucnt * 10 + <uint64_t>(p[pos] - 48)
                    pos += 1
                if pos == start or ucnt < 1 or ucnt > <uint64_t>4294967295ULL or not (avg == avg) \
                        or avg - avg != 0.0:
                    err = 8
                    break
                cnt = <double>ucnt
                if not _expect(p, &pos, L, b']'):
                    err = 9
                    break
                if t.t.sym:
                    # symmetric: merge (a plain file may hold several images)
                    d = vt_slot(&t.t, vt_key(&t.t, key))
                    if d < 0 or <double>t.t.counts[d] + cnt > 4294967295.0:
                        err = 10
                        break
                    t.t.sums[d] += avg * cnt
                    t.t.counts[d] += <uint32_t>cnt
                elif vt_put(&t.t, key, avg * cnt, <uint32_t>cnt) != 0:
                    err = 10
                    break
                pos = _skip_space(p, pos, L)
                if pos < L and p[pos] == b',':
                    pos += 1
                elif pos < L and p[pos] == b'}':
                    pos += 1
                    break
                else:
                    err = 11
                    break
            if err == 0:
                pos = _skip_space(p, pos, L)
                if pos != L:
                    err = 12
        if err:
            what = {1: "expected '{'", 2: f"expected a {klen}-character key in quotes",
                    3: "key characters must be ' ', 'X' or 'O'", 4: "expected ':'",
                    5: "expected '['", 6: "expected a number (average)", 7: "expected ','",
                    8: "expected a count (integer >= 1) or a finite average",
                    9: "expected ']'", 10: "out of memory (or count overflow)", 11: "expected ',' or '}'",
                    12: "trailing data after the object"}[err]
            raise ValueError(f"bad value-table JSON at byte {pos}: {what}")
        return t




def _value_table_from_arrays(keys, sums, counts, size, symmetric):
    """Unpickling helper of ``ValueTable``."""
    return ValueTable.from_arrays(keys, sums, counts, size, symmetric)
