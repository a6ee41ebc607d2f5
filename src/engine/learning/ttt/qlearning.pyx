# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Tabular Q-learning for Tic-Tac-Toe: against a uniformly random opponent, or
by self-play on one shared table; optional 8-fold symmetry.

The hot loop (``_run_episodes``) plays whole episodes in C without the GIL,
without allocation and without Python objects.  Q is the caller's
C-contiguous ``float64`` array of shape (19683, 9) (row = base-3 index of the
position where the agent decides, column = cell), handed in as
``double[:, ::1]`` and updated in place.

Per agent move (ε-greedy over the empty cells only)::

    Q(s,a) += α (r + γ·max_a' Q(s',a') − Q(s,a))

where s' is the agent's next decision position after the opponent's random
reply; the max runs over the legal moves of s' and is 0 when the game ended.
Rewards are +1 win, −1 loss, 0 draw.  After every episode
``ε ← max(ε_min, ε·decay)`` and ``α ← max(α_min, α·α_decay)``.

Self-play (``mode`` 1): both sides ε-greedy on the same table; the mover's
target is r if its move ended the game, else ``−γ·max_a' Q(s',a')`` over the
opponent's legal moves (negamax), so Q converges to minimax values.

Symmetry: every position reads and writes the row of its canonical form
(smallest index among its 8 rotations/reflections), cells mapped through the
transform (``_canon``/``_ctrans``/``_perm``, built once at import);
``expand_symmetric`` fills the other rows afterwards.

Shaping (optional): if the agent's move does not end
the game but leaves the opponent a cell that completes one of the opponent's
lines (an immediate win), the move is updated as terminal with r = −0.8
(``Q(s,a) += α(−0.8 − Q(s,a))``) and the episode ends there, counted as "cut"
(not as a win, draw or loss).

Speed levers: incremental base-3 index, 512-entry win table, "k-th empty
cell" table (a random legal move is one draw plus one lookup), inline
xoshiro256** with one 64-bit draw split into the ε coin (low 32 bits) and the
random cell (high 32 bits), and one branch-free 9-cell scan giving max and
argmax at once (ties go to the lowest cell).
"""
from libc.stdint cimport uint64_t, uint32_t, int64_t, uint16_t
from libc.math cimport INFINITY
from libc.stdlib cimport malloc, free
from libc.string cimport memcpy
from ttt_engine._core.core.rng cimport rng_t, rng_seed, rng_next
from ttt_engine._core.core.interrupt cimport (
    interrupt_t, interrupt_init, interrupt_poll, interrupt_finish,
)
from ttt_engine._core.solvers.ttt.oracle cimport oracle_report, ORACLE_REPORT_SIZE
from ttt_engine._core.games.ttt.rules cimport (
    ttt_init_tables,
    ttt_win_table, ttt_kth_cell, ttt_popcount9, ttt_pow3, ttt_win_cells,
    TTT_STATES, TTT_FULL, )
from ttt_engine._core.games.ttt.board cimport Board

ttt_init_tables()
from ttt_engine._util import INT64_MAX, check_int, resolve_seed

N_STATES = TTT_STATES
SHAPING_REWARD = -0.8

# ---------------------------------------------------------------- symmetry tables
# _perm[t][i]: where cell i goes under symmetry t (t = 0 is the identity);
# _canon[idx]: smallest index among the 8 images of position idx;
# _ctrans[idx]: the first t mapping idx to _canon[idx] (0 for canonical indices).
cdef signed char _perm[8][9]
cdef int _canon[TTT_STATES]
cdef unsigned char _ctrans[TTT_STATES]


cdef void _build_symmetry() noexcept nogil:
    cdef int t, i, r, c, rr, cc, idx, img, best, bt, x, v
    for t in range(8):
        for i in range(9):
            r = i // 3
            c = i % 3
            if t == 0:
                rr, cc = r, c
            elif t == 1:
                rr, cc = c, 2 - r          # rotate 90
            elif t == 2:
                rr, cc = 2 - r, 2 - c      # rotate 180
            elif t == 3:
                rr, cc = 2 - c, r          # rotate 270
            elif t == 4:
                rr, cc = r, 2 - c          # mirror left-right
            elif t == 5:
                rr, cc = 2 - r, c          # mirror top-bottom
            elif t == 6:
                rr, cc = c, r              # transpose
            else:
                rr, cc = 2 - c, 2 - r      # anti-transpose
            _perm[t][i] = rr * 3 + cc
    for idx in range(TTT_STATES):
        best = idx
        bt = 0
        for t in range(1, 8):
            img = 0
            x = idx
            for i in range(9):
                v = x % 3
                x = x // 3
                img += v * ttt_pow3[_perm[t][i]]
            if img < best:
                best = img
                bt = t
        _canon[idx] = best
        _ctrans[idx] = bt


_build_symmetry()


def symmetry_tables():
    """``(perm, canon, ctrans)`` as numpy arrays (see the module source)."""
    import numpy as np
    perm = np.array([[_perm[t][i] for i in range(9)] for t in range(8)], dtype=np.int8)
    canon = np.array([_canon[i] for i in range(TTT_STATES)], dtype=np.int32)
    ctrans = np.array([_ctrans[i] for i in range(TTT_STATES)], dtype=np.uint8)
    return perm, canon, ctrans


def expand_symmetric(double[:, ::1] q not None):
    """Fill every non-canonical row from its canonical row in place:
    ``Q[i, c] = Q[canon[i], perm[ctrans[i]][c]]``, so a table trained with
    ``symmetry=True`` can be used like any other."""
    if q.shape[0] != TTT_STATES or q.shape[1] != 9:
        raise ValueError(f"Q must have shape ({TTT_STATES}, 9), got ({q.shape[0]}, {q.shape[1]})")
    with nogil:
        _expand_symmetric(&q[0, 0])


cdef void _expand_symmetric(double* q) noexcept nogil:
    cdef int i, c, k
    for i in range(TTT_STATES):
        k = _canon[i]
        if k != i:
            for c in range(9):
                q[i * 9 + c] = q[k * 9 + _perm[_ctrans[i]][c]]

cdef enum:
    SIDE_X = 0
    SIDE_O = 1
    SIDE_RANDOM = 2

cdef enum:
    R_WIN = 0
    R_DRAW = 1
    R_LOSS = 2
    R_CUT = 3


cdef enum:
    MODE_RANDOM = 0
    MODE_SELF_PLAY = 1


cdef struct QParams:
    int mode            # MODE_RANDOM / MODE_SELF_PLAY
    double alpha        # current α (decays per episode)
    double alpha_decay
    double alpha_min
    double gamma
    double epsilon      # current ε (decays per episode)
    double decay
    double eps_min
    int side            # SIDE_X / SIDE_O / SIDE_RANDOM
    int shaping
    int symmetry        # learn canonical rows only (8 rotations/reflections)


cdef inline int _random_cell(int empty, uint64_t r) noexcept nogil:
    """Uniform empty cell from the high 32 bits of ``r`` (Lemire multiply-shift)."""
    return ttt_kth_cell[empty][<int>(((r >> 32) * <uint64_t>ttt_popcount9[empty]) >> 32)]


cdef inline double _scan(const double* row, int empty, int* arg) noexcept nogil:
    """Max of ``row`` over the cells set in ``empty`` and its first argmax,
    in one branch-free pass (conditional moves only).  ``empty`` != 0."""
    cdef double best = -INFINITY, v
    cdef int a = 0, i, take
    for i in range(9):
        v = row[i]
        take = ((empty >> i) & 1) & (v > best)
        best = v if take else best
        a = i if take else a
    arg[0] = a
    return best


cdef inline double _scan_perm(const double* row, const signed char* pm, int empty,
                              int* arg) noexcept nogil:
    """``_scan`` over ``row[pm[i]]`` (cell i of the position read in its canonical row)."""
    cdef double best = -INFINITY, v
    cdef int a = 0, i, take
    for i in range(9):
        v = row[pm[i]]
        take = ((empty >> i) & 1) & (v > best)
        best = v if take else best
        a = i if take else a
    arg[0] = a
    return best


cdef inline int _decide(double* Q, rng_t* rng, uint64_t eps_thr, int sym, int idx, int empty,
                        double* best, double** cell) noexcept nogil:
    """The ε-greedy move at position ``idx`` (``empty``: its empty cells):
    returns the move; ``best`` gets max Q(idx, .) over the empty cells, ``cell``
    the address of Q(idx, move) (in the canonical row with ``sym``)."""
    cdef double* row
    cdef const signed char* pm = NULL
    cdef int greedy, a
    cdef uint64_t r
    if sym:                  # read/write the canonical row through the transform
        row = Q + _canon[idx] * 9
        pm = &_perm[_ctrans[idx]][0]
        best[0] = _scan_perm(row, pm, empty, &greedy)
    else:
        row = Q + idx * 9
        best[0] = _scan(row, empty, &greedy)
    r = rng_next(rng)
    a = _random_cell(empty, r) if (r & 0xFFFFFFFFu) < eps_thr else greedy
    cell[0] = row + (pm[a] if sym else a)
    return a


cdef inline int _episode(double* Q, rng_t* rng, int me, uint64_t eps_thr,
                         double alpha, double gamma, int shaping, int sym) noexcept nogil:
    """Play one training episode with the agent on side ``me`` (0 X, 1 O);
    return R_WIN / R_DRAW / R_LOSS / R_CUT from the agent's point of view."""
    cdef int mine = 0, theirs = 0, idx = 0, empty, a, c
    cdef int wme = me + 1, wopp = 2 - me
    cdef double* prev = NULL     # &Q[s, a] of the agent's last move
    cdef double* cell
    cdef double best
    cdef uint64_t r
    if me == SIDE_O:             # X (the opponent) opens
        r = rng_next(rng)
        c = _random_cell(TTT_FULL, r)
        theirs = 1 << c
        idx = wopp * ttt_pow3[c]
    while True:
        # ---- agent decides at idx: one scan gives max (for the previous update) and argmax
        empty = (~(mine | theirs)) & TTT_FULL
        a = _decide(Q, rng, eps_thr, sym, idx, empty, &best, &cell)
        if prev != NULL:
            prev[0] += alpha * (gamma * best - prev[0])
        prev = cell
        mine |= 1 << a
        idx += wme * ttt_pow3[a]
        if ttt_win_table[mine]:
            prev[0] += alpha * (1.0 - prev[0])
            return R_WIN
        if (mine | theirs) == TTT_FULL:
            prev[0] += alpha * (0.0 - prev[0])
            return R_DRAW
        empty = (~(mine | theirs)) & TTT_FULL
        if shaping and (ttt_win_cells[theirs] & empty):
            prev[0] += alpha * (-0.8 - prev[0])
            return R_CUT
        # ---- opponent: uniformly random empty cell
        r = rng_next(rng)
        c = _random_cell(empty, r)
        theirs |= 1 << c
        idx += wopp * ttt_pow3[c]
        if ttt_win_table[theirs]:
            prev[0] += alpha * (-1.0 - prev[0])
            return R_LOSS
        if (mine | theirs) == TTT_FULL:
            prev[0] += alpha * (0.0 - prev[0])
            return R_DRAW


cdef inline int _selfplay_episode(double* Q, rng_t* rng, uint64_t eps_thr,
                                  double alpha, double gamma, int sym) noexcept nogil:
    """One self-play episode on the shared table, both sides ε-greedy.
    Negamax target for the mover's (s, a): r (+1 win, 0 draw) if the move
    ended the game, else -γ·max_a' Q(s', a') over the opponent's legal moves.
    Returns R_WIN (X won), R_DRAW or R_LOSS (O won)."""
    cdef int marks[2]            # each side's cells
    cdef int idx = 0, empty, a, p = 0
    cdef double* prev = NULL
    cdef double* cell
    cdef double best
    marks[0] = marks[1] = 0
    while True:
        empty = (~(marks[0] | marks[1])) & TTT_FULL
        a = _decide(Q, rng, eps_thr, sym, idx, empty, &best, &cell)
        if prev != NULL:
            prev[0] += alpha * (-gamma * best - prev[0])
        prev = cell
        idx += (p + 1) * ttt_pow3[a]
        marks[p] |= 1 << a
        if ttt_win_table[marks[p]]:
            prev[0] += alpha * (1.0 - prev[0])
            return R_WIN if p == 0 else R_LOSS
        if (marks[0] | marks[1]) == TTT_FULL:
            prev[0] += alpha * (0.0 - prev[0])
            return R_DRAW
        p ^= 1


cdef int64_t _run_episodes(double* Q, QParams* p, rng_t* rng, int64_t n,
                           int64_t* counts, interrupt_t* it,
                           volatile int64_t* progress) noexcept nogil:
    """Run ``n`` episodes, decaying ``p.epsilon`` after each; add the outcomes
    to ``counts[R_WIN..R_CUT]``.  Every 1024 episodes ``progress[0]`` is
    advanced (another thread may read it) and ``it`` is polled: on an
    interrupt the loop stops after a whole episode.  Returns the episodes run."""
    cdef int64_t e, base = progress[0]
    cdef int me, res
    cdef double eps = p.epsilon, decay = p.decay, eps_min = p.eps_min
    cdef double alpha = p.alpha, alpha_decay = p.alpha_decay, alpha_min = p.alpha_min
    cdef double gamma = p.gamma
    cdef int shaping = p.shaping
    cdef int sym = p.symmetry, mode = p.mode, side = p.side
    cdef uint64_t thr
    cdef int64_t w = 0, d = 0, l = 0, cut = 0
    # Work on a local copy of the generator: with -fno-strict-aliasing every store
    # into Q could alias *rng, which would force its state through memory per draw.
    cdef rng_t g = rng[0]
    for e in range(n):
        if (e & 1023) == 0:
            progress[0] = base + e
            if interrupt_poll(it):
                break
        # P(explore) = thr / 2**32 with 32-bit resolution; ε = 1 explores always.
        thr = <uint64_t>(eps * 4294967296.0)
        if mode == MODE_SELF_PLAY:
            if sym:   # literal flags: gcc specializes each inlined copy
                res = _selfplay_episode(Q, &g, thr, alpha, gamma, 1)
            else:
                res = _selfplay_episode(Q, &g, thr, alpha, gamma, 0)
        else:
            if side == SIDE_RANDOM:
                me = <int>(rng_next(&g) >> 63)
            else:
                me = side
            if sym:
                res = _episode(Q, &g, me, thr, alpha, gamma, shaping, 1)
            else:
                res = _episode(Q, &g, me, thr, alpha, gamma, shaping, 0)
        w += res == R_WIN
        d += res == R_DRAW
        l += res == R_LOSS
        cut += res == R_CUT
        eps = eps * decay
        if eps < eps_min:
            eps = eps_min
        alpha = alpha * alpha_decay
        if alpha < alpha_min:
            alpha = alpha_min
    else:
        e = n
    rng[0] = g
    p.epsilon = eps
    p.alpha = alpha
    counts[R_WIN] += w
    counts[R_DRAW] += d
    counts[R_LOSS] += l
    counts[R_CUT] += cut
    progress[0] = base + e
    return e


cdef enum:
    REC_EPISODES = 0    # columns of a run_recorded row
    REC_WINS = 1
    REC_DRAWS = 2
    REC_LOSSES = 3
    REC_CUT = 4
    REC_EPSILON = 5
    REC_ALPHA = 6
    REC_METRICS = 7     # 1.0 when the next ORACLE_REPORT_SIZE columns hold metrics
    REC_REPORT = 8
    REC_COLUMNS = 8 + ORACLE_REPORT_SIZE

RECORD_COLUMNS = REC_COLUMNS


cdef class QTrainer:
    """Holds the training state between chunks: Q (a view of the caller's
    array), hyperparameters, the current ε and the generator.  Running
    ``run(a)`` then ``run(b)`` gives exactly the same Q as ``run(a + b)``.

    Arguments are assumed validated by the Python layer
    (``ttt_engine.train``); this class only checks the array layout.
    """
    cdef double[:, ::1] q
    cdef QParams p
    cdef rng_t rng
    cdef public long long episodes
    cdef bint busy
    cdef volatile int64_t _progress
    cdef readonly long long last_done
    cdef readonly long long last_rows

    def __cinit__(self, double[:, ::1] q not None, double alpha, double gamma,
                  double epsilon, double decay, double eps_min, int side,
                  bint shaping, unsigned long long seed, double alpha_decay=1.0,
                  double alpha_min=0.0, int mode=MODE_RANDOM, bint symmetry=False):
        if q.shape[0] != TTT_STATES or q.shape[1] != 9:
            raise ValueError(f"Q must have shape ({TTT_STATES}, 9), got ({q.shape[0]}, {q.shape[1]})")
        if side not in (SIDE_X, SIDE_O, SIDE_RANDOM):
            raise ValueError(f"side code must be 0, 1 or 2, got {side}")
        if mode not in (MODE_RANDOM, MODE_SELF_PLAY):
            raise ValueError(f"mode code must be 0 or 1, got {mode}")
        self.q = q
        self.p = QParams(mode=mode, alpha=alpha, alpha_decay=alpha_decay, alpha_min=alpha_min,
                         gamma=gamma, epsilon=epsilon, decay=decay, eps_min=eps_min,
                         side=side, shaping=shaping, symmetry=symmetry)
        rng_seed(&self.rng, seed)
        self.episodes = 0
        self.busy = False
        self._progress = 0

    cdef int _enter(self) except -1:
        if self.busy:
            raise RuntimeError("this QTrainer is already training in another thread")
        self.busy = True
        return 0

    @property
    def progress(self):
        """Episodes run so far, including those of a run in progress (advanced
        every 1024 episodes; safe to read from another thread)."""
        return self._progress

    @property
    def epsilon(self):
        """The current ε (after the episodes run so far)."""
        return self.p.epsilon

    @epsilon.setter
    def epsilon(self, double value):
        self.p.epsilon = value

    @property
    def mode(self):
        """0: against the random opponent, 1: self-play (settable between chunks)."""
        return self.p.mode

    @mode.setter
    def mode(self, int value):
        if value not in (MODE_RANDOM, MODE_SELF_PLAY):
            raise ValueError(f"mode code must be 0 or 1, got {value}")
        self.p.mode = value

    @property
    def alpha(self):
        """The current α (after the episodes run so far)."""
        return self.p.alpha

    def run(self, episodes):
        """Run ``n`` episodes; return ``(wins, draws, losses, cut)`` for them
        (self-play: X wins, draws, O wins, 0)."""
        cdef int64_t n = check_int("episodes", episodes, min=0, max=INT64_MAX)
        cdef int64_t counts[4]
        cdef int64_t done
        cdef interrupt_t it
        counts[0] = counts[1] = counts[2] = counts[3] = 0
        self._enter()
        try:
            interrupt_init(&it, 1, NULL)
            with nogil:
                done = _run_episodes(&self.q[0, 0], &self.p, &self.rng, n, counts, &it,
                                     &self._progress)
            self.episodes += done
            self.last_done = done
            interrupt_finish(&it)
        finally:
            self.busy = False
        return counts[0], counts[1], counts[2], counts[3]

    def run_recorded(self, long long n, long long chunk, long long chunk_index,
                     int metrics_every, bint final, double[:, ::1] records not None,
                     const double[:, ::1] q_random=None, double tiebreak=0.0,
                     bint symmetry=False):
        """Run up to ``n`` episodes in chunks of ``chunk`` in one call without the
        GIL, writing one row of ``records`` per chunk (columns: episodes run in
        this call so far, wins, draws, losses, cut, epsilon, alpha, metrics
        flag, then the oracle's report (``solvers/ttt/oracle``) when the flag
        is 1).  Chunks are numbered on from ``chunk_index``; a chunk whose number is a multiple of
        ``metrics_every`` (0: never), or the last one when ``final``, gets the
        exact metrics of the effective table: ``Q + tiebreak * q_random`` (when
        given), filled from the canonical rows when ``symmetry``.

        Stops when ``n`` episodes are run or ``records`` is full; returns
        ``(episodes_run, rows)``.  On Ctrl-C it stops after a whole episode,
        leaves ``(last_done, last_rows)`` set as the return value would have
        been, and raises ``KeyboardInterrupt``."""
        if n < 0 or chunk < 1 or metrics_every < 0:
            raise ValueError("n >= 0, chunk >= 1 and metrics_every >= 0 are required")
        if records.shape[1] != REC_COLUMNS:
            raise ValueError(f"records must have {REC_COLUMNS} columns, got {records.shape[1]}")
        if q_random is not None and (q_random.shape[0] != TTT_STATES or q_random.shape[1] != 9):
            raise ValueError(f"q_random must have shape ({TTT_STATES}, 9)")
        cdef int64_t done = 0, m, step, rows = 0, cap = records.shape[0], k
        cdef int64_t counts[4]
        cdef bint metrics, stopped = False
        cdef double* scratch = NULL
        cdef const double* qr = &q_random[0, 0] if q_random is not None else NULL
        cdef double* Q = &self.q[0, 0]
        cdef double* row
        cdef interrupt_t it
        if metrics_every > 0 and (qr != NULL or symmetry):
            scratch = <double*>malloc(TTT_STATES * 9 * sizeof(double))
            if scratch == NULL:
                raise MemoryError("cannot allocate the metrics table")
        self._enter()
        try:
            interrupt_init(&it, 1, NULL)
            with nogil:
                while done < n and rows < cap and not stopped:
                    m = chunk if chunk < n - done else n - done
                    counts[0] = counts[1] = counts[2] = counts[3] = 0
                    step = _run_episodes(Q, &self.p, &self.rng, m, counts, &it, &self._progress)
                    done += step
                    if step < m:
                        stopped = True          # interrupted inside the chunk: no row
                        break
                    chunk_index += 1
                    row = &records[rows, 0]
                    rows += 1
                    row[REC_EPISODES] = <double>done
                    row[REC_WINS] = <double>counts[R_WIN]
                    row[REC_DRAWS] = <double>counts[R_DRAW]
                    row[REC_LOSSES] = <double>counts[R_LOSS]
                    row[REC_CUT] = <double>counts[R_CUT]
                    row[REC_EPSILON] = self.p.epsilon
                    row[REC_ALPHA] = self.p.alpha
                    metrics = metrics_every > 0 and (chunk_index % metrics_every == 0
                                                     or (final and done == n))
                    row[REC_METRICS] = 1.0 if metrics else 0.0
                    if metrics:
                        if scratch != NULL:
                            if qr != NULL:
                                for k in range(TTT_STATES * 9):
                                    scratch[k] = Q[k] + tiebreak * qr[k]
                            else:
                                memcpy(scratch, Q, TTT_STATES * 9 * sizeof(double))
                            if symmetry:
                                _expand_symmetric(scratch)
                            oracle_report(scratch, row + REC_REPORT)
                        else:
                            oracle_report(Q, row + REC_REPORT)
            self.episodes += done
            self.last_done = done
            self.last_rows = rows
            interrupt_finish(&it)
        finally:
            self.busy = False
            free(scratch)
        return done, rows


# ---------------------------------------------------------------------------- evaluation

cdef inline int _put(int* side, int cell, int weight) noexcept nogil:
    """Put a stone of one side (its cells ``side``) on ``cell``; returns the stone's
    term of the position index (``weight``: 1 for X, 2 for O)."""
    side[0] |= 1 << cell
    return weight * ttt_pow3[cell]


cdef inline int _greedy_game(const double* Q, rng_t* rng, int me,
                             const uint16_t* opt) noexcept nogil:
    """One game: greedy agent on side ``me`` vs a uniformly random opponent
    (``opt`` NULL) or a perfect one choosing uniformly among the optimal moves
    ``opt[index]`` (a 9-bit mask per position, from ``solvers/ttt/oracle``)."""
    cdef int mine = 0, theirs = 0, idx = 0, empty, a, c
    cdef int wme = me + 1, wopp = 2 - me
    if me == SIDE_O:
        c = _random_cell(opt[0] if opt != NULL else TTT_FULL, rng_next(rng))
        idx = _put(&theirs, c, wopp)
    # The two half-moves are written out, not looped over a turn index: the
    # loop form measured 18-20% fewer games/s.
    while True:
        empty = (~(mine | theirs)) & TTT_FULL
        _scan(Q + idx * 9, empty, &a)
        idx += _put(&mine, a, wme)
        if ttt_win_table[mine]:
            return R_WIN
        if (mine | theirs) == TTT_FULL:
            return R_DRAW
        empty = empty & ~(1 << a)
        c = _random_cell(opt[idx] if opt != NULL else empty, rng_next(rng))
        idx += _put(&theirs, c, wopp)
        if ttt_win_table[theirs]:
            return R_LOSS
        if (mine | theirs) == TTT_FULL:
            return R_DRAW


cdef void _eval_games(const double* Q, rng_t* rng, int64_t n, int side,
                      int64_t* counts, const uint16_t* opt, interrupt_t* it) noexcept nogil:
    cdef int64_t k
    cdef int me
    cdef rng_t g = rng[0]          # local copy: see _run_episodes
    cdef int64_t c[4]
    c[0] = c[1] = c[2] = c[3] = 0
    for k in range(n):
        if (k & 255) == 0 and interrupt_poll(it):
            break
        if side == SIDE_RANDOM:
            me = <int>(rng_next(&g) >> 63)
        else:
            me = side
        c[_greedy_game(Q, &g, me, opt)] += 1
    rng[0] = g
    for k in range(4):
        counts[k] += c[k]


def evaluate_random(const double[:, ::1] q not None, games, int side,
                    seed, const uint16_t[::1] optimal=None, int[::1] stop=None):
    """Greedy play of ``q`` against a uniformly random opponent for ``games``
    games; return ``(wins, draws, losses)``.  ``side``: 0 X, 1 O, 2 random.
    With ``optimal`` (the oracle's uint16 masks, length 19683) the opponent is
    perfect instead: uniform among the game-theoretically optimal moves.
    ``stop``: shared stop flag of a multi-threaded evaluation (see
    ``ttt_engine._parallel``).  Ctrl-C raises ``KeyboardInterrupt``."""
    if q.shape[0] != TTT_STATES or q.shape[1] != 9:
        raise ValueError(f"Q must have shape ({TTT_STATES}, 9), got ({q.shape[0]}, {q.shape[1]})")
    if side not in (SIDE_X, SIDE_O, SIDE_RANDOM):
        raise ValueError(f"side code must be 0, 1 or 2, got {side}")
    cdef int64_t n = check_int("games", games, min=0, max=INT64_MAX)
    cdef uint64_t s = resolve_seed(seed)
    cdef rng_t rng
    cdef int64_t counts[4]
    cdef const uint16_t* opt = NULL
    cdef interrupt_t it
    if optimal is not None:
        if optimal.shape[0] != TTT_STATES:
            raise ValueError(f"optimal must have length {TTT_STATES}, got {optimal.shape[0]}")
        opt = &optimal[0]
    counts[0] = counts[1] = counts[2] = counts[3] = 0
    rng_seed(&rng, s)
    interrupt_init(&it, 1, <volatile int*>&stop[0] if stop is not None else NULL)
    with nogil:
        _eval_games(&q[0, 0], &rng, n, side, counts, opt, &it)
    interrupt_finish(&it)
    return counts[0], counts[1], counts[2]


def greedy_move(double[:, ::1] q not None, Board board not None):
    """The greedy move of ``q`` on ``board`` (lowest cell among ties), or -1
    when the game is over.  Same rule as training and evaluation."""
    if q.shape[0] != TTT_STATES or q.shape[1] != 9:
        raise ValueError(f"Q must have shape ({TTT_STATES}, 9), got ({q.shape[0]}, {q.shape[1]})")
    if board.state.status:
        return -1
    cdef int empty = (~(board.state.mask[0] | board.state.mask[1])) & TTT_FULL
    cdef int a
    _scan(&q[board.state.index, 0], empty, &a)
    return a
