"""A 4-engine UTTT round robin with simulation budgets: serial, on 2 local
worker processes and on a 2-worker Dask LocalCluster, in alternating rounds.

Checks that the three give the same table (simulation budgets are
reproducible) and prints the median wall time of each and the medians of the
per-round ratios (bars: process pool >= 1.8x serial; Dask within 15% of the
pool).  The pool and the cluster are started once, before the rounds, as a
user's would be; their start-up times are printed separately.

    PYTHONPATH=python python bench/tournament_scaling.py --rounds 3
    PYTHONPATH=python python bench/tournament_scaling.py --simulations 1000 --games 8 --json out.json
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

from ttt_engine._parallel import process_pool
from ttt_engine._util import atomic_write
from ttt_engine.tournament import SerialExecutor, round_robin

ENGINES = ["mcts", "treeq", "sarsa", "random"]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--simulations", type=int, default=1000, help="per move (default 1000)")
    p.add_argument("--games", type=int, default=8, help="games per pair (default 8)")
    p.add_argument("--block", type=int, default=None, help="games per task (default games/4)")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--no-dask", action="store_true")
    p.add_argument("--json", default=None)
    args = p.parse_args(argv)

    def play(ex):
        t0 = time.perf_counter()
        r = round_robin("uttt", ENGINES, args.games, simulations=args.simulations,
                        seed=args.seed, executor=ex, progress=False, bootstrap=0,
                        block=args.block)
        return time.perf_counter() - t0, r.table_by_colour

    load0 = os.getloadavg()
    t0 = time.perf_counter()
    pool = process_pool(2)
    list(pool.map(abs, range(4)))
    pool_start = time.perf_counter() - t0
    client = cluster = None
    if not args.no_dask:
        import distributed
        t0 = time.perf_counter()
        cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                           dashboard_address=None)
        client = distributed.Client(cluster)
        dask_start = time.perf_counter() - t0
    runs = {"serial": [], "pool": [], "dask": []}
    tables = {}
    try:
        for i in range(args.rounds):
            for name, ex in (("serial", SerialExecutor()), ("pool", pool),
                             ("dask", client.get_executor() if client else None)):
                if ex is None:
                    continue
                seconds, table = play(ex)
                runs[name].append(seconds)
                tables.setdefault(name, table)
                assert tables[name] == table
                print(f"round {i + 1}: {name:6s} {seconds:7.2f} s", flush=True)
    finally:
        pool.shutdown()
        if client is not None:
            client.close()
            cluster.close()
    load1 = os.getloadavg()
    same = all(t == tables["serial"] for t in tables.values())
    med = {k: statistics.median(v) for k, v in runs.items() if v}
    ratio_pool = statistics.median(s / p for s, p in zip(runs["serial"], runs["pool"]))
    out = {"simulations": args.simulations, "games_per_pair": args.games, "rounds": args.rounds,
           "median_seconds": med, "serial_over_pool": ratio_pool, "identical_tables": same,
           "pool_start_s": pool_start, "load_before": load0, "load_after": load1,
           "cpus": os.cpu_count()}
    print(f"\n4-engine UTTT round robin ({', '.join(ENGINES)}), {args.simulations} simulations "
          f"per move, {args.games} games per pair ({6 * args.games} games); "
          f"load average before {load0[0]:.2f}, after {load1[0]:.2f}")
    print("median wall time: " + ", ".join(f"{k} {v:.2f} s" for k, v in med.items()))
    print(f"serial / 2 processes: {ratio_pool:.2f}x (bar >= 1.8x); identical tables: {same}")
    if runs["dask"]:
        ratio_dask = statistics.median(d / p for d, p in zip(runs["dask"], runs["pool"]))
        out["dask_over_pool"] = ratio_dask
        out["dask_start_s"] = dask_start
        print(f"Dask LocalCluster(2) / process pool: {ratio_dask:.2f} (bar <= 1.15); "
              f"start-up: pool {pool_start:.2f} s, cluster {dask_start:.2f} s")
    if args.json:
        atomic_write(args.json, lambda f: f.write(json.dumps(out, indent=2).encode()))
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
