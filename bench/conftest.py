"""Shared pytest-benchmark conventions for ``bench/bench_*.py``.

Run the whole suite with::

    PYTHONPATH=python python -m pytest bench/ --benchmark-only
    PYTHONPATH=python python -m pytest bench/ --benchmark-only --benchmark-json=bench.json

Conventions (so ``pytest bench/`` stays within a few minutes on 2 shared cores):

- One benchmark = one call doing a fixed, modest amount of work (aim for
  0.05-0.5 s per call) timed with a fixed number of rounds: use the
  ``throughput`` fixture below (``benchmark.pedantic`` with 5 rounds, 1 warm-up)
  rather than the default calibration, which may call a 0.3 s function dozens
  of times.
- Every benchmark records its throughput in ``benchmark.extra_info``:
  ``unit`` (e.g. "episodes", "simulations", "nodes", "games"), ``units`` (work
  per call) and ``per_s`` (units / median seconds), plus anything else worth
  reading later (nodes visited, value found, ...).  ``bench/report.py`` turns
  the ``--benchmark-json`` file into a Markdown table from these fields.
- Benchmarks assert that the work was really done (e.g. a solve returns the
  known value, a playout count adds up), never a speed: timing bars are read
  from the report, not enforced in CI.
- Seeds are fixed so every round does the same work.
"""
import statistics
import time

import pytest


def record_throughput(benchmark, units, unit, **extra):
    """Store ``units`` of work per call and ``per_s`` (median-based) in
    ``benchmark.extra_info``; a no-op for the rate when benchmarks are disabled
    (``--benchmark-disable``: the function then ran once, untimed)."""
    benchmark.extra_info["unit"] = unit
    benchmark.extra_info["units"] = units
    benchmark.extra_info.update(extra)
    stats = getattr(benchmark, "stats", None)
    if stats is not None:
        median = stats.stats.median
        if median > 0:
            benchmark.extra_info["per_s"] = units / median


@pytest.fixture
def throughput(benchmark):
    """``throughput(fn, units, unit, rounds=5, **extra)``: time ``fn()`` over
    ``rounds`` rounds (one warm-up round first), record the throughput in
    ``extra_info`` and return ``fn``'s last result.

    ``units`` may be a number or a callable taking that result (for work sizes
    only known afterwards, such as nodes searched).
    """
    def run(fn, units, unit, *, rounds=5, warmup_rounds=1, **extra):
        result = benchmark.pedantic(fn, rounds=rounds, iterations=1,
                                    warmup_rounds=warmup_rounds)
        n = units(result) if callable(units) else units
        record_throughput(benchmark, n, unit, **extra)
        return result
    return run


def pedantic_cpu(benchmark, fn, *, rounds, warmup_rounds=1):
    """``benchmark.pedantic(fn, rounds=rounds, iterations=1, warmup_rounds=...)``
    that also times each timed round in CPU time of the calling thread
    (``time.thread_time``: the engine's loops run in the caller's thread, so
    other threads, such as OpenBLAS's briefly spinning workers after numpy is
    imported, and other processes do not count).  Returns ``(last result,
    median CPU seconds per timed round)``."""
    times = []
    last = []

    def run():
        t = time.thread_time()
        r = fn()
        times.append(time.thread_time() - t)
        last[:] = [r]
        return r
    benchmark.pedantic(run, rounds=rounds, iterations=1, warmup_rounds=warmup_rounds)
    return last[0], statistics.median(times[warmup_rounds:])
