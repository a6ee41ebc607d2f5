"""The game registry: one entry per game, the single place that lists them.

>>> from ttt_engine import games
>>> sorted(games.GAMES)
['clobber', 'connect4', 'quixo', 'ttt', 'uttt']
>>> g = games.get("clobber")
>>> b = g.new_board(rows=4, cols=4)
>>> m = g.parse_move(b, "a1-a2")
>>> g.move_to_str(b, m)
'a1-a2'

Each :class:`Game` knows its title, its two sides in move order, its board
options and their defaults, how to make a board, how to read a move typed by a
person (with the reason when the move is refused), how to write one, how to
draw the board as text, and the engines (agents) that play it.

Move text: Tic-Tac-Toe cells ``1``-``9`` row by row (``zero_based=True``:
``0``-``8``, the cell numbers of ``Board.push``); Ultimate Tic-Tac-Toe ``"R, C"``
(row and column 0-8); Clobber ``"b3-b4"`` (from-square, captured square);
Quixo ``"a1R"`` (the cube taken, the end it is pushed back in from); Connect
Four the column letter ``"a"``-``"g"``.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Callable

from ttt_engine import _game_text as _text
from ttt_engine._util import check_board, resolve_seed

__all__ = ["GAMES", "Game", "Engine", "get", "BUDGETS"]

#: The budget keywords every engine factory understands (the ones an engine
#: does not use are refused by :meth:`Game.make_agent`).
BUDGETS = ("simulations", "time", "depth")


@dataclass(frozen=True)
class Engine:
    """One engine of a game.

    ``factory(seed=None, simulations=None, time=None, depth=None, **extra)``
    builds the agent; ``budgets`` are the budget keywords it uses, ``extra``
    the further keywords it accepts.
    """
    name: str
    help: str
    factory: Callable
    budgets: tuple = ()
    extra: tuple = ()


@dataclass(frozen=True)
class Game:
    """One game of the registry (see the module docstring)."""
    key: str
    title: str
    sides: tuple
    options: dict
    module_name: str
    engines: dict = field(default_factory=dict)
    default_engine: str = "random"
    notation: tuple = ()           # extra keywords of the move-text functions

    @property
    def module(self):
        """The public module, e.g. ``ttt_engine.clobber``."""
        return importlib.import_module(self.module_name)

    @property
    def playouts(self):
        """MCTS playout policies that apply (``MCTS(playout=...)``): ``"random"``
        for every game, ``"decisive"`` where its rules have their own decisive
        policy (``g_playout_decisive``; docs/add_a_game.md)."""
        return self.Board.PLAYOUTS

    @property
    def Board(self):
        """The game's board class."""
        return self.module.Board

    # ---------------------------------------------------------------- boards
    def _check_options(self, options):
        bad = sorted(set(options) - set(self.options))
        if bad:
            valid = ", ".join(self.options) or "none"
            raise ValueError(f"{self.title} has no option {', '.join(map(repr, bad))}; "
                             f"valid options: {valid}")

    def new_board(self, **options):
        """A board at the start, with ``options`` (see ``options``) changed from
        their defaults; an unknown option is a ``ValueError`` listing the valid ones."""
        self._check_options(options)
        kw = dict(self.options, **options)
        return self.Board(**kw)

    def from_string(self, text, **kw):
        """A board read from text in the game's ``to_string`` format."""
        if not isinstance(text, str):
            raise TypeError(f"text must be a string, got {type(text).__name__}")
        return self.Board.from_string(text.strip("\n") if self.key != "uttt" else text.strip(),
                                      **kw)

    def _check_board(self, board):
        check_board(board, self.Board, f"games.get({self.key!r})")

    def _check_notation(self, kw):
        bad = sorted(set(kw) - set(self.notation))
        if bad:
            raise ValueError(f"{self.title} move text has no option "
                             f"{', '.join(map(repr, bad))}; valid: "
                             f"{', '.join(self.notation) or 'none'}")

    def _fn(self, i):
        return _text.GAME_TEXT.get(self.key, _text.GENERIC_TEXT)[i]

    # ---------------------------------------------------------------- moves
    def parse_move(self, board, text, **notation):
        """The legal move ``text`` names on ``board``; ``ValueError`` with the
        reason (the game's move syntax when the text is not a move of this game)."""
        self._check_board(board)
        self._check_notation(notation)
        return self._fn(0)(board, text, **notation)

    def move_to_str(self, board, move, **notation):
        """``move`` as :meth:`parse_move` reads it."""
        self._check_board(board)
        self._check_notation(notation)
        return self._fn(1)(board, move, **notation)

    def draw(self, board, style=None, last_move=None, **notation):
        """The board as text.  ``style(text, *tags)`` may colour it (see
        :mod:`ttt_engine._game_text`); ``last_move`` is highlighted."""
        self._check_board(board)
        self._check_notation(notation)
        return self._fn(2)(board, style or _text.plain, last_move, **notation)

    def legend(self, board=None, **notation):
        """A few lines telling a person how to type moves."""
        self._check_notation(notation)
        return self._fn(3)(board, **notation)

    def prompt_hint(self, board=None, **notation):
        """A short hint for a move prompt, e.g. ``"1-9"`` or ``"e.g. b3-b4"``."""
        self._check_notation(notation)
        return self._fn(4)(board, **notation)

    # ---------------------------------------------------------------- engines
    def make_agent(self, name, *, seed=None, simulations=None, time=None, depth=None, **kw):
        """Build engine ``name`` (see ``engines``).  Budget keywords that the
        engine does not use, and unknown names, are ``ValueError``; ``seed``
        fixes the randomised engines and does not change the deterministic ones
        (alpha-beta, minimax)."""
        engine = self.engines.get(name)
        if engine is None:
            raise ValueError(f"unknown {self.title} engine {name!r}; valid engines: "
                             f"{', '.join(self.engines)}")
        budgets = {"simulations": simulations, "time": time, "depth": depth}
        for key, value in budgets.items():
            if value is not None and key not in engine.budgets:
                takes = ", ".join(engine.budgets) or "no budget"
                raise ValueError(f"the {self.title} {name} engine does not take {key}= "
                                 f"(it takes {takes})")
        bad = sorted(set(kw) - set(engine.extra))
        if bad:
            raise ValueError(f"the {self.title} {name} engine has no option "
                             f"{', '.join(map(repr, bad))}; valid: "
                             f"{', '.join(engine.extra) or 'none'}")
        budgets = {k: v for k, v in budgets.items() if k in engine.budgets}
        return engine.factory(seed=seed, **budgets, **kw)

    def analyse(self, board, engine=None, **kw):
        """What ``engine`` (a name, default ``default_engine``, built with the
        budget keywords of :meth:`make_agent`; or an agent) thinks of each legal
        move of ``board``: a :class:`ttt_engine.analysis.Analysis` (a table, and
        the board as an SVG heat map).  See :func:`ttt_engine.analysis.analyse`."""
        from ttt_engine.analysis import analyse
        return analyse(self, board, self.default_engine if engine is None else engine, **kw)


# ---------------------------------------------------------------------------- engines
def _random(seed=None):
    from ttt_engine.agents import RandomAgent
    return RandomAgent(seed=seed)


def _mcts(seed=None, simulations=None, time=None):
    from ttt_engine.agents import MCTSAgent
    return MCTSAgent(simulations=simulations, time=time, seed=seed)


def _alphabeta(default_depth, **fixed):
    def build(seed=None, depth=None, time=None):
        from ttt_engine.agents import AlphaBetaAgent
        if depth is None and time is None:
            depth = default_depth
        return AlphaBetaAgent(depth=depth, time=time, **fixed)
    return build


def _perfect(seed=None, randomize=True):
    from ttt_engine.agents import PerfectAgent
    return PerfectAgent(randomize=randomize, seed=seed)


def _q(seed=None, model=None, episodes=None, progress=False):
    """A saved Q-learning model (``model=path``), else a freshly trained one."""
    import ttt_engine
    if model is not None:
        return ttt_engine.QAgent.load(model)
    kw = {} if episodes is None else {"episodes": episodes}
    return ttt_engine.train(seed=seed, progress=progress, **kw)


def _az(game):
    def build(seed=None, simulations=None, time=None, network=None, batch_size=None,
              c_puct=1.25, playout_weight=None, mixed_playouts=None, expand_after=None,
              solver=None, playout=None, endgame=None, endgame_share=None, threads=1,
              parallel="root"):
        from ttt_engine.agents import AZAgent, shipped_network
        if network is None:
            shipped_network(game)    # where none ships: the error saying how to train one
        return AZAgent(network, simulations=simulations, time=time, seed=seed,
                       batch_size=batch_size, c_puct=c_puct, playout_weight=playout_weight,
                       mixed_playouts=mixed_playouts, expand_after=expand_after,
                       solver=solver, playout=playout, endgame=endgame,
                       endgame_share=endgame_share, threads=threads, parallel=parallel)
    return build


_AZ_HELP = ("AlphaZero-style PUCT guided by a network (the shipped one, or network=PATH; "
            "simulations or time per move)")
_AZ_EXTRA = ("network", "batch_size", "c_puct", "playout_weight", "mixed_playouts",
             "expand_after", "solver", "playout", "endgame", "endgame_share", "threads",
             "parallel")


def _tree(kind):
    def build(seed=None, simulations=None, time=None):
        from ttt_engine import tree_agents
        cls = tree_agents.TreeQAgent if kind == "treeq" else tree_agents.SarsaAgent
        return cls(simulations=simulations, time=time, seed=seed)
    return build


def _clobber(algorithm):
    def build(seed=None, depth=None, time=None, heuristic="adaptive"):
        from ttt_engine.clobber_play import ClobberAgent
        if depth is None:
            depth = 64 if time is not None else 3
        return ClobberAgent(algorithm, heuristic, depth, time)
    return build


def _greedy(seed=None, values=None, games=100_000, epsilon=0.0):
    """Quixo's state-value agent: ``values`` a ValueTable or a saved file; without
    one, values are collected from ``games`` random games first."""
    from ttt_engine import quixo
    if values is None:
        values, _ = quixo.collect_values(games, seed=seed)
    elif not isinstance(values, quixo.ValueTable):
        values = quixo.load_values(values)
    return quixo.GreedyValueAgent(values, epsilon=epsilon, exact_terminal=True,
                                  seed=resolve_seed(seed))


def _quixo_heuristic(seed=None):
    """Quixo's one-ply agent: a winning move, never a losing one when another
    exists, else the best line-count evaluation (random tie break)."""
    from ttt_engine import quixo
    return quixo.HeuristicAgent(seed=resolve_seed(seed))


#: The strongest engine of each game as MCTS settings (docs/strength.md):
#: MCTS-Solver and the game's best playout policy, with root parallelism over
#: the machine's cores (at most 2 by default; see ``_default_threads``).
BEST_MCTS = {
    "uttt": {"solver": True, "c": 0.8},
    "clobber": {"solver": True, "c": 0.8},
    "quixo": {"solver": True, "playout": "decisive"},
    "connect4": {"solver": True, "playout": "decisive"},
}
#: The games whose strongest engine is the network-guided search instead:
#: ``AZAgent`` with the shipped network and its settings, plus these.  On a
#: time budget both cores search its one tree (tree parallelism: a second
#: root-parallel tree measured no gain, docs/strength.md); on a simulation
#: budget one thread, so that a seed fixes the moves.  On a time budget, from
#: 25 empty cells the exact endgame solve plays proven wins and keeps proven
#: draws (it has a time limit, so on a simulation budget it would make the
#: moves depend on the clock).  A ``{"simulations": x, "time": y}`` entry
#: depends on the kind of budget.
BEST_AZ = {
    "uttt": {"solver": True, "parallel": "tree", "endgame": {"simulations": 0, "time": 25}},
}
#: With two threads or more on a time budget the exact endgame solve runs
#: beside the tree, in a thread of its own (``PUCT``), taking one thread
#: from the tree instead of all of the tree's time: it can then start
#: earlier and have more of the move (docs/strength.md, "The endgame solve
#: beside the tree").
BEST_AZ_BESIDE = {
    "uttt": {"endgame": 30, "endgame_share": 0.8},
}
#: Seconds per move of the strongest engine when no budget is given.
BEST_TIME = 1.0


def _default_threads(timed):
    """Both cores (at most 2), but one thread for a time budget on a machine
    whose other cores are busy (load average above the cores minus one): root
    parallelism then gets no second core and only splits the tree (measured:
    0.32 against one thread at equal time, docs/strength.md).  With a
    simulation budget the count never depends on the load, so a seed keeps
    giving the same moves."""
    import os

    from ttt_engine import _parallel
    n = min(2, _parallel.cores())
    if timed and n > 1 and hasattr(os, "getloadavg") and os.getloadavg()[0] > n - 1:
        return 1
    return n


def _best(game):
    def build(seed=None, simulations=None, time=None, threads=None):
        from ttt_engine.agents import AZAgent, MCTSAgent
        if simulations is None and time is None:
            time = BEST_TIME
        if game in BEST_AZ:
            if threads is None:
                threads = 1 if time is None else _default_threads(True)
            kind = "simulations" if time is None else "time"
            settings = {k: v[kind] if isinstance(v, dict) else v
                        for k, v in BEST_AZ[game].items()}
            if time is not None and threads > 1:
                settings.update(BEST_AZ_BESIDE.get(game, {}))
            agent = AZAgent(simulations=simulations, time=time, seed=seed, threads=threads,
                            **settings)
        else:
            if threads is None:
                threads = _default_threads(simulations is None)
            agent = MCTSAgent(simulations=simulations, time=time, seed=seed, threads=threads,
                              max_nodes=2_000_000, **BEST_MCTS[game])
        agent.name = "best(" + agent.name.split("(", 1)[1]
        return agent
    return build


def _best_ttt(seed=None, simulations=None, time=None, threads=None):
    """Tic-Tac-Toe is solved: the strongest engine is perfect play, at once
    (the budget and threads are accepted so that every game's 'best' takes
    the same keywords, and not needed)."""
    from ttt_engine import _parallel
    if threads is not None:
        _parallel.check_threads(threads)
    return _perfect(seed=seed)


_BEST_HELP = ("the strongest engine here: MCTS-Solver with the game's best playouts on "
              "both cores (time or simulations per move, default 1 s; threads=)")
_BEST_AZ_HELP = ("the strongest engine here: the shipped network guiding PUCT with "
                 "MCTS-Solver proofs and exact endgames (time or simulations per move, "
                 "default 1 s; on a time budget both cores search one tree; threads=)")


_SEARCH = ("simulations", "time")
_DEPTH = ("depth", "time")


def _engines(*specs):
    return {e.name: e for e in specs}


_MCTS_HELP = "Monte Carlo tree search (simulations or time per move)"
_RANDOM_HELP = "uniformly random legal moves"


def _standard(game, *own, best=None):
    """The engines of ``game``: its own (``own``), then those every game has --
    MCTS, AlphaZero-style PUCT, the strongest engine (``best``, default MCTS
    with the game's settings of :data:`BEST_MCTS`) and random moves."""
    return _engines(
        *own,
        Engine("mcts", _MCTS_HELP, _mcts, _SEARCH),
        Engine("az", _AZ_HELP, _az(game), _SEARCH, _AZ_EXTRA),
        best or Engine("best", _BEST_AZ_HELP if game in BEST_AZ else _BEST_HELP, _best(game),
                       _SEARCH, ("threads",)),
        Engine("random", _RANDOM_HELP, _random))


GAMES = {g.key: g for g in (
    Game("ttt", "Tic-Tac-Toe", ("X", "O"), {}, "ttt_engine.ttt",
         _standard(
             "ttt",
             Engine("perfect", "exact alpha-beta: never loses (fastest win, slowest loss; "
                    "a random choice among equal moves, fixed by the seed)", _perfect,
                    extra=("randomize",)),
             Engine("q", "tabular Q-learning (a saved model, or trained first)", _q,
                    extra=("model", "episodes", "progress")),
             Engine("alphabeta", "alpha-beta with a table (depth, default to the end; time "
                    "for iterative deepening)", _alphabeta(None), _DEPTH),
             best=Engine("best", "the strongest engine here: perfect play (exact alpha-beta; "
                         "a budget is accepted and not needed)", _best_ttt, _SEARCH,
                         ("threads",))),
         default_engine="perfect", notation=("zero_based",)),
    Game("uttt", "Ultimate Tic-Tac-Toe", ("X", "O"), {"tiebreak": False}, "ttt_engine.uttt",
         _standard(
             "uttt",
             Engine("treeq", "tree Q-learning (simulations or time per move)", _tree("treeq"),
                    _SEARCH),
             Engine("sarsa", "Sarsa on the tree (simulations or time per move)",
                    _tree("sarsa"), _SEARCH)),
         default_engine="best"),
    Game("clobber", "Clobber", ("B", "W"), {"rows": 6, "cols": 5}, "ttt_engine.clobber",
         _standard(
             "clobber",
             Engine("alphabeta", "alpha-beta with a table and the game's heuristics (depth, "
                    "default 3; time for iterative deepening)", _clobber("alphabeta-tt"),
                    _DEPTH, ("heuristic",)),
             Engine("minimax", "plain minimax, no pruning (depth, default 3)",
                    _clobber("minimax"), _DEPTH, ("heuristic",))),
         default_engine="best"),
    Game("quixo", "Quixo", ("X", "O"), {"size": 5, "max_plies": 200}, "ttt_engine.quixo",
         _standard(
             "quixo",
             Engine("greedy", "the state-value agent, played greedily (values from random "
                    "games)", _greedy, extra=("values", "games", "epsilon")),
             Engine("heuristic", "one ply: a win, never a loss when avoidable, else the "
                    "best line count", _quixo_heuristic),
             Engine("alphabeta", "alpha-beta with a table (depth, default 3; time for "
                    "iterative deepening)", _alphabeta(3, tt_min_depth=1), _DEPTH)),
         default_engine="best"),
    Game("connect4", "Connect Four", ("X", "O"), {}, "ttt_engine.connect4",
         _standard(
             "connect4",
             Engine("alphabeta", "alpha-beta with a table and the window heuristic (depth, "
                    "default 12; time for iterative deepening)", _alphabeta(12), _DEPTH)),
         default_engine="best"),
)}


def of_board(board):
    """The :class:`Game` whose board ``board`` is; ``ValueError`` otherwise."""
    for game in GAMES.values():
        if isinstance(board, game.Board):
            return game
    raise ValueError(f"not a board of any game here: {type(board).__module__}."
                     f"{type(board).__name__}")


def get(key):
    """The :class:`Game` registered as ``key``; ``ValueError`` listing the valid keys."""
    game = GAMES.get(key) if isinstance(key, str) else None
    if game is None:
        raise ValueError(f"unknown game {key!r}; valid games: {', '.join(GAMES)}")
    return game
