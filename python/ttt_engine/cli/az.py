"""``ttt-engine az``: AlphaZero networks: ``train`` one by self-play (needs the
``[nn]`` extra), ``eval`` a saved one (numpy only)."""
from __future__ import annotations

import argparse
import os
import sys
import time

from ttt_engine.cli import _files
from ttt_engine.cli import _options as O
from ttt_engine.cli._errors import EXIT_ERROR, EXIT_OK, EXIT_USAGE, CLIError
from ttt_engine.cli._executors import CONNECT_TIMEOUT, add_executor_options, executor_for
from ttt_engine.cli._report import table
from ttt_engine.cli.console import Console

__all__ = ["COMMAND", "add_parser", "run"]

COMMAND = O.Command(
    name="az",
    help="AlphaZero: train a policy-value network by self-play, evaluate one",
    description="""\
AlphaZero for every game: 'train' a policy-value network by PUCT self-play (needs the
[nn] extra: pip install 'ttt_engine[nn]'), 'eval' a saved network with PUCT.""",
    epilog=(O.examples(
        "az train --game ttt --out ttt.npz --time 600",
        "az train --game uttt --out runs/uttt.npz --time 3600 --resume",
        "az train --game uttt --out runs/uttt.npz --time 3600 --scheduler tcp://10.0.0.5:8786",
        "az eval --network ttt.npz --simulations 100"),))

#: train options -> (argparse keywords); each is the alphazero.Config field of the same
#: name, or of its ``dest``
HYPER = {
    "--hidden": dict(metavar="N,N", help="hidden layer sizes, e.g. 256,256"),
    "--architecture": dict(choices=("mlp", "conv"),
                           help="the network: 'mlp' (default) or 'conv', a small residual "
                                "convolutional network over the board's planes"),
    "--channels": dict(type=O.count(1, 512), metavar="C",
                       help="the conv network's channels (default 32)"),
    "--blocks": dict(type=O.count(0, 32), metavar="K",
                     help="the conv network's residual blocks (default 2)"),
    "--games": dict(type=O.count(1, 1_000_000), metavar="N",
                    help="self-play games per iteration (played at once)"),
    "--simulations": dict(type=O.count(1, 1_000_000), metavar="N",
                          help="PUCT simulations per self-play move"),
    "--temperature-moves": dict(type=O.count(0, 10_000), metavar="N",
                                help="plies played from the visit distribution"),
    "--c-puct": dict(type=O.real, metavar="C", help="PUCT exploration constant"),
    "--dirichlet-alpha": dict(type=O.real, metavar="A", help="root noise in self-play"),
    "--playout-weight": dict(type=O.fraction, metavar="W",
                             help="weight of random playouts in every leaf value (0..1)"),
    "--mixed-playouts": dict(type=O.count(1, 10_000), metavar="K",
                             help="random playouts averaged for that value"),
    "--expand-after": dict(type=O.count(0, 1_000_000), metavar="N",
                           help="visits a leaf is valued by playouts alone before it goes "
                                "to the network"),
    "--gumbel": dict(action="store_const", const=True,
                     help="Gumbel root search in self-play (sequential halving, improved "
                          "policy targets) instead of visit counts and Dirichlet noise"),
    "--gumbel-k": dict(type=O.count(1, 256), metavar="K",
                       help="root actions Gumbel search samples (default 16)"),
    "--playout-cap": dict(type=O.real, metavar="P", dest="playout_cap_share",
                          help="playout-cap randomisation: the share of moves searched in "
                               "full and recorded, in (0, 1]; the others are played after "
                               "--cheap-simulations and not recorded (default 1: all)"),
    "--cheap-simulations": dict(type=O.count(1, 1_000_000), metavar="N",
                                help="simulations of the moves not searched in full"),
    "--simulations-start": dict(type=O.count(1, 1_000_000), metavar="N",
                                help="self-play simulations at the start of a growing budget "
                                     "(needs --simulations-ramp)"),
    "--simulations-ramp": dict(type=O.seconds(lo_open=False), metavar="SECONDS",
                               help="training seconds over which the simulations grow "
                                    "linearly from --simulations-start to --simulations "
                                    "(default 0: no growth)"),
    "--buffer-size": dict(type=O.count(1, 10**9), metavar="N", help="replay buffer positions"),
    "--batch-size": dict(type=O.count(1, 1_000_000), metavar="N", help="SGD minibatch"),
    "--sample-reuse": dict(type=O.real, metavar="R", help="SGD samples per new position"),
    "--learning-rate": dict(type=O.real, metavar="LR"),
    "--weight-decay": dict(type=O.real, metavar="WD"),
    "--optimizer": dict(choices=("adam", "adamw")),
    "--eval-every": dict(type=O.seconds(), metavar="SECONDS",
                         help="training seconds between evaluations"),
    "--eval-simulations": dict(type=O.count(1, 1_000_000), metavar="N",
                               help="PUCT simulations per move in evaluations"),
    "--eval-games": dict(type=O.count(0, 100_000), metavar="N",
                         help="games against MCTS per evaluation (not Tic-Tac-Toe)"),
    "--checkpoint-every": dict(type=O.seconds(), metavar="SECONDS",
                               help="training seconds between checkpoints"),
}

#: board options of the games -> argparse keywords
BOARD = {
    "--rows": dict(type=O.count(1, 8), help="Clobber board rows"),
    "--cols": dict(type=O.count(1, 8), help="Clobber board columns"),
    "--size": dict(type=O.count(3, 5), help="Quixo board size"),
}


def _dest(flag):
    return HYPER.get(flag, {}).get("dest") or flag[2:].replace("-", "_")


def _hidden(text):
    try:
        sizes = tuple(int(t) for t in text.replace(" ", "").split(",") if t)
    except ValueError:
        sizes = ()
    if not sizes or any(not 1 <= s <= 65_536 for s in sizes):
        raise CLIError(f"--hidden must be layer sizes from 1 to 65536 separated by commas, "
                       f"e.g. 256,256; got {text!r:.40}", EXIT_USAGE)
    return sizes


def _board_options(args):
    return {_dest(f): getattr(args, _dest(f)) for f in BOARD
            if getattr(args, _dest(f)) is not None}


def _eval_rows(scores):
    if "optimality" in scores:
        return [["PUCT: optimal moves (4520 positions)", f"{scores['optimality']:.2%}"],
                ["raw policy: optimal moves", f"{scores['prior_optimality']:.2%}"],
                ["worst case as X vs any player", scores["worst_x"]],
                ["worst case as O vs any player", scores["worst_o"]]]
    n = scores["wins"] + scores["draws"] + scores["losses"]
    rows = [[f"vs {scores['opponent']}: W/D/L ({n} games)",
             f"{scores['wins']} / {scores['draws']} / {scores['losses']}"
             + (f" ({scores['capped']} capped)" if scores.get("capped") else "")],
            ["score", f"{scores['score']:.3f}"]]
    if "policy_keeps" in scores:
        rows += [["raw policy: keeps the value (yardstick)", f"{scores['policy_keeps']:.2%}"],
                 ["raw policy: optimal moves (yardstick)", f"{scores['policy_optimal']:.2%}"]]
    return rows


def run_train(args):
    from ttt_engine import alphazero
    from ttt_engine.alphazero.loop import _out_kind
    console = Console.for_args(args)
    try:
        alphazero._nn()
    except alphazero.NNExtraMissing as e:
        raise CLIError(str(e), EXIT_USAGE) from None
    hyper = {_dest(f): getattr(args, _dest(f)) for f in HYPER
             if getattr(args, _dest(f)) is not None}
    if "hidden" in hyper:
        hyper["hidden"] = _hidden(hyper["hidden"])
    if args.plot:
        _files.check_plot(args.plot, force=args.force or args.resume)
    out = _files.check_output(args.out, "network file")
    ckpt, metrics = alphazero.run_paths(out)
    if args.resume and args.force:
        raise CLIError("--resume and --force exclude each other", EXIT_USAGE)
    if os.path.exists(ckpt) and not (args.resume or args.force):
        raise CLIError(f"{ckpt} exists: --resume continues that run, --force starts a new one",
                       EXIT_USAGE)
    if args.resume and not os.path.exists(ckpt):
        raise CLIError(f"--resume: no checkpoint {ckpt} to continue (the run of --out {out} "
                       "writes it); without --resume a new run starts", EXIT_USAGE)
    found = _out_kind(out)
    if found is not None:
        is_network, what = found
        if not is_network:
            raise CLIError(f"{out} exists and {what}: only a network file is "
                           "overwritten; choose another --out", EXIT_USAGE)
        if not (args.resume or args.force):
            raise CLIError(f"{out} exists and {what}: --force replaces it", EXIT_USAGE)
    try:
        config = alphazero.config_for(args.game, **hyper)
    except ValueError as e:
        raise CLIError(f"cannot train: {e}", EXIT_USAGE) from None
    _check_applies(args.game, hyper, config)
    budget = args.time if args.time is not None else (None if args.iterations else config.time)
    what = f"{budget:g} s" if budget is not None else f"{args.iterations} iterations"
    if args.resume and args.seed is not None:
        raise CLIError("--seed does not apply with --resume: the run keeps the seed of its "
                       "checkpoint", EXIT_USAGE)
    # a --scheduler that does not answer is one line, before anything is announced or written
    with executor_for(args, console) as ex:
        workers = args.workers
        if ex is not None:
            workers = _cluster_threads(args.scheduler)

        def announce(start):
            # called once the library's checks passed (checkpoint, game, shapes)
            span, resumed = f"for {what}", ""
            if args.resume:
                resumed = f" (resumed at iteration {start['iteration']:,})"
                if budget is None:
                    span = f"up to iteration {args.iterations:,}"
            console.say(f"AlphaZero {args.game}: training {span}{resumed}; network -> "
                        f"{out}, checkpoint -> {ckpt}, metrics -> {metrics}")
            if start["dropped"]:
                console.say(f"Dropped {start['dropped']} metrics record(s) after iteration "
                            f"{start['iteration']:,} from {metrics}: the checkpoint does not "
                            "have their work.")
            if ex is not None:
                console.say(f"Self-play: each iteration's {config.games} games in {workers} "
                            "parts, one per worker thread; the same --seed and parts give "
                            f"the same games as --workers {workers}.")

        started = time.monotonic()
        try:
            result = alphazero.train(args.game, out=out, time=budget,
                                     iterations=args.iterations, resume=args.resume,
                                     overwrite=args.force, seed=args.seed,
                                     progress=not args.quiet, board_options=_board_options(args),
                                     executor=ex, workers=workers, _on_start=announce,
                                     **hyper)
        except ValueError as e:
            raise CLIError(f"cannot train: {e}", EXIT_USAGE) from None
        except KeyboardInterrupt:
            last = _last_checkpoint(ckpt)
            sys.stderr.write(f"\nThe {last}." if last else
                             "\nNo iteration was completed: nothing saved.")
            raise
        except Exception as e:
            where = _selfplay_failure(args, e)
            if where is None:
                raise
            last = _last_checkpoint(ckpt)
            # the checkpoint first: a long error line is cut at the end
            why = " ".join(str(e).split())          # Dask's messages span lines
            raise CLIError(f"self-play {where} failed; "
                           f"{f'the {last}' if last else 'no checkpoint was written'} "
                           f"({type(e).__name__}: {why})", EXIT_ERROR) from None
    last = result.records[-1] if result.records else {}
    rows = [["network file", out], ["checkpoint", ckpt], ["metrics log", metrics],
            ["iterations", f"{result.iteration:,}"],
            ["self-play games", f"{last.get('games', 0):,}"],
            ["training time (all sessions)", f"{last.get('seconds', 0):,.0f} s"]]
    session = time.monotonic() - started
    if budget is not None and session > budget * 1.2 + 1:
        # one iteration always completes: say when that ran past a small budget
        rows.append(["this session", f"{session:,.1f} s: the last iteration ran past the "
                     f"{budget:g} s budget (one iteration always completes)"])
    evals = [r for r in result.records if any(k.startswith("eval_") for k in r)]
    if evals:
        e = evals[-1]
        rows += [[f"last evaluation (iteration {e['iteration']}): {k}", v] for k, v in
                 _eval_rows({k[5:]: v for k, v in e.items() if k.startswith("eval_")})]
    console.say(table(rows, ["summary", "value"]))
    if args.plot:
        from ttt_engine.plot import plot_alphazero
        _files.save(lambda p: plot_alphazero(alphazero.read_metrics(metrics), p,
                                             title=f"AlphaZero {args.game}"),
                    args.plot, "plot")
        console.say(f"Learning curves written to {args.plot}")
    return EXIT_OK


def _check_applies(game, hyper, config):
    """One line for a hyperparameter given that the run would not use (the
    preset's values count: a preset with Gumbel search takes --gumbel-k)."""
    from ttt_engine import games
    needs = [("channels", config.architecture == "conv", "--architecture conv"),
             ("blocks", config.architecture == "conv", "--architecture conv"),
             ("simulations_start", config.simulations_ramp > 0, "--simulations-ramp SECONDS"),
             ("gumbel_k", config.gumbel, "--gumbel"),
             ("cheap_simulations", config.playout_cap_share < 1, "--playout-cap below 1")]
    for name, used, need in needs:
        if name in hyper and not used:
            flag = "--" + name.replace("_", "-")
            raise CLIError(f"{flag} applies only with {need}", EXIT_USAGE)
    g = games.get(game)
    if "eval_games" in hyper and g.oracle:
        raise CLIError(f"--eval-games does not apply to {g.title}: its evaluation is exact "
                       "(optimal moves over every position), with no games", EXIT_USAGE)


def _cluster_threads(address):
    """The worker threads of the Dask cluster the console is connected to (each
    iteration's games are split into as many parts); waits up to
    CONNECT_TIMEOUT seconds for a first worker."""
    from distributed import default_client
    client = default_client()
    threads = sum(client.nthreads().values())
    if threads == 0:
        try:
            client.wait_for_workers(1, timeout=CONNECT_TIMEOUT)
        except TimeoutError:
            raise CLIError(f"the Dask scheduler at {address} has no workers (waited "
                           f"{CONNECT_TIMEOUT} s); start some with 'dask worker {address}'",
                           EXIT_ERROR) from None
        threads = sum(client.nthreads().values())
    return threads


def _last_checkpoint(ckpt):
    """"last checkpoint (iteration N) is in PATH; --resume continues from it", or
    None without a readable checkpoint."""
    from ttt_engine import alphazero
    if not os.path.exists(ckpt):
        return None
    try:
        it = alphazero.load_checkpoint(ckpt).iteration
    except (OSError, ValueError):
        return None
    return f"last checkpoint (iteration {it}) is in {ckpt}; --resume continues from it"


def _selfplay_failure(args, exc):
    """Where self-play ran, when ``exc`` is its executor failing (a broken local
    pool, a Dask cluster lost or a task killed there), else None."""
    from concurrent.futures import CancelledError
    from concurrent.futures.process import BrokenProcessPool
    if args.scheduler and (isinstance(exc, CancelledError)
                           or type(exc).__module__.split(".")[0] == "distributed"):
        return f"on the Dask cluster at {args.scheduler}"
    if isinstance(exc, BrokenProcessPool):
        return f"on the {args.workers} local worker processes"
    return None


#: the options of ``az eval`` that only games against MCTS use, and their defaults
EVAL_DEFAULTS = {"games": 20, "mcts_simulations": 800, "seed": 0, "playout_weight": 0.0,
                 "mixed_playouts": 1}


def run_eval(args):
    from ttt_engine import alphazero, games
    from ttt_engine.network import Network
    console = Console.for_args(args)
    if not os.path.exists(args.model):
        raise CLIError(f"the network file {args.model} does not exist", EXIT_ERROR)
    try:
        net = Network.load(args.model)
    except ValueError as e:         # a file that is not a network: bad input, as in play
        raise CLIError(f"--network: {e}", EXIT_USAGE) from None
    except OSError as e:
        raise CLIError(f"cannot read the network file {args.model}: {e.strerror or e}",
                       EXIT_ERROR) from None
    g = games.get(net.game_key)
    played = {"--games": args.games, "--mcts-simulations": args.mcts_simulations,
              "--playout-weight": args.playout_weight,
              "--mixed-playouts": args.mixed_playouts, "--seed": args.seed}
    given = [flag for flag, value in played.items() if value is not None]
    if g.oracle and given:
        raise CLIError(f"{given[0]} does not apply to a {g.title} network: its evaluation is "
                       "exact (optimal moves over every position), with no games", EXIT_USAGE)
    defaults = EVAL_DEFAULTS | {k: v for k, v in vars(args).items()
                                if k in EVAL_DEFAULTS and v is not None}
    console.say(f"{args.model}: {net!r}")
    scores = alphazero.evaluate_network(net, simulations=args.simulations, **defaults)
    console.say(table(_eval_rows(scores), ["evaluation", "value"]))
    return EXIT_OK


def run(args):
    return args.az_run(args)


def add_parser(subparsers):
    from ttt_engine import games
    p = O.add_command(subparsers, COMMAND, run)
    sub = p.add_subparsers(dest="az_command", metavar="COMMAND", required=True)
    t = sub.add_parser("train", help="train a network by self-play (needs [nn])",
                       formatter_class=argparse.RawDescriptionHelpFormatter,
                       description="Train a policy-value network by AlphaZero self-play. The "
                       "network, a checkpoint (OUT.ckpt.npz) and a metrics log "
                       "(OUT.metrics.jsonl) are written as it goes; --resume continues a run "
                       "from its last checkpoint. Hyperparameters default to the game's preset.")
    t.set_defaults(az_run=run_train)
    t.add_argument("--game", choices=list(games.GAMES), default=games.default_game(),
                   help=f"which game (default: {games.default_game()})")
    t.add_argument("--out", required=True, metavar="PATH", help="network file to write (.npz)")
    t.add_argument("--time", type=O.seconds(), metavar="SECONDS",
                   help="wall-time budget of this session (default: the preset's)")
    t.add_argument("--iterations", type=O.count(1, 10**9), metavar="N",
                   help="stop when the run has done N iterations in all")
    t.add_argument("--resume", action="store_true", help="continue from the checkpoint")
    t.add_argument("--force", action="store_true",
                   help="start anew over an existing checkpoint or network at --out")
    t.add_argument("--seed", type=O.seed, help="seed of the run")
    t.add_argument("--plot", metavar="PNG", help="write the learning curves to PNG")
    add_executor_options(t, workers_help="play each iteration's games on N local processes "
                         "(default: in this process; the learner always trains here; "
                         "with --scheduler they are split over the cluster's worker threads)")
    g = t.add_argument_group("hyperparameters (default: the game's preset)")
    for flag, kw in HYPER.items():
        g.add_argument(flag, **kw)
    b = t.add_argument_group("board options")
    for flag, kw in BOARD.items():
        b.add_argument(flag, **kw)
    O.add_quiet(t)
    e = sub.add_parser("eval", help="evaluate a network with PUCT (numpy only)",
                       description="Tic-Tac-Toe: optimal moves of PUCT over the 4520 decision "
                       "positions and its worst case against any player; other games: games "
                       "against MCTS.")
    e.set_defaults(az_run=run_eval)
    e.add_argument("--network", "--model", dest="model", required=True, metavar="PATH",
                   help="network file (.npz), as 'az train --out' writes it (--model: the "
                        "same, its earlier name)")
    e.add_argument("--simulations", type=O.count(1, 1_000_000), default=100,
                   help="PUCT simulations per move (default 100)")
    # the games' options default to None: given for a Tic-Tac-Toe network, they are refused
    e.add_argument("--games", type=O.count(1, 100_000),
                   help="games against MCTS (default 20; not Tic-Tac-Toe)")
    e.add_argument("--mcts-simulations", type=O.count(1, 10**9),
                   help="MCTS simulations per move (default 800; not Tic-Tac-Toe)")
    e.add_argument("--playout-weight", type=O.fraction, metavar="W",
                   help="weight of random playouts in every leaf value, 0..1 (default 0; "
                   "the shipped UTTT network plays with 1; not Tic-Tac-Toe)")
    e.add_argument("--mixed-playouts", type=O.count(1, 10_000), metavar="K",
                   help="random playouts averaged for that value (default 1; shipped UTTT: 8; "
                   "not Tic-Tac-Toe)")
    e.add_argument("--seed", type=O.seed, help="seed of the games (not Tic-Tac-Toe)")
    O.add_quiet(e)
    return p
