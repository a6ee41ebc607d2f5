"""Solve every standard Clobber start position r x c (r <= c; c x r is the same
game) within a time budget per board; prints a Markdown table row per board.

    PYTHONPATH=python python bench/clobber_solve_table.py [seconds=60] [tt_bits=24]

Each row of boards stops at its first board that does not finish in time.
"""
import sys
import time

from ttt_engine import clobber as C


def main(budget=60.0, tt_bits=24):
    print("| board | to move (B) | winner | nodes | table hits | CPU s | wall s |")
    print("|---|---|---|---:|---:|---:|---:|")
    solver = C.Solver(tt_bits)
    for r in range(1, 9):
        for c in range(r, 9):
            solver.clear()
            t0 = time.thread_time()
            res = solver.solve(C.Board(r, c), time_limit=budget)
            cpu = time.thread_time() - t0
            if res.win is None:
                print(f"| {r}x{c} | not solved in {budget:g} s | | >{res.nodes:,} | | {cpu:.1f} | "
                      f">{budget:g} |", flush=True)
                break
            print(f"| {r}x{c} | {'win' if res.win else 'loss'} | {res.winner} | {res.nodes:,} | "
                  f"{res.tt_hits:,} | {cpu:.3f} | {res.seconds:.3f} |", flush=True)


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 60.0,
         int(sys.argv[2]) if len(sys.argv) > 2 else 24)
