"""``ttt-engine tournament``: a round robin between a game's engines, with a
progress bar, the W-D-L table and Elo ratings at the end; resumable with
``--out``."""
from __future__ import annotations

import json
import os

from ttt_engine.cli import _files
from ttt_engine.cli import _options as O
from ttt_engine.cli._errors import EXIT_ERROR, EXIT_OK, EXIT_USAGE, CLIError
from ttt_engine.cli._executors import add_executor_options, run_resumable
from ttt_engine.cli.console import Console

__all__ = ["COMMAND", "add_parser", "run"]

COMMAND = O.Command(
    name="tournament",
    help="round robin between engines: W-D-L table and Elo ratings",
    description="""\
Every pair of engines plays --games games, each moving first in half of
them, on local worker processes or a Dask cluster.  Prints the W-D-L
table (also by colour), scores and Elo ratings with bootstrap intervals.
With --simulations the same --seed gives the same table on any number
of workers; --time budgets depend on the machine's speed and load.""",
    epilog=(O.examples("tournament --game uttt --agents mcts,treeq,sarsa,random --time 0.1 "
                       "--games 100 --workers 2 --out results.jsonl",
                       "tournament --game ttt --agents perfect,mcts,random --simulations 2000 "
                       "--games 20",
                       "tournament --game uttt --agents mcts,random --simulations 1000 "
                       "--games 200 --scheduler tcp://10.0.0.5:8786"),
            """\
--out FILE appends every finished task's games to FILE (JSON lines); the same
command again plays only the missing games.  A file from another tournament
or one that does not parse is refused and left unchanged."""))


def _agents(text, game):
    from ttt_engine import games
    names = [a.strip() for a in text.split(",") if a.strip()]
    g = games.get(game)
    bad = [a for a in names if a not in g.engines]
    if bad:
        raise CLIError(f"unknown agent {bad[0]!r} for {game}: choose from "
                       f"{', '.join(g.engines)}", EXIT_USAGE)
    if len(set(names)) != len(names):
        raise CLIError(f"--agents names an engine twice: {text}", EXIT_USAGE)
    if len(names) < 2:
        raise CLIError("--agents needs at least two engines, e.g. mcts,random", EXIT_USAGE)
    return names


def _entrants(names, args):
    """The engines of ``names``, those that take a network (az, and best where
    it is network-guided) with ``--network`` (its file read and checked against
    the game first, one line if it cannot be)."""
    if args.network is None:
        return names
    from ttt_engine import games
    engines = games.get(args.game).engines
    takes = [n for n, e in engines.items() if "network" in e.extra]
    if not any(n in takes for n in names):
        raise CLIError(f"--network applies to the {' and '.join(takes)} engine(s) of "
                       f"{games.get(args.game).title}: name one in --agents", EXIT_USAGE)
    from ttt_engine.cli._engines import read_network
    from ttt_engine.tournament import Entrant
    read_network(args.network, args.game)
    path = os.path.abspath(args.network)    # the workers may start elsewhere
    return [Entrant(n, n, {"network": path}) if n in takes else n for n in names]


def _learned(names, args, console):
    """The entrants, an engine that plays a learned model (Tic-Tac-Toe's q)
    with the model eval and play use: the cache's, loaded -- or trained once
    and saved -- before any game, with the same questions about a file that
    cannot be used (without it, every game trained a model of its own).
    Returns ``(entrants, train)``: ``train()`` loads or trains the models, to
    be called once the results file is known to fit the run."""
    from types import SimpleNamespace

    from ttt_engine import games
    from ttt_engine._modelfile import model_path
    from ttt_engine.cli._engines import load_or_train
    from ttt_engine.tournament import Entrant
    g = games.get(args.game)
    out, learned = [], []
    for n in names:
        if isinstance(n, str) and g.engines[n].learned == "model":
            path = model_path(g.key, n)
            if os.path.exists(path):        # no question mid-tournament: one line instead
                try:
                    g.make_agent(n, model=path)
                except ValueError as e:
                    # the advice first: a long reason is cut at the end of the line
                    reason = str(e).removeprefix(f"{path}: ")
                    raise CLIError(f"the model file {path} of the {n} engine cannot be used "
                                   f"('ttt-engine eval --game {g.key} --engine {n} --retrain' "
                                   f"trains a new one): {reason}", EXIT_USAGE) from None
                except OSError as e:
                    raise CLIError(f"the model file {path} of the {n} engine cannot be read: "
                                   f"{e.strerror or e}", EXIT_ERROR) from None
            learned.append(n)
            n = Entrant(n, n, {"model": os.path.abspath(path)})
        out.append(n)

    def train():
        for n in learned:
            cache = SimpleNamespace(model=None, retrain=False, train_episodes=None,
                                    seed=args.seed)
            load_or_train(g, n, cache, "both", console)
    return out, train


def _report(console, result, args):
    from ttt_engine.games import get
    title = get(args.game).title
    budget = (f"{args.time:g} s per move" if args.time else "") + \
        (", " if args.time and args.simulations else "") + \
        (f"{args.simulations:,} simulations per move" if args.simulations else "")
    times = args.games // args.openings if args.openings else 0
    suite = (f", from {args.openings} openings played "
             f"{'twice' if times == 2 else f'{times} times'} each" if args.openings else "")
    console.say(f"\n{title}, {result.games_per_pair} games per pair (colours alternate{suite}), "
                f"{budget or 'engine defaults'}, seed {result.seed}; "
                f"{result.games} games played:")
    console.say(result.markdown())
    if result.capped_games:
        console.say(f"({result.capped_games:,} of the games ended at the move cap: counted as "
                    "draws, and shown apart as \"capped\" -- they are no draws by the rules)")
    if result.yardstick:
        first = next(iter(result.yardstick.values()))
        n, c = first.positions, first.critical_keeps["all"].n
        console.say(f"(keeps value / optimal: share of each engine's moves on the {c:,} critical "
                    f"positions, where some move changes the outcome, of {n:,} positions of the "
                    f"exact yardstick suite drawn with seed {result.seed}, that keep the "
                    "game-theoretic value / are optimal; random mover: its exact expectation)")
    console.say("\nBy colour (row moving first / moving second):")
    console.say(result.colour_markdown())
    r = result.rating
    if r.samples:
        console.say(f"\nElo (OpenSpiel's MM fit, lowest = 0; {r.level:.0%} bootstrap "
                    f"intervals over {r.samples} resamples of the games, relative to the "
                    "field's mean):")
    else:
        console.say("\nElo (OpenSpiel's MM fit, lowest = 0):")
    console.say(str(r))
    if r.degenerate.any():
        console.say("(n/a: every game the rating depends on had the same outcome, so "
                    "resampling the games cannot move it: the bootstrap gives no interval)")


def run(args):
    """Check everything, play the tournament, print the tables; returns the exit status."""
    from ttt_engine.tournament import ResultsFileError, TournamentError, round_robin
    console = Console.for_args(args)
    names = _entrants(_agents(args.agents, args.game), args)
    if args.opening_plies is not None and args.openings is None:
        raise CLIError("--opening-plies needs --openings N", EXIT_USAGE)
    if args.analysis and not args.out:
        raise CLIError("--analysis needs --out FILE (the records it writes go there)",
                       EXIT_USAGE)
    if args.games is None:
        args.games = 2 * args.openings if args.openings is not None else 20
    if args.openings is not None and args.games % (2 * args.openings):
        # else some openings are played more often, or with one colour only
        raise CLIError(f"--games must be a multiple of {2 * args.openings} with --openings "
                       f"{args.openings} (each opening once with each colour), got "
                       f"{args.games}", EXIT_USAGE)
    if args.yardstick is not None:
        from ttt_engine.tournament import check_yardstick
        try:
            check_yardstick(args.game, args.yardstick)
        except ValueError as e:
            raise CLIError(str(e), EXIT_USAGE) from None
    if args.out:
        _files.check_output(args.out, "results file")
    if args.json:
        _files.check_output(args.json, "summary file", force=args.force)
    names, train = _learned(names, args, console)
    try:     # a results file of another run is an input that is not valid
        result, error = run_resumable(
            args, console,
            lambda ex: round_robin(args.game, names, args.games, time_per_move=args.time,
                                   simulations=args.simulations, seed=args.seed, executor=ex,
                                   progress=not args.quiet, out=args.out, block=args.block,
                                   bootstrap=args.bootstrap, workers=args.workers,
                                   openings=args.openings, opening_plies=args.opening_plies,
                                   yardstick=args.yardstick, prepare=train,
                                   analysis=args.analysis),
            TournamentError, "games")
    except ResultsFileError as e:
        raise CLIError(str(e), EXIT_USAGE) from None
    if result.games:
        _report(console, result, args)
    if args.json:
        _files.save(lambda p: _write_json(p, result), args.json, "summary file")
    if error is not None:
        raise CLIError(str(error) + ("\nrun the same command again to retry them"
                                     if args.out else ""), EXIT_ERROR)
    return EXIT_OK


def _write_json(path, result):
    from ttt_engine._util import atomic_write
    text = json.dumps(result.summary(), indent=2)
    atomic_write(path, lambda f: f.write(text.encode()), "summary file")


def add_parser(subparsers):
    p = O.add_command(subparsers, COMMAND, run)
    from ttt_engine.games import GAMES, default_game
    p.add_argument("--game", choices=list(GAMES), default=default_game(),
                   help=f"which game (default {default_game()})")
    p.add_argument("--agents", required=True, metavar="LIST",
                   help="comma-separated engine names of the game, e.g. mcts,treeq,sarsa,random")
    p.add_argument("--network", metavar="PATH",
                   help="network file of the az engine, and of best where it is "
                        "network-guided (default: the game's shipped one)")
    p.add_argument("--games", type=O.count(1, O.MAX_GAMES), metavar="N",
                   help="games per pair (default 20; with --openings N, 2N: each opening "
                        "once with each colour)")
    p.add_argument("--time", type=O.seconds(), metavar="SECONDS",
                   help="thinking time per move for engines with a time budget")
    p.add_argument("--simulations", type=O.count(1, O.MAX_SIMULATIONS), metavar="N",
                   help="simulations per move for engines with a simulation budget "
                        "(reproducible)")
    p.add_argument("--seed", type=O.seed, default=None,
                   help="tournament seed (default: drawn, or the --out file's)")
    p.add_argument("--out", metavar="FILE", help="results file (JSON lines), resumable")
    p.add_argument("--json", metavar="FILE", help="also write the tables and ratings as JSON")
    O.add_force(p)
    p.add_argument("--block", type=O.count(1, O.MAX_GAMES), metavar="N",
                   help="games per task (default: a quarter of --games)")
    p.add_argument("--openings", type=O.count(1, 100_000), metavar="N",
                   help="play every pair from N fixed random openings, each twice with "
                        "colours swapped (--games 2N; a multiple of 2N repeats them)")
    p.add_argument("--opening-plies", type=O.count(0, 1000), metavar="K",
                   help="plies of each opening (default: "
                        f"{O.per_game(lambda g: g.opening_plies)})")
    p.add_argument("--yardstick", type=O.count(1, 10**6), metavar="N",
                   help="after the games, measure every engine on N positions of the game's "
                        "exact yardstick suite (Connect Four ships one): the share of its "
                        "moves that keep the value and that are optimal")
    p.add_argument("--analysis", action="store_true",
                   help="each engine plays its own analysis's best move, and every game's "
                        "record in --out lists what the mover thought (value, best line, "
                        "budget used)")
    p.add_argument("--bootstrap", type=O.count(0, 100_000), default=1000, metavar="N",
                   help="bootstrap resamples for the rating intervals (default 1000)")
    add_executor_options(p)
    O.add_quiet(p)
    return p
