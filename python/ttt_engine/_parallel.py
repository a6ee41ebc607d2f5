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

Two more things every parallel path of the package shares live here:

- :func:`process_pool`: the one way the package (and its tests and benchmarks)
  makes a local process pool.  Its workers start by ``forkserver`` (``spawn``
  where that does not exist), never by a plain ``fork`` of this process: once a
  threaded library runs here (JAX, OpenBLAS, the engine's own worker threads),
  a forked child inherits locks those threads held and can hang.  So whatever
  goes to the pool must pickle by reference: module-level functions and
  classes, never closures.
- :func:`one_blas_thread`: numpy's BLAS pinned to one thread for a block
  (the network's small products), through ``threadpoolctl``.
"""
from __future__ import annotations

import os
import sys
import threading
import warnings

import numpy as np

from ttt_engine._util import check_int

__all__ = ["MAX_THREADS", "check_importable", "check_threads", "cores", "one_blas_thread",
           "process_context", "process_pool", "run_parts", "split_counts", "split_seeds"]

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


# ------------------------------------------------------------------ processes
def process_context():
    """The :mod:`multiprocessing` context of the package's worker processes:
    ``forkserver`` where it exists, except on macOS, whose system libraries are
    not safe to fork either (there, as on Windows, ``spawn``, the platform's
    default).  Either way a worker starts from a clean single-threaded
    interpreter and imports what its tasks need."""
    import multiprocessing
    if sys.platform != "darwin" and "forkserver" in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("forkserver")
    return multiprocessing.get_context("spawn")


def process_pool(workers, initializer=None, initargs=()):
    """A :class:`concurrent.futures.ProcessPoolExecutor` of ``workers``
    processes started by :func:`process_context`."""
    import concurrent.futures
    return concurrent.futures.ProcessPoolExecutor(max_workers=workers,
                                                  mp_context=process_context(),
                                                  initializer=initializer, initargs=initargs)


def _importable(obj):
    """Whether a worker of :func:`process_pool` can import ``obj`` (a function or
    class) from its module: a module imported from a file, or the main script
    (workers import it first); not an interactive session's ``__main__`` nor a
    module made in memory."""
    module = sys.modules.get(getattr(obj, "__module__", None) or "")
    if module is None:
        return True                 # pickling it names a module the worker imports
    if module.__name__ in ("__main__", "__mp_main__"):
        return getattr(module, "__file__", None) is not None
    return getattr(module, "__spec__", None) is not None


def check_importable(obj):
    """``ValueError`` naming the first function or class in ``obj`` (as pickling
    walks it) that the workers of :func:`process_pool` cannot import."""
    import io
    import pickle
    import types
    found = []

    class _Walk(pickle.Pickler):
        def persistent_id(self, o):
            if not found and isinstance(o, (type, types.FunctionType)) and not _importable(o):
                found.append(o)
            return None

    try:
        _Walk(io.BytesIO(), protocol=pickle.HIGHEST_PROTOCOL).dump(obj)
    except Exception:  # noqa: BLE001 - what does not pickle at all is reported where it is sent
        pass
    if found:
        o = found[0]
        reason = ("it is defined in an interactive session"
                  if o.__module__ in ("__main__", "__mp_main__")
                  else f"its module {o.__module__!r} is not a file")
        raise ValueError(f"{o.__module__}.{o.__qualname__} cannot go to worker processes: they "
                         f"start clean and import it from its module, and {reason}; define it "
                         "in a module (a .py file), or pass workers=1 to run in this process")


# ------------------------------------------------------------------ BLAS threads
_BLAS_LOCK = threading.Lock()
_blas_users = 0         # blocks inside one_blas_thread() now, over every thread
_blas_restore = []      # (library, previous count) to apply when the last block leaves
_blas_setter = None     # the thread that set them
_blas_libraries = None
_release_openblas = None


def _blas():
    """threadpoolctl's controllers of the BLAS libraries loaded in this process
    (found once: the search reads every loaded library, far too slow to repeat
    for each evaluation)."""
    global _blas_libraries, _release_openblas
    if _blas_libraries is None:
        import numpy  # noqa: F401  (loads numpy's BLAS before it is looked for)
        import threadpoolctl

        # threadpoolctl (3.8 on) lets only the thread that last set a process-wide
        # OpenBLAS pool set it again until that thread lets go (older ones have no
        # such rule): each restore lets go, and one from another thread than the
        # setter's first takes the pool from it
        openblas = getattr(threadpoolctl, "OpenBLASController", None)
        _release_openblas = getattr(openblas, "clear_controlling_thread", None) \
            or (lambda force=False: None)
        _blas_libraries = threadpoolctl.ThreadpoolController().select(
            user_api="blas").lib_controllers
    return _blas_libraries


class _OneBlasThread:
    """The context manager of :func:`one_blas_thread` (a class: a generator-based
    one costs more than the setting itself, at batch 1 a tenth of an evaluation)."""

    __slots__ = ()

    def __enter__(self):
        global _blas_users, _blas_restore, _blas_setter
        libraries = _blas()
        with _BLAS_LOCK:
            if _blas_users == 0:
                _blas_restore = []
                for lib in libraries:
                    n = lib.num_threads
                    if n is not None and n != 1:
                        lib.set_num_threads(1)
                        _blas_restore.append((lib, n))
                _blas_setter = threading.current_thread()
            _blas_users += 1
        return self

    def __exit__(self, *exc):
        global _blas_users, _blas_restore, _blas_setter
        with _BLAS_LOCK:
            _blas_users -= 1
            if _blas_users == 0:
                if _blas_restore:
                    if threading.current_thread() is not _blas_setter:
                        _release_openblas(force=True)
                    for lib, n in _blas_restore:
                        lib.set_num_threads(n)
                    _release_openblas()
                _blas_restore = []
                _blas_setter = None
        return False


_ONE_BLAS_THREAD = _OneBlasThread()


def one_blas_thread():
    """A context manager: run the block with numpy's BLAS on one thread.

    OpenBLAS splits even a 64x256 product over every core; on a busy or shared
    machine the threads then wait for each other and a network evaluation
    becomes ten to twenty times slower than on one thread.  The setting is
    process-wide, so blocks in several threads share it: the first to enter
    sets one thread, the last to leave restores the previous counts (a block
    never runs with the count another thread restored).  Where threadpoolctl
    finds no BLAS it can control, the block runs unchanged."""
    return _ONE_BLAS_THREAD
