# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""PUCT, AlphaZero's tree search, written once for every game: a forest of
trees whose leaves are evaluated in batches.

A ``PUCTForest`` holds ``n`` independent trees (one per game being played),
each in its own slice of one preallocated node arena.  One round is

1. ``forest_gather``: in every active tree select up to ``k`` leaves, each
   selection counting the leaves already taken as pending losses (virtual
   loss), and write their observation planes and action masks into the
   forest's input buffers (no GIL);
2. the caller runs the evaluator once on all gathered leaves;
3. ``forest_backup``: expand every leaf with the softmax of its logits over
   the legal actions and back its value up the path (no GIL).

With ``expand_after`` = k > 0, a leaf below the root that has fewer than k
visits is not gathered: random playouts value it at once (no evaluator call,
no children), so only leaves visited again cost a network evaluation.

Selection picks the child maximising ``Q + c(s) * P * sqrt(N_s) / (1 + N)``
with ``Q = W / N`` (0 for an unvisited child) and ``c(s)`` either constant or
AlphaZero's schedule ``c_init + log((N_s + c_base + 1) / c_base)``; ties go to
the first child in move order.  Values are backed up negamax-style: a node's
``wsum`` is from the view of the player who moved into it (every game here
alternates strictly).  The exact rules are in docs/puct.md; the tests
replay them with an independent pure-Python search.

Tree parallelism: a forest of one tree made with ``lanes`` = L > 1 has L
sets of leaf buffers, and L threads may each run gather / evaluate / backup
on their own lane of the same tree at once.  Every change to the tree is
made under the forest's spin lock (core/spinlock.pxd); random playouts,
writing the planes and the evaluator run outside it, their leaves held by
virtual losses meanwhile.

The uniform evaluator (uniform priors, value from random playouts, or 0 with
no playouts) needs no Python: ``forest_native`` runs whole searches in C.
Neither does a network attached to the forest (``attach_network``, the
packed weights of ``ttt_engine.network.Network``): ``network_lane`` runs a
lane's gather / forward pass (``network.pxd``) / backup loop without the
GIL, with that lane's own buffers, so every thread of a tree-parallel search
evaluates at once (its Python entry, ``forest_run_network``, is
puct_network.pyx's).

Self-play and Gumbel root search are in puct_selfplay.pyx; what a tree says,
read without changing it (the root's children, the move to play, the
principal variations), in puct_lines.pyx; puct.pxd is the interface they use
(the forest's fields and the gather / backup steps).
"""
from libc.stdint cimport int8_t, uint8_t, int32_t, int64_t, uint64_t
from libc.stdlib cimport malloc, free
from cpython.pycapsule cimport PyCapsule_GetPointer
cimport numpy as cnp
import numpy as np

from ttt_engine._core.core.bigmem cimport big_alloc, big_free
from ttt_engine._core.core.clock cimport now_monotonic, deadline_after, deadline_passed
from ttt_engine._core.core.interrupt cimport (
    interrupt_t, interrupt_init, interrupt_poll, interrupt_finish,
)
from ttt_engine._core.core.rng cimport rng_t, rng_seed
from ttt_engine._core.core.spinlock cimport spin_lock, spin_unlock, spin_yield
from ttt_engine._core.algorithms.game cimport (
    GameState, GameBoard, MAX_MOVES, GAME_ONGOING, GAME_DRAW, GAME_WIN_FIRST,
    game_to_move, game_make, game_status, game_playout, game_init_tables, game_playout_decisive,
    game_legal_moves,
)
from ttt_engine._core.algorithms.mcts cimport PLAYOUT_DECISIVE
from ttt_engine._core.algorithms.game_actions cimport game_write_planes
from ttt_engine._core.algorithms.tree cimport tree_find, tree_root_child, tree_keep
from ttt_engine._core.algorithms.nodes cimport PNode
from ttt_engine._core.algorithms.network cimport (
    NetModel, NetScratch, net_forward, net_scratch_bind, net_scratch_floats, net_scratch_ints,
)
from ttt_engine._core.algorithms.puct_tree cimport (
    PParams, PTree, tree_clear, select_child, propagate_proof, terminal_value, backup, expand,
    leaf_priors, expand_with, add_noise, add_pending, GumbelParams, gumbel_select, gumbel_sample,
)

cnp.import_array()
game_init_tables()   # every game's lookup tables

MIN_NODES = 1 + MAX_MOVES      # the root can always be expanded


cdef inline void* _data(cnp.ndarray a):
    """The buffer of a freshly made (C-contiguous) array."""
    return cnp.PyArray_DATA(a)


cdef enum:
    YOUNG_BATCH = 16    # young leaves valued per release of the lock
    RNGS_PER_LINE = 2   # generators (32 bytes) in a cache line


cdef void value_young(PTree* t, const PParams* p, rng_t* rng, GameState* states,
                      int32_t* nodes, int count, int64_t* done,
                      int* lock) noexcept nogil:
    """Tree parallelism: the playouts of ``count`` pending young leaves
    without the lock (held on entry and on return), then their back-ups."""
    cdef double v[YOUNG_BATCH]
    cdef int j
    spin_unlock(lock)
    for j in range(count):
        v[j] = playout_value(&states[j], p.mix_playouts, p.playout_policy, rng, p)
    spin_lock(lock)
    for j in range(count):
        backup(t.nodes, nodes[j], v[j], True)
    done[0] += count


cdef int gather(const GameState* root, PTree* t, const PParams* p, rng_t* rng, int max_leaves,
                int64_t* done, int64_t budget, GameState* leaf_states, int32_t* leaf_nodes,
                int* lock, bint held, const GumbelParams* gp, const double* g) noexcept nogil:
    """Select up to ``max_leaves`` leaves to evaluate (pending on their paths);
    finished games reached are backed up at once and counted in ``done``, and
    so are leaves below the root with fewer than ``expand_after`` visits
    (valued by playouts alone).  Stops at a leaf already pending, or when ``done`` +
    pending reaches ``budget``.  Returns the number of leaves taken.

    With a ``lock`` (tree parallelism), the tree is touched only while it is
    held; young leaves wait pending, ``YOUNG_BATCH`` at a time, and their
    playouts run without it (one release per batch, not per leaf: less
    traffic on the lock's cache line).  ``held``: the caller holds it already
    (it is released at the end all the same).

    With ``gp`` (Gumbel root search), the root's child is chosen by
    sequential halving with the Gumbel noise ``g`` (puct_tree.pxd), the
    nodes below by the PUCT rule."""
    cdef int got = 0, status, tries = 0, young = 0, nyoung = 0
    cdef int32_t node, k
    cdef GameState work
    cdef double v
    cdef GameState young_states[YOUNG_BATCH]
    cdef int32_t young_nodes[YOUNG_BATCH]
    cdef int moves[MAX_MOVES]
    if lock != NULL and not held:
        spin_lock(lock)
    # a fully explored tree reaches only finished games: return now and then
    # so that the caller can look at its clock; the root's pending count
    # includes the leaves of every lane
    while (got < max_leaves and done[0] + t.nodes[0].pending < budget
           and tries < max_leaves + 4096):
        if p.solver and t.nodes[0].proven != 0:
            break               # the root is solved: nothing left to learn
        tries += 1
        work = root[0]
        node = 0
        if p.solver:
            # stop at a proven node: its result is backed up like a finished game's
            while t.nodes[node].first_child >= 0 and (node == 0 or t.nodes[node].proven == 0):
                k = select_child(t.nodes, &t.nodes[node], p, True)
                if k < 0:       # every move loses: won for the player who moved here
                    t.nodes[node].proven = 1
                    propagate_proof(t.nodes, node)
                    break
                node = k
                game_make(&work, t.nodes[node].move)
            if t.nodes[node].proven != 0:
                if node == 0:
                    break
                backup(t.nodes, node, -<double>t.nodes[node].proven, False)
                done[0] += 1
                continue
        else:
            while t.nodes[node].first_child >= 0:
                if node == 0 and gp != NULL:
                    node = gumbel_select(t.nodes, &t.nodes[0], gp, g)
                else:
                    node = select_child(t.nodes, &t.nodes[node], p, False)
                game_make(&work, t.nodes[node].move)
        status = game_status(&work)
        if status != GAME_ONGOING:
            v = terminal_value(&work, status, p)
            if p.solver and status != GAME_DRAW and node != 0:
                t.nodes[node].proven = -1 if v > 0.0 else 1
                propagate_proof(t.nodes, node)
            backup(t.nodes, node, v, False)
            done[0] += 1
            continue
        if (p.keep_leaf_values and node != 0 and t.nodes[node].visits > 0
                and t.used + MAX_MOVES > t.cap
                and t.used + game_legal_moves(&work, moves) > t.cap):
            # the arena cannot take this leaf's children and the evaluator
            # valued it before: called again it would give the same value;
            # its mean stands in (else every batch would shrink to the few
            # leaves the selection meets once, and threads would queue on the
            # lock for them)
            backup(t.nodes, node, -t.nodes[node].wsum / t.nodes[node].visits, False)
            done[0] += 1
            continue
        if t.nodes[node].pending > 0:
            break
        if node != 0 and (t.nodes[node].visits < p.expand_after
                          or (t.used + MAX_MOVES > t.cap and p.playout_weight >= 1.0
                              and p.mix_playouts > 0)):
            # a young leaf: random playouts value it without the evaluator
            # (the root always goes to the evaluator: its children are the moves);
            # so does any leaf once the arena cannot take its children when the
            # value is the playouts' alone: the evaluator's call would buy nothing
            if lock != NULL:
                add_pending(t.nodes, node)
                young_states[nyoung] = work
                young_nodes[nyoung] = node
                nyoung += 1
                if nyoung == YOUNG_BATCH:
                    value_young(t, p, rng, young_states, young_nodes, nyoung, done, lock)
                    nyoung = 0
            else:
                backup(t.nodes, node,
                       playout_value(&work, p.mix_playouts, p.playout_policy, rng, p), False)
                done[0] += 1
            young += 1
            if young >= 4 * max_leaves + 64:    # back to the caller's clock now and then
                break
            continue
        add_pending(t.nodes, node)
        leaf_states[got] = work
        leaf_nodes[got] = node
        got += 1
    if lock != NULL:
        if nyoung:
            value_young(t, p, rng, young_states, young_nodes, nyoung, done, lock)
        spin_unlock(lock)
    return got


cdef double playout_value(const GameState* s, int playouts, int policy,
                          rng_t* rng, const PParams* p) noexcept nogil:
    """Mean result of ``playouts`` games from ``s`` for its side to move, played
    uniformly at random or (``policy == PLAYOUT_DECISIVE``) with decisive moves
    (a draw worth ``p.draw_value`` of that side)."""
    cdef GameState work
    cdef int i, status, me = game_to_move(s)
    cdef double total = 0.0, draw = p.draw_value[me]
    if playouts <= 0:
        return 0.0
    for i in range(playouts):
        work = s[0]
        if policy == PLAYOUT_DECISIVE:
            status = game_playout_decisive(&work, rng)
        else:
            status = game_playout(&work, rng)
        if status != GAME_DRAW:
            total += 1.0 if status - GAME_WIN_FIRST == me else -1.0
        else:
            total += draw
    return total / playouts


cdef int64_t native_run(const GameState* root, PTree* t, const PParams* p, rng_t* rng,
                        int64_t* done, int64_t budget, double deadline,
                        interrupt_t* it, const GumbelParams* gp=NULL,
                        const double* g=NULL) noexcept nogil:
    """Simulate with the uniform evaluator until ``done`` reaches ``budget``,
    the clock reaches ``deadline`` (<= 0: none) or an interrupt; returns the
    simulations run."""
    cdef GameState leaf
    cdef int32_t node
    cdef int64_t start = done[0], n = 0
    while done[0] < budget:
        if deadline_passed(deadline, n) or interrupt_poll(it):
            break
        if p.solver and t.nodes[0].proven != 0:
            break
        n += 1
        if gather(root, t, p, rng, 1, done, budget, &leaf, &node, NULL, False, gp, g) == 0:
            continue
        expand(t, node, &leaf, NULL)
        backup(t.nodes, node, playout_value(&leaf, p.playouts, p.playout_policy, rng, p), True)
        done[0] += 1
    return done[0] - start


cdef void compact(PTree* t, int32_t new_root) noexcept nogil:
    """Keep the subtree under ``new_root`` (tree.pxd's ``tree_keep``); its
    root is the tree's root, reached by no move."""
    tree_keep(&t.nodes, &t.alt, &t.used, new_root)
    t.nodes[0].move = -1


cdef bint advance_root(PTree* t, int move) noexcept nogil:
    """Keep the subtree of the root's child reached by ``move`` (False and an
    empty tree if there is none)."""
    cdef int32_t k = tree_root_child(t.nodes, move)
    if k < 0:
        tree_clear(t)
        return False
    compact(t, k)
    return True


# ---------------------------------------------------------------- the forest
cdef class PUCTForest:
    """``n`` PUCT trees with their roots, leaf buffers and self-play records.

    Created and driven by ``ttt_engine.search.PUCT`` and
    ``ttt_engine.selfplay``, which keep it to one caller at a time; the
    ``forest_*`` functions do the work; its fields are declared in puct.pxd."""

    # The pointer fields start NULL (Cython zero-fills a new object), which
    # __dealloc__ relies on if __init__ fails half-way.

    def __init__(self, proto, int n, int k, int32_t cap, uint64_t seed, double c_puct,
                 double c_base, double c_init, double alpha, double noise_fraction, int playouts,
                 int max_record=0, int lanes=1):
        """Trees for ``n`` games like ``proto`` (a board of any game), ``k``
        leaves per tree and round, ``cap`` nodes per tree; ``lanes`` > 1 (one
        tree only): that many threads may search the tree at once, each on its
        own lane of leaf buffers.  Validated by the Python layer (n >= 1,
        k >= 1, cap >= MIN_NODES, lanes >= 1 and n == 1 if lanes > 1)."""
        cdef int i
        cdef size_t rows = <size_t>lanes * n * k
        self.n, self.k, self.cap, self.seed, self.lanes = n, k, cap, seed, lanes
        self.p = PParams(c_puct=c_puct, c_base=c_base, c_init=c_init, alpha=alpha,
                         noise_fraction=noise_fraction, playouts=playouts, playout_weight=0.0,
                         mix_playouts=1, playout_policy=0, expand_after=0, solver=False,
                         keep_leaf_values=False, draw_value=[0.0, 0.0])
        self.num_actions = proto.num_actions
        obs = proto.observation()
        self.obs_size = obs.size
        self.max_record = max_record
        self.state_size = state_size(proto)
        total = <size_t>n * <size_t>cap * sizeof(PNode)
        self.arena = <PNode*>big_alloc(total)
        self.arena2 = <PNode*>big_alloc(total)
        self.trees = <PTree*>big_alloc(n * sizeof(PTree))
        # per tree and lane; each lane's generators start a cache line of their
        # own (a lane draws from them in every playout, without the lock)
        self.rng_stride = (n + RNGS_PER_LINE - 1) // RNGS_PER_LINE * RNGS_PER_LINE
        self.rngs = <rng_t*>big_alloc(<size_t>lanes * self.rng_stride * sizeof(rng_t))
        self.roots = big_alloc(n * self.state_size)
        self.leaf_states = big_alloc(rows * self.state_size)
        self.leaf_nodes = <int32_t*>big_alloc(rows * sizeof(int32_t))
        self.leaf_slot = <int32_t*>big_alloc(rows * sizeof(int32_t))
        self.leaf_values = <double*>big_alloc(rows * sizeof(double))
        if lanes > 1:
            self.leaf_moves = <int*>big_alloc(rows * MAX_MOVES * sizeof(int))
            self.leaf_priors = <float*>big_alloc(rows * MAX_MOVES * sizeof(float))
            self.leaf_nmoves = <int32_t*>big_alloc(rows * sizeof(int32_t))
            if self.leaf_moves == NULL or self.leaf_priors == NULL or self.leaf_nmoves == NULL:
                raise MemoryError(f"cannot allocate {lanes} lanes of {k} leaves")
        self.lane_leaves = <int32_t*>big_alloc(<size_t>lanes * LANE_INTS * sizeof(int32_t))
        self.lock = <int*>big_alloc(sizeof(int))
        self.done = <int64_t*>big_alloc(n * sizeof(int64_t))
        self.active = <uint8_t*>big_alloc(n)
        self.noise_due = <uint8_t*>big_alloc(n)
        if (self.arena == NULL or self.arena2 == NULL or self.trees == NULL or self.rngs == NULL
                or self.roots == NULL or self.leaf_states == NULL or self.leaf_nodes == NULL
                or self.leaf_slot == NULL or self.leaf_values == NULL
                or self.lane_leaves == NULL or self.done == NULL or self.lock == NULL
                or self.active == NULL or self.noise_due == NULL):
            raise MemoryError(f"cannot allocate {n} PUCT trees of {cap} nodes")
        for i in range(n):
            self.trees[i].nodes = self.arena + <size_t>i * cap
            self.trees[i].alt = self.arena2 + <size_t>i * cap
            self.trees[i].cap = cap
            tree_clear(&self.trees[i])
        self.reseed(seed)
        self.observations = np.zeros((rows, self.obs_size), dtype=np.int8)
        self.masks = np.zeros((rows, self.num_actions), dtype=np.bool_)
        self.obs_p = <int8_t*>_data(self.observations)
        self.mask_p = <uint8_t*>_data(self.masks)
        m = max(max_record, 1)
        self.rec_obs = np.zeros((n, m, self.obs_size), dtype=np.int8)
        self.rec_mask = np.zeros((n, m, self.num_actions), dtype=np.bool_)
        self.rec_policy = np.zeros((n, m, self.num_actions), dtype=np.float32)
        self._rec_player = np.zeros((n, m), dtype=np.int8)
        self._nrec = np.zeros(n, dtype=np.int32)
        self._ply = np.zeros(n, dtype=np.int32)
        self.rec_obs_p = <int8_t*>_data(self.rec_obs)
        self.rec_mask_p = <uint8_t*>_data(self.rec_mask)
        self.rec_policy_p = <float*>_data(self.rec_policy)
        self.rec_player = <int8_t*>_data(self._rec_player)
        self.nrec = <int32_t*>_data(self._nrec)
        self.ply = <int32_t*>_data(self._ply)

    def __dealloc__(self):
        cdef size_t total = <size_t>self.n * <size_t>self.cap * sizeof(PNode)
        big_free(self.arena, total)
        big_free(self.arena2, total)
        big_free(self.trees, self.n * sizeof(PTree))
        big_free(self.rngs, <size_t>self.lanes * self.rng_stride * sizeof(rng_t))
        big_free(self.roots, self.n * self.state_size)
        cdef size_t rows = <size_t>self.lanes * self.n * self.k
        big_free(self.leaf_states, rows * self.state_size)
        big_free(self.leaf_nodes, rows * sizeof(int32_t))
        big_free(self.leaf_slot, rows * sizeof(int32_t))
        big_free(self.leaf_values, rows * sizeof(double))
        if self.leaf_moves != NULL:
            big_free(self.leaf_moves, rows * MAX_MOVES * sizeof(int))
        if self.leaf_priors != NULL:
            big_free(self.leaf_priors, rows * MAX_MOVES * sizeof(float))
        if self.leaf_nmoves != NULL:
            big_free(self.leaf_nmoves, rows * sizeof(int32_t))
        big_free(self.lane_leaves, <size_t>self.lanes * LANE_INTS * sizeof(int32_t))
        big_free(self.lock, sizeof(int))
        big_free(self.done, self.n * sizeof(int64_t))
        big_free(self.active, self.n)
        big_free(self.noise_due, self.n)
        self._free_network()
        free(self.gumbel_table)
        free(self.gumbel_g)

    cdef void _free_network(self) noexcept:
        free(self.net_floats)
        free(self.net_ints)
        free(self.net_logits)
        free(self.net_values)
        self.net_floats = self.net_values = self.net_logits = NULL
        self.net_ints = NULL
        self.net = NULL
        self.net_owner = None

    def attach_network(self, compiled):
        """Evaluate leaves with ``compiled`` (a ``CompiledNetwork``) in
        ``forest_run_network``; its buffers, one set per lane, are allocated
        here, once.  ``ValueError`` if its inputs or actions do not fit."""
        if compiled is self.net_owner:
            return
        cdef const NetModel* m = <const NetModel*>PyCapsule_GetPointer(
            compiled.model_capsule(), b"ttt_engine.NetModel")
        if m.input_size != self.obs_size or m.num_actions != self.num_actions:
            raise ValueError(f"the network takes {m.input_size} inputs and gives "
                             f"{m.num_actions} logits; these boards have {self.obs_size} "
                             f"observation entries and {self.num_actions} actions")
        self._free_network()
        cdef size_t rows = <size_t>self.lanes * self.n * self.k
        self.net_floats = <float*>malloc(self.lanes * net_scratch_floats(m) * sizeof(float))
        self.net_ints = <int32_t*>malloc(self.lanes * net_scratch_ints(m) * sizeof(int32_t))
        self.net_logits = <float*>malloc(rows * self.num_actions * sizeof(float))
        self.net_values = <float*>malloc(rows * sizeof(float))
        if (self.net_floats == NULL or self.net_ints == NULL or self.net_logits == NULL
                or self.net_values == NULL):
            self._free_network()
            raise MemoryError()
        self.net = m
        self.net_owner = compiled

    def set_playout_weight(self, double weight, int playouts=1):
        """Weight of the mean result of ``playouts`` random playouts in every
        evaluated leaf's value."""
        self.p.playout_weight = weight
        self.p.mix_playouts = playouts

    def set_draw_values(self, double first, double second):
        """A draw's value for the first and for the second player (0 and 0: a
        draw is worth nothing to either; contempt, validated by the Python
        layer, gives the searching side less)."""
        self.p.draw_value[0] = first
        self.p.draw_value[1] = second

    def set_playout_policy(self, int policy):
        """The playouts' policy: ``mcts.PLAYOUTS[name]`` (random or decisive),
        validated by the Python layer against the game."""
        self.p.playout_policy = policy

    def set_solver(self, bint on):
        """MCTS-Solver proofs: finished games prove their nodes, proofs climb
        the tree, selection takes proven wins and skips proven losses, and a
        solved root ends the search."""
        self.p.solver = on

    def root_proven(self, int slot):
        """+1 the side to move at tree ``slot``'s root wins, -1 it loses, 0
        unknown (proofs only with the solver on)."""
        return -self.trees[slot].nodes[0].proven

    def set_expand_after(self, int visits):
        """A leaf below the root goes to the evaluator (and is expanded) once
        it has ``visits`` visits; those are valued by ``mix_playouts`` random
        playouts alone."""
        self.p.expand_after = visits

    def reseed(self, uint64_t seed):
        cdef int i, lane
        self.seed = seed
        for lane in range(self.lanes):
            for i in range(self.n):
                rng_seed(&self.rngs[i + lane * self.rng_stride],
                         seed + <uint64_t>(i + lane * self.n) * <uint64_t>0x9E3779B97F4A7C15ULL)

    def clear(self, int slot):
        """Empty tree ``slot`` (its root position stays)."""
        tree_clear(&self.trees[slot])
        self.done[slot] = 0
        self.noise_due[slot] = self.gumbel or self.p.alpha > 0.0

    def advance(self, int slot, int move):
        """Keep the subtree of the root child reached by ``move``; False (and
        an empty tree) if that child is not in the tree."""
        return advance_root(&self.trees[slot], move)

    def is_active(self, int slot):
        return bool(self.active[slot])

    def done_in(self, int slot):
        return self.done[slot]

    def nodes_used(self, int slot):
        return self.trees[slot].used

    def root_visits(self, int slot):
        return self.trees[slot].nodes[0].visits

    def root_value(self, int slot):
        """Mean value at the root for its side to move (0 before any visit)."""
        cdef PNode* r = &self.trees[slot].nodes[0]
        return -r.wsum / r.visits if r.visits else 0.0

    def records(self, int slot):
        """``(count, players)`` of the positions recorded in ``slot``'s game."""
        cdef int c = self.nrec[slot]
        return c, self._rec_player[slot, :c].copy()

def state_size(GameBoard board):
    """Bytes of the board's C state."""
    return sizeof(board.state)


cdef inline GameState* _roots(PUCTForest f, GameState* proto) noexcept nogil:
    return <GameState*>f.roots


cdef inline GameState* _leaves(PUCTForest f, GameState* proto) noexcept nogil:
    return <GameState*>f.leaf_states


def forest_set_root(PUCTForest f, GameBoard board, int slot):
    """Put ``board``'s position at the root of tree ``slot``, active, with an
    empty tree."""
    _roots(f, &board.state)[slot] = board.state
    f.active[slot] = 1
    f.nrec[slot] = 0
    f.ply[slot] = 0
    tree_clear(&f.trees[slot])
    f.done[slot] = 0
    f.noise_due[slot] = f.gumbel or f.p.alpha > 0.0


def forest_reroot(PUCTForest f, GameBoard old_root, GameBoard new_root, int slot, int max_depth):
    """Keep the subtree of ``new_root`` if it lies within ``max_depth`` plies
    of ``old_root`` (tree ``slot``'s root) in the tree; else empty it.  The
    root becomes ``new_root``.  Returns True if a subtree was kept."""
    cdef PTree* t = &f.trees[slot]
    cdef int32_t found = -1
    if t.used > 0 and t.nodes[0].visits > 0:
        found = tree_find(&old_root.state, t.nodes, &new_root.state, max_depth)
    _roots(f, &new_root.state)[slot] = new_root.state
    f.done[slot] = 0
    f.noise_due[slot] = f.gumbel or f.p.alpha > 0.0
    if found < 0:
        tree_clear(t)
        return False
    if found > 0:
        compact(t, found)
    return True


cdef inline void _root_noise(PUCTForest f, int i, rng_t* rng) noexcept nogil:
    """Tree ``i``'s root was just expanded: its Dirichlet noise, or its
    Gumbel noise in Gumbel self-play."""
    if f.gumbel:
        gumbel_sample(&f.trees[i].nodes[0], rng, f.gumbel_g + <size_t>i * MAX_MOVES)
    else:
        add_noise(&f.trees[i], &f.p, rng)
    f.noise_due[i] = 0


cdef void gather_all(GameState* proto, PUCTForest f, int64_t budget, int lane) noexcept nogil:
    gather_lane(proto, f, budget, lane, False)


cdef void gather_lane(GameState* proto, PUCTForest f, int64_t budget, int lane,
                      bint held) noexcept nogil:
    """gather_all; ``held``: the lane holds the tree's lock already (it has
    just backed up its last batch), and it is released during the gathering."""
    cdef GameState* roots = <GameState*>f.roots
    cdef size_t base = <size_t>lane * f.n * f.k      # the lane's first row
    cdef GameState* leaves = <GameState*>f.leaf_states + base
    cdef int32_t* leaf_nodes = f.leaf_nodes + base
    cdef int32_t* leaf_slot = f.leaf_slot + base
    cdef int* lock = f.lock if f.lanes > 1 else NULL
    cdef int i, got, j, total = 0
    cdef PTree* t
    for i in range(f.n):
        if not f.active[i]:
            continue
        t = &f.trees[i]
        if f.noise_due[i]:
            if lock != NULL and not held:
                spin_lock(lock)
            if f.noise_due[i] and t.nodes[0].first_child >= 0:
                _root_noise(f, i, &f.rngs[i + lane * f.rng_stride])
            if lock != NULL and not held:
                spin_unlock(lock)
        got = gather(&roots[i], t, &f.p, &f.rngs[i + lane * f.rng_stride], f.k, &f.done[i], budget,
                     leaves + total, leaf_nodes + total, lock, held, &f.gp if f.gumbel else NULL,
                     f.gumbel_g + <size_t>i * MAX_MOVES if f.gumbel else NULL)
        held = False                # gather released it
        for j in range(got):
            leaf_slot[total + j] = i
            game_write_planes(&leaves[total + j],
                              f.obs_p + (base + total + j) * f.obs_size,
                              f.mask_p + (base + total + j) * f.num_actions)
        total += got
    if held and lock != NULL:       # no active tree took it over: release it here
        spin_unlock(lock)
    f.lane_leaves[lane * LANE_INTS] = total


def forest_gather(PUCTForest f, GameBoard proto, int64_t budget, int lane=0):
    """Gather leaves from every active tree whose search has fewer than
    ``budget`` simulations; their planes are rows ``[lane * n * k, ... +
    count)`` of ``f.observations`` / ``f.masks``.  Returns the count."""
    if not 0 <= lane < f.lanes:
        raise ValueError(f"lane {lane} of a forest with {f.lanes} lanes")
    with nogil:
        gather_all(&proto.state, f, budget, lane)
    return f.lane_leaves[lane * LANE_INTS]


cdef void backup_all(GameState* proto, PUCTForest f, const float* logits, const float* values,
                     bint uniform, int lane) noexcept nogil:
    backup_lane(proto, f, logits, values, uniform, lane, False)


cdef void backup_lane(GameState* proto, PUCTForest f, const float* logits, const float* values,
                      bint uniform, int lane, bint keep) noexcept nogil:
    """backup_all; ``keep``: return holding the tree's lock (lanes > 1), for
    the lane's next gathering to follow the back-up in one hold: the top of
    the tree then moves between the cores' caches once a batch, not twice."""
    cdef size_t base = <size_t>lane * f.n * f.k
    cdef GameState* leaves = <GameState*>f.leaf_states + base
    cdef int32_t* leaf_nodes = f.leaf_nodes + base
    cdef int32_t* leaf_slot = f.leaf_slot + base
    cdef double* v = f.leaf_values + base
    cdef int* lock = f.lock if f.lanes > 1 else NULL
    cdef int j, i, count = f.lane_leaves[lane * LANE_INTS]
    cdef double lam = f.p.playout_weight
    cdef PTree* t
    # the playouts first, outside the lock: they do not touch the tree
    for j in range(count):
        v[j] = <double>values[j]
        if lam > 0.0:
            # AlphaGo's mixed leaf value: (1 - lambda) * network + lambda * playout
            v[j] = (1.0 - lam) * v[j] + lam * playout_value(
                &leaves[j], f.p.mix_playouts, f.p.playout_policy,
                &f.rngs[leaf_slot[j] + lane * f.rng_stride], &f.p)
    if lock != NULL:
        # the children's moves and priors too: the lock then covers only the
        # writes into the tree, and the other lane waits less for it
        for j in range(count):
            f.leaf_nmoves[base + j] = leaf_priors(
                &leaves[j], NULL if uniform else logits + <size_t>j * f.num_actions,
                f.leaf_moves + (base + j) * MAX_MOVES, f.leaf_priors + (base + j) * MAX_MOVES)
        spin_lock(lock)
    for j in range(count):
        i = leaf_slot[j]
        t = &f.trees[i]
        if lock != NULL:
            expand_with(t, leaf_nodes[j], f.leaf_moves + (base + j) * MAX_MOVES,
                        f.leaf_priors + (base + j) * MAX_MOVES, f.leaf_nmoves[base + j])
        else:
            expand(t, leaf_nodes[j], &leaves[j],
                   NULL if uniform else logits + <size_t>j * f.num_actions)
        backup(t.nodes, leaf_nodes[j], v[j], True)
        f.done[i] += 1
    f.lane_leaves[lane * LANE_INTS] = 0
    if lock != NULL and not keep:
        spin_unlock(lock)


def forest_backup(PUCTForest f, GameBoard proto, const float[:, ::1] logits,
                  const float[::1] values, int lane=0):
    """Expand the gathered leaves of ``lane`` with ``logits`` (rows in
    gathering order, indexed by action; None: uniform priors) and back up
    ``values``."""
    cdef const float* lp = NULL
    if not 0 <= lane < f.lanes:
        raise ValueError(f"lane {lane} of a forest with {f.lanes} lanes")
    if f.lane_leaves[lane * LANE_INTS] == 0:
        return
    if logits is not None:
        lp = &logits[0, 0]
    with nogil:
        backup_all(&proto.state, f, lp, &values[0], lp == NULL, lane)


cdef int network_lane(GameState* proto, PUCTForest f, int64_t budget, double deadline,
                      int lane, interrupt_t* it, volatile int* other_stop,
                      int64_t* calls, int64_t* evaluations) noexcept nogil:
    """Gather, evaluate with the attached network and back up on ``lane`` of
    a one-tree forest until the budget, the deadline (> 0), a solved root, an
    interrupt or ``other_stop``.  -1 if the network's output was not finite
    (the lane's leaves are left pending: the caller clears the tree)."""
    cdef size_t base = <size_t>lane * f.n * f.k
    cdef NetScratch s
    cdef int got
    cdef bint held = False          # the lane holds the tree's lock from a back-up
    net_scratch_bind(&s, f.net, f.net_floats + lane * net_scratch_floats(f.net),
                     f.net_ints + lane * net_scratch_ints(f.net))
    while f.done[0] < budget:
        gather_lane(proto, f, budget, lane, held)
        held = False
        got = f.lane_leaves[lane * LANE_INTS]
        if got == 0 and f.trees[0].nodes[0].proven != 0:
            break                   # solved (the solver): nothing left to learn
        if got:
            if not net_forward(f.net, f.obs_p + base * f.obs_size, got,
                               f.net_logits + base * f.num_actions, f.net_values + base, &s):
                return -1
            backup_lane(proto, f, f.net_logits + base * f.num_actions, f.net_values + base,
                         False, lane, True)
            held = f.lanes > 1
            calls[0] += 1
            evaluations[0] += got
        if deadline > 0.0 and now_monotonic() >= deadline:
            break
        if interrupt_poll(it) or (other_stop != NULL and other_stop[0] != 0):
            break
        if got == 0 and f.lanes > 1:
            # the gathering backed every visit up under the lock (a full arena
            # keeps its leaves' values) and would take it again at once: a
            # lane waiting on the same core (a busy machine) gets its turn,
            # and with it its checks for Ctrl-C
            spin_yield()
    if held:
        spin_unlock(f.lock)
    return 0


cdef int64_t _native_all(GameState* proto, PUCTForest f, int64_t budget, double deadline,
                         interrupt_t* it) noexcept nogil:
    cdef GameState* roots = <GameState*>f.roots
    cdef int i
    cdef int64_t total = 0
    cdef PTree* t
    for i in range(f.n):
        if not f.active[i]:
            continue
        t = &f.trees[i]
        if f.done[i] < budget and t.nodes[0].first_child < 0:
            total += native_run(&roots[i], t, &f.p, &f.rngs[i], &f.done[i], f.done[i] + 1,
                                deadline, it)
        if f.noise_due[i] and t.nodes[0].first_child >= 0:
            _root_noise(f, i, &f.rngs[i])
        total += native_run(&roots[i], t, &f.p, &f.rngs[i], &f.done[i], budget, deadline, it,
                            &f.gp if f.gumbel else NULL,
                            f.gumbel_g + <size_t>i * MAX_MOVES if f.gumbel else NULL)
        if it.hit:
            break
    return total


def forest_native(PUCTForest f, GameBoard proto, int64_t budget, double time_limit=0.0):
    """Run every active tree's search to ``budget`` simulations with the
    uniform evaluator in C (``time_limit`` > 0: stop after that many
    seconds).  Returns ``(simulations, seconds)``; Ctrl-C stops it between
    simulations with ``KeyboardInterrupt``."""
    cdef interrupt_t it
    cdef int64_t sims
    cdef double t0 = now_monotonic()
    cdef double deadline = deadline_after(t0, time_limit)
    interrupt_init(&it, 1, NULL)
    with nogil:
        sims = _native_all(&proto.state, f, budget, deadline, &it)
    interrupt_finish(&it)
    return sims, now_monotonic() - t0


def forest_status(PUCTForest f, GameBoard proto, int slot):
    """Game status (``GAME_*``) of tree ``slot``'s root position."""
    return game_status(&_roots(f, &proto.state)[slot])
