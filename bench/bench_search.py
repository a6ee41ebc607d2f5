"""Search benchmarks (pytest-benchmark): throughput goes to ``benchmark.extra_info``.

Run: ``PYTHONPATH=python python -m pytest bench/bench_search.py --benchmark-only``
(add ``--benchmark-json=out.json`` to keep the numbers).  The machine is shared,
so each benchmark also records CPU time (``time.process_time``), which load on
the other core(s) disturbs less than wall time; compare medians.

Baselines measured in the same run: plain minimax (no pruning) for the
depth-first searches, bare random playouts (no tree) for MCTS.
"""
import time

from ttt_engine import Board, MCTS
from ttt_engine.search import alphabeta, minimax, negamax
from ttt_engine.playout import random_playouts



def _cpu(fn):
    """Wrap ``fn`` to accumulate CPU time and calls."""
    acc = {"cpu": 0.0, "calls": 0, "last": None}

    def run():
        t = time.process_time()
        acc["last"] = fn()
        acc["cpu"] += time.process_time() - t
        acc["calls"] += 1
        return acc["last"]
    return run, acc


def test_alphabeta_solve_empty(benchmark):
    """Bar: exact alpha-beta solve of the empty TTT board in <= 0.5 ms (OpenSpiel: 18.8 ms, 18,297 nodes)."""
    run, acc = _cpu(lambda: alphabeta(Board()))
    r = benchmark.pedantic(run, rounds=200, iterations=1, warmup_rounds=5)
    assert r.exact and r.value == 0.0
    med = benchmark.stats.stats.median
    benchmark.extra_info.update({
        "nodes": r.nodes, "median_ms": med * 1e3, "nodes_per_s": r.nodes / med,
        "cpu_ms_per_call": acc["cpu"] / acc["calls"] * 1e3,
    })


def test_alphabeta_pruning_no_table_empty(benchmark):
    run, acc = _cpu(lambda: negamax(Board(), alphabeta=True))
    r = benchmark.pedantic(run, rounds=50, iterations=1, warmup_rounds=2)
    med = benchmark.stats.stats.median
    benchmark.extra_info.update({"nodes": r.nodes, "median_ms": med * 1e3,
                                 "nodes_per_s": r.nodes / med,
                                 "cpu_ms_per_call": acc["cpu"] / acc["calls"] * 1e3})


def test_minimax_full_tree(benchmark):
    """Baseline: plain minimax over the whole tree (549,946 nodes)."""
    run, acc = _cpu(lambda: minimax(Board()))
    r = benchmark.pedantic(run, rounds=10, iterations=1, warmup_rounds=1)
    assert r.nodes == 549_946
    med = benchmark.stats.stats.median
    benchmark.extra_info.update({"nodes": r.nodes, "median_ms": med * 1e3,
                                 "nodes_per_s": r.nodes / med,
                                 "cpu_nodes_per_s": r.nodes * acc["calls"] / acc["cpu"]})


def _mcts_bench(benchmark, sims, rounds):
    m = MCTS(seed=1, reuse=False)
    run, acc = _cpu(lambda: m.search(Board(), simulations=sims))
    benchmark.pedantic(run, rounds=rounds, iterations=1, warmup_rounds=1)
    med = benchmark.stats.stats.median
    benchmark.extra_info.update({
        "simulations": sims, "simulations_per_s": sims / med,
        "cpu_simulations_per_s": sims * acc["calls"] / acc["cpu"],
        "nodes_used": m.stats["nodes_used"],
    })


def test_mcts_empty_100k(benchmark):
    """Bar: >= 4.5M simulations/s from the empty board (OpenSpiel MCTSBot: 1.1M/s)."""
    _mcts_bench(benchmark, 100_000, 15)


def test_mcts_empty_1m(benchmark):
    _mcts_bench(benchmark, 1_000_000, 5)


def test_mcts_empty_20k(benchmark):
    """The MCTSAgent(20,000) budget: small tree, mostly expansion."""
    _mcts_bench(benchmark, 20_000, 30)


def test_random_playouts_baseline(benchmark):
    """Baseline for MCTS: bare random playouts through the interface (no tree)."""
    n = 1_000_000
    run, acc = _cpu(lambda: random_playouts(Board(), n, seed=1))
    benchmark.pedantic(run, rounds=5, iterations=1, warmup_rounds=1)
    med = benchmark.stats.stats.median
    benchmark.extra_info.update({"playouts_per_s": n / med,
                                 "cpu_playouts_per_s": n * acc["calls"] / acc["cpu"]})
