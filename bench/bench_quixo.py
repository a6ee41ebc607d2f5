"""Quixo benchmarks (pytest-benchmark): random games/s, perft, stage B, solver.

    PYTHONPATH=python python -m pytest bench/bench_quixo.py -q --benchmark-only

Bars (docs/performance.md): random vs random >= 500,000 complete 5x5 games/s on one core;
stage B (100,000 games scored + JSON written) <= 10 s.  The machine is shared:
read medians, and the CPU-time figures in ``extra_info``.
"""
import time

import pytest

from ttt_engine import quixo
from ttt_engine._core.learning.quixo.tournament import random_games_per_second

N_GAMES = 200_000


def _cpu(f):
    c = time.thread_time()
    r = f()
    return r, time.thread_time() - c


@pytest.mark.parametrize("size", [5, 4, 3])
def test_random_games_per_second(benchmark, size):
    (xw, ow, dr, plies), cpu = _cpu(lambda: random_games_per_second(N_GAMES, size, 200, 1))
    benchmark.pedantic(random_games_per_second, args=(N_GAMES, size, 200, 1), rounds=5, iterations=1)
    wall = benchmark.stats.stats.median
    benchmark.extra_info.update(games=N_GAMES, games_per_s_wall_median=round(N_GAMES / wall),
                                games_per_s_cpu=round(N_GAMES / cpu), mean_plies=plies / N_GAMES,
                                x_wins=xw, o_wins=ow, draws=dr)


def test_tournament_random_vs_random(benchmark):
    def run():
        return quixo.run_games(N_GAMES, quixo.RandomAgent(), quixo.RandomAgent(), seed=1)
    benchmark.pedantic(run, rounds=5, iterations=1)
    benchmark.extra_info.update(games_per_s_wall_median=round(N_GAMES / benchmark.stats.stats.median))


@pytest.mark.parametrize("depth", [3, 4])
def test_perft_5x5(benchmark, depth):
    b = quixo.Board()
    n = benchmark.pedantic(b.perft, args=(depth,), rounds=3, iterations=1)
    benchmark.extra_info.update(leaves=n, leaves_per_s=round(n / benchmark.stats.stats.median))


def test_stage_b_100k_games_with_json(benchmark, tmp_path):
    path = tmp_path / "states_random.json"
    parts = {}

    def run():
        t0 = time.perf_counter()
        table, _ = quixo.collect_values(100_000, seed=1)
        t1 = time.perf_counter()
        nbytes = quixo.save_values(table, path)
        parts.update(play_and_score_s=round(t1 - t0, 3), json_s=round(time.perf_counter() - t1, 3),
                     states=len(table), json_mb=round(nbytes / 1e6, 1))
    (_, cpu) = _cpu(run)
    benchmark.pedantic(run, rounds=3, iterations=1)
    benchmark.extra_info.update(parts, cpu_s_one_run=round(cpu, 2))


@pytest.mark.parametrize("fmt", ["binary", "json"])
def test_value_file_write_and_read(benchmark, tmp_path, fmt):
    """The stage-B table (100k random games) written and read back in each format."""
    table, _ = quixo.collect_values(100_000, seed=1)
    path = tmp_path / ("states.json" if fmt == "json" else "states.npz")
    info = {}

    def run():
        t0 = time.process_time()
        nbytes = quixo.save_values(table, path, fmt)
        t1 = time.process_time()
        quixo.load_values(path)
        info.update(mb=round(nbytes / 1e6, 1), bytes_per_state=round(nbytes / len(table), 2),
                    write_cpu_s=round(t1 - t0, 3), read_cpu_s=round(time.process_time() - t1, 3))
    benchmark.pedantic(run, rounds=3, iterations=1)
    benchmark.extra_info.update(info, states=len(table))


def test_solve_3x3(benchmark):
    from ttt_engine._core.solvers.quixo import solve as quixo_solve
    s = benchmark.pedantic(quixo_solve.solve, args=(3,), rounds=3, iterations=1)
    benchmark.extra_info.update(s.summary())
