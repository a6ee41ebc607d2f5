"""Ultimate Tic-Tac-Toe benchmarks (pytest-benchmark); throughput in ``extra_info``.

Run: ``PYTHONPATH=python python -m pytest bench/bench_uttt.py --benchmark-only``
(``--benchmark-json=out.json`` keeps the numbers).  The machine is shared, so
every benchmark records the calling thread's CPU time (``time.thread_time``) as
well as wall time; compare medians of several runs.  Baseline measured in the
same run: bare random playouts from the start position
(``uttt.random_playouts``), against which MCTS simulations (one playout each)
are compared.

Bar (docs/performance.md): MCTS from the initial position >= 1,000,000 simulations/s with
one random playout per simulation (OpenSpiel's C++ MCTSBot: 94,000/s).
"""
import time

import pytest

from conftest import pedantic_cpu
from ttt_engine import uttt
from ttt_engine.search import MCTS
from ttt_engine.tree_agents import SarsaAgent, TreeQAgent

PLAYOUTS = 200_000
SIMS = 200_000
MCTS_BAR = 1_000_000


def _playout_rate():
    """Bare random playouts/s from the start (thread CPU time), the in-run baseline."""
    t = time.thread_time()
    uttt.random_playouts(uttt.Board(), PLAYOUTS, seed=1)
    return PLAYOUTS / (time.thread_time() - t)


def test_uttt_perft(benchmark):
    """perft(6) from the start: 4,020,960 leaves (leaf counting at depth 1)."""
    n, cpu = pedantic_cpu(benchmark, lambda: uttt.perft(uttt.Board(), 6), rounds=5)
    assert n == 4_020_960
    med = benchmark.stats.stats.median
    benchmark.extra_info.update({
        "leaves": n, "median_s": med, "leaves_per_s": n / med, "cpu_leaves_per_s": n / cpu,
    })


def test_uttt_random_playouts(benchmark):
    """Uniformly random games from the start, in place (the game's playout)."""
    r, cpu = pedantic_cpu(
        benchmark, lambda: uttt.random_playouts(uttt.Board(), PLAYOUTS, seed=7), rounds=5)
    x, o, d = r["first_wins"], r["second_wins"], r["draws"]
    assert x + o + d == PLAYOUTS
    med = benchmark.stats.stats.median
    benchmark.extra_info.update({
        "games": PLAYOUTS, "games_per_s": PLAYOUTS / med, "cpu_games_per_s": PLAYOUTS / cpu,
        "x_o_draw": [x / PLAYOUTS, o / PLAYOUTS, d / PLAYOUTS],
    })


@pytest.mark.parametrize("expand_after", [0, 1], ids=["default", "expand_after_1"])
def test_uttt_mcts_simulations(benchmark, expand_after):
    """Search-core MCTS from the start, fresh tree each round (the arena is
    allocated inside the timed call), one playout per simulation; arena big
    enough that the tree never stops growing.  ``default``: a leaf is expanded
    on its first visit (classic UCT), the set-up of the bar.  ``expand_after_1``:
    on its second visit, OpenSpiel MCTSBot's rule."""
    def search():
        m = MCTS(seed=3, max_nodes=4_000_000, expand_after=expand_after)
        m.search(uttt.Board(), simulations=SIMS)
        return m.stats
    stats, cpu = pedantic_cpu(benchmark, search, rounds=5)
    assert stats["root_visits"] == SIMS
    med = benchmark.stats.stats.median
    base = _playout_rate()
    benchmark.extra_info.update({
        "simulations": SIMS, "sims_per_s": SIMS / med, "cpu_sims_per_s": SIMS / cpu,
        "nodes_used": stats["nodes_used"],
        "baseline_cpu_playouts_per_s": base, "ratio_vs_bare_playouts": SIMS / cpu / base,
        "bar_sims_per_s": MCTS_BAR, "bar_met_cpu": SIMS / cpu >= MCTS_BAR,
        "bar_met_wall": SIMS / med >= MCTS_BAR,
    })


def _learner(cls):
    def bench(benchmark):
        def search():
            agent = cls(iterations=20_000, seed=5)
            agent.select_move(uttt.Board())
            return agent.last_stats
        stats, cpu = pedantic_cpu(benchmark, search, rounds=5)
        med = benchmark.stats.stats.median
        benchmark.extra_info.update({
            "simulations": stats["simulations"], "sims_per_s": stats["simulations"] / med,
            "cpu_sims_per_s": stats["simulations"] / cpu,
            "nodes_used": stats["nodes_used"], "tail_simulations": stats["tail_simulations"],
        })
    bench.__doc__ = f"{cls.__name__}: 20,000 training simulations from the start (fresh tree)."
    return bench


test_uttt_treeq_simulations = _learner(TreeQAgent)
test_uttt_sarsa_simulations = _learner(SarsaAgent)
