# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Quixo tournaments, discounted state values and the epsilon-greedy value agent.

This is the Cython half of the seed's stages A, B and C (the Python wiring
and the ``stages`` command are in ``ttt_engine.quixo``):

- ``run_games``: N games between two agents (random, greedy-by-values,
  one-ply heuristic), fixed or alternating sides, entirely in C under
  ``nogil``; counts X/O/agent wins, draws by the move cap and game lengths;
  optionally collects every state's discounted score into a ``ValueTable``.
- ``ValueTable``: a preallocated open-addressing hash table in C (insertion
  ordered dense arrays + a slot index), exported to and loaded from the
  seed's JSON format ``{"<board>": [average score, count], ...}`` by C code.

Point of view of a score: a state's score belongs to the player who MADE THE
MOVE INTO IT (the player not to move in it).  The 25-character key is written
from that player's side: ``'X'`` are that player's cubes, ``'O'`` the
opponent's.  For states reached by X (odd plies, the seed's usual reading)
that is the board as it stands; states reached by O are stored colour-swapped,
so one table serves both sides and positions that differ only by who is to
move never mix.  The initial empty board counts as "reached by O".  With a
game of N states (N - 1 moves, state 0 = empty board), state i scores
``reward * gamma**(N - 1 - i)`` where reward is 1.0 if its player won,
0.0 if it lost and ``draw_score`` (default 0.5) for a draw by the move cap.
"""
from libc.stdint cimport uint64_t, uint32_t, int64_t
from libc.stdlib cimport malloc, calloc, free, realloc, strtod
from libc.string cimport memset, memcpy, strlen
from cpython.mem cimport PyMem_Free

cdef extern from *:
    """
    #if defined(__GNUC__) || defined(__clang__)
    #define qx_prefetch(p) __builtin_prefetch((const void*)(p))
    #else
    #define qx_prefetch(p) ((void)0)
    #endif
    """
    void qx_prefetch(const void* p) nogil

cdef extern from "Python.h":
    char* PyOS_double_to_string(double val, char format_code, int precision, int flags, int* ptype)
    int Py_DTSF_ADD_DOT_0
from libc.stdio cimport snprintf
from ttt_engine._core.rng cimport rng_t, rng_seed, rng_below, rng_uniform
from ttt_engine._core.quixo cimport (
    QuixoState, quixo_reset, quixo_make_index, quixo_random_index, quixo_mover_key,
    quixo_mix64, quixo_evaluate, quixo_has_line, quixo_init_tables, quixo_playout,
    qx_nall, qx_src, qx_code, qx_index, qx_border, QX_MAX_MOVES, QX_DEFAULT_MAX_PLIES,
)
from ttt_engine._core.quixo cimport Board
from ttt_engine._core.interrupt cimport (
    interrupt_t, interrupt_init, interrupt_poll, interrupt_finish,
)
import numpy as np
cimport numpy as cnp

cnp.import_array()
quixo_init_tables()

cdef enum:
    AGENT_RANDOM = 0
    AGENT_GREEDY = 1       # epsilon-greedy on a ValueTable
    AGENT_HEURISTIC = 2    # one ply: win now, else best line-count evaluation
    EMPTY_SLOT = 0xFFFFFFFF

AGENT_KINDS = {"random": AGENT_RANDOM, "greedy": AGENT_GREEDY, "heuristic": AGENT_HEURISTIC}


# ---------------------------------------------------------------------- value table
cdef struct VTab:
    uint32_t* slots        # open addressing: dense index or EMPTY_SLOT
    uint64_t* slot_keys    # copy of the key beside its slot (one cache line per probe)
    uint64_t slot_mask     # capacity - 1 (capacity a power of two)
    uint64_t* keys         # dense, in insertion order
    double* sums
    uint32_t* counts
    uint64_t size
    uint64_t dense_cap
    int sym                # 1: keys are canonical under the 8 board symmetries
    int n                  # board size (for the symmetry tables)


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


cdef inline uint64_t qx_canonical(int n, uint64_t key) noexcept nogil:
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


cdef inline uint64_t vt_key(const VTab* t, uint64_t key) noexcept nogil:
    """The table's key for a mover-view key (canonical when symmetric)."""
    if t.sym:
        return qx_canonical(t.n, key)
    return key


cdef inline int64_t vt_find(const VTab* t, uint64_t key) noexcept nogil:
    cdef uint64_t i = quixo_mix64(key) & t.slot_mask
    cdef uint32_t d
    while True:
        d = t.slots[i]
        if d == EMPTY_SLOT:
            return -1
        if t.slot_keys[i] == key:
            return d
        i = (i + 1) & t.slot_mask


cdef int vt_reserve(VTab* t, uint64_t want) noexcept nogil:
    """Make room for ``want`` entries at load <= 1/2 (rehash if needed).
    Returns 0, or -1 when out of memory (table unchanged)."""
    cdef uint64_t cap = t.slot_mask + 1 if t.slots != NULL else 0
    cdef uint64_t newcap = 1024, i, j, d
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
    memset(ns, 0xFF, newcap * sizeof(uint32_t))
    for d in range(t.size):
        j = quixo_mix64(t.keys[d]) & (newcap - 1)
        while ns[j] != EMPTY_SLOT:
            j = (j + 1) & (newcap - 1)
        ns[j] = <uint32_t>d
        nk[j] = t.keys[d]
    free(t.slots)
    free(t.slot_keys)
    t.slots = ns
    t.slot_keys = nk
    t.slot_mask = newcap - 1
    return 0


cdef inline int64_t vt_slot(VTab* t, uint64_t key) noexcept nogil:
    """Dense index of ``key``, inserting it with sum 0 and count 0 if new;
    -1 if the table could not grow (out of memory)."""
    cdef uint64_t i = quixo_mix64(key) & t.slot_mask
    cdef uint32_t d
    while True:
        d = t.slots[i]
        if d == EMPTY_SLOT:
            break
        if t.slot_keys[i] == key:
            return d
        i = (i + 1) & t.slot_mask
    if (t.size + 1) * 2 > t.slot_mask + 1 or t.size + 1 > t.dense_cap:
        if vt_reserve(t, (t.size + 1) * 2) != 0:
            return -1
        i = quixo_mix64(key) & t.slot_mask
        while t.slots[i] != EMPTY_SLOT:
            i = (i + 1) & t.slot_mask
    d = <uint32_t>t.size
    t.slots[i] = d
    t.slot_keys[i] = key
    t.keys[d] = key
    t.sums[d] = 0.0
    t.counts[d] = 0
    t.size += 1
    return d


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
    """Discounted state values ``key -> (sum of scores, count)`` in C memory.

    Keys are boards seen by the player who just moved (see the module doc).
    ``capacity`` preallocates room for that many states (it still grows by
    doubling if exceeded, outside Python).  ``size`` is the board side of the
    states (fixes the key length in JSON: 9, 16 or 25 characters).
    """
    cdef VTab t
    cdef readonly int size

    def __cinit__(self, capacity=1 << 20, size=5, symmetric=False):
        memset(&self.t, 0, sizeof(VTab))
        cap = int(capacity)
        if cap < 1 or cap > 2_000_000_000:
            raise ValueError(f"capacity must be in [1, 2e9], got {cap}")
        if int(size) not in (3, 4, 5):
            raise ValueError(f"size must be 3, 4 or 5, got {size!r}")
        self.size = int(size)
        self.t.n = self.size
        self.t.sym = 1 if symmetric else 0
        if vt_reserve(&self.t, cap) != 0:
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

    def to_json_bytes(self):
        """The seed's JSON (``{"<board>": [average, count], ...}``, one entry a
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
        """Parse the seed's JSON format (any whitespace; ``null`` never
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
            while pos < L and p[pos] in b' \t\r\n':
                pos += 1
            if pos >= L or p[pos] != b'{':
                err = 1
            pos += 1
            while err == 0:
                while pos < L and p[pos] in b' \t\r\n':
                    pos += 1
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
                while pos < L and p[pos] in b' \t\r\n':
                    pos += 1
                if pos >= L or p[pos] != b':':
                    err = 4
                    break
                pos += 1
                while pos < L and p[pos] in b' \t\r\n':
                    pos += 1
                if pos >= L or p[pos] != b'[':
                    err = 5
                    break
                pos += 1
                avg = strtod(p + pos, &endp)
                if endp == p + pos or endp - p > L:
                    err = 6
                    break
                pos = endp - p
                while pos < L and p[pos] in b' \t\r\n':
                    pos += 1
                if pos >= L or p[pos] != b',':
                    err = 7
                    break
                pos += 1
                while pos < L and p[pos] in b' \t\r\n':
                    pos += 1
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
                while pos < L and p[pos] in b' \t\r\n':
                    pos += 1
                if pos >= L or p[pos] != b']':
                    err = 9
                    break
                pos += 1
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
                while pos < L and p[pos] in b' \t\r\n':
                    pos += 1
                if pos < L and p[pos] == b',':
                    pos += 1
                elif pos < L and p[pos] == b'}':
                    pos += 1
                    break
                else:
                    err = 11
                    break
            if err == 0:
                while pos < L and p[pos] in b' \t\r\n':
                    pos += 1
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


# ---------------------------------------------------------------------- agents
cdef struct AgentSpec:
    int kind
    double epsilon
    double unknown
    bint exact_terminal    # greedy: score terminal children 1/0/draw instead of the table
    VTab* table


cdef class Agent:
    """A Quixo agent the C tournament can run: ``RandomAgent()``,
    ``GreedyValueAgent(values, epsilon=0.1, unknown=0.5)``, ``HeuristicAgent()``.
    ``select_move(board)`` plays it from Python too (one seeded rng each)."""
    cdef AgentSpec spec
    cdef rng_t rng
    cdef readonly str name
    cdef object _ref      # keeps the ValueTable alive

    def __cinit__(self, *args, **kwargs):
        memset(&self.spec, 0, sizeof(AgentSpec))
        rng_seed(&self.rng, 0)

    def reset(self, seed=None):
        """Reseed the generator ``select_move`` uses (agents-protocol verb;
        ``run_games`` uses its own seeded generator instead)."""
        if seed is not None:
            rng_seed(&self.rng, <uint64_t>seed)

    def select_move(self, Board board):
        """Move code this agent plays in ``board`` (the game must be on)."""
        if board.state.status:
            raise ValueError("the game is over: no move to select")
        if self.spec.kind == AGENT_GREEDY and self.spec.table.n != board.state.n:
            raise ValueError(f"{self.name} has values for {self.spec.table.n}x{self.spec.table.n} "
                             f"boards, not {board.state.n}x{board.state.n}")
        return qx_code[board.state.n][agent_choose(&self.spec, &board.state, &self.rng)]

    def __repr__(self):
        return self.name


cdef class RandomAgent(Agent):
    """Uniformly random legal moves."""
    def __init__(self, seed=0):
        self.spec.kind = AGENT_RANDOM
        self.name = "random"
        rng_seed(&self.rng, <uint64_t>seed)


cdef class HeuristicAgent(Agent):
    """One ply: take a win if there is one, never a losing move when avoidable,
    else the move with the best line-count evaluation (random tie break)."""
    def __init__(self, seed=0):
        self.spec.kind = AGENT_HEURISTIC
        self.name = "heuristic"
        rng_seed(&self.rng, <uint64_t>seed)


cdef class GreedyValueAgent(Agent):
    """The seed's epsilon-greedy agent: with probability ``epsilon`` a random
    move, else the move whose resulting state (seen from the mover) has the
    highest average score in ``values``; unseen states count ``unknown``.
    Ties are broken uniformly at random.  A move that ends the game is scored
    by its true result (1 win, 0 loss, ``draw_score`` 0.5 for the cap: the
    seed's definition of a final state's score) unless
    ``exact_terminal=False``, which looks it up in the table like every other
    state (the literal seed; it then hardly beats random, see docs/quixo.md)."""
    def __init__(self, ValueTable values, double epsilon=0.1, double unknown=0.5,
                 bint exact_terminal=True, seed=0):
        if not 0.0 <= epsilon <= 1.0:
            raise ValueError(f"epsilon must be in [0, 1], got {epsilon}")
        self.spec.kind = AGENT_GREEDY
        self.spec.epsilon = epsilon
        self.spec.unknown = unknown
        self.spec.exact_terminal = exact_terminal
        self.spec.table = &values.t
        self._ref = values
        self.name = f"greedy(eps={epsilon:g})"
        rng_seed(&self.rng, <uint64_t>seed)


cdef inline int agent_choose(const AgentSpec* a, const QuixoState* s, rng_t* rng) noexcept nogil:
    """Shape index (into the size tables) the agent plays; game must be on.

    The greedy agent first makes every child and prefetches its table slot,
    then looks the values up: the ~40 independent cache misses overlap."""
    cdef int n = s.n, k, i, cnt = 0, best = -1, nties = 0, p = s.to_move
    cdef uint32_t opp = s.bb[p ^ 1]
    cdef QuixoState c
    cdef double v, bestv = -1e300
    cdef int64_t d
    cdef int ks[QX_MAX_MOVES]
    cdef int st[QX_MAX_MOVES]
    cdef uint64_t keys[QX_MAX_MOVES]
    cdef uint64_t slot
    if a.kind == AGENT_RANDOM or (a.kind == AGENT_GREEDY and a.epsilon > 0.0
                                  and rng_uniform(rng) < a.epsilon):
        return quixo_random_index(s, rng)
    if a.kind == AGENT_GREEDY:
        for k in range(qx_nall[n]):
            if qx_src[n][k] & opp:
                continue
            c = s[0]
            quixo_make_index(&c, k)
            ks[cnt] = k
            st[cnt] = c.status
            keys[cnt] = vt_key(a.table, quixo_mover_key(&c))
            slot = quixo_mix64(keys[cnt]) & a.table.slot_mask
            qx_prefetch(&a.table.slot_keys[slot])
            qx_prefetch(&a.table.slots[slot])
            cnt += 1
    for i in range(cnt if a.kind == AGENT_GREEDY else qx_nall[n]):
        if a.kind == AGENT_GREEDY:
            k = ks[i]
            if a.exact_terminal and st[i]:
                v = 1.0 if st[i] == p + 1 else (0.0 if st[i] != 3 else 0.5)
            else:
                d = vt_find(a.table, keys[i])
                v = a.unknown if d < 0 else a.table.sums[d] / a.table.counts[d]
        else:
            k = i
            if qx_src[n][k] & opp:
                continue
            c = s[0]
            quixo_make_index(&c, k)
            if c.status == p + 1:
                v = 1e9
            elif c.status == 3:
                v = 0.0
            elif c.status:
                v = -1e9
            else:
                v = -quixo_evaluate(&c)
        if v > bestv:
            bestv = v
            best = k
            nties = 1
        elif v == bestv:
            nties += 1
            if rng_below(rng, nties) == 0:
                best = k
    return best


# ---------------------------------------------------------------------- tournament
cdef class _Runner:
    """Owns the rng and the per-game buffers across chunks of one tournament."""
    cdef rng_t rng
    cdef uint64_t* keys
    cdef double* gpow
    cdef int cap

    def __cinit__(self, uint64_t seed, int max_plies, double gamma):
        cdef int i
        rng_seed(&self.rng, seed)
        self.cap = max_plies + 1
        self.keys = <uint64_t*>malloc(self.cap * sizeof(uint64_t))
        self.gpow = <double*>malloc(self.cap * sizeof(double))
        if self.keys == NULL or self.gpow == NULL:
            raise MemoryError("cannot allocate game buffers")
        self.gpow[0] = 1.0
        for i in range(1, self.cap):
            self.gpow[i] = self.gpow[i - 1] * gamma

    def __dealloc__(self):
        free(self.keys)
        free(self.gpow)


cdef int run_chunk(_Runner run, int64_t ngames, int64_t first_game, const AgentSpec* a,
                   const AgentSpec* b, int alternate, int size, int max_plies,
                   VTab* table, double draw_score, int64_t* out, int64_t* lengths,
                   interrupt_t* it) noexcept nogil:
    """Play ``ngames``; out[0..5] += X wins, O wins, draws, A wins, B wins, plies;
    lengths[plies] += 1.  Agent A plays X in even games when alternating
    (game numbers count from ``first_game``), always X otherwise.  With a
    table, every state of every game is scored (see module doc).
    Returns 0, -1 if the table ran out of memory, -2 when ``it`` reports an
    interrupt (between games)."""
    cdef QuixoState s
    cdef int64_t g
    cdef int a_side, nst, i, k, winner, mover
    cdef double reward
    cdef const AgentSpec* who
    cdef bint fast = (a.kind == AGENT_RANDOM and b.kind == AGENT_RANDOM)
    for g in range(ngames):
        if interrupt_poll(it):
            return -2
        a_side = <int>((first_game + g) & 1) if alternate else 0
        quixo_reset(&s, size, max_plies)
        nst = 0
        if table != NULL:
            run.keys[0] = quixo_mover_key(&s)
            nst = 1
        while s.status == 0:
            if fast:
                k = quixo_random_index(&s, &run.rng)
            else:
                who = a if s.to_move == a_side else b
                k = agent_choose(who, &s, &run.rng)
            quixo_make_index(&s, k)
            if table != NULL:
                run.keys[nst] = quixo_mover_key(&s)
                nst += 1
        if s.status == 1:
            out[0] += 1
        elif s.status == 2:
            out[1] += 1
        else:
            out[2] += 1
        if s.status == 1 or s.status == 2:
            if s.status - 1 == a_side:
                out[3] += 1
            else:
                out[4] += 1
        out[5] += s.ply
        lengths[s.ply] += 1
        if table != NULL:
            winner = s.status - 1        # 0 X, 1 O, 2 draw
            for i in range(nst):
                mover = (i + 1) & 1      # state i was reached by player (i - 1) % 2
                if winner == 2:
                    reward = draw_score
                elif winner == mover:
                    reward = 1.0
                else:
                    reward = 0.0
                if vt_add(table, vt_key(table, run.keys[i]), reward * run.gpow[nst - 1 - i]) != 0:
                    return -1
    return 0


def run_games(int64_t n_games, Agent agent_a, Agent agent_b, *, bint alternate=True,
              int size=5, int max_plies=QX_DEFAULT_MAX_PLIES, seed=0,
              ValueTable collect=None, double gamma=0.85, double draw_score=0.5,
              progress=False, int64_t chunk=0):
    """Play ``n_games`` between ``agent_a`` and ``agent_b`` in C.

    ``alternate``: A plays X in even-numbered games and O in odd ones (else
    always X).  ``collect``: a ValueTable receiving every state's discounted
    score.  ``progress``: a tqdm bar (True, or a tqdm-like object) updated per
    chunk.  Same seed => same games.  Returns a dict of counts and a numpy
    array ``lengths`` (games per number of plies).
    """
    if n_games < 0:
        raise ValueError(f"n_games must be >= 0, got {n_games}")
    if size < 3 or size > 5:
        raise ValueError(f"size must be 3, 4 or 5, got {size}")
    if max_plies < 1:
        raise ValueError(f"max_plies must be >= 1, got {max_plies}")
    if collect is not None and collect.size != size:
        raise ValueError(f"the value table is for {collect.size}x{collect.size} boards, games are {size}x{size}")
    for ag in (agent_a, agent_b):
        if ag.spec.kind == AGENT_GREEDY and (<ValueTable>ag._ref).size != size:
            raise ValueError(f"agent {ag.name} has values for another board size")
    cdef _Runner run = _Runner(<uint64_t>seed, max_plies, gamma)
    cdef cnp.ndarray[cnp.int64_t, ndim=1] lengths = np.zeros(max_plies + 1, dtype=np.int64)
    cdef int64_t out[6]
    cdef int64_t done = 0, step
    cdef VTab* tab = &collect.t if collect is not None else NULL
    cdef int rc = 0
    cdef interrupt_t it
    memset(out, 0, sizeof(out))
    if chunk <= 0:
        chunk = 20000 if progress else max(n_games, 1)
    bar = None
    if progress is True:
        from tqdm import tqdm
        bar = tqdm(total=n_games, unit="game", desc=f"{agent_a.name} vs {agent_b.name}")
    elif progress:
        bar = progress
    try:
        while done < n_games:
            step = min(chunk, n_games - done)
            interrupt_init(&it, 1, NULL)
            with nogil:
                rc = run_chunk(run, step, done, &agent_a.spec, &agent_b.spec, alternate, size,
                               max_plies, tab, draw_score, out, <int64_t*>lengths.data, &it)
            interrupt_finish(&it)
            if rc != 0:
                raise MemoryError("value table ran out of memory")
            done += step
            if bar is not None:
                bar.update(step)
    finally:
        if bar is not None and progress is True:
            bar.close()
    return {
        "games": n_games, "x_wins": out[0], "o_wins": out[1], "draws": out[2],
        "a_wins": out[3], "b_wins": out[4], "plies": out[5],
        "mean_length": (<double>out[5]) / n_games if n_games else 0.0,
        "lengths": lengths,
    }


def random_games_per_second(int64_t n_games, int size=5, int max_plies=QX_DEFAULT_MAX_PLIES,
                            seed=0):
    """Play ``n_games`` random-vs-random games with the bare playout loop
    (``quixo_playout``); returns (x_wins, o_wins, draws, plies)."""
    cdef rng_t rng
    cdef QuixoState s
    cdef int64_t g, xw = 0, ow = 0, dr = 0, plies = 0
    cdef int st
    rng_seed(&rng, <uint64_t>seed)
    with nogil:
        for g in range(n_games):
            quixo_reset(&s, size, max_plies)
            st = quixo_playout(&s, &rng)
            if st == 1:
                xw += 1
            elif st == 2:
                ow += 1
            else:
                dr += 1
            plies += s.ply
    return xw, ow, dr, plies
