"""Both cores in one process: parallel UTTT MCTS and PUCT, and threads= for playouts.

Wall-clock rates (CPU time cannot show a parallel speed-up), k=1 and k=2 in the
same run, for plain MCTS, the strongest MCTS settings (MCTS-Solver, c = 0.8),
the network-guided search of the UTTT ``best`` preset (the shipped network
guiding PUCT with proofs) with root parallelism (``preset``: k trees) and with
tree parallelism (``preset_tree``: k threads on one tree, the preset's way on a
time budget), and random playouts.  Bar: ``threads=2`` reaches >= 1.85x the rate of ``threads=1``
for each.  The machine must be otherwise idle for the ratio to mean
anything (2 cores): the script form alternates k=1 and k=2 several times and
prints the medians with the load average::

    PYTHONPATH=python python -m pytest bench/bench_threads.py --benchmark-only
    PYTHONPATH=python python bench/bench_threads.py --repeats 7 [--json out.json]
"""
import argparse
import json
import os
import statistics
import sys
import time

import pytest
from ttt_engine import uttt
from ttt_engine.games import BEST_MCTS, get as get_game
from ttt_engine.search import MCTS

SIMS = 400_000          # per call, over all trees
#: per tree: an expansion keeps every child, about nine nodes a simulation, so
#: SIMS need about 3.6M nodes (checked: a full arena's simulations expand
#: nothing and ran about twice as fast; the figures of 2M-node trees compared a
#: filled tree, threads=1, with two unfilled ones)
NODES = 6_000_000
PLAYOUTS = 400_000
AZ_SECONDS = 0.5        # the network-guided preset's search time per measurement


def check_unfilled(m):
    """A tree whose arena filled up does cheap simulations from then on (no
    expansion): its rate would not be the search's.  Refuse the measurement."""
    full = [t.nodes_used for t in m._trees if t.nodes_used >= m.max_nodes - 1024]
    if full:
        raise RuntimeError(f"a tree filled its arena ({full[0]:,} of {m.max_nodes:,} nodes): "
                           "the rate would count simulations without expansion; "
                           "give more max_nodes or fewer simulations")


def mcts_rate(threads, sims=SIMS, seed=3, max_nodes=NODES, **settings):
    """Simulations per wall-clock second of one fresh UTTT search from the start
    (``settings``: further MCTS keywords, e.g. the ``best`` preset's)."""
    m = MCTS(seed=seed, max_nodes=max_nodes, threads=threads, **settings)
    b = uttt.Board()
    # fault the arenas' pages in outside the timing: a first search of this size
    # also pays the kernel for its huge pages (zeroing, compaction), which two
    # threads faulting at once contend for (docs/strength.md, "Threads")
    m.search(b, simulations=sims)
    m.reset()
    t = time.perf_counter()
    m.search(b, simulations=sims)
    dt = time.perf_counter() - t
    assert m.stats["simulations"] == sims
    check_unfilled(m)
    return sims / dt


def preset_rate(threads, seconds=AZ_SECONDS, seed=3, parallel="root"):
    """Simulations per wall-clock second of the UTTT ``best`` preset's first
    move on a time budget, its normal use (a fresh agent; one warm-up search
    outside the timing).  Root parallelism gives each thread the whole time,
    so the rate is the trees' simulations over the search's wall time.  (On a
    simulation budget the preset calls the network every 8 leaves, and two
    threads then wait on each other for the GIL in the network's Python
    code: docs/strength.md, "Threads".)  ``parallel="tree"``: the same
    network-guided search with every thread on one tree."""
    agent = get_game("uttt").make_agent("az", time=seconds, seed=seed, threads=threads,
                                        solver=True, parallel=parallel)
    b = uttt.Board()
    agent.select_move(b)
    agent.reset()
    t = time.perf_counter()
    agent.select_move(b)
    dt = time.perf_counter() - t
    return agent.last_stats["simulations"] / dt


def playout_rate(threads, n=PLAYOUTS):
    t = time.perf_counter()
    r = uttt.random_playouts(uttt.Board(), n, seed=1, threads=threads)
    dt = time.perf_counter() - t
    assert r["games"] == n
    return n / dt


@pytest.mark.parametrize("threads", [1, 2])
def test_uttt_mcts_threads(benchmark, threads):
    m = MCTS(seed=3, max_nodes=NODES, threads=threads)
    b = uttt.Board()

    def search():
        m.reset()
        m.search(b, simulations=SIMS)
        return m.stats

    stats = benchmark.pedantic(search, rounds=5, iterations=1, warmup_rounds=1)
    assert stats["simulations"] == SIMS
    benchmark.extra_info.update({"unit": "simulations", "units": SIMS, "threads": threads,
                                 "per_s": SIMS / benchmark.stats.stats.median})


@pytest.mark.parametrize("threads", [1, 2])
def test_uttt_playouts_threads(benchmark, threads):
    r = benchmark.pedantic(
        lambda: uttt.random_playouts(uttt.Board(), PLAYOUTS, seed=1, threads=threads),
        rounds=5, iterations=1, warmup_rounds=1)
    assert r["games"] == PLAYOUTS
    benchmark.extra_info.update({"unit": "playouts", "units": PLAYOUTS, "threads": threads,
                                 "per_s": PLAYOUTS / benchmark.stats.stats.median})


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--json", help="also write the numbers to this file")
    args = ap.parse_args(argv)
    load_before = os.getloadavg()
    rates = {"mcts": {1: [], 2: []}, "mcts_best": {1: [], 2: []}, "preset": {1: [], 2: []},
             "preset_tree": {1: [], 2: []}, "playouts": {1: [], 2: []}}
    for _ in range(args.repeats):           # alternate, so drifts in load hit both
        for k in (1, 2):
            rates["mcts"][k].append(mcts_rate(k))
            rates["mcts_best"][k].append(mcts_rate(k, **BEST_MCTS["uttt"]))
            rates["preset"][k].append(preset_rate(k))
            rates["preset_tree"][k].append(preset_rate(k, parallel="tree"))
            rates["playouts"][k].append(playout_rate(k))
    load_after = os.getloadavg()
    out = {"repeats": args.repeats, "cpus": os.cpu_count(),
           "loadavg_before": load_before, "loadavg_after": load_after}
    for what, by_k in rates.items():
        med = {k: statistics.median(v) for k, v in by_k.items()}
        out[what] = {"median_per_s_k1": med[1], "median_per_s_k2": med[2],
                     "ratio_k2_k1": med[2] / med[1],
                     "ratios_per_repeat": [b / a for a, b in zip(by_k[1], by_k[2])]}
        print(f"{what:11s} k=1 {med[1] / 1e6:6.2f} M/s   k=2 {med[2] / 1e6:6.2f} M/s   "
              f"ratio {med[2] / med[1]:.2f}")
    print(f"load average before {load_before[0]:.2f}, after {load_after[0]:.2f} "
          f"({os.cpu_count()} cpus)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
