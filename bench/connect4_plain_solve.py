"""CPU per call of a plain ``connect4.solve(board)`` over a set of test positions,
the table's setup included: each run is a fresh process that solves every
position of ``bench/data/connect4/<kind>.txt`` in turn with the default
arguments (1024 MB table, one thread), each call timed by ``time.process_time``
(the first call allocates the table; every page the solves fault in counts),
and checks every score against the file.

    python bench/connect4_plain_solve.py [--kind begin-easy] [--runs 5] [--against DIR] [--no-book]

``--against DIR``: another build's Python directory (say ``/work/main/python``),
run alternately with this checkout's in the same session, so that the two are
compared under the same load.  Prints, per run, the mean and median CPU per
call, the first call's, the mean nodes and the process's peak memory; then the
median of the runs' means.  ``--no-book``: ``book=False``, the solver alone
(by default a position the shipped opening book holds, up to 8 discs, is
answered from it, and the first such call loads the book).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data", "connect4")
OWN = os.path.join(os.path.dirname(HERE), "python")

CHILD = r"""
import json, resource, sys, time
from ttt_engine import connect4
rows = [line.split() for line in open(sys.argv[1], encoding="utf-8") if line.strip()]
boards = [connect4.from_moves(m) for m, _ in rows]
cpu, nodes = [], []
kw = {"book": False} if sys.argv[2] == "no-book" else {}
for b, (m, s) in zip(boards, rows):
    t0 = time.process_time()
    r = connect4.solve(b, **kw)
    cpu.append(time.process_time() - t0)
    if r.score != int(s):
        sys.exit(f"{m}: score {r.score}, the file says {s}")
    nodes.append(r.nodes)
print(json.dumps({"cpu": cpu, "nodes": nodes,
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def run_once(python_dir, path, book):
    env = dict(os.environ, PYTHONPATH=python_dir)
    out = subprocess.run([sys.executable, "-c", CHILD, path, "book" if book else "no-book"],
                         env=env, check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kind", default="begin-easy")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--against", metavar="DIR", help="another build's python directory")
    ap.add_argument("--no-book", action="store_true", help="book=False: the solver alone")
    args = ap.parse_args(argv)
    path = os.path.join(DATA, f"{args.kind}.txt")
    if not os.path.exists(path):
        ap.error(f"{path} not found (bench/connect4_sets.py generate --seed 1)")
    sides = [("this", OWN)] + ([("against", args.against)] if args.against else [])
    means = {name: [] for name, _ in sides}
    for i in range(args.runs):
        order = sides if i % 2 == 0 else sides[::-1]
        for name, d in order:
            r = run_once(d, path, not args.no_book)
            cpu = r["cpu"]
            means[name].append(statistics.fmean(cpu))
            print(f"run {i + 1} {name:8s} mean {statistics.fmean(cpu) * 1e3:.3f} ms/call  "
                  f"median {statistics.median(cpu) * 1e3:.3f} ms  first {cpu[0] * 1e3:.2f} ms  "
                  f"mean nodes {statistics.fmean(r['nodes']):.0f}  peak {r['peak_mb']:.0f} MB",
                  flush=True)
    for name, _ in sides:
        m = means[name]
        print(f"{name}: {len(m)} runs of {args.kind}, mean CPU per call "
              f"{statistics.median(m) * 1e3:.3f} ms by the median of the runs "
              f"({min(m) * 1e3:.3f}-{max(m) * 1e3:.3f})")


if __name__ == "__main__":
    main()
