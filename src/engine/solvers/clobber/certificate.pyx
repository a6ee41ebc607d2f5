# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Proof certificates of the Clobber solver: the compiled writer.

The writer walks a proof depth-first and emits the records that
``ttt_engine.clobber_check`` replays (the format is in its docstring).

Rule: the position of every record is the one the checker sees: the raw
position after the moves so far, dead stones stripped, minus what earlier
Z / N records removed; the solver's own reductions and tables only guide
the choice of records, they are never trusted.  A claimed win names one move
whose position is known lost (the table first, fewest replies; else the first
the search refutes, in the search's order); a claimed loss proves every reply
won.  Before moves, the reductions are stated in the order the checker can
verify them (claw pairs, zero components, negative pairs, outcome rules).
Positions already proven (same canonical form: the table's component
multiset key) become R records.

Entry point: ``write_proof(solver, ...)``, called by ``Solver.write_proof``.
"""
from libc.stdint cimport uint64_t, uint8_t
from libc.string cimport memset
from ttt_engine._core.core.bigmem cimport big_alloc, big_free
from ttt_engine._core.core.clock cimport now_monotonic
from ttt_engine._core.core.interrupt cimport interrupt_t, interrupt_init, interrupt_poll, interrupt_finish
from ttt_engine._core.games.clobber.rules cimport (
    clobber_count_moves, clobber_moves_of, CLOBBER_POPCOUNT,
)
from ttt_engine._core.solvers.clobber.positions cimport (
    MAXCOMP, MAXMOVES, _live, _flood, _canon, _child, _mix, _is_claw, _claws, _pos_key,
    _order_key, _connected, _components,
)
from ttt_engine._core.core.sort cimport sort_ints
from ttt_engine._core.solvers.clobber.solve cimport (
    R_UNKNOWN, R_LOSS, R_WIN, SolveCtx, Solver, _probe, _key_fast, _db_outcome, _solve_pos,
    _sum_outcome,
)

cdef enum:
    # record tags (ASCII)
    REC_MOVE = 77       # M
    REC_ALL = 65        # A
    REC_REF = 82        # R
    REC_ZERO = 90       # Z
    REC_NEG = 78        # N
    REC_RULES = 79      # O


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
    sort_ints(order, n)
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
    cdef uint64_t live = _live(own, opp), k0, k1, occ, st, z, rest, na, nb_, ka, kb
    cdef int n, i, j, nc, r
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
    if occ and not _connected(occ):
        n = _components(own, opp, co, cp)
        for i in range(n):
            lw[i] = R_UNKNOWN
            rw[i] = R_UNKNOWN
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
        r = _sum_outcome(n, co, cp, lw, rw)
        if r != R_UNKNOWN:
            if claim != (r == R_WIN):
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
def write_proof(Solver solver not None, uint64_t own, uint64_t opp, bint claim, sink, small=10,
                progress=None, double report_every=1.0, time_limit=None, chunk=1 << 22):
    """``solver.write_proof(...)`` (see ``Solver.write_proof``): emit the
    records proving ``claim`` about (own, opp) with ``solver``'s tables and
    searches; returns ``(records, references, bytes)``."""
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
    solver._begin(None, time_limit, None, report_every)
    p.c = &solver.ctx
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
    solver.ctx.it = &it
    with nogil:
        _prove(&p, own, opp, claim)
        if p.failed == 0 and p.len:
            _flush(&p)
    solver.ctx.it = NULL
    big_free(p.buf, p.cap)
    big_free(p.memo, (p.memo_mask + 1) * sizeof(MemoEntry))
    interrupt_finish(&it)
    if solver.ctx.interrupted:
        raise KeyboardInterrupt
    if p.failed == 1 and solver.ctx.aborted:
        raise TimeoutError("time limit reached while writing the certificate")
    if p.failed == 1:
        raise RuntimeError("the certificate sink refused the records")
    if p.failed == 2:
        raise ValueError(f"the claim ({'win' if claim else 'loss'} for the mover) is wrong")
    if p.failed == 3:
        raise MemoryError("out of memory for the table of proven positions")
    return p.records, p.refs, p.bytes_out
