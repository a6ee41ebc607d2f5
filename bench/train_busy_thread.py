"""train() beside a busy Python thread: wall time quiet vs with a thread spinning in
Python (median of 3 each).  The training loop needs the GIL only a few times per run
and for its interrupt checks (measured numbers: docs/performance.md).

    PYTHONPATH=python python bench/train_busy_thread.py [episodes]
"""
import os
import statistics
import sys
import threading
import time

from ttt_engine import train


def run(n):
    t = time.perf_counter()
    train(episodes=n, progress=False, seed=1)
    return time.perf_counter() - t


def main():
    n = int(float(sys.argv[1])) if len(sys.argv) > 1 else 20_000_000
    res = {}
    for spin in (False, True):
        stop = threading.Event()
        th = None
        if spin:
            def spinner(stop=stop):
                x = 0
                while not stop.is_set():
                    x += 1
            th = threading.Thread(target=spinner)
            th.start()
        ts = [run(n) for _ in range(3)]
        stop.set()
        if th is not None:
            th.join()
        key = "spinning" if spin else "quiet"
        res[key] = statistics.median(ts)
        print(key, [round(t, 2) for t in ts], flush=True)
    print(f"median quiet {res['quiet']:.2f} s, beside a spinning thread {res['spinning']:.2f} s, "
          f"ratio {res['spinning'] / res['quiet']:.2f}; load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
