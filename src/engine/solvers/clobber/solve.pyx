# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Exact win/loss solver for Clobber, with the combinatorial game theory of sums.

Four files: ``positions.pxd`` (geometry, cheap reductions, keys),
``solve.pxd`` (the context and its tables), ``dfpn.pxi`` (the proof-number
search, included here) and this one: the game-theory reductions that need
the database, the alpha-beta search and the Python ``Solver``; the
certificate writer is ``certificate.pyx``.

Rule: every reduction keeps the outcome (who wins with the mover to play),
and a result is stored only under the key of the position it was found for.
Before a position is searched it is reduced (see ``positions.pxd`` for dead
stones, claw pairs and keys); then

1. zeros: a component with at most ``db_stones`` stones whose value is 0
   (the mover loses it moving first and loses it moving second) is removed,
   since G + 0 = G.  The outcomes of small components (mover first, opponent
   first) come from a database the solver fills itself, by solving the
   component alone, and keeps in its own table;
2. negatives: a component and the colour-swapped copy of it (same shape under
   the 8 symmetries) sum to G + (-G) = 0 and are removed together;
3. outcome rules: when every remaining component is in the database, with
   the mover as Left: if every component is <= 0 (Left moving first loses each)
   the sum is <= 0 and the mover loses; if every component is >= 0 (Right
   moving first loses each) and one is |> 0 (Left moving first wins it), the
   sum is |> 0 and the mover wins.

Search: negamax over win/loss, stop at the first winning move; a move leaving
the opponent stuck wins at once; every child is reduced and its table slot
prefetched before any is probed (enhanced transposition cutoff); children
are tried by the opponent's number of replies, fewest first, and among
equals the one leaving more components first.  The table has
two entries per bucket: one kept for the result that cost the most nodes,
one always replaced.  Depth-first proof-number search (``dfpn``) is the
other search, above ``ab_stones`` stones.

Each technique is a field of the solver's context (``SolveCtx``), switchable
per call for measurements; nothing is module-global.
"""
from libc.stdint cimport uint64_t, uint32_t, uint8_t
from libc.string cimport memset
from cpython.pythread cimport PyThread_get_thread_ident
from ttt_engine._core.core.bigmem cimport big_alloc, big_free
from ttt_engine._core.core.clock cimport now_monotonic
from ttt_engine._core.core.interrupt cimport interrupt_t, interrupt_init, interrupt_poll, interrupt_finish
from ttt_engine._core.games.clobber.rules cimport (
    ClobberState, clobber_count_moves, clobber_moves_of, CLOBBER_POPCOUNT,
)
from ttt_engine._core.games.clobber.board cimport Board
from ttt_engine._core.core.sort cimport sort_ints
from ttt_engine._core.solvers.clobber.positions cimport (
    MAXCOMP, MAXMOVES, CS_PREFETCH, _canon, _child, _is_claw, _order_key, _connected,
    _components,
)


# ---------------------------------------------------------------------- database
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
    cdef uint64_t na, nb_
    cdef bint changed = False
    if occ == 0:
        return R_LOSS
    if not (c.decompose or c.database):
        return R_UNKNOWN
    if _connected(occ):
        return R_UNKNOWN         # one component: nothing to reduce
    n = _components(own, opp, co, cp)
    for i in range(n):
        lw[i] = R_UNKNOWN
        rw[i] = R_UNKNOWN
        ka[i] = 0
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
        return _sum_outcome(n, co, cp, lw, rw)
    return R_UNKNOWN


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
    sort_ints(order, n)
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
include "dfpn.pxi"


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

    One thread at a time: a second thread calling a method that reads or
    writes the tables while a call runs gets ``RuntimeError`` at once (the
    ``progress`` callback of a call may use the solver).
    """
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
        self.depth = 0
        self._configure()

    def __dealloc__(self):
        if self.ctx.tt != NULL:
            big_free(self.ctx.tt, ((<uint64_t>1) << self.tt_bits) * sizeof(Entry))
        if self.ctx.db != NULL:
            big_free(self.ctx.db, ((<uint64_t>1) << self.db_bits) * sizeof(Entry))
        if self.ctx.dtt != NULL:
            big_free(self.ctx.dtt, ((<uint64_t>1) << self.pn_bits) * sizeof(DEntry))

    cdef int _enter(self) except -1:
        # called with the GIL held, so the test and the set are one step; the
        # thread under way may call again (a progress callback saving the table)
        cdef unsigned long me = PyThread_get_thread_ident()
        if self.depth and self.owner != me:
            raise RuntimeError("this Solver is already solving in another thread: "
                               "use one Solver per thread")
        self.owner = me
        self.depth += 1
        return 0

    def _exclusive(self, fn, *args, **kw):
        self._enter()
        try:
            return fn(*args, **kw)
        finally:
            self.depth -= 1

    def clear(self):
        """Forget every stored result (table, database, proof numbers)."""
        self._exclusive(self._clear)

    def _clear(self):
        memset(self.ctx.tt, 0, ((<uint64_t>1) << self.tt_bits) * sizeof(Entry))
        memset(self.ctx.db, 0, ((<uint64_t>1) << self.db_bits) * sizeof(Entry))
        if self.ctx.dtt != NULL:
            memset(self.ctx.dtt, 0, ((<uint64_t>1) << self.pn_bits) * sizeof(DEntry))

    def configure(self, etc=True, ordering=True, cancel=True, decompose=True, database=True,
                  outcome=True, dfpn=False, db_stones=10, ab_stones=16):
        """Switch techniques on or off for the following calls.  Results stored
        under one setting stay valid under any other (every key denotes a
        position, or a sum of components, whose outcome it stores)."""
        self._exclusive(self._configure, etc, ordering, cancel, decompose, database, outcome,
                        dfpn, db_stones, ab_stones)

    def _configure(self, etc=True, ordering=True, cancel=True, decompose=True, database=True,
                   outcome=True, dfpn=False, db_stones=10, ab_stones=16):
        from ttt_engine._util import check_bool, check_int
        self.ctx.db_stones = check_int("db_stones", db_stones, min=0, max=64)
        ab_stones = check_int("ab_stones", ab_stones, min=0, max=64)
        self.ctx.etc = check_bool("etc", etc)
        self.ctx.ordering = check_bool("ordering", ordering)
        self.ctx.cancel = check_bool("cancel", cancel)
        self.ctx.decompose = check_bool("decompose", decompose)
        self.ctx.database = check_bool("database", database)
        self.ctx.outcome = check_bool("outcome", outcome)
        dfpn = check_bool("dfpn", dfpn)
        if dfpn and self.ctx.dtt == NULL:     # the proof-number table is made on first use
            self.ctx.dtt = <DEntry*>big_alloc(((<uint64_t>1) << self.pn_bits) * sizeof(DEntry))
            if self.ctx.dtt == NULL:
                raise MemoryError(f"cannot allocate a 2**{self.pn_bits}-entry proof-number table")
        self.ctx.dfpn = dfpn
        self.ctx.ab_stones = ab_stones

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
        self._exclusive(self._reset_counters)

    def _reset_counters(self):
        self.ctx.nodes = 0
        self.ctx.tt_hits = 0
        self.ctx.db_solves = 0

    def outcome_of(self, uint64_t own, uint64_t opp, max_nodes=None, time_limit=None,
                   progress=None, double report_every=1.0):
        """True / False: the mover wins / loses the position (own, opp) (masks,
        bit r * 8 + c, the mover's stones first); None if a limit stopped it.
        ``KeyboardInterrupt`` propagates (the table stays consistent)."""
        return self._exclusive(self._outcome_of, own, opp, max_nodes, time_limit, progress,
                               report_every)

    def _outcome_of(self, uint64_t own, uint64_t opp, max_nodes=None, time_limit=None,
                    progress=None, double report_every=1.0):
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
        return self._exclusive(self._reduce, own, opp)

    def _reduce(self, uint64_t own, uint64_t opp):
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
        return self._exclusive(self._stored, own, opp)

    def _stored(self, uint64_t own, uint64_t opp):
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
        """Emit certificate records (``ttt_engine.clobber_check_reference`` format) proving
        ``claim`` (True: the mover wins) about (own, opp), in chunks of about
        ``chunk`` bytes passed to ``sink(data)``, which returns True to go on.
        Components of up to ``small`` stones are reduced (zeros, outcome
        rules).  Positions the table has lost are solved again.  Returns
        ``(records, references, bytes)``; raises ``ValueError`` if ``claim``
        is wrong, ``KeyboardInterrupt`` after Ctrl-C, ``TimeoutError`` when
        ``time_limit`` (seconds) runs out, ``RuntimeError`` if ``sink`` refused."""
        from ttt_engine._core.solvers.clobber.certificate import write_proof
        return self._exclusive(write_proof, self, own, opp, claim, sink, small, progress, report_every,
                           time_limit, chunk)

    def order_moves(self, uint64_t own, uint64_t opp):
        """Legal moves sorted as the search tries them: the opponent's replies
        (after the cheap reductions), fewest first; among equals, the move
        leaving more components first."""
        return self._exclusive(self._order_moves, own, opp)

    def _order_moves(self, uint64_t own, uint64_t opp):
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
        return self._exclusive(self._export_entries, min_work)

    def _export_entries(self, min_work):
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
        self._exclusive(self._import_entries, rows)

    def _import_entries(self, rows):
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
    def solve(self, board, max_nodes=None, time_limit=None, progress=None,
              report_every=1.0, **techniques):
        """Solve ``board`` for the side to move: this module's raw ``SolveResult``
        tuple ``(win, winner, best_move, nodes, tt_hits, seconds)`` (``clobber.solve``
        gives the common one).

        ``techniques``: any of ``TECHNIQUES`` (and ``db_stones``) to switch for
        this call (the solver's settings otherwise).  ``progress``: called
        about every ``report_every`` seconds as ``progress(nodes, depth, max_depth)``.
        """
        return self._exclusive(self._solve_with, board, max_nodes, time_limit, progress,
                               report_every, techniques)

    def _solve_with(self, board, max_nodes, time_limit, progress, report_every, techniques):
        if not isinstance(board, Board):
            from ttt_engine._util import check_board
            check_board(board, Board, "clobber.Solver")
        saved = self.settings
        if techniques:
            bad = set(techniques) - set(TECHNIQUES) - set(PARAMETERS)
            if bad:
                raise TypeError(f"unknown technique(s) {sorted(bad)}: use {', '.join(TECHNIQUES)}, "
                                f"{', '.join(PARAMETERS)}")
            cfg = dict(saved)
            cfg.update(techniques)
            self._configure(**cfg)
        try:
            return self._solve(board, max_nodes, time_limit, progress, report_every)
        finally:
            self._configure(**saved)

    def _solve(self, Board board, max_nodes, time_limit, progress, report_every):
        import time
        cdef ClobberState s = board.state
        own = s.bb[s.to_move]
        opp = s.bb[s.to_move ^ 1]
        self._reset_counters()
        t0 = time.perf_counter()
        c0 = time.process_time()
        best = None
        win = None
        aborted = False
        from ttt_engine._util import check_real
        tl = check_real("time_limit", time_limit, low=0, low_open=True, allow_none=True)
        t_end = now_monotonic() + tl if tl else None
        for m in self._order_moves(own, opp):
            a, b = self.child(own, opp, m)
            left = None
            if t_end is not None:
                left = t_end - now_monotonic()
                if left <= 0:
                    aborted = True
                    break
            r = self._outcome_of(a, b, max_nodes=max_nodes, time_limit=left,
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
# named by this module, so that a result pickles (a compiled module's frame does not say)
SolveResult = namedtuple("SolveResult", "win winner best_move nodes tt_hits seconds",
                         module=__name__)
SolveResult.__doc__ = """Result of ``solve``: ``win`` is True if the side to move wins (None when
a limit stopped the search), ``winner`` ``"B"``/``"W"``, ``best_move`` a winning
move (None for a loss), ``nodes`` positions searched, ``tt_hits``, ``seconds`` (wall)."""
