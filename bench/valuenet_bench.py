"""The compiled value network's speed on UTTT (docs/valuenet.md).

1. One evaluation with its incremental update, in a search-like loop: random
   descents of 8 plies from the start (copy-make, the move's feature change
   onto the parent's accumulator, the value), popping back up; ns/evaluation,
   float32 and int16 accumulators, H = 256.  Bar: <= 150 ns (>= 6.6 M/s).
2. MCTS with the network at every new leaf (``value_weight=1``, no playout)
   from the UTTT start, every child of an expansion scored (the default) and
   the leaf alone (``score_children=False``): simulations/s on one thread
   (bar >= 500k), and
   ``threads=2`` / ``threads=1`` (bar >= 1.8x; in wall time meaningful only
   on an idle machine with two cores; the processor-time figure, simulations
   per processor second of two threads against one's, shows what two free
   cores would give), beside plain MCTS with random playouts.
3. Alpha-beta nodes per second with the network at the horizon against the
   game's heuristic (Connect Four, Clobber 6x5).

Random weights of the trained networks' shape (the speed does not depend on
their values).  Medians of ``--repeats`` runs::

    PYTHONPATH=python taskset -c 1 python bench/valuenet_bench.py --part eval mcts1
    PYTHONPATH=python taskset -c 0,1 python bench/valuenet_bench.py --part threads
    PYTHONPATH=python taskset -c 1 python bench/valuenet_bench.py --part alphabeta
    PYTHONPATH=python python -m pytest bench/valuenet_bench.py --benchmark-only
"""
import argparse
import json
import os
import statistics
import time

import bench_threads
import numpy as np
import pytest

from ttt_engine import games, uttt
from ttt_engine._core.algorithms.valuenet import CompiledValueNet, feature_set_of
from ttt_engine.search import MCTS

HIDDEN = 256
EVALS = 4_000_000


def network(quantised, hidden=HIDDEN, seed=0):
    rng = np.random.default_rng(seed)
    board = uttt.Board()        # the feature set of this build
    f = games.get("uttt").value_features.count(board)
    return CompiledValueNet(rng.normal(0, 0.1, (f, hidden)), rng.normal(0.3, 0.2, hidden),
                            rng.normal(0, 0.1, hidden), 0.0, feature_set_of(board),
                            quantised=quantised)


def eval_ns(quantised, evals=EVALS, depth=8):
    """Nanoseconds per incremental evaluation (update + value): (wall, processor)."""
    n, seconds, cpu, _ = network(quantised).bench_walk(uttt.Board(), evals, seed=1, depth=depth)
    return seconds / n * 1e9, cpu / n * 1e9


#: the valuenet engines' back-up (engines.NETWORK_MCTS without the solver)
MINIMAX = {"leaf_from_children": True, "minimax_weight": 0.6}


def mcts_rate(threads, net=None, score_children=True, **settings):
    """Simulations per wall-clock second of a fresh UTTT search from the start
    with the network at every new leaf (bench_threads.py's measurement)."""
    if net is None:
        return bench_threads.mcts_rate(threads)
    return bench_threads.mcts_rate(threads, value_network=net, score_children=score_children,
                                   **settings)


def mcts_cpu_rate(net=None, sims=bench_threads.SIMS, threads=1, score_children=True,
                  **settings):
    """Simulations per processor second (the process's processor time, all
    its threads: a loaded machine's wall time counts other programs' turns)."""
    m = MCTS(seed=3, max_nodes=bench_threads.NODES, value_network=net, threads=threads,
             score_children=score_children, **settings)
    b = uttt.Board()
    m.search(b, simulations=sims)
    m.reset()
    t = time.process_time()
    m.search(b, simulations=sims)
    dt = time.process_time() - t
    bench_threads.check_unfilled(m)
    return sims / dt


def alphabeta_rate(key, depth, net=None, **opts):
    """Alpha-beta nodes per processor second from the start of ``key`` at a
    fixed depth, with the game's heuristic or ``net`` at the horizon."""
    from ttt_engine import games
    from ttt_engine.search import ABSearcher, alphabeta
    board = games.get(key).new_board(**opts)
    searcher = ABSearcher(1 << 20)
    t = time.process_time()
    r = alphabeta(board, depth, value_network=net, searcher=searcher)
    return r.nodes / (time.process_time() - t)


def wall_and_cpu(measure, repeats):
    """``measure() -> (wall, processor)`` run ``repeats`` times: ``{"wall": median,
    "cpu": median}`` and the processor figures of the runs."""
    runs = [measure() for _ in range(repeats)]
    return ({"wall": statistics.median(r[0] for r in runs),
             "cpu": statistics.median(r[1] for r in runs)}, [r[1] for r in runs])


AB_CASES = [("connect4", 9, {}, "connect4-v2", 183), ("clobber", 6, {"rows": 6, "cols": 5},
                                                      "clobber-6x5-v2", 399)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--part", nargs="+", default=["eval", "mcts1", "threads"],
                    choices=["eval", "mcts1", "threads", "alphabeta"])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--json", help="write the medians here")
    args = ap.parse_args()
    out = {"load_average": os.getloadavg()}
    if "eval" in args.part:
        for q in (False, True):
            key = f"eval_ns_{'int16' if q else 'float32'}"
            out[key], cpus = wall_and_cpu(lambda: eval_ns(q), args.repeats)
            print(f"{key}: median {out[key]['cpu']:.1f} ns of processor time "
                  f"({1e3 / out[key]['cpu']:.2f} M/s), {out[key]['wall']:.1f} ns wall; "
                  f"processor runs {', '.join(f'{c:.1f}' for c in cpus)}", flush=True)
    if "mcts1" in args.part:
        int16 = network(True)
        for name, net, sc, kw in (("playout", None, True, {}),
                                  ("float32", network(False), True, {}),
                                  ("int16", int16, True, {}),
                                  ("int16_minimax", int16, True, MINIMAX),
                                  ("int16_leaf_only", int16, False, {})):
            m, cpus = wall_and_cpu(lambda: (mcts_rate(1, net, score_children=sc, **kw),
                                            mcts_cpu_rate(net, score_children=sc, **kw)),
                                   args.repeats)
            out[f"mcts1_{name}"] = m
            print(f"MCTS 1 thread, {name}: median {m['cpu']:,.0f} sims per processor s "
                  f"({', '.join(f'{c:,.0f}' for c in cpus)}); {m['wall']:,.0f} sims per wall s",
                  flush=True)
    if "threads" in args.part:
        for name, net in (("playout", None), ("int16", network(True)),
                          ("float32", network(False))):
            r1, r2, c1, c2 = [], [], [], []
            for _ in range(args.repeats):
                r1.append(mcts_rate(1, net))
                r2.append(mcts_rate(2, net))
                c1.append(mcts_cpu_rate(net, threads=1))
                c2.append(mcts_cpu_rate(net, threads=2))
            m1, m2 = statistics.median(r1), statistics.median(r2)
            # per processor second: two threads that slow each other down (memory,
            # shared cache lines) do fewer simulations per processor second
            e1, e2 = statistics.median(c1), statistics.median(c2)
            out[f"threads_{name}"] = {"t1": m1, "t2": m2, "ratio": m2 / m1,
                                      "cpu_t1": e1, "cpu_t2": e2, "cpu_ratio": 2 * e2 / e1}
            print(f"MCTS {name}: threads=1 {m1:,.0f}, threads=2 {m2:,.0f} sims per wall s: "
                  f"{m2 / m1:.2f}x; per processor s {e1:,.0f} (1 thread), {e2:,.0f} (2 threads): "
                  f"{2 * e2 / e1:.2f}x on two free cores", flush=True)
    if "alphabeta" in args.part:
        for key, depth, opts, fs, F in AB_CASES:
            rng = np.random.default_rng(0)
            net = CompiledValueNet(rng.normal(0, 0.1, (F, HIDDEN)), rng.normal(0.3, 0.2, HIDDEN),
                                   rng.normal(0, 0.1, HIDDEN), 0.0, fs, quantised=True)
            h = statistics.median(alphabeta_rate(key, depth, **opts) for _ in range(args.repeats))
            v = statistics.median(alphabeta_rate(key, depth, net, **opts)
                                  for _ in range(args.repeats))
            out[f"alphabeta_{key}"] = {"heuristic": h, "int16": v}
            print(f"alpha-beta {fs} depth {depth}: heuristic {h:,.0f}, int16 network {v:,.0f} "
                  "nodes per processor s", flush=True)
    out["load_average_end"] = os.getloadavg()
    print("load average", out["load_average"], "->", out["load_average_end"])
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)


@pytest.mark.parametrize("quantised", [False, True], ids=["float32", "int16"])
def test_bench_valuenet_eval(benchmark, quantised):
    net = network(quantised)
    b = uttt.Board()
    benchmark(net.bench_walk, b, 200_000, 1, 8)


def test_bench_valuenet_mcts(benchmark):
    net = network(True)
    b = uttt.Board()

    def run():
        m = MCTS(seed=1, value_network=net)
        m.search(b, simulations=50_000)
    benchmark(run)


if __name__ == "__main__":
    main()
