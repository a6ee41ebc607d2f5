"""``ttt-engine valuenet``: value networks: ``label`` positions with the values of
short searches, ``train`` a network on them (needs the ``[nn]`` extra)."""
from __future__ import annotations

import argparse
import os
import sys

from ttt_engine.cli import _files
from ttt_engine.cli import _options as O
from ttt_engine.cli._errors import EXIT_OK, EXIT_USAGE, CLIError
from ttt_engine.cli._executors import add_executor_options, executor_for
from ttt_engine.cli._report import table
from ttt_engine.cli.console import Console

__all__ = ["COMMAND", "add_parser", "configure", "run"]

COMMAND = O.Command(
    name="valuenet",
    help="value networks: label positions by short searches, train a network on them",
    description="""\
Value networks (docs/valuenet.md): 'label' plays games of MCTS-Solver after a random
opening and labels every position with its search's value (a folder of chunk files,
resumable: the same command continues it); 'train' fits a network to labelled
positions by regression (needs the [nn] extra: pip install 'ttt_engine[nn]').""",
    epilog=(O.examples(
        "valuenet label --game uttt --out runs/uttt-labels --games 2000 --simulations 20000",
        "valuenet label --game uttt --out runs/uttt-labels --games 2000 --simulations 20000 "
        "--scheduler tcp://10.0.0.5:8786",
        "valuenet train --data runs/uttt-labels --out uttt_value.npz --passes 4",
        "valuenet train --data runs/uttt-labels --out uttt_value.npz --passes 4 --resume"),))


def _say_line(console):
    return lambda text: console.say(text)


def run_label(args):
    from ttt_engine import games
    from ttt_engine.valuenet import labels
    console = Console.for_args(args)
    game = games.get(args.game)
    options = _size(game, args.size)
    if args.out is None:
        raise CLIError("--out FOLDER is required", EXIT_USAGE)
    if os.path.exists(args.out) and not os.path.isdir(args.out):
        raise CLIError(f"--out {args.out} exists and is not a folder (a labelling run is a "
                       "folder of chunk files)", EXIT_USAGE)
    try:
        settings = labels.run_settings(args.game, args.simulations, args.seed or 0,
                                       args.opening, args.games_per_chunk, options,
                                       branch=args.branch, network=args.network)
    except (ValueError, OSError) as e:
        raise CLIError(str(e), EXIT_USAGE) from None
    what = (f"the value network {args.network}" if args.network else
            f"{settings['search'].get('playout', 'random')} playouts")
    console.say(f"Labelling {game.title}: {args.games} games of MCTS-Solver "
                f"({what}) at {args.simulations} simulations a move"
                + (f", and a position up to {args.branch} random plies off each played one"
                   if args.branch else "") + f" -> {args.out}")
    with executor_for(args, console) as ex:
        try:
            n = labels.label(args.out, args.game, args.games, args.simulations,
                             seed=settings["seed"], opening=settings["opening"],
                             games_per_chunk=settings["games_per_chunk"], options=options,
                             executor=ex, workers=args.workers or 1, force=args.force,
                             time_limit=args.time, progress=not args.quiet,
                             branch=settings["branch"], network=args.network)
        except ValueError as e:
            raise CLIError(str(e), EXIT_USAGE) from None
        except KeyboardInterrupt:
            print(f"The finished chunks are in {args.out}; run the same command again to "
                  "resume.", file=sys.stderr)
            raise
    x, y, exact, _, _ = labels.load_positions(args.out)
    console.say(table([["chunks", f"{n}"], ["positions", f"{len(y):,}"],
                       ["exact labels", f"{int(exact.sum()):,}"],
                       ["mean |label|", f"{float(abs(y).mean()):.3f}"]], ["labels", "value"]))
    return EXIT_OK


def run_train(args):
    from ttt_engine.alphazero.learner import NNExtraMissing
    from ttt_engine.valuenet import fit
    console = Console.for_args(args)
    if args.resume and args.force:
        raise CLIError("--resume and --force exclude each other", EXIT_USAGE)
    out = _files.check_output(args.out, "value network file")
    for d in args.data:
        if not os.path.isdir(d):
            raise CLIError(f"--data {d}: not a folder of labelled positions ('valuenet label "
                           "--out FOLDER' makes one)", EXIT_USAGE)
    try:
        net, history = fit.train(args.data, out, hidden=args.hidden, passes=args.passes,
                                 batch_size=args.batch_size, learning_rate=args.learning_rate,
                                 seed=args.seed or 0, symmetries=not args.no_symmetries,
                                 holdout=args.holdout, resume=args.resume, force=args.force,
                                 init=args.init, log=_say_line(console),
                                 progress=not args.quiet)
    except NNExtraMissing as e:
        raise CLIError(str(e), EXIT_USAGE) from None
    except ValueError as e:
        raise CLIError(f"cannot train: {e}", EXIT_USAGE) from None
    except KeyboardInterrupt:
        print(f"\nThe checkpoint {fit.checkpoint_path(out)} is saved; --resume continues.",
              file=sys.stderr)
        raise
    rows = [[f"pass {h['pass']}", f"{h['train_mse']:.4f}", f"{h['heldout_mse']:.4f}",
             f"{h['heldout_sign']:.3f}", f"{h['heldout_sign_clear']:.3f}", f"{h['seconds']:.0f}"]
            for h in history]
    console.say(table(rows, ["", "train mse", "held-out mse", "sign", f"sign |label|>{fit.CLEAR}",
                             "seconds"]))
    console.say(f"{net!r} written to {out}")
    return EXIT_OK


def _size(game, text):
    if text is None:
        return {}
    from ttt_engine.cli._games import _size_options
    return _size_options(game, text)


def run(args):
    return args.valuenet_run(args)


def _command(sub, name, run_it, help, description):
    p = sub.add_parser(name, help=help, description=description,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.set_defaults(valuenet_run=run_it)
    return p


def configure(p):
    """Add the ``label`` / ``train`` commands and their options to parser ``p``."""
    from ttt_engine import games
    keys = [k for k, g in games.GAMES.items() if g.value_features is not None]
    p.set_defaults(run=run)
    sub = p.add_subparsers(dest="valuenet_command", metavar="COMMAND", required=True)
    a = _command(sub, "label", run_label, "label positions with the values of short searches",
                 "Play games of MCTS-Solver after a random opening and label every position "
                 "with its search's value (exact where proven). The folder --out gets a chunk "
                 "file per --games-per-chunk games as each finishes; the same command again "
                 "resumes, more --games extend it.")
    a.add_argument("--game", choices=keys, required=True, help="which game")
    a.add_argument("--out", required=True, metavar="FOLDER", help="the run's folder")
    a.add_argument("--games", type=O.count(1, 10**9), default=1000, metavar="N",
                   help="games in the run (default 1000)")
    a.add_argument("--simulations", type=O.count(1, 10**8), default=20_000, metavar="N",
                   help="MCTS simulations of each position's search (default 20000)")
    a.add_argument("--opening", type=O.count(0, 1000), metavar="N",
                   help="random plies at most at the start of a game (each game draws 0..N; "
                        "default twice the game's opening plies)")
    a.add_argument("--games-per-chunk", type=O.count(1, 1 << 20), default=8, metavar="N",
                   help="games per chunk file (default 8)")
    a.add_argument("--branch", type=O.count(0, 1000), default=0, metavar="N",
                   help="also label, from every played position, one position 1..N random "
                        "plies off the played line (the kind a search's leaves are; default 0)")
    a.add_argument("--network", type=O.path, metavar="PATH",
                   help="a value network file of the game: its search labels the positions "
                        "(the next round of an iterated training; default: playouts)")
    a.add_argument("--size", metavar="RxC|N", help="board size (Clobber RxC, Quixo N)")
    a.add_argument("--time", type=O.seconds(), metavar="SECONDS",
                   help="start no new chunk after this many seconds")
    a.add_argument("--seed", type=O.seed, help="seed of the run (default 0)")
    a.add_argument("--force", action="store_true",
                   help="start over in a folder that holds another run")
    add_executor_options(a, workers_help="local worker processes (default 1: in this process)")
    O.add_quiet(a)
    t = _command(sub, "train", run_train, "fit a value network to labelled positions (needs "
                 "[nn])", "Regression of the network's value on the labels (MSE, Adam), "
                 "symmetry augmentation, a held-out share of the games measured after every "
                 "pass. A checkpoint (OUT.ckpt.npz) is written every minute and after every "
                 "pass; --resume continues it.")
    t.add_argument("--data", required=True, nargs="+", metavar="FOLDER",
                   help="labelling run folder(s)")
    t.add_argument("--out", required=True, metavar="PATH", help="network file to write (.npz)")
    t.add_argument("--passes", type=O.count(1, 10_000), default=4, metavar="N",
                   help="passes over each training position (default 4)")
    t.add_argument("--hidden", type=O.count(1, 1 << 16), default=256, metavar="H",
                   help="hidden units (default 256)")
    t.add_argument("--batch-size", type=O.count(1, 1 << 20), default=64, metavar="N",
                   help="positions per step (default 64)")
    t.add_argument("--learning-rate", type=O.real, default=3e-3, metavar="LR",
                   help="Adam's step size at the start (cosine decay to 5%%; default 0.003)")
    t.add_argument("--holdout", type=O.fraction, default=0.05, metavar="P",
                   help="share of the games held out for measuring (default 0.05)")
    t.add_argument("--no-symmetries", action="store_true", help="no symmetry augmentation")
    t.add_argument("--init", type=O.path, metavar="PATH",
                   help="start from this network (the previous round's) instead of random")
    t.add_argument("--seed", type=O.seed, help="seed of the run (default 0)")
    t.add_argument("--resume", action="store_true", help="continue from the checkpoint")
    t.add_argument("--force", action="store_true", help="overwrite --out and its checkpoint")
    O.add_quiet(t)
    return p


def add_parser(subparsers):
    return configure(O.add_command(subparsers, COMMAND, run))
