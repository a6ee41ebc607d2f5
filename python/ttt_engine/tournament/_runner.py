"""Executors and the loop that runs tasks on them, and the JSON-lines results file.

Nothing here knows about Dask: any :class:`concurrent.futures.Executor` works
(a Dask cluster plugs in as ``distributed.Client(address).get_executor()``).
"""
from __future__ import annotations

import concurrent.futures as cf
import json
import os
import pickle
import sys
import threading
import traceback
from concurrent.futures.process import BrokenProcessPool

from ttt_engine._parallel import check_importable, process_pool
from ttt_engine._util import check_output_path, resolve_seed

__all__ = ["ResultsFile", "open_results", "SerialExecutor", "check_executor", "check_picklable", "default_executor", "run_tasks"]


class SerialExecutor(cf.Executor):
    """Runs every task in the calling process, at submission: no parallelism,
    no pickling, the easiest to debug; results are the same as on any pool."""

    def __init__(self):
        self._lock = threading.Lock()
        self._shutdown = False

    def submit(self, fn, /, *args, **kwargs):
        """Run ``fn(*args, **kwargs)`` now, in this thread; a finished ``Future`` of it."""
        with self._lock:
            if self._shutdown:
                raise RuntimeError("cannot schedule new futures after shutdown")
        future = cf.Future()
        future.set_running_or_notify_cancel()
        try:
            future.set_result(fn(*args, **kwargs))
        except KeyboardInterrupt:
            raise
        except BaseException as exc:       # reported through the future, as a pool does
            future.set_exception(exc)
        return future

    def shutdown(self, wait=True, *, cancel_futures=False):
        with self._lock:
            self._shutdown = True


def default_executor(workers=None):
    """A local process pool (``ttt_engine._parallel.process_pool``) with
    ``workers`` processes (default: one per core); ``workers=1`` gives a
    :class:`SerialExecutor`."""
    if workers is None:
        workers = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") \
            else (os.cpu_count() or 1)
    if workers <= 1:
        return SerialExecutor()
    return process_pool(workers, initializer=_ignore_sigint)


#: why a local pool's worker may end abruptly; the last cause is the one a user can fix
_BROKEN_POOL = ("a worker process ended abruptly (killed, out of memory, crashed, or, the "
                "usual cause from a script: the script starts this work outside "
                "`if __name__ == \"__main__\":`, and workers import the main script)")


def _ignore_sigint():
    """Pool workers leave Ctrl-C to the main process, which stops them
    (:func:`stop_now`): no traceback from every worker."""
    import signal
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def stop_now(executor):
    """After Ctrl-C: shut ``executor`` down without finishing its work.  A local
    process pool's workers are ended at once (the games they are playing would
    only be thrown away); the pool then fails its remaining futures itself.
    Other executors get their pending work cancelled."""
    processes = getattr(executor, "_processes", None)   # ProcessPoolExecutor's workers
    if isinstance(processes, dict) and processes:
        for proc in list(processes.values()):
            try:
                proc.terminate()
            except (OSError, ValueError, AttributeError):
                pass
        # no cancel_futures here: the pool marks every pending future broken as it
        # notices the ended workers, and a future cancelled meanwhile makes it fail
        executor.shutdown(wait=True)
    else:
        executor.shutdown(wait=False, cancel_futures=True)


def check_picklable(what, obj):
    """``obj`` pickled, or ``ValueError`` saying ``what`` cannot go to a worker and why."""
    try:
        return pickle.dumps(obj)
    except Exception as exc:     # pickling raises many types (TypeError, PicklingError, ...)
        raise ValueError(f"{what} cannot be sent to worker processes: it does not pickle "
                         f"({type(exc).__name__}: {exc}); use a module-level factory plus "
                         "keyword arguments instead") from None


def _progress_bar(total, desc, progress):
    if not progress or not sys.stderr.isatty():
        return None
    from tqdm.auto import tqdm
    return tqdm(total=total, desc=desc, unit="game" if "tournament" in desc else "run",
                dynamic_ncols=True)


def check_executor(executor):
    """``ValueError`` unless ``executor`` is None or has ``submit`` (an Executor)."""
    if executor is not None and not isinstance(executor, cf.Executor) \
            and not callable(getattr(executor, "submit", None)):
        raise ValueError(f"executor must be a concurrent.futures.Executor (or None for a "
                         f"local process pool), got {type(executor).__name__}")


def run_tasks(executor, fn, tasks, on_result, on_error, *, weight=lambda t: 1, desc="",
              progress=True, workers=None):
    """Submit ``fn(task)`` for every task and call ``on_result(task, value)`` (or
    ``on_error(task, message)``) in the calling thread as each finishes.

    ``executor=None`` creates a :func:`default_executor` (``workers``
    processes) and shuts it down at the end.  Ctrl-C cancels what has not started and re-raises; results
    already handed to ``on_result`` are kept by the caller.
    """
    check_executor(executor)
    own = executor is None
    if own:
        executor = default_executor(workers)
        if not isinstance(executor, SerialExecutor):
            try:
                check_importable((fn, tasks))
            except BaseException:
                executor.shutdown()
                raise
    bar = _progress_bar(sum(weight(t) for t in tasks), desc, progress)
    futures = {}

    def handle(future, task):
        try:
            value = future.result()
        except cf.CancelledError:
            on_error(task, "cancelled")
        except BrokenProcessPool:
            on_error(task, _BROKEN_POOL)
        except Exception as exc:
            on_error(task, "".join(traceback.format_exception_only(type(exc), exc)).strip())
        else:
            on_result(task, value)
        if bar is not None:
            bar.update(weight(task))

    try:
        for task in tasks:
            try:
                future = executor.submit(fn, task)
            except Exception as exc:
                # a worker that is already gone (broken pool), a shut-down executor...
                on_error(task, f"could not be submitted: {type(exc).__name__}: {exc}")
                continue
            if future.done():          # a serial executor: record it before the next one
                handle(future, task)
            else:
                futures[future] = task
        for future in cf.as_completed(futures):
            handle(future, futures[future])
    except BaseException:
        if own:
            stop_now(executor)
            own = False
        else:                      # someone else's executor: withdraw only our work
            for f in futures:
                f.cancel()
        raise
    finally:
        if bar is not None:
            bar.close()
        if own:
            executor.shutdown(wait=True)


class ResultsFileError(ValueError):
    """A results file that is not one of this run's (another kind of run,
    other settings, a line that does not parse): refused and left unchanged."""


class ResultsFile:
    """A JSON-lines results file: one header line describing the run, then one
    line per finished unit of work (a game, a sweep run).

    :meth:`load` checks an existing file and returns its records; a file that
    is not ours (``foreign``) or does not parse (``corrupt``) raises
    ``ValueError`` and is never modified.  The only repair is of a last line
    cut short by an interrupted write (no newline at the end and no valid
    JSON): those trailing bytes are dropped before appending, since that unit
    of work is then simply redone.
    """

    def __init__(self, path, kind, header, *, same=(), check_record=None, check_header=None):
        # the package's one rule for files it writes: a regular file or nothing,
        # in a folder that exists (a FIFO or device at the path is refused untouched)
        check_output_path(path, "results file")
        self.path = os.fspath(path)
        self.kind = kind
        self.header = dict(header)
        self.same = tuple(same)              # header keys that must match an existing file
        self.check_record = check_record
        self.check_header = check_header     # head -> the difference to say, or None
        self.existing_header = None

    def _refuse(self, why):
        raise ResultsFileError(f"refusing to use results file {self.path!r}: {why}; "
                         "it was left unchanged (choose another --out file)")

    def load(self):
        """Validate the file (if any) and return its records (list of dicts)."""
        if not os.path.exists(self.path) or os.path.getsize(self.path) == 0:
            return []
        with open(self.path, "rb") as f:
            data = f.read()
        lines = data.split(b"\n")
        torn = b""
        if not data.endswith(b"\n"):
            torn = lines[-1]
        lines = lines[:-1]
        if torn:
            try:
                json.loads(torn)
            except ValueError:
                self._torn = len(torn)
            else:
                lines.append(torn)
                self._torn = -1          # complete but missing its newline
        else:
            self._torn = 0
        if not lines:
            self._refuse("it is not a ttt_engine results file (no header line)")
        try:
            head = json.loads(lines[0])
        except (ValueError, UnicodeDecodeError):
            self._refuse("it is not a ttt_engine results file (the first line is not JSON)")
        if not isinstance(head, dict) or head.get("ttt_engine") != self.kind:
            found = head.get("ttt_engine") if isinstance(head, dict) else None
            self._refuse(f"it is not a ttt_engine {self.kind} results file"
                         + (f" (it holds a {found!r} run)" if found else ""))
        for key in self.same:
            if head.get(key) != self.header.get(key):
                self._refuse(f"it belongs to a different {self.kind}: {key} is "
                             f"{head.get(key)!r} there and {self.header.get(key)!r} here")
        problem = self.check_header(head) if self.check_header else None
        if problem:
            self._refuse(f"it belongs to a different {self.kind}: {problem}")
        self.existing_header = head
        records = []
        for number, line in enumerate(lines[1:], start=2):
            try:
                rec = json.loads(line)
            except (ValueError, UnicodeDecodeError):
                self._refuse(f"line {number} is not valid JSON")
            problem = None if not isinstance(rec, dict) else (
                self.check_record(rec) if self.check_record else None)
            if not isinstance(rec, dict) or problem:
                self._refuse(f"line {number} is not a valid record"
                             + (f" ({problem})" if problem else ""))
            records.append(rec)
        return records

    def start(self):
        """Write the header if the file is new; repair a torn last line."""
        if self.existing_header is None:
            check_output_path(self.path, "results file")
            self._append([self.header], mode="wb")
            return
        torn = getattr(self, "_torn", 0)
        if torn > 0:
            with open(self.path, "r+b") as f:
                f.truncate(os.path.getsize(self.path) - torn)
        elif torn < 0:
            with open(self.path, "ab") as f:
                f.write(b"\n")
        self._torn = 0

    def _append(self, records, mode="ab"):
        data = "".join(json.dumps(r, sort_keys=True) + "\n" for r in records).encode()
        with open(self.path, mode) as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())

    def append(self, records):
        """Append records, one line each, in one write, flushed to disk."""
        if records:
            self._append(records)


def open_results(out, kind, header, *, same, check_record, key, check_header=None):
    """Resume a run from its results file ``out`` (None: no file).

    ``header`` describes the run; its ``"seed"`` (None: not chosen) becomes the
    existing file's seed, else a fresh one, and is written into ``header``.
    An existing file must agree on the header keys ``same`` (and on the seed
    when one was given) and pass ``check_header``; :class:`ResultsFile`
    refuses any other with a :class:`ResultsFileError`.  Returns
    ``(done, rfile)``: the file's records by ``key(record)`` (the first of each
    key wins) and the started :class:`ResultsFile` to append to (None without
    ``out``).
    """
    done, rfile = {}, None
    if out is not None:
        same = list(same) + (["seed"] if header["seed"] is not None else [])
        rfile = ResultsFile(out, kind, header, same=same, check_record=check_record,
                            check_header=check_header)
        for r in rfile.load():
            done.setdefault(key(r), r)
        if rfile.existing_header is not None and header["seed"] is None:
            header["seed"] = rfile.existing_header.get("seed")
    if header["seed"] is None:
        header["seed"] = resolve_seed(None)
    if rfile is not None:
        rfile.header = header
        rfile.start()
    return done, rfile
