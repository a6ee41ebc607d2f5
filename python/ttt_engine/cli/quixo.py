"""``ttt-engine quixo``: seed 004's stages A/B/C end to end (``stages``) and a
random-game speed check (``play``)."""
from __future__ import annotations

import os
import time

from ttt_engine.cli import _files
from ttt_engine.cli import _options as O
from ttt_engine.cli._errors import EXIT_ERROR, EXIT_OK, EXIT_USAGE, CLIError

__all__ = ["add_parser", "run", "configure"]


def configure(p):
    """Add the ``stages`` and ``play`` subcommands and their options to parser ``p``."""
    from ttt_engine.quixo import DEFAULT_MAX_PLIES
    sub = p.add_subparsers(dest="cmd", metavar="COMMAND", required=True)
    games = O.count(1, O.MAX_GAMES)
    s = sub.add_parser("stages", help="reproduce the seed's stages A, B, C end to end")
    s.add_argument("which", nargs="?", default="abc",
                   help="stages to run, e.g. 'abc' (default), 'a', 'bc'")
    s.add_argument("--games-a", type=games, default=10_000, help="stage A tournament games")
    s.add_argument("--games-b", type=games, default=100_000, help="stage B random games")
    s.add_argument("--games-c-eval", type=games, default=10_000,
                   help="stage C greedy vs random games")
    s.add_argument("--games-c-collect", type=O.count(0, O.MAX_GAMES), default=100_000,
                   help="stage C greedy games collected to states_greedy.json (0: skip)")
    s.add_argument("--size", type=int, default=5, choices=(3, 4, 5))
    s.add_argument("--max-plies", type=O.count(1, 100_000), default=DEFAULT_MAX_PLIES,
                   help="move cap (draw)")
    s.add_argument("--gamma", type=O.real, default=0.85)
    s.add_argument("--epsilon", type=O.real, default=0.1)
    s.add_argument("--unknown", type=O.real, default=0.5, help="value of unseen states")
    s.add_argument("--draw-score", type=O.real, default=0.5, help="reward of a draw by the cap")
    s.add_argument("--seed-faithful", action="store_true",
                   help="greedy looks up terminal states in the table too (as the seed)")
    s.add_argument("--symmetric", action="store_true",
                   help="merge states over the 8 board symmetries (not in the seed)")
    s.add_argument("--out-dir", default=".",
                   help="an existing folder where states_*.json go (default: here)")
    s.add_argument("--seed", type=O.seed, default=None)
    s.add_argument("--no-progress", action="store_true")
    r = sub.add_parser("play", help="random-vs-random speed check")
    r.add_argument("--games", type=games, default=1_000_000)
    r.add_argument("--size", type=int, default=5, choices=(3, 4, 5))
    r.add_argument("--seed", type=O.seed, default=0)
    p.set_defaults(run=run)
    return p


def add_parser(subparsers):
    p = subparsers.add_parser("quixo", help="seed 004's Quixo stages A/B/C",
                              description="Quixo: the seed's stages A/B/C and tools.")
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
    random_path = os.path.join(folder, "states_random.json")
    if "b" in which:
        _files.check_output(random_path, "state-value file")
    elif "c" in which and not os.path.isfile(random_path):
        raise CLIError(f"stage C needs {random_path}: run stage B first", EXIT_ERROR)
    if "c" in which and args.games_c_collect:
        _files.check_output(os.path.join(folder, "states_greedy.json"), "state-value file")


def run(args):
    """Run the stages or the speed check; returns the exit status."""
    from ttt_engine import quixo
    from ttt_engine._core.quixo_play import random_games_per_second
    from ttt_engine._util import resolve_seed
    try:
        if args.cmd == "stages":
            _check_outputs(args)
            quixo.stages(args.which, games_a=args.games_a, games_b=args.games_b,
                         games_c_eval=args.games_c_eval, games_c_collect=args.games_c_collect,
                         size=args.size, max_plies=args.max_plies, gamma=args.gamma,
                         epsilon=args.epsilon, unknown=args.unknown,
                         draw_score=args.draw_score, seed_faithful=args.seed_faithful,
                         symmetric=args.symmetric, out_dir=args.out_dir, seed=args.seed,
                         progress=not args.no_progress)
            return EXIT_OK
        n = args.games
        t0 = time.perf_counter()
        xw, ow, dr, plies = random_games_per_second(n, args.size, quixo.DEFAULT_MAX_PLIES,
                                                    resolve_seed(args.seed))
        dt = time.perf_counter() - t0
        print(f"{n:,} random games in {dt:.3f} s: {n / dt:,.0f} games/s; "
              f"X {xw:,} O {ow:,} draws {dr:,}; mean length {plies / n:.2f}", flush=True)
    except ValueError as e:
        raise CLIError(str(e), EXIT_USAGE) from None
    return EXIT_OK
