"""Game-playing agents with one protocol, and a match runner.

An agent is any object with ``select_move(board) -> move`` and a ``name``;
optionally ``reset(seed=None)`` (called by :func:`play_match` before each game)
and a ``seed`` attribute.  The library's agents all have the three, take the
budget keywords ``simulations=``, ``time=``, ``depth=``, ``seed=`` and pickle
(see ``ttt_engine._agent`` and docs/agents.md).  Agents only use the board's verbs (``legal_moves``,
``push``/``pop``, ``copy``, ``is_terminal``, ``winner``, ``to_move``) and the
game-generic search in :mod:`ttt_engine.search`, so they play every game on the
interface.  ``select_move`` never changes the board it is given.
"""
from __future__ import annotations

import math
import random
import threading

from ttt_engine._util import (check_bool, check_choice, check_depth, check_int, check_real,
                              check_seconds, check_simulations, resolve_seed)
from ttt_engine._agent import Agent, SearchAgent, no_budget, require_moves

from ttt_engine import _explain, _modelfile, games
from ttt_engine._match import MatchResult, play_match
from ttt_engine import search as _search
from ttt_engine.search import depth_first as _depth_first
from ttt_engine.search import table as _table

__all__ = ["RandomAgent", "PerfectAgent", "MCTSAgent", "AZAgent", "AlphaBetaAgent",
           "MinimaxAgent", "MatchResult", "play_match"]
# the match runner lives in _match.py; users import it from here, where it is documented
for _obj in (MatchResult, play_match):
    _obj.__module__ = __name__


class _StreamAgent(Agent):
    """An agent drawing from a Python ``random.Random`` seeded from ``seed``
    (None: a fresh seed)."""

    def _seed_stream(self, seed):
        self.seed = resolve_seed(seed)
        self._rng = random.Random(self.seed)

    def reset(self, seed=None):
        """Nothing to forget; with ``seed``, restart the random stream from it."""
        if seed is not None:
            self._seed_stream(seed)


class RandomAgent(_StreamAgent):
    """Uniformly random legal move (Python ``random.Random`` seeded from ``seed``;
    None: a fresh seed).  The budget keywords do not apply (None)."""

    def __init__(self, seed=None, *, simulations=None, time=None, depth=None):
        no_budget("RandomAgent", simulations=simulations, time=time, depth=depth)
        self._seed_stream(seed)
        self.name = "random"

    def select_move(self, board):
        """A legal move of ``board`` drawn uniformly (``ValueError`` for a finished game)."""
        require_moves(self, board)
        return self._rng.choice(list(board.legal_moves))

    def _config(self):
        return {"seed": self.seed}

    def __repr__(self):
        return f"RandomAgent(seed={self.seed})"


class PerfectAgent(_StreamAgent):
    """Plays exactly (exhaustive alpha-beta; for games small enough to solve,
    such as Tic-Tac-Toe or small endgames).

    Tie-break rule: every legal move is scored exactly, with win distance
    (a win in ``p`` plies scores ``1e9 - p``, a loss ``-(1e9 - p)``, a draw 0);
    the agent plays the highest score, i.e. the **fastest win**, else a draw,
    else the **slowest loss**.  Among moves with equal scores it takes the
    first in ``board.legal_moves`` order, or, with ``randomize=True``, a
    uniformly random one (seeded by ``seed``).  It always searches to the end:
    the budget keywords do not apply (None).  Boards no exhaustive search
    finishes (Ultimate Tic-Tac-Toe, 5x5 Quixo, Clobber beyond
    ``clobber.EXHAUSTIVE_STONES`` stones, Connect Four before
    ``connect4.EXHAUSTIVE_PLIES`` discs) are refused at once, naming the
    game's limited ``solve``; 3x3 and 4x4 Quixo are played from the
    retrograde solution.
    """

    def analyse(self, board, **live):
        """Every move's exact value and line (the analysis protocol, docs/agents.md)."""
        return _explain.depth_first(self, board, exact=True,
                                    choose=self.select_move if self.randomize else None)

    def __init__(self, randomize=False, seed=None, tt_size=1 << 16, *, simulations=None,
                 time=None, depth=None):
        no_budget("PerfectAgent", simulations=simulations, time=time, depth=depth)
        self.randomize = check_bool("randomize", randomize)
        self._seed_stream(seed)
        self.tt_size = check_int("tt_size", tt_size, min=1, max=1 << 30)
        self._searcher = _search.ABSearcher(self.tt_size)
        self.name = "perfect"

    def move_scores(self, board):
        """``{move: exact score}`` for every legal move (see class docstring)."""
        require_moves(self, board)
        return _search.exact_move_values(board, self._searcher, "PerfectAgent")

    def select_move(self, board):
        """A move of best exact value (a random one of them with ``randomize``)."""
        values = self.move_scores(board)
        best = max(values.values())
        ties = [m for m in board.legal_moves if values[m] == best]
        if self.randomize and len(ties) > 1:
            return self._rng.choice(ties)
        return ties[0]

    def _config(self):
        return {"randomize": self.randomize, "seed": self.seed, "tt_size": self.tt_size}

    def __repr__(self):
        return f"PerfectAgent(randomize={self.randomize})"


class _DepthFirstAgent(SearchAgent):
    """Shared part of the depth-first search agents: a numeric ``heuristic``
    and ``last_result``, on top of :class:`SearchAgent`."""

    def analyse(self, board, **live):
        """Every move's value and line at its depth, deeper by iteration when timed."""
        return _explain.depth_first(self, board, heuristic=self.heuristic, depth=self.depth,
                                    time=self.time, **live)

    def _init_common(self, cls_name, heuristic, time, time_limit, seed, simulations):
        self._init_search(cls_name, time, time_limit, seed, simulations, stacklevel=5)
        # the game's own ids are checked at the move, where the board tells the game
        self.heuristic = _depth_first.check_heuristic_of_some_game(heuristic)
        self.last_result = None

    def reset(self, seed=None):
        """Forget the last search's statistics; ``seed`` is recorded."""
        self.last_result = None
        super().reset(seed)

    def select_move(self, board):
        """The best move of the depth-first search of ``board``; ``last_stats`` says how it went."""
        require_moves(self, board)
        r = self.last_result = self._search(board)
        self.last_stats = {"value": r.value, "best_move": r.best_move, "pv": list(r.pv),
                           "nodes": r.nodes, "time": r.time, "depth": r.depth,
                           "exact": r.exact}
        return r.best_move


class AlphaBetaAgent(_DepthFirstAgent):
    """Depth-limited alpha-beta (table, ordering) with the game's heuristic at
    the horizon; ``depth=None`` searches to the end (refused at the move,
    naming ``depth=`` and ``time=``, where no exhaustive search finishes:
    :func:`ttt_engine.search.depth_first.refuse_unbounded`); ``time`` (seconds)
    switches to iterative deepening and plays the last completed depth's move
    (``time_limit``: deprecated name of ``time``).
    tt_size / tt_min_depth: table entries and the smallest remaining depth that
    uses the table (see :class:`ttt_engine.search.ABSearcher`; Quixo searches
    faster with ``tt_min_depth=1``).  ``seed`` is recorded (the search is
    deterministic); ``simulations`` does not apply (None); ``value_network``: a value
    network at the horizon instead of the heuristic (:func:`ttt_engine.search.alphabeta`).

    ``last_stats``: value, best_move, pv, nodes, time, depth, exact of the last
    search; ``last_result``: the same as a :class:`ttt_engine.search.SearchResult`.
    """

    def __init__(self, depth=None, heuristic=0, time=None, tt_size=1 << 18,
                 tt_min_depth=2, *, time_limit=None, seed=None, simulations=None,
                 value_network=None):
        self._init_common("AlphaBetaAgent", heuristic, time, time_limit, seed, simulations)
        self.value_network = _depth_first._compiled_value_net(value_network)
        self.depth = check_depth("depth", depth, allow_none=True)
        self.tt_size = check_int("tt_size", tt_size, min=1, max=1 << 30)
        self.tt_min_depth = check_int("tt_min_depth", tt_min_depth, min=1, max=30000)
        self._searcher = _search.ABSearcher(self.tt_size, tt_min_depth=self.tt_min_depth)
        self.name = f"alphabeta(d={depth if depth is not None else 'end'},h={heuristic})"

    def _search(self, board):
        if self.depth is None and self.time is None:    # to the end: refused where it never ends
            _search.refuse_unbounded(board, "AlphaBetaAgent", "depth= or time=")
        return _search.alphabeta(board, self.depth, heuristic=self.heuristic,
                                 time_limit=self.time, searcher=self._searcher,
                                 value_network=self.value_network)

    def _config(self):
        return {"depth": self.depth, "heuristic": self.heuristic, "time": self.time,
                "tt_size": self.tt_size, "tt_min_depth": self.tt_min_depth, "seed": self.seed,
                "value_network": self.value_network}

    def __repr__(self):
        return f"AlphaBetaAgent(depth={self.depth}, heuristic={self.heuristic})"


class MinimaxAgent(_DepthFirstAgent):
    """Plain minimax (MAX/MIN, no pruning, no table) at a fixed depth with the
    game's heuristic ``heuristic`` at the horizon (:func:`ttt_engine.search.minimax`);
    node counts are the textbook ones.  ``time`` (seconds) stops a search that
    runs too long (``TimeoutError``; ``time_limit``: deprecated name).  ``seed``
    is recorded (deterministic); ``simulations`` does not apply (None).
    ``last_stats`` / ``last_result`` as :class:`AlphaBetaAgent`.
    """

    def __init__(self, depth=3, heuristic=0, time=None, *, time_limit=None, seed=None,
                 simulations=None):
        self._init_common("MinimaxAgent", heuristic, time, time_limit, seed, simulations)
        self.depth = check_depth("depth", depth)
        self.name = f"minimax(d={self.depth})"

    def _search(self, board):
        return _search.minimax(board, self.depth, heuristic=self.heuristic,
                               time_limit=self.time)

    def _config(self):
        return {"depth": self.depth, "heuristic": self.heuristic, "time": self.time,
                "seed": self.seed}

    def __repr__(self):
        return f"MinimaxAgent(depth={self.depth}, heuristic={self.heuristic})"


class MCTSAgent(Agent):
    """UCT agent (:class:`ttt_engine.search.MCTS`) with tree reuse across its moves.

    simulations / time: budget per move (either, both = whichever ends first,
    neither = 10,000 simulations).  c: UCB exploration constant.  seed: RNG
    seed.  max_nodes: node arena size.  expand_after: visits before a leaf is
    expanded; solver: MCTS-Solver proofs; threads: root-parallel search over
    that many trees and threads, the budget shared (see
    :class:`ttt_engine.search.MCTS`); playout: the simulation step
    (``"random"``, the default, or ``"decisive"`` where the game has it,
    ``Board.PLAYOUTS``; see
    :class:`ttt_engine.search.MCTS`); endgame: an exact solve once that few
    cells are empty (UTTT, Connect Four; Clobber: stones left), endgame_share:
    the share of a timed move that solve may take (default 0.3); prior: a network (``Network``, a path to a saved
    one, ``"shipped"`` for the one that ships for the game, or any evaluator)
    whose policy guides the most visited nodes, with ``prior_visits``,
    ``prior_batch`` and ``c_puct``; ``value_network`` / ``value_weight`` / ``score_children`` / ``leaf_from_children`` / ``minimax_weight`` / ``prior_temp``: a value network at the
    new leaves, mixed with playouts (see :class:`ttt_engine.search.MCTS`).  One move at a time: a second thread
    calling ``select_move`` meanwhile gets a ``RuntimeError``.  ``depth`` does
    not apply (None).  ``last_stats``: the last search's statistics
    (:attr:`ttt_engine.search.MCTS.stats`; ``stats`` is its old name).
    ``tablebase``: read the game's endgame table first (``Game.table_value``;
    :mod:`ttt_engine.search.table`): its move where it knows every move or a
    win, no search; the search's move never one it knows to be worse than
    another; the search alone where it knows nothing or is not installed.
    ``last_answer``: ``"endgame table"`` or ``"search"``, who chose the last move.
    """

    def analyse(self, board, **live):
        """Its tree's root moves (visits, values, lines), in live slices when
        timed; the table's exact values where its endgame table chooses."""
        view = self._table_view(board)
        if view is not None and view.decided() is not None:
            self.last_answer = _table.ANSWERED
            return _table.table_analysis(self, board, view)
        self.last_answer = "search"
        return _explain.tree_search(self, board, tree=self._mcts, **live)

    def __init__(self, simulations=None, time=None, c=math.sqrt(2), seed=None,
                 max_nodes=1_000_000, reuse=True, expand_after=0, solver=False, threads=1,
                 *, depth=None, playout="random", endgame=0, endgame_share=0.3, prior=None,
                 prior_visits=16, prior_batch=16, c_puct=1.25, value_network=None,
                 value_weight=1.0, score_children=True, leaf_from_children=False,
                 minimax_weight=0.0, tablebase=False, prior_temp=0.0):
        no_budget("MCTSAgent", depth=depth)
        self.tablebase = check_bool("tablebase", tablebase)
        self.last_answer = None
        self.prior = prior
        self._prior_key = None
        self.simulations = check_simulations("simulations", simulations, allow_none=True)
        self.time = check_seconds("time", time, allow_none=True)
        if self.simulations is None and self.time is None:
            self.simulations = _search.MCTS.DEFAULT_SIMULATIONS
        self._mcts = _search.MCTS(c=c, max_nodes=max_nodes, seed=seed, reuse=reuse,
                                  expand_after=expand_after, solver=solver, threads=threads,
                                  playout=playout, endgame=endgame,
                                  endgame_share=endgame_share,
                                  prior=None if prior is None or _is_shipped(prior)
                                  else _load_evaluator(prior),
                                  prior_visits=prior_visits, prior_batch=prior_batch,
                                  c_puct=c_puct, value_network=value_network,
                                  value_weight=value_weight, score_children=score_children,
                                  leaf_from_children=leaf_from_children,
                                  minimax_weight=minimax_weight, prior_temp=prior_temp)
        self.c = self._mcts.c
        self.name = (f"mcts({self.simulations} sims)" if self.time is None
                     else f"mcts({self.time}s)")

    @property
    def seed(self):
        return self._mcts.seed

    @property
    def last_stats(self):
        """Statistics of the last search (see :attr:`ttt_engine.search.MCTS.stats`)."""
        return self._mcts.stats

    stats = last_stats   # the old name

    def reset(self, seed=None):
        """Drop the search tree; with ``seed``, restart the random stream from it."""
        self._mcts.reset(seed)

    def select_move(self, board):
        """The most visited move after searching ``board`` within the budget (the tree kept
        for the next move); ``last_stats`` has the search's statistics."""
        require_moves(self, board)
        view = self._table_view(board)
        if view is not None and view.decided() is not None:
            self.last_answer = _table.ANSWERED
            return view.decided()
        self.last_answer = "search"
        if self.prior is not None:
            self._check_prior(board)
        move = self._mcts.search(board, simulations=self.simulations, time=self.time)
        return move if view is None else view.overrule(move)

    def _table_view(self, board):
        """The endgame table's view of ``board`` with ``tablebase``, else None."""
        return _table.table_view(board) if self.tablebase else None

    def _check_prior(self, board):
        """The shipped network of the board's game (``prior="shipped"``,
        loaded at the first move), or a check that the given one fits."""
        if _is_shipped(self.prior):
            key = games.of_board(board).key
            if self._prior_key != key:
                self._mcts.prior = load_shipped(key)
                self._mcts._guided = None
                self._prior_key = key
            return
        check = getattr(self._mcts.prior, "check_board", None)
        if check is not None:
            check(board)

    @property
    def threads(self):
        return self._mcts.threads

    def _config(self):
        m = self._mcts
        return {"simulations": self.simulations, "time": self.time, "c": self.c,
                "seed": m.seed, "max_nodes": m.max_nodes, "reuse": m.reuse,
                "expand_after": m.expand_after, "solver": m.solver, "threads": m.threads,
                "playout": m.playout, "endgame": m.endgame, "endgame_share": m.endgame_share,
                "prior": self._prior_config(),
                "prior_visits": m.prior_visits, "prior_batch": m.prior_batch,
                "c_puct": m.c_puct, "value_network": m.value_network,
                "value_weight": m.value_weight, "score_children": m.score_children,
                "leaf_from_children": m.leaf_from_children,
                "minimax_weight": m.minimax_weight, "prior_temp": m.prior_temp,
                "tablebase": self.tablebase}

    def _prior_config(self):
        if self.prior is None or isinstance(self.prior, str):
            return self.prior
        if not _picklable_network(self.prior):
            raise TypeError("this MCTSAgent's prior evaluator does not pickle")
        return self.prior

    def __repr__(self):
        return f"MCTSAgent(simulations={self.simulations}, time={self.time}, c={self.c:.4g})"


#: How ``AZAgent`` spreads its search over threads: several trees or one.
PARALLEL_MODES = ("root", "tree")


class AZAgent(Agent):
    """AlphaZero-style agent: :class:`ttt_engine.search.PUCT` guided by a
    network (or any evaluator), keeping its tree between moves.

    - network: a ``ttt_engine.network.Network``, a path to a saved one, any
      evaluator callable, or None for the network that ships with the
      package for the game (one for every game; chosen at the first move).
    - simulations / time: budget per move (either, both = whichever ends first,
      neither = 800 simulations).  batch_size: leaves per network call
      (virtual loss).  max_nodes: node arena of each tree (32 bytes a node,
      twice: the tree and its re-rooting copy; pages touched only as the
      tree grows; a full arena stops the tree growing).
      c_puct: exploration constant.  playout_weight: weight
      of random playouts in every leaf value, mixed_playouts: how many,
      expand_after: the visits a leaf is valued by playouts alone before it
      goes to the network, solver: MCTS-Solver proofs, playout: the
      playouts' policy, "random" or "decisive", endgame: the exact endgame
      solve from that many empty cells (UTTT, Connect Four; Clobber: stones left; one tree only), endgame_share:
      the share of a timed move that solve may take, contempt: a draw's
      value below 0 for the side that searches (see
      :class:`ttt_engine.search.PUCT`).  For these nine, None takes the
      settings the shipped network was measured with (``SHIPPED_SETTINGS``)
      when it plays, else ``DEFAULTS`` (8, 0, 1, 0, False, "random", 0, 0.3, 0).  threads: that
      many threads search at once, as ``parallel`` says: "root" (root
      parallelism, as ``MCTSAgent``'s: that many trees, each with the whole
      time budget or its share of the simulations, the root visits summed
      to choose the move) or "tree" (one tree searched by every thread,
      virtual losses keeping their leaves apart: ``PUCT(threads=...)``);
      the evaluator is called from every thread (the numpy ``Network`` is
      thread-safe).  seed: fixes the search (with a budget in simulations
      and one thread, the same seed plays the same moves).

    ``depth`` does not apply (None).  ``last_stats``: the last search's
    statistics (:attr:`ttt_engine.search.PUCT.stats`).  Playing needs only
    numpy; one move at a time per agent.
    """

    DEFAULT_SIMULATIONS = 800
    #: the search settings of an agent whose network is not a shipped one
    DEFAULTS = {"batch_size": 8, "playout_weight": 0.0, "mixed_playouts": 1, "expand_after": 0,
                "solver": False, "playout": "random", "endgame": 0, "endgame_share": 0.3,
                "contempt": 0.0}

    def __init__(self, network=None, simulations=None, time=None, seed=None, *, c_puct=1.25,
                 batch_size=None, max_nodes=2_000_000, playout_weight=None, mixed_playouts=None,
                 expand_after=None, solver=None, playout=None, endgame=None,
                 endgame_share=None, threads=1, parallel="root", depth=None, contempt=None):
        no_budget("AZAgent", depth=depth)
        from ttt_engine import _parallel
        self.threads = _parallel.check_threads(threads)
        self.parallel = check_choice("parallel", parallel, PARALLEL_MODES)
        self.simulations = check_simulations("simulations", simulations, allow_none=True)
        self.time = check_seconds("time", time, allow_none=True)
        if self.simulations is None and self.time is None:
            self.simulations = self.DEFAULT_SIMULATIONS
        self.network = network
        self.c_puct = check_real("c_puct", c_puct, low=0, high=1e6)
        self.batch_size = check_int("batch_size", batch_size, min=1, max=4096, allow_none=True)
        self.max_nodes = check_int("max_nodes", max_nodes, min=1024, max=(1 << 31) - 1)
        self.seed = resolve_seed(seed)
        self.playout_weight = check_real("playout_weight", playout_weight, low=0, high=1,
                                         allow_none=True)
        self.mixed_playouts = check_int("mixed_playouts", mixed_playouts, min=1, max=10_000,
                                        allow_none=True)
        self.expand_after = check_int("expand_after", expand_after, min=0, max=1_000_000,
                                      allow_none=True)
        self.solver = None if solver is None else check_bool("solver", solver)
        self.playout = None if playout is None else _search.playout_name(playout)
        self.endgame = check_int("endgame", endgame, min=0, max=81, allow_none=True)
        self.endgame_share = check_real("endgame_share", endgame_share, low=0, low_open=True,
                                        high=1, allow_none=True)
        if self.endgame and self.threads > 1 and self.parallel == "root":
            raise ValueError("endgame= needs one tree: use parallel='tree' (or threads=1) "
                             "with it")
        self.contempt = check_real("contempt", contempt, low=0, high=1, high_open=True,
                                   allow_none=True)
        self._puct = None
        self._pucts = []
        self._merged = None
        self._evaluator = None
        self.name = (f"az({self.simulations} sims)" if self.time is None
                     else f"az({self.time}s)")
        if network is not None:
            self._evaluator = _load_evaluator(network)
            self._resolve({})
            if self.parallel == "tree":
                _search.check_tree_threads(self._evaluator, self.threads)

    def _bind(self, game, engine):
        # bound to one game: a network of another is refused now, not at the first move
        key = getattr(self._evaluator, "game_key", None)
        if key is not None and key != game:
            self._evaluator.check_game(game)
        return super()._bind(game, engine)

    def _resolve(self, settings):
        """Fill the settings left at None: from ``settings`` (those the shipped
        network was measured with; a ``{"simulations": x, "time": y}`` entry
        depends on the kind of budget), else the plain defaults."""
        settings = games.for_budget(settings, timed=self.simulations is None)
        for name, default in self.DEFAULTS.items():
            if getattr(self, name) is None:
                setattr(self, name, settings.get(name, default))

    @property
    def last_stats(self):
        if self._merged is not None:
            return dict(self._merged)
        return self._puct.stats if self._puct is not None else {}

    def reset(self, seed=None):
        """Drop the search tree; with ``seed``, restart the random stream from it."""
        if seed is not None:
            self.seed = resolve_seed(seed)
        for puct, s in zip(self._pucts, self._seeds()):
            puct.reset(s)
        self._merged = None

    def analyse(self, board, **live):
        """Its trees' root moves (visits, values, lines), one tree in live slices when timed."""
        return _explain.puct_search(self, board, lambda: self._pucts, self._search_for, **live)

    def _seeds(self):
        """One seed per tree: root parallelism's split, or the seed itself."""
        from ttt_engine import _parallel
        if self.parallel == "tree":
            return [self.seed]
        return _parallel.split_seeds(self.seed, self.threads)

    def _search_for(self, board):
        if self._evaluator is None:
            key = games.of_board(board).key
            net = load_shipped(key)
            _check_board(net, board)
            self._evaluator = net
            self._resolve(games.get(key).network_settings)
        else:
            _check_board(self._evaluator, board)
        if self._puct is None:
            self._pucts = [
                _search.PUCT(self._evaluator, c_puct=self.c_puct, batch_size=self.batch_size,
                             max_nodes=self.max_nodes, seed=s,
                             playout_weight=self.playout_weight,
                             mixed_playouts=self.mixed_playouts,
                             expand_after=self.expand_after, solver=self.solver,
                             playout=self.playout, endgame=self.endgame,
                             endgame_share=self.endgame_share, contempt=self.contempt,
                             threads=self.threads if self.parallel == "tree" else 1)
                for s in self._seeds()]
            self._puct = self._pucts[0]
        return self._puct

    def select_move(self, board):
        """The most visited move of the network-guided search of ``board`` within the
        budget (root visits summed over the trees with root parallelism)."""
        require_moves(self, board)
        puct = self._search_for(board)
        if self.threads == 1 or self.parallel == "tree":
            return puct.search(board, simulations=self.simulations, time=self.time)
        return self._search_parallel(board)

    def _search_parallel(self, board):
        """Root parallelism: every tree searches in its own thread (the whole
        time budget each, or its share of the simulations); the root visits
        are summed to choose the move."""
        from ttt_engine import _parallel
        k = self.threads
        sims = (_parallel.split_counts(self.simulations, k) if self.simulations is not None
                else [None] * k)
        parts = [(p, board.copy(), n, self.time) for p, n in zip(self._pucts, sims)]
        _parallel.run_parts(_search._puct_part, parts)
        stats = [p.stats for p in self._pucts]
        children, move = _search.merge_puct_roots(self._pucts)
        self._merged = {
            "simulations": sum(s["simulations"] for s in stats),
            "time": max(s["time"] for s in stats),
            "evaluations": sum(s["evaluations"] for s in stats),
            "evaluator_calls": sum(s["evaluator_calls"] for s in stats),
            "root_visits": sum(s["root_visits"] for s in stats),
            "children": children, "best_move": move, "threads": k,
            "num_actions": stats[0]["num_actions"]}
        self._merged["simulations_per_s"] = (self._merged["simulations"] / self._merged["time"]
                                             if self._merged["time"] > 0 else float("inf"))
        return move

    def _config(self):
        net = self.network
        if isinstance(net, str):
            pass
        elif net is not None and not _picklable_network(net):
            raise TypeError("this AZAgent's evaluator does not pickle")
        return {"network": net, "simulations": self.simulations, "time": self.time,
                "seed": self.seed, "c_puct": self.c_puct, "batch_size": self.batch_size,
                "max_nodes": self.max_nodes, "playout_weight": self.playout_weight,
                "mixed_playouts": self.mixed_playouts, "expand_after": self.expand_after,
                "solver": self.solver, "playout": self.playout, "endgame": self.endgame,
                "endgame_share": self.endgame_share, "threads": self.threads,
                "parallel": self.parallel, "contempt": self.contempt}

    def __repr__(self):
        return f"AZAgent(simulations={self.simulations}, time={self.time})"


class PolicyAgent(Agent):
    """The network's policy alone, no search: the legal move of largest logit
    (ties: the first).  ``network``: a ``Network``, a path to a saved one, or
    None for the one that ships for the board's game (loaded at the first
    move).  What a yardstick measures as "the network's policy alone"."""

    def __init__(self, network=None, seed=None):
        self.network = None if network is None else _load_evaluator(network)
        if self.network is not None and not hasattr(self.network, "forward"):
            raise TypeError(f"PolicyAgent needs a Network (or a path to one), got "
                            f"{type(self.network).__name__}")
        self.name = "policy"

    def select_move(self, board):
        """The network's most likely legal move in ``board`` (no search)."""
        import numpy as np
        if self.network is None:
            self.network = load_shipped(games.of_board(board).key)
        check = getattr(self.network, "check_board", None)
        if check is not None:
            check(board)
        if board.is_terminal():
            raise ValueError("the game is over: no move to choose")
        logits, _ = self.network.forward(np.asarray(board.observation())[None])
        mask = np.asarray(board.action_mask(), bool)
        action = int(np.argmax(np.where(mask, logits[0], -np.inf)))
        return board.action_to_move(action)

    analyse = _explain.policy       # each move's prior and the network's value (docs/agents.md)

    def _config(self):
        return {"network": self.network}


#: the search settings each shipped network was measured with (each game's
#: ``network_settings``, a read-only view of the registry; docs/alphazero.md).
SHIPPED_SETTINGS = games.FactView("network_settings")


REINSTALL = _modelfile.REINSTALL


def shipped_path(key):
    """Where the network of the game ``key`` ships in the package."""
    import os
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "networks", f"{key}.npz")


def shipped_network(game):
    """Path of the network that ships for ``game`` (a registry key);
    ``ValueError`` saying how to train one where none ships, or naming the
    file and how to reinstall where the install has lost it."""
    import os
    g = games.get(game)
    path = shipped_path(g.key)
    if not os.path.isfile(path):
        if g.ships_network:
            raise ValueError(f"the network that ships for {g.title} is missing ({path}): "
                             f"{REINSTALL}")
        raise ValueError(f"no trained network ships for {g.title}: train one with "
                         f"'ttt-engine az train --game {g.key} --out net.npz' and pass "
                         f"network='net.npz' (in the console: --network net.npz)")
    return path


#: shipped networks already read: (game key, path) -> ((mtime, size), Network)
_SHIPPED_CACHE = {}
_SHIPPED_LOCK = threading.Lock()


def _check_board(net, board):
    """``net`` evaluates ``board`` (if it can say); a shipped network refuses a
    board of other options saying how to train one."""
    try:
        getattr(net, "check_board", lambda b: None)(board)
    except ValueError:
        with _SHIPPED_LOCK:
            shipped = any(net is hit[1] for hit in _SHIPPED_CACHE.values())
        if not shipped or not isinstance(board, games.get(net.game_key).Board):
            raise
        opts = ", ".join(f"{k}={v}" for k, v in net.board_options.items())
        raise ValueError(f"the network that ships for {games.get(net.game_key).title} plays "
                         f"its boards with {opts} only: train one for this board with "
                         f"'ttt-engine az train --game {net.game_key} ...' and pass "
                         f"network='net.npz' (in the console: --network net.npz)") from None


def load_shipped(game):
    """The network that ships for ``game``, loaded; ``ValueError`` naming the
    file and how to reinstall where it is missing or damaged.

    The file is read once per process (again only if it changes on disk):
    every agent of the game shares the one object, so treat it as read-only."""
    from ttt_engine import network as _network
    path = shipped_network(game)
    key = games.get(game).key
    try:
        return _modelfile.read_once(_SHIPPED_CACHE, _SHIPPED_LOCK, key, path,
                                    lambda p: _network.Network.load(p, key))
    except (ValueError, OSError) as e:
        raise ValueError(f"the network that ships for {games.get(game).title} cannot be "
                         f"read ({path}: {str(e).removeprefix(path + ': ')}): {REINSTALL}") \
            from None


def _is_shipped(prior):
    """Is ``prior`` the name of the shipped network (not a path or an evaluator)?"""
    return isinstance(prior, str) and prior == "shipped"


def _load_evaluator(network):
    import os
    if isinstance(network, (str, os.PathLike)):
        from ttt_engine import network as _network
        return _network.Network.load(network)
    if not callable(network):
        raise TypeError(f"network must be a Network, a path to a saved one or an evaluator "
                        f"callable, got {type(network).__name__}")
    return network


def _picklable_network(net):
    import pickle
    try:
        pickle.dumps(net)
    except Exception:
        return False
    return True
