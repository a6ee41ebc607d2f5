# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Tic-Tac-Toe solved exactly, and exact evaluation of greedy Q-table agents.

At import, an exhaustive memoized negamax over the 5478 positions reachable
from the empty board (958 terminal, 4520 with a move to make) fills:

- ``value[i]``: game-theoretic value of position ``i`` (base-3 index) for the
  side to move: +1 win, 0 draw, -1 loss (terminal: 0 draw, -1 the side to move
  has lost); -2 for unreachable indices;
- ``optimal[i]``: 9-bit mask of the moves achieving ``value[i]``;
- ``wins_dtm[i]``: for won positions, plies to the win with best play (the
  winner hurries, the loser delays), else 0.

Exact evaluations of a greedy agent (Q table, lowest cell among ties, the
rule of ``ttt_engine.qlearning``) enumerate the game tree instead of sampling:
optimality over the 4520 decision positions, the outcome distribution against
a uniformly random opponent, and the worst case against any opponent.
"""
from libc.string cimport memset
from libc.stdint cimport uint16_t, int8_t
from ttt_engine._core.games.ttt.rules cimport (
    ttt_init_tables,
    TTTState, ttt_reset, ttt_make, ttt_unmake, ttt_empty_mask, ttt_popcount9,
    ttt_kth_cell, TTT_STATES, TTT_FULL,
)
import numpy as np

ttt_init_tables()

cdef int8_t _value[TTT_STATES]
cdef uint16_t _optimal[TTT_STATES]
cdef int8_t _kind[TTT_STATES]        # 0 unreachable, 1 decision, 2 terminal
cdef int8_t _dtm[TTT_STATES]
cdef int _decisions[4520]
cdef uint16_t _dec_empty[4520]
cdef int8_t _dec_to_move[4520]
cdef int _ndecisions = 0


cdef int _solve(TTTState* s) noexcept nogil:
    """Negamax value for the side to move, memoized on the base-3 index."""
    global _ndecisions
    cdef int idx = s.index, best = -2, v, c, k, n, e, mask = 0, d, bestd = 0
    if _kind[idx]:
        return _value[idx]
    if s.status:
        _kind[idx] = 2
        _value[idx] = 0 if s.status == 3 else -1
        _dtm[idx] = 0
        return _value[idx]
    e = ttt_empty_mask(s)
    n = ttt_popcount9[e]
    for k in range(n):
        c = ttt_kth_cell[e][k]
        ttt_make(s, c)
        v = -_solve(s)
        d = _dtm[s.index] + 1
        ttt_unmake(s, c, 0)
        if v > best:
            best, mask, bestd = v, 1 << c, d
        elif v == best:
            mask |= 1 << c
            # winner: fastest win; loser: slowest loss
            if (v > 0 and d < bestd) or (v < 0 and d > bestd):
                bestd = d
    _kind[idx] = 1
    _value[idx] = best
    _optimal[idx] = mask
    _dtm[idx] = bestd if best != 0 else 0
    _decisions[_ndecisions] = idx
    _dec_empty[_ndecisions] = e
    _dec_to_move[_ndecisions] = s.to_move
    _ndecisions += 1
    return best


cdef void _build() noexcept nogil:
    cdef TTTState s
    cdef int i
    memset(_kind, 0, sizeof(_kind))
    memset(_optimal, 0, sizeof(_optimal))
    for i in range(TTT_STATES):
        _value[i] = -2
        _dtm[i] = 0
    ttt_reset(&s)
    _solve(&s)


_build()

N_REACHABLE = int(np.count_nonzero(np.asarray(<int8_t[:TTT_STATES]>_kind)))
N_DECISIONS = _ndecisions
N_TERMINAL = N_REACHABLE - N_DECISIONS


def tables():
    """Copies of the oracle tables: ``(value, optimal, kind, decisions)``:
    int8 value per index (-2 unreachable), uint16 optimal-move mask, int8 kind
    (0 unreachable, 1 decision, 2 terminal), sorted int32 decision indices."""
    value = np.asarray(<int8_t[:TTT_STATES]>_value).copy()
    optimal = np.asarray(<uint16_t[:TTT_STATES]>_optimal).copy()
    kind = np.asarray(<int8_t[:TTT_STATES]>_kind).copy()
    dec = np.sort(np.asarray(<int[:_ndecisions]>_decisions).copy())
    return value, optimal, kind, dec


def optimal_mask_array():
    """The uint16 optimal-move masks (a fresh array, for the sampled evaluation)."""
    return np.asarray(<uint16_t[:TTT_STATES]>_optimal).copy()


# ------------------------------------------------------------------ agent helpers
cdef inline int _greedy(const double* Q, int idx, int empty) noexcept nogil:
    cdef const double* row = Q + idx * 9
    cdef double best = -1e308, v
    cdef int a = -1, i
    for i in range(9):
        if (empty >> i) & 1:
            v = row[i]
            if a < 0 or v > best:
                best, a = v, i
    return a


cdef inline int _followed(const double* Q, TTTState* s, int me, int* cells) noexcept nogil:
    """The moves followed from ``s`` (game on) when the agent plays greedily on
    side ``me`` and the opponent plays anything: the agent's one move on its
    turn, every move on the opponent's.  Returns how many."""
    cdef int e = ttt_empty_mask(s), k, n
    if s.to_move == me:
        cells[0] = _greedy(Q, s.index, e)
        return 1
    n = ttt_popcount9[e]
    for k in range(n):
        cells[k] = ttt_kth_cell[e][k]
    return n


cdef void _reach(const double* Q, TTTState* s, int me, char* seen) noexcept nogil:
    """Mark the agent's decision positions reachable when it plays greedily
    on side ``me`` and the opponent plays anything."""
    cdef int cells[9]
    cdef int n, k
    if s.status or seen[s.index]:
        return
    seen[s.index] = 1
    n = _followed(Q, s, me, cells)
    for k in range(n):
        ttt_make(s, cells[k])
        _reach(Q, s, me, seen)
        ttt_unmake(s, cells[k], 0)


cdef void _optimality_counts(const double* Q, int* out) noexcept nogil:
    """out[0..5]: see ``optimality_counts``."""
    cdef int i, idx, a, nopt = 0, me
    cdef char seen[TTT_STATES]
    cdef TTTState s
    for i in range(_ndecisions):
        idx = _decisions[i]
        a = _greedy(Q, idx, _dec_empty[i])
        nopt += (_optimal[idx] >> a) & 1
    out[0] = nopt
    out[1] = _ndecisions
    for me in range(2):
        memset(seen, 0, TTT_STATES)
        ttt_reset(&s)
        _reach(Q, &s, me, seen)
        out[2 + 2 * me] = out[3 + 2 * me] = 0
        for i in range(_ndecisions):
            idx = _decisions[i]
            if seen[idx] and _dec_to_move[i] == me:
                out[3 + 2 * me] += 1
                a = _greedy(Q, idx, _dec_empty[i])
                out[2 + 2 * me] += (_optimal[idx] >> a) & 1


def optimality_counts(double[:, ::1] q not None):
    """``(optimal_all, 4520, optimal_reach_X, reach_X, optimal_reach_O, reach_O)``:
    how many decision positions have the agent's greedy move among the optimal
    ones, over all 4520 and over those it reaches playing X / O itself."""
    _check(q)
    cdef int out[6]
    with nogil:
        _optimality_counts(&q[0, 0], out)
    return out[0], out[1], out[2], out[3], out[4], out[5]


cdef void oracle_report(const double* Q, double* out) noexcept nogil:
    """The learning-curve measures of ``ttt_engine.exact.exact_report``, in its
    order: optimality over all decision positions, over those reached as X and
    as O; exact win, draw, loss against random as X; the same as O."""
    cdef int o[6]
    cdef TTTState s
    cdef int k
    _optimality_counts(Q, o)
    out[0] = <double>o[0] / o[1]
    out[1] = <double>o[2] / o[3]
    out[2] = <double>o[4] / o[5]
    for k in range(3, 9):
        out[k] = 0.0
    ttt_reset(&s)
    _vs_random(Q, &s, 0, 1.0, out + 3)
    ttt_reset(&s)
    _vs_random(Q, &s, 1, 1.0, out + 6)


cdef void _vs_random(const double* Q, TTTState* s, int me, double p, double* out) noexcept nogil:
    """Add ``p`` x the outcome distribution (win, draw, loss for ``me``) of the
    greedy agent against a uniformly random opponent from ``s``."""
    cdef int cells[9]
    cdef int n, k
    if s.status:
        if s.status == 3:
            out[1] += p
        elif s.status == me + 1:
            out[0] += p
        else:
            out[2] += p
        return
    n = _followed(Q, s, me, cells)
    for k in range(n):     # the agent's move: n = 1, p / 1 == p exactly
        ttt_make(s, cells[k])
        _vs_random(Q, s, me, p / n, out)
        ttt_unmake(s, cells[k], 0)


def exact_vs_random(double[:, ::1] q not None, int me):
    """Exact (win, draw, loss) probabilities of the greedy agent on side ``me``
    (0 X, 1 O) against a uniformly random opponent, by enumerating every reply."""
    _check(q)
    cdef double out[3]
    cdef TTTState s
    out[0] = out[1] = out[2] = 0.0
    ttt_reset(&s)
    with nogil:
        _vs_random(&q[0, 0], &s, me, 1.0, out)
    return out[0], out[1], out[2]


cdef int _worst(const double* Q, TTTState* s, int me) noexcept nogil:
    """Outcome for ``me`` (+1 win, 0 draw, -1 loss) when the opponent picks the
    replies that are worst for the greedy agent."""
    cdef int e, n, k, c, v, worst = 2
    if s.status:
        return 0 if s.status == 3 else (1 if s.status == me + 1 else -1)
    e = ttt_empty_mask(s)
    if s.to_move == me:
        c = _greedy(Q, s.index, e)
        ttt_make(s, c)
        v = _worst(Q, s, me)
        ttt_unmake(s, c, 0)
        return v
    n = ttt_popcount9[e]
    for k in range(n):
        c = ttt_kth_cell[e][k]
        ttt_make(s, c)
        v = _worst(Q, s, me)
        ttt_unmake(s, c, 0)
        if v < worst:
            worst = v
    return worst


def worst_case(double[:, ::1] q not None, int me):
    """``(outcome, line)``: the agent's outcome (+1/0/-1) on side ``me`` against
    the opponent's most damaging play, and one move sequence achieving it."""
    _check(q)
    cdef TTTState s
    cdef int v, c, e, k, n, best
    cdef const double* Q = &q[0, 0]
    ttt_reset(&s)
    v = _worst(Q, &s, me)
    line = []
    while not s.status:
        e = ttt_empty_mask(&s)
        if s.to_move == me:
            c = _greedy(Q, s.index, e)
        else:
            n = ttt_popcount9[e]
            for k in range(n):
                c = ttt_kth_cell[e][k]
                ttt_make(&s, c)
                best = _worst(Q, &s, me)
                ttt_unmake(&s, c, 0)
                if best == v:
                    break
        ttt_make(&s, c)
        line.append(c)
    return v, line


cdef double _best_vs_random(TTTState* s, int me, bint safe) noexcept nogil:
    """Highest win probability against a uniformly random opponent (expectimax);
    with ``safe``, only among moves that keep the game-theoretic value >= draw."""
    cdef int e, n, k, c
    cdef double best = -1.0, v, tot = 0.0
    if s.status:
        return 1.0 if s.status == me + 1 else 0.0
    e = ttt_empty_mask(s)
    n = ttt_popcount9[e]
    for k in range(n):
        c = ttt_kth_cell[e][k]
        ttt_make(s, c)
        if s.to_move != me:      # it was the agent's move
            if not safe or _value[s.index] <= 0:
                v = _best_vs_random(s, me, safe)
                if v > best:
                    best = v
        else:
            tot += _best_vs_random(s, me, safe)
        ttt_unmake(s, c, 0)
    if s.to_move == me:
        return best
    return tot / n


def best_vs_random(int me, bint never_lose):
    """The highest exact win rate any agent on side ``me`` can reach against a
    uniformly random opponent (``never_lose``: among agents that never lose)."""
    cdef TTTState s
    ttt_reset(&s)
    return _best_vs_random(&s, me, never_lose)


cdef _check(double[:, ::1] q):
    if q.shape[0] != TTT_STATES or q.shape[1] != 9:
        raise ValueError(f"Q must have shape ({TTT_STATES}, 9), got ({q.shape[0]}, {q.shape[1]})")
