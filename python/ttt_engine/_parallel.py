"""Running one job on several threads inside one process (``threads=k``).

The engine's hot loops run without the GIL, so plain Python threads each
running one ``nogil`` loop use every core.  A job is split into ``k`` parts
(``split_counts``), each part gets its own seed derived from the job's seed
(``split_seeds``: the same seed and ``k`` give the same parts, so results are
reproducible for a given ``k``), and ``run_parts`` runs part 0 in the calling
thread and the others in worker threads.

Interrupts: only the main thread sees Ctrl-C.  Every part gets the same
one-element ``stop`` array; the compiled loops watch it
(``src/engine/core/interrupt.pxd``), and it is set as soon as the calling thread
stops with an exception (a ``KeyboardInterrupt`` in its own part or while
waiting for the workers), so every worker stops within a millisecond and the
exception is raised once all of them have finished.
"""
from __future__ import annotations

import os
import threading
import warnings

import numpy as np

from ttt_engine._util import check_int

__all__ = ["MAX_THREADS", "check_threads", "cores", "run_parts", "split_counts", "split_seeds"]

#: Upper bound of ``threads=``: far above any core count; guards against typos.
MAX_THREADS = 256

_MASK64 = (1 << 64) - 1


_warned_cores = False


def cores():
    """The cores this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1


def check_threads(threads, warn=True):
    """``threads`` as an int in [1, MAX_THREADS]; ``ValueError`` naming it
    otherwise.  More threads than cores are allowed (they only share the
    cores) but, with ``warn``, a ``RuntimeWarning`` says so once per process."""
    global _warned_cores
    threads = check_int("threads", threads, min=1, max=MAX_THREADS)
    if warn and not _warned_cores and threads > cores():
        _warned_cores = True
        warnings.warn(f"threads={threads} is more than the {cores()} cores this process can "
                      "use: the threads will share them (no faster, and time budgets give "
                      "each thread less)", RuntimeWarning, stacklevel=3)
    return threads


def _splitmix64(x):
    x = (x + 0x9E3779B97F4A7C15) & _MASK64
    z = x
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return z ^ (z >> 31)


def split_seeds(seed, k):
    """``k`` seeds for the parts of a job seeded with ``seed``: ``[seed]`` for
    one part (so ``threads=1`` reproduces the single-threaded results), else
    ``k`` well-mixed, distinct 64-bit seeds that depend only on ``seed`` and
    the part number."""
    if k == 1:
        return [seed]
    return [_splitmix64(seed ^ _splitmix64(i + 1)) for i in range(k)]


def split_counts(n, k):
    """``n`` units of work as ``k`` near-equal parts (the first ones smaller)."""
    return [n * (i + 1) // k - n * i // k for i in range(k)]


def new_stop_flag():
    """A fresh shared stop flag (``int32[1]``, 0 = keep going)."""
    return np.zeros(1, dtype=np.int32)


def _join_all(threads, stop):
    pending = None
    for t in threads:
        while True:
            try:
                t.join()
                break
            except BaseException as exc:  # noqa: BLE001 - Ctrl-C while waiting: stop the workers first
                stop[0] = 1
                if pending is None:
                    pending = exc
    if pending is not None:
        raise pending


def run_parts(fn, parts, stop=None):
    """``[fn(*part, stop) for part in parts]``, part 0 in this thread and each
    other part in its own thread; the first exception (this thread's first)
    is raised after every thread has stopped."""
    if stop is None:
        stop = new_stop_flag()
    k = len(parts)
    results = [None] * k
    errors = [None] * k

    def work(i):
        try:
            results[i] = fn(*parts[i], stop)
        except BaseException as exc:  # noqa: BLE001 - handed to the caller
            errors[i] = exc
            stop[0] = 1

    threads = [threading.Thread(target=work, args=(i,), daemon=True,
                                name=f"ttt_engine-part-{i}") for i in range(1, k)]
    for t in threads:
        t.start()
    try:
        results[0] = fn(*parts[0], stop)
    except BaseException:
        stop[0] = 1
        try:
            _join_all(threads, stop)
        except BaseException:  # noqa: BLE001, S110 - this thread's exception wins
            pass
        raise
    _join_all(threads, stop)
    for exc in errors:
        if exc is not None:
            raise exc
    return results
