"""``ttt-engine sweep``: the Tic-Tac-Toe Q-learning sweep over learning rate,
discount and episodes, several seeds each, measured exactly against the solved
game; a table, a CSV and (with matplotlib) a heatmap; resumable with ``--out``."""
from __future__ import annotations

import argparse

from ttt_engine.cli import _files
from ttt_engine.cli import _options as O
from ttt_engine.cli._errors import (
    EXIT_ERROR,
    EXIT_OK,
    EXIT_USAGE,
    CLIError,
    shorten,
)
from ttt_engine.cli._executors import add_executor_options, run_resumable
from ttt_engine.cli._report import table
from ttt_engine.cli.console import Console

__all__ = ["COMMAND", "add_parser", "run"]

COMMAND = O.Command(
    name="sweep",
    help="Q-learning hyperparameter sweep with exact measures",
    description="""\
Train a Tic-Tac-Toe Q-learning agent for every combination of --alpha,
--gamma and --episodes, --repeats seeds each, on local worker processes
or a Dask cluster, and measure every run exactly: the share of optimal
moves, the worst case against any opponent and W/D/L against random.""",
    epilog=(O.examples("sweep --alpha 0.05,0.1,0.3 --gamma 0.9,0.99 --episodes 1e5,1e6,1e7 "
                       "--repeats 5 --csv sweep.csv --plot sweep.png --out sweep.jsonl"),))


def _list(kind, lo, hi):
    """An argparse type: a comma-separated list of numbers (``int`` or ``float``)."""
    one = O.count(lo, hi) if kind is int else O.real

    def parse(text):
        items = [t for t in text.split(",") if t.strip()]
        if not items:
            raise argparse.ArgumentTypeError(f"must be a comma-separated list, got "
                                             f"{shorten(text)}")
        values = [one(t) for t in items]
        for k, v in enumerate(values):
            if v in values[:k]:
                raise argparse.ArgumentTypeError(f"lists {v:g} twice, got {shorten(text)}")
        return values
    parse.__name__ = "list"
    return parse


def _rows(result):
    rows = []
    for a in result.aggregate():
        n = a["runs"]
        rows.append([
            f"{a['alpha']:g}", f"{a['gamma']:g}", f"{a['episodes']:,}", str(n),
            f"{a['optimality_mean']:.2%}", f"{a['optimality_min']:.2%}",
            f"{round(a['never_loses_mean'] * n)}/{n}",
            {1: "win", 0: "draw", -1: "loss"}[int(min(a["worst_x_min"], 1))] + " / " +
            {1: "win", 0: "draw", -1: "loss"}[int(min(a["worst_o_min"], 1))],
            f"{a['win_x_mean']:.2%} / {a['draw_x_mean']:.2%} / {a['loss_x_mean']:.2%}",
            f"{a['win_o_mean']:.2%} / {a['draw_o_mean']:.2%} / {a['loss_o_mean']:.2%}",
        ])
    return rows


#: the swept parameters, which the heatmap's axes name
AXES = ("alpha", "gamma", "episodes")

HEADER = ["alpha", "gamma", "episodes", "runs", "optimal (mean)", "optimal (worst run)",
          "never loses", "worst case X / O", "vs random as X: W/D/L", "vs random as O: W/D/L"]


def run(args):
    from ttt_engine.tournament import ResultsFileError, SweepError, qlearning_sweep
    console = Console.for_args(args)
    for name, lo, hi, lo_open in (("alpha", 0, 1, True), ("gamma", 0, 1, False)):
        for v in getattr(args, name):
            if not ((v > lo) if lo_open else (v >= lo)) or v > hi:
                raise CLIError(f"--{name} values must be in {'(' if lo_open else '['}{lo}, "
                               f"{hi}], got {v:g}", EXIT_USAGE)
    for axis in ("x", "y"):
        if getattr(args, axis) is not None and not args.plot:
            raise CLIError(f"--{axis} applies only with --plot (the heatmap's axes)", EXIT_USAGE)
    if args.x is not None and args.x == args.y:
        raise CLIError(f"--x and --y must be two different parameters, got {args.x} for both",
                       EXIT_USAGE)
    # the defaults (alpha across, episodes up) give way to the axis the user chose
    x = args.x or ("gamma" if args.y == "alpha" else "alpha")
    y = args.y or ("alpha" if x == "episodes" else "episodes")
    if args.plot:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            raise CLIError('--plot needs matplotlib: pip install "ttt_engine[plot]" '
                           "(nothing was run)", EXIT_USAGE) from None
    # the results file is resumable (read back on purpose); the others follow --force
    for path, what, force in ((args.out, "results file", None),
                              (args.csv, "CSV file", args.force),
                              (args.plot, "heatmap", args.force)):
        if path:
            _files.check_output(path, what, force=force)
    try:     # a results file of another run is an input that is not valid
        result, error = run_resumable(
            args, console,
            lambda ex: qlearning_sweep(args.alpha, args.gamma, args.episodes, args.repeats,
                                       seed=args.seed, executor=ex, out=args.out,
                                       progress=not args.quiet, workers=args.workers),
            SweepError, "runs")
    except ResultsFileError as e:
        raise CLIError(str(e), EXIT_USAGE) from None
    if result.rows:
        console.say(f"Tic-Tac-Toe Q-learning sweep, seed {result.seed}; exact measures "
                    "against the solved game (optimal moves over the 4520 decision "
                    "positions, worst case against any opponent, W/D/L against a uniformly "
                    "random opponent), means over the runs:")
        console.say(table(_rows(result), HEADER))
    if args.csv:
        _files.save(result.to_csv, args.csv, "CSV file")
        console.say(f"Every run written to {args.csv}")
    if args.plot and result.rows:
        _files.save(lambda p: result.heatmap(p, "optimality", x, y), args.plot,
                    "heatmap")
        console.say(f"Heatmap of the optimal-move share ({x} x {y}) written to "
                    f"{args.plot}")
    if error is not None:
        raise CLIError(str(error), EXIT_ERROR)
    return EXIT_OK


def add_parser(subparsers):
    p = O.add_command(subparsers, COMMAND, run)
    p.add_argument("--alpha", type=_list(float, 0, 1), default=[0.05, 0.1, 0.3],
                   metavar="LIST", help="initial learning rates (default 0.05,0.1,0.3)")
    p.add_argument("--gamma", type=_list(float, 0, 1), default=[0.9, 0.99], metavar="LIST",
                   help="discounts (default 0.9,0.99)")
    p.add_argument("--episodes", type=_list(int, 0, O.MAX_EPISODES), default=[100_000, 1_000_000],
                   metavar="LIST", help="training episodes (default 1e5,1e6)")
    p.add_argument("--repeats", type=O.count(1, 10_000), default=5, metavar="N",
                   help="seeds per combination (default 5)")
    p.add_argument("--seed", type=O.seed, default=None,
                   help="sweep seed (default: drawn, or the --out file's)")
    p.add_argument("--out", metavar="FILE", help="results file (JSON lines), resumable")
    p.add_argument("--csv", metavar="FILE", help="write every run as CSV")
    p.add_argument("--plot", metavar="PNG", help="heatmap of the optimal-move share "
                   "(needs matplotlib, the [plot] extra)")
    O.add_force(p)
    p.add_argument("--x", choices=AXES,
                   help="heatmap columns (default alpha; gamma when --y is alpha)")
    p.add_argument("--y", choices=AXES, help="heatmap rows (default episodes; alpha when --x "
                   "is episodes); the third parameter is averaged")
    add_executor_options(p)
    O.add_quiet(p)
    return p
