"""Connect Four exact solver on small sets of the standard kinds of positions
(pytest-benchmark).

    PYTHONPATH=python python -m pytest bench/bench_connect4_solve.py -q --benchmark-only

Each benchmark solves the first positions of ``bench/data/connect4/<kind>.txt``
(written by ``bench/connect4_sets.py generate --seed 1``) for their exact
score, the table emptied before each, and checks every score against the file.
``extra_info`` has the solver's own mean CPU time per position (measured in the
compiled loop, without the Python call) beside the reference solver's published
mean, and the mean nodes.  The empty board: ``bench/connect4_empty_board.py``.
"""
import os
import statistics

import pytest

from ttt_engine import connect4
from ttt_engine._core.solvers.connect4 import solve as _solve

DATA = os.path.join(os.path.dirname(__file__), "data", "connect4")
#: positions taken from each set (so that a call stays well under a second or two)
TAKE = {"end-easy": 200, "middle-easy": 100, "middle-medium": 20, "begin-easy": 200,
        "begin-medium": 10, "begin-hard": 2}
#: the reference solver's published means per position (strong solve)
PUBLISHED_MEAN_S = {"end-easy": 4.6e-6, "middle-easy": 37e-6, "middle-medium": 3.2e-3,
                    "begin-easy": 0.25e-3, "begin-medium": 97e-3, "begin-hard": 5.5}
TABLE_MB = connect4.connect4_solve.DEFAULT_TABLE_MB


def _read(kind):
    path = os.path.join(DATA, f"{kind}.txt")
    if not os.path.exists(path):
        pytest.skip(f"{path} not generated (bench/connect4_sets.py generate --seed 1)")
    with open(path, encoding="utf-8") as f:
        rows = [line.split() for line in f if line.strip()]
    return [(m, int(s)) for m, s in rows[:TAKE[kind]]]


@pytest.mark.parametrize("kind", list(TAKE))
def test_solve_kind(benchmark, kind):
    rows = _read(kind)
    boards = [connect4.from_moves(m) for m, _ in rows]
    last = []

    def run():
        last[:] = _solve.time_positions(boards, False, TABLE_MB)

    benchmark.pedantic(run, rounds=3 if kind != "begin-hard" else 1, iterations=1,
                       warmup_rounds=0)
    assert [r[0] for r in last] == [s for _, s in rows]
    mean_cpu = statistics.fmean(r[2] for r in last)
    mean_nodes = statistics.fmean(r[1] for r in last)
    benchmark.extra_info.update(
        unit="positions", units=len(rows), positions=len(rows),
        mean_cpu_s=mean_cpu, published_mean_s=PUBLISHED_MEAN_S[kind],
        mean_nodes=mean_nodes, nodes_per_cpu_s=mean_nodes / mean_cpu if mean_cpu else None)
