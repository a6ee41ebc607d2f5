"""Clobber benchmarks (pytest-benchmark): search node rates through the game
interface, perft, the exact solver.

    PYTHONPATH=python python -m pytest bench/bench_clobber.py --benchmark-only

``extra_info`` records nodes (or leaves) and the rate of the last round, so the
JSON output (``--benchmark-json``) has nodes/s next to the times.  The machine
is shared: compare medians of several runs, and prefer CPU time
(``cpu_seconds`` / ``*_per_cpu_s`` in extra_info) when it is loaded.
"""
import time

import pytest

from ttt_engine import clobber as C
from ttt_engine import search as S

START = C.Board(6, 5)
H_SAFE_B = C.heuristic_id("safe", "B")


def _run(benchmark, fn, count_attr="nodes"):
    info = {}

    def once():
        t0 = time.thread_time()
        r = fn()
        info["cpu"] = time.thread_time() - t0
        info["r"] = r
        return r

    benchmark.pedantic(once, rounds=3, iterations=1, warmup_rounds=0)
    r = info["r"]
    n = getattr(r, count_attr) if count_attr else r
    benchmark.extra_info[count_attr or "count"] = int(n)
    benchmark.extra_info["cpu_seconds"] = info["cpu"]
    benchmark.extra_info[f"{count_attr or 'count'}_per_cpu_s"] = n / info["cpu"] if info["cpu"] else None
    if hasattr(r, "value"):
        benchmark.extra_info["value"] = r.value
    return r


@pytest.mark.parametrize("depth", [6, 7, 8])
def test_alphabeta_tt_start(benchmark, depth):
    """Negamax alpha-beta with table + ordering (search core), safe-stones heuristic."""
    r = _run(benchmark, lambda: S.alphabeta(START, depth, heuristic=H_SAFE_B))
    benchmark.extra_info["nodes_per_wall_s"] = r.nodes / r.time


@pytest.mark.parametrize("depth", [6, 7, 8, 9])
@pytest.mark.parametrize("heuristic", ["safe", "own_moves", "centre", "adaptive"])
def test_alphabeta_tt16_start(benchmark, depth, heuristic):
    """Same with a 2**16-entry table (1.5 MB, the ClobberAgent default)."""
    searcher = S.ABSearcher(1 << 16)
    h = C.heuristic_id(heuristic, "B")
    r = _run(benchmark, lambda: S.alphabeta(START, depth, heuristic=h, searcher=searcher))
    benchmark.extra_info["nodes_per_wall_s"] = r.nodes / r.time


@pytest.mark.parametrize("depth", [6, 7])
def test_alphabeta_plain_start(benchmark, depth):
    """The seed's alpha-beta (MAX/MIN with pruning, no table, no ordering)."""
    r = _run(benchmark, lambda: S.minimax(START, depth, heuristic=H_SAFE_B, alphabeta=True))
    benchmark.extra_info["nodes_per_wall_s"] = r.nodes / r.time


def test_minimax_start_depth4(benchmark):
    """The seed's minimax (no pruning): every node of the depth-4 tree."""
    r = _run(benchmark, lambda: S.minimax(START, 4, heuristic=H_SAFE_B))
    benchmark.extra_info["nodes_per_wall_s"] = r.nodes / r.time


@pytest.mark.parametrize("depth", [4, 5])
def test_perft_start(benchmark, depth):
    _run(benchmark, lambda: C.perft(START, depth), count_attr=None)


@pytest.mark.parametrize("size", [(3, 8), (4, 5), (3, 7)])
def test_solve(benchmark, size):
    _run(benchmark, lambda: C.solve(C.Board(*size)))
