"""Tree Q-learning and Sarsa agents for any game on the interface.

The learning happens at play time: before each move the agent runs training
simulations from the current board for a time or iteration budget, keeping its
Q tree between turns (only the subtree of the new current board survives).
See ``ttt_engine._core.algorithms.treelearn`` (Cython) for the exact update rules.

>>> from ttt_engine import uttt
>>> agent = TreeQAgent(simulations=2000, seed=1)
>>> agent.select_move(uttt.Board()) in range(81)
True
"""
from __future__ import annotations

import math

from ttt_engine._util import (check_bool, check_int, check_real, check_seconds, check_simulations,
                              resolve_seed)
from ttt_engine._agent import Agent, alias, no_budget, require_moves
from ttt_engine.search import _dispatch, _OneSearchAtATime

from ttt_engine._core.algorithms import treelearn as _tl

__all__ = ["TreeQAgent", "SarsaAgent"]


class _TreeLearnerAgent(Agent, _OneSearchAtATime):
    DEFAULT_SIMULATIONS = 10_000
    DEFAULT_ITERATIONS = DEFAULT_SIMULATIONS     # old name
    _algo = None
    _label = None

    def __init__(self, simulations, time, epsilon, win, seed, max_nodes, reuse, reuse_depth,
                 iterations, depth):
        cls = type(self).__name__
        no_budget(cls, depth=depth)
        if iterations is not None:
            iterations = check_simulations("iterations", iterations)
        simulations = alias(cls, "simulations", simulations, "iterations", iterations,
                            stacklevel=4)
        self.simulations = check_simulations("simulations", simulations, allow_none=True)
        self.time = check_seconds("time", time, allow_none=True)
        if self.simulations is None and self.time is None:
            self.simulations = self.DEFAULT_SIMULATIONS
        self.epsilon = check_real("epsilon", epsilon, low=0, high=1)
        self.win = check_real("win", win, low=0, low_open=True, high=1e6)
        self.seed = resolve_seed(seed)
        self.max_nodes = check_int("max_nodes", max_nodes, min=int(_tl.MIN_NODES),
                                   max=(1 << 31) - 1)
        self.reuse = check_bool("reuse", reuse)
        self.reuse_depth = check_int("reuse_depth", reuse_depth, min=0, max=16)
        self._tree = _tl.TreeLearner(self.max_nodes, self._algo, self.seed)
        self._init_exclusive()
        self._root = None
        self.last_stats = {}
        budget = (f"{self.simulations} iters" if self.time is None
                  else f"{self.time}s" if self.simulations is None
                  else f"{self.simulations} iters/{self.time}s")
        self.name = f"{self._label}({budget})"

    @property
    def _what(self):
        return type(self).__name__

    @property
    def iterations(self):
        """Old name of :attr:`simulations`."""
        return self.simulations

    def _configure(self, alpha, gamma):
        self._tree.configure(self.epsilon, self.win, alpha, gamma)

    def reset(self, seed=None):
        """Forget the tree; with ``seed``, restart the random stream from it."""
        self._exclusive(self._reset, seed)

    def _reset(self, seed):
        self._tree.clear()
        self._root = None
        self.last_stats = {}
        if seed is not None:
            self.seed = resolve_seed(seed)
            self._tree.reseed(self.seed)

    def search(self, board, simulations=None, time=None, *, iterations=None):
        """Train from ``board`` (budget: arguments, else the agent's) and return
        the move with the lowest child Q.  ``board`` is not changed.
        (``iterations``: old name of ``simulations``.)"""
        require_moves(self, board)
        if iterations is not None:
            iterations = check_simulations("iterations", iterations)
        simulations = alias(type(self).__name__ + ".search", "simulations", simulations,
                            "iterations", iterations, stacklevel=3)
        iters = check_simulations("simulations", simulations, allow_none=True)
        t = check_seconds("time", time, allow_none=True)
        if iters is None and t is None:
            iters, t = self.simulations, self.time
        # a copy: the compiled learner reads the root without the GIL
        return self._exclusive(self._search, board.copy(), iters, t)

    def _search(self, board, iters, t):
        reused = False
        if self.reuse and self._root is not None and type(self._root) is type(board):
            reused = bool(_dispatch(_tl.tl_reroot, self._tree, self._root, board,
                                    self.reuse_depth))
        else:
            self._tree.clear()
        reused_visits = self._tree.root_visits
        self._root = None          # until the search is done (an interrupt leaves no root)
        done, seconds = _dispatch(_tl.tl_search, self._tree, board, iters or 0, t or 0.0)
        self._root = board.copy()
        move = self._tree.best_move()
        if move is None:
            raise RuntimeError(f"{self._label}: root was not expanded")
        self.last_stats = {
            "simulations": int(done), "time": float(seconds),
            "simulations_per_s": done / seconds if seconds > 0 else float("inf"),
            "nodes_used": self._tree.nodes_used, "max_nodes": self._tree.max_nodes,
            "reused": reused, "reused_visits": int(reused_visits),
            "root_visits": self._tree.root_visits,
            "tail_simulations": int(self._tree.tail_simulations),
            "best_move": move,
        }
        return move

    def select_move(self, board):
        """The agent's move on ``board`` after its training budget."""
        return self.search(board)

    def analyse(self, board):
        """Its move, and the visits, values and lines of the Q tree's root
        moves after it (the analysis protocol, docs/agents.md)."""
        from ttt_engine import _explain
        return _explain.tree_learner(self, board, root_children=self.root_children,
                                     lines=self.lines)

    def root_children(self):
        """``[(move, q, visits)]`` of the last search's root (q: lower is better)."""
        return self._tree.root_children()

    def lines(self, k=None, depth=16):
        """The principal variations of the Q tree as the last search left it,
        read without changing it (the next search goes on from the same tree):
        for the ``k`` best root moves (all of them with None), best first in
        the order of :meth:`search`'s choice, the line below each, at most
        ``depth`` moves, following at every node the move the learner plays
        (the lowest child Q; ties: more visits, then the first in move order)
        down to a node the tree has not expanded.  Each line is a list of
        ``{"move", "q", "visits", "terminal"}``, the first being the root
        move's entry of :meth:`root_children`; ``q`` is from the side to move
        after the move (lower is better for its mover), ``terminal`` True where
        the move ends the game (its q is then exact).  ``[]`` before a search
        and after an interrupted one.  Like ``search``, one thread at a time."""
        # loaded on first use: an agent whose lines are never read never loads it
        from ttt_engine._core.algorithms import treelearn_lines as _tll
        k = None if k is None else check_int("k", k, min=1)
        depth = check_int("depth", depth, min=1, max=int(_tll.MAX_LINE))
        return self._exclusive(self._lines, _tll, k, depth)

    def _lines(self, tll, k, depth):
        if self._root is None:
            return []
        return [[{"move": m, "q": q, "visits": v, "terminal": bool(t)} for m, q, v, t in line]
                for line in tll.tl_lines(self._tree, k, depth)]

    def child_visits(self, move):
        return self._tree.child_visits(int(move))

    def grandchild_visits(self, move1, move2):
        return self._tree.grandchild_visits(int(move1), int(move2))

    @property
    def root_visits(self):
        return self._tree.root_visits

    def _base_config(self):
        return {"simulations": self.simulations, "time": self.time, "epsilon": self.epsilon,
                "win": self.win, "seed": self.seed, "max_nodes": self.max_nodes,
                "reuse": self.reuse, "reuse_depth": self.reuse_depth}

    def save(self, path):
        """Write the agent's settings to ``path`` (``.npz``, no pickle, atomic;
        see docs/agents.md).  The Q tree is not saved: it is rebuilt from the
        current board at every move and dropped at the start of a new game,
        so nothing learned outlives a game.  Returns the bytes written."""
        from ttt_engine._modelfile import save_settings
        return save_settings(self, path)

    @classmethod
    def load(cls, path):
        """Read an agent written by :meth:`save`; ``ValueError`` naming both
        kinds if the file holds another agent."""
        from ttt_engine._modelfile import load_settings
        return load_settings(cls, path)

    def __repr__(self):
        return f"{type(self).__name__}(simulations={self.simulations}, time={self.time})"


class TreeQAgent(_TreeLearnerAgent):
    """Tree Q-learning: Q tree, epsilon-greedy simulations from the
    current board, ``Q <- Q + alpha (u - Q)`` along the path with ``u``'s sign
    alternating, ``alpha(x) = max(A e^(-k x), alpha_min)`` with ``x`` plies from
    the end of the game; plays the move to the lowest child Q.

    simulations / time: training budget per move (either; both = whichever ends
    first; neither = 10,000 simulations; ``iterations``: deprecated name of
    ``simulations``; ``depth`` does not apply).  epsilon: probability of a random move
    in a simulation (seed: 0.1).  A, alpha_min, k: learning-rate schedule (seed:
    0.4, 0.01, ln(A/alpha_min)/30 so alpha reaches alpha_min 30 plies from the
    end; ``alpha_min=0`` gives the bare ``A e^(-k x)``).  win: utility of a win
    (seed: 10).  max_nodes: arena size (24-byte nodes, allocated once).  reuse:
    keep the subtree of the new board between moves.
    """
    _algo = _tl.PY_QLEARN
    _label = "treeq"

    def __init__(self, simulations=None, time=None, *, epsilon=0.1, A=0.4, alpha_min=0.01,
                 k=None, win=10.0, seed=None, max_nodes=2_000_000, reuse=True, reuse_depth=2,
                 iterations=None, depth=None):
        super().__init__(simulations, time, epsilon, win, seed, max_nodes, reuse, reuse_depth,
                         iterations, depth)
        self.A = check_real("A", A, low=0, low_open=True, high=1)
        self.alpha_min = check_real("alpha_min", alpha_min, low=0, high=1)
        if k is None:
            k = math.log(self.A / self.alpha_min) / 30.0 if self.alpha_min > 0 else 0.1
        self.k = check_real("k", k, low=0, high=100)
        self._tree.set_learning_rate(self.A, self.alpha_min, self.k)
        self._configure(0.15, 0.99)

    def _config(self):
        return dict(self._base_config(), A=self.A, alpha_min=self.alpha_min, k=self.k)

    def alpha(self, x):
        """Learning rate ``x`` plies from the end of the game."""
        return self._tree.alpha_at(check_int("x", x, min=0))


class SarsaAgent(_TreeLearnerAgent):
    """Sarsa on the same Q tree:
    ``Q[s,a] <- Q[s,a] + alpha (r - Q[s,a] + gamma Q[s',a'])``, reward only at the
    end, ``a'`` the move the simulation took next (negamax signs).

    alpha: learning rate (seed code: 0.15).  gamma: discount (seed: 0.99).
    win: utility of a win (seed code: 100).  Other arguments as :class:`TreeQAgent`.
    """
    _algo = _tl.PY_SARSA
    _label = "sarsa"

    def __init__(self, simulations=None, time=None, *, epsilon=0.1, alpha=0.15, gamma=0.99,
                 win=100.0, seed=None, max_nodes=2_000_000, reuse=True, reuse_depth=2,
                 iterations=None, depth=None):
        super().__init__(simulations, time, epsilon, win, seed, max_nodes, reuse, reuse_depth,
                         iterations, depth)
        self.alpha = check_real("alpha", alpha, low=0, low_open=True, high=1)
        self.gamma = check_real("gamma", gamma, low=0, high=1)
        self._configure(self.alpha, self.gamma)

    def _config(self):
        return dict(self._base_config(), alpha=self.alpha, gamma=self.gamma)
