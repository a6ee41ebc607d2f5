"""OpenSpiel interop: positions converted both ways, our engines as OpenSpiel bots, and
OpenSpiel's bots as our agents (the ``openspiel`` extra: ``pip install "ttt_engine[openspiel]"``).

>>> from ttt_engine import connect4, openspiel
>>> state = openspiel.to_openspiel(connect4.from_moves("4453"))
>>> state.history()
[3, 3, 4, 2]
>>> openspiel.from_openspiel(state).to_string() == connect4.from_moves("4453").to_string()
True

The games OpenSpiel has are the ones whose registry entry names a conversion
(``Game.openspiel``, the game's own module of OpenSpiel facts: its game's short
name, the parameters of a board's options, the actions of a move, a position
without history; and ``ARENA``, Kaggle's Game Arena environment of the game where
it has one: :mod:`ttt_engine.kaggle`); a game without one is refused with one line ("OpenSpiel has no
Quixo").  :func:`differences` names the rules differences of each game.

A board whose moves (``board.moves``) were played from a new board becomes
OpenSpiel's state by playing them, so the state has the same history; another
position is built from the position itself.  An OpenSpiel state becomes our
board by playing its history, or (a state OpenSpiel built from a position) from
its position.  A move of ours may be more than one OpenSpiel action (Ultimate
Tic-Tac-Toe's free choice: the local board, then the cell): :func:`read_state`
gives the actions of a move half made.

:class:`EngineBot` is any agent of ours as a ``pyspiel.Bot`` (``step``,
``restart_at``, ``inform_action``), for ``pyspiel.evaluate_bots`` and OpenSpiel's
tournaments; :class:`OpenSpielAgent` is one of OpenSpiel's bots (its C++ MCTS, or
its uniform random bot) as an agent of ours, for :func:`ttt_engine.tournament.round_robin`.
"""
from __future__ import annotations

import importlib

from ttt_engine import _registry
from ttt_engine._agent import Agent, no_budget, require_moves
from ttt_engine._util import check_int, check_seconds, resolve_seed

__all__ = ["conversion", "differences", "openspiel_game", "to_openspiel", "from_openspiel",
           "read_state", "unwrap", "move_to_actions", "actions_to_move", "legal_actions", "EngineBot",
           "make_bot", "OpenSpielAgent", "INSTALL"]

INSTALL = "OpenSpiel is not installed: pip install 'ttt_engine[openspiel]' (or open_spiel)"


def _pyspiel():
    try:
        import pyspiel
    except ImportError:
        raise ImportError(INSTALL) from None
    return pyspiel


def _game(game):
    """The registry entry of ``game``: a key, an entry or a board."""
    if isinstance(game, str):
        return _registry.get(game)
    if hasattr(game, "openspiel") and hasattr(game, "key"):
        return game
    return _registry.of_board(game)


def conversion(game):
    """The OpenSpiel facts of ``game`` (a registry key, entry or board): its module of
    conversions; ``ValueError`` for a game OpenSpiel does not have."""
    g = _game(game)
    if g.openspiel is None:
        raise ValueError(f"OpenSpiel has no {g.title}")
    return importlib.import_module(g.openspiel)


def differences():
    """``{key: text}``: how each game's rules and actions compare with OpenSpiel's game of
    the same name (a game OpenSpiel lacks: "OpenSpiel has no ...")."""
    out = {}
    for key in _registry.GAMES:
        g = _registry.get(key)
        if g.openspiel is None:
            out[key] = f"OpenSpiel has no {g.title}"
        else:
            conv = conversion(g)
            out[key] = f"{conv.NAME}: {conv.DIFFERENCES}"
    return out


def _options(g, board):
    return {k: getattr(board, k) for k in g.options}


def openspiel_game(game, **options):
    """OpenSpiel's game of ``game`` (a registry key or entry) with our board ``options``
    (unknown ones and variants OpenSpiel lacks are a ``ValueError``)."""
    g = _game(game)
    conv = conversion(g)
    g._check_options(options)
    return _pyspiel().load_game(conv.NAME, conv.parameters(dict(g.options, **options)))


def _same(a, b):
    return (a.to_string() == b.to_string() and a.is_terminal() == b.is_terminal()
            and (a.is_terminal() or a.to_move == b.to_move))


def _from_start(g, board):
    """The moves of ``board`` when they were played from a new board, else None."""
    start = g.new_board(**_options(g, board))
    try:
        for m in board.moves:
            start.push(m)
    except ValueError:
        return None
    return list(board.moves) if _same(start, board) else None


def move_to_actions(board, move):
    """OpenSpiel's actions of our ``move`` on ``board`` (one, or two for a move OpenSpiel
    makes in two steps)."""
    conv = conversion(board)
    if move not in board.legal_moves:
        raise ValueError(f"{move!r} is not a legal move here")
    return list(conv.move_actions(board, move))


def actions_to_move(board, actions):
    """Our move made by OpenSpiel's ``actions`` on ``board`` (None: a move begun, more
    actions to come)."""
    return conversion(board).action_move(board, list(actions))


def legal_actions(board):
    """OpenSpiel's legal actions on ``board`` (the first action of each legal move), sorted."""
    conv = conversion(board)
    return sorted({conv.move_actions(board, m)[0] for m in board.legal_moves})


def to_openspiel(board):
    """OpenSpiel's state of ``board`` (see the module docstring)."""
    g = _game(board)
    conv = conversion(g)
    game = _pyspiel().load_game(conv.NAME, conv.parameters(_options(g, board)))
    moves = _from_start(g, board)
    if moves is None:
        return conv.state_of(game, board)
    state, b = game.new_initial_state(), g.new_board(**_options(g, board))
    for m in moves:
        for a in conv.move_actions(b, m):
            state.apply_action(a)
        b.push(m)
    return state


def _entry_of_state(state):
    """(registry entry, conversion, our board options) of an OpenSpiel state's game."""
    game = state.get_game()
    name = game.get_type().short_name
    for key in _registry.GAMES:
        g = _registry.get(key)
        if g.openspiel is not None and conversion(g).NAME == name:
            conv = conversion(g)
            try:
                return g, conv, conv.options(game.get_parameters())
            except ValueError as e:
                raise ValueError(f"OpenSpiel's {game} is not a {g.title} board here: {e}") \
                    from None
    ours = ", ".join(conversion(k).NAME for k in _registry.GAMES
                     if _registry.get(k).openspiel is not None)
    raise ValueError(f"OpenSpiel's {game} is none of the games here (ours in OpenSpiel: "
                     f"{ours})")


def unwrap(state):
    """The OpenSpiel state a proxy state wraps (the Game Arena's ``<game>_proxy`` games
    wrap the real game's state as ``__wrapped__``); any other state as it is."""
    try:
        inner = state.__wrapped__
    except AttributeError:
        return state
    return inner if hasattr(inner, "get_game") else state


def read_state(state):
    """``(board, pending)``: our board of OpenSpiel's ``state`` and the actions of a
    move begun on it and not finished (``[]`` between moves)."""
    if not hasattr(state, "get_game") or not hasattr(state, "history"):
        raise ValueError(f"not an OpenSpiel state: {type(state).__name__}")
    state = unwrap(state)
    g, conv, opts = _entry_of_state(state)
    history = state.history()
    replayed = state.get_game().new_initial_state()
    for a in history:
        replayed.apply_action(a)
    if str(replayed) != str(state):             # built from a position: read the position
        return conv.board_of(state, opts), []
    board, pending = g.new_board(**opts), []
    for a in history:
        pending.append(a)
        move = conv.action_move(board, pending)
        if move is not None:
            board.push(move)
            pending = []
    return board, pending


def from_openspiel(state):
    """Our board of OpenSpiel's ``state``; ``ValueError`` for a state in the middle of a
    move (see :func:`read_state`)."""
    board, pending = read_state(state)
    if pending:
        raise ValueError(f"this {state.get_game()} state is in the middle of a move (actions "
                         f"{pending} made): our boards are between moves; read_state gives both")
    return board


def _moves_beginning(board, pending):
    """The legal moves of ``board`` whose actions begin with ``pending``."""
    conv = conversion(board)
    moves = [m for m in board.legal_moves
             if list(conv.move_actions(board, m)[:len(pending)]) == list(pending)]
    if not moves:
        raise ValueError(f"no legal move begins with the actions {pending}")
    return moves


class EngineBot:
    """Built by :func:`make_bot` (a ``pyspiel.Bot`` subclass made on first use, so
    that this module imports without OpenSpiel)."""


_BOT_CLASS = None


def _bot_class():
    global _BOT_CLASS
    if _BOT_CLASS is not None:
        return _BOT_CLASS
    pyspiel = _pyspiel()

    class _EngineBot(pyspiel.Bot, EngineBot):
        """An agent of ours as an OpenSpiel bot: at each ``step`` the state becomes our
        board, the agent selects a move and the bot returns its first action (the next
        ones at the next steps of the same move).  A move begun by someone else (a state
        given in the middle of a move) is finished with the agent's move when that move
        begins so, else with the first legal move that does."""

        def __init__(self, agent):
            pyspiel.Bot.__init__(self)
            self.agent = agent
            self._plan = None          # (history, actions still to play)
            self.moves = 0

        def step(self, state):
            board, pending = read_state(state)
            history = list(state.history())
            if pending:
                plan = self._plan
                if plan is not None and plan[0] == history and plan[1]:
                    action = plan[1][0]
                    self._plan = (history + [action], plan[1][1:])
                    return action
                moves = _moves_beginning(board, pending)
                move = self.agent.select_move(board)
                if move not in moves:           # the move begun elsewhere: keep to it
                    move = moves[0]
                actions = move_to_actions(board, move)[len(pending):]
            else:
                move = self.agent.select_move(board)
                actions = move_to_actions(board, move)
            self.moves += 1
            self._plan = (history + [actions[0]], actions[1:])
            return actions[0]

        def restart_at(self, state):
            self._plan = None
            self.agent.reset()

        def restart(self):
            self._plan = None
            self.agent.reset()

        def inform_action(self, state, player_id, action):
            pass

        def inform_actions(self, state, actions):
            pass

        def provides_policy(self):
            return False

        def provides_force_action(self):
            return False

        def is_clonable(self):
            return False

    _BOT_CLASS = _EngineBot
    return _BOT_CLASS


def make_bot(game, engine="best", **kw):
    """Our engine ``engine`` of ``game`` (a registry key; or an agent, given as ``engine``)
    as a ``pyspiel.Bot``; ``kw`` are :meth:`ttt_engine.games.Game.make_agent`'s keywords (budgets, seed)."""
    g = _game(game)
    conversion(g)
    agent = g.make_agent(engine, **kw) if isinstance(engine, str) else engine
    if kw and not isinstance(engine, str):
        raise ValueError("give the keywords of an agent to its constructor, not make_bot")
    return _bot_class()(agent)


class OpenSpielAgent(Agent):
    """One of OpenSpiel's bots as an agent of ours, for a game OpenSpiel has.

    ``bot``: ``"mcts"`` (OpenSpiel's C++ ``MCTSBot``: ``uct_c``, ``rollouts`` random
    rollouts per leaf, MCTS-Solver when ``solve``; ``simulations`` per step, default
    1,000, or ``time`` seconds of wall clock per step) or ``"random"`` (its uniform
    random bot).  A move of two OpenSpiel actions is two steps of the bot.
    Deterministic for a given ``seed`` with a simulation budget."""

    BOTS = ("mcts", "random")

    def __init__(self, bot="mcts", *, simulations=None, time=None, depth=None, seed=None,
                 uct_c=2.0, rollouts=1, solve=True, max_memory_mb=1000):
        no_budget("OpenSpielAgent", depth=depth)
        if bot not in self.BOTS:
            raise ValueError(f"unknown OpenSpiel bot {bot!r}; valid: {', '.join(self.BOTS)}")
        if bot == "random":
            no_budget("OpenSpielAgent('random')", simulations=simulations, time=time)
        self.bot = bot
        self.simulations = None if simulations is None else check_int(
            "simulations", simulations, min=1)
        self.time = check_seconds("time", time, allow_none=True)
        self.uct_c = float(uct_c)
        self.rollouts = check_int("rollouts", rollouts, min=1)
        self.solve = bool(solve)
        self.max_memory_mb = check_int("max_memory_mb", max_memory_mb, min=1)
        self.seed = resolve_seed(seed)
        self._moves = 0
        budget = (f"{self.time:g} s" if self.time is not None
                  else f"{self.simulations or 1000} sims")
        self.name = "openspiel-random" if bot == "random" else f"openspiel-mcts({budget})"

    def _config(self):
        return dict(bot=self.bot, simulations=self.simulations, time=self.time, seed=self.seed,
                    uct_c=self.uct_c, rollouts=self.rollouts, solve=self.solve,
                    max_memory_mb=self.max_memory_mb)

    def reset(self, seed=None):
        if seed is not None:
            self.seed = resolve_seed(seed)
        self._moves = 0

    def _make(self, game, player, seed):
        pyspiel = _pyspiel()
        if self.bot == "random":
            return pyspiel.make_uniform_random_bot(player, seed)
        sims = self.simulations if self.simulations is not None else (
            10 ** 9 if self.time is not None else 1000)
        return pyspiel.MCTSBot(game, pyspiel.RandomRolloutEvaluator(self.rollouts, seed),
                               self.uct_c, sims, self.max_memory_mb, self.solve, seed, False,
                               pyspiel.ChildSelectionPolicy.UCT,
                               -1.0 if self.time is None else self.time)

    def select_move(self, board):
        require_moves(self, board)
        state = to_openspiel(board)
        # a fresh bot per move, seeded from the agent's seed and the move count, so a
        # seeded agent repeats its games
        seed = (self.seed + 7919 * self._moves) % (2 ** 31)
        self._moves += 1
        bot = self._make(state.get_game(), state.current_player(), seed)
        pending = []
        while True:
            pending.append(bot.step(state))
            move = actions_to_move(board, pending)
            if move is not None:
                return move
            state.apply_action(pending[-1])
