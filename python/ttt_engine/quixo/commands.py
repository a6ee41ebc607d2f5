"""``ttt-engine quixo``: the Quixo stages A/B/C (values from random play, then the greedy agent, then its evaluation) end to end (``stages``) and a
random-game speed check (``play``)."""
from __future__ import annotations

import argparse
import inspect
import os
import time

from ttt_engine.cli import _files
from ttt_engine.cli import _options as O
from ttt_engine.cli._errors import EXIT_ERROR, EXIT_OK, EXIT_USAGE, CLIError, shorten

__all__ = ["add_parser", "run", "configure"]


#: ``--games-a`` and the other game counts of ``stages``
GAME_COUNT = O.count(1, O.MAX_GAMES)


def _discount(text):
    """An argparse type: a discount in (0, 1]."""
    v = O.real(text)
    if not 0.0 < v <= 1.0:
        raise argparse.ArgumentTypeError(f"must be in (0, 1], got {shorten(text)}")
    return v

#: The options of ``stages`` after its stage letters, flag -> argparse keywords.
#: Each one is the ``quixo.stages()`` keyword of the same name (``--games-a``:
#: ``games_a``) and has that function's default.
STAGE_OPTIONS = {
    "--games-a": dict(type=GAME_COUNT, help="stage A tournament games"),
    "--games-b": dict(type=GAME_COUNT, help="stage B random games"),
    "--games-c-eval": dict(type=GAME_COUNT, help="stage C greedy vs random games"),
    "--games-c-collect": dict(type=O.count(0, O.MAX_GAMES),
                              help="stage C greedy games collected to states_greedy.npz (0: skip)"),
    "--size": dict(type=int, choices=(3, 4, 5)),
    "--max-plies": dict(type=O.count(1, 100_000), help="move cap (draw)"),
    "--gamma": dict(type=_discount, help="discount, in (0, 1]"),
    "--epsilon": dict(type=O.fraction, help="exploration of the greedy agent, in [0, 1]"),
    "--unknown": dict(type=O.fraction, help="value of unseen states, in [0, 1]"),
    "--draw-score": dict(type=O.fraction, help="reward of a draw by the cap, in [0, 1]"),
    "--seed-faithful": dict(action="store_true",
                            help="greedy looks up terminal states in the table too (as the seed)"),
    "--symmetric": dict(action="store_true",
                        help="merge states over the 8 board symmetries (not in the seed)"),
    "--out-dir": dict(help="an existing folder where the states_* value files go (default: here)"),
    "--format": dict(choices=("binary", "json"),
                     help="value files: compact binary .npz (default) or JSON"),
    "--seed": dict(type=O.seed),
}


def _keyword(flag):
    """The ``stages()`` keyword (and argparse destination) of a ``stages`` option."""
    return flag[2:].replace("-", "_")


def configure(p):
    """Add the ``stages`` and ``play`` subcommands and their options to parser ``p``."""
    from ttt_engine.quixo import stages
    defaults = inspect.signature(stages).parameters
    sub = p.add_subparsers(dest="cmd", metavar="COMMAND", required=True)
    s = sub.add_parser("stages", help="run the value-learning stages A, B, C end to end")
    s.add_argument("which", nargs="?", default="abc",
                   help="stages to run, e.g. 'abc' (default), 'a', 'bc'")
    for flag, options in STAGE_OPTIONS.items():
        s.add_argument(flag, default=defaults[_keyword(flag)].default, **options)
    s.add_argument("--no-progress", action="store_true")
    r = sub.add_parser("play", help="random-vs-random speed check")
    r.add_argument("--games", type=GAME_COUNT, default=1_000_000)
    r.add_argument("--size", type=int, default=5, choices=(3, 4, 5))
    r.add_argument("--seed", type=O.seed, default=0)
    from ttt_engine.quixo.tablebase import configure_cli
    configure_cli(sub)
    p.set_defaults(run=run)
    return p


def add_parser(subparsers):
    p = subparsers.add_parser("quixo", help="the Quixo value-learning stages A/B/C",
                              description="Quixo: the value-learning stages A/B/C and tools.")
    return configure(p)


def _check_outputs(args):
    """The stage files are checked before any game is played."""
    which = args.which.lower()
    if not which or set(which) - set("abc"):
        raise CLIError(f"stages must be letters among 'a', 'b', 'c', got {args.which!r:.40}",
                       EXIT_USAGE)
    folder = args.out_dir
    if not os.path.isdir(folder):
        what = "is not a folder" if os.path.exists(folder) else "does not exist; create it first"
        raise CLIError(f"--out-dir {folder} {what}", EXIT_ERROR)
    ext = ".json" if args.format == "json" else ".npz"
    random_path = os.path.join(folder, "states_random" + ext)
    if "b" in which:
        _files.check_output(random_path, "state-value file")
    elif "c" in which and not any(os.path.isfile(os.path.join(folder, "states_random" + e))
                                  for e in (".npz", ".json")):
        raise CLIError(f"stage C needs {random_path}: run stage B first", EXIT_ERROR)
    if "c" in which and args.games_c_collect:
        _files.check_output(os.path.join(folder, "states_greedy" + ext), "state-value file")


def run(args):
    """Run the stages or the speed check; returns the exit status."""
    from ttt_engine import quixo
    from ttt_engine._core.learning.quixo.tournament import random_games_per_second
    from ttt_engine._util import resolve_seed
    if args.cmd == "tablebase":
        from ttt_engine.quixo.tablebase import run_cli
        return run_cli(args)
    try:
        if args.cmd == "stages":
            _check_outputs(args)
            options = {_keyword(flag): getattr(args, _keyword(flag)) for flag in STAGE_OPTIONS}
            quixo.stages(args.which, progress=not args.no_progress, **options)
            return EXIT_OK
        n = args.games
        t0 = time.perf_counter()
        xw, ow, dr, plies = random_games_per_second(n, args.size, quixo.DEFAULT_MAX_PLIES,
                                                    resolve_seed(args.seed))
        dt = time.perf_counter() - t0
        print(f"{n:,} random games in {dt:.3f} s: {n / dt:,.0f} games/s; "
              f"X {xw:,} O {ow:,} draws at the move cap {dr:,}; mean length {plies / n:.2f}", flush=True)
    except ValueError as e:
        raise CLIError(str(e), EXIT_USAGE) from None
    return EXIT_OK
