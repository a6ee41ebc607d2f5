"""AlphaZero's tree search (PUCT) guided by an evaluator: one tree searched
by several threads, or several trees merged at the root.  The hot loops are
in ``ttt_engine._core.algorithms.puct``."""
from __future__ import annotations

import threading
import time as _time

from ttt_engine import _parallel
from ttt_engine import _registry as games
from ttt_engine._util import check_bool, check_int, check_real, resolve_seed
from ttt_engine.search.common import (_budget, _check_board, _dispatch, _KeptTree,
                                      _seconds_left, check_playout, playout_name)
from ttt_engine.search.depth_first import ABSearcher
from ttt_engine.search.endgame import endgame_search, endgame_search_beside

from ttt_engine._core.algorithms import mcts as _mcts
from ttt_engine._core.algorithms import puct as _puct
from ttt_engine._core.algorithms import puct_lines as _puct_lines
from ttt_engine._core.algorithms import puct_network as _puct_network


def _merged_phases(phases):
    """One move's statistics from the searches of its phases (the endgame
    solve beside the tree): counts and times summed, the tree's state from
    the last phase, its reuse from the first."""
    out = dict(phases[-1])
    for key in ("simulations", "time", "evaluations", "evaluator_calls"):
        out[key] = type(out[key])(sum(p[key] for p in phases))
    out["simulations_per_s"] = (out["simulations"] / out["time"] if out["time"] > 0
                                else float("inf"))
    out["reused"], out["reused_visits"] = phases[0]["reused"], phases[0]["reused_visits"]
    return out


class PUCT(_KeptTree):
    """AlphaZero's tree search (PUCT), guided by an evaluator.

    evaluator: ``evaluate(observations, legal_mask) -> (logits, values)`` (see
        :mod:`ttt_engine.evaluators`), e.g. a ``ttt_engine.network.Network``
        or ``UniformEvaluator()`` (random playouts in C).
    c_puct: exploration constant of ``Q + c * P * sqrt(N_parent) / (1 + N)``;
        with ``c_base`` set, AlphaZero's schedule
        ``c = c_init + log((N_parent + c_base + 1) / c_base)`` instead
        (``c_init`` defaults to ``c_puct``).
    dirichlet_alpha: if set, Dirichlet noise of that concentration is mixed
        into the root's priors at the start of every search, with weight
        ``noise_fraction`` (AlphaZero's exploration in self-play).
    batch_size: leaves gathered per evaluator call, with virtual losses so
        that one tree yields several different leaves (1: the exact sequential
        search).
    max_nodes: node arena of the tree; when it is full, leaves are still
        evaluated but no longer expanded.
    reuse: keep the subtree of the new root between searches (a position up
        to ``reuse_depth`` plies below the last root).
    playout_weight: ``w`` in [0, 1]: every evaluated leaf's value becomes
        ``(1 - w) * value + w * z`` where ``z`` is the result of one random
        playout from the leaf, played in C (AlphaGo's mixed evaluation; 0:
        the evaluator's value alone, as AlphaZero).
    mixed_playouts: ``z`` is the mean result of this many random playouts
        (default 1; more playouts give a less noisy mixed value at a small
        cost: a playout takes about a microsecond).
    playout: the policy of those playouts (and of the uniform evaluator's), as
        :class:`ttt_engine.search.MCTS`'s: ``"random"`` (default) or ``"decisive"`` (a move that
        wins at once is played; in UTTT never one that lets the opponent win at
        once); a game without it is a ``ValueError`` at the search.
    endgame, endgame_share: the exact endgame solve (UTTT, Connect Four, Clobber), as
        :class:`ttt_engine.search.MCTS`'s (the same rule: a proven win played at once, a proven
        draw kept, ``stats["endgame"]`` the proven value or None).  With
        ``threads`` > 1 on a time budget the solve runs beside the tree, in a
        thread of its own, for up to ``endgame_share`` of the move's time
        while the tree goes on with one thread fewer; once it ends, the tree
        has every thread for the time left (statistics of both phases
        summed).
    expand_after: a leaf below the root goes to the evaluator (and gets its
        children) once it has this many visits; those visits are valued by
        ``mixed_playouts`` random playouts alone, without an evaluator call
        (as ``MCTS(expand_after=...)`` waits before expanding).  0 (the
        default): every leaf at its first visit, as AlphaZero.  Many leaves of
        a search are visited only once, so 1 saves many evaluator calls.
    solver: MCTS-Solver proofs, as ``MCTS(solver=True)``: a finished game
        proves its node, proofs climb the tree (a move that wins for the player
        to move proves the parent lost for its mover; all moves losing prove
        it won), selection takes a proven win at once and skips proven losses,
        a proven node's result is backed up like a finished game's, and a
        solved root ends the search early.  The move is a proven win if there
        is one, never a proven loss while another move is not.
    contempt: ``c`` in [0, 1): a draw is worth ``-c`` to the side that
        searches and ``+c`` to its opponent, in finished games and playouts
        alike (0, the default: a draw is worth 0 to both).  A side with
        contempt plays on where a draw is at hand, for the wins a fallible
        opponent may give; the network's own value is left as trained.
        The tree kept between searches is dropped when the side to move at
        the root changes (its values were a draw's for the other side).
    threads: tree parallelism: that many threads search the one tree at
        once, each gathering its own batch of leaves (virtual losses keep
        them apart); the tree changes under a lock, while the playouts and
        the evaluator run in parallel.  The evaluator is called from several
        threads at once if it says it may (``thread_safe = True``, as
        :class:`~ttt_engine.network.Network`), else one call at a time.
        Needs an evaluator called from Python or a network (not the
        uniform one, whose search runs in C on one thread).  Results then
        depend on the threads' timing.

    A :class:`~ttt_engine.network.Network` (or any evaluator whose
    ``compiled`` attribute is a ``CompiledNetwork``) is not called: the
    search runs its forward pass in C on the leaves it gathers, without the
    GIL, each thread with its own buffers (``stats["evaluator_calls"]``
    then counts those batches).

    The rules (selection, back-up, virtual loss, noise) are in
    docs/puct.md.  One search at a time per object (``RuntimeError``
    from a second thread); Ctrl-C stops a search with ``KeyboardInterrupt``
    and leaves the object usable (the tree is dropped).

    Pickles from its constructor arguments (the evaluator pickled with it):
    the copy starts with an empty tree, as :class:`ttt_engine.search.MCTS`.

    >>> from ttt_engine import Board
    >>> from ttt_engine.evaluators import UniformEvaluator
    >>> p = PUCT(UniformEvaluator(), seed=1)
    >>> p.search(Board.from_string("XX.OO...."), simulations=400)
    2
    """

    DEFAULT_SIMULATIONS = 800
    _what = "PUCT"

    def __init__(self, evaluator, *, c_puct=1.25, c_base=None, c_init=None,
                 dirichlet_alpha=None, noise_fraction=0.25, batch_size=1, max_nodes=200_000,
                 reuse=True, reuse_depth=4, seed=None, playout_weight=0.0, mixed_playouts=1,
                 expand_after=0, solver=False, threads=1, playout="random", endgame=0,
                 endgame_share=0.3, contempt=0.0):
        from ttt_engine.evaluators import UniformEvaluator
        if not callable(evaluator):
            raise TypeError(f"evaluator must be callable as evaluate(observations, legal_mask), "
                            f"got {type(evaluator).__name__}")
        self.evaluator = evaluator
        self.c_puct = check_real("c_puct", c_puct, low=0, high=1e6)
        self.c_base = check_real("c_base", c_base, low=0, low_open=True, high=1e12,
                                 allow_none=True)
        self.c_init = check_real("c_init", c_init, low=0, high=1e6, allow_none=True)
        self.dirichlet_alpha = check_real("dirichlet_alpha", dirichlet_alpha, low=0,
                                          low_open=True, high=1e6, allow_none=True)
        self.noise_fraction = check_real("noise_fraction", noise_fraction, low=0, high=1)
        self.batch_size = check_int("batch_size", batch_size, min=1, max=4096)
        self.max_nodes = check_int("max_nodes", max_nodes, min=int(_puct.MIN_NODES),
                                   max=(1 << 31) - 1)
        self.reuse = check_bool("reuse", reuse)
        self.reuse_depth = check_int("reuse_depth", reuse_depth, min=0, max=64)
        self.seed = resolve_seed(seed)
        self.playout_weight = check_real("playout_weight", playout_weight, low=0, high=1)
        self.mixed_playouts = check_int("mixed_playouts", mixed_playouts, min=1, max=10_000)
        self.expand_after = check_int("expand_after", expand_after, min=0, max=1_000_000)
        self.solver = check_bool("solver", solver)
        self.playout = playout_name(playout)
        self.endgame = check_int("endgame", endgame, min=0, max=81)
        self.endgame_share = check_real("endgame_share", endgame_share, low=0, low_open=True,
                                        high=1)
        self.contempt = check_real("contempt", contempt, low=0, high=1, high_open=True)
        self._mover = None                  # the side the draw values were set for
        self._native = isinstance(evaluator, UniformEvaluator)   # run in C, no Python call
        self.threads = check_tree_threads(evaluator, threads)
        # several threads call the evaluator at once only if it says it is safe
        self._eval_lock = (None if getattr(evaluator, "thread_safe", False)
                           else threading.Lock())
        self._forest = None
        self._key = None
        self._root = None
        self._stats = {}
        self._endgame_searcher = None    # the endgame solves' (``_solver``)
        self._init_exclusive()

    def __reduce__(self):
        return (_rebuild_puct, (self.evaluator, dict(
            c_puct=self.c_puct, c_base=self.c_base, c_init=self.c_init,
            dirichlet_alpha=self.dirichlet_alpha, noise_fraction=self.noise_fraction,
            batch_size=self.batch_size, max_nodes=self.max_nodes, reuse=self.reuse,
            reuse_depth=self.reuse_depth, seed=self.seed, playout_weight=self.playout_weight,
            mixed_playouts=self.mixed_playouts, expand_after=self.expand_after,
            solver=self.solver, threads=self.threads, playout=self.playout,
            endgame=self.endgame, endgame_share=self.endgame_share, contempt=self.contempt)))

    def _forest_for(self, board):
        key = (type(board), board.num_actions, board.observation().shape)
        if self._forest is None or self._key != key:
            c_base = self.c_base or 0.0
            c_init = self.c_puct if self.c_init is None else self.c_init
            playouts = self.evaluator.playouts if self._native else 0
            self._forest = _puct.PUCTForest(
                board, 1, self.batch_size, self.max_nodes, self.seed, self.c_puct, c_base,
                c_init, self.dirichlet_alpha or 0.0, self.noise_fraction, playouts,
                lanes=self.threads)
            self._forest.set_playout_weight(self.playout_weight, self.mixed_playouts)
            self._forest.set_expand_after(self.expand_after)
            self._forest.set_solver(self.solver)
            self._forest.set_playout_policy(_mcts.PLAYOUTS[self.playout])
            self._key = key
            self._root = None
            self._mover = None
        if self.contempt:
            mover = games.of_board(board).sides.index(board.to_move)
            if mover != self._mover:
                # a draw is worth -c to the searching side: the tree kept
                # from the other side's search valued draws the other way
                self._forest.set_draw_values(*((-self.contempt, self.contempt) if mover == 0
                                               else (self.contempt, -self.contempt)))
                self._mover = mover
                self._root = None
        return self._forest

    def reset(self, seed=None):
        """Drop the tree; with ``seed``, restart the random stream from it."""
        self._exclusive(self._reset, seed)

    def _reset(self, seed):
        if seed is not None:
            self.seed = resolve_seed(seed)
        if self._forest is not None:
            self._forest.clear(0)
            self._forest.reseed(self.seed)
        self._root = None
        self._stats = {}

    def _keep_child(self, move):
        self._forest.advance(0, move)

    # ------------------------------------------------------------ searching
    def search(self, board, simulations=None, time=None):
        """Search from ``board`` and return the most visited move (ties: the
        higher prior, then the first in move order; so a search too short to
        visit every child plays the evaluator's most likely move).  simulations: leaves backed up (the first one
        evaluates the root); time: seconds (re-rooting the kept tree
        included); with both, whichever comes first; with neither,
        ``DEFAULT_SIMULATIONS``."""
        _check_board(board, allow_terminal=False)
        sims, t = _budget(simulations, time, self.DEFAULT_SIMULATIONS)
        # a copy: the compiled search reads the root without the GIL, while
        # another thread may play on the caller's board
        return self._exclusive(self._search, board.copy(), sims, t)

    def _search(self, board, sims, t, stop=None):
        check_playout(self._what, self.playout, board)
        if not self.endgame:
            return self._search_tree(board, sims, t, stop)

        def won(result, seconds):
            if self._forest is not None:
                self._forest.clear(0)
            self._root = None
            self._stats = {
                "simulations": 0, "time": float(seconds), "simulations_per_s": 0.0,
                "evaluations": 0, "evaluator_calls": 0, "nodes_used": 0,
                "max_nodes": self.max_nodes, "reused": False, "reused_visits": 0,
                "root_visits": 0, "root_value": 1.0, "root_proven": 1,
                "children": [{"move": result.best_move, "visits": 1, "prior": 1.0, "mean": 1.0,
                              "action": int(board.move_to_action(result.best_move)),
                              "proven": 1}],
                "best_move": result.best_move, "num_actions": board.num_actions}

        if self.threads > 1 and t is not None and sims is None and stop is None:
            # the solve beside the tree, on a thread of its own
            phases = []

            def tree(left, spare, flag):
                move = self._search_tree(board, None, left, flag, self.threads - spare)
                phases.append(self._stats)
                return move

            def ranked():
                children = sorted(self._stats["children"], key=lambda c: -c["visits"])
                return [c["move"] for c in children]

            move, value = endgame_search_beside(self._what, board, self.endgame,
                                                self.endgame_share, t, tree, won,
                                                self._solver(), ranked)
            if value != 1 and len(phases) > 1:
                self._stats = _merged_phases(phases)
        else:
            move, value = endgame_search(self._what, board, self.endgame, self.endgame_share, t,
                                         lambda left: self._search_tree(board, sims, left, stop),
                                         won, self._solver())
        self._stats["endgame"] = value
        self._stats["best_move"] = move
        return move

    def _solver(self):
        """The searcher of the endgame solves (made once: the solve beside
        the tree runs in a new thread each move, and a thread's own searcher
        would be a new table each time)."""
        if self._endgame_searcher is None:
            self._endgame_searcher = ABSearcher()
        return self._endgame_searcher

    def _search_tree(self, board, sims, t, stop, lanes=None):
        # the clock starts before the re-rooting: copying a large kept subtree
        # takes milliseconds, and they are part of the move's time
        start = _time.perf_counter()
        f = self._forest_for(board)
        reused = False
        if self.reuse and self._root is not None:
            reused = bool(_dispatch(_puct.forest_reroot, f, self._root, board, 0,
                                    self.reuse_depth))
        else:
            _dispatch(_puct.forest_set_root, f, board, 0)
        reused_visits = f.root_visits(0)
        self._root = None                    # until the search is done
        budget = sims if sims is not None else 1 << 62
        calls = evaluations = 0
        try:
            if self._native:
                _dispatch(_puct.forest_native, f, board, budget, _seconds_left(t, start))
            else:
                deadline = start + t if t is not None else None
                parts = [(f, board, lane, budget, deadline, stop)
                         for lane in range(self.threads if lanes is None else lanes)]
                run = self._run_lane
                if self._attach_compiled(f, board):
                    run = self._run_lane_compiled
                if len(parts) == 1:
                    counts = [run(*parts[0], None)]
                else:
                    counts = _parallel.run_parts(run, parts)
                calls = sum(c for c, _ in counts)
                evaluations = sum(e for _, e in counts)
        except BaseException:
            f.clear(0)                        # pending leaves would corrupt the tree
            raise
        seconds = _time.perf_counter() - start
        done = int(f.done_in(0))
        if self._native:
            evaluations = done
        move = _puct_lines.forest_best_move(f, 0)
        if move is None:
            raise RuntimeError("PUCT root was not expanded")
        self._root = board.copy()
        children = [{"move": m, "action": a, "visits": v, "prior": p, "mean": q, "proven": pr}
                    for m, a, v, p, q, pr
                    in _dispatch(_puct_lines.forest_root_children, f, board, 0)]
        self._stats = {
            "simulations": done,
            "time": float(seconds),
            "simulations_per_s": done / seconds if seconds > 0 else float("inf"),
            "evaluations": int(evaluations),
            "evaluator_calls": int(calls),
            "nodes_used": int(f.nodes_used(0)),
            "max_nodes": self.max_nodes,
            "reused": reused,
            "reused_visits": int(reused_visits) if reused else 0,
            "root_visits": int(f.root_visits(0)),
            "root_value": float(f.root_value(0)),
            "root_proven": int(f.root_proven(0)),
            "children": children,
            "best_move": move,
            "num_actions": board.num_actions,
            "endgame": None,
        }
        return move

    def _attach_compiled(self, f, board):
        """True if the evaluator exposes compiled weights (``compiled``), now
        attached to the forest ``f``; a network of another game or shape is a
        ``ValueError`` naming both."""
        compiled = getattr(self.evaluator, "compiled", None)
        if compiled is None:
            return False
        check = getattr(self.evaluator, "check_board", None)
        if check is not None:
            check(board)
        f.attach_network(compiled)
        return True

    def _run_lane_compiled(self, f, board, lane, budget, deadline, stop, lanes_stop):
        """``_run_lane`` with the attached network, the whole loop in C."""
        left = None if deadline is None else deadline - _time.perf_counter()
        calls, evaluations, ok = _dispatch(_puct_network.forest_run_network, f, board, budget, left,
                                           lane, stop, lanes_stop)
        if not ok:
            from ttt_engine.evaluators import evaluator_name
            raise ValueError(f"evaluator {evaluator_name(self.evaluator)} returned NaN or "
                             "infinite logits or values")
        return calls, evaluations

    def _run_lane(self, f, board, lane, budget, deadline, stop, lanes_stop):
        """Gather, evaluate and back up on ``lane`` of the forest until the
        budget, the deadline, a solved root or a stop flag (``stop``: the
        caller's root-parallel search; ``lanes_stop``: this search's other
        threads).  Returns ``(evaluator calls, evaluations)``."""
        from ttt_engine.evaluators import call_evaluator, check_output
        num_actions = board.num_actions
        shape = self._key[2]
        rows = lane * f.n * f.k
        calls = evaluations = 0
        while f.done_in(0) < budget:
            n = _puct.forest_gather(f, board, budget, lane)
            if n == 0 and f.root_proven(0):
                break                     # solved (the solver): nothing left to learn
            if n:
                obs = f.observations[rows:rows + n].reshape((n,) + shape)
                mask = f.masks[rows:rows + n]
                if self._eval_lock is None:
                    out = call_evaluator(self.evaluator, obs, mask)
                else:
                    with self._eval_lock:
                        out = call_evaluator(self.evaluator, obs, mask)
                logits, values = check_output(self.evaluator, out, n, num_actions)
                _puct.forest_backup(f, board, logits, values, lane)
                calls += 1
                evaluations += n
            if deadline is not None and _time.perf_counter() >= deadline:
                break
            if (stop is not None and stop[0]) or (lanes_stop is not None and lanes_stop[0]):
                break
        return calls, evaluations

    def lines(self, k=None, depth=16):
        """The principal variations of the tree as the last search left it,
        read without changing it (the next search goes on from the same tree):
        for the ``k`` best root moves (all of them with None), best first in
        the order of ``best_move``, the line below each, at most ``depth``
        moves, following at every node the most visited child (a proven win
        first, proven losses last; ties: the first in move order) down to a
        node the tree has not expanded (a leaf, a finished game, a proven
        node).  Each line is a list of ``{"move", "visits", "mean",
        "proven"}``, the first step holding the root move's ``visits``,
        ``mean`` and ``proven`` of ``stats["children"]``; ``mean`` (in
        [-1, 1]) and ``proven`` (+1 win / -1 loss / 0) are for the player who
        made the move.  With ``threads=k`` the one tree all threads built.
        ``[]`` before a search, after one the endgame solve decided, and after
        an interrupted one.  Like ``search``, one thread at a time;
        :func:`merge_puct_lines` reads root-parallel searches together."""
        return merge_puct_lines([self], k, depth)

    @property
    def stats(self):
        """Statistics of the last search: simulations, time, simulations_per_s,
        evaluations (positions given to the evaluator), evaluator_calls,
        nodes_used, max_nodes, reused, reused_visits, root_visits, root_value
        (mean value for the side to move), root_proven (with the solver: +1 a
        proven win for the side to move, -1 a proven loss, 0 unknown),
        children (move, action, visits, prior, mean for the side to move,
        proven as root_proven, in move order), best_move."""
        return dict(self._stats)

    def policy(self, temperature=1.0):
        """The last search's visit distribution over actions (float32, length
        ``num_actions``): ``N ** (1 / temperature)`` normalised; temperature 0
        puts all weight on the best move."""
        import numpy as np
        temperature = check_real("temperature", temperature, low=0, high=1e6)
        if not self._stats:
            raise ValueError("policy() needs a search first")
        pi = np.zeros(self._stats["num_actions"], dtype=np.float64)
        kids = self._stats["children"]
        if temperature == 0:
            best = next(c for c in kids if c["move"] == self._stats["best_move"])
            pi[best["action"]] = 1.0
            return pi.astype(np.float32)
        visits = np.array([c["visits"] for c in kids], dtype=np.float64)
        if visits.sum() == 0:
            visits[:] = 1.0
        w = visits ** (1.0 / temperature) if temperature != 1 else visits
        if not np.isfinite(w).all() or w.sum() == 0:   # tiny temperature: the most visited
            w = (visits == visits.max()).astype(np.float64)
        for c, x in zip(kids, w / w.sum()):
            pi[c["action"]] = x
        return pi.astype(np.float32)


def check_tree_threads(evaluator, threads):
    """``threads`` for one PUCT tree searched with ``evaluator``; ``ValueError``
    if it is more than one and the evaluator is the uniform one (searched in C,
    on one thread)."""
    from ttt_engine.evaluators import UniformEvaluator
    threads = _parallel.check_threads(threads)
    if threads > 1 and isinstance(evaluator, UniformEvaluator):
        raise ValueError("threads > 1 on one tree needs an evaluator called from Python (a "
                         "network); the uniform evaluator's search runs in C on one thread "
                         "(AZAgent: parallel='root' searches one tree per thread)")
    return threads


def _rebuild_puct(evaluator, config):
    return PUCT(evaluator, **config)


def merge_puct_lines(searches, k=None, depth=16):
    """The principal variations of root-parallel PUCT searches of one
    position (``AZAgent(threads=k)``'s trees), read together as
    :meth:`PUCT.lines` reads one: at every step the children's visits and
    values are summed over the trees that hold the node, so the lines follow
    the merged counts :func:`merge_puct_roots` chose the move by.  A search
    without a tree, or whose last root is another position, is left out;
    ``[]`` if none is left.  Every search is held exclusive while its tree is
    read (``RuntimeError`` if one is searching in another thread)."""
    k = None if k is None else check_int("k", k, min=1)
    depth = check_int("depth", depth, min=1, max=int(_puct_lines.MAX_LINE))
    searches = list({id(s): s for s in searches}.values())
    return _holding(searches, lambda: _read_lines(searches, k, depth))


def _holding(searches, fn):
    """``fn()`` with every one of ``searches`` held exclusive."""
    if not searches:
        return fn()
    return searches[0]._exclusive(_holding, searches[1:], fn)


def _read_lines(searches, k, depth):
    held = [s for s in searches if s._root is not None]
    if not held:
        return []
    same = [s for s in held if s._key == held[0]._key and s._root == held[0]._root]
    return [[{"move": m, "visits": v, "mean": q, "proven": p} for m, v, q, p in line]
            for line in _puct_lines.forest_lines([s._forest for s in same], 0, k, depth)]


def _puct_part(puct, board, sims, seconds, stop):
    """One tree of a root-parallel PUCT search (``AZAgent(threads=k)``): its
    move; stops early when the shared ``stop`` flag is set."""
    _check_board(board, allow_terminal=False)
    return puct._exclusive(puct._search, board.copy(), sims, seconds, stop)


def merge_puct_roots(searches):
    """Root children of root-parallel PUCT searches, summed: ``(children,
    move)`` with the visits added, the mean visit-weighted, the prior of the
    first, a proof if any tree found one (proofs are exact, so trees never
    disagree); the move is a proven win if any, else the most visited that is
    not a proven loss (ties: the higher prior, then the first in move order),
    as one tree's ``forest_best_move``."""
    order, rows = [], {}
    for s in searches:
        for c in s.stats["children"]:
            r = rows.get(c["move"])
            if r is None:
                order.append(c["move"])
                rows[c["move"]] = r = {"move": c["move"], "action": c["action"], "visits": 0,
                                       "prior": c["prior"], "wsum": 0.0, "proven": 0}
            r["visits"] += c["visits"]
            r["wsum"] += c["mean"] * c["visits"]
            r["proven"] = r["proven"] or c.get("proven", 0)
    children = [{"move": m, "action": rows[m]["action"], "visits": rows[m]["visits"],
                 "prior": rows[m]["prior"],
                 "mean": rows[m]["wsum"] / rows[m]["visits"] if rows[m]["visits"] else 0.0,
                 "proven": rows[m]["proven"]}
                for m in order]
    best = None
    for c in children:
        if best is None or ((c["proven"], c["visits"], c["prior"])
                            > (best["proven"], best["visits"], best["prior"])):
            best = c
    return children, best["move"] if best else None
