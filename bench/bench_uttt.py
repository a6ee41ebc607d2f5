"""Ultimate Tic-Tac-Toe benchmarks (pytest-benchmark); throughput in ``extra_info``.

Run: ``PYTHONPATH=python python -m pytest bench/bench_uttt.py --benchmark-only``
(``--benchmark-json=out.json`` keeps the numbers).  The machine is shared, so
every benchmark records CPU time (``time.process_time``) as well as wall time;
compare medians of several runs.  Baseline measured in the same run: bare
random playouts from the start position (``uttt.random_playouts``), against
which MCTS simulations (one playout each) are compared.

Bar (issue 5): MCTS from the initial position >= 1,000,000 simulations/s with
one random playout per simulation (OpenSpiel's C++ MCTSBot: 94,000/s).
"""
import time

from ttt_engine import uttt
from ttt_engine.search import MCTS
from ttt_engine.tree_agents import SarsaAgent, TreeQAgent

PLAYOUTS = 200_000
SIMS = 200_000
MCTS_BAR = 1_000_000


def _cpu(fn):
    acc = {"cpu": 0.0, "calls": 0, "last": None}

    def run():
        t = time.process_time()
        acc["last"] = fn()
        acc["cpu"] += time.process_time() - t
        acc["calls"] += 1
        return acc["last"]
    return run, acc


def _playout_rate():
    """Bare random playouts/s from the start (CPU time), the in-run baseline."""
    t = time.process_time()
    uttt.random_playouts(PLAYOUTS, seed=1)
    return PLAYOUTS / (time.process_time() - t)


def test_uttt_perft(benchmark):
    """perft(6) from the start: 4,020,960 leaves (leaf counting at depth 1)."""
    run, acc = _cpu(lambda: uttt.perft(6))
    n = benchmark.pedantic(run, rounds=5, iterations=1, warmup_rounds=1)
    assert n == 4_020_960
    med = benchmark.stats.stats.median
    benchmark.extra_info.update({
        "leaves": n, "median_s": med, "leaves_per_s": n / med,
        "cpu_leaves_per_s": n * acc["calls"] / acc["cpu"],
    })


def test_uttt_random_playouts(benchmark):
    """Uniformly random games from the start, in place (``uttt_playout``)."""
    run, acc = _cpu(lambda: uttt.random_playouts(PLAYOUTS, seed=7))
    x, o, d, plies = benchmark.pedantic(run, rounds=5, iterations=1, warmup_rounds=1)
    assert x + o + d == PLAYOUTS
    med = benchmark.stats.stats.median
    benchmark.extra_info.update({
        "games": PLAYOUTS, "games_per_s": PLAYOUTS / med,
        "cpu_games_per_s": PLAYOUTS * acc["calls"] / acc["cpu"],
        "mean_plies": plies / PLAYOUTS, "moves_per_s": plies / med,
        "x_o_draw": [x / PLAYOUTS, o / PLAYOUTS, d / PLAYOUTS],
    })


def test_uttt_mcts_simulations(benchmark):
    """Search-core MCTS from the start, fresh tree each round, one playout per
    simulation; arena big enough that the tree never stops growing."""
    def search():
        m = MCTS(seed=3, max_nodes=4_000_000)
        m.search(uttt.Board(), simulations=SIMS)
        return m.stats
    run, acc = _cpu(search)
    stats = benchmark.pedantic(run, rounds=5, iterations=1, warmup_rounds=1)
    assert stats["root_visits"] == SIMS
    med = benchmark.stats.stats.median
    cpu_rate = SIMS * acc["calls"] / acc["cpu"]
    base = _playout_rate()
    benchmark.extra_info.update({
        "simulations": SIMS, "sims_per_s": SIMS / med, "cpu_sims_per_s": cpu_rate,
        "nodes_used": stats["nodes_used"],
        "baseline_cpu_playouts_per_s": base, "ratio_vs_bare_playouts": cpu_rate / base,
        "bar_sims_per_s": MCTS_BAR, "bar_met_cpu": cpu_rate >= MCTS_BAR,
        "bar_met_wall": SIMS / med >= MCTS_BAR,
    })


def test_uttt_mcts_simulations_expand_after_2(benchmark):
    """The same with the search core's ``expand_after=2`` (a leaf is expanded on
    its third visit; still one random playout per simulation): a smaller tree,
    fewer cache misses in selection."""
    def search():
        m = MCTS(seed=3, max_nodes=4_000_000, expand_after=2)
        m.search(uttt.Board(), simulations=SIMS)
        return m.stats
    run, acc = _cpu(search)
    stats = benchmark.pedantic(run, rounds=5, iterations=1, warmup_rounds=1)
    assert stats["root_visits"] == SIMS
    med = benchmark.stats.stats.median
    cpu_rate = SIMS * acc["calls"] / acc["cpu"]
    base = _playout_rate()
    benchmark.extra_info.update({
        "simulations": SIMS, "sims_per_s": SIMS / med, "cpu_sims_per_s": cpu_rate,
        "nodes_used": stats["nodes_used"],
        "baseline_cpu_playouts_per_s": base, "ratio_vs_bare_playouts": cpu_rate / base,
        "bar_sims_per_s": MCTS_BAR, "bar_met_cpu": cpu_rate >= MCTS_BAR,
        "bar_met_wall": SIMS / med >= MCTS_BAR,
    })


def _learner(cls):
    def bench(benchmark):
        def search():
            agent = cls(iterations=20_000, seed=5)
            agent.select_move(uttt.Board())
            return agent.last_stats
        run, acc = _cpu(search)
        stats = benchmark.pedantic(run, rounds=5, iterations=1, warmup_rounds=1)
        med = benchmark.stats.stats.median
        benchmark.extra_info.update({
            "simulations": stats["simulations"], "sims_per_s": stats["simulations"] / med,
            "cpu_sims_per_s": stats["simulations"] * acc["calls"] / acc["cpu"],
            "nodes_used": stats["nodes_used"], "tail_simulations": stats["tail_simulations"],
        })
    bench.__doc__ = f"{cls.__name__}: 20,000 training simulations from the start (fresh tree)."
    return bench


test_uttt_treeq_simulations = _learner(TreeQAgent)
test_uttt_sarsa_simulations = _learner(SarsaAgent)
