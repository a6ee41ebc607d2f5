"""Search benchmarks (pytest-benchmark): throughput goes to ``benchmark.extra_info``.

Run: ``PYTHONPATH=python python -m pytest bench/bench_search.py --benchmark-only``
(add ``--benchmark-json=out.json`` to keep the numbers).  The machine is shared,
so each benchmark also records CPU time of the calling thread (``time.thread_time``),
which load on the other core(s) disturbs less than wall time; compare medians.

Baselines measured in the same run: plain minimax (no pruning) for the
depth-first searches, bare random playouts (no tree) for MCTS.
"""
from conftest import pedantic_cpu
from ttt_engine import Board, MCTS
from ttt_engine.search import alphabeta, minimax, negamax
from ttt_engine._core.algorithms.playout import random_playouts


def test_alphabeta_solve_empty(benchmark):
    """Bar: exact alpha-beta solve of the empty TTT board in <= 0.5 ms (OpenSpiel: 18.8 ms, 18,297 nodes)."""
    r, cpu = pedantic_cpu(benchmark, lambda: alphabeta(Board()), rounds=200, warmup_rounds=5)
    assert r.exact and r.value == 0.0
    med = benchmark.stats.stats.median
    benchmark.extra_info.update({
        "nodes": r.nodes, "median_ms": med * 1e3, "nodes_per_s": r.nodes / med,
        "cpu_ms_per_call": cpu * 1e3,
    })


def test_alphabeta_pruning_no_table_empty(benchmark):
    r, cpu = pedantic_cpu(benchmark, lambda: negamax(Board(), alphabeta=True), rounds=50,
                          warmup_rounds=2)
    med = benchmark.stats.stats.median
    benchmark.extra_info.update({"nodes": r.nodes, "median_ms": med * 1e3,
                                 "nodes_per_s": r.nodes / med,
                                 "cpu_ms_per_call": cpu * 1e3})


def test_minimax_full_tree(benchmark):
    """Baseline: plain minimax over the whole tree (549,946 nodes)."""
    r, cpu = pedantic_cpu(benchmark, lambda: minimax(Board()), rounds=10)
    assert r.nodes == 549_946
    med = benchmark.stats.stats.median
    benchmark.extra_info.update({"nodes": r.nodes, "median_ms": med * 1e3,
                                 "nodes_per_s": r.nodes / med,
                                 "cpu_nodes_per_s": r.nodes / cpu})


def _mcts_bench(benchmark, sims, rounds):
    m = MCTS(seed=1, reuse=False)
    _, cpu = pedantic_cpu(benchmark, lambda: m.search(Board(), simulations=sims), rounds=rounds)
    med = benchmark.stats.stats.median
    benchmark.extra_info.update({
        "simulations": sims, "simulations_per_s": sims / med,
        "cpu_simulations_per_s": sims / cpu,
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
    _, cpu = pedantic_cpu(benchmark, lambda: random_playouts(Board(), n, seed=1), rounds=5)
    med = benchmark.stats.stats.median
    benchmark.extra_info.update({"playouts_per_s": n / med,
                                 "cpu_playouts_per_s": n / cpu})
