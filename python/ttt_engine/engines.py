"""The engines of the registry: how each engine a game lists is built.

A game's module names its engines with :func:`standard` (the engines every
game has -- MCTS, AlphaZero-style PUCT, its strongest engine ``best`` and
random moves -- after its own) and the builders below (alpha-beta with a
default depth, perfect play, ...).  A builder returns the factory an
:class:`ttt_engine.games.Engine` calls; it imports the agent classes when an
agent is made, so that reading the registry stays cheap.

The strongest engine reads the game's facts (``best_mcts``, ``best_az``,
``best_az_beside`` of its :class:`~ttt_engine.games.Game`): nothing here
tells games apart.
"""
from __future__ import annotations

import os
import warnings

from ttt_engine import _parallel, games
from ttt_engine.games import BEST_TIME, Engine
from ttt_engine._util import check_seconds

__all__ = ["standard", "alphabeta", "perfect", "valuenet", "BEST_TIME", "SEARCH", "DEPTH"]

#: the budget keywords of a search by simulations or time, and by depth or time
SEARCH = ("simulations", "time")
DEPTH = ("depth", "time")

#: the node arena of each tree of the classical ``best`` (32 bytes a node), and
#: as much again per second of a timed move beyond the first, up to
#: ``BEST_ARENA_MAX`` (1 GB): once an arena is full the tree stops growing and
#: the search plays worse than with less time (Quixo: a 1-s search with a full
#: arena lost to a 0.1-s one, docs/alphazero.md).  Pages are touched only as
#: nodes are made.
BEST_ARENA = 2_000_000
BEST_ARENA_MAX = 16 * BEST_ARENA


def best_arena(time):
    """Nodes of each tree's arena for a classical ``best`` move of ``time``
    seconds (None: a simulation budget)."""
    time = check_seconds("time", time, allow_none=True)
    if time is None:
        return BEST_ARENA
    return min(BEST_ARENA_MAX, max(BEST_ARENA, int(BEST_ARENA * time)))


_MCTS_HELP = "Monte Carlo tree search (simulations or time per move)"
_RANDOM_HELP = "uniformly random legal moves"
_AZ_HELP = ("AlphaZero-style PUCT guided by a network (the shipped one, or --network PATH; "
            "simulations or time per move)")
_AZ_EXTRA = ("network", "batch_size", "c_puct", "playout_weight", "mixed_playouts",
             "expand_after", "solver", "playout", "endgame", "endgame_share", "threads",
             "parallel", "contempt")
_BEST_HELP = ("the strongest engine here: MCTS-Solver with the game's best playouts on "
              "both cores (time or simulations per move, default 1 s; threads=)")
_BEST_AZ_HELP = ("the strongest engine here: the shipped network (or --network PATH) guiding "
                 "PUCT with MCTS-Solver proofs and exact endgames (time or simulations per "
                 "move, default 1 s; on a time budget both cores search one tree; threads=)")


def _random(seed=None):
    from ttt_engine.agents import RandomAgent
    return RandomAgent(seed=seed)


def _mcts(seed=None, simulations=None, time=None):
    from ttt_engine.agents import MCTSAgent
    return MCTSAgent(simulations=simulations, time=time, seed=seed)


def alphabeta(default_depth, **fixed):
    """The factory of ``AlphaBetaAgent`` with ``depth`` defaulting to
    ``default_depth`` (None: to the end) when no time is given."""
    def build(seed=None, depth=None, time=None):
        from ttt_engine.agents import AlphaBetaAgent
        if depth is None and time is None:
            depth = default_depth
        return AlphaBetaAgent(depth=depth, time=time, seed=seed, **fixed)
    return build


#: the value-network MCTS measured strongest (docs/results/valuenet.md): MCTS-Solver,
#: every child scored, each new leaf valued by its best child, implicit minimax
#: backups at weight 0.6, PUCT over value priors at temperature 0.2 (UTTT against
#: plain MCTS at 2,000 simulations each: 0.91, UCB1 0.69; Quixo 5x5's yardstick at
#: 100 simulations: 97.3%, UCB1 96.8%, the leaf's own value 93.3%)
NETWORK_MCTS = {"solver": True, "leaf_from_children": True, "minimax_weight": 0.6,
                "prior_temp": 0.2}


def valuenet(key, search="mcts", **settings):
    """The engine ``valuenet`` of the game ``key``: its shipped value network (or
    ``value_network=`` a file or network of the game) scoring the leaves of MCTS
    (``search="mcts"``: ``MCTSAgent`` with ``settings``, simulations or time a
    move) or the horizon of alpha-beta (``search="alphabeta"``:
    ``AlphaBetaAgent`` with ``settings``, depth or time), in C (numpy only at
    run time; docs/valuenet.md).  With ``exact_first`` (default) a game with
    an exact solve (``Game.endgame_solve``) plays its exact move wherever that
    solve proves the position in ``exact_share`` of the move's time
    (:class:`ttt_engine.valuenet.agent.ExactFirstAgent`).  MCTS's settings
    default to ``NETWORK_MCTS``."""
    if search not in ("mcts", "alphabeta"):
        raise ValueError(f"search must be 'mcts' or 'alphabeta', got {search!r}")
    mcts = search == "mcts"
    if mcts:
        settings = {**NETWORK_MCTS, **settings}
    exact_first = settings.pop("exact_first", True)
    exact_share = settings.pop("exact_share", 0.3)
    default_depth = settings.pop("depth", 4)

    def build(seed=None, simulations=None, time=None, depth=None, value_network=None,
              threads=1):
        from ttt_engine import valuenet as vn
        from ttt_engine.agents import AlphaBetaAgent, MCTSAgent
        from ttt_engine.valuenet.agent import ExactFirstAgent
        if value_network is None:
            net = vn.shipped(key)
        elif isinstance(value_network, (str, os.PathLike)):
            net = vn.load(value_network, key)
        else:
            net = value_network
        if mcts:
            agent = MCTSAgent(simulations=simulations, time=time, seed=seed, threads=threads,
                              value_network=net, **settings)
        else:
            _parallel.check_threads(threads)
            if depth is None and time is None:
                depth = default_depth
            agent = AlphaBetaAgent(depth=depth, time=time, seed=seed, value_network=net,
                                   **settings)
        if exact_first and games.get(key).endgame_solve is not None:
            return ExactFirstAgent(agent, key, time=time, exact_share=exact_share)
        return agent

    what = ("MCTS with the shipped value network scoring every new leaf and its children "
            "(simulations or time per move" if mcts else
            "alpha-beta with the shipped value network at the horizon (depth or time per move")
    return Engine("valuenet", what + "; value_network=PATH for another; docs/valuenet.md)",
                  build, SEARCH if mcts else DEPTH, ("value_network", "threads"))


def perfect(seed=None, randomize=True):
    """Perfect play by exact alpha-beta (``PerfectAgent``)."""
    from ttt_engine.agents import PerfectAgent
    return PerfectAgent(randomize=randomize, seed=seed)


def _az(game):
    def build(seed=None, simulations=None, time=None, network=None, batch_size=None,
              c_puct=1.25, playout_weight=None, mixed_playouts=None, expand_after=None,
              solver=None, playout=None, endgame=None, endgame_share=None, threads=1,
              parallel="root", contempt=None):
        from ttt_engine.agents import AZAgent, load_shipped
        kw = dict(batch_size=batch_size, playout_weight=playout_weight,
                  mixed_playouts=mixed_playouts, expand_after=expand_after, solver=solver,
                  playout=playout, endgame=endgame, endgame_share=endgame_share,
                  contempt=contempt)
        if network is None:
            # the shipped network, kept for the agent (where none ships: how to train
            # one; a lost or damaged file: which, and reinstall), searched with the
            # settings it was measured with where none are given
            network = load_shipped(game)
            timed = simulations is None and time is not None
            for name, value in games.for_budget(games.get(game).network_settings,
                                                timed=timed).items():
                if kw.get(name, 0) is None:
                    kw[name] = value
        return AZAgent(network, simulations=simulations, time=time, seed=seed, c_puct=c_puct,
                       threads=threads, parallel=parallel, **kw)
    return build


def _default_threads(timed):
    """Both cores (at most 2), but one thread for a time budget on a machine
    whose other cores are busy (load average above the cores minus one): root
    parallelism then gets no second core and only splits the tree (measured:
    0.32 against one thread at equal time, docs/strength.md).  With a
    simulation budget the count never depends on the load, so a seed keeps
    giving the same moves."""
    n = min(2, _parallel.cores())
    if timed and n > 1 and hasattr(os, "getloadavg") and os.getloadavg()[0] > n - 1:
        return 1
    return n


_WARNED = set()


def _readable(key, load, instead):
    """Can ``load(key)`` read the game's shipped file?  If not (a damaged
    install), one warning per game and file says so and ``best`` plays
    ``instead``."""
    try:
        load(key)
    except ValueError as e:
        if (instead, key) not in _WARNED:
            _WARNED.add((instead, key))
            warnings.warn(f"{e}; 'best' plays {instead} until then", stacklevel=4)
        return False
    return True


def _load_shipped(key):
    from ttt_engine.agents import load_shipped
    return load_shipped(key)


def _shipped_value_network(key):
    from ttt_engine import valuenet
    return valuenet.shipped(key)


def _best(key):
    """The strongest engine of the game ``key``, from its facts: the
    network-guided search where the game has ``best_az`` settings, else
    MCTS-Solver with its ``best_mcts`` settings (also where the shipped
    network cannot be read: a damaged install, said once), reading the game's
    endgame table first where it has one (``table_value``: ``tablebase=True``).

    With ``best_az``: on a time budget both cores search its one tree (tree
    parallelism); on a simulation budget one thread, so that a seed fixes the
    moves.  A ``{"simulations": x, "time": y}`` value depends on the kind of
    budget; with two threads or more on a time budget ``best_az_beside``
    settings are added (the exact endgame solve beside the tree).  ``network``
    (a path or a ``Network``; network-guided games only) takes the shipped
    network's place in the same search, with the shipped network's settings.
    MCTS-Solver's arenas grow with a timed move (:func:`best_arena`)."""
    def build(seed=None, simulations=None, time=None, threads=None, network=None):
        from ttt_engine.agents import AZAgent, MCTSAgent
        game = games.get(key)
        if simulations is None and time is None:
            time = BEST_TIME
        if game.best_az is not None and (network is not None or
                                         _readable(key, _load_shipped, "MCTS-Solver")):
            if threads is None:
                threads = 1 if time is None else _default_threads(True)
            timed = time is not None
            settings = games.for_budget(game.best_az, timed=timed)
            if network is not None:     # the preset's search with this network in its place
                settings = {**games.for_budget(game.network_settings, timed=timed), **settings}
            if timed and threads > 1:
                settings.update(game.best_az_beside)
            agent = AZAgent(network, simulations=simulations, time=time, seed=seed,
                            threads=threads, **settings)
        else:
            if threads is None:
                threads = _default_threads(simulations is None)
            agent = MCTSAgent(simulations=simulations, time=time, seed=seed, threads=threads,
                              max_nodes=best_arena(time), tablebase=game.table_value is not None,
                              **(game.best_mcts or {"solver": True}))
        agent.name = "best(" + agent.name.split("(", 1)[1]
        return agent
    return build


def perfect_best(seed=None, simulations=None, time=None, threads=None):
    """The strongest engine of a solved game: perfect play, at once (the budget
    and threads are accepted so that every game's 'best' takes the same
    keywords, and not needed)."""
    if threads is not None:
        _parallel.check_threads(threads)
    return perfect(seed=seed)


_BEST_VALUE_HELP = ("the strongest engine here: on a time budget (default 1 s) the value "
                    "network's search behind the exact solve (the valuenet engine, one "
                    "thread); on a simulation budget, or with --network PATH, the shipped "
                    "network guiding PUCT with MCTS-Solver proofs and exact endgames (threads= "
                    "for that search)")


def _value_best(key, value_engine):
    """``best`` where the value-network engine measured strongest on a time
    budget (``standard(value_best=True)``): that engine on a time budget, the
    game's network-guided preset (:func:`_best`) on a simulation budget (its
    search counts simulations; the value engine's alpha-beta does not), with
    another ``network``, or where the shipped value network cannot be read (a
    damaged install: one warning per game)."""
    classic = _best(key)

    def build(seed=None, simulations=None, time=None, threads=None, network=None):
        if simulations is None and network is None and _readable(
                key, _shipped_value_network, "the network-guided search"):
            _parallel.check_threads(threads if threads is not None else 1)
            agent = value_engine.factory(seed=seed, time=BEST_TIME if time is None else time)
            agent.name = f"best({agent.time}s)"
            return agent
        return classic(seed=seed, simulations=simulations, time=time, threads=threads,
                       network=network)
    return build


def standard(key, *own, best=None, network_best=False, value_search=None, value_best=False):
    """The engines of the game ``key``: its own (``own``, ``Engine``
    entries), then those every game has -- MCTS, AlphaZero-style PUCT, the
    strongest engine (``best``; default: the one its facts describe, see
    ``_best``, whose help says it is network-guided when ``network_best``)
    and random moves; with ``value_search`` (the keywords of
    :func:`valuenet`), the engine ``valuenet``: the game's shipped value
    network inside that search, which ``value_best`` makes ``best`` on a time
    budget (``_value_best``)."""
    learned = () if value_search is None else (valuenet(key, **value_search),)
    if value_best:
        if not learned or not network_best:
            raise ValueError("value_best needs value_search and network_best")
        best = Engine("best", _BEST_VALUE_HELP, _value_best(key, learned[0]), SEARCH,
                      ("threads", "network"))
    specs = (*own,
             Engine("mcts", _MCTS_HELP, _mcts, SEARCH),
             Engine("az", _AZ_HELP, _az(key), SEARCH, _AZ_EXTRA),
             *learned,
             best or Engine("best", _BEST_AZ_HELP if network_best else _BEST_HELP, _best(key),
                            SEARCH, ("threads", "network") if network_best else ("threads",)),
             Engine("random", _RANDOM_HELP, _random))
    return {e.name: e for e in specs}
