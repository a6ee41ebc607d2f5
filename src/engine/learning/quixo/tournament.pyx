# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Quixo tournaments in C: ``run_games`` plays N games between two agents
(``agents``), fixed or alternating sides, entirely under ``nogil``;
counts X/O/agent wins, draws by the move cap and game lengths; optionally
collects every state's discounted score into a ``ValueTable``
(``values``): with a game of N states (N - 1 moves, state 0 = empty
board), state i scores ``reward * gamma**(N - 1 - i)``, reward 1.0 if the
player who moved into it won, 0.0 if it lost, ``draw_score`` for a draw by
the move cap.  ``random_games_per_second``: the bare random playout loop.
"""
from libc.stdint cimport uint64_t, int64_t
from libc.stdlib cimport malloc, free
from libc.string cimport memset
from ttt_engine._core.core.rng cimport rng_t, rng_seed
from ttt_engine._core.games.quixo.rules cimport (
    QuixoState, quixo_reset, quixo_make_index, quixo_random_index, quixo_mover_key,
    quixo_init_tables, quixo_playout, QX_DEFAULT_MAX_PLIES,
)
from ttt_engine._core.learning.quixo.values cimport VTab, ValueTable, vt_key, vt_add, vt_make_room
from ttt_engine._core.learning.quixo.agents cimport Agent, AgentSpec, agent_choose, AGENT_RANDOM, AGENT_GREEDY
from ttt_engine._core.core.interrupt cimport (
    interrupt_t, interrupt_init, interrupt_poll, interrupt_finish,
)
import numpy as np
cimport numpy as cnp

cnp.import_array()
quixo_init_tables()


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
    interrupt (between games, or while the table grows before a game is
    scored: that game is then left out)."""
    cdef QuixoState s
    cdef int64_t g
    cdef int a_side, nst, i, k, winner, mover, rc
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
            rc = vt_make_room(table, <uint64_t>nst, it)
            if rc != 0:
                return rc
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
    (``quixo_playout``); returns (x_wins, o_wins, draws, plies).  Ctrl-C
    raises KeyboardInterrupt between games."""
    cdef rng_t rng
    cdef QuixoState s
    cdef int64_t g, xw = 0, ow = 0, dr = 0, plies = 0
    cdef int st
    cdef interrupt_t it
    rng_seed(&rng, <uint64_t>seed)
    interrupt_init(&it, 1, NULL)
    with nogil:
        for g in range(n_games):
            if interrupt_poll(&it):
                break
            quixo_reset(&s, size, max_plies)
            st = quixo_playout(&s, &rng)
            if st == 1:
                xw += 1
            elif st == 2:
                ow += 1
            else:
                dr += 1
            plies += s.ply
    interrupt_finish(&it)
    return xw, ow, dr, plies
