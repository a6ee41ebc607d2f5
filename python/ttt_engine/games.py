"""The game registry: the games of the game list, each entry defined by the game's own module.

>>> from ttt_engine import games
>>> sorted(games.GAMES)
['clobber', 'connect4', 'quixo', 'ttt', 'uttt']
>>> g = games.get("clobber")
>>> b = g.new_board(rows=4, cols=4)
>>> m = g.parse_move(b, "a1-a2")
>>> g.move_to_str(b, m)
'a1-a2'

The games are the lines of the compiled layer's game list
(``src/engine/games/list.txt``, installed beside the compiled modules); the
entry of game ``g`` is ``GAME`` in its public module ``ttt_engine.g``, which
is imported when the entry is first asked for (as OpenSpiel, a game registers
itself in its own file; nothing here names a game).  The lookups
(``GAMES``, :func:`get`, :func:`of_board`) live in ``ttt_engine._registry``,
the bottom of the package, so that any module may ask a game for its facts.

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
import numbers
from dataclasses import dataclass, field
from typing import Callable

from ttt_engine import _game_text as _text
from ttt_engine._registry import GAMES, FactView, default_game, game_list, get, of_board
from ttt_engine._util import check_board, unknown_options

__all__ = ["GAMES", "Game", "Engine", "ValueTables", "Oracle", "get", "of_board", "BUDGETS", "game_list",
           "default_game", "FactView",
           "unknown_options", "for_budget", "capped", "BEST_MCTS", "BEST_AZ", "BEST_AZ_BESIDE",
           "BEST_TIME"]

#: The budget keywords every engine factory understands (the ones an engine
#: does not use are refused by :meth:`ttt_engine.games.Game.make_agent`).
BUDGETS = ("simulations", "time", "depth")


def for_budget(settings, timed):
    """``settings`` (a game's ``network_settings`` or ``best_az``) as they apply
    to one kind of budget: a ``{"simulations": x, "time": y}`` value becomes
    ``y`` when ``timed``, else ``x``; other values stay."""
    kind = "time" if timed else "simulations"
    return {k: v[kind] if isinstance(v, dict) else v for k, v in settings.items()}


def capped(board):
    """Did the game of ``board`` end at its move cap rather than by its rules?
    The board answers (``Board.draw_truncates``: its game's draws cut a game
    short, e.g. Quixo's ``max_plies``); False while the game is on, for a win
    and for a true draw.  Match reports count these games apart from true draws."""
    return bool(board.is_terminal() and board.winner == "draw"
                and getattr(board, "draw_truncates", False))


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

    @property
    def learned(self):
        """``"model"`` for an engine loaded from a model file or trained on first
        use, ``"values"`` for one played from a state-value table, else None."""
        for kind in ("model", "values"):
            if kind in self.extra:
                return kind
        return None


@dataclass(frozen=True)
class Oracle:
    """A game's exact evaluator: the game solved whole, which scores a policy
    exactly (AlphaZero's evaluation of a network, the vector environment's
    perfect opponent)."""
    #: ``(network, player) -> {name: score}``: PUCT with ``network`` scored exactly;
    #: ``player(evaluator)`` makes the PUCT player (the agent protocol) searching with
    #: ``evaluator`` (what :func:`ttt_engine.alphazero.evaluate_network` returns)
    evaluate_network: Callable
    #: ``(observations, current_player) -> bool [n, num_actions]``: the optimal
    #: actions of a batch of positions given by their planes and side to move
    optimal_actions: Callable


@dataclass(frozen=True)
class ValueTables:
    """A game's state-value tables: the data of its engines played from a
    table (an engine whose ``extra`` has ``"values"``), and how the console and
    the web view load, collect and save them (in the cache, one file per
    ``tag``)."""
    #: ``path -> table``; ``ValueError`` / ``OSError`` when the file cannot be used
    load: Callable
    #: ``(table, path) -> bytes written``, atomically
    save: Callable
    #: ``(games, *, seed, board, progress) -> table``: the values of ``games``
    #: random games from boards like ``board``
    collect: Callable
    #: ``games -> bytes``: about the size of the file of that many games
    file_size: Callable
    #: ``board -> tag or None``: which file of the cache holds the table for
    #: ``board`` (Quixo: its size); None: one file
    tag: Callable = None


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
    # ---- what generic code asks the game (docs/add_a_game.md, "The game's facts")
    #: plies of random opening in a tournament's opening suite
    opening_plies: int = 4
    #: self-play plies whose move is sampled from the visit counts (later: the most visited)
    temperature_moves: int = 8
    #: AlphaZero training hyperparameters: overrides of ``alphazero.Config``'s defaults
    training: dict = field(default_factory=dict)
    #: a trained network ships in the package (``networks/<key>.npz``): a missing or
    #: unreadable one is a damaged install, and ``best`` falls back to ``best_mcts``
    ships_network: bool = False
    #: the ``AZAgent`` settings the shipped network was measured with; a value
    #: ``{"simulations": x, "time": y}`` depends on the kind of budget
    network_settings: dict = field(default_factory=dict)
    #: heuristic values are brought to [-1, 1] with ``tanh(value / analysis_scale)``
    analysis_scale: float = 1.0
    #: ``board -> {move: exact score} or None``: exact move values for positions an
    #: exhaustive search cannot finish but the game answers otherwise (None: none)
    exact_values: Callable = None
    #: ``board -> exact score or None``: a position's value for its side to move read
    #: from an endgame table on disk, scored as ``search.move_values`` scores (None:
    #: no table installed, or the board is not in it); ``best`` plays the table's
    #: move where it knows every move or a win (``ttt_engine.search.table``).  None: none
    table_value: Callable = None
    #: ``board -> int``: the cells that the exact endgame solve (``endgame=`` of
    #: MCTS and PUCT) counts, the ones its work grows with: the empty cells, or
    #: where those only grow (Clobber) the stones left; None: no such solve
    endgame_cells: Callable = None
    #: ``(board, time_limit) -> (value, move) or None``: the game's own exact solve for
    #: that policy, in place of the generic alpha-beta: ``value`` +1 / 0 / -1 for the
    #: side to move, ``move`` keeping it (the fastest win, the slowest loss, a drawing
    #: move); None when not proven within ``time_limit`` seconds (None: a simulation
    #: budget, bounded by work, not time, so that a seeded search repeats).  None: alpha-beta
    endgame_solve: Callable = None
    #: ``heuristic -> bool``: is ``heuristic`` (an int >= 0) one of the game's static
    #: evaluations that depth-first searches take (``heuristic=``); None: only 0
    heuristic_ok: Callable = None
    #: the rule of ``heuristic_ok`` in words, for the refusal ("must be 0" when None)
    heuristic_rule: str = None
    #: the game's exact evaluator (:class:`Oracle`): the game is solved whole and
    #: scores a policy exactly; None: no such evaluator (a network is evaluated by games)
    oracle: Oracle = None
    #: the module that makes the game's exact yardstick suite (``build(seed=...,
    #: progress=...) -> yardstick.Suite``; :func:`ttt_engine.yardstick.build`); None: none
    yardstick_source: str = None
    #: the text face: ``(parse, format, draw, legend, hint)`` functions of
    #: ``(board, ...)`` (see ``ttt_engine._game_text``); None: the generic face
    text: tuple = None
    #: characters :meth:`from_string` strips from pasted text (None: all whitespace)
    text_strip: str = "\n"
    #: ``(board, move) -> (cell, to_cell, direction)`` for pictures (see
    #: ``_svg.move_geometry``); None: the board's own ``move_geometry``
    move_geometry: Callable = None
    #: ``board -> (thick_every, shade)``: grid lines drawn thick every so many
    #: cells and ``{(row, col): colour}`` backgrounds of its SVG picture (None: neither)
    svg_decor: Callable = None
    #: a move's first cell holds the mover's piece after it (the web view outlines it)
    marks_move_cell: bool = False
    #: ``(obs_shape, num_actions) -> [(obs_index, action_index), ...]``: the maps of
    #: the observation planes and the actions under which the rules are the same
    #: (a rule of ``ttt_engine._symmetry``), for self-play's data augmentation;
    #: None: none (the positions are trained on as they were played)
    symmetries: Callable = None
    #: observation planes that show the side to move's options (the PettingZoo
    #: environment blanks them in the observation of the player not to move)
    mover_planes: tuple = ()
    #: ``(read, write)``: the game's standard move-list notation, ``read(board, text) ->
    #: [moves]`` played from ``board`` (``ValueError`` naming the bad move or character)
    #: and ``write(board, moves) -> text``; None: the move texts separated by spaces
    move_list: tuple = None
    #: the module of the game's OpenSpiel facts (its game's name, the parameters of a
    #: board's options, the actions of a move, a position without history:
    #: :mod:`ttt_engine.openspiel`); None: OpenSpiel does not have the game
    openspiel: str = None
    #: ``board -> str or None``: why the game's ``solve`` would take minutes on
    #: ``board`` whatever its limit (the web view refuses it with this reason)
    long_solve: Callable = None
    #: the strongest engine as MCTS settings (MCTS-Solver, the game's best playouts);
    #: beside ``best_az``: what ``best`` plays if the shipped network cannot be read
    best_mcts: dict = None
    #: ... or as ``AZAgent`` settings with the shipped network (a
    #: ``{"simulations": x, "time": y}`` value depends on the kind of budget)
    best_az: dict = None
    #: added to ``best_az`` with two threads or more on a time budget
    best_az_beside: dict = field(default_factory=dict)
    #: the state-value tables of the game's ``"values"`` engines (:class:`ValueTables`);
    #: None: it has no such engine
    value_tables: ValueTables = None
    #: ``{kind: ttt_engine._modelfile.ModelKind}``: the kinds of model file of the
    #: game's own learners (what ``ttt_engine.load`` reads), beside the generic ones
    model_kinds: dict = field(default_factory=dict)
    #: the module of the game's console command (``ttt-engine <key> ...``): it has
    #: ``add_parser(subparsers)``, ``run(args)`` and ``configure(parser)`` as the
    #: modules of :mod:`ttt_engine.cli` do; None: the game has no command of its own
    commands: str = None
    #: ``{name: module}``: names of the game's modules the package root exports
    #: (``ttt_engine.<name>``; Tic-Tac-Toe's API the package began with: ``Board``,
    #: ``QAgent``, ``train``, ...); the first game of the list that exports a name gives it
    exports: dict = field(default_factory=dict)
    #: ``{old path below ttt_engine: module}``: the names the game's modules had
    #: before they moved into its package (``"connect4_solve":
    #: "ttt_engine.connect4.solver"``); the old path imports the same module
    moved: dict = field(default_factory=dict)
    #: the input of the game's value network (:mod:`ttt_engine.valuenet`): a
    #: ``ValueFeatures`` (feature-set name, count, active features, symmetries);
    #: None: the game has no value network
    value_features: object = None
    #: the module of the game's own Kaggle environment (:mod:`ttt_engine.kaggle`; Connect
    #: Four's ConnectX): ``ENVIRONMENT`` and ``CONFIGURATION`` (its name and a match's
    #: configuration), ``agent(engine, **budget)`` and ``EXPORTS`` (the names
    #: ``ttt_engine.kaggle`` exports from it); None: the game has none (the Game Arena's
    #: environment of an OpenSpiel game is its OpenSpiel facts' ``ARENA``)
    kaggle: str = None

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
            raise unknown_options(self.title, bad, self.options, "valid options")

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
        return self.Board.from_string(text.strip(self.text_strip), **kw)

    def _check_board(self, board):
        check_board(board, self.Board, f"games.get({self.key!r})")

    def _check_notation(self, kw):
        bad = sorted(set(kw) - set(self.notation))
        if bad:
            raise unknown_options(f"{self.title} move text", bad, self.notation)

    def _fn(self, i):
        return (self.text or _text.GENERIC_TEXT)[i]

    # ---------------------------------------------------------------- moves
    def parse_move(self, board, text, **notation):
        """The legal move ``text`` names on ``board``; ``ValueError`` with the
        reason (the game's move syntax when the text is not a move of this game)."""
        self._check_board(board)
        self._check_notation(notation)
        return self._fn(0)(board, text, **notation)

    def _check_move(self, board, move, name="move"):
        """``move`` as an int if it is a move code of this game on ``board`` (what
        :meth:`parse_move` returns); a ``ValueError`` otherwise (the board's own
        reason for a code out of range), never some other move's text."""
        if isinstance(move, bool) or not isinstance(move, numbers.Integral):
            a = "an" if self.title[0] in "AEIOU" else "a"
            raise ValueError(f"{name} must be {a} {self.title} move code (an int, as "
                             f"parse_move returns), got {move!r}")
        move = int(move)
        board.move_to_str(move)        # the board's reason for a code it does not have
        return move

    def move_to_str(self, board, move, **notation):
        """``move`` (a move code, as :meth:`parse_move` returns) as
        :meth:`parse_move` reads it; a code the game does not have is a
        ``ValueError``."""
        self._check_board(board)
        self._check_notation(notation)
        return self._fn(1)(board, self._check_move(board, move), **notation)

    def draw(self, board, style=None, last_move=None, **notation):
        """The board as text.  ``style(text, *tags)`` may colour it (see
        ``ttt_engine._game_text``); ``last_move`` (a move code) is highlighted."""
        self._check_board(board)
        self._check_notation(notation)
        if style is not None and not callable(style):
            raise ValueError(f"style must be None or a function style(text, *tags), got "
                             f"{style!r}")
        if last_move is not None:
            last_move = self._check_move(board, last_move, "last_move")
        return self._fn(2)(board, style or _text.plain, last_move, **notation)

    def legend(self, board=None, **notation):
        """A few lines telling a person how to type moves."""
        self._check_notation(notation)
        return self._fn(3)(board, **notation)

    def prompt_hint(self, board=None, **notation):
        """A short hint for a move prompt, e.g. ``"1-9"`` or ``"e.g. b3-b4"``."""
        self._check_notation(notation)
        return self._fn(4)(board, **notation)

    # ---------------------------------------------------------------- move lists
    def read_moves(self, board, text):
        """The moves of ``text``, the game's move-list notation (``move_list``; else the
        move texts separated by spaces, each without spaces inside: ``4,5 3,3`` for
        Ultimate Tic-Tac-Toe), played from ``board`` (not changed); a one-line
        ``ValueError`` naming the first bad move."""
        self._check_board(board)
        if not isinstance(text, str):
            raise ValueError(f"a move list must be text, got {type(text).__name__}")
        if self.move_list is not None:
            return list(self.move_list[0](board, text))
        b = board.copy()
        moves = []
        for i, token in enumerate(text.split(), 1):
            short = token if len(token) <= 20 else token[:17] + "..."
            if b.is_terminal():
                raise ValueError(f"move {i} ({short}): the game is already over")
            try:
                m = self.parse_move(b, token)
            except ValueError as e:
                raise ValueError(f"move {i} ({short}): {e}") from None
            b.push(m)
            moves.append(m)
        return moves

    def write_moves(self, board, moves):
        """``moves`` played from ``board`` as :meth:`read_moves` reads them."""
        self._check_board(board)
        if self.move_list is not None:
            return self.move_list[1](board, list(moves))
        b = board.copy()
        out = []
        for m in moves:
            out.append("".join(self.move_to_str(b, m).split()))
            b.push(m)
        return " ".join(out)

    def from_moves(self, text, **options):
        """A new board (with ``options``) after the moves of ``text`` (:meth:`read_moves`):
        ``games.get("connect4").from_moves("4453")``, as ``Board.from_moves``."""
        board = self.new_board(**options)
        for m in self.read_moves(board, text):
            board.push(m)
        return board

    # ---------------------------------------------------------------- engines
    def make_agent(self, name, *, seed=None, simulations=None, time=None, depth=None, **kw):
        """Build engine ``name`` (see ``engines``).  Budget keywords that the
        engine does not use, and unknown names, are ``ValueError`` (an unknown
        keyword lists the valid ones, budgets and ``seed`` included, with a
        guess at the one meant); ``seed`` fixes the randomised engines and does
        not change the deterministic ones (alpha-beta, minimax).

        The agent is bound to this game: a board of another game is refused
        at its ``select_move`` with one line naming both
        (``ttt_engine._agent.check_game``)."""
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
            raise unknown_options(f"the {self.title} {name} engine", bad,
                                  (*engine.extra, *engine.budgets, "seed"))
        budgets = {k: v for k, v in budgets.items() if k in engine.budgets}
        agent = engine.factory(seed=seed, **budgets, **kw)
        bind = getattr(agent, "_bind", None)
        if bind is not None:        # the generic agents; a game's own agents check themselves
            bind(self.key, name)
        return agent

    def analyse(self, board, engine=None, **kw):
        """What ``engine`` (a name, default ``default_engine``, built with the
        budget keywords of :meth:`make_agent`; or an agent) thinks of each legal
        move of ``board``: a :class:`ttt_engine.analysis.Analysis` (a table, and
        the board as an SVG heat map).  See :func:`ttt_engine.analysis.analyse`."""
        from ttt_engine.analysis import analyse      # not at import: the registry stays light
        return analyse(self, board, self.default_engine if engine is None else engine, **kw)


#: AlphaZero training settings of a game of middle size (Clobber 6x5, Quixo 5x5): a
#: 256x256 network, a half-hour run evaluated and checkpointed every 5 minutes; such a
#: game's ``training`` is this plus its own (e.g. ``temperature_moves``).
MIDDLE_TRAINING = dict(hidden=(256, 256), games=128, simulations=100, dirichlet_alpha=0.3,
                       buffer_size=200_000, learning_rate=1e-3, eval_every=300.0,
                       eval_simulations=200, eval_games=10, eval_mcts_simulations=800,
                       checkpoint_every=300.0, time=1800.0)

#: The strongest engine of each game as MCTS settings, where it is MCTS (docs/strength.md).
BEST_MCTS = FactView("best_mcts")
#: The games whose strongest engine is the network-guided search, and its settings.
BEST_AZ = FactView("best_az")
#: The settings added to ``BEST_AZ`` with two threads or more on a time budget.
BEST_AZ_BESIDE = FactView("best_az_beside")
#: Seconds per move of the strongest engine when no budget is given.
BEST_TIME = 1.0
