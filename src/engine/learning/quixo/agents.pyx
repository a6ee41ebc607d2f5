# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Quixo agents: ``RandomAgent``, ``GreedyValueAgent`` (epsilon-greedy on a
``ValueTable``) and ``HeuristicAgent`` (one ply, line-count evaluation).

Each is a C policy (``agent_choose``) the tournament runner
(``tournament``) calls under ``nogil``, and a Python agent on the
library's protocol: ``select_move(board)``, ``name``, ``reset(seed=None)``;
picklable from its constructor arguments (the greedy agent with its table).
"""
from libc.stdint cimport uint64_t, uint32_t, int64_t
from libc.string cimport memset

cdef extern from *:
    """
    #if defined(__GNUC__) || defined(__clang__)
    #define qx_prefetch(p) __builtin_prefetch((const void*)(p))
    #else
    #define qx_prefetch(p) ((void)0)
    #endif
    """
    void qx_prefetch(const void* p) nogil

from ttt_engine._core.core.rng cimport rng_t, rng_seed, rng_below, rng_uniform
from ttt_engine._core.games.quixo.rules cimport (
    QuixoState, quixo_make_index, quixo_random_index, quixo_mover_key, quixo_mix64,
    quixo_evaluate, quixo_init_tables, qx_nall, qx_src, qx_code, QX_MAX_MOVES, )
from ttt_engine._core.games.quixo.board cimport Board
from ttt_engine._core.learning.quixo.values cimport VTab, ValueTable, vt_key, vt_find

from ttt_engine._util import check_bool, check_real, resolve_seed, game_over as _over

quixo_init_tables()

AGENT_KINDS = {"random": AGENT_RANDOM, "greedy": AGENT_GREEDY, "heuristic": AGENT_HEURISTIC}


# ---------------------------------------------------------------------- agents
def _no_budget(cls_name, simulations, time, depth):
    for key, value in (("simulations", simulations), ("time", time), ("depth", depth)):
        if value is not None:
            raise ValueError(f"{cls_name} plays without a search budget: {key} does not "
                             f"apply (pass None), got {value!r}")


cdef class Agent:
    """A Quixo agent the C tournament can run: ``RandomAgent()``,
    ``GreedyValueAgent(values, epsilon=0.1, unknown=0.5)``, ``HeuristicAgent()``.

    Agent protocol: ``select_move(board)`` plays it from Python too (one
    seeded generator per agent), ``name``, ``reset(seed=None)``.  ``seed``:
    the resolved seed of that generator (``seed=None`` at construction draws
    a fresh one).  Pickling restores an agent as constructed (its generator
    restarts from ``seed``)."""

    def __cinit__(self, *args, **kwargs):
        memset(&self.spec, 0, sizeof(AgentSpec))
        rng_seed(&self.rng, 0)
        self.seed = 0

    cdef _seed(self, seed):
        self.seed = resolve_seed(seed)
        rng_seed(&self.rng, <uint64_t>self.seed)

    cdef _init_plain(self, int kind, str name, seed, simulations, time, depth):
        """Set up an agent without a value table (random, heuristic)."""
        _no_budget(type(self).__name__, simulations, time, depth)
        self.spec.kind = kind
        self.name = name
        self._seed(seed)

    def __reduce__(self):
        return (type(self), (self.seed,))

    @property
    def game(self):
        """``"quixo"``: the game these agents play, made by the registry or not."""
        return "quixo"

    def reset(self, seed=None):
        """Agent protocol: nothing to forget between games; with ``seed``,
        restart ``select_move``'s generator from it (``run_games`` uses its
        own seeded generator instead)."""
        if seed is not None:
            self._seed(seed)

    def select_move(self, board):
        """Move code this agent plays in ``board`` (the game must be on)."""
        if not isinstance(board, Board):
            from ttt_engine._util import check_board
            check_board(board, Board, self.name)
        cdef Board b = <Board>board
        if b.state.status:
            raise ValueError(f"the game is over ({_over(b.winner)}): there is no move to select")
        if self.spec.kind == AGENT_GREEDY and self.spec.table.n != b.state.n:
            raise ValueError(f"{self.name} has values for {self.spec.table.n}x{self.spec.table.n} "
                             f"boards, not {b.state.n}x{b.state.n}")
        return qx_code[b.state.n][agent_choose(&self.spec, &b.state, &self.rng)]

    def __repr__(self):
        return self.name


cdef class RandomAgent(Agent):
    """Uniformly random legal moves.  ``seed``: see :class:`Agent`; the
    budget keywords ``simulations``/``time``/``depth`` do not apply (None)."""
    def __init__(self, seed=None, *, simulations=None, time=None, depth=None):
        self._init_plain(AGENT_RANDOM, "random", seed, simulations, time, depth)


cdef class HeuristicAgent(Agent):
    """One ply: take a win if there is one, never a losing move when avoidable,
    else the move with the best line-count evaluation (random tie break).
    ``seed`` and budget keywords as :class:`RandomAgent`."""
    def __init__(self, seed=None, *, simulations=None, time=None, depth=None):
        self._init_plain(AGENT_HEURISTIC, "heuristic", seed, simulations, time, depth)


cdef class GreedyValueAgent(Agent):
    """The epsilon-greedy value agent: with probability ``epsilon`` a random
    move, else the move whose resulting state (seen from the mover) has the
    highest average score in ``values``; unseen states count ``unknown``
    (a finite number in [0, 1], the range of every score).
    Ties are broken uniformly at random.  A move that ends the game is scored
    by its true result (1 win, 0 loss, ``draw_score`` 0.5 for the cap: the
    definition of a final state's score) unless
    ``exact_terminal=False``, which looks it up in the table like every other
    state (the literal seed; it then hardly beats random, see docs/quixo.md).

    ``values``: a ``ValueTable`` (required).  ``seed`` and budget keywords as
    :class:`RandomAgent`.  ``save(path)`` / ``GreedyValueAgent.load(path)``
    keep the agent with its table in one binary file (see docs/agents.md);
    pickling carries the table too."""
    cdef readonly double epsilon, unknown    # also in ``spec``, read by the C chooser
    cdef readonly bint exact_terminal

    def __init__(self, values, epsilon=0.1, unknown=0.5, exact_terminal=True, seed=None, *,
                 simulations=None, time=None, depth=None):
        if not isinstance(values, ValueTable):
            raise ValueError("values must be a quixo.ValueTable (state values from "
                             "quixo.collect_values or quixo.load_values), got "
                             f"{type(values).__name__}")
        epsilon = check_real("epsilon", epsilon, low=0, high=1)
        unknown = check_real("unknown", unknown, low=0, high=1)
        exact_terminal = check_bool("exact_terminal", exact_terminal)
        _no_budget("GreedyValueAgent", simulations, time, depth)
        self.epsilon, self.unknown, self.exact_terminal = epsilon, unknown, exact_terminal
        self.spec.kind = AGENT_GREEDY
        self.spec.epsilon, self.spec.unknown = epsilon, unknown
        self.spec.exact_terminal = self.exact_terminal
        self.spec.table = &(<ValueTable>values).t
        self._ref = values
        self.name = f"greedy(eps={epsilon:g})"
        self._seed(seed)

    @property
    def values(self):
        """The agent's ``ValueTable`` (shared, not copied)."""
        return self._ref

    def __reduce__(self):
        return (type(self), (self._ref, self.epsilon, self.unknown, self.exact_terminal,
                             self.seed))


cdef int agent_choose(const AgentSpec* a, const QuixoState* s, rng_t* rng) noexcept nogil:
    """Shape index (into the size tables) the agent plays; game must be on.

    The greedy agent first makes every child and prefetches its table slot,
    then looks the values up: the ~40 independent cache misses overlap."""
    cdef int n = s.n, k, i, cnt = 0, best = -1, nties = 0, p = s.to_move
    cdef uint32_t opp = s.bb[p ^ 1]
    cdef QuixoState c
    cdef double v, bestv = -1e300
    cdef int64_t d
    cdef int ks[QX_MAX_MOVES]
    cdef int st[QX_MAX_MOVES]
    cdef uint64_t keys[QX_MAX_MOVES]
    cdef uint64_t slot
    if a.kind == AGENT_RANDOM or (a.kind == AGENT_GREEDY and a.epsilon > 0.0
                                  and rng_uniform(rng) < a.epsilon):
        return quixo_random_index(s, rng)
    if a.kind == AGENT_GREEDY:
        for k in range(qx_nall[n]):
            if qx_src[n][k] & opp:
                continue
            c = s[0]
            quixo_make_index(&c, k)
            ks[cnt] = k
            st[cnt] = c.status
            keys[cnt] = vt_key(a.table, quixo_mover_key(&c))
            slot = quixo_mix64(keys[cnt]) & a.table.slot_mask
            qx_prefetch(&a.table.slot_keys[slot])
            qx_prefetch(&a.table.slots[slot])
            cnt += 1
    for i in range(cnt if a.kind == AGENT_GREEDY else qx_nall[n]):
        if a.kind == AGENT_GREEDY:
            k = ks[i]
            if a.exact_terminal and st[i]:
                v = 1.0 if st[i] == p + 1 else (0.0 if st[i] != 3 else 0.5)
            else:
                d = vt_find(a.table, keys[i])
                v = a.unknown if d < 0 else a.table.sums[d] / a.table.counts[d]
        else:
            k = i
            if qx_src[n][k] & opp:
                continue
            c = s[0]
            quixo_make_index(&c, k)
            if c.status == p + 1:
                v = 1e9
            elif c.status == 3:
                v = 0.0
            elif c.status:
                v = -1e9
            else:
                v = -quixo_evaluate(&c, 0)
        if v > bestv:
            bestv = v
            best = k
            nties = 1
        elif v == bestv:
            nties += 1
            if rng_below(rng, nties) == 0:
                best = k
    return best


