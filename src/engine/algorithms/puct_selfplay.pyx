# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Self-play on a ``PUCTForest`` (puct.pyx): the games' records and moves.

``forest_advance`` records each root whose search reached its budget (its
planes and visit distribution), plays a move (sampled in proportion to the
visits for the first ``temperature_moves`` plies, then the most visited),
keeps the chosen subtree and stirs Dirichlet noise into the next root's
priors.  ``forest_selfplay_network`` runs the gather / forward pass / backup /
advance steps with the attached network in C without the GIL.

Gumbel root search (``forest_set_gumbel``): each move's search starts from an
empty tree, samples root actions by Gumbel-top-k, shares the simulations
among them by sequential halving and records the improved policy; the exact
rules are in docs/puct.md.

Playout-cap randomisation (``PlayoutCap``, KataGo's): each move's search is
full (the budget) with a seeded probability, else cheap (``cheap``
simulations, no root noise); every root is recorded, with a flag saying
whether its search was full, and only those become training targets.
"""
from libc.stdint cimport int8_t, uint8_t, int32_t, uint32_t, int64_t, uint64_t
from libc.string cimport memset
from libc.stdlib cimport malloc, free

from ttt_engine._core.core.clock cimport now_monotonic
from ttt_engine._core.core.hashing cimport mix64
from ttt_engine._core.core.interrupt cimport (
    interrupt_t, interrupt_init, interrupt_poll, interrupt_finish,
)
from ttt_engine._core.algorithms.game cimport (
    GameState, GameBoard, MAX_MOVES, GAME_ONGOING, game_to_move, game_make, game_status,
    game_init_tables,
)
from ttt_engine._core.algorithms.game_actions cimport game_move_to_action, game_write_planes
from ttt_engine._core.algorithms.nodes cimport PNode
from ttt_engine._core.algorithms.network cimport NetScratch, net_forward, net_scratch_bind
from ttt_engine._core.algorithms.puct_tree cimport (
    PTree, tree_clear, choose_move, GumbelParams, gumbel_choose,
)
from ttt_engine._core.algorithms.puct cimport (
    PUCTForest, advance_root, gather_all, backup_all,
)

import numpy as np

game_init_tables()   # every game's lookup tables (static in each module)


def forest_set_gumbel(PUCTForest f, int k, int64_t budget, double c_visit=50.0,
                      double c_scale=1.0):
    """Self-play with Gumbel root search (Danihelka et al., 2022): each
    move's search starts from an empty tree, samples ``k`` root actions
    by Gumbel-top-k, shares the root's ``budget`` - 1 child visits among
    them by sequential halving, plays the best and records the improved
    policy (``forest_advance``).  No Dirichlet noise; validated by the
    Python layer (k >= 1, budget >= 1, n trees of one lane)."""
    cdef int n = <int>max(budget - 1, 1), m, i, j, log2m, extra, considered, length
    cdef int32_t* table
    cdef int32_t visits[MAX_MOVES]
    k = min(k, MAX_MOVES)
    table = <int32_t*>malloc(<size_t>(k + 1) * n * sizeof(int32_t))
    if f.gumbel_g == NULL:
        f.gumbel_g = <double*>malloc(<size_t>f.n * MAX_MOVES * sizeof(double))
    if table == NULL or f.gumbel_g == NULL:
        free(table)
        raise MemoryError()
    # row m: sequential halving over m actions, ceil(log2 m) phases; a
    # phase gives each of the actions left max(1, n / (phases * left))
    # more visits, then keeps the better half (at least 2)
    for m in range(k + 1):
        length = 0
        if m <= 1:
            while length < n:
                table[m * n + length] = length
                length += 1
            continue
        log2m = 0
        while (1 << log2m) < m:
            log2m += 1
        memset(visits, 0, sizeof(visits))
        considered = m
        while length < n:
            extra = max(1, n // (log2m * considered))
            for j in range(extra):
                for i in range(considered):
                    if length < n:
                        table[m * n + length] = visits[i]
                        length += 1
                    visits[i] += 1
            considered = max(2, considered // 2)
    free(f.gumbel_table)
    f.gumbel_table = table
    f.gp = GumbelParams(k=k, c_visit=c_visit, c_scale=c_scale, n=n, table=table)
    f.gumbel = True
    f.p.alpha = 0.0

def forest_gumbel_schedule(PUCTForest f, int m):
    """The visit count each of ``m`` considered actions has reached
    before each root simulation (a copy of the table's row)."""
    if not f.gumbel or not 0 <= m <= f.gp.k:
        raise ValueError(f"no Gumbel schedule for {m} actions")
    return [int(f.gumbel_table[m * f.gp.n + j]) for j in range(f.gp.n)]


cdef struct CapState:
    uint64_t seed
    uint64_t threshold      # a search is full when its draw is below this
    int64_t cheap           # simulations of a cheap search
    int32_t* game           # per tree: the id of the game it plays
    uint8_t* full           # per tree: its current search is full
    uint8_t* rec_full       # per record (tree * max_record + ply): made by a full search


cdef inline bint cap_full(const CapState* c, int32_t game, int32_t ply) noexcept nogil:
    """The seeded draw of (game, ply): True for a full search, with
    probability threshold / 2**64."""
    # the salt keeps the draws apart from the forest's own streams of the same seed
    return mix64(mix64(c.seed ^ <uint64_t>0x5D6F1A2B3C4E8F97ULL)
                 + ((<uint64_t><uint32_t>game << 32) | <uint32_t>ply)) < c.threshold


cdef inline void cap_start(CapState* c, PUCTForest f, int i, int64_t budget) noexcept nogil:
    """Tree ``i`` starts a move's search: draw full or cheap.  A cheap search
    starts with ``budget - cheap`` simulations counted as done, so the
    searches' common budget stops it after ``cheap``; it plays for strength,
    without root noise (as KataGo's)."""
    c.full[i] = cap_full(c, c.game[i], f.ply[i])
    if not c.full[i]:
        f.done[i] = budget - c.cheap
        f.noise_due[i] = 0


cdef class PlayoutCap:
    """Playout-cap randomisation on a forest's self-play: a move's search is
    full with probability ``share`` (drawn from ``seed``, the game's id and
    the ply: ``cap_full``), else ``cheap`` simulations.  ``rec_full[tree,
    r]``: record ``r`` of the tree's game was made by a full search.
    Validated by the Python layer (0 < share < 1, 1 <= cheap < budget, no
    Gumbel root search)."""
    cdef CapState c
    cdef readonly object rec_full       # uint8 [n, max_record]
    cdef object _game, _full
    cdef readonly int64_t cheap

    def __cinit__(self, PUCTForest f, double share, int64_t cheap, uint64_t seed):
        cdef int32_t[::1] game
        cdef uint8_t[::1] full
        cdef uint8_t[:, ::1] rec
        self._game = np.full(f.n, -1, dtype=np.int32)
        self._full = np.ones(f.n, dtype=np.uint8)
        self.rec_full = np.zeros((f.n, f.max_record), dtype=np.uint8)
        game, full, rec = self._game, self._full, self.rec_full
        self.cheap = cheap
        self.c = CapState(seed=seed, threshold=<uint64_t>int(share * 2.0 ** 64), cheap=cheap,
                          game=&game[0], full=&full[0], rec_full=&rec[0, 0])

    def start(self, PUCTForest f, int slot, int game, int64_t budget):
        """Tree ``slot`` (just given its root by ``forest_set_root``) plays
        game ``game``: draw its first search."""
        if not 0 <= slot < f.n:
            raise ValueError(f"tree {slot} of a forest of {f.n}")
        self.c.game[slot] = game
        cap_start(&self.c, f, slot, budget)


def playout_cap_full(uint64_t seed, double share, int game, int ply):
    """The draw of ``PlayoutCap(seed, share)`` for ``ply`` of game ``game``:
    True for a full search (for tests)."""
    cdef CapState c
    c.seed = seed
    c.threshold = <uint64_t>int(share * 2.0 ** 64)
    return bool(cap_full(&c, game, ply))


cdef int _advance_all(GameState* proto, PUCTForest f, int64_t budget,
                      int temperature_moves, CapState* cap) noexcept nogil:
    """Self-play: every active tree whose search reached ``budget`` records its
    root, plays a move and keeps that subtree; with ``cap`` (not NULL) each
    record is flagged full or cheap and the next search drawn.  Returns how
    many games ended."""
    cdef GameState* roots = <GameState*>f.roots
    cdef int i, move, r, a, ended = 0
    cdef int32_t k
    cdef PTree* t
    cdef PNode* root
    cdef int64_t total
    cdef float* pol = NULL
    cdef size_t row
    cdef int actions[MAX_MOVES]
    for i in range(f.n):
        if not f.active[i] or f.done[i] < budget:
            continue
        t = &f.trees[i]
        root = &t.nodes[0]
        r = f.nrec[i]
        if r < f.max_record:
            row = <size_t>i * f.max_record + r
            game_write_planes(&roots[i], f.rec_obs_p + row * f.obs_size,
                              f.rec_mask_p + row * f.num_actions)
            f.rec_player[row] = <int8_t>game_to_move(&roots[i])
            if cap != NULL:
                cap.rec_full[row] = cap.full[i]
            pol = f.rec_policy_p + row * f.num_actions
            memset(pol, 0, f.num_actions * sizeof(float))
            total = 0
            for k in range(root.first_child, root.first_child + root.nchildren):
                total += t.nodes[k].visits
            if f.gumbel:
                pass                # the improved policy, written below
            elif total > 0:
                for k in range(root.first_child, root.first_child + root.nchildren):
                    a = game_move_to_action(&roots[i], t.nodes[k].move)
                    pol[a] = <float>(<double>t.nodes[k].visits / <double>total)
            f.nrec[i] = r + 1
        else:
            pol = NULL
        if f.gumbel and root.first_child >= 0:
            for k in range(root.nchildren):
                actions[k] = game_move_to_action(&roots[i], t.nodes[root.first_child + k].move)
            move = t.nodes[gumbel_choose(t.nodes, root, &f.gp, f.gumbel_g + <size_t>i * MAX_MOVES,
                                         pol, actions)].move
        else:
            move = choose_move(t, f.ply[i] < temperature_moves, &f.rngs[i])
        game_make(&roots[i], move)
        f.ply[i] += 1
        if f.gumbel:
            tree_clear(t)           # sequential halving starts from an empty root
        else:
            advance_root(t, move)
        f.done[i] = 0
        f.noise_due[i] = f.gumbel or f.p.alpha > 0.0
        if game_status(&roots[i]) != GAME_ONGOING:
            f.active[i] = 0
            ended += 1
        elif cap != NULL:
            cap_start(cap, f, i, budget)
    return ended


cdef inline CapState* _cap_state(PlayoutCap cap):
    return &cap.c if cap is not None else NULL


def forest_advance(PUCTForest f, GameBoard proto, int64_t budget, int temperature_moves,
                   PlayoutCap cap=None):
    """See ``_advance_all``; returns how many games ended."""
    cdef int ended
    cdef CapState* c = _cap_state(cap)
    with nogil:
        ended = _advance_all(&proto.state, f, budget, temperature_moves, c)
    return ended


cdef int _selfplay_network(GameState* proto, PUCTForest f, int64_t budget,
                           int temperature_moves, CapState* cap, interrupt_t* it,
                           int64_t* calls, int64_t* evaluations,
                           double* net_seconds) noexcept nogil:
    """Self-play steps -- gather one batch over the trees, evaluate it with
    the attached network, back it up, advance the trees at their budget --
    the very steps of the Python loop, until a game ends (returns how many)
    or an interrupt (0); -1 if the network gave a non-finite output."""
    cdef NetScratch s
    cdef int got, ended
    cdef double t0
    net_scratch_bind(&s, f.net, f.net_floats, f.net_ints)
    while True:
        gather_all(proto, f, budget, 0)
        got = f.lane_leaves[0]
        if got:
            t0 = now_monotonic()
            if not net_forward(f.net, f.obs_p, got, f.net_logits, f.net_values, &s):
                return -1
            net_seconds[0] += now_monotonic() - t0
            backup_all(proto, f, f.net_logits, f.net_values, False, 0)
            calls[0] += 1
            evaluations[0] += got
        ended = _advance_all(proto, f, budget, temperature_moves, cap)
        if ended:
            return ended
        if interrupt_poll(it):
            return 0


def forest_selfplay_network(PUCTForest f, GameBoard proto, int64_t budget,
                            int temperature_moves, PlayoutCap cap=None):
    """Self-play with the attached network in C without the GIL until at
    least one game ends (``_selfplay_network``).  Returns ``(games ended,
    evaluator calls, evaluations, network seconds)``; ``ValueError`` if the
    network gave NaN or infinite outputs (leaves are left pending),
    ``KeyboardInterrupt`` on Ctrl-C."""
    cdef interrupt_t it
    cdef int ended
    cdef int64_t calls = 0, evaluations = 0
    cdef double seconds = 0.0
    cdef CapState* c = _cap_state(cap)
    if f.net == NULL:
        raise ValueError("no network attached to this forest (attach_network)")
    if f.lanes != 1:
        raise ValueError(f"self-play runs on one lane, this forest has {f.lanes}")
    interrupt_init(&it, 1, NULL)
    with nogil:
        ended = _selfplay_network(&proto.state, f, budget, temperature_moves, c, &it, &calls,
                                  &evaluations, &seconds)
    interrupt_finish(&it)
    if ended < 0:
        raise ValueError("the network returned NaN or infinite logits or values")
    return ended, calls, evaluations, seconds
