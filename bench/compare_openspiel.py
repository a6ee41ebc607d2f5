#!/usr/bin/env python
"""Side-by-side performance of ttt_engine and OpenSpiel, in one process run.

    pip install ".[compare]"            # ttt_engine + open_spiel from PyPI
    python bench/compare_openspiel.py   # about 2 minutes; --quick about 20 s
    python bench/compare_openspiel.py --rounds 9 --json compare.json

Every row runs the same work on both engines, alternating which goes first,
for ``--rounds`` rounds, and reports the median of each side and the median
of the per-round ratios (ttt_engine / OpenSpiel for rates; OpenSpiel time /
ttt_engine time for searches).  Rows:

- Tic-Tac-Toe tabular Q-learning episodes/s: OpenSpiel's ``tabular_qlearner``
  driven through ``rl_environment`` (the loop of OpenSpiel's own
  ``tic_tac_toe_qlearner`` example) vs ``ttt_engine.train``; alpha 0.1,
  gamma 0.9, constant epsilon 0.7 on both; vs a uniformly random X, and in
  self-play.
- MCTS simulations/s, one random rollout per simulation, from the initial
  position, the same number of simulations on both sides: OpenSpiel's C++
  ``MCTSBot`` (UCT, c = sqrt(2), ``RandomRolloutEvaluator(1)``, solve off) vs
  ``ttt_engine.MCTS`` (same c, no tree reuse, ``expand_after=1``: OpenSpiel's
  expansion rule); Tic-Tac-Toe and Ultimate Tic-Tac-Toe.
- Random playouts (complete games) per second: OpenSpiel's C++
  ``RandomRolloutEvaluator`` rollouts (run inside ``MCTSBot`` with one
  simulation, i.e. n rollouts from the root) vs ``ttt_engine._core.algorithms.playout``.
- Alpha-beta: Tic-Tac-Toe solved from the empty board, and Clobber 6x5 from
  the start position at fixed depths: OpenSpiel's Python
  ``minimax.alpha_beta_search`` vs ttt_engine's alpha-beta, nodes and time:
  "plain" (``search.minimax(..., alphabeta=True)``, the same algorithm) and
  "TT + ordering" (``search.alphabeta``, the engine's default search).

Each side is timed by wall clock and by its thread's CPU time (both engines
run single-threaded in this thread); the table gives both, since the machine
may be shared.  An untimed rules check ends the run: both engines' random
games give the same mean result and length.  Details and fairness notes:
docs/performance.md.

OpenSpiel's Ultimate Tic-Tac-Toe spends two actions on a free move (choose
the board, then the cell); every figure here counts marks / games /
simulations, never actions.

The measuring is in ``bench/compare/measure.py`` (with the work of each
engine in ``bench/compare/sides.py``), the tables in
``bench/compare/report.py``; this script is the command line.  Exit status:
0 done; 1 a row failed with an error (message printed, run continues);
2 bad command line; 3 OpenSpiel (``open_spiel``) is not installed;
4 ttt_engine cannot be imported (not built / not installed).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import measure, report, sides  # noqa: E402

EXIT_ROW_ERROR = 1
EXIT_NO_OPENSPIEL = 3
EXIT_NO_TTT_ENGINE = 4


def parse_args(argv):
    ap = argparse.ArgumentParser(
        description="Compare ttt_engine with OpenSpiel on the same work, in one run.",
        epilog="Exit status: 0 done; 1 a row failed; 2 bad arguments; 3 OpenSpiel not installed "
               "(pip install '.[compare]'); 4 ttt_engine not importable.")
    ap.add_argument("--rounds", type=int, default=None,
                    help="alternating rounds per row (default 5; 3 with --quick)")
    ap.add_argument("--quick", action="store_true", help="smaller work sizes (about 20 s)")
    ap.add_argument("--min-time", type=float, default=None,
                    help="seconds of work per side per round (default 0.2; 0.05 with --quick)")
    ap.add_argument("--only", nargs="+", metavar="KEY",
                    help="run only these rows (see --list)")
    ap.add_argument("--list", action="store_true", help="list the row keys and exit")
    ap.add_argument("--no-sanity", action="store_true", help="skip the untimed rules check")
    ap.add_argument("--json", metavar="PATH", help="also write all measurements as JSON")
    args = ap.parse_args(argv)
    sizes = dict(measure.SIZES["quick" if args.quick else "full"])
    if args.rounds is None:
        args.rounds = sizes["rounds"]
    if args.min_time is None:
        args.min_time = sizes["min_time"]
    if args.rounds < 1:
        ap.error("--rounds must be >= 1")
    if not (args.min_time >= 0):
        ap.error("--min-time must be >= 0")
    return ap, args, sizes


def main(argv=None):
    ap, args, sizes = parse_args(sys.argv[1:] if argv is None else argv)
    rows = measure.build_rows(sizes)
    if args.list:
        for r in rows:
            print(f"{r.key:18s} {r.title}")
        return 0
    if args.only:
        unknown = sorted(set(args.only) - {r.key for r in rows})
        if unknown:
            ap.error(f"unknown row(s): {', '.join(unknown)}; see --list")
        rows = [r for r in rows if r.key in args.only]

    try:
        import pyspiel  # noqa: F401
        from importlib.metadata import version
        os_version = version("open_spiel")
    except ImportError:
        print("compare_openspiel: OpenSpiel is not installed; install it with "
              "`pip install '.[compare]'` (or `pip install open_spiel`). Nothing measured.",
              file=sys.stderr)
        return EXIT_NO_OPENSPIEL
    except Exception:  # noqa: BLE001 - metadata missing but module importable
        os_version = "unknown version"
    try:
        import ttt_engine
    except ImportError as e:
        print(f"compare_openspiel: cannot import ttt_engine ({e}); build it with "
              "`python setup.py build_ext --inplace` and run with PYTHONPATH=python, "
              "or `pip install .`. Nothing measured.", file=sys.stderr)
        return EXIT_NO_TTT_ENGINE

    info = measure.machine_info()
    info["load_avg_start"] = info.pop("load_avg")
    info["open_spiel"] = os_version
    info["ttt_engine"] = getattr(ttt_engine, "__version__", "?")
    info["git"] = measure.git_commit()
    info["command"] = "python bench/compare_openspiel.py " + " ".join(
        sys.argv[1:] if argv is None else argv)
    info["command"] = info["command"].strip()

    osp = sides.OpenSpiel()
    eng = sides.Engine()

    def log(msg):
        print(msg, end="", file=sys.stderr, flush=True)

    results = []
    t_start = time.perf_counter()
    for row in rows:
        log(f"{row.key:18s} ")
        res = measure.run_row(row, osp, eng, args.rounds, args.min_time, log)
        res["summary"] = report.summarize(res)
        results.append(res)
        tail = " ERROR" if res["error"] else ""
        log(f"{tail}\n")
    info["load_avg_end"] = os.getloadavg() if hasattr(os, "getloadavg") else None
    info["wall_seconds"] = round(time.perf_counter() - t_start, 1)

    text = report.markdown(results, info, args)
    sanity_text, sanity = ("", None)
    if not args.no_sanity:
        n, n_marks, sanity = measure.sanity_sample(osp, eng, args.quick)
        sanity_text = report.sanity_text(n, n_marks, sanity)
    print(text)
    if sanity_text:
        print(sanity_text)
    if args.json:
        payload = {"machine": info, "args": vars(args),
                   "sizes": {k: list(v) if isinstance(v, tuple) else v for k, v in sizes.items()},
                   "rows": results, "rules_check": sanity}
        try:
            from ttt_engine._util import atomic_write
            data = json.dumps(payload, indent=1, default=str).encode()
            atomic_write(args.json, lambda f: f.write(data))
        except OSError as e:
            print(f"compare_openspiel: cannot write {args.json}: {e}", file=sys.stderr)
            return EXIT_ROW_ERROR
    errors = [r for r in results if r["error"]]
    for r in errors:
        print(f"compare_openspiel: {r['key']}: {r['error']}", file=sys.stderr)
    return EXIT_ROW_ERROR if errors else 0


if __name__ == "__main__":
    sys.exit(main())
