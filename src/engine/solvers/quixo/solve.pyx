# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Exact retrograde solver for small Quixo boards (3x3 fast, 4x4 in minutes).

Positions are stored from the side to move: ``me`` and ``opp`` masks, index
``T3[me] + 2 * T3[opp]`` (base 3, one digit per cell: 0 blank, 1 mine,
2 the opponent's), so 3**9 = 19,683 slots for 3x3 and 3**16 = 43,046,721 for
4x4 (4 bytes each).  Slots where a side already has a full line are terminal
(nobody is to move there) and marked invalid.

Algorithm (classic retrograde analysis with move counters):

1. One pass over every position: count the moves that do NOT lose at once
   (a move completing an opponent line loses, even together with an own line);
   a move completing only an own line wins at once (WIN, distance 1); no
   non-losing move at all is a LOSS in 1.
2. Level by level (distance t = 1, 2, ...), for every position resolved at
   distance t, generate its PREDECESSORS by un-pushing: the opponent's cube
   must be at the insertion end; take it out, slide the segment back and put
   the cube back where it came from as blank OR as the opponent's (both were
   legal origins).  A predecessor of a LOSS is a WIN at t + 1; a predecessor
   of a WIN loses one counter, and at zero it is a LOSS at t + 1.
3. Whatever is never resolved is a DRAW: from there neither side can force a
   line, play can cycle forever (no move cap in the solver: the cap is a
   tournament device, not part of the game's value).

Distances are plies to the end under optimal play (fastest win, slowest loss).
"""
from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t, int64_t
from libc.stdlib cimport malloc, calloc, free
from ttt_engine._core.games.quixo.rules cimport (
    qx_nall, qx_src, qx_seg, qx_keep, qx_dest, qx_shl, qx_shr, qx_full, qx_code,
    quixo_line_flags, quixo_move_outcomes, quixo_init_tables,
)
from ttt_engine._core.games.quixo.board cimport Board
from ttt_engine._core.core.interrupt cimport (
    interrupt_t, interrupt_init, interrupt_poll, interrupt_finish,
)
import time as _time

from ttt_engine._util import game_over as _over

quixo_init_tables()

cdef enum:
    V_UNKNOWN = 0
    V_WIN = 1
    V_LOSS = 2
    V_INVALID = 3


cdef class Solution:
    """Values of every position of an n x n board (side to move's view).

    ``value(board)`` -> ``("win" | "loss" | "draw", plies_to_end or None)``.
    Attributes: ``size``, ``start`` (value of the empty board, X to move),
    ``start_plies``, ``wins``, ``losses``, ``draws``, ``terminal`` (slots with a
    full line), ``positions`` (non-terminal positions), ``seconds``, ``levels``.
    """
    cdef uint8_t* val
    cdef uint16_t* dist
    cdef uint8_t* cnt
    cdef uint32_t* t3
    cdef readonly int size
    cdef readonly int64_t slots, wins, losses, draws, terminal, positions
    cdef readonly double seconds
    cdef readonly int levels

    def __dealloc__(self):
        free(self.val)
        free(self.dist)
        free(self.cnt)
        free(self.t3)

    cdef inline int64_t index(self, uint32_t me, uint32_t opp) noexcept nogil:
        return <int64_t>self.t3[me] + 2 * <int64_t>self.t3[opp]

    cdef tuple answer(self, int64_t i):
        """``value`` of slot ``i``; ``(None, None)`` when it is no position."""
        cdef uint8_t v = self.val[i]
        if v == V_WIN:
            return ("win", int(self.dist[i]))
        if v == V_LOSS:
            return ("loss", int(self.dist[i]))
        if v == V_UNKNOWN:
            return ("draw", None)
        return (None, None)

    def value(self, Board board):
        """(``"win"``/``"loss"``/``"draw"`` for the side to move, plies to the end
        under optimal play or None for a draw).  ``ValueError`` if the game on
        ``board`` is already over or the size differs."""
        if board.state.n != self.size:
            raise ValueError(f"solution is for {self.size}x{self.size}, board is {board.state.n}x{board.state.n}")
        if board.state.status:
            raise ValueError(f"the game is over ({_over(board.winner)})")
        cdef int p = board.state.to_move
        answer = self.answer(self.index(board.state.bb[p], board.state.bb[p ^ 1]))
        if answer[0] is None:
            raise ValueError("terminal position")
        return answer

    def value_of(self, uint32_t me, uint32_t opp):
        """``value`` of the position given as masks from the side to move
        (``me``, the opponent's ``opp``); ``(None, None)`` when a line is on
        the board (no position)."""
        cdef uint32_t full = qx_full[self.size]
        if (me | opp) & ~full or me & opp:
            raise ValueError("masks out of the board or overlapping")
        return self.answer(self.index(me, opp))

    @property
    def start(self):
        """Value of the empty board for the first player (X)."""
        return self.value(Board(self.size))[0]

    @property
    def start_plies(self):
        return self.value(Board(self.size))[1]

    def summary(self):
        """Dict of the headline numbers."""
        v, d = self.value(Board(self.size))
        return {"size": self.size, "start": v, "start_plies": d, "positions": self.positions,
                "wins": self.wins, "losses": self.losses, "draws": self.draws,
                "terminal": self.terminal, "slots": self.slots, "levels": self.levels,
                "seconds": self.seconds}


cdef int _solve(Solution S, int n, interrupt_t* it) noexcept nogil:
    """Retrograde analysis; 0 when done, -1 if it does not converge, -2 when
    ``it`` reports an interrupt."""
    cdef int N = n * n, k, nall = qx_nall[n], c, t, changed
    cdef uint32_t full = qx_full[n], me, opp, comp, sub, m2, o2, nm, no, segp, seg, src
    cdef int64_t i, j, slots = S.slots
    cdef uint8_t* val = S.val
    cdef uint16_t* dist = S.dist
    cdef uint8_t* cnt = S.cnt
    cdef uint32_t* t3 = S.t3
    cdef int nonlosing
    cdef uint16_t dme[6561]
    cdef uint16_t dop[6561]
    # T3 table
    for me in range(full + 1):
        t3[me] = 0
        j = 1
        for c in range(N):
            if (me >> c) & 1:
                t3[me] += <uint32_t>j
            j *= 3
    # 1. initial pass over every disjoint (me, opp) pair
    me = 0
    while True:
        comp = full & ~me
        sub = comp
        while True:
            opp = sub
            i = <int64_t>t3[me] + 2 * <int64_t>t3[opp]
            if quixo_line_flags(me, opp, n):
                val[i] = V_INVALID
                S.terminal += 1
            else:
                nonlosing = quixo_move_outcomes(me, opp, n)
                if nonlosing <= 0:
                    val[i] = V_WIN if nonlosing < 0 else V_LOSS
                    dist[i] = 1
                else:
                    cnt[i] = <uint8_t>nonlosing
            if sub == 0:
                break
            sub = (sub - 1) & comp
        if me == full:
            break
        me += 1
        if interrupt_poll(it):
            return -2
    # 2. level-by-level predecessor propagation (linear scans of the arrays;
    #    a slot index decodes to (me, opp) by two 8-digit lookup tables)
    for i in range(6561):
        j = i
        m2 = 0
        o2 = 0
        for c in range(8):
            if j % 3 == 1:
                m2 |= 1u << c
            elif j % 3 == 2:
                o2 |= 1u << c
            j //= 3
        dme[i] = <uint16_t>m2
        dop[i] = <uint16_t>o2
    t = 1
    while True:
        changed = 0
        for i in range(slots):
            if (i & 4095) == 0 and interrupt_poll(it):
                return -2
            if dist[i] != t or (val[i] != V_WIN and val[i] != V_LOSS):
                continue
            me = dme[i % 6561] | (<uint32_t>dme[i // 6561] << 8)
            opp = dop[i % 6561] | (<uint32_t>dop[i // 6561] << 8)
            # predecessors: the opponent (mover) pushed a cube to dest
            for k in range(nall):
                if not (qx_dest[n][k] & opp):
                    continue
                seg = qx_seg[n][k]
                src = qx_src[n][k]
                segp = ((seg << qx_shl[n][k]) >> qx_shr[n][k])
                # new = (old & seg) << shl >> shr  =>  old & seg = (new & segp) << shr >> shl
                nm = (opp & qx_keep[n][k]) | (((opp & segp) << qx_shr[n][k]) >> qx_shl[n][k])
                no = (me & qx_keep[n][k]) | (((me & segp) << qx_shr[n][k]) >> qx_shl[n][k])
                for c in range(2):        # origin cube was blank, or the mover's
                    m2 = nm | (src if c else 0)
                    j = <int64_t>t3[m2] + 2 * <int64_t>t3[no]
                    if val[j] != V_UNKNOWN:
                        continue
                    if val[i] == V_LOSS:
                        val[j] = V_WIN
                        dist[j] = t + 1
                        changed = 1
                    else:
                        cnt[j] -= 1
                        if cnt[j] == 0:
                            val[j] = V_LOSS
                            dist[j] = t + 1
                            changed = 1
        if not changed:
            break
        t += 1
        if t >= 65000:
            return -1
    S.levels = t
    for i in range(slots):
        if val[i] == V_WIN:
            S.wins += 1
        elif val[i] == V_LOSS:
            S.losses += 1
    return 0


def solve(int size=3):
    """Solve the ``size`` x ``size`` board (3 or 4) exactly; returns a ``Solution``.
    4x4 needs ~170 MB and minutes; 5x5 (3**25 slots) is out of reach here."""
    if size not in (3, 4):
        raise ValueError(f"size must be 3 or 4 (5x5 has 3**25 positions), got {size}")
    cdef Solution S = Solution.__new__(Solution)
    cdef int64_t slots = 1
    for _ in range(size * size):
        slots *= 3
    S.size = size
    S.slots = slots
    S.val = <uint8_t*>calloc(slots, 1)
    S.dist = <uint16_t*>calloc(slots, 2)
    S.cnt = <uint8_t*>calloc(slots, 1)
    S.t3 = <uint32_t*>malloc((1 << (size * size)) * sizeof(uint32_t))
    if S.val == NULL or S.dist == NULL or S.cnt == NULL or S.t3 == NULL:
        raise MemoryError(f"not enough memory to solve {size}x{size}")
    cdef int rc
    cdef interrupt_t it
    t0 = _time.perf_counter()
    interrupt_init(&it, 1, NULL)
    with nogil:
        rc = _solve(S, size, &it)
    interrupt_finish(&it)
    if rc != 0:
        raise RuntimeError("retrograde analysis did not converge")
    S.seconds = _time.perf_counter() - t0
    # every slot that is a disjoint pair: 3**N; terminal marked; rest positions
    S.positions = slots - S.terminal
    S.draws = S.positions - S.wins - S.losses
    return S
