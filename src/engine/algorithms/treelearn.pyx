# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Tree Q-learning and Sarsa, written once for every game.

Both learners keep their Q table as a *tree*: a node stands for the board
reached by ``move`` from its parent and holds ``q``, the Q-value of
(parent board, move) expressed from the point of view of the side to move at
the node, i.e. the opponent of the player who made ``move`` (so a parent picks
the child with the **lowest** q).  Nodes live in one preallocated arena; a
node's children are created together, contiguously, the first time a
simulation passes through it, each initialised to 0, or to ``-win`` when the
move ends the game with a win (the "early Q value").

One training iteration ("simulation") starts at the current board and plays
to the end of the game inside the tree: at each node, with probability
``epsilon`` a uniformly random child, otherwise the child with the lowest q
(ties broken uniformly at random).  Then:

* **Q-learning**: walking back from the final node, with
  ``u`` the final utility from the side to move at that node (``-win`` after a
  win, 0 after a draw) and its sign flipped at every step up,
  ``q <- q + alpha(x) (u - q)``, where ``x`` is the number of plies from the
  end of the game and ``alpha(x) = max(A e^(-k x), alpha_min)`` (the classic
  variable learning rate: faster near the end of the game).
* **Sarsa**: ``Q[s,a] <- Q[s,a] + alpha (r - Q[s,a] + gamma Q[s',a'])`` with the
  reward only at the end and ``a'`` the move the simulation actually took
  next; in the tree's negamax convention that is
  ``q(n) <- q(n) + alpha (-gamma q(next) - q(n))`` walking back from the final
  node, whose q is the exact reward (``-win`` / 0).

When the arena is full the simulation leaves the tree at its last node and
finishes with uniformly random moves; that node is then updated with the
outcome seen ``x`` plies later (Q: ``alpha(x)``; Sarsa: ``gamma^x``-discounted),
and the rest of the path as usual.

The move played is the root child with the lowest q (ties: more visits, then
move order).  Between turns the subtree of the new current board is kept
(found among the old root's descendants by hash) and compacted in place to the
front of the arena; everything else is dropped.
"""
from libc.stdint cimport int32_t, int16_t, int8_t, uint64_t
from ttt_engine._core.core.bigmem cimport big_alloc, big_free
from libc.math cimport exp, pow, log
from ttt_engine._core.core.clock cimport now_monotonic, deadline_after, deadline_passed
from ttt_engine._util import INT64_MAX, check_int, check_real, resolve_seed
from ttt_engine._core.core.interrupt cimport (
    interrupt_t, interrupt_init, interrupt_poll, interrupt_finish,
)
from ttt_engine._core.algorithms.tree cimport tree_find

from ttt_engine._core.core.rng cimport rng_t, rng_seed, rng_below, rng_uniform
from ttt_engine._core.algorithms.game cimport (
    GameState, GameBoard, MAX_MOVES, undo_t, GAME_ONGOING, GAME_WIN_FIRST, GAME_DRAW,
    game_to_move, game_status, game_legal_moves, game_random_move, game_make, game_unmake,
    game_init_tables,
)
game_init_tables()   # every game's lookup tables

MIN_NODES = 1 + MAX_MOVES
PY_QLEARN = TL_QLEARN
PY_SARSA = TL_SARSA
cdef enum:
    TAIL_CAP = 1000000        # plies: a random tail longer than this counts as a draw





cdef inline void node_init(TLNode* nd, int move) noexcept nogil:
    nd.q = 0.0
    nd.first_child = -1
    nd.visits = 0
    nd.nchildren = 0
    nd.move = <int16_t>move
    nd.to_move = 0
    nd.terminal = 0


cdef inline double outcome_for(int status, int player, double win) noexcept nogil:
    """Utility of a final ``status`` for ``player`` (0 for a draw / unfinished)."""
    if status == GAME_ONGOING or status == GAME_DRAW:
        return 0.0
    if (status == GAME_WIN_FIRST) == (player == 0):
        return win
    return -win


cdef bint tl_expand(GameState* s, TLTree* t, int32_t node, int* moves) noexcept nogil:
    """Create every child of ``node`` (position ``s``); False if the arena is full."""
    cdef int n = game_legal_moves(s, moves), k, st
    cdef int32_t first
    cdef TLNode* ch
    cdef undo_t u
    if n == 0 or t.used + n > t.cap:
        return False
    first = t.used
    t.used += n
    for k in range(n):
        ch = &t.nodes[first + k]
        node_init(ch, moves[k])
        u = game_make(s, moves[k])
        st = game_status(s)
        ch.to_move = <int8_t>game_to_move(s)
        if st != GAME_ONGOING:
            ch.terminal = 1
            ch.q = outcome_for(st, ch.to_move, t.win)    # exact: -win after a winning move
        game_unmake(s, moves[k], u)
    t.nodes[node].first_child = first
    t.nodes[node].nchildren = <int16_t>n
    return True


cdef inline int32_t tl_pick(TLTree* t, TLNode* nd) noexcept nogil:
    """Epsilon-greedy child: random with probability epsilon, else lowest q
    (uniformly random among equal lowest)."""
    cdef int32_t first = nd.first_child, k, best
    cdef int n = nd.nchildren, ties = 1
    cdef double bq, q
    if t.epsilon > 0 and rng_uniform(&t.rng) < t.epsilon:
        return first + <int32_t>rng_below(&t.rng, n)
    best = first
    bq = t.nodes[first].q
    for k in range(first + 1, first + n):
        q = t.nodes[k].q
        if q < bq:
            bq = q
            best = k
            ties = 1
        elif q == bq:
            ties += 1
            if rng_below(&t.rng, ties) == 0:
                best = k
    return best


cdef void tl_simulate(GameState* root, TLTree* t) noexcept nogil:
    """One training iteration from ``root`` (tree root = node 0), then the update."""
    cdef GameState work = root[0]
    cdef int moves[MAX_MOVES]
    cdef TLNode* nodes = t.nodes
    cdef TLNode* nd
    cdef int32_t node = 0
    cdef int depth = 0, status, tail = 0, i, last_player, x
    cdef double u, z, a, nxt, target
    t.path[0] = 0
    status = game_status(&work)
    while status == GAME_ONGOING:
        nd = &nodes[node]
        if nd.first_child < 0:
            if not tl_expand(&work, t, node, moves):
                break
        if depth + 1 >= TL_MAX_PATH:
            break
        node = tl_pick(t, nd)
        game_make(&work, nodes[node].move)
        depth += 1
        t.path[depth] = node
        status = game_status(&work)
    if status == GAME_ONGOING:
        # arena full (or path too long): finish the game with random moves
        t.tail_sims += 1
        while status == GAME_ONGOING and tail < TAIL_CAP:
            game_make(&work, game_random_move(&work, &t.rng))
            tail += 1
            status = game_status(&work)
    nd = &nodes[t.path[depth]]
    last_player = nd.to_move
    z = outcome_for(status, last_player, t.win)
    if t.algo == TL_QLEARN:
        u = z
        x = tail
        i = depth
        while i >= 0:
            nd = &nodes[t.path[i]]
            nd.visits += 1
            a = t.alpha_tab[x if x < TL_ALPHA_TABLE else TL_ALPHA_TABLE - 1]
            nd.q += a * (u - nd.q)
            if i > 0 and nodes[t.path[i - 1]].to_move != nd.to_move:
                u = -u
            x += 1
            i -= 1
    else:
        nd.visits += 1
        if not nd.terminal:
            target = z * pow(t.gamma, tail)
            nd.q += t.alpha * (target - nd.q)
        nxt = nd.q
        i = depth - 1
        while i >= 0:
            nd = &nodes[t.path[i]]
            nd.visits += 1
            if nd.to_move != nodes[t.path[i + 1]].to_move:
                target = -t.gamma * nxt
            else:
                target = t.gamma * nxt
            nd.q += t.alpha * (target - nd.q)
            nxt = nd.q
            i -= 1


cdef uint64_t tl_run(GameState* root, TLTree* t, uint64_t iters, double time_limit,
                     double* elapsed, interrupt_t* it) noexcept nogil:
    """Train until ``iters`` simulations (0 = no limit) or ``time_limit`` seconds
    (<= 0 = no limit), or ``it`` reports an interrupt (between simulations);
    returns the number of simulations."""
    cdef double t0 = now_monotonic(), deadline = deadline_after(t0, time_limit)
    cdef uint64_t done = 0
    if t.used == 0:
        node_init(&t.nodes[0], -1)
        t.nodes[0].to_move = <int8_t>game_to_move(root)
        t.nodes[0].terminal = game_status(root) != GAME_ONGOING
        t.used = 1
    if game_status(root) != GAME_ONGOING:
        elapsed[0] = 0.0
        return 0
    while not (iters and done >= iters) and not deadline_passed(deadline, done):
        if t.nodes[0].visits >= 2000000000 or interrupt_poll(it):
            break
        tl_simulate(root, t)
        done += 1
    elapsed[0] = now_monotonic() - t0
    return done


cdef void compact(TLTree* t, int32_t new_root) noexcept nogil:
    """Keep only the subtree under ``new_root``, moved in place to the front of
    the arena (root at 0).  Children always sit at higher indices than their
    parent, so one forward pass marks the subtree, and moving live nodes in
    index order never overwrites a live node not yet moved."""
    cdef int32_t i, j = 0, f, k
    cdef int32_t* remap = t.remap
    cdef TLNode* nodes = t.nodes
    for i in range(new_root, t.used):
        remap[i] = -1
    remap[new_root] = 0
    for i in range(new_root, t.used):           # mark
        if remap[i] >= 0:
            f = nodes[i].first_child
            if f >= 0:
                for k in range(f, f + nodes[i].nchildren):
                    remap[k] = 0
    for i in range(new_root, t.used):           # number
        if remap[i] >= 0:
            remap[i] = j
            j += 1
    for i in range(new_root, t.used):           # move
        if remap[i] >= 0:
            nodes[remap[i]] = nodes[i]
            f = nodes[remap[i]].first_child
            if f >= 0:
                nodes[remap[i]].first_child = remap[f]
    nodes[0].move = -1
    t.used = j


cdef class TreeLearner(TreeArena):
    """Node arena, parameters and RNG of one tree Q-learning or Sarsa player.

    Use through :class:`ttt_engine.tree_agents.TreeQAgent` / ``SarsaAgent``;
    arguments are validated there.
    """

    def __cinit__(self, max_nodes, int algo, seed):
        self._used, self._cap, self._rng = &self.t.used, &self.t.cap, &self.t.rng
        max_nodes = check_int("max_nodes", max_nodes, min=MIN_NODES, max=(1 << 31) - 1)
        seed = resolve_seed(seed)
        if algo != TL_QLEARN and algo != TL_SARSA:
            raise ValueError(f"algo must be {TL_QLEARN} (Q-learning) or {TL_SARSA} (Sarsa)")
        self.t.cap = max_nodes
        self.t.nodes = <TLNode*>big_alloc(<size_t>max_nodes * sizeof(TLNode))
        self.t.remap = <int32_t*>big_alloc(<size_t>max_nodes * sizeof(int32_t))
        if self.t.nodes == NULL or self.t.remap == NULL:
            raise MemoryError(f"cannot allocate {max_nodes} tree nodes")
        self.t.cap = max_nodes
        self.t.used = 0
        self.t.algo = algo
        self.t.epsilon = 0.1
        self.t.win = 10.0
        self.t.alpha = 0.15
        self.t.gamma = 0.99
        self.t.tail_sims = 0
        self.set_learning_rate(0.4, 0.01, log(0.4 / 0.01) / 30.0)
        self.seed = seed
        rng_seed(&self.t.rng, seed)

    def __dealloc__(self):
        big_free(self.t.nodes, <size_t>self.t.cap * sizeof(TLNode))
        big_free(self.t.remap, <size_t>self.t.cap * sizeof(int32_t))

    def configure(self, double epsilon, double win, double alpha, double gamma):
        self.t.epsilon = epsilon
        self.t.win = win
        self.t.alpha = alpha
        self.t.gamma = gamma

    def set_learning_rate(self, double A, double alpha_min, double k):
        """Q-learning rate ``alpha(x) = max(A exp(-k x), alpha_min)`` (tabulated)."""
        cdef int x
        cdef double a
        self.t.A = A
        self.t.alpha_min = alpha_min
        self.t.k = k
        for x in range(TL_ALPHA_TABLE):
            a = A * exp(-k * x)
            self.t.alpha_tab[x] = a if a > alpha_min else alpha_min

    def alpha_at(self, int x):
        """The Q-learning rate ``x`` plies from the end of the game."""
        return self.t.alpha_tab[x if x < TL_ALPHA_TABLE else TL_ALPHA_TABLE - 1]





    @property
    def tail_simulations(self):
        """Simulations that found the arena full and finished with random moves."""
        return self.t.tail_sims

    @property
    def root_visits(self):
        return self.t.nodes[0].visits if self.t.used else 0

    def root_children(self):
        """``[(move, q, visits), ...]`` in move order; q from the opponent's side
        (lower is better for the player to move at the root)."""
        if self.t.used == 0 or self.t.nodes[0].first_child < 0:
            return []
        cdef int32_t f = self.t.nodes[0].first_child, k
        return [(self.t.nodes[k].move, self.t.nodes[k].q, self.t.nodes[k].visits)
                for k in range(f, f + self.t.nodes[0].nchildren)]

    def best_move(self):
        """Root child with the lowest q (ties: more visits, then move order)."""
        cdef int32_t f, k, best = -1
        if self.t.used == 0 or self.t.nodes[0].first_child < 0:
            return None
        f = self.t.nodes[0].first_child
        for k in range(f, f + self.t.nodes[0].nchildren):
            if best < 0 or self.t.nodes[k].q < self.t.nodes[best].q or (
                    self.t.nodes[k].q == self.t.nodes[best].q
                    and self.t.nodes[k].visits > self.t.nodes[best].visits):
                best = k
        return self.t.nodes[best].move

    def child_visits(self, int move):
        """Visits of the root child reached by ``move`` (None if absent)."""
        cdef int32_t f, k
        if self.t.used == 0 or self.t.nodes[0].first_child < 0:
            return None
        f = self.t.nodes[0].first_child
        for k in range(f, f + self.t.nodes[0].nchildren):
            if self.t.nodes[k].move == move:
                return self.t.nodes[k].visits
        return None

    def grandchild_visits(self, int move1, int move2):
        """Visits of the node reached by ``move1`` then ``move2`` (None if absent)."""
        cdef int32_t f, k, c = -1
        if self.t.used == 0 or self.t.nodes[0].first_child < 0:
            return None
        f = self.t.nodes[0].first_child
        for k in range(f, f + self.t.nodes[0].nchildren):
            if self.t.nodes[k].move == move1:
                c = k
        if c < 0 or self.t.nodes[c].first_child < 0:
            return None
        f = self.t.nodes[c].first_child
        for k in range(f, f + self.t.nodes[c].nchildren):
            if self.t.nodes[k].move == move2:
                return self.t.nodes[k].visits
        return None


def tl_search(TreeLearner tree, GameBoard board, iterations, time_limit):
    """Train from ``board`` (the tree's root position); ``(simulations, seconds)``."""
    cdef uint64_t done
    cdef uint64_t iters = check_int("iterations", iterations, min=0, max=INT64_MAX)
    cdef double seconds = check_real("time_limit", time_limit, low=0)
    cdef double elapsed = 0.0
    cdef interrupt_t it
    interrupt_init(&it, 64, NULL)
    with nogil:
        done = tl_run(&board.state, &tree.t, iters, seconds, &elapsed, &it)
    interrupt_finish(&it)
    return done, elapsed


def tl_reroot(TreeLearner tree, GameBoard old_root, GameBoard new_root, int max_depth):
    """Keep the subtree of ``new_root`` if it is ``old_root`` or a descendant up to
    ``max_depth`` plies in the tree (matched by hash and side to move); else
    clear the tree.  Returns True when a subtree was kept."""
    cdef int32_t found
    cdef uint64_t key = 0
    if tree.t.used == 0:
        return False
    with nogil:
        found = tree_find(&old_root.state, tree.t.nodes, &new_root.state, max_depth)
        if found >= 0:
            if found > 0:
                compact(&tree.t, found)
        else:
            tree.t.used = 0
    return found >= 0
