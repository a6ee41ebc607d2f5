# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""One PUCT tree (puct.pyx): its search parameters, its arena and the
operations on its nodes -- selection, expansion with the evaluator's priors,
back-up, proofs (MCTS-Solver), virtual losses, the root's Dirichlet noise and
the choice of the move to play.
``puct.pyx`` builds the forests, the leaf gathering and self-play on them."""
from libc.stdint cimport uint8_t, int16_t, int32_t, int64_t
from libc.math cimport sqrt, log, exp, INFINITY

from ttt_engine._core.core.rng cimport rng_t, rng_uniform
from ttt_engine._core.core.sample cimport sample_gamma, sample_uniform_open
from ttt_engine._core.core.sort cimport sort_ints
from ttt_engine._core.algorithms.game cimport (
    GameState, MAX_MOVES, GAME_DRAW, GAME_WIN_FIRST, game_to_move, game_legal_moves,
)
from ttt_engine._core.algorithms.game_actions cimport game_move_to_action
from ttt_engine._core.algorithms.nodes cimport PNode


cdef struct PParams:
    double c_puct           # exploration constant (c_base <= 0)
    double c_base           # > 0: c(s) = c_init + log((N_s + c_base + 1) / c_base)
    double c_init
    double alpha            # Dirichlet noise at the root (<= 0: none)
    double noise_fraction
    int playouts            # uniform evaluator: random playouts per leaf
    double playout_weight   # evaluator's value mixed with random playouts' mean result
    int mix_playouts        # how many playouts that mean is over
    int playout_policy      # PLAYOUT_RANDOM or PLAYOUT_DECISIVE (mcts.pxd)
    int expand_after        # a leaf goes to the evaluator once it has this many visits
    bint solver             # MCTS-Solver proofs (finished games prove their nodes)
    bint keep_leaf_values   # a leaf the full arena cannot grow backs up its mean
                            # instead of a new call (a deterministic evaluator's
                            # value alone: the compiled network's)
    double draw_value[2]    # a draw's value for the first / second player to move
                            # (0: a draw is a draw; contempt makes the root's
                            # mover value it below 0, its opponent above)


cdef struct PTree:
    PNode* nodes
    PNode* alt              # compaction target (the forest's second arena)
    int32_t cap
    int32_t used


cdef inline void node_init(PNode* nd, int32_t parent, int move, float prior) noexcept nogil:
    nd.parent = parent
    nd.first_child = -1
    nd.visits = 0
    nd.pending = 0
    nd.wsum = 0.0
    nd.prior = prior
    nd.nchildren = 0
    nd.proven = 0
    nd.move = <int16_t>move


cdef inline void tree_clear(PTree* t) noexcept nogil:
    node_init(&t.nodes[0], -1, -1, 1.0)
    t.used = 1


cdef inline int32_t select_child(const PNode* nodes, const PNode* nd, const PParams* p,
                                 bint solver) noexcept nogil:
    """The child maximising Q + U, pending visits counted as losses; ties: first.
    With proofs (``solver``, a constant at each call site, so the plain search
    compiles without them): a child proven won for the player to move is taken
    at once, proven losses are skipped, and -1 means every child is one."""
    cdef double ns = <double>(nd.visits + nd.pending)
    cdef double c = p.c_puct, sq = sqrt(ns), n, q, sc, best_sc = -INFINITY
    cdef int32_t k, best = -1 if solver else nd.first_child
    cdef const PNode* ch
    if p.c_base > 0.0:
        c = p.c_init + log((ns + p.c_base + 1.0) / p.c_base)
    for k in range(nd.first_child, nd.first_child + nd.nchildren):
        ch = &nodes[k]
        if solver:
            if ch.proven > 0:
                return k
            if ch.proven < 0:
                continue
        n = <double>(ch.visits + ch.pending)
        q = (ch.wsum - ch.pending) / n if n > 0.0 else 0.0
        sc = q + c * <double>ch.prior * sq / (1.0 + n)
        if sc > best_sc:
            best_sc = sc
            best = k
    return best


cdef inline void propagate_proof(PNode* nodes, int32_t node) noexcept nogil:
    """``node`` was just proven: carry the proof up while it decides the parent
    (a child won by the player to move proves the parent lost for its own
    mover; children all lost prove it won)."""
    cdef int32_t parent, k
    cdef PNode* par
    cdef bint all_lost
    while True:
        parent = nodes[node].parent
        if parent < 0:
            return
        par = &nodes[parent]
        if par.proven != 0:
            return
        if nodes[node].proven > 0:
            par.proven = -1
        else:
            all_lost = True
            for k in range(par.first_child, par.first_child + par.nchildren):
                if nodes[k].proven >= 0:
                    all_lost = False
                    break
            if not all_lost:
                return
            par.proven = 1
        node = parent


cdef inline double terminal_value(const GameState* s, int status,
                                  const PParams* p) noexcept nogil:
    """A finished game's value for the side to move there."""
    if status == GAME_DRAW:
        return p.draw_value[game_to_move(s)]
    return 1.0 if status - GAME_WIN_FIRST == game_to_move(s) else -1.0


cdef inline void backup(PNode* nodes, int32_t node, double v, bint was_pending) noexcept nogil:
    """Back ``v`` (for the side to move at ``node``) up to the root."""
    cdef double x = -v
    cdef PNode* nd
    while node >= 0:
        nd = &nodes[node]
        if was_pending:
            nd.pending -= 1
        nd.visits += 1
        nd.wsum += x
        x = -x
        node = nd.parent


cdef inline int leaf_priors(const GameState* s, const float* logits, int* moves,
                            float* priors) noexcept nogil:
    """The legal moves of ``s`` in ascending order (the order of
    ``Board.legal_moves``; UTTT generates them board by board, the others
    already sorted) and their priors: the softmax of ``logits`` (indexed by
    action) over them, or uniform when ``logits`` is NULL.  Returns their
    number.  Touches no tree, so tree parallelism runs it outside the lock."""
    cdef double e[MAX_MOVES]
    cdef int n = game_legal_moves(s, moves), i
    cdef double m = -INFINITY, total = 0.0
    sort_ints(moves, n)
    if logits != NULL:
        for i in range(n):
            e[i] = <double>logits[game_move_to_action(s, moves[i])]
            if e[i] > m:
                m = e[i]
    if m == -INFINITY:          # no logits, or every legal one -inf: no preference
        for i in range(n):
            priors[i] = <float>(1.0 / n)
        return n
    for i in range(n):
        e[i] = exp(e[i] - m)
        total += e[i]
    for i in range(n):
        priors[i] = <float>(e[i] / total)
    return n


cdef inline void expand_with(PTree* t, int32_t node, const int* moves, const float* priors,
                             int n) noexcept nogil:
    """Create ``node``'s ``n`` children (``leaf_priors``' moves and priors).
    Nothing when the arena has no room for them."""
    cdef int i
    cdef int32_t first
    if n == 0 or t.used + n > t.cap:
        return
    first = t.used
    t.used += n
    t.nodes[node].first_child = first
    t.nodes[node].nchildren = <uint8_t>n
    for i in range(n):
        node_init(&t.nodes[first + i], node, moves[i], priors[i])


cdef inline void expand(PTree* t, int32_t node, const GameState* s, const float* logits) noexcept nogil:
    """Create ``node``'s children (position ``s``, ascending move order) with priors: the softmax of
    ``logits`` (indexed by action) over the legal moves, or uniform when
    ``logits`` is NULL.  Nothing when the arena has no room for them."""
    cdef int moves[MAX_MOVES]
    cdef float priors[MAX_MOVES]
    expand_with(t, node, moves, priors, leaf_priors(s, logits, moves, priors))


cdef inline void add_noise(PTree* t, const PParams* p, rng_t* rng) noexcept nogil:
    """Root priors <- (1 - f) P + f eta, eta ~ Dirichlet(alpha) over the root's children."""
    cdef PNode* root = &t.nodes[0]
    cdef double g[MAX_MOVES]
    cdef double total = 0.0
    cdef int i, n = root.nchildren
    if n <= 0 or p.alpha <= 0.0:
        return
    for i in range(n):
        g[i] = sample_gamma(rng, p.alpha)
        total += g[i]
    if total <= 0.0:
        return
    for i in range(n):
        t.nodes[root.first_child + i].prior = <float>(
            (1.0 - p.noise_fraction) * t.nodes[root.first_child + i].prior
            + p.noise_fraction * g[i] / total)


cdef inline void add_pending(PNode* nodes, int32_t node) noexcept nogil:
    """A virtual loss on every node from ``node`` up to the root."""
    while node >= 0:
        nodes[node].pending += 1
        node = nodes[node].parent


cdef inline int choose_move(const PTree* t, bint sample, rng_t* rng) noexcept nogil:
    """The root move to play: sampled in proportion to the visits (``sample``;
    a root whose children have no visits yet takes the choice below), or the
    most visited, ties going to the higher prior, then to the first in move
    order.  A search too short to tell the children apart (fewer simulations
    than children, or a tie at the top) so plays by the evaluator's policy:
    an unvisited child ranks by its prior.  With proofs (the solver), a
    proven win comes first and proven losses last."""
    cdef const PNode* root = &t.nodes[0]
    cdef const PNode* ch
    cdef const PNode* b
    cdef int32_t k, best = root.first_child
    cdef int64_t total = 0, r
    cdef int rank, best_rank = -2
    if sample:
        for k in range(root.first_child, root.first_child + root.nchildren):
            total += t.nodes[k].visits
        if total > 0:
            r = <int64_t>(rng_uniform(rng) * total)
            for k in range(root.first_child, root.first_child + root.nchildren):
                r -= t.nodes[k].visits
                if r < 0:
                    return t.nodes[k].move
    for k in range(root.first_child, root.first_child + root.nchildren):
        ch = &t.nodes[k]
        b = &t.nodes[best]
        rank = ch.proven
        if rank > best_rank or (rank == best_rank and (
                ch.visits > b.visits or (ch.visits == b.visits and ch.prior > b.prior))):
            best_rank = rank
            best = k
    return t.nodes[best].move


# ------------------------------------------------------------ Gumbel root search
cdef struct GumbelParams:
    int k                   # actions considered at the root (sampled by Gumbel-top-k)
    double c_visit          # sigma(q) = (c_visit + max N) * c_scale * q
    double c_scale
    int n                   # the root children's visit budget (the table's columns)
    const int32_t* table    # [k + 1, n]: the visit count every considered action
                            # reaches before simulation s (sequential halving), by
                            # the number of considered actions


cdef inline void gumbel_completed(const PNode* nodes, const PNode* root, const GumbelParams* gp,
                                  double* sigma) noexcept nogil:
    """sigma(completed Q) of every root child, for the root's side to move:
    a visited child's Q, the root's mean value for an unvisited one, both
    rescaled to [0, 1] by the minimum and maximum over the children (the
    scale the constants c_visit and c_scale are set for)."""
    cdef int i, n = root.nchildren
    cdef int64_t max_n = 0
    cdef double v = -root.wsum / root.visits if root.visits > 0 else 0.0
    cdef double lo = INFINITY, hi = -INFINITY, scale
    cdef const PNode* ch
    for i in range(n):
        ch = &nodes[root.first_child + i]
        sigma[i] = ch.wsum / ch.visits if ch.visits > 0 else v
        if sigma[i] < lo:
            lo = sigma[i]
        if sigma[i] > hi:
            hi = sigma[i]
        if ch.visits > max_n:
            max_n = ch.visits
    scale = (gp.c_visit + <double>max_n) * gp.c_scale / (hi - lo if hi - lo > 1e-8 else 1e-8)
    for i in range(n):
        sigma[i] = (sigma[i] - lo) * scale


cdef inline double log_prior(const PNode* nd) noexcept nogil:
    """The child's logit up to a constant (its prior is their softmax)."""
    return log(<double>nd.prior) if nd.prior > 1e-30 else log(1e-30)


cdef inline int32_t gumbel_select(const PNode* nodes, const PNode* root, const GumbelParams* gp,
                                  const double* g) noexcept nogil:
    """The root child to simulate next (sequential halving over the ``k``
    actions of largest g + logit): among the children whose visits (pending
    included) equal the schedule's count for this simulation, the one
    maximising g + logit + sigma(completed Q); the first child of largest
    score if none does (the schedule is spent)."""
    cdef double sigma[MAX_MOVES]
    cdef int i, n = root.nchildren, m = gp.k if gp.k < n else n
    cdef int64_t s = 0, want = -1, vis
    cdef double sc, best_sc = -INFINITY, any_sc = -INFINITY
    cdef int32_t best = -1, any_best = root.first_child
    cdef const PNode* ch
    for i in range(n):
        ch = &nodes[root.first_child + i]
        s += ch.visits + ch.pending
    if s < gp.n:
        want = gp.table[m * gp.n + s]
    gumbel_completed(nodes, root, gp, sigma)
    for i in range(n):
        ch = &nodes[root.first_child + i]
        sc = g[i] + log_prior(ch) + sigma[i]
        vis = ch.visits + ch.pending
        if vis == want and sc > best_sc:
            best_sc = sc
            best = root.first_child + i
        if sc > any_sc:
            any_sc = sc
            any_best = root.first_child + i
    return best if best >= 0 else any_best


cdef inline int32_t gumbel_choose(const PNode* nodes, const PNode* root, const GumbelParams* gp,
                                  const double* g, float* target, const int* actions) noexcept nogil:
    """After the search: the root child to play (of the most visited, the
    largest g + logit + sigma(completed Q)), and, if ``target`` is given, the
    improved policy softmax(logit + sigma(completed Q)) written at each
    child's action (``actions[i]``)."""
    cdef double sigma[MAX_MOVES]
    cdef double e[MAX_MOVES]
    cdef int i, n = root.nchildren
    cdef int64_t max_n = 0
    cdef double sc, best_sc = -INFINITY, hi = -INFINITY, total = 0.0
    cdef int32_t best = root.first_child
    cdef const PNode* ch
    gumbel_completed(nodes, root, gp, sigma)
    for i in range(n):
        if nodes[root.first_child + i].visits > max_n:
            max_n = nodes[root.first_child + i].visits
    for i in range(n):
        ch = &nodes[root.first_child + i]
        e[i] = log_prior(ch) + sigma[i]
        if e[i] > hi:
            hi = e[i]
        if ch.visits == max_n:
            sc = g[i] + e[i]
            if sc > best_sc:
                best_sc = sc
                best = root.first_child + i
    if target != NULL:
        for i in range(n):
            e[i] = exp(e[i] - hi)
            total += e[i]
        for i in range(n):
            target[actions[i]] = <float>(e[i] / total)
    return best


cdef inline void gumbel_sample(const PNode* root, rng_t* rng, double* g) noexcept nogil:
    """Fresh Gumbel(0, 1) noise for every root child."""
    cdef int i
    for i in range(root.nchildren):
        g[i] = -log(-log(sample_uniform_open(rng)))
