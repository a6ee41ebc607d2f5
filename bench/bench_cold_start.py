"""The first Tic-Tac-Toe ``solve()`` of a process, modules already imported.

Bar (docs/performance.md): <= 0.1 ms.  The module-level search functions keep
one alpha-beta searcher per thread and table size; a Tic-Tac-Toe board gets a
table sized to the game (``Board.SEARCH_TT_SIZE`` entries), so the first solve
touches 24 KB instead of a big game's 6 MB table.

    PYTHONPATH=python python -m pytest bench/bench_cold_start.py --benchmark-only
    PYTHONPATH=python python bench/bench_cold_start.py --processes 20   # fresh processes

Importing ``ttt_engine.search`` runs no search (it knows no game to warm up
on): the first solve makes the thread's searcher and pays its first-call
costs.  The benchmark emulates a fresh process by dropping the thread's
searchers before every round; the script starts real processes and prints
the median first solve (``X...O....``) and the second (the empty board, 3,000
nodes of work).
"""
import argparse
import json
import statistics
import subprocess
import sys

from ttt_engine import Board, search

CHILD = """
import json, time
from ttt_engine import Board
from ttt_engine.search import solve
b = Board.from_string("X...O....")
t0 = time.perf_counter(); v1 = solve(b); t1 = time.perf_counter()
v2 = solve(Board()); t2 = time.perf_counter()
print(json.dumps({"first_ms": (t1 - t0) * 1e3, "second_ms": (t2 - t1) * 1e3, "v": [v1, v2]}))
"""


def _fresh():
    search._local.searchers = {}


def test_first_solve_in_a_fresh_searcher(benchmark):
    """Bar: <= 0.1 ms (median)."""
    board = Board.from_string("X...O....")
    v = benchmark.pedantic(lambda: search.solve(board), setup=_fresh, rounds=100,
                           warmup_rounds=2)
    assert v == 0      # X in a corner, O in the centre: a draw
    benchmark.extra_info.update({"unit": "solves", "units": 1,
                                 "median_ms": benchmark.stats.stats.median * 1e3})


def main(argv=None):
    p = argparse.ArgumentParser(description="first solve() in fresh processes")
    p.add_argument("--processes", type=int, default=20)
    args = p.parse_args(argv)
    rows = []
    for _ in range(args.processes):
        out = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True,
                             check=True).stdout
        rows.append(json.loads(out))
    first = statistics.median(r["first_ms"] for r in rows)
    second = statistics.median(r["second_ms"] for r in rows)
    print(f"{args.processes} fresh processes: first solve() median {first:.3f} ms "
          f"(max {max(r['first_ms'] for r in rows):.3f}), second {second:.3f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
