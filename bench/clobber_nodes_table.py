"""Minimax vs alpha-beta vs alpha-beta with table and ordering on the 6x5
start: value and nodes per depth (a Markdown table), through the game interface.

    PYTHONPATH=python python bench/clobber_nodes_table.py [heuristic=safe] [max_depth=8]

Minimax (no pruning) stops at depth 5 (about 75M nodes); the values of the
three must agree at every depth (the script asserts it).
"""
import sys
import time

from ttt_engine import clobber as C
from ttt_engine import search as S


def timed(fn):
    t0 = time.thread_time()
    r = fn()
    return r, time.thread_time() - t0


def main(name="safe", max_depth=8):
    b = C.Board(6, 5)
    h = C.heuristic_id(name, "B")
    print(f"heuristic {name} (B's point of view); CPU seconds")
    print("| depth | value | minimax nodes | alpha-beta nodes | alpha-beta+table+ordering nodes "
          "| minimax s | alpha-beta s | a-b+TT s |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for d in range(1, max_depth + 1):
        mm, tmm = timed(lambda: S.minimax(b, d, heuristic=h)) if d <= 5 else (None, None)
        ab, tab = timed(lambda: S.minimax(b, d, heuristic=h, alphabeta=True))
        tt, ttt = timed(lambda: S.alphabeta(b, d, heuristic=h))
        assert ab.value == tt.value and (mm is None or mm.value == ab.value), d
        print(f"| {d} | {ab.value:g} | {f'{mm.nodes:,}' if mm else '-'} | {ab.nodes:,} | {tt.nodes:,} | "
              f"{f'{tmm:.3f}' if mm else '-'} | {tab:.3f} | {ttt:.3f} |", flush=True)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "safe", int(sys.argv[2]) if len(sys.argv) > 2 else 8)
