"""What ``progress=`` costs the Connect Four solver: the same solves with and
without a progress callable, alternating, each in a fresh process.

    taskset -c 1 python bench/connect4_progress.py [--rounds 7] [--moves 1234567]

Prints the median nodes a second of each and the ratio (with / without).  On a
shared machine read ratios within about +-5% as equal.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

SOURCE = """
import json, time
from ttt_engine.connect4 import solver
b = solver.from_moves({moves!r})
calls = []
t = time.perf_counter()
r = solver.solve(b, table_mb=256, progress={progress})
dt = time.perf_counter() - t
print(json.dumps([r.nodes / dt, len(calls)]))
"""


def run(moves, progress):
    env = dict(os.environ, PYTHONPATH=os.path.join(os.path.dirname(__file__), "..", "python"))
    code = SOURCE.format(moves=moves, progress="calls.append" if progress else "False")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--moves", default="1234567", help="the position (about 7 M nodes)")
    args = ap.parse_args()
    rates = {False: [], True: []}
    reports = []
    for r in range(args.rounds):
        for progress in ((False, True) if r % 2 == 0 else (True, False)):
            rate, calls = run(args.moves, progress)
            rates[progress].append(rate)
            if progress:
                reports.append(calls)
        print(f"round {r + 1}/{args.rounds} done", file=sys.stderr)
    off, on = statistics.median(rates[False]), statistics.median(rates[True])
    print(f"| solve {args.moves} | without progress | with a callable | with / without |")
    print("|---|---|---|---|")
    print(f"| nodes/s (median of {args.rounds}) | {off:,.0f} | {on:,.0f} | {on / off:.3f} |")
    print(f"reports a solve: {min(reports)}-{max(reports)}")


if __name__ == "__main__":
    main()
