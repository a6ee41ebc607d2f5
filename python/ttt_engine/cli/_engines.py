"""Engines from the command line options (through the registry's
``Game.make_agent``), and the models learned on first use: kept in the cache
folder, trained once, loaded at once afterwards."""
from __future__ import annotations

import os
import sys
import textwrap
import time

from ttt_engine.cli import _files
from ttt_engine.cli._errors import EXIT_ERROR, EXIT_USAGE, CLIError
from ttt_engine import _modelfile
from ttt_engine._modelfile import CACHE_ENV, model_path, values_path
from ttt_engine.cli._games import ENGINE_OPTIONS

__all__ = ["build_agent", "read_network", "engine_seed", "trained_side", "CACHE_HELP", "DEFAULT_SIMULATIONS"]

#: MCTS simulations per move when neither --simulations nor --time is given
DEFAULT_SIMULATIONS = 20_000


def engine_seed(args, side_index):
    """Per-side seed derived from --seed so both engines are reproducible."""
    if args.seed is None:
        return None
    return (args.seed * 2 + side_index) % (2**63)


def _make(game, name, **kw):
    try:
        return game.make_agent(name, **kw)
    except (ValueError, TypeError) as e:
        raise CLIError(f"cannot build the {name} engine: {e}", EXIT_USAGE) from None


def build_agent(game, name, args, side_index, board, console):
    """Engine ``name`` of ``game`` for side ``side_index`` with the options of
    ``args`` that it takes (``check_engine_options`` has refused the others);
    ``board`` is the start position (its size picks a learned engine's file)."""
    engine = game.engines[name]
    kind = engine.learned
    if kind == "model":
        return load_or_train(game, name, args, game.sides[side_index], console)
    if kind == "values":
        return _values_engine(game, name, args, side_index, board, console)
    kw = {}
    for key, budget in ENGINE_OPTIONS.values():
        value = getattr(args, key, None)
        if value is not None and key in (engine.budgets if budget else engine.extra):
            kw[key] = value
    if "network" in kw:
        kw["network"] = read_network(kw["network"], board=board)
    if "simulations" in engine.budgets and args.simulations is None and args.time is None \
            and name != "best":          # the strongest engine thinks its own default time
        kw["simulations"] = DEFAULT_SIMULATIONS
    return _make(game, name, seed=engine_seed(args, side_index), **kw)


def read_network(path, game=None, board=None):
    """The network file ``--network`` names, read (and checked against ``game``,
    a key, or the start position ``board``) before any work: one line if it
    cannot be read or is another game's."""
    from ttt_engine.network import Network
    try:
        net = Network.load(path, game)
    except FileNotFoundError:
        # a missing file is exit 1, as everywhere (docs/cli.md, exit status)
        raise CLIError(f"--network {path}: no such file", EXIT_ERROR) from None
    except (ValueError, OSError) as e:
        raise CLIError(f"--network: {e}", EXIT_USAGE) from None
    if board is None:
        return net
    try:
        return net.check_board(board)
    except ValueError as e:
        raise CLIError(f"--network {path}: {e}", EXIT_USAGE) from None


# ---------------------------------------------------------------------------- model cache
CACHE_HELP = textwrap.fill(
    f"Learned engines keep their model in ${CACHE_ENV} if set, else in "
    "$XDG_CACHE_HOME/ttt_engine, else in ~/.cache/ttt_engine; the first run trains and "
    "saves it (creating that folder, and saying so), later runs load it at once.", 79)


def _output(args, console, default_path, what):
    """The file a learned engine writes: ``--model`` (its folder must exist) or the
    cache file (its folder is created, and the console says so); checked to be
    writable before any work."""
    if args.model:
        return _files.check_output(args.model, what)
    return _files.check_output(default_path, what, create_folder=console)


def _label(engine):
    """What an engine learns, for messages: "tabular Q-learning model"."""
    return engine.help.split(" (")[0] + " model"


def _train(game, name, args, console, path):
    label = _label(game.engines[name])
    episodes = args.train_episodes
    what = f"{episodes:,} episodes" if episodes else "default settings"
    console.say(f"Training a {label} ({what}); this happens once.")
    t0 = time.perf_counter()
    agent = _make(game, name, seed=args.seed, episodes=episodes, progress=True)
    dt = time.perf_counter() - t0
    _files.save(agent.save, path, "model file")
    console.say(f"Trained in {dt:.1f} s; saved to {path} (the next run loads it at once).")
    return agent


def load_or_train(game, name, args, side, console):
    """Start-up of a learned engine: load the saved model (``--model`` or the cache), else
    train one and save it; ``--retrain`` trains anew.  The output is checked
    before any training."""
    label = _label(game.engines[name])
    path = args.model or model_path(game.key, name)
    # the other side of eval or play --first alternate: the model this run trained
    made = vars(args).setdefault("models_trained", set())
    if path in made:
        return game.make_agent(name, model=path)

    def train():
        agent = _train(game, name, args, console, _output(args, console, path, "model file"))
        made.add(path)
        return agent

    if args.retrain:
        return train()
    if not os.path.exists(path):
        if args.model:      # a path the user typed: maybe a typo, so ask first
            console.say(f"No model file at {path}.")
            if not console.yes_no("Train a new model and save it there?", default=True,
                                  at_end=False):
                raise CLIError(f"no model file at {path}") from None
        else:               # the first run: train, save, play
            console.say(f"No saved {label} yet ({path}).")
        return train()
    try:
        agent = game.make_agent(name, model=path)
    except (ValueError, OSError) as e:
        reason = _reason(e)
        _refuse_archive(path, "model file", reason)
        console.say(f"The model file {path} cannot be used: {reason}")
        if console.yes_no("Train a new model and overwrite it?", default=True, at_end=False):
            return train()
        raise CLIError(f"no usable {label} (use --retrain, or --model PATH)") from None
    console.say(f"Loaded the {label} from {path}.")
    _unused_episodes(args, console)
    trained = trained_side(agent)
    if trained is not None and trained != side:
        console.say(f"note: this model learned to play {trained} against a random player; "
                    f"here it plays {side}.")
    return agent


def _unused_episodes(args, console):
    if args.train_episodes is not None:
        console.say("note: --train-episodes is not used: the saved file is loaded "
                    "(--retrain learns anew).")


def _reason(e):
    return str(e).splitlines()[0] if str(e) else type(e).__name__


def _refuse_archive(path, what, reason):
    """Refuse, in one line, a file that opens as an .npz archive but is not a
    usable ``what`` (a network, another game's model): it holds someone's
    work, so it is never offered for overwrite; only a damaged or unreadable
    file is."""
    try:
        _modelfile._open(path)
    except (ValueError, OSError):
        return
    raise CLIError(f"the {what} {path} cannot be used: {reason} (left untouched; "
                   "--retrain replaces it)", EXIT_USAGE)


def trained_side(agent, requested=None):
    """"X"/"O" for a model that learned one side against random, None for both sides."""
    side = getattr(agent, "side", None) or requested
    mode = (getattr(agent, "hyperparameters", None) or {}).get("mode")
    if mode not in (None, "random") or side not in ("X", "O"):
        return None
    return side


def _values(game, args, console, board):
    """State values for a value engine: loaded from the cache (or --model), else
    collected from random games and saved (the game's ``value_tables``)."""
    tables = game.value_tables
    tag = tables.tag(board) if tables.tag else None
    path = args.model or values_path(game.key, tag)
    games = args.train_episodes or 100_000
    made = vars(args).setdefault("models_trained", set())
    if path in made:                # collected by this run for the other side
        return tables.load(path)
    made.add(path)
    if os.path.exists(path) and not args.retrain:
        try:
            table = tables.load(path)
            console.say(f"Loaded {game.title} state values from {path} ({len(table):,} "
                        "states).")
            _unused_episodes(args, console)
            return table
        except (ValueError, OSError) as e:
            _refuse_archive(path, "state-value file", _reason(e))
            console.say(f"The state-value file {path} cannot be used: {e}")
            if not console.yes_no("Collect new values and overwrite it?", default=True,
                                  at_end=False):
                raise CLIError(f"no usable {game.title} state values (use --retrain, or "
                               "--model PATH)") from None
    elif not args.retrain:
        console.say(f"No saved {game.title} state values yet ({path}).")
    path = _output(args, console, path, "state-value file")
    console.say(f"Scoring the states of {games:,} random games; this happens once. The "
                f"values go to {path} (about {tables.file_size(games) / 1e6:,.0f} MB).")
    t0 = time.perf_counter()
    table = tables.collect(games, seed=args.seed, board=board, progress=sys.stderr.isatty())
    _files.save(lambda p: tables.save(table, p), path, "state-value file")
    console.say(f"Collected {len(table):,} states in {time.perf_counter() - t0:.1f} s; saved to "
                f"{path} (the next run loads it at once).")
    return table


def _values_engine(game, name, args, side_index, board, console):
    table = _values(game, args, console, board)
    return _make(game, name, seed=engine_seed(args, side_index), values=table)
