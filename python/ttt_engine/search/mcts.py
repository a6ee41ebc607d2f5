"""Monte Carlo tree search (UCT): a node arena, tree reuse, MCTS-Solver,
root parallelism and an optional prior.  The hot loops are in
``ttt_engine._core.algorithms.mcts``."""
from __future__ import annotations

import math
import time as _time

from ttt_engine import _parallel
from ttt_engine._util import check_bool, check_int, check_real, resolve_seed
from ttt_engine.search.common import (_budget, _check_board, _compiled_value_net, _dispatch,
                                      _KeptTree, _seconds_left,
                                      check_playout, playout_name)
from ttt_engine.search.endgame import endgame_search

from ttt_engine._core.algorithms import mcts as _mcts


class MCTS(_KeptTree):
    """Monte Carlo tree search (UCT) with a preallocated node arena and tree reuse.

    - c: exploration constant of UCB1 (default sqrt(2)).
    - max_nodes: arena size per tree (nodes of 32 bytes, allocated once, in huge
      pages on Linux; a second arena of the same size is added at the first
      tree reuse); when it is full the tree stops growing and simulations
      continue from its leaves.
    - seed: RNG seed (None: random; see ``ttt_engine._util.resolve_seed``).
    - reuse: keep the subtree of the new position between searches.  ``search``
      looks for the new board among the previous root's descendants up to
      ``reuse_depth`` plies (matched by the game's hash and side to move);
      ``advance(move)`` moves the root explicitly.
    - expand_after: a leaf is expanded once it has this many visits (0, the
      default, expands on the first visit, as classic UCT does; a few visits
      save arena space in games with many moves, e.g. Clobber).
    - solver: MCTS-Solver (off by default): finished games
      prove their nodes, proofs propagate up (a move that wins for the side
      to move proves a loss for the parent's mover; all moves losing proves a
      win); selection plays proven wins and skips proven losses; the final
      move is a proven win if there is one; the search stops once the root
      is proven.  ``stats["root_proven"]``: +1 / -1 / 0 for the side to move.
    - threads: root parallelism.  ``threads=k`` keeps ``k`` independent trees
      (each with ``max_nodes`` nodes and its own generator, seeded from
      ``seed`` by ``ttt_engine._parallel.split_seeds``), searches them at
      the same time in ``k`` threads without the GIL, and sums their root
      statistics (visits, wins, proofs) to choose the move.  The budget is
      shared: ``simulations`` is the total over the trees, ``time`` the wall
      time.  Same seed and ``threads`` => same move with a simulation budget.
      ``threads=1`` (default) is the single-tree search.  More threads than
      the machine has cores are allowed (a warning, once per process).
    - playout: the simulation step.  ``"random"`` (default): the game's uniform
      random playout (classic UCT).  ``"decisive"``: play a move that wins
      at once when there is one, and never one that lets the opponent win at
      once where that is cheap to see: Ultimate Tic-Tac-Toe (a big-board
      line through a local board won now; anti-decisive: the board the move
      sends the opponent to, or any board after a free move, holds no such
      win for it) and Quixo (a move completing an own line wins, one
      completing an opponent line is never played).  The registry lists the
      playouts of each game (``Board.PLAYOUTS``, ``games.get(key).playouts``); asking for one a
      game does not have is a ``ValueError`` at the search, naming the valid
      ones.
    - endgame: the games with an exact endgame solve (``Game.endgame_cells``:
      Ultimate Tic-Tac-Toe, Connect Four, Clobber; 0, the default, is off): once at
      most this many cells are empty (in UTTT those of the open local boards;
      Clobber counts the stones left),
      each search first tries an exact solve (the game's own,
      ``Game.endgame_solve``, else :func:`ttt_engine.search.alphabeta`, iterative deepening)
      for ``endgame_share`` of the move's time (with a simulation budget:
      0.05 s, or the game's own solve's bound of work).  A proven win is played at once (the fastest; no tree
      search).  In a proven draw the tree searches as usual and its move
      stands if it draws too, else a drawing move is played (among drawing
      moves the tree's gives a fallible opponent the most ways to go wrong;
      MCTS-Solver proves wins and losses but never draws).  A proven loss is
      left to the tree.  ``stats["endgame"]``: the proven value (+1, 0, -1)
      or None.  A ``ValueError`` on another game.
    - prior: an evaluator (``evaluate(observations, legal_mask) -> (logits,
      values)``, see :mod:`ttt_engine.evaluators`; e.g. a
      ``ttt_engine.network.Network``) whose policy guides the tree where it
      matters: a node is sent to it once it has ``prior_visits`` visits (the
      root at once), ``prior_batch`` nodes per call, and from then on selects
      its children by PUCT, ``mean + c_puct * P * sqrt(N) / (1 + n)``, with
      the evaluator's softmax as ``P`` (a move not yet visited counts as a
      draw); every other node keeps UCB1 and every simulation still ends in
      a playout, so the search runs at nearly the speed of plain MCTS while
      the network's knowledge steers its most visited part (progressive
      bias in PUCT's form; the evaluator's values are not used).  The tree
      keeps searching while a batch fills (the root is evaluated at once;
      nodes still queued when the budget ends are dropped and queued again
      by the next search).  None (default): plain UCT.
    - value_network: a value network scoring every new leaf instead of (or
      mixed with) the playout: a ``CompiledValueNet``
      (``ttt_engine._core.algorithms.valuenet``) or anything
      ``CompiledValueNet.from_network`` takes (a ``ValueNetwork``); its
      first layer is updated from the root's accumulator by the leaf's
      feature change, in C without the GIL (docs/valuenet.md).  The leaf's
      result is ``value_weight`` * the network's value (side to move) +
      ``1 - value_weight`` * a playout's (1, the default: no playout).
      The network scores the leaf itself (no random child is played), and
      with ``score_children`` (default) every child of an expansion gets the
      network's value as its first visit, so selection ranks them at once;
      with ``leaf_from_children`` as well, the new leaf's reward is its best
      child's value (one ply of minimax) instead of its own.
      ``minimax_weight`` > 0 (with ``score_children``, ``value_weight`` 1):
      implicit minimax backups (Lanctot et al. 2014): every node keeps the
      minimax value of the network's values at its subtree's frontier, and
      selection ranks a child by ``(1 - w) * mean + w * minimax``.
      ``prior_temp`` T > 0 (with ``score_children``): value priors: an
      expansion also gives its children the priors softmax(value / T) of
      their first values, and the node then selects by PUCT with
      ``c_puct``, ``q + c_puct * P * sqrt(N) / (1 + n)`` (q as above), not
      UCB1: the search spends its visits on the children the network likes
      and goes deeper (docs/valuenet.md).
      Finished games and the solver's proofs keep their exact results.  A
      board of another feature set is a ``ValueError`` at the search.

    One search at a time per object: a second thread calling ``search`` (or
    ``advance``/``reset``) while one runs gets ``RuntimeError("this MCTS is
    already searching in another thread")``; separate objects search in
    parallel.  Ctrl-C stops a search between simulations with
    ``KeyboardInterrupt``; the object stays usable.

    Pickles from its constructor arguments (the seed resolved): the copy
    starts with an empty tree and searches as the original did after
    ``reset(seed)``; a fresh object and its copy search alike.

    >>> from ttt_engine import Board
    >>> m = MCTS(seed=1)
    >>> m.search(Board(), simulations=2000) in range(9)
    True
    """

    DEFAULT_SIMULATIONS = 10_000
    _what = "MCTS"

    def __init__(self, c=math.sqrt(2), max_nodes=1_000_000, seed=None, *, reuse=True,
                 reuse_depth=4, expand_after=0, solver=False, threads=1, playout="random",
                 endgame=0, endgame_share=0.3, prior=None, prior_visits=16,
                 prior_batch=16, c_puct=1.25, value_network=None, value_weight=1.0,
                 score_children=True, leaf_from_children=False, minimax_weight=0.0,
                 prior_temp=0.0):
        self.c = check_real("c", c, low=0)
        self.value_weight = check_real("value_weight", value_weight, low=0, high=1)
        self.score_children = check_bool("score_children", score_children)
        self.leaf_from_children = check_bool("leaf_from_children", leaf_from_children)
        if self.leaf_from_children and not self.score_children:
            raise ValueError("leaf_from_children=True needs score_children=True "
                             "(the leaf's value comes from its scored children)")
        self.minimax_weight = check_real("minimax_weight", minimax_weight, low=0, high=1)
        if self.minimax_weight > 0 and (value_network is None or not self.score_children
                                        or self.value_weight != 1):
            raise ValueError("minimax_weight > 0 needs a value_network with score_children=True "
                             "and value_weight=1 (the minimax values are the network's)")
        self.prior_temp = check_real("prior_temp", prior_temp, low=0, high=1e6)
        if self.prior_temp > 0 and (value_network is None or not self.score_children):
            raise ValueError("prior_temp > 0 needs a value_network with score_children=True "
                             "(the priors are the scored children's values)")
        self.value_network = _compiled_value_net(value_network)
        if prior is not None and not callable(prior):
            raise TypeError(f"prior must be an evaluator callable as evaluate(observations, "
                            f"legal_mask), got {type(prior).__name__}")
        self.prior = prior
        if prior is not None and self.prior_temp > 0:
            raise ValueError("prior_temp > 0 and prior are two sources of the children's "
                             "priors: give one")
        self.prior_visits = check_int("prior_visits", prior_visits, min=0, max=(1 << 31) - 1)
        self.prior_batch = check_int("prior_batch", prior_batch, min=1, max=4096)
        self.c_puct = check_real("c_puct", c_puct, low=0, high=1e6)
        self._guided = None             # (board type, planes) the trees are set up for
        self.endgame = check_int("endgame", endgame, min=0, max=81)
        self.endgame_share = check_real("endgame_share", endgame_share, low=0, low_open=True,
                                        high=1)
        self.max_nodes = check_int("max_nodes", max_nodes, min=int(_mcts.MIN_NODES),
                                   max=(1 << 31) - 1)
        self.seed = resolve_seed(seed)
        self.reuse = check_bool("reuse", reuse)
        self.reuse_depth = check_int("reuse_depth", reuse_depth, min=0, max=64)
        self.expand_after = check_int("expand_after", expand_after, min=0, max=(1 << 31) - 1)
        self.solver = check_bool("solver", solver)
        self.threads = _parallel.check_threads(threads)
        self.playout = playout_name(playout)
        self._trees = [_mcts.MCTSTree(self.max_nodes, self.c, s, self.expand_after, self.solver,
                                      playout)
                       for s in _parallel.split_seeds(self.seed, self.threads)]
        if self.value_network is not None:
            for tree in self._trees:
                tree.set_value_net(self.value_network, self.value_weight, self.score_children,
                                   self.leaf_from_children, self.minimax_weight,
                                   self.prior_temp)
                tree.c_puct = self.c_puct
        self._tree = self._trees[0]
        self._root = None
        self._stats = {}
        self._init_exclusive()

    def __reduce__(self):
        return (_rebuild_mcts, (dict(
            c=self.c, max_nodes=self.max_nodes, seed=self.seed, reuse=self.reuse,
            reuse_depth=self.reuse_depth, expand_after=self.expand_after, solver=self.solver,
            threads=self.threads, playout=self.playout, endgame=self.endgame,
            endgame_share=self.endgame_share, prior=self.prior, prior_visits=self.prior_visits,
            prior_batch=self.prior_batch, c_puct=self.c_puct,
            value_network=self.value_network, value_weight=self.value_weight,
            score_children=self.score_children, leaf_from_children=self.leaf_from_children,
            minimax_weight=self.minimax_weight, prior_temp=self.prior_temp),))

    def reset(self, seed=None):
        """Drop the tree; with ``seed``, restart the random stream from it."""
        self._exclusive(self._reset, seed)

    def _reset(self, seed):
        for tree in self._trees:
            tree.clear()
        self._root = None
        self._stats = {}
        if seed is not None:
            self.seed = resolve_seed(seed)
            for tree, s in zip(self._trees, _parallel.split_seeds(self.seed, self.threads)):
                tree.reseed(s)

    def _keep_child(self, move):
        for tree in self._trees:
            if not tree.advance_root(move):
                tree.clear()

    def search(self, board, simulations=None, time=None):
        """Search from ``board`` and return the most visited move.

        simulations: number of simulations (with ``threads=k``: in total);
        time: seconds (re-rooting the kept tree included); with both, stop at
        whichever comes first; with neither, ``DEFAULT_SIMULATIONS``.
        """
        _check_board(board, allow_terminal=False)
        sims, t = _budget(simulations, time, self.DEFAULT_SIMULATIONS)
        # a copy: the compiled search reads the root without the GIL, while
        # another thread may play on the caller's board
        return self._exclusive(self._search, board.copy(), sims, t)

    def _search(self, board, sims, t):
        check_playout(self._what, self.playout, board)
        if self.value_network is not None:
            self.value_network.check_board(board)
        if not self.endgame:
            return self._search_tree(board, sims, t)

        def won(result, seconds):
            self._root = None
            for tree in self._trees:
                tree.clear()
            self._stats = {
                "simulations": 0, "time": float(seconds), "simulations_per_s": 0.0,
                "nodes_used": 0, "max_nodes": self.max_nodes * self.threads,
                "reused": False, "reused_visits": 0, "root_visits": 0,
                "children": [{"move": result.best_move, "visits": 1, "mean": 1.0,
                              "proven": 1}],
                "root_proven": 1, "best_move": result.best_move, "threads": self.threads,
                "evaluator_calls": 0, "evaluations": 0, "priors": None}

        move, value = endgame_search(self._what, board, self.endgame, self.endgame_share, t,
                                     lambda left: self._search_tree(board, sims, left), won)
        self._stats["endgame"] = value
        self._stats["best_move"] = move
        return move

    def _search_tree(self, board, sims, t):
        start = _time.perf_counter()        # the re-rooting's copy is part of the move's time
        reuse = self.reuse and self._root is not None and type(self._root) is type(board)
        reused = []
        for tree in self._trees:
            tree.c = self.c
            if reuse:
                reused.append(bool(_dispatch(_mcts.mcts_reroot, tree, self._root, board,
                                             self.reuse_depth)))
            else:
                tree.clear()
                reused.append(False)
        reused_visits = sum(tree.root_visits for tree in self._trees)
        self._root = None               # until the search is done (an interrupt leaves no root)
        calls = [0, 0]                  # evaluator calls, positions evaluated
        if self.prior is not None:
            self._guide(board)
        left = _seconds_left(t, start)
        if self.threads == 1:
            done, _ = _search_part(self.prior, calls, self._tree, board, sims or 0, left, None)
            seconds = _time.perf_counter() - start
            move = self._tree.best_move()
            children = [{"move": m, "visits": int(v), "mean": float(q), "proven": int(p)}
                        for m, v, q, p in self._tree.root_children(proofs=True)]
            root_proven = int(self._tree.root_proven) if self.solver else 0
        else:
            budgets = _parallel.split_counts(sims, self.threads) if sims else [0] * self.threads
            parts = [(self.prior, calls, tree, board.copy(), n, left)
                     for tree, n in zip(self._trees, budgets)]
            runs = _parallel.run_parts(_search_part, parts)
            seconds = _time.perf_counter() - start
            done = sum(r[0] for r in runs)
            children, move = _merge_roots(self._trees, self.solver)
            proofs = [int(tree.root_proven) for tree in self._trees] if self.solver else [0]
            root_proven = next((p for p in proofs if p), 0)
        if move is None:   # cannot happen on a non-terminal board; be loud if it does
            raise RuntimeError("MCTS root was not expanded")
        self._root = board.copy()
        self._stats = {
            "simulations": int(done),
            "time": float(seconds),
            "simulations_per_s": done / seconds if seconds > 0 else float("inf"),
            "nodes_used": sum(tree.nodes_used for tree in self._trees),
            "max_nodes": self.max_nodes * self.threads,
            "reused": any(reused),
            "reused_visits": int(reused_visits),
            "root_visits": sum(tree.root_visits for tree in self._trees),
            "children": children,
            "root_proven": root_proven,
            "best_move": move,
            "threads": self.threads,
            "endgame": None,
            "evaluator_calls": calls[0],
            "evaluations": calls[1],
            "priors": self._tree.root_priors,
        }
        return move

    def _guide(self, board):
        """Set the trees up for this game's planes (once per board type)."""
        key = (type(board), board.num_actions, board.observation().shape)
        if self._guided != key:
            for tree in self._trees:
                tree.guide(board, self.prior_batch, self.prior_visits, self.c_puct)
            self._guided = key
        for tree in self._trees:
            tree.c_puct = self.c_puct

    def lines(self, k=None, depth=16):
        """The principal variations of the tree as the last search left it,
        read without changing it (the next search goes on from the same tree):
        for the ``k`` best root moves (all of them with None), best first in
        the order of ``best_move``, the line below each, at most ``depth``
        moves, following at every node the most visited child (with the
        solver: a proven win first, proven losses last; ties: the higher mean,
        then the first in move order) down to a node the tree has not expanded
        (a leaf, a finished game, a proven node the solver stopped at).  Each
        line is a list of ``{"move", "visits", "mean", "proven"}``, the first
        being the root move's entry of ``stats["children"]``; ``mean`` (in
        [-1, 1]) and ``proven`` (+1 win / -1 loss / 0) are for the player who
        made the move.  With ``threads=k`` the counts are summed over the trees
        at every step (a node expanded in only some trees is read from those),
        so the lines follow the merged counts the move was chosen by.  ``[]``
        before a search, after one the endgame solver decided, and after an
        interrupted one.  Like ``search``, one thread at a time."""
        k = None if k is None else check_int("k", k, min=1)
        depth = check_int("depth", depth, min=1, max=int(_mcts.MAX_LINE))
        return self._exclusive(self._lines, k, depth)

    def _lines(self, k, depth):
        # loaded on first use: a search that never reads its lines never loads it
        from ttt_engine._core.algorithms import mcts_lines as _mcts_lines
        if self._root is None:
            return []
        return [[{"move": m, "visits": int(v), "mean": float(q), "proven": int(p)}
                 for m, v, q, p in line]
                for line in _mcts_lines.mcts_lines(self._trees, k, depth)]

    @property
    def stats(self):
        """Statistics of the last search: simulations, time, simulations_per_s,
        nodes_used, max_nodes (summed over the trees), reused (subtree kept),
        reused_visits, root_visits, children (move, visits, mean in [-1, 1] for
        the side to move, proven: +1 winning / -1 losing move when the solver
        proved it, else 0; with ``threads=k`` summed / visit-weighted over the
        trees), root_proven, best_move, threads; with a ``prior``:
        evaluator_calls, evaluations (positions sent to it) and priors (``{move:
        prior}`` at the root of the first tree, None until they are installed)."""
        return dict(self._stats)


def _rebuild_mcts(config):
    return MCTS(**config)


def _search_part(evaluator, calls, tree, board, sims, seconds, stop):
    """One tree's search, ``(simulations, seconds)``: ``mcts_search`` itself
    without an evaluator; with one (a prior-guided tree), search until the
    budget is spent, stopping whenever the tree's batch of nodes is due to run
    the evaluator on it and install its priors, adding to ``calls``
    (evaluator calls, positions)."""
    if evaluator is None:
        return _dispatch(_mcts.mcts_search, tree, board, sims, seconds, stop)
    from ttt_engine.evaluators import call_evaluator, check_output
    start = _time.perf_counter()
    done = 0
    try:
        while True:
            left = 0.0
            if seconds:
                left = seconds - (_time.perf_counter() - start)
                if left <= 0:
                    break
            if sims and done >= sims:
                break
            n, _ = _dispatch(_mcts.mcts_search, tree, board, sims - done if sims else 0,
                             left, stop)
            done += n
            if not tree.prior_due:
                break                   # budget spent, root solved or stopped
            obs, mask = tree.prior_inputs()
            out = call_evaluator(evaluator, obs, mask)
            logits, _ = check_output(evaluator, out, len(obs), board.num_actions)
            tree.prior_install(board, logits)
            calls[0] += 1
            calls[1] += len(obs)
    finally:
        tree.prior_drop()               # nodes still queued are queued again next time
    return done, _time.perf_counter() - start


def _merge_roots(trees, solver):
    """Root children summed over root-parallel trees, and the move to play:
    a proven win first (solver), proven losses last, then the most visits,
    then the higher mean, then the first in move order (the rule of
    ``MCTSTree.best_move`` on the summed counts)."""
    order, visits, wsum, proven = [], {}, {}, {}
    for tree in trees:
        for m, v, q, p in tree.root_children(proofs=True):
            if m not in visits:
                order.append(m)
                visits[m] = wsum[m] = proven[m] = 0
            visits[m] += v
            wsum[m] += int(round(q * v))
            proven[m] = proven[m] or int(p)
    best, key = None, None
    for m in order:
        k = ((proven[m] if solver else 0), visits[m])
        if best is None or k > key or (k == key and wsum[m] * visits[best] > wsum[best] * visits[m]):
            best, key = m, k
    children = [{"move": m, "visits": visits[m],
                 "mean": wsum[m] / visits[m] if visits[m] else 0.0, "proven": proven[m]}
                for m in order]
    return children, best
