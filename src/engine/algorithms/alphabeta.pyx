# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Minimax, negamax and alpha-beta search, written once for every game.

Two searches share one searcher context (``SearchCtx`` in alphabeta.pxd):

- ``nm_search``: plain negamax (values from the side to move), optional
  alpha-beta pruning, no table, no ordering: the node counts are the textbook
  ones (plain minimax visits all 549,946 nodes of the Tic-Tac-Toe tree).  It
  also serves the min/max formulation (MAX nodes maximise, MIN nodes minimise,
  values from the root player's view): a MIN node's value is exactly the
  negation of its negamax value and alpha-beta's bounds swap with it, so both
  formulations visit the same nodes and return the same root value.
- ``ab_search``: negamax alpha-beta (fail-soft) with a transposition table
  (one entry per slot, generation-tagged so a new search needs no clearing),
  move ordering (table move first, then a history heuristic) and, in the
  driver, iterative deepening under a time budget.

Scores: terminal positions score ``WIN_SCORE - ply`` for the side that won
(ply counted from the root), 0 for a draw; horizon nodes score
``game_evaluate``.  A result is *exact* when no horizon node influenced it
(``ctx.horizon`` did not move), i.e. the value is the game-theoretic one.

Every node is one call of the search function, root included; ``nodes``
counts them.
"""
from libc.stdint cimport uint64_t, int16_t, uint8_t
from libc.stdlib cimport calloc, free
from ttt_engine._core.core.bigmem cimport big_alloc, big_free
from libc.string cimport memset, memcpy
from libc.math cimport INFINITY
from libc.float cimport DBL_MAX
from ttt_engine._core.core.clock cimport now_monotonic
from ttt_engine._core.core.interrupt cimport (
    interrupt_t, interrupt_init, interrupt_poll, interrupt_finish,
)

from ttt_engine._core.algorithms.game cimport (
    GameState, GameBoard, MAX_MOVES, undo_t, GAME_ONGOING, GAME_WIN_FIRST, GAME_DRAW,
    game_to_move, game_legal_moves, game_make, game_unmake, game_status, game_hash,
    game_evaluate,
)
from ttt_engine._core.algorithms.game cimport game_init_tables
game_init_tables()   # every game's lookup tables
from ttt_engine._core.algorithms.valuenet cimport (
    CompiledValueNet, vn_refresh_state, vn_update, vn_output,
)
from ttt_engine._core.algorithms.game_features cimport game_feature_diff
import numpy as np
from ttt_engine._util import check_int

cdef double WIN_SCORE = 1e9
cdef double MATE_BOUND = 1e9 - 2.0 * MAX_PLY - 10.0
cdef double SCORE_INF = INFINITY

PY_WIN_SCORE = WIN_SCORE
PY_MATE_BOUND = MATE_BOUND
PY_MAX_PLY = MAX_PLY





cdef inline double terminal_score(int status, int to_move, int ply) noexcept nogil:
    """Score of a finished game from the side to move, ``ply`` plies from the root."""
    if status == GAME_DRAW:
        return 0.0
    cdef int winner = 0 if status == GAME_WIN_FIRST else 1
    if winner == to_move:
        return WIN_SCORE - ply
    return -(WIN_SCORE - ply)


cdef inline double next_up(double x) noexcept nogil:
    """The smallest double above ``x`` (x finite or -inf), inline (libm's
    nextafter is an out-of-line call on every null-window search)."""
    cdef uint64_t bits
    if x == -SCORE_INF:
        return -DBL_MAX
    if x == 0.0:
        x = 0.0          # -0.0 -> +0.0
    memcpy(&bits, &x, sizeof(double))
    if x >= 0.0:
        bits += 1
    else:
        bits -= 1
    memcpy(&x, &bits, sizeof(double))
    return x


cdef inline bint proven(double v) noexcept nogil:
    """A forced win or loss found within the searched depth is the exact
    game value (a shorter win would have been seen; a loss score means every
    escape was refuted before the horizon), even if other branches met it."""
    return v >= MATE_BOUND or v <= -MATE_BOUND


cdef inline double to_tt(double v, int ply) noexcept nogil:
    if v >= MATE_BOUND:
        return v + ply
    if v <= -MATE_BOUND:
        return v - ply
    return v


cdef inline double from_tt(double v, int ply) noexcept nogil:
    if v >= MATE_BOUND:
        return v - ply
    if v <= -MATE_BOUND:
        return v + ply
    return v


cdef inline uint64_t tt_key(GameState* s, SearchCtx* c, int ply) noexcept nogil:
    """Table key: the game's hash, and with ``ply_in_key`` also the distance
    from the root, so that positions only match at the same ply (needed for an
    exact search of games whose outcome depends on the ply count, e.g. a move
    cap that ``game_hash`` leaves out)."""
    if c.ply_in_key:
        return game_hash(s) ^ ((<uint64_t>(ply + 1)) * <uint64_t>0xD6E8FEB86659FD93ULL)
    return game_hash(s)


cdef inline TTEntry* tt_slot(SearchCtx* c, uint64_t key) noexcept nogil:
    # Fibonacci hashing: spreads small or structured keys over the table.
    return &c.tt[(key * <uint64_t>0x9E3779B97F4A7C15ULL) >> c.tt_shift]


cdef inline void pv_set(SearchCtx* c, int ply, int move) noexcept nogil:
    """``move`` then the child's line is the line at ``ply``; at the root,
    ``move`` is the best move."""
    cdef int k
    if ply == 0:
        c.root_best = move
    c.pv[ply][ply] = move
    for k in range(ply + 1, c.pv_len[ply + 1]):
        c.pv[ply][k] = c.pv[ply + 1][k]
    c.pv_len[ply] = c.pv_len[ply + 1] if c.pv_len[ply + 1] > ply + 1 else ply + 1


cdef inline long long move_score(SearchCtx* c, int side, int m, int k0, int k1) noexcept nogil:
    if m == k0:
        return 1LL << 62
    if m == k1:
        return 1LL << 61
    return c.history[side][m]


cdef inline bint time_up(SearchCtx* c) noexcept nogil:
    """True when the search must unwind: out of time, or interrupted."""
    if c.timed and (c.nodes & 1023) == 0 and now_monotonic() >= c.deadline:
        c.stopped = True
    elif c.it != NULL and interrupt_poll(c.it):
        c.stopped = True
    return c.stopped


cdef inline undo_t search_make(GameState* s, SearchCtx* c, int move, int ply) noexcept nogil:
    """``game_make``; with a value network also the child's accumulator (ply
    + 1) from this node's and the move's feature change."""
    cdef GameState before
    cdef undo_t u
    if c.vnet == NULL:
        return game_make(s, move)
    before = s[0]
    u = game_make(s, move)
    game_feature_diff(&before, s, &c.vn_diff)
    vn_update(c.vnet, c.vn_stack + (ply + 1) * c.vn_bytes, c.vn_stack + ply * c.vn_bytes,
              &c.vn_diff)
    return u


cdef inline double horizon_value(GameState* s, SearchCtx* c, int ply) noexcept nogil:
    """A horizon node's value (from the side to move), counted in ``c.horizon``."""
    c.horizon += 1
    if c.vnet != NULL:
        return vn_output(c.vnet, c.vn_stack + ply * c.vn_bytes)
    return game_evaluate(s, c.heuristic)


cdef inline bint node_settled(GameState* s, SearchCtx* c, int depth, int ply,
                              double* v) noexcept nogil:
    """Count the node; true when it needs no children: a finished game or a
    horizon node (``v`` its value from the side to move), or the search must
    unwind (``v`` 0, discarded by every caller)."""
    cdef int status
    c.nodes += 1
    c.pv_len[ply] = ply
    status = game_status(s)
    if status != GAME_ONGOING:
        v[0] = terminal_score(status, game_to_move(s), ply)
        return True
    if depth <= 0 or ply >= MAX_PLY:
        v[0] = horizon_value(s, c, ply)
        return True
    v[0] = 0.0
    return time_up(c)


# ---------------------------------------------------------------- plain negamax
cdef double nm_search(GameState* s, SearchCtx* c, int depth, int ply,
                      double alpha, double beta) noexcept nogil:
    """Negamax (values from the side to move), no table, no ordering."""
    cdef int moves[MAX_MOVES]
    cdef int n, i
    cdef double v, best
    cdef undo_t u
    if node_settled(s, c, depth, ply, &v):
        return v
    n = game_legal_moves(s, moves)
    if n == 0:   # contract breach (no move, game not over): horizon node
        return horizon_value(s, c, ply)
    best = -SCORE_INF
    for i in range(n):
        u = search_make(s, c, moves[i], ply)
        v = -nm_search(s, c, depth - 1, ply + 1, -beta, -alpha)
        game_unmake(s, moves[i], u)
        if c.stopped:
            return 0.0
        if v > best:
            best = v
            pv_set(c, ply, moves[i])
            if c.pruning:
                if v > alpha:
                    alpha = v
                if alpha >= beta:
                    break
    return best


# ---------------------------------------------------------------- alpha-beta + TT
cdef double ab_search(GameState* s, SearchCtx* c, int depth, int ply,
                      double alpha, double beta) noexcept nogil:
    """Fail-soft negamax alpha-beta with transposition table and move ordering."""
    cdef int moves[MAX_MOVES]
    cdef int n, i, j, bi, m, tt_move = -1, best_move = -1, side, k0, k1
    cdef long long hb, hj
    cdef bint tt_first
    cdef double v, best, alpha_orig = alpha
    cdef uint64_t key = 0, h0
    cdef TTEntry* e = NULL
    cdef undo_t u
    if node_settled(s, c, depth, ply, &v):
        return v
    # Nodes just above the horizon skip the table by default (tt_min_depth=2):
    # their probe is mostly a cache miss that costs more than re-searching
    # (Clobber depth 9: -29% time, UTTT depth 10: -12%; Quixo prefers 1).
    cdef bint use_tt = c.use_tt and depth >= c.tt_min_depth
    if use_tt:
        key = tt_key(s, c, ply)
        e = tt_slot(c, key)
        if e.key == key and e.gen == c.gen:
            tt_move = e.move
            if e.depth >= depth and ply > 0:
                v = from_tt(e.value, ply)
                if (e.flag == TT_EXACT or (e.flag == TT_LOWER and v >= beta)
                        or (e.flag == TT_UPPER and v <= alpha)):
                    if e.depth != DEPTH_INF:
                        c.horizon += 1
                    return v
    h0 = c.horizon
    n = game_legal_moves(s, moves)
    if n == 0:   # contract breach (no move, game not over): horizon node
        return horizon_value(s, c, ply)
    side = game_to_move(s)
    tt_first = False
    if c.ordering and tt_move >= 0:
        for i in range(n):
            if moves[i] == tt_move:
                moves[i] = moves[0]
                moves[0] = tt_move
                tt_first = True
                break
    best = -SCORE_INF
    k0 = c.killers[ply][0]
    k1 = c.killers[ply][1]
    for i in range(n):
        if c.ordering and (i > 0 or not tt_first):
            # Lazy selection sort: killer moves of this ply first, then the
            # history score (the table move, if any, stays first).
            bi = i
            hb = move_score(c, side, moves[i], k0, k1)
            for j in range(i + 1, n):
                hj = move_score(c, side, moves[j], k0, k1)
                if hj > hb:
                    hb = hj
                    bi = j
            if bi != i:
                m = moves[bi]
                moves[bi] = moves[i]
                moves[i] = m
        m = moves[i]
        u = search_make(s, c, m, ply)
        if i == 0 or not c.pvs:
            v = -ab_search(s, c, depth - 1, ply + 1, -beta, -alpha)
        else:
            # Principal variation search: prove the move is no better than the
            # best so far with the narrowest window (alpha, next double above),
            # re-search with the full window only when it is.
            v = -ab_search(s, c, depth - 1, ply + 1, -next_up(alpha), -alpha)
            if alpha < v < beta and not c.stopped:
                v = -ab_search(s, c, depth - 1, ply + 1, -beta, -alpha)
        game_unmake(s, m, u)
        if c.stopped:
            return 0.0
        if v > best:
            best = v
            best_move = m
            if ply == 0:
                c.root_best = m
            if v > alpha:
                alpha = v
                pv_set(c, ply, m)
                if alpha >= beta:
                    if c.ordering:
                        c.history[side][m] += depth * depth
                        if m != tt_move and m != c.killers[ply][0]:
                            c.killers[ply][1] = c.killers[ply][0]
                            c.killers[ply][0] = m
                    break
    if use_tt:
        e.key = key
        e.gen = c.gen
        e.move = best_move
        e.value = to_tt(best, ply)
        e.depth = <int16_t>(DEPTH_INF if c.horizon == h0 else (depth if depth < DEPTH_INF else DEPTH_INF - 1))
        if best <= alpha_orig:
            e.flag = TT_UPPER
        elif best >= beta:
            e.flag = TT_LOWER
        else:
            e.flag = TT_EXACT
    return best


# ---------------------------------------------------------------- drivers
cdef inline void ctx_configure(SearchCtx* c, int heuristic, bint pruning, bint ordering,
                               bint use_tt, bint pvs) noexcept nogil:
    """The switches of the next searches."""
    c.heuristic = heuristic
    c.pruning = pruning
    c.ordering = ordering
    c.use_tt = use_tt
    c.pvs = pvs


cdef inline void ctx_restart(SearchCtx* c, bint timed) noexcept nogil:
    """Zero the counters of one search (table, history and killers stay)."""
    c.nodes = 0
    c.horizon = 0
    c.stopped = False
    c.root_best = -1
    c.pv_len[0] = 0
    c.timed = timed


cdef void ctx_start(SearchCtx* c, double time_limit) noexcept nogil:
    ctx_restart(c, time_limit > 0)
    if c.timed:
        c.deadline = now_monotonic() + time_limit
    c.gen = <uint8_t>(c.gen + 1)
    if c.gen == 0:
        # The 8-bit generation wrapped: really clear once every 255 searches.
        memset(c.tt, 0, c.tt_size * sizeof(TTEntry))
        c.gen = 1
    memset(&c.history[0][0], 0, 2 * MAX_MOVES * sizeof(long long))
    memset(&c.killers[0][0], 0xFF, (MAX_PLY + 1) * 2 * sizeof(int))   # -1: none


cdef int pv_extend(GameState* root, SearchCtx* c, int* out, int depth) noexcept nogil:
    """Copy the root PV to ``out`` and extend it from the table (exact or
    lower-bound entries) where a table cutoff cut it short; where no entry helps
    (nodes above the horizon are not stored, see ``tt_min_depth``), a search of
    at most 4 plies picks the move (16 times at most).  Returns its length."""
    cdef GameState work = root[0]
    cdef int moves[MAX_MOVES]
    cdef int k, n, i, m, length = c.pv_len[0], remaining, fills = 0
    cdef uint64_t key
    cdef bint ok, timed = c.timed
    cdef uint64_t nodes = c.nodes, horizon = c.horizon
    cdef int root_best = c.root_best
    cdef TTEntry* e
    for k in range(length):
        out[k] = c.pv[0][k]
        game_make(&work, out[k])
    if not c.use_tt:
        return length
    c.timed = False
    while length < MAX_PLY and game_status(&work) == GAME_ONGOING:
        key = tt_key(&work, c, length)
        e = tt_slot(c, key)
        # EXACT entries give the best move; LOWER ones (null-window fail highs of
        # PVS) a move proven at least as good as needed, which keeps the line going.
        if (e.key == key and e.gen == c.gen and e.flag != TT_UPPER
                and e.move >= 0):
            m = e.move
        else:
            # No usable entry (a node above the horizon, not stored, or one
            # resolved in an earlier iteration): a small search picks the move.
            remaining = depth - length
            if remaining < 1 or fills >= 16:
                break
            fills += 1
            c.root_best = -1
            ab_search(&work, c, remaining if remaining < 4 else 4, 0, -SCORE_INF, SCORE_INF)
            m = c.root_best
            if m < 0:
                break
        n = game_legal_moves(&work, moves)
        ok = False
        for i in range(n):
            if moves[i] == m:
                ok = True
                break
        if not ok:
            break
        out[length] = m
        length += 1
        game_make(&work, m)
    # PV bookkeeping is not part of the search's statistics
    c.nodes = nodes
    c.horizon = horizon
    c.root_best = root_best
    c.timed = timed
    c.stopped = False
    return length


cdef double run_search(GameState* root, SearchCtx* c, int kind, int depth) noexcept nogil:
    """One fixed-depth search on a private copy of the root (kind 0 minimax,
    1 negamax, 2 alpha-beta with table)."""
    cdef GameState work = root[0]
    if kind <= 1:   # minimax and negamax: one search (see the module's docstring)
        return nm_search(&work, c, depth, 0, -SCORE_INF, SCORE_INF)
    return ab_search(&work, c, depth, 0, -SCORE_INF, SCORE_INF)


cdef class ABSearcher:
    """Owns the transposition table and search context.  Not locked: its
    owner (``search.ABSearcher``) lets one search at a time at it."""

    def __cinit__(self, tt_size=1 << 18, tt_min_depth=2, ply_in_key=False):
        cdef uint64_t size = 1
        cdef int bits = 0
        tt_size = check_int("tt_size", tt_size, min=1, max=1 << 30)
        while size < <uint64_t>tt_size:
            size <<= 1
            bits += 1
        self.ctx = <SearchCtx*>calloc(1, sizeof(SearchCtx))
        if self.ctx == NULL:
            raise MemoryError("cannot allocate the search context")
        # bits == 0 (one slot): a shift by 64 is undefined in C, use 63 and a 2-slot view.
        if bits == 0:
            size = 2
        self.ctx.tt = <TTEntry*>big_alloc(size * sizeof(TTEntry))
        if self.ctx.tt == NULL:
            free(self.ctx)
            self.ctx = NULL
            raise MemoryError(f"cannot allocate a transposition table of {size} entries")
        self.ctx.tt_size = size
        self.ctx.tt_shift = 64 - bits if bits > 0 else 63
        self.tt_size = self.ctx.tt_size
        self.tt_min_depth = tt_min_depth
        self.ctx.ply_in_key = bool(ply_in_key)

    @property
    def ply_in_key(self):
        """True if table entries only match at the same distance from the root."""
        return bool(self.ctx.ply_in_key)

    @property
    def tt_min_depth(self):
        """Smallest remaining depth at which a node uses the table (default 2)."""
        return self.ctx.tt_min_depth

    @tt_min_depth.setter
    def tt_min_depth(self, value):
        value = check_int("tt_min_depth", value, min=1, max=DEPTH_INF)
        self.ctx.tt_min_depth = value

    def __dealloc__(self):
        if self.ctx != NULL:
            big_free(self.ctx.tt, self.ctx.tt_size * sizeof(TTEntry))
            free(self.ctx)
            self.ctx = NULL


def _result(ABSearcher S, GameBoard board, double value, int depth, bint exact, double elapsed,
            bint use_tt):
    cdef SearchCtx* c = S.ctx
    cdef int out[MAX_PLY + 1]
    cdef int length
    c.use_tt = use_tt
    with nogil:
        length = pv_extend(&board.state, c, out, depth)
    pv = [out[k] for k in range(length)]
    best = c.root_best if c.root_best >= 0 else None
    return (value, best, pv, c.nodes, elapsed, depth, exact)


def search(ABSearcher S, GameBoard board, int kind, int depth, int heuristic, bint pruning,
           bint ordering, bint use_tt, double time_limit, bint iterative, bint pvs=True,
           int[::1] stop=None, CompiledValueNet vnet=None):
    """Run a search on a copy of ``board``; returns
    ``(value, best_move, pv, nodes, seconds, depth_completed, exact)``.

    kind: 0 minimax (MAX/MIN), 1 negamax, 2 alpha-beta with table/ordering.
    depth: plies (``MAX_PLY`` = to the end).  ``time_limit`` > 0 enables the
    clock; with ``iterative`` the depth grows 1, 2, ... until the result is
    exact, ``depth`` is reached or time runs out (the last completed
    iteration is returned; depth 1 always completes).  ``stop``: a shared
    flag (int32[1]) that ends the search as a signal does, for a search run
    in a thread that does not handle signals.  ``vnet``: a value network (its
    feature set checked by the caller) as the horizon evaluation instead of
    ``heuristic``.
    """
    cdef SearchCtx* c = S.ctx
    cdef double t0, value = 0.0
    cdef double budget = time_limit
    cdef int done_depth = 0
    cdef uint64_t total_nodes = 0
    cdef int exact = 0
    cdef interrupt_t it
    cdef unsigned char[::1] accs
    if depth > MAX_PLY:
        depth = MAX_PLY
    t0 = now_monotonic()
    interrupt_init(&it, 256, <volatile int*>&stop[0] if stop is not None else NULL)
    ctx_configure(c, heuristic, pruning, ordering, use_tt, pvs and kind == 2 and pruning)
    c.it = &it
    if vnet is not None:
        accs = np.zeros((MAX_PLY + 2) * vnet.net.acc_bytes, dtype=np.uint8)
        c.vnet = &vnet.net
        c.vn_stack = <char*>&accs[0]
        c.vn_bytes = vnet.net.acc_bytes
        with nogil:
            vn_refresh_state(c.vnet, c.vn_stack, &board.state)
    with nogil:
        value = _search_loop(c, &board.state, kind, depth, budget, iterative, t0, &done_depth,
                             &exact, &total_nodes)
    c.vnet = NULL
    c.it = NULL
    interrupt_finish(&it)
    elapsed = now_monotonic() - t0
    if c.stopped:
        # fixed-depth search ran out of time: no valid result
        return None
    c.nodes = total_nodes
    return _result(S, board, value, done_depth, exact, elapsed, use_tt)


cdef double _search_loop(SearchCtx* c, GameState* root, int kind, int depth, double budget,
                         bint iterative, double t0, int* depth_out, int* exact_out,
                         uint64_t* nodes_out) noexcept nogil:
    """The fixed-depth search or the deepening loop of ``search``: its value."""
    cdef double value = 0.0, v
    cdef int d, done_depth = 0, best = -1, pvlen = 0, k
    cdef int pv_save[MAX_PLY + 1]
    cdef uint64_t total_nodes = 0
    cdef bint exact = False
    if not iterative:
        ctx_start(c, budget)
        value = run_search(root, c, kind, depth)
        done_depth = depth
        exact = (c.horizon == 0 or proven(value)) and not c.stopped
        total_nodes = c.nodes
    else:
        ctx_start(c, 0.0)
        c.deadline = t0 + budget
        d = 1
        while True:
            ctx_restart(c, d > 1 and budget > 0)
            v = run_search(root, c, kind, d)
            total_nodes += c.nodes
            if c.stopped:
                break
            value = v
            done_depth = d
            best = c.root_best
            pvlen = c.pv_len[0]
            for k in range(pvlen):
                pv_save[k] = c.pv[0][k]
            exact = c.horizon == 0 or proven(v)
            if exact or d >= depth:
                break
            d += 1
        # restore the last completed iteration's root results
        c.root_best = best
        c.pv_len[0] = pvlen
        for k in range(pvlen):
            c.pv[0][k] = pv_save[k]
        c.nodes = total_nodes
        c.stopped = False
    depth_out[0], exact_out[0], nodes_out[0] = done_depth, exact, total_nodes
    return value


def root_values(ABSearcher S, GameBoard board, int depth, int heuristic):
    """Value of every legal move (from the side to move at ``board``), each
    searched with a full window by alpha-beta with the table (shared across
    moves).  Returns ``(list of (move, value), nodes, exact)``."""
    cdef SearchCtx* c = S.ctx
    cdef int moves[MAX_MOVES]
    cdef double vals[MAX_MOVES]
    cdef int n, i
    cdef undo_t u
    cdef bint exact
    cdef interrupt_t it
    if depth > MAX_PLY:
        depth = MAX_PLY
    interrupt_init(&it, 256, NULL)
    ctx_configure(c, heuristic, True, True, True, True)
    c.it = &it
    with nogil:
        ctx_start(c, 0.0)
        n = _root_values(&board.state, c, depth, moves, vals, &exact)
    c.it = NULL
    interrupt_finish(&it)
    return [(moves[i], vals[i]) for i in range(n)], c.nodes, exact


cdef int _root_values(GameState* root, SearchCtx* c, int depth, int* moves,
                      double* vals, bint* exact) noexcept nogil:
    cdef GameState work = root[0]
    cdef int n = game_legal_moves(&work, moves)
    cdef int i
    cdef undo_t u
    cdef uint64_t h0
    exact[0] = True
    for i in range(n):
        u = game_make(&work, moves[i])
        h0 = c.horizon
        # ply 1 so that win distances count from the root position
        vals[i] = -ab_search(&work, c, depth - 1, 1, -SCORE_INF, SCORE_INF)
        if c.stopped:
            return 0
        if c.horizon != h0 and not proven(vals[i]):
            exact[0] = False
        game_unmake(&work, moves[i], u)
    return n
