"""Engines from the command line options, and the models learned on first use
(kept in the cache folder, trained once, loaded at once afterwards)."""
from __future__ import annotations

import os
import random
import sys
import textwrap
import time
from dataclasses import dataclass
from typing import Callable

from ttt_engine.cli._errors import EXIT_USAGE, CLIError
from ttt_engine.cli import _files

__all__ = ["EngineSpec", "cache_dir", "default_model_path", "engine_seed", "load_or_train_q",
           "CACHE_ENV", "CACHE_HELP"]

CACHE_ENV = "TTT_ENGINE_CACHE_DIR"


@dataclass
class EngineSpec:
    """One engine of a game: ``build(args, side_index, console) -> agent``."""
    name: str
    help: str
    build: Callable


def engine_seed(args, side_index):
    """Per-side seed derived from --seed so both engines are reproducible."""
    if args.seed is None:
        return None
    return (args.seed * 2 + side_index) % (2**63)


def _construct(what, cls, *args, **kw):
    try:
        return cls(*args, **kw)
    except (ValueError, TypeError) as e:
        raise CLIError(f"cannot build the {what}: {e}", EXIT_USAGE) from None


def random_engine():
    def build(args, side_index, console):
        from ttt_engine.agents import RandomAgent
        return _construct("random engine", RandomAgent, seed=engine_seed(args, side_index))
    return EngineSpec("random", "uniformly random legal moves", build)


def mcts_engine():
    def build(args, side_index, console):
        from ttt_engine.agents import MCTSAgent
        sims = args.simulations
        if sims is None and args.time is None:
            sims = 20_000
        return _construct("MCTS engine", MCTSAgent, simulations=sims, time=args.time,
                          seed=engine_seed(args, side_index))
    return EngineSpec("mcts", "Monte Carlo tree search (--simulations or --time per move)", build)


def perfect_engine():
    def build(args, side_index, console):
        from ttt_engine.agents import PerfectAgent
        return _construct("perfect engine", PerfectAgent, randomize=True,
                          seed=engine_seed(args, side_index))
    return EngineSpec("perfect", "exact alpha-beta: never loses (fastest win, slowest loss; "
                      "a random choice among equal moves, fixed by --seed)", build)


def clobber_engine(name):
    """Seed 002's agents: heuristics from the mover's point of view, adaptive by default."""
    def build(args, side_index, console):
        from ttt_engine.clobber_play import ClobberAgent
        algorithm = "minimax" if name == "minimax" else "alphabeta-tt"
        depth = args.depth if args.depth is not None else (64 if args.time else 3)
        return _construct(f"Clobber {name} engine", ClobberAgent, algorithm=algorithm,
                          heuristic=args.heuristic or "adaptive", depth=depth,
                          time_limit=args.time)
    what = ("plain minimax, no pruning" if name == "minimax" else "alpha-beta with a table")
    return EngineSpec(name, f"{what} (--depth, default 3; --time for iterative deepening); "
                      "seed 002's heuristics (--heuristic, default adaptive)", build)


def alphabeta_engine():
    def build(args, side_index, console):
        from ttt_engine.agents import AlphaBetaAgent
        depth = args.depth if args.depth is not None else (None if args.time else 3)
        return _construct("alphabeta engine", AlphaBetaAgent, depth=depth,
                          time_limit=args.time)
    return EngineSpec("alphabeta", "alpha-beta with a table (--depth, default 3; --time for "
                      "iterative deepening)", build)


def tree_engine(name, cls_name, help_text):
    def build(args, side_index, console):
        from ttt_engine import tree_agents
        return _construct(f"{name} engine", getattr(tree_agents, cls_name),
                          iterations=args.simulations, time=args.time,
                          seed=engine_seed(args, side_index))
    return EngineSpec(name, help_text, build)


# ---------------------------------------------------------------------------- model cache
CACHE_HELP = textwrap.fill(
    f"Learned engines keep their model in ${CACHE_ENV} if set, else in "
    "$XDG_CACHE_HOME/ttt_engine, else in ~/.cache/ttt_engine; the first run trains and "
    "saves it (creating that folder, and saying so), later runs load it at once.", 79)


def cache_dir():
    """``$TTT_ENGINE_CACHE_DIR``, else ``$XDG_CACHE_HOME/ttt_engine``, else ``~/.cache/ttt_engine``."""
    override = os.environ.get(CACHE_ENV)
    if override:
        return os.path.abspath(os.path.expanduser(override))
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "ttt_engine")


def default_model_path():
    """Where ``play --opponent q`` keeps its model (one table plays both sides)."""
    return os.path.join(cache_dir(), "ttt-q.npz")


def _cached_output(args, console, default_path):
    """The file a learned engine writes: ``--model`` (its folder must exist) or the
    cache file (its folder is created, and the console says so); checked to be
    writable before any work."""
    if args.model:
        return _files.check_output(args.model, "model file")
    return _files.check_output(default_path, "model file", create_folder=console)


def _train_q(console, path, episodes, seed):
    from ttt_engine import train
    what = f"{episodes:,} episodes" if episodes else "default settings"
    console.say(f"Training a Q-learning model ({what}); this happens once.")
    kw = dict(seed=seed, progress=True)
    if episodes:
        kw["episodes"] = episodes
    t0 = time.perf_counter()
    try:
        agent = train(**kw)
    except ValueError as e:
        raise CLIError(f"cannot train: {e}", EXIT_USAGE) from None
    dt = time.perf_counter() - t0
    _files.save(agent.save, path, "model file")
    console.say(f"Trained in {dt:.1f} s; saved to {path} (the next run loads it at once).")
    return agent


def load_or_train_q(args, side, console):
    """Seed 000's start-up: load the saved model, else train one and save it."""
    from ttt_engine import QAgent
    path = args.model or default_model_path()
    episodes = args.train_episodes
    if args.retrain:
        return _train_q(console, _cached_output(args, console, path), episodes, args.seed)
    if not os.path.exists(path):
        if args.model:      # a path the user typed: maybe a typo, so ask first
            console.say(f"No model file at {path}.")
            if not console.yes_no("Train a new model and save it there?", default=True):
                raise CLIError(f"no model file at {path}") from None
        else:               # seed 000's first run: train, save, play
            console.say(f"No saved Q-learning model yet ({path}).")
        return _train_q(console, _cached_output(args, console, path), episodes, args.seed)
    try:
        agent = QAgent.load(path)
    except (ValueError, OSError) as e:
        reason = str(e).splitlines()[0] if str(e) else type(e).__name__
        console.say(f"The model file {path} cannot be used: {reason}")
        if console.yes_no("Train a new model and overwrite it?", default=True):
            return _train_q(console, _cached_output(args, console, path), episodes, args.seed)
        raise CLIError("no usable Q-learning model (use --retrain, or --model PATH)") from None
    console.say(f"Loaded the Q-learning model from {path}.")
    trained = trained_side(agent)
    if trained is not None and trained != side:
        console.say(f"note: this model learned to play {trained} against a random player; "
                    f"here it plays {side}.")
    return agent


def trained_side(agent, requested=None):
    """"X"/"O" for a model that learned one side against random, None for both sides."""
    side = getattr(agent, "side", None) or requested
    mode = (agent.hyperparameters or {}).get("mode")
    if mode not in (None, "random") or side not in ("X", "O"):
        return None
    return side


def q_engine():
    def build(args, side_index, console):
        return load_or_train_q(args, "XO"[side_index], console)
    return EngineSpec("q", "tabular Q-learning (loaded from the cache, trained on first use)",
                      build)


def _quixo_values(args, console, size):
    """Seed 004's state values for the greedy engine: loaded from the cache (or
    --model), else collected from random games (stage B) and saved."""
    from ttt_engine import quixo
    path = args.model or os.path.join(cache_dir(), f"quixo-states-{size}x{size}.json")
    games = args.train_episodes or 100_000
    if os.path.exists(path) and not args.retrain:
        try:
            table = quixo.load_values(path)
            console.say(f"Loaded Quixo state values from {path} ({len(table):,} states).")
            return table
        except (ValueError, OSError) as e:
            console.say(f"The state-value file {path} cannot be used: {e}")
            if not console.yes_no("Collect new values and overwrite it?", default=True):
                raise CLIError("no usable Quixo state values (use --retrain, or --model "
                               "PATH)") from None
    elif not args.retrain:
        console.say(f"No saved Quixo state values yet ({path}).")
    path = _cached_output(args, console, path)
    console.say(f"Scoring the states of {games:,} random games (seed 004 stage B); "
                "this happens once.")
    t0 = time.perf_counter()
    table, _res = quixo.collect_values(games, size=size, seed=args.seed,
                                      progress=sys.stderr.isatty())
    _files.save(lambda p: quixo.save_values(table, p), path, "state-value file")
    console.say(f"Collected {len(table):,} states in {time.perf_counter() - t0:.1f} s; saved to "
                f"{path} (the next run loads it at once).")
    return table


def quixo_greedy_engine(board_size):
    def build(args, side_index, console):
        from ttt_engine.quixo import GreedyValueAgent
        values = _quixo_values(args, console, board_size(args))
        seed = engine_seed(args, side_index)
        return _construct("greedy value engine", GreedyValueAgent, values,
                          epsilon=0.0, exact_terminal=True,
                          seed=seed if seed is not None else random.getrandbits(63))
    return EngineSpec("greedy", "seed 004's state-value agent, played greedily (values from "
                      "random games, collected on first use and cached)", build)
