"""A/B throughput of two builds of the engine, alternating runs in fresh processes.

Usage::

    python bench/ab_compare.py OLD_PYTHON_DIR NEW_PYTHON_DIR [--rounds 5]

Each round runs every workload once on A, then once on B (order alternating
between rounds), each in its own process; the table gives the median
throughput of each side and the ratio B/A.  On a shared machine single runs
are noisy: read ratios within about +-5% as equal.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

#: a random int16 network of the build's Connect Four feature set (whichever it is)
C4_NET = """
import numpy as np
from ttt_engine import connect4, games, search
from ttt_engine._core.algorithms.valuenet import CompiledValueNet, feature_set_of
rng = np.random.default_rng(0)
F = games.get("connect4").value_features.count(connect4.Board())
net = CompiledValueNet(rng.normal(0, 0.1, (F, 256)), rng.normal(0.3, 0.2, 256),
                       rng.normal(0, 0.1, 256), 0.0, feature_set_of(connect4.Board()),
                       quantised=True)"""

#: the same for Ultimate Tic-Tac-Toe
UTTT_NET = C4_NET.replace("connect4", "uttt")

WORKLOADS = {
    "perft uttt depth 7 (nodes/s)": """
from ttt_engine import uttt
b = uttt.Board()
uttt.perft(b, 1)   # loads the perft module (and the boards it dispatches over) untimed
t = clock(); n = uttt.perft(b, 7); dt = clock() - t
rate = n / dt""",
    "Connect Four solve 4444443, cold 256 MB table (nodes/s)": """
from ttt_engine import connect4
b = connect4.Board()
for m in (3, 3, 3, 3, 3, 3, 2):
    b.push(m)
t = clock(); r = connect4.solve(b, table_mb=256, book=False); dt = clock() - t
rate = r.nodes / dt""",
    "alpha-beta clobber 5x5 depth 7 (nodes/s)": """
from ttt_engine import clobber, search
b = clobber.Board(5, 5)
t = clock(); r = search.alphabeta(b, 7); dt = clock() - t
rate = r.nodes / dt""",
    "alpha-beta ttt solve x200 (solves/s)": """
from ttt_engine import ttt, search
b = ttt.Board()
t = clock()
for _ in range(200):
    search.alphabeta(b)
dt = clock() - t
rate = 200 / dt""",
    "MCTS uttt 200k simulations (sims/s)": """
from ttt_engine import uttt, search
m = search.MCTS(seed=1)
t = clock(); m.search(uttt.Board(), simulations=200_000); dt = clock() - t
rate = 200_000 / dt""",
    "MCTS quixo decisive 50k (sims/s)": """
from ttt_engine import quixo, search
m = search.MCTS(seed=1, playout="decisive")
t = clock(); m.search(quixo.Board(), simulations=50_000); dt = clock() - t
rate = 50_000 / dt""",
    "PUCT self-play uniform uttt (sims/s)": """
from ttt_engine.selfplay import selfplay
from ttt_engine.evaluators import UniformEvaluator
t = clock()
d = selfplay("uttt", UniformEvaluator(), games=16, simulations=400, seed=1)
dt = clock() - t
rate = d.stats["simulations"] / dt""",
    "PUCT uttt shipped network 0.5 s, one thread (sims/s)": """
from ttt_engine import uttt
from ttt_engine.agents import AZAgent
a = AZAgent(time=0.5, seed=3, solver=True)
b = uttt.Board()
a.select_move(b)   # loads the network and faults the arena in, untimed
a.reset()
t = clock(); a.select_move(b); dt = clock() - t
rate = a.last_stats["simulations"] / dt""",
    "MCTS connect4 int16 value network 500k (sims/s)": C4_NET + """
m = search.MCTS(seed=1, value_network=net)
t = clock(); m.search(connect4.Board(), simulations=500_000); dt = clock() - t
rate = 500_000 / dt""",
    "MCTS uttt int16 value network, every child scored, 300k (sims/s)": UTTT_NET + """
m = search.MCTS(seed=1, value_network=net, solver=True, max_nodes=6_000_000)
t = clock(); m.search(uttt.Board(), simulations=300_000); dt = clock() - t
rate = 300_000 / dt""",
    "value network walk uttt, int16, 4M evaluations (evals/s)": UTTT_NET + """
n, seconds, cpu, _ = net.bench_walk(uttt.Board(), 4_000_000, seed=1, depth=8)
rate = n / cpu""",
    "alpha-beta connect4 depth 9, int16 value network (nodes/s)": C4_NET + """
t = clock(); r = search.alphabeta(connect4.Board(), 9, value_network=net); dt = clock() - t
rate = r.nodes / dt""",
    "alpha-beta clobber 6x5 depth 8, int16 value network (nodes/s)": """
import numpy as np
from ttt_engine import clobber, games, search
from ttt_engine._core.algorithms.valuenet import CompiledValueNet
rng = np.random.default_rng(0)
b = clobber.Board(6, 5)
vf = games.get("clobber").value_features
net = CompiledValueNet(rng.normal(0, 0.1, (vf.count(b), 256)), rng.normal(0.3, 0.2, 256),
                       rng.normal(0, 0.1, 256), 0.0, vf.name(b), quantised=True)
t = clock(); r = search.alphabeta(b, 8, value_network=net); dt = clock() - t
rate = r.nodes / dt""",
    "Quixo 4x4 retrograde solve (positions/s)": """
from ttt_engine._core.solvers.quixo.solve import solve
t = clock(); s = solve(4); dt = clock() - t
rate = s.positions / dt""",
    "Quixo 4x4 tablebase build x10, one thread (builds/s)": """
import os, tempfile
from ttt_engine.quixo import tablebase
with tempfile.TemporaryDirectory() as d:
    t = clock()
    for i in range(10):
        tablebase.build(os.path.join(d, f"q{i}.tb"), size=4, threads=1, progress=False)
    dt = clock() - t
rate = 10 / dt""",
    "BatchEnv uttt 1024 random steps (steps/s)": """
from ttt_engine.envs import BatchEnv
e = BatchEnv("uttt", 1024, seed=1, autoreset=True)
t = clock()
for _ in range(300):
    e.step(e.random_actions())
dt = clock() - t
rate = 1024 * 300 / dt""",
    "Q-learning 1M episodes (episodes/s)": """
import ttt_engine
t = clock(); ttt_engine.train(episodes=1_000_000, seed=1, progress=False); dt = clock() - t
rate = 1_000_000 / dt""",
    "Q-learning greedy evaluation 2M games (games/s)": """
import numpy as np
from ttt_engine._core.learning.ttt import qlearning as ql
q = np.random.default_rng(0).normal(size=(19683, 9))
t = clock(); ql.evaluate_random(q, 2_000_000, 2, 1); dt = clock() - t
rate = 2_000_000 / dt""",
    "random playouts clobber 6x5 (games/s)": """
from ttt_engine import clobber
b = clobber.Board()
t = clock(); clobber.random_playouts(b, 200_000, seed=1); dt = clock() - t
rate = 200_000 / dt""",
    "Board push/pop quixo x100k (ops/s)": """
from ttt_engine import quixo
b = quixo.Board()
m = b.legal_moves[0]
t = clock()
for _ in range(100_000):
    b.push(m); b.pop()
dt = clock() - t
rate = 200_000 / dt""",
}

PRELUDE = "from time import perf_counter as clock\n"


def run_source(pydir, source, cores=None):
    """Run ``source`` in a fresh Python process that imports the engine from
    ``pydir`` (pinned to ``cores`` with ``taskset`` when given) and return the
    JSON of the last line it prints."""
    env = dict(os.environ, PYTHONPATH=pydir)
    cmd = [sys.executable, "-c", source]
    if cores is not None:
        cmd = ["taskset", "-c", cores, *cmd]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if out.returncode:
        raise SystemExit(f"workload failed under {pydir}:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def run(pydir, code):
    return run_source(pydir, PRELUDE + code + "\nimport json; print(json.dumps(rate))")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--only", default=None,
                    help="the workloads to run: substrings of their names, comma-separated")
    args = ap.parse_args()
    only = None if args.only is None else args.only.split(",")
    results = {k: ([], []) for k in WORKLOADS if only is None or any(o in k for o in only)}
    for r in range(args.rounds):
        for name in results:
            order = (0, 1) if r % 2 == 0 else (1, 0)
            for side in order:
                results[name][side].append(run((args.a, args.b)[side], WORKLOADS[name]))
        print(f"round {r + 1}/{args.rounds} done", file=sys.stderr)
    print("| workload | A median | B median | B/A |\n|---|---|---|---|")
    for name, (a, b) in results.items():
        ma, mb = statistics.median(a), statistics.median(b)
        print(f"| {name} | {ma:,.0f} | {mb:,.0f} | {mb / ma:.3f} |")


if __name__ == "__main__":
    main()
