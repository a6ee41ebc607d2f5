# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Monte Carlo tree search (UCT), written once for every game.

One simulation (classic UCT):

1. **Select** from the root by UCB1, ``mean + C * sqrt(ln N_parent / N_child)``,
   where ``mean`` is from the point of view of the player who moved into the
   child; an unvisited child is taken first (in move order).
2. **Expand** the leaf reached (unless the game is over there, or the arena
   has no room for all its children): create every child, pick one uniformly
   at random and play it.
3. **Simulate** with the game's inline random playout to the end.
4. **Back-propagate** +1 / 0 / -1 to every node on the path, each from the
   point of view of the player who moved into that node (negamax).

The final move is the root child with the most visits (ties: the higher mean,
then the first in move order).

Tree reuse: ``reroot`` finds the new position among the old root's
descendants (a few plies deep, matched by ``game_hash`` and side to move) and
compacts that subtree, breadth first, into the second arena, which then
becomes the live one; everything else is dropped.
"""
from libc.stdint cimport int32_t, int16_t, int8_t, uint64_t
from ttt_engine._core.core.bigmem cimport big_alloc, big_free
from libc.math cimport sqrtf, logf
from ttt_engine._core.core.clock cimport now_monotonic, deadline_after, deadline_passed
from ttt_engine._core.core.interrupt cimport (
    interrupt_t, interrupt_init, interrupt_poll, interrupt_finish,
)
from ttt_engine._core.algorithms.tree cimport tree_find, tree_root_child, tree_keep

from ttt_engine._core.core.rng cimport rng_t, rng_seed, rng_below
from ttt_engine._core.algorithms.game cimport (
    GameState, GameBoard, MAX_MOVES, undo_t, GAME_ONGOING, GAME_WIN_FIRST, GAME_DRAW,
    game_to_move, game_legal_moves, game_make, game_unmake, game_status, game_hash,
)
from ttt_engine._core.algorithms.game cimport game_init_tables
from ttt_engine._core.algorithms.policy_playout cimport policy_playout
from ttt_engine._core.algorithms cimport tree_lines
from ttt_engine._core.algorithms.game_actions cimport game_move_to_action, game_write_planes
from ttt_engine._core.algorithms.valuenet cimport CompiledValueNet, vn_refresh_state
from ttt_engine._core.algorithms.mcts_rewards cimport (
    record, status_reward, score_children, leaf_accumulator, leaf_output, leaf_reward,
    minimax_backup, selection_value, minimax_rebuild,
)
from libc.math cimport expf
from libc.stdint cimport uint8_t, uint16_t
import numpy as np
game_init_tables()   # every game's lookup tables
from ttt_engine._util import INT64_MAX, check_int, check_real, resolve_seed

MIN_NODES = 1 + MAX_MOVES      # the root can always be expanded

# sqrt(ln n) for n < 65536: libm's logf took a quarter of the run time when
# called once per level of every simulation; larger counts call logf.
cdef extern from *:
    """
    static float mcts_sqrt_log[65536];
    """
    float mcts_sqrt_log[65536]

cdef int _i
for _i in range(1, 65536):
    mcts_sqrt_log[_i] = sqrtf(logf(<float>_i))
mcts_sqrt_log[0] = 0.0


cdef inline float sqrt_log(int32_t n) noexcept nogil:
    if n < 65536:
        return mcts_sqrt_log[n]
    return sqrtf(logf(<float>n))
cdef int32_t MAX_VISITS = 2000000000
#: A win's reward in ``MNode.wsum`` when a value network scores the leaves:
#: values in steps of 1/256, and up to 7.8 M visits a node (MAX_VISITS / 256).
VALUE_UNIT = 256


cdef extern from *:
    """
    #if defined(__GNUC__)
    #define mcts_prefetch(p) __builtin_prefetch(p)
    #else
    #define mcts_prefetch(p) ((void)0)
    #endif
    """
    void prefetch "mcts_prefetch"(const void* p) noexcept nogil


#: Playout policies by name (the games each applies to: ``games.Game.playouts``).
PLAYOUTS = {"random": PLAYOUT_RANDOM, "decisive": PLAYOUT_DECISIVE}

#: Longest principal variation read from a tree (plies): ``tree_lines.pxd``.
MAX_LINE = tree_lines.MAX_LINE


cdef inline void node_init(MNode* nd, int32_t parent, int move, int mover) noexcept nogil:
    nd.wsum = 0
    nd.parent = parent
    nd.first_child = -1
    nd.visits = 0
    nd.mean = 0.0
    nd.isq = 0.0
    nd.nchildren = 0
    nd.move = <int16_t>move
    nd.mover = <int8_t>mover
    nd.proven = 0
    nd.prior = 0
    nd.guide = PRIOR_NONE


cdef void softmax_priors(MTree* t, int32_t node, float* e) noexcept nogil:
    """The children of expanded ``node`` get the priors softmax(``e``) (``e``:
    one logit a child, in child order, overwritten), in units of 1/65535, at
    least 1 so that every move keeps a chance; the node then selects by PUCT."""
    cdef int32_t k, first = t.nodes[node].first_child, nch = t.nodes[node].nchildren
    cdef float mx = -1e30, total = 0.0
    for k in range(nch):
        if e[k] > mx:
            mx = e[k]
    for k in range(nch):
        e[k] = expf(e[k] - mx)
        total += e[k]
    for k in range(nch):
        t.nodes[first + k].prior = <uint16_t>max(1.0, e[k] / total * 65535.0 + 0.5)
    t.nodes[node].guide = PRIOR_READY


cdef void value_priors(MTree* t, int32_t leaf) noexcept nogil:
    """Value priors: the new children of ``leaf``, each with its first visit
    (its value, for the leaf's mover), get the priors softmax(value /
    ``prior_temp``) (not inlined: once an expansion, and only with them)."""
    cdef int32_t k, first = t.nodes[leaf].first_child
    cdef float scale = t.inv_unit / t.prior_temp
    cdef float e[MAX_MOVES]
    for k in range(t.nodes[leaf].nchildren):
        e[k] = <float>t.nodes[first + k].wsum * scale
    softmax_priors(t, leaf, e)


cdef inline int32_t expand(GameState* work, MTree* t, int32_t node,
                           int32_t* best_child=NULL) noexcept nogil:
    """Expansion: create every child of leaf ``node`` (position ``work``) in
    one block and play a uniformly random one (for its playout); return it.
    With a value network no child is played: the network scores the leaf
    itself (a random reply's position would score the leaf by an opponent's
    blunder), and ``node`` is returned.  Return ``node`` itself, unexpanded,
    when the arena has no room for the block or the leaf has fewer than
    ``expand_after`` visits (the root always expands).  ``best_child``: with
    every child scored, the best one's reward (``score_children``) goes there."""
    cdef int moves[MAX_MOVES]
    cdef int n = 0, k, r, mover
    cdef int32_t first
    if t.used < t.cap and (node == 0 or t.nodes[node].visits >= t.expand_after):
        n = game_legal_moves(work, moves)
    if n == 0 or t.used + n > t.cap:
        return node
    first = t.used
    t.used += n
    mover = game_to_move(work)
    t.nodes[node].first_child = first
    t.nodes[node].nchildren = <uint8_t>n
    for k in range(n):
        node_init(&t.nodes[first + k], node, moves[k], mover)
    if t.vnet != NULL:
        if t.score_children:
            k = score_children(t, work, first, n)
            if best_child != NULL:
                best_child[0] = k
            if t.prior_temp > 0.0:
                value_priors(t, node)
        return node
    r = rng_below(&t.rng, n)
    game_make(work, moves[r])
    return first + r


cdef inline int32_t network_leaf(const GameState* root, MTree* t, GameState* work,
                                 int32_t node) noexcept nogil:
    """The reward of the new leaf ``node`` (position ``work``, game on) with
    the value network: its own value (``t.vn_leaf`` becomes its accumulator,
    from which the expansion scores every child with ``score_children``), the
    leaf expanded, a playout mixed in when ``value_weight`` < 1."""
    cdef float r
    cdef int32_t best = 2 * t.unit
    leaf_accumulator(root, t, work)
    expand(work, t, node, &best)
    # the leaf's own value only where it is the reward (not its best child's)
    r = (<float>best * t.inv_unit if t.leaf_from_children and best != 2 * t.unit
         else leaf_output(t, work))
    return leaf_reward(t, work, r)


cdef inline int leaf_outcome(const GameState* root, MTree* t, GameState* work, int32_t* node,
                             int32_t* reward, bint* over) noexcept nogil:
    """Expansion and simulation of the new leaf ``node[0]`` (position
    ``work``, game on).  With the value network: ``reward[0]`` is the leaf's
    (:func:`network_leaf`) and -1 is returned.  Else the leaf is expanded and
    a random child played (``node[0]`` becomes it; ``over[0]``: that child's
    game is over), then a playout: the finished game's status is returned."""
    cdef int32_t leaf = node[0]
    cdef int status = GAME_ONGOING
    over[0] = False
    if t.vnet != NULL:
        reward[0] = network_leaf(root, t, work, leaf)
        return -1
    node[0] = expand(work, t, leaf)
    if node[0] != leaf:
        status = game_status(work)
        over[0] = status != GAME_ONGOING
    if status == GAME_ONGOING:
        status = policy_playout(work, &t.rng, t.playout)
    return status


cdef inline int32_t select_prior(MNode* nodes, MNode* nd, float c_puct, bint solver,
                                 const float* mm, float mw) noexcept nogil:
    """PUCT at a node whose children carry priors: the child maximising
    ``q + c_puct * P * sqrt(N) / (1 + n)``, q its mean (an unvisited child's
    is 0, a draw), or with ``mm`` (not NULL) its mean mixed with its minimax value
    (``selection_value``); ties go to the first in move order.  With the
    solver a proven win is taken at once and proven losses are skipped; -1
    when every child is a proven loss."""
    cdef int32_t k, best = -1
    cdef MNode* ch
    cdef float sc, bscore = -1e30
    cdef float scale = c_puct * sqrtf(<float>nd.visits) * (1.0 / 65535.0)
    for k in range(nd.first_child, nd.first_child + nd.nchildren):
        ch = &nodes[k]
        if solver:
            if ch.proven > 0:
                return k
            if ch.proven < 0:
                continue
        sc = selection_value(ch, mm, mw, k) + scale * <float>ch.prior / <float>(1 + ch.visits)
        if sc > bscore:
            bscore = sc
            best = k
    return best


cdef inline void prior_enqueue(MTree* t, int32_t node, GameState* work) noexcept nogil:
    """Queue ``node`` (position ``work``) for the evaluator: its planes and
    legal mask go to the next row of the tree's input buffers."""
    t.nodes[node].guide = PRIOR_QUEUED
    game_write_planes(work, t.obs + <size_t>t.queue_len * t.obs_size,
                      t.mask + <size_t>t.queue_len * t.num_actions)
    t.queue[t.queue_len] = node
    t.queue_len += 1


cdef inline bint prior_wanted(MTree* t, MNode* nd, int32_t node) noexcept nogil:
    """Does the guided search want the evaluator's priors for this expanded
    node now?  (The root at once, others once they have ``prior_visits``.)"""
    return (nd.guide == PRIOR_NONE and t.queue_len < t.queue_cap
            and (node == 0 or nd.visits >= t.prior_visits))


cdef inline void mcts_iterate(GameState* root, MTree* t, bint guided) noexcept nogil:
    """One select / expand / simulate / back-propagate cycle.  ``guided``
    (the tree has an evaluator queue) is a constant at each call site, so the
    plain search compiles without the prior branches."""
    cdef GameState work = root[0]
    cdef MNode* nodes = t.nodes
    cdef MNode* nd
    cdef MNode* ch
    cdef int32_t node = 0, first, k, end, best, reward = 0
    cdef bint over = False
    cdef int status
    cdef float bscore, sc, kexp, mw = t.minimax_weight
    cdef const float* mm = t.minimax
    cdef bint mm_dirty = mm != NULL
    # 1. selection
    while True:
        nd = &nodes[node]
        first = nd.first_child
        if first < 0:
            break
        if guided:
            if nd.guide == PRIOR_READY:
                node = select_prior(nodes, nd, t.c_puct, False, NULL, 0.0)
                game_make(&work, nodes[node].move)
                continue
            if prior_wanted(t, nd, node):
                prior_enqueue(t, node, &work)
        elif nd.guide == PRIOR_READY:
            node = select_prior(nodes, nd, t.c_puct, False, mm, mw)
            game_make(&work, nodes[node].move)
            continue
        end = first + nd.nchildren
        kexp = t.cf * sqrt_log(nd.visits)
        best = first
        bscore = -1e30
        for k in range(first, end):
            ch = &nodes[k]
            if ch.visits == 0:
                best = k
                break
            sc = selection_value(ch, mm, mw, k) + kexp * ch.isq
            # start fetching every candidate's child block while the scan
            # goes on: deep blocks are cold, and the next level needs one
            if ch.first_child >= 0:
                prefetch(&nodes[ch.first_child])
            if sc > bscore:
                bscore = sc
                best = k
        node = best
        game_make(&work, nodes[node].move)
    # 2. expansion (whole child block, or nothing when the arena is full or
    #    the leaf has fewer than ``expand_after`` visits; the root always expands)
    status = game_status(&work)
    if status == GAME_ONGOING:
        # 3. simulation (or the value network)
        status = leaf_outcome(root, t, &work, &node, &reward, &over)
    if status >= 0:
        reward = status_reward(status, t.unit)
    # 4. back-propagation (negamax: each node from its mover's side; the
    #    minimax values up to the first that stands)
    while node >= 0:
        record(&nodes[node], reward, t.inv_unit)
        if mm_dirty:
            mm_dirty = minimax_backup(t, node)
        node = nodes[node].parent


cdef inline int8_t proof_of(int status, int mover) noexcept nogil:
    """+1 / -1 if a finished game is a win / loss for ``mover``; 0 for a draw."""
    if status == GAME_DRAW:
        return 0
    return 1 if (0 if status == GAME_WIN_FIRST else 1) == mover else -1


cdef inline void mcts_iterate_solver(GameState* root, MTree* t, bint guided) noexcept nogil:
    """``mcts_iterate`` with MCTS-Solver proofs (Winands et al. 2008): finished
    games prove their node; a node with a child that wins for the player to
    move is a proven loss for its own mover, one whose children all lose is a
    proven win.  Selection takes a proven winning child at once, skips proven
    losing ones, and stops at proven nodes, whose result is back-propagated
    like a finished game."""
    cdef GameState work = root[0]
    cdef MNode* nodes = t.nodes
    cdef MNode* nd
    cdef MNode* ch
    cdef int32_t node = 0, first, k, end, best, reward = 0
    cdef bint over = False
    cdef int status = GAME_ONGOING
    cdef float bscore, sc, kexp, mw = t.minimax_weight
    cdef const float* mm = t.minimax
    cdef bint mm_dirty = mm != NULL
    cdef bint proved = False, done = False
    cdef int8_t pr
    # 1. selection
    while True:
        nd = &nodes[node]
        if nd.proven != 0 and node != 0:
            reward = t.unit if (nd.proven > 0) == (nd.mover == 0) else -t.unit
            done = True
            break
        first = nd.first_child
        if first < 0:
            break
        if guided and nd.guide == PRIOR_READY:
            best = select_prior(nodes, nd, t.c_puct, True, NULL, 0.0)
        elif not guided and nd.guide == PRIOR_READY:
            best = select_prior(nodes, nd, t.c_puct, True, mm, mw)
        else:
            if guided and prior_wanted(t, nd, node):
                prior_enqueue(t, node, &work)
            end = first + nd.nchildren
            kexp = t.cf * sqrt_log(nd.visits)
            best = -1
            bscore = -1e30
            for k in range(first, end):
                ch = &nodes[k]
                if ch.proven > 0:
                    best = k
                    break
                if ch.proven < 0:
                    continue
                if ch.visits == 0:
                    best = k
                    break
                sc = selection_value(ch, mm, mw, k) + kexp * ch.isq
                if sc > bscore:
                    bscore = sc
                    best = k
        if best < 0:
            # every child loses for the player to move: this node is won by its mover
            nd.proven = 1
            proved = True
            reward = t.unit if nd.mover == 0 else -t.unit
            done = True
            break
        node = best
        game_make(&work, nodes[node].move)
    if not done:
        # 2. expansion
        status = game_status(&work)
        if status != GAME_ONGOING:
            nd = &nodes[node]
            nd.proven = proof_of(status, nd.mover)
            proved = nd.proven != 0
        else:
            # 3. simulation (or the value network)
            status = leaf_outcome(root, t, &work, &node, &reward, &over)
            if over:        # the child the expansion played ends the game: a proof
                nodes[node].proven = proof_of(status, nodes[node].mover)
                proved = nodes[node].proven != 0
        if status >= 0:
            reward = status_reward(status, t.unit)
    # 4. back-propagation, carrying proofs upwards while they hold
    while node >= 0:
        nd = &nodes[node]
        record(nd, reward, t.inv_unit)
        # a child proven on the way up changes this node's minimax value too
        mm_dirty = mm_dirty or (proved and mm != NULL)
        if proved and nd.proven == 0 and nd.first_child >= 0:
            pr = 1
            for k in range(nd.first_child, nd.first_child + nd.nchildren):
                if nodes[k].proven > 0:
                    pr = -1
                    break
                if nodes[k].proven == 0:
                    pr = 0
            nd.proven = pr
            proved = pr != 0
        elif proved and nd.proven == 0:
            proved = False
        if mm_dirty:
            mm_dirty = minimax_backup(t, node)
        node = nd.parent


cdef uint64_t mcts_run(GameState* root, MTree* t, uint64_t sims, double time_limit,
                       double* elapsed, interrupt_t* it) noexcept nogil:
    """Simulate until ``sims`` simulations (0 = no limit) or ``time_limit``
    seconds (<= 0 = no limit) are used up, or ``it`` reports an interrupt
    (between simulations: the tree stays consistent); returns the simulations
    done."""
    cdef double t0 = now_monotonic(), deadline = deadline_after(t0, time_limit)
    cdef uint64_t done = 0
    if t.used == 0:
        node_init(&t.nodes[0], -1, -1, 1 - game_to_move(root))
        t.used = 1
    if t.vnet != NULL:
        vn_refresh_state(t.vnet, t.vn_root, root)
    while not (sims and done >= sims) and not deadline_passed(deadline, done):
        # Ctrl-C polled every 64 simulations (a simulation is a microsecond or more)
        if t.nodes[0].visits >= t.max_visits or ((done & 63) == 0 and interrupt_poll(it)):
            break
        if t.queue != NULL and (t.queue_len >= t.queue_cap
                                or t.nodes[0].guide == PRIOR_QUEUED):
            break              # a full batch, or the root itself: the evaluator's turn
        if t.nodes[0].proven != 0:
            break              # the root is solved (MCTS-Solver): nothing left to learn
        if t.solver:
            if t.queue == NULL:
                mcts_iterate_solver(root, t, False)
            else:
                mcts_iterate_solver(root, t, True)
        elif t.queue == NULL:
            mcts_iterate(root, t, False)
        else:
            mcts_iterate(root, t, True)
        done += 1
    elapsed[0] = now_monotonic() - t0
    return done


cdef class MCTSTree(TreeArena):
    """Node arena + RNG for one MCTS player.  Not locked: its owner
    (``search.MCTS``) lets one search at a time at it."""

    def __cinit__(self, max_nodes, c, seed, expand_after=0, bint solver=False,
                  playout="random"):
        self._used, self._cap, self._rng = &self.t.used, &self.t.cap, &self.t.rng
        max_nodes = check_int("max_nodes", max_nodes, min=MIN_NODES, max=(1 << 31) - 1)
        c = check_real("c", c, low=0)
        seed = resolve_seed(seed)
        expand_after = check_int("expand_after", expand_after, min=0, max=(1 << 31) - 1)
        if not isinstance(playout, str) or playout not in PLAYOUTS:
            raise ValueError(f"unknown playout {playout!r}; valid: {', '.join(PLAYOUTS)}")
        self.t.playout = PLAYOUTS[playout]
        self.t.nodes = <MNode*>big_alloc(<size_t>max_nodes * sizeof(MNode))
        if self.t.nodes == NULL:
            raise MemoryError(f"cannot allocate {max_nodes} MCTS nodes")
        self.t.alt = NULL
        self.t.cap = max_nodes
        self.t.expand_after = expand_after
        self.t.solver = solver
        self.t.used = 0
        self.t.c = c
        self.t.cf = <float>c
        self.t.queue = NULL
        self.t.queue_len = self.t.queue_cap = 0
        self.t.vnet = NULL
        self.t.value_weight = 1.0
        self.t.score_children = False
        self.t.leaf_from_children = False
        self.t.minimax = NULL
        self.t.minimax_weight = 0.0
        self.t.unit = 1
        self.t.inv_unit = 1.0
        self.t.max_visits = MAX_VISITS
        self.seed = seed
        rng_seed(&self.t.rng, seed)

    def __dealloc__(self):
        big_free(self.t.nodes, <size_t>self.t.cap * sizeof(MNode))
        big_free(self.t.alt, <size_t>self.t.cap * sizeof(MNode))

    @property
    def c(self):
        """UCT's exploration constant (settable between searches)."""
        return self.t.c

    @c.setter
    def c(self, double value):
        self.t.c, self.t.cf = value, <float>value   # the float copy for the selection loop

    @property
    def c_puct(self):
        """PUCT's constant at the nodes whose children carry priors."""
        return self.t.c_puct

    @c_puct.setter
    def c_puct(self, double value):
        self.t.c_puct = <float>value

    @property
    def root_visits(self):
        return self.t.nodes[0].visits if self.t.used else 0

    def root_children(self, bint proofs=False):
        """``[(move, visits, mean), ...]`` for the root's children, in move
        order; ``mean`` in [-1, 1] from the side to move at the root.  With
        ``proofs=True`` each tuple ends with the solver's proof (+1 winning,
        -1 losing move, 0 unknown)."""
        if self.t.used == 0 or self.t.nodes[0].first_child < 0:
            return []
        cdef MNode* nd = &self.t.nodes[0]
        cdef int32_t k
        out = []
        for k in range(nd.first_child, nd.first_child + nd.nchildren):
            row = (self.t.nodes[k].move, self.t.nodes[k].visits,
                   <double>self.t.nodes[k].wsum / self.t.nodes[k].visits / self.t.unit
                   if self.t.nodes[k].visits else 0.0)
            out.append(row + (self.t.nodes[k].proven,) if proofs else row)
        return out

    def children_of(self, path, bint minimax=False):
        """``[(move, visits, mean, proven), ...]`` for the children of the node
        reached from the root by the moves of ``path``, in move order (``mean``
        and ``proven`` for the player who made the child's move, as
        ``root_children``); ``[]`` if that node is unexpanded, None if the
        path leaves the tree.  ``minimax``: each child's implicit minimax
        value (for the same player) as a fifth element."""
        cdef int32_t node = 0, k
        cdef MNode* nd
        if minimax and self.t.minimax == NULL:
            raise ValueError("this tree keeps no minimax values (minimax_weight is 0)")
        if self.t.used == 0:
            return None
        for m in path:
            nd = &self.t.nodes[node]
            if nd.first_child < 0:
                return None
            for k in range(nd.first_child, nd.first_child + nd.nchildren):
                if self.t.nodes[k].move == m:
                    node = k
                    break
            else:
                return None
        nd = &self.t.nodes[node]
        if nd.first_child < 0:
            return []
        return [(self.t.nodes[k].move, self.t.nodes[k].visits,
                 <double>self.t.nodes[k].wsum / self.t.nodes[k].visits / self.t.unit
                 if self.t.nodes[k].visits else 0.0, self.t.nodes[k].proven)
                + ((self.t.minimax[k],) if minimax else ())
                for k in range(nd.first_child, nd.first_child + nd.nchildren)]

    @property
    def root_proven(self):
        """With the solver: +1 the side to move at the root wins, -1 it loses,
        0 unknown (a proven draw is not detected)."""
        if self.t.used == 0:
            return 0
        return -self.t.nodes[0].proven

    def best_move(self):
        """Most visited root child (ties: higher mean, then first); None if
        unexpanded.  With the solver, a proven win comes first (the most
        visited one) and proven losses last."""
        cdef int32_t k, best = -1
        cdef MNode* nd
        cdef int rank, best_rank = -2
        if self.t.used == 0 or self.t.nodes[0].first_child < 0:
            return None
        nd = &self.t.nodes[0]
        for k in range(nd.first_child, nd.first_child + nd.nchildren):
            rank = self.t.nodes[k].proven if self.t.solver else 0
            if rank < best_rank:
                continue
            if rank > best_rank:
                best_rank = rank
                best = k
                continue
            if self.t.nodes[k].visits > self.t.nodes[best].visits or (
                    self.t.nodes[k].visits == self.t.nodes[best].visits
                    and <double>self.t.nodes[k].wsum * self.t.nodes[best].visits
                    > <double>self.t.nodes[best].wsum * self.t.nodes[k].visits):
                best = k
        return self.t.nodes[best].move

    def advance_root(self, int move):
        """Make the root's child reached by ``move`` the new root (subtree
        kept); returns False (and clears the tree) if that child is unknown."""
        cdef int32_t k = tree_root_child(self.t.nodes, move) if self.t.used > 0 else -1
        if k < 0:
            self.t.used = 0
            return False
        self._compact(k)
        return True

    # ------------------------------------------------ value network at the leaves
    def set_value_net(self, CompiledValueNet net, float weight=1.0, bint score_children=True,
                      bint leaf_from_children=False, float minimax_weight=0.0,
                      float prior_temp=0.0):
        """Score new leaves with ``net`` (``weight`` of the network's value,
        ``1 - weight`` of a playout's result), or by playouts alone with
        ``net=None``; ``score_children``: an expansion gives every child its
        network value as a first visit; ``leaf_from_children`` (with
        ``score_children``): a new leaf's reward is its best child's value, one
        ply of minimax, instead of its own; ``minimax_weight`` > 0 (with
        ``score_children`` and ``weight`` 1): implicit minimax backups, each
        node's minimax value over its subtree's network values mixed into
        selection with that weight.  The tree is cleared when its reward unit
        or the minimax setting changes."""
        cdef float[::1] mm
        cdef unsigned char[::1] buf
        cdef size_t off
        if not 0.0 <= weight <= 1.0:
            raise ValueError(f"value_weight must be in [0, 1], got {weight!r}")
        if not 0.0 <= minimax_weight <= 1.0:
            raise ValueError(f"minimax_weight must be in [0, 1], got {minimax_weight!r}")
        if minimax_weight > 0 and (net is None or not score_children or weight != 1.0):
            raise ValueError("minimax_weight > 0 needs a value network with score_children=True "
                             "and value_weight=1 (the minimax values are the network's)")
        unit = 1 if net is None else VALUE_UNIT
        if unit != self.t.unit:
            self.t.used = 0
        self.t.unit = unit
        self.t.inv_unit = 1.0 / <float>unit
        self.t.max_visits = MAX_VISITS // unit
        self.t.value_weight = weight
        self.t.score_children = score_children
        self.t.leaf_from_children = leaf_from_children and score_children
        if (minimax_weight > 0) != (self.t.minimax != NULL):
            self.t.used = 0
        if minimax_weight > 0:
            if self._minimax_buf is None:
                self._minimax_buf = np.zeros(self.t.cap, dtype=np.float32)
            mm = self._minimax_buf
            self.t.minimax = &mm[0]
        else:
            self.t.minimax = NULL
            self._minimax_buf = None
        self.t.minimax_weight = minimax_weight
        if prior_temp != self.t.prior_temp:
            self.t.used = 0
        self.t.prior_temp = prior_temp if score_children else 0.0
        if net is None:
            self.t.vnet = NULL
            self._vnet = self._vn_buf = None
            return
        if net is not self._vnet:
            self._vn_buf = np.zeros(3 * net.net.acc_bytes + 64, dtype=np.uint8)
            buf = self._vn_buf
            off = (64 - (<size_t>&buf[0]) % 64) % 64       # cache-line aligned
            self.t.vn_root = <char*>&buf[0] + off
            self.t.vn_leaf = self.t.vn_root + net.net.acc_bytes
            self.t.vn_child = self.t.vn_leaf + net.net.acc_bytes
            self._vnet = net
        self.t.vnet = &net.net

    @property
    def value_net(self):
        """The ``CompiledValueNet`` scoring the leaves, or None."""
        return self._vnet

    # ------------------------------------------------ prior-guided search
    def guide(self, GameBoard board, int batch, int prior_visits, float c_puct):
        """Let an evaluator's policy guide this tree: nodes with
        ``prior_visits`` visits (the root at once) are queued, ``batch`` at a
        time, for ``prior_install``; nodes whose children carry priors select by
        PUCT with ``c_puct``.  ``batch=0`` turns guidance off."""
        if batch < 0 or prior_visits < 0 or not c_puct >= 0:
            raise ValueError("guide: batch and prior_visits must be >= 0, c_puct >= 0")
        self.prior_drop()
        if batch == 0:
            self.t.queue = NULL
            self.t.queue_cap = 0
            self._queue_buf = self._obs_buf = self._mask_buf = None
            return
        obs_shape = tuple(board.observation().shape)
        self._queue_buf = np.zeros(batch, dtype=np.int32)
        self._obs_buf = np.zeros((batch,) + obs_shape, dtype=np.int8)
        self._mask_buf = np.zeros((batch, board.num_actions), dtype=np.uint8)
        cdef int32_t[::1] q = self._queue_buf
        cdef int8_t[::1] o = self._obs_buf.reshape(-1)
        cdef uint8_t[:, ::1] m = self._mask_buf
        self.t.queue = &q[0]
        self.t.obs = &o[0]
        self.t.mask = &m[0, 0]
        self.t.obs_size = <int>(self._obs_buf.size // batch)
        self.t.num_actions = board.num_actions
        self.t.queue_cap = batch
        self.t.prior_visits = prior_visits
        self.t.c_puct = c_puct

    @property
    def prior_pending(self):
        """Nodes queued for the evaluator."""
        return self.t.queue_len if self.t.queue != NULL else 0

    @property
    def prior_due(self):
        """True when the search waits for ``prior_install``: the queue is full,
        or the root is queued (its priors are wanted at once)."""
        return self.t.queue != NULL and self.t.queue_len > 0 and (
            self.t.queue_len >= self.t.queue_cap or self.t.nodes[0].guide == PRIOR_QUEUED)

    def prior_inputs(self):
        """``(observations int8[n, *planes], legal_mask bool[n, A])`` of the
        queued nodes (views of the tree's buffers)."""
        n = self.prior_pending
        return self._obs_buf[:n], self._mask_buf[:n].view(np.bool_)

    def prior_install(self, GameBoard board, float[:, ::1] logits):
        """Give the queued nodes' children their priors: the softmax of
        ``logits`` (one row per queued node, checked by the caller) over the
        node's legal moves; empties the queue."""
        cdef int32_t n = self.t.queue_len
        if self.t.queue == NULL or n == 0:
            return
        if logits.shape[0] != n or logits.shape[1] != self.t.num_actions:
            raise ValueError(f"prior_install: logits of shape ({logits.shape[0]}, "
                             f"{logits.shape[1]}), expected ({n}, {self.t.num_actions})")
        with nogil:
            install_priors(&board.state, &self.t, &logits[0, 0])

    def prior_drop(self):
        """Forget the queued nodes (they are queued again when next reached)."""
        cdef int32_t i
        if self.t.queue != NULL:
            for i in range(self.t.queue_len):
                if self.t.queue[i] < self.t.used:
                    self.t.nodes[self.t.queue[i]].guide = PRIOR_NONE
        self.t.queue_len = 0

    @property
    def root_priors(self):
        """``{move: prior}`` of the root's children when the evaluator's priors
        are installed there, else None."""
        if self.t.used == 0 or self.t.nodes[0].first_child < 0 \
                or self.t.nodes[0].guide != PRIOR_READY:
            return None
        cdef MNode* nd = &self.t.nodes[0]
        return {self.t.nodes[k].move: self.t.nodes[k].prior / 65535.0
                for k in range(nd.first_child, nd.first_child + nd.nchildren)}

    cdef int _compact(self, int32_t new_root) except -1:
        if new_root == 0:
            return 0
        if self.t.alt == NULL:
            self.t.alt = <MNode*>big_alloc(<size_t>self.t.cap * sizeof(MNode))
            if self.t.alt == NULL:
                raise MemoryError("cannot allocate the MCTS compaction arena")
        with nogil:
            tree_keep(&self.t.nodes, &self.t.alt, &self.t.used, new_root)
            if self.t.minimax != NULL:
                minimax_rebuild(&self.t)
        return 0


cdef void install_priors(GameState* s, MTree* t, const float* logits) noexcept nogil:
    """Softmax of each queued node's logits over its children's actions,
    stored in the children (:func:`softmax_priors`)."""
    cdef int32_t i, k, node, first
    cdef const float* row
    cdef float e[MAX_MOVES]
    for i in range(t.queue_len):
        node = t.queue[i]
        if node >= t.used or t.nodes[node].guide != PRIOR_QUEUED:
            continue
        first = t.nodes[node].first_child
        row = logits + <size_t>i * t.num_actions
        for k in range(t.nodes[node].nchildren):
            e[k] = row[game_move_to_action(s, t.nodes[first + k].move)]
        softmax_priors(t, node, e)
    t.queue_len = 0


def mcts_search(MCTSTree tree, GameBoard board, simulations, time_limit,
                int[::1] stop=None):
    """Run simulations from ``board`` (which must be the tree's root position,
    see ``mcts_reroot``); returns ``(simulations_done, seconds)``.  Stops early,
    between simulations, on Ctrl-C (``KeyboardInterrupt``) or when the shared
    ``stop`` flag of a root-parallel search is set."""
    cdef uint64_t done
    cdef uint64_t sims = check_int("simulations", simulations, min=0, max=INT64_MAX)
    cdef double seconds = check_real("time_limit", time_limit, low=0)
    cdef double elapsed = 0.0
    cdef interrupt_t it
    interrupt_init(&it, 1, <volatile int*>&stop[0] if stop is not None else NULL)
    with nogil:
        done = mcts_run(&board.state, &tree.t, sims, seconds, &elapsed, &it)
    interrupt_finish(&it)
    return done, elapsed


def mcts_reroot(MCTSTree tree, GameBoard old_root, GameBoard new_root, int max_depth):
    """Keep the subtree for ``new_root`` if it is ``old_root`` or a descendant
    up to ``max_depth`` plies in the tree; else clear.  Returns the depth
    searched result: True if a subtree was kept."""
    cdef int32_t found
    if tree.t.used == 0:
        return False
    found = tree_find(&old_root.state, tree.t.nodes, &new_root.state, max_depth)
    if found < 0:
        tree.t.used = 0
        return False
    tree._compact(found)
    return True
