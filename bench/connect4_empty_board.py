"""Solve Connect Four from the empty board and report the result, the nodes
and the CPU and wall seconds (one run; the table starts empty).

    nohup taskset -c 1 python bench/connect4_empty_board.py --weak > /tmp/c4_empty.log 2>&1 &
    python bench/connect4_empty_board.py --exact --table-mb 2048 --threads 2

The first player wins: the exact score is 1 (X wins with its 21st disc), the
only winning first move the centre column (d, column 4 of the notation).
Faulting the table's pages in is counted (it is part of a first solve).
"""
import argparse
import os
import platform
import time

from ttt_engine import connect4


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    kind = ap.add_mutually_exclusive_group()
    kind.add_argument("--weak", action="store_true", help="win/draw/loss only (the default)")
    kind.add_argument("--exact", action="store_true", help="the exact score")
    ap.add_argument("--table-mb", type=int, default=connect4.connect4_solve.DEFAULT_TABLE_MB)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--moves", default="", help="a position in the test-set notation (default: empty)")
    args = ap.parse_args()
    board = connect4.from_moves(args.moves)
    cpu0 = time.process_time()
    wall0 = time.perf_counter()
    r = connect4.solve(board, weak=not args.exact, table_mb=args.table_mb, threads=args.threads)
    cpu = time.process_time() - cpu0
    wall = time.perf_counter() - wall0
    affinity = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else "?"
    print(f"position {args.moves or '(empty)'}: {'exact' if args.exact else 'weak'} "
          f"table {args.table_mb} MB threads {args.threads} cores {affinity}")
    print(f"value {r.value} score {r.score} best move {r.best_move} nodes {r.nodes:,}")
    print(f"cpu {cpu:.1f} s wall {wall:.1f} s  ({r.nodes / max(cpu, 1e-9) / 1e6:.2f} M nodes per CPU s)")
    print(f"{platform.processor() or platform.machine()} {time.strftime('%Y-%m-%d %H:%M')}")


if __name__ == "__main__":
    main()
