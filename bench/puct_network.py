"""PUCT with the shipped Ultimate Tic-Tac-Toe network: two builds, alternating runs.

Usage::

    python bench/puct_network.py OLD_PYTHON_DIR NEW_PYTHON_DIR [--rounds 5] [--cores 0,1]
    python bench/puct_network.py --threads-ratio [--rounds 41]

``--threads-ratio``: this build only (the first ``python`` on the path), one
process, one-thread and two-thread searches of the same kind alternating
(``--rounds`` of each, the order swapped every round, each search object warmed
up once): the medians and threads=2 / threads=1.  One process with many
alternations follows a host whose speed drifts from minute to minute better
than one search a process.

Every leaf goes to the network (``playout_weight=0``, ``expand_after=0``),
batches of 8, 20,000 simulations from the start position after a warm-up search
of 2,000, with one thread and with ``threads=2`` (one tree).  Each round runs
every workload once on A and once on B (order alternating), each in a fresh
process pinned with ``taskset`` (one thread: the first core of ``--cores``; two
threads: both); the table gives medians and B/A, and threads=2 / threads=1 for
each side.  Both sides load the same network file (NEW's).

Then the network's share of each side's search: the batches one search gives
the network, recorded, and the forward pass alone timed on them -- numpy's
``Network.__call__`` batch by batch (what the search called until the
compiled pass) and the compiled pass (``Network.compiled.forward`` on all the
rows in one call: its rows do not depend on each other, so this is its cost
inside the search without a Python call per batch) -- over the search's
CPU time per side (CPU time: less disturbed by other processes than the wall
clock).  The machine is shared: the load average is printed with the
results.
"""
import argparse
import os
import statistics
import sys

from ab_compare import run_source     # this folder: run as python bench/puct_network.py

HERE = os.path.dirname(os.path.abspath(__file__))
NETWORK = os.path.join(HERE, os.pardir, "python", "ttt_engine", "networks", "uttt.npz")
SIMULATIONS = 20_000

SEARCH = """
import warnings
from time import perf_counter as clock, process_time
from ttt_engine import uttt
from ttt_engine.network import Network
from ttt_engine.search import PUCT
warnings.simplefilter("ignore")
net = Network.load({path!r})
p = PUCT(net, batch_size=8, playout_weight=0.0, expand_after=0, seed=1, reuse=False,
         max_nodes=1_000_000, threads={threads})
p.search(uttt.Board(), simulations=2000)     # loads everything and faults the arena in
c = process_time(); t = clock(); p.search(uttt.Board(), simulations={sims})
dt = clock() - t; dc = process_time() - c
print(json.dumps({{"rate": p.stats["simulations"] / dt, "time": dt, "cpu": dc}}))
"""

SHARE = """
import warnings
from time import process_time as clock
import numpy as np
from ttt_engine import uttt
from ttt_engine.network import Network
from ttt_engine.search import PUCT
warnings.simplefilter("ignore")
net = Network.load({path!r})
batches = []

def recording(obs, mask):
    batches.append((obs.copy(), mask.copy()))
    return net(obs, mask)

p = PUCT(recording, batch_size=8, playout_weight=0.0, expand_after=0, seed=1, reuse=False,
         max_nodes=1_000_000)
p.search(uttt.Board(), simulations={sims})
best = {{}}
for _ in range(3):
    t = clock()
    for obs, mask in batches:
        net(obs, mask)
    best["numpy"] = min(best.get("numpy", 1e9), clock() - t)
    if hasattr(net, "compiled"):
        rows = np.concatenate([o for o, _ in batches])
        t = clock(); net.compiled.forward(rows); dt = clock() - t
        best["compiled"] = min(best.get("compiled", 1e9), dt)
best["batches"] = len(batches)
print(json.dumps(best))
"""


RATIO = """
import statistics, warnings
from time import perf_counter as clock, process_time
from ttt_engine import uttt
from ttt_engine.network import Network
from ttt_engine.search import PUCT
warnings.simplefilter("ignore")
net = Network.load({path!r})
ps = {{k: PUCT(net, batch_size=8, playout_weight=0.0, expand_after=0, seed=1, reuse=False,
              max_nodes=1_000_000, threads=k) for k in (1, 2)}}
for p in ps.values():
    p.search(uttt.Board(), simulations={sims})
rate = {{1: [], 2: []}}
cpu = {{1: [], 2: []}}
for r in range({rounds}):
    for k in ((1, 2) if r % 2 == 0 else (2, 1)):
        c = process_time(); t = clock(); ps[k].search(uttt.Board(), simulations={sims})
        dt = clock() - t; dc = process_time() - c
        rate[k].append({sims} / dt); cpu[k].append({sims} / dc)
print(json.dumps({{"rate": {{k: statistics.median(v) for k, v in rate.items()}},
                  "cpu": {{k: statistics.median(v) for k, v in cpu.items()}}}}))
"""


def threads_ratio(rounds):
    """threads=2 / threads=1 of this build, alternating in one process."""
    import json
    import subprocess
    code = "import json\n" + RATIO.format(path=os.path.abspath(NETWORK), sims=SIMULATIONS,
                                          rounds=rounds)
    out = json.loads(subprocess.run([sys.executable, "-c", code], check=True,
                                    capture_output=True, text=True).stdout)
    r, c = out["rate"], out["cpu"]
    print(f"PUCT uttt shipped network, batch 8, {SIMULATIONS:,} simulations, {rounds} rounds "
          f"alternating in one process (load average {os.getloadavg()[0]:.2f}):")
    print(f"  threads=1 {r['1']:,.0f} simulations/s ({c['1']:,.0f} a CPU second)")
    print(f"  threads=2 {r['2']:,.0f} simulations/s ({c['2']:,.0f} a CPU second)")
    print(f"  threads=2 / threads=1 = {r['2'] / r['1']:.3f}")


def run(pydir, code, cores):
    return run_source(pydir, "import json\n" + code, cores)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("a", nargs="?")
    ap.add_argument("b", nargs="?")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--cores", default="0,1", help="two cores: the first runs one thread")
    ap.add_argument("--threads-ratio", action="store_true",
                    help="this build only: threads=2 / threads=1 alternating in one process")
    args = ap.parse_args()
    if args.rounds < 1:
        ap.error(f"--rounds must be at least 1, got {args.rounds}")
    if args.threads_ratio:
        return threads_ratio(args.rounds)
    if not (args.a and args.b):
        ap.error("two builds' python folders (OLD NEW) are needed, or --threads-ratio")
    one_core = args.cores.split(",")[0]
    path = os.path.abspath(NETWORK)
    work = {1: (SEARCH.format(path=path, threads=1, sims=SIMULATIONS), one_core),
            2: (SEARCH.format(path=path, threads=2, sims=SIMULATIONS), args.cores)}
    rates = {(t, side): [] for t in work for side in (0, 1)}
    times = {(t, side): [] for t in work for side in (0, 1)}
    cpu = {(t, side): [] for t in work for side in (0, 1)}
    for r in range(args.rounds):
        for threads, (code, cores) in work.items():
            for side in ((0, 1) if r % 2 == 0 else (1, 0)):
                out = run((args.a, args.b)[side], code, cores)
                rates[threads, side].append(out["rate"])
                times[threads, side].append(out["time"])
                cpu[threads, side].append(out["cpu"])
        print(f"round {r + 1}/{args.rounds} done", file=sys.stderr)
    print(f"load average before the shares: {os.getloadavg()}")
    print("| PUCT uttt shipped network, batch 8, 20k sims (sims/s) | A median | B median | "
          "B/A |\n|---|---|---|---|")
    med = {k: statistics.median(v) for k, v in rates.items()}
    for threads in work:
        a, b = med[threads, 0], med[threads, 1]
        print(f"| threads={threads} (taskset -c {work[threads][1]}) | {a:,.0f} | {b:,.0f} | "
              f"{b / a:.2f} |")
    print(f"| threads=2 / threads=1 | {med[2, 0] / med[1, 0]:.2f} | {med[2, 1] / med[1, 1]:.2f} "
          "| |")
    # CPU seconds per wall second of the two-thread runs: about 2 only when both
    # threads had a core of their own; near 1 the ratio above measures the load
    a, b = (statistics.median(c / t for c, t in zip(cpu[2, side], times[2, side]))
            for side in (0, 1))
    print(f"| threads=2: CPU s per wall s (2 = two cores the whole time) | {a:.2f} | {b:.2f} "
          "| |")
    for threads in work:
        a, b = (SIMULATIONS / statistics.median(cpu[threads, side]) for side in (0, 1))
        print(f"| threads={threads}, per CPU second (less sensitive to the load) | {a:,.0f} | "
              f"{b:,.0f} | {b / a:.2f} |")
    print("\nthe network's share of a one-thread search (CPU time of the forward pass alone "
          "on the search's batches / CPU time of the search):")
    share = SHARE.format(path=path, sims=SIMULATIONS)
    for side, name, key in ((0, "A", "numpy"), (1, "B", "compiled")):
        out = run((args.a, args.b)[side], share, one_core)
        search = statistics.median(cpu[1, side])
        print(f"  {name}: {out['batches']} batches; numpy forward {out['numpy'] * 1e3:.1f} ms"
              + (f", compiled forward {out['compiled'] * 1e3:.1f} ms" if "compiled" in out
                 else "")
              + f"; search {search * 1e3:.1f} ms -> {key} share {out[key] / search:.0%}")
    print(f"load average: {os.getloadavg()}")


if __name__ == "__main__":
    main()
