"""Exact retrograde solve of small Quixo boards (results in docs/quixo.md).

    PYTHONPATH=python python bench/quixo_solve.py 3 4

4x4: 3**16 = 43,046,721 slots x 4 bytes (~200 MB resident), tens of seconds.
"""
import resource
import sys
import time

from ttt_engine._core.solvers.quixo import solve as quixo_solve


def main(sizes):
    for n in sizes:
        c = time.thread_time()
        s = quixo_solve.solve(int(n))
        cpu = time.thread_time() - c
        d = s.summary()
        print(f"{n}x{n}: first player {d['start']}s in {d['start_plies']} plies; "
              f"{d['positions']:,} non-terminal positions (of {d['slots']:,} slots, "
              f"{d['terminal']:,} with a line): {d['wins']:,} wins / {d['losses']:,} losses / "
              f"{d['draws']:,} draws for the side to move; {d['levels']} levels; "
              f"{d['seconds']:.2f} s wall, {cpu:.2f} s CPU; "
              f"max RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB",
              flush=True)


if __name__ == "__main__":
    main(sys.argv[1:] or ["3", "4"])
