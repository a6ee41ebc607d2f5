# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Exact Connect Four: the score of a position by null-window negamax.

Position: ``cur`` (the side to move's discs) and ``mask`` (every disc), the
bit layout of ``games/connect4/rules.pxd``; a move is the cell bit it fills;
after it the new side to move's discs are ``cur ^ mask``.

Scores (the standard test-set convention): 0 a draw; a win in which the side
to move wins with its k-th disc scores 22 - k; a loss the negative of the
winner's score.

The search:

* null-window negamax, the root's window bisected towards 0 (``[-1, 1]``
  only for a weak solve: win, draw or loss);
* moves that let the opponent win at once are never searched: a single
  forced block is played at once, two open threats of the opponent are a
  loss one move later, and no disc goes under an opponent's winning cell;
  the score is clamped by the earliest possible win and loss;
* moves ordered by the table's move, then by the number of winning cells
  they leave, centre columns first among equals (a history of cutoffs as
  the tie-break instead measured twice the nodes);
* enhanced transposition cutoffs within the first 20 discs: a child whose
  table bound already decides the position saves its search;
* the transposition table (``table.pxd``: 4-word buckets, bounds, the
  move that cut off, generations instead of clearing, the part in use
  growing as it fills); mirror positions share an entry and a symmetric
  position searches only columns 0..3;
* threads share the table and split the moves near the root (a simplified
  ABDADA): within ``SPLIT_PLIES`` of the root a move that another thread is
  searching waits for a second pass, so the threads search different
  subtrees instead of repeating one, and a thread leaves a node once the
  table shows another thread has settled it -- from as deep below it as it
  is (every 1024 nodes it looks at the split nodes on its path).

Everything in the search is ``nogil`` and allocates nothing.
"""
from libc.stdint cimport uint64_t, uint32_t
from libc.string cimport memset
from libc.math cimport INFINITY
from ttt_engine._core.core.clock cimport now_monotonic
from ttt_engine._core.core.interrupt cimport (
    interrupt_t, interrupt_init, interrupt_poll, interrupt_finish, interrupt_discard)
from ttt_engine._core.core.bits cimport bits_popcount64 as popcount
from ttt_engine._core.games.connect4.rules cimport (
    C4_BOTTOM, C4_CELLS, C4_COLUMN0, connect4_winning_cells)
from ttt_engine._core.games.connect4.board cimport Board
from ttt_engine._core.solvers.connect4.table cimport (
    Table, CELLS, BUSY_BITS, KEY_BITS, START_BITS, GEN_LAST, prefetch, log2_floor, busy_load, busy_add,
    word_lower, word_upper, word_move, mirror_key, key_mix, bucket_at, bucket_of, word_in,
    tt_find, tt_put, table_open, table_close, table_reset, table_grow_to, table_focus_bits,
    grow_threshold)

cdef enum:
    ABORTED = -1000
    NO_BOUND = -1000             # no known lower bound on a score
    ETC_MOVES = 20               # enhanced transposition cutoffs below this many discs
    SPLIT_PLIES = 12             # threads split the moves of nodes this near the root

# columns, centre first: they take part in the most lines
cdef int ORDER[7]
#: the columns in the order the search tries them, and picks among equals
COLUMN_ORDER = (3, 2, 4, 1, 5, 0, 6)
ORDER[:] = COLUMN_ORDER

#: Table sizes accepted (MB): 1 MB up to 16 GB.
MIN_TABLE_MB = 1
MAX_TABLE_MB = 16384
#: Threads accepted.
MAX_THREADS = 8
#: Solves a table serves (one generation each) between two zeroings of its memory.
GENERATIONS = GEN_LAST


cdef struct Ctx:
    Table* tt
    uint64_t nodes
    uint64_t max_nodes
    uint64_t next_check      # node count of the next limit check
    double deadline          # monotonic time, INFINITY for none
    interrupt_t* it
    bint aborted
    int helper               # 0 the main thread; k > 0 the k-th helper
    bint shared              # other threads search the same root
    int root_moves
    # the split nodes on this thread's path from the root (outermost first), so
    # that it can leave them all once another thread has settled one (a shared
    # table never grows: the buckets stay where they are)
    int nsplit
    int unwind_level         # the split node an abort unwinds to; -1: a limit's abort
    uint64_t* path_bucket[SPLIT_PLIES]
    uint64_t path_check[SPLIT_PLIES]
    int path_alpha[SPLIT_PLIES]
    int path_beta[SPLIT_PLIES]
    # progress (the main thread's search only): ``owner`` the ``_Search`` that
    # reports (borrowed; NULL: no reports), at most every ``report_every``
    # seconds from ``check_limits`` and after each of the root's null-window
    # searches; the root's score is known to lie in [low, high], and the
    # search under way tests whether it is above ``probe``
    void* owner
    double next_report
    double report_every
    int low
    int high
    int probe


# ------------------------------------------------------------------ the search
include "split.pxi"


cdef bint report_now(Ctx* c) noexcept with gil:
    """Hand the search's counts to its ``_Search``'s progress callable; False
    when the callable raised (kept for the Python boundary: the search stops)."""
    c.next_report = c.it.last_read + c.report_every
    return (<object>c.owner)._report(c.nodes, c.low, c.high, c.probe)


cdef bint check_limits(Ctx* c) noexcept nogil:
    """Every 1024 nodes, at the node limit, when ``interrupt_poll`` reports
    Ctrl-C or the stop flag, and once its clock read passes the deadline: the
    limits, Ctrl-C and the stop flag, the progress report when one is due, and with
    other threads whether one of them has settled a split node on this
    thread's path (then it unwinds to that node)."""
    c.next_check = c.nodes + 1024
    if c.next_check > c.max_nodes:
        c.next_check = c.max_nodes
    if c.nodes >= c.max_nodes or interrupt_poll(c.it) or (
            now_monotonic() >= c.deadline):
        c.aborted = True
        c.unwind_level = -1
    elif c.owner != NULL and c.it.last_read >= c.next_report and not report_now(c):
        c.aborted = True
        c.unwind_level = -1
    elif c.shared and not c.aborted:
        unwind_to_settled(c)
    return c.aborted


cdef inline uint64_t column_bits(int col) noexcept nogil:
    return C4_COLUMN0 << (7 * col)


cdef int negamax(Ctx* c, uint64_t cur, uint64_t mask, int moves, int alpha, int beta) noexcept nogil:
    """The score within (alpha, beta) of a position whose side to move cannot
    win at once: a value <= alpha is an upper bound, >= beta a lower bound.
    Returns 0 with ``c.aborted`` set when a limit stops it."""
    cdef uint64_t possible, opp_win, forced, nonlosing, key, mkey, ck, h, check, e, m
    cdef uint64_t* bucket
    cdef uint64_t mv[7]
    cdef int sc[7]
    cdef int col[7]
    cdef int n = 0, i, j, s, lo, hi, ttmove = -1, cm
    cdef bint flip
    cdef uint64_t start = c.nodes

    c.nodes += 1
    # Ctrl-C is polled at every node (a decrement on the fast path), and the
    # deadline against the poll's last clock read (about a millisecond old):
    # while the table is cold a node can cost page faults, and 1024 of them
    # whole seconds
    if (c.nodes >= c.next_check or interrupt_poll(c.it)
            or c.it.last_read >= c.deadline) and check_limits(c):
        return 0
    possible = (mask + C4_BOTTOM) & C4_CELLS
    opp_win = connect4_winning_cells(cur ^ mask, mask)
    forced = possible & opp_win
    if forced:
        if forced & (forced - 1):
            return -((CELLS - moves) // 2)       # two threats: the opponent wins next
        possible = forced
    nonlosing = possible & ~(opp_win >> 1)
    if nonlosing == 0:
        return -((CELLS - moves) // 2)
    if moves >= CELLS - 2:
        return 0
    lo = -((CELLS - 2 - moves) // 2)              # the opponent cannot win next move
    if alpha < lo:
        alpha = lo
        if alpha >= beta:
            return alpha
    hi = (CELLS - 1 - moves) // 2                 # nor can the side to move now
    if beta > hi:
        beta = hi
        if alpha >= beta:
            return beta

    key = cur + mask
    mkey = mirror_key(key)
    flip = mkey < key
    ck = mkey if flip else key
    h = key_mix(ck)
    bucket = bucket_at(c.tt, h)
    check = h & c.tt.check_mask
    e = word_in(c.tt, bucket, check)
    if e:
        s = word_lower(e)
        if s > alpha:
            alpha = s
            if alpha >= beta:
                return alpha
        s = word_upper(e)
        if s < beta:
            beta = s
            if alpha >= beta:
                return beta
        ttmove = word_move(e)
        if flip and ttmove >= 0:
            ttmove = 6 - ttmove
    if mkey == key:
        nonlosing &= (<uint64_t>1 << 28) - 1     # symmetric: columns 0..3 suffice

    for i in range(7):
        cm = ORDER[i]
        m = nonlosing & column_bits(cm)
        if m:
            # the child's bucket is fetched while the others are scored
            prefetch(bucket_of(c.tt, (cur ^ mask) + (mask | m)))
            s = popcount(connect4_winning_cells(cur | m, mask | m))
            if cm == ttmove:
                s = 100
            j = n
            while j > 0 and sc[j - 1] < s:
                sc[j] = sc[j - 1]
                mv[j] = mv[j - 1]
                col[j] = col[j - 1]
                j -= 1
            sc[j] = s
            mv[j] = m
            col[j] = cm
            n += 1
    if moves < ETC_MOVES:
        # enhanced transposition cutoff: a child whose upper bound already lifts
        # this position to beta cuts off (worth its probes only far from the leaves)
        for i in range(n):
            e = tt_find(c.tt, (cur ^ mask) + (mask | mv[i]))
            if e:
                s = -word_upper(e)
                if s >= beta:
                    tt_put(c.tt, h, s, 31, 6 - col[i] if flip else col[i], 0)
                    return s
    if c.shared and n > 1 and moves - c.root_moves < SPLIT_PLIES:
        return split_moves(c, cur, mask, moves, alpha, beta, mv, col, n, h, bucket, check,
                           flip, start)

    for i in range(n):
        s = -negamax(c, cur ^ mask, mask | mv[i], moves + 1, -beta, -alpha)
        if c.aborted:
            return 0
        if s >= beta:
            return store_cut(c, h, s, 6 - col[i] if flip else col[i], start)
        if s > alpha:
            alpha = s
    return store_upper(c, h, alpha, start)


cdef inline int store_cut(Ctx* c, uint64_t h, int s, int col,
                          uint64_t start) noexcept nogil:
    """Record the lower bound ``s`` that column ``col`` (canonical) gave the
    node, with the log of the node's work; returns ``s``."""
    cdef int work = log2_floor(c.nodes - start)
    tt_put(c.tt, h, s, 31, col, work if work < 31 else 31)
    return s


cdef inline int store_upper(Ctx* c, uint64_t h, int alpha,
                            uint64_t start) noexcept nogil:
    """Record that no move lifted the node above ``alpha``; returns ``alpha``."""
    cdef int work = log2_floor(c.nodes - start)
    tt_put(c.tt, h, -32, alpha, -1, work if work < 31 else 31)
    return alpha


cdef inline bint wins_now(uint64_t cur, uint64_t mask) noexcept nogil:
    return (connect4_winning_cells(cur, mask) & (mask + C4_BOTTOM) & C4_CELLS) != 0


cdef inline int null_window(Ctx* c, uint64_t cur, uint64_t mask, int moves, int lo, int hi,
                            int probe) noexcept nogil:
    """Is the score above ``probe``?  One null-window search ``(probe, probe +
    1)`` with the bounds known so far (``lo``, ``hi``) reported first where a
    progress report is due; ABORTED when a limit or the report stops it."""
    cdef int r
    c.low, c.high, c.probe = lo, hi, probe
    if c.owner != NULL and not report_now(c):
        c.aborted = True
        return ABORTED
    r = negamax(c, cur, mask, moves, probe, probe + 1)
    return ABORTED if c.aborted else r


cdef int solve_root(Ctx* c, uint64_t cur, uint64_t mask, int moves, bint weak,
                    int lower=NO_BOUND) noexcept nogil:
    """The score of an ongoing position (ABORTED when a limit stops it); for a
    weak solve only its sign is exact.  ``lower``: a score the position is
    known to reach (minus a parent's score, from a book), tried first: a
    child that keeps its parent's score is solved by one search."""
    cdef int lo, hi, med, r
    if wins_now(cur, mask):
        return (CELLS + 1 - moves) // 2
    if moves >= CELLS:
        return 0
    c.root_moves = moves
    lo = -((CELLS - moves) // 2)
    hi = (CELLS + 1 - moves) // 2
    if weak:
        lo = -1
        hi = 1
    elif lower > lo:
        lo = lower
        if lo < hi:
            r = null_window(c, cur, mask, moves, lo, hi, lo)
            if r == ABORTED:
                return ABORTED
            if r <= lo:
                return lo
            lo = r
    while lo < hi:
        # bisect, but try near 0 first: small scores are the common case
        med = lo + (hi - lo) // 2
        if med <= 0 and lo // 2 < med:
            med = lo // 2
        elif med >= 0 and hi // 2 > med:
            med = hi // 2
        r = null_window(c, cur, mask, moves, lo, hi, med)
        if r == ABORTED:
            return ABORTED
        if r <= med:
            hi = r
        else:
            lo = r
    c.low, c.high = lo, lo
    return lo


cdef int child_at_most(Ctx* c, uint64_t cur, uint64_t mask, int moves, int col, int t) noexcept nogil:
    """1 if playing ``col`` leaves the opponent a score <= t, 0 if not, ABORTED."""
    cdef uint64_t m = (mask + C4_BOTTOM) & column_bits(col)
    cdef uint64_t ncur = cur ^ mask, nmask = mask | m
    cdef int r
    if wins_now(ncur, nmask):
        return (CELLS - moves) // 2 <= t
    if moves + 1 >= CELLS:
        return 0 <= t
    r = negamax(c, ncur, nmask, moves + 1, t, t + 1)
    if c.aborted:
        return ABORTED
    return r <= t


cdef int best_move(Ctx* c, uint64_t cur, uint64_t mask, int moves, int score, bint weak) noexcept nogil:
    """A column keeping ``score``: the fastest win, the slowest loss, a drawing
    move (a weak solve: a winning move, a drawing move, a move that does not
    lose at once).  -1 if none is left (full board); ABORTED."""
    cdef uint64_t possible = (mask + C4_BOTTOM) & C4_CELLS, win
    cdef int i, cm, r, first = -1
    win = connect4_winning_cells(cur, mask) & possible
    for i in range(7):
        cm = ORDER[i]
        if win & column_bits(cm):
            return cm
    for i in range(7):
        cm = ORDER[i]
        if not possible & column_bits(cm):
            continue
        if first < 0:
            first = cm
        if weak and score < 0:
            # every move loses: any that does not lose at once
            if not wins_now(cur ^ mask, mask | (possible & column_bits(cm))):
                return cm
            continue
        r = child_at_most(c, cur, mask, moves, cm, -score)
        if r == ABORTED:
            return ABORTED
        if r:
            return cm
    return first


cdef int keeping_columns(Ctx* c, uint64_t cur, uint64_t mask, int moves, int score,
                         int only) noexcept nogil:
    """The columns among ``only`` (bits) whose move keeps ``score``, the
    position's exact score, as bits (column i: bit i): one null-window test a
    column, cheaper than each column's exact score; ABORTED when a limit
    stops it."""
    cdef uint64_t possible = (mask + C4_BOTTOM) & C4_CELLS, win
    cdef int i, cm, r, out = 0
    win = connect4_winning_cells(cur, mask) & possible
    if win:
        # only a move that wins at once scores the best score
        for i in range(7):
            if win & column_bits(i):
                out |= 1 << i
        return out & only if score == (CELLS + 1 - moves) // 2 else 0
    for i in range(7):
        cm = ORDER[i]
        if not possible & column_bits(cm) or not (only >> cm) & 1:
            continue
        r = child_at_most(c, cur, mask, moves, cm, -score)
        if r == ABORTED:
            return ABORTED
        if r:
            out |= 1 << cm
    return out


# ------------------------------------------------------------------ Python side
cdef class _Tables:
    """A table and whether a solve is using it.  The module keeps one between
    solves (``_take_table``): its pages stay faulted in, and emptying it is a
    new generation, so a solve pays only for the pages it touches."""
    cdef Table t
    cdef uint64_t mb
    cdef bint busy           # a solve holds it (set and read with the GIL held)
    cdef bint kept           # the last solve kept it: its words stay for the next ``keep``

    def __cinit__(self, uint64_t mb):
        self.t.slots = NULL
        self.t.busy = NULL
        table_open(&self.t, mb)
        self.mb = mb
        self.busy = False
        self.kept = False

    def __dealloc__(self):
        table_close(&self.t)


_cached = None


def searching_now():
    """The sum of the cached table's searching-now counters: 0 between solves,
    however the last one ended (a limit or Ctrl-C included)."""
    cdef _Tables t = _cached
    cdef uint64_t total = 0, i
    if t is None:
        return 0
    for i in range((<uint64_t>1) << BUSY_BITS):
        total += t.t.busy[i]
    return total


def table_in_use():
    """``(buckets in use, buckets allocated)`` of the cached table after the
    last solve (``(0, 0)`` before the first): how far it grew."""
    cdef _Tables t = _cached
    if t is None:
        return 0, 0
    return 1 << t.t.bits, 1 << t.t.max_bits


def forget_kept_table():
    """The next ``keep`` solve starts from an empty table, as after an
    ordinary solve (to time one move cold)."""
    cdef _Tables t = _cached
    if t is not None and not t.busy:
        t.kept = False


cdef _Tables _take_table(uint64_t mb):
    """The cached table, marked busy (the GIL is held from the test to the
    mark, so two threads never take it both): a new one when it is in use
    by another thread's solve (that one is not cached) or of another size."""
    global _cached
    cdef _Tables t = _cached
    if t is None or t.mb != mb or t.busy:
        if t is not None and not t.busy:
            _cached = None
            t = None                       # free the old one before the new one
        t = _Tables(mb)
        if _cached is None:
            _cached = t
    t.busy = True
    return t


cdef void _prepare(_Tables t, int moves, bint shared, bint keep) noexcept:
    """Set a taken table up for a solve of a root of ``moves`` discs:
    emptied (a new generation), on its first megabyte growing as it fills,
    or with threads sharing it (``shared``) on the part ``table_focus_bits``
    gives the root.  ``keep`` after a ``keep`` solve: the words stay, and so
    does the layout they were written in (it only grows: wholly before
    threads share it)."""
    if keep and t.kept:
        if shared:
            table_grow_to(&t.t, t.t.max_bits)
            t.t.grow_at = 0
        else:
            t.t.grow_at = grow_threshold(&t.t)
    elif shared:
        table_reset(&t.t, t.t.max_bits if keep else table_focus_bits(moves), False)
    else:
        table_reset(&t.t, START_BITS, True)
    t.kept = keep


cdef class _Search:
    """One thread's search context over a shared table.  The main thread's
    may report its progress (``watch``)."""
    cdef Ctx ctx
    cdef interrupt_t it
    cdef _Tables tables
    cdef object stop_array
    cdef int stop_flag
    cdef public int result
    cdef object progress         # callable(nodes, low, high, probe, stage) or None
    cdef object helpers          # the searches beside it (their nodes count too)
    cdef object error            # what the progress callable raised
    cdef public str stage        # what the search is finding: "solving", "best move", ...
    cdef public bint flip        # a child of the root: its bounds are negated

    def __cinit__(self, _Tables tables, int helper, max_nodes, time_limit):
        self.tables = tables
        self.ctx.tt = &tables.t
        self.ctx.nodes = 0
        self.ctx.max_nodes = <uint64_t>max_nodes if max_nodes is not None else <uint64_t>-1
        self.ctx.next_check = 1
        self.ctx.deadline = now_monotonic() + time_limit if time_limit is not None else INFINITY
        self.ctx.aborted = False
        self.ctx.helper = helper
        self.ctx.nsplit = 0
        self.ctx.unwind_level = -1
        self.ctx.shared = False
        self.ctx.it = &self.it
        self.ctx.owner = NULL
        self.ctx.low = self.ctx.high = self.ctx.probe = 0
        self.result = ABORTED
        self.progress = None
        self.error = None
        self.stage = "solving"
        self.flip = False

    @property
    def nodes(self):
        return self.ctx.nodes

    def watch(self, progress, list helpers, double every):
        """Report to ``progress(nodes, low, high, probe, stage)`` (None: no
        reports) at most every ``every`` seconds while searching, and after
        each of the root's null-window searches: ``nodes`` of every thread so
        far, the score known to lie in [low, high], the search under way
        testing whether it is above ``probe``."""
        self.progress = progress
        self.helpers = helpers
        self.ctx.owner = <void*>self if progress is not None else NULL
        self.ctx.report_every = every
        self.ctx.next_report = now_monotonic() + every

    def _report(self, nodes, int low, int high, int probe):
        try:
            for h in self.helpers:
                nodes += (<_Search>h).ctx.nodes
            if self.flip:
                low, high, probe = -high, -low, -probe - 1
            self.progress(nodes, low, high, probe, self.stage)
            return True
        except BaseException as e:       # raised at the Python boundary (``_run``)
            self.error = e
            return False

    def run_helper(self, uint64_t cur, uint64_t mask, int moves, bint weak, _Search main,
                   int lower):
        """A helper thread's search: the same root, until it ends or the main
        thread sets the stop flag."""
        interrupt_init(&self.it, 64, &main.stop_flag)
        with nogil:
            solve_root(&self.ctx, cur, mask, moves, weak, lower)
        interrupt_discard(&self.it)


def _run(_Search main, list helpers, uint64_t cur, uint64_t mask, int moves, bint weak,
         int score=ABORTED, bint every=False, int lower=NO_BOUND, int only=0x7F):
    """The root score by the main search with the helpers beside it, or (given
    ``score``) a move that keeps it (``every``: the bits of all the columns
    among ``only`` that keep it), by the main search alone."""
    import threading
    cdef int r = ABORTED, target = score
    cdef bint move = score != ABORTED
    cdef _Search h
    threads = []
    main.ctx.shared = len(helpers) > 0
    for h in helpers:
        h.ctx.aborted = False
        h.ctx.shared = True
        threads.append(threading.Thread(target=h.run_helper,
                                        args=(cur, mask, moves, weak, main, lower), daemon=True))
    main.stop_flag = 0
    if move:
        main.ctx.low = main.ctx.high = main.ctx.probe = target
    interrupt_init(&main.it, 64, &main.stop_flag)
    try:
        for t in threads:
            t.start()
        with nogil:
            if move and every:
                r = keeping_columns(&main.ctx, cur, mask, moves, target, only)
            elif move:
                r = best_move(&main.ctx, cur, mask, moves, target, weak)
            else:
                r = solve_root(&main.ctx, cur, mask, moves, weak, lower)
    finally:
        main.stop_flag = 1
        for t in threads:
            t.join()
    interrupt_finish(&main.it)
    if main.error is not None:
        error, main.error = main.error, None
        raise error
    return None if r == ABORTED else r


cdef tuple _position(Board board):
    return (board.state.bb[board.state.to_move], board.state.bb[0] | board.state.bb[1],
            board.state.ply)


cdef tuple _searches(Board board, max_nodes, time_limit, uint64_t table_mb, int threads,
                     bint keep, progress=None, double every=0.5):
    """The table (taken: busy until the caller frees it), the position and the
    main search with its helpers, as every solve below starts; the main
    search reports to ``progress`` (``_Search.watch``)."""
    cdef _Tables tables = _take_table(table_mb)
    cdef _Search main
    cur, mask, moves = _position(board)
    try:
        main = _Search(tables, 0, max_nodes, time_limit)
        helpers = [_Search(tables, k, max_nodes, time_limit) for k in range(1, threads)]
    except BaseException:
        tables.busy = False
        raise
    tables.t.it = NULL                     # the last solve's: gone (not polled in _prepare)
    _prepare(tables, moves, threads > 1, keep)
    tables.t.it = &main.it                 # a growing table's rehash polls them
    tables.t.deadline = main.ctx.deadline
    main.watch(progress, helpers, every)
    return tables, cur, mask, moves, main, helpers


def solve_board(Board board, bint weak=False, max_nodes=None, time_limit=None,
                uint64_t table_mb=1024, int threads=1, bint with_move=True, bint keep=False,
                lower=None, progress=None, double progress_every=0.5):
    """``(score, best move, nodes)`` of an ongoing board (checked by the caller):
    the score exact, or its sign only (-1, 0, 1) with ``weak``; None for the
    score and the move when a limit stopped the search (or ``with_move`` is
    False, for the move).  ``keep``: start from the table of the previous
    ``keep`` solve (an entry bounds its own position's score, whatever the root).
    ``lower``: a score the board is known to reach (it must be true: the
    search trusts it), e.g. minus a parent's exact score; None for none.
    ``progress``: called as ``progress(nodes, low, high, probe, stage)`` at
    most every ``progress_every`` seconds and after each of the root's
    null-window searches (``_Search.watch``); what it raises stops the search
    and is raised here."""
    cdef _Tables tables
    tables, cur, mask, moves, main, helpers = _searches(board, max_nodes, time_limit, table_mb,
                                                        threads, keep, progress, progress_every)
    move = None
    try:
        score = _run(main, helpers, cur, mask, moves, weak,
                     lower=NO_BOUND if lower is None else lower)
        if weak and score is not None:
            score = (score > 0) - (score < 0)
        if score is not None and with_move:
            main.stage = "best move"
            move = _run(main, [], cur, mask, moves, weak, score)
            if move is None:
                score = None
        nodes = main.nodes + sum(h.nodes for h in helpers)
    finally:
        tables.busy = False
    return score, move, nodes


def optimal_columns_board(Board board, score=None, max_nodes=None, time_limit=None,
                          uint64_t table_mb=1024, int threads=1, bint keep=False,
                          lower=None, int only=0x7F, progress=None, double progress_every=0.5):
    """``(score, columns, nodes)`` for an ongoing board: its exact score (solved
    unless given, e.g. from a book) and the sorted columns among ``only``
    (bits) that keep it; None for both when a limit stopped the search.
    ``keep``, ``lower``, ``progress``: as ``solve_board``'s."""
    cdef _Tables tables
    tables, cur, mask, moves, main, helpers = _searches(board, max_nodes, time_limit, table_mb,
                                                        threads, keep, progress, progress_every)
    columns = None
    try:
        if score is None:
            score = _run(main, helpers, cur, mask, moves, False,
                         lower=NO_BOUND if lower is None else lower)
        if score is not None:
            main.stage = "best columns"
            bits = _run(main, [], cur, mask, moves, False, score, True, only=only)
            if bits is None:
                score = None
            else:
                columns = [col for col in range(7) if bits >> col & 1]
        nodes = main.nodes + sum(h.nodes for h in helpers)
    finally:
        tables.busy = False
    return score, columns, nodes


def analyse_board(Board board, max_nodes=None, time_limit=None, uint64_t table_mb=1024,
                  int threads=1, bint keep=False, progress=None, double progress_every=0.5):
    """``({column: exact score of playing it}, nodes)`` for an ongoing board;
    None for the columns left when a limit stopped the search.  ``keep``,
    ``progress``: as ``solve_board``'s (the stage names the column, 1-7, and
    the bounds are the column's score)."""
    cdef _Tables tables
    cdef _Search main
    cdef uint64_t cur, mask, m
    cdef int moves, col
    tables, cur, mask, moves, main, helpers = _searches(board, max_nodes, time_limit, table_mb,
                                                        threads, keep, progress, progress_every)
    out = {}
    main.flip = True
    try:
        for col in range(7):
            m = (mask + C4_BOTTOM) & column_bits(col)
            if not m:
                continue
            if connect4_winning_cells(cur, mask) & m:
                out[col] = (CELLS + 1 - moves) // 2
            elif moves + 1 == CELLS:
                out[col] = 0
            else:
                main.stage = f"column {col + 1}"
                r = None if main.ctx.aborted else _run(main, helpers, cur ^ mask, mask | m,
                                                       moves + 1, False)
                out[col] = None if r is None else -r
        nodes = main.nodes + sum(h.nodes for h in helpers)
    finally:
        tables.busy = False
    return out, nodes


cdef extern from "<time.h>" nogil:
    ctypedef long time_t
    struct timespec:
        time_t tv_sec
        long tv_nsec
    int clock_gettime(int clk, timespec* ts)
    enum: CLOCK_THREAD_CPUTIME_ID


cdef inline double thread_cpu() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return ts.tv_sec + ts.tv_nsec * 1e-9


def time_positions(list boards, bint weak=False, uint64_t table_mb=1024, bint keep=False):
    """For each ongoing board: ``(score, nodes, CPU seconds)`` of its score
    alone (no best move), the table emptied before each (counted in the time)
    and its pages faulted in before the first (not counted): the solver's own
    time per position, without the Python call around it.  ``keep``: the
    table is kept from one position to the next (an entry holds bounds on its
    position's own score, whatever the root)."""
    cdef _Tables tables = _take_table(table_mb)
    cdef _Search main
    try:
        main = _Search(tables, 0, None, None)
    except BaseException:
        tables.busy = False
        raise
    cdef Board b
    cdef uint64_t cur, mask, nodes0
    cdef int moves, r
    cdef double t0, t1
    out = []
    interrupt_init(&main.it, 64, NULL)
    with nogil:
        # fault the pages in first: the kernel's zeroing belongs to no position
        memset(tables.t.slots, 0, tables.t.bytes)
    table_reset(&tables.t, START_BITS, True)
    tables.t.it = &main.it
    tables.t.deadline = INFINITY
    try:
        for b in boards:
            cur, mask, moves = _position(b)
            nodes0 = main.ctx.nodes
            with nogil:
                t0 = thread_cpu()
                if not keep:
                    table_reset(&tables.t, START_BITS, True)
                r = solve_root(&main.ctx, cur, mask, moves, weak)
                t1 = thread_cpu()
            if r == ABORTED:
                break
            if weak:
                r = (r > 0) - (r < 0)
            out.append((r, main.ctx.nodes - nodes0, t1 - t0))
    finally:
        tables.busy = False
    interrupt_finish(&main.it)
    return out
