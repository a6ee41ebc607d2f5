"""Kaggle agents: a game's own environment (ConnectX for Connect Four) and the Game
Arena's OpenSpiel games (the ``kaggle`` extra: ``pip install "ttt_engine[kaggle]"``).

>>> from ttt_engine import kaggle
>>> agent = kaggle.connectx_agent("perfect")
>>> agent({"board": [0] * 42, "mark": 1}, {"columns": 7, "rows": 6, "inarow": 4})
3

:func:`connectx_agent` (and ``connectx_board``, :data:`STANDARD`) come from the
module of the game's own Kaggle environment (its registry entry's ``kaggle``:
ConnectX is :mod:`ttt_engine.connect4.kaggle`, which says more).

:func:`arena_agent` returns ``agent(observation, configuration) -> {"submission":
action}`` for the Game Arena's OpenSpiel environments
(``kaggle_environments.make("open_spiel_connect_four")``, ``..._ultimate_tic_tac_toe``,
``..._clobber``): it reads ``observation.serializedGameAndState`` through
:mod:`ttt_engine.openspiel`, so the agent plays its game's OpenSpiel rules and
numbering (Ultimate Tic-Tac-Toe's free move is two steps: the local board, then the
cell).  A state it cannot read is a one-line error on stderr and a legal action of
``legalActions`` (when the environment gives them).

:func:`run_matches` plays episodes in the real environment (``ttt-engine kaggle
run``).  docs/arenas.md has a session and the measured move times.
"""
from __future__ import annotations

import functools
import importlib
import sys
import threading
import time

from ttt_engine import games

# ENVIRONMENTS, ARENA and the names of a game's own environment (connectx_agent,
# STANDARD): from the games' entries, through __getattr__
__all__ = ["connectx_agent", "arena_agent", "run_matches", "ENVIRONMENTS", "MARGIN",  # noqa: F822
           "DEFAULT_TIME", "STANDARD", "INSTALL", "ARENA"]

INSTALL = ("kaggle-environments is not installed: pip install 'ttt_engine[kaggle]' (or "
           "kaggle-environments)")
#: seconds of ``actTimeout`` kept back from every move: the environment's clock of a move
#: exceeded the agent's own by at most 16 ms over 40 ConnectX episodes on a loaded machine
#: (docs/arenas.md); the rest covers the quick column and a late thread switch
MARGIN = 0.5
#: seconds of the overage pool never spent, and the share of the rest one move may take
OVERAGE_RESERVE = 5.0
OVERAGE_SHARE = 0.2
#: seconds a move of an engine on a time budget gets when no budget is given
DEFAULT_TIME = 1.0


def _own(game):
    """The module of ``game``'s own Kaggle environment (its entry's ``kaggle``), or None."""
    g = games.get(game)
    return importlib.import_module(g.kaggle) if g.kaggle else None


@functools.cache
def _tables():
    """``({key: environment}, {key: Game Arena environment})`` from the games' entries:
    a game's own environment, else its Game Arena one (its OpenSpiel facts' ``ARENA``)."""
    from ttt_engine import openspiel
    environments, arena = {}, {}
    for key in games.GAMES:
        g = games.get(key)
        name = getattr(openspiel.conversion(g), "ARENA", None) if g.openspiel else None
        if name:
            arena[key] = name
        own = _own(key)
        if own or name:
            environments[key] = own.ENVIRONMENT if own else name
    return environments, arena


def __getattr__(name):
    """:data:`ENVIRONMENTS` (the Kaggle environment of each game that has one),
    :data:`ARENA` (the Game Arena's of each game in it), and the names a game's own
    Kaggle module exports here (:func:`connectx_agent`, ...)."""
    if name in ("ENVIRONMENTS", "ARENA"):
        return _tables()[name == "ARENA"]
    for key in games.GAMES:
        own = _own(key)
        if own is not None and name in own.EXPORTS:
            return getattr(own, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _log(who, message):
    print(f"{who}: error: {message}", file=sys.stderr, flush=True)


def _get(obj, key, default=None):
    if isinstance(obj, dict):
        return obj.get(key, default)
    return getattr(obj, key, default)


def _build(game, engine, budget):
    """The engine ``engine`` of ``game`` with ``budget`` (``time`` defaults to
    :data:`DEFAULT_TIME` for an engine that takes it when no budget is given)."""
    g = games.get(game)
    if not isinstance(engine, str):
        raise ValueError(f"engine must be an engine name of {g.title}; valid engines: "
                         f"{', '.join(g.engines)}")
    spec = g.engines.get(engine)
    if spec is None:
        raise ValueError(f"unknown {g.title} engine {engine!r}; valid engines: "
                         f"{', '.join(g.engines)}")
    budget = dict(budget)
    if "time" in spec.budgets and not any(budget.get(k) is not None for k in
                                          ("time", "simulations", "depth")):
        budget["time"] = DEFAULT_TIME
    return g.make_agent(engine, **budget)


def _seconds(observation, configuration, margin):
    """The seconds a move may take: ``actTimeout`` less ``margin``, plus a share of the
    overage pool (``remainingOverageTime``) above :data:`OVERAGE_RESERVE`: at most
    :data:`OVERAGE_SHARE` of it, so that a slow move never empties the pool."""
    timeout = _get(configuration, "actTimeout", 2.0)
    timeout = float(timeout) if isinstance(timeout, (int, float)) and timeout > 0 else 2.0
    pool = _get(observation, "remainingOverageTime", 0)
    pool = float(pool) if isinstance(pool, (int, float)) and pool > 0 else 0.0
    return max(0.05, timeout - margin) + max(0.0, pool - OVERAGE_RESERVE) * OVERAGE_SHARE


class _Mover:
    """Runs an agent's moves in a worker thread, each given a deadline."""

    def __init__(self, agent):
        self.agent = agent
        self.worker = None
        self.times = []             # seconds each move took (a late one: its deadline)
        self.late = 0

    def move(self, board, seconds):
        """The agent's move on ``board`` within ``seconds``, or None when it is not ready
        (or the last late move still runs)."""
        if self.worker is not None and self.worker.is_alive():
            self.late += 1
            return None
        box = {}

        def work():
            try:
                box["move"] = self.agent.select_move(board)
            except Exception as e:          # noqa: BLE001 - reported by the caller
                box["error"] = e
        t0 = time.perf_counter()
        self.worker = threading.Thread(target=work, daemon=True, name="ttt_engine-move")
        self.worker.start()
        self.worker.join(max(0.0, seconds))
        self.times.append(time.perf_counter() - t0)
        if self.worker.is_alive():
            self.late += 1
            return None
        if "error" in box:
            raise box["error"]
        return box["move"]


# ------------------------------------------------------------------ Game Arena
def arena_agent(game, engine="best", *, margin=MARGIN, **budget):
    """A Game Arena agent ``agent(observation, configuration) -> {"submission": action}``
    playing our engine ``engine`` of ``game`` (``"connect4"``, ``"uttt"``,
    ``"clobber"``: a game OpenSpiel has) through :mod:`ttt_engine.openspiel`; see the
    module docstring."""
    from ttt_engine import openspiel
    conv = openspiel.conversion(game)
    agent = _build(game, engine, budget)
    bot = openspiel.make_bot(game, agent)
    who = f"{games.get(game).title} arena agent"

    def fallback(observation, state):
        legal = list(_get(observation, "legalActions") or [])
        if not legal and state is not None and not state.is_terminal():
            legal = state.legal_actions()
        return {"submission": int(legal[0]) if legal else -1}

    def act(observation, configuration):
        import pyspiel
        state = None
        try:
            text = _get(observation, "serializedGameAndState")
            if text is None:        # the environment's first call, before the game starts
                return {"submission": -1}
            if not isinstance(text, str):
                raise ValueError("observation.serializedGameAndState is not text")
            _, state = pyspiel.deserialize_game_and_state(text)
            state = openspiel.unwrap(state)
            name = state.get_game().get_type().short_name
            if name != conv.NAME:
                raise ValueError(f"this agent plays {conv.NAME}, the arena's game is "
                                 f"{state.get_game()}")
            if state.is_terminal():
                raise ValueError("the game is over: there is no move to make")
            seconds = _seconds(observation, configuration, margin)
            t0 = time.perf_counter()
            box = {}
            worker = threading.Thread(target=lambda: box.setdefault("a", bot.step(state)),
                                      daemon=True)
            worker.start()
            worker.join(seconds)
            act.times.append(time.perf_counter() - t0)
            if "a" not in box:
                raise ValueError(f"the {engine} move was not ready within {seconds:.2f} s")
            action = int(box["a"])
            if action not in state.legal_actions():
                raise ValueError(f"the {engine} engine chose action {action}, not legal")
            return {"submission": action}
        except Exception as e:          # noqa: BLE001 - an agent must not crash mid-episode
            _log(who, f"{e}")
            return fallback(observation, state)

    act.times = []
    act.engine = agent
    return act


# ------------------------------------------------------------------ matches
def _make_env(game):
    """``game``'s Kaggle environment (:data:`ENVIRONMENTS`), for a match."""
    try:
        from kaggle_environments import make
    except ImportError:
        raise ImportError(INSTALL) from None
    own = _own(game)
    conf = own.CONFIGURATION if own else {"includeLegalActions": True}
    return make(_tables()[0][game], configuration=conf)


def _agent(game, engine, **budget):
    """Our agent of ``engine`` for ``game``'s environment: its own, else the Game Arena's."""
    own = _own(game)
    return own.agent(engine, **budget) if own else arena_agent(game, engine, **budget)


def _opponent(game, opponent, seed, budget):
    """A built-in agent name of the environment, or our agent of engine ``opponent``."""
    builtin = set(_make_env(game).agents)
    if opponent in builtin:
        return opponent, None
    g = games.get(game)
    if opponent not in g.engines:
        raise ValueError(f"unknown opponent {opponent!r}; valid: the environment's "
                         f"{', '.join(sorted(builtin))}, or an engine of ours: "
                         f"{', '.join(g.engines)}")
    agent = _agent(game, opponent, seed=seed, **budget)
    return agent, agent


def run_matches(game, engine, opponent, episodes, *, seed=0, budget=None,
                opponent_budget=None, report=None):
    """Play ``episodes`` episodes of ``game`` in its Kaggle environment
    (:data:`ENVIRONMENTS`): our engine ``engine`` (with ``budget``) against
    ``opponent`` (a built-in agent of the environment, e.g. ConnectX's ``negamax``, or
    an engine of ours), ours first in the even episodes.  ``report(record)`` is called
    after each episode.  Returns the list of records: ``episode``, ``ours_first``,
    ``result`` (win / draw / loss / ``error``), ``status`` (ours, the opponent's),
    ``steps``, ``worst_move`` (our slowest move, seconds), ``late`` (moves not ready
    in time)."""
    environments = _tables()[0]
    if game not in environments:
        raise ValueError(f"no Kaggle environment here for {games.get(game).title}; games: "
                         f"{', '.join(environments)}")
    budget, opponent_budget = dict(budget or {}), dict(opponent_budget or {})
    records = []
    for i in range(episodes):
        ours_first = i % 2 == 0
        ours = _agent(game, engine, seed=seed + i, **budget)
        times = ours.times
        other, _ = _opponent(game, opponent, seed + 10_000 + i, opponent_budget)
        env = _make_env(game)
        agents = [ours, other] if ours_first else [other, ours]
        steps = env.run(agents)
        last = steps[-1]
        me, them = last[0 if ours_first else 1], last[1 if ours_first else 0]
        r = me["reward"]
        if me["status"] != "DONE":
            result = "error"
        elif r is None or them["status"] != "DONE" and r <= 0:
            result = "error"
        else:
            result = "win" if r > 0 else "loss" if r < 0 else "draw"
        rec = {"episode": i, "ours_first": ours_first, "result": result,
               "status": [me["status"], them["status"]], "steps": len(steps) - 1,
               "worst_move": round(max(times, default=0.0), 3),
               "late": getattr(getattr(ours, "stats", None), "late", 0),
               "overhead": _overhead(env, 0 if ours_first else 1, times)}
        records.append(rec)
        if report is not None:
            report(rec)
    return records


def _overhead(env, index, times):
    """The most the environment's clock of our moves (its logs' ``duration``) exceeded
    our own measure of them: what :data:`MARGIN` must cover (None without the logs)."""
    durations = [log[index]["duration"] for log in getattr(env, "logs", []) or []
                 if len(log) > index and isinstance(log[index], dict)
                 and "duration" in log[index]]
    n = min(len(durations), len(times))
    if n == 0:
        return None
    return round(max(d - t for d, t in zip(durations[-n:], times[-n:])), 4)


def summary(records):
    """W-D-L overall, as first and as second, errors, and the slowest move."""
    def wdl(rs):
        return [sum(r["result"] == k for r in rs) for k in ("win", "draw", "loss")]
    return {"episodes": len(records), "wdl": wdl(records),
            "as_first": wdl([r for r in records if r["ours_first"]]),
            "as_second": wdl([r for r in records if not r["ours_first"]]),
            "errors": sum(r["result"] == "error" for r in records),
            "late_moves": sum(r["late"] for r in records),
            "worst_move": max((r["worst_move"] for r in records), default=0.0),
            "overhead": max((r["overhead"] for r in records if r.get("overhead") is not None),
                            default=None)}
