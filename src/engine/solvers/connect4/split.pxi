# The Connect Four solver's threads sharing one root, included in ``solve.pyx``
# (the split recurses through ``negamax`` and ``negamax`` through it, so it is
# compiled into the same module): within ``SPLIT_PLIES`` of the root a move that
# another thread is searching waits for a second pass (a simplified ABDADA), and
# a thread leaves a node once the table shows another thread has settled it,
# from as deep below it as it is (``unwind_to_settled``, from ``check_limits``).
# A shared table never grows, so the buckets on a thread's path stay put.


cdef inline int settled_by(uint64_t e, int alpha, int beta) noexcept nogil:
    """The bound in the table word ``e`` (0: none) that decides its node
    within (alpha, beta): its lower bound if >= beta, its upper if <= alpha;
    else NO_BOUND."""
    cdef int v
    if e:
        v = word_lower(e)
        if v >= beta:
            return v
        v = word_upper(e)
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


cdef int split_moves(Ctx* c, uint64_t cur, uint64_t mask, int moves, int alpha, int beta,
                     const uint64_t* mv, const int* col, int n, uint64_t h, uint64_t* bucket,
                     uint64_t check, bint flip, uint64_t start) noexcept nogil:
    """negamax's move loop where threads share the node: a move that another
    thread is searching now (its counter in ``busy``) waits for a second pass,
    except the first move, which usually settles the node alone; after each
    move the node's table word may show another thread has settled it, and
    meanwhile ``check_limits`` watches it (the node is on the thread's path)."""
    cdef int s, lvl = c.nsplit
    if lvl >= SPLIT_PLIES:              # not reached: a split node is this near the root
        return split_loop(c, cur, mask, moves, alpha, beta, mv, col, n, h, bucket, check, flip,
                          start, -2)
    c.path_bucket[lvl] = bucket
    c.path_check[lvl] = check
    c.path_alpha[lvl] = alpha
    c.path_beta[lvl] = beta
    c.nsplit = lvl + 1
    s = split_loop(c, cur, mask, moves, alpha, beta, mv, col, n, h, bucket, check, flip, start,
                   lvl)
    c.nsplit = lvl
    return s


cdef int split_loop(Ctx* c, uint64_t cur, uint64_t mask, int moves, int alpha, int beta,
                    const uint64_t* mv, const int* col, int n, uint64_t h, uint64_t* bucket,
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
                return store_cut(c, h, s, 6 - col[i] if flip else col[i], start)
            if s > alpha:
                alpha = s
                if lvl >= 0:
                    c.path_alpha[lvl] = alpha
            v = settled_by(word_in(c.tt, bucket, check), alpha, beta)
            if v != NO_BOUND:
                return v
    return store_upper(c, h, alpha, start)
