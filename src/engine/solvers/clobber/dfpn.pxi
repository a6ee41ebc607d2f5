# The Clobber solver's depth-first proof-number search, included in ``solve.pyx``
# (it recurses through that module's alpha-beta search and reductions, and they
# through it, so it is compiled into the same module).
#
# Depth-first proof-number search (df-pn) in negamax form: a position's proof
# number pn (how many leaves must still be shown won for the mover) is the
# least disproof number of its children, its disproof number dn the sum of
# its children's proof numbers.  A settled position goes to the outcome table;
# an unsettled one keeps (pn, dn) in ``dtt`` between visits.  A new child
# starts at pn = 1 and dn = its mover's number of moves (each must be
# refuted), so the first child tried is the one the alpha-beta ordering
# would try first.  Positions with at most ``ab_stones`` stones are settled
# by the alpha-beta search, which is cheaper there.
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
