"""``--workers N`` / ``--scheduler ADDRESS``: the executor a parallel command runs on.

The library takes any ``concurrent.futures.Executor``; this is the one place
that knows how to reach a Dask cluster (``distributed.Client(address)
.get_executor()``), imported only when ``--scheduler`` is given.
"""
from __future__ import annotations

import contextlib
import sys
import threading

from ttt_engine.cli import _options as O
from ttt_engine.cli._errors import EXIT_ERROR, EXIT_USAGE, CLIError

__all__ = ["CONNECT_TIMEOUT", "add_executor_options", "executor_for", "run_resumable"]

#: Seconds to wait for a Dask scheduler before giving up with a clear error.
CONNECT_TIMEOUT = 5


def add_executor_options(p, workers_help="local worker processes (default: one per core; "
                                         "1 = in this process)"):
    g = p.add_argument_group("where the work runs")
    x = g.add_mutually_exclusive_group()
    x.add_argument("--workers", type=O.count(1, 4096), metavar="N", help=workers_help)
    x.add_argument("--scheduler", metavar="ADDRESS", type=O.path,
                   help="run on a Dask cluster, e.g. tcp://10.0.0.5:8786 (needs the [dask] "
                        "extra; see docs/tournament.md)")


@contextlib.contextmanager
def executor_for(args, console=None):
    """The Dask executor for ``--scheduler`` (its client closed on exit), or
    None: the library's own process pool with ``--workers`` processes."""
    if getattr(args, "scheduler", None):
        try:
            from distributed import Client
        except ImportError:
            raise CLIError('--scheduler needs Dask: pip install "ttt_engine[dask]"',
                           EXIT_USAGE) from None
        client = _connect(Client, args.scheduler)
        try:
            if console is not None:
                n = len(client.scheduler_info().get("workers", {}))
                console.say(f"Dask scheduler {args.scheduler}: {n} worker(s).")
            yield client.get_executor()
        finally:
            with contextlib.suppress(Exception):
                client.close()
        return
    # local processes: the library makes the pool itself (executor None, workers
    # N), so that Ctrl-C ends its workers at once
    yield None


def _connect(Client, address):
    """A Dask client of ``address``, or one line within about CONNECT_TIMEOUT s.

    Dask's own timeout covers neither a server that accepts and stays silent
    (it waits for the handshake without end) nor one that answers with other
    bytes (read as a message length: a MemoryError), so the connection runs in
    a thread waited for with a deadline."""
    result = {}

    def connect():
        try:
            result["client"] = Client(address, timeout=f"{CONNECT_TIMEOUT}s")
        except BaseException as e:      # noqa: BLE001 - reported by the waiting thread
            result["error"] = e

    t = threading.Thread(target=connect, name="dask-connect", daemon=True)
    t.start()
    t.join(CONNECT_TIMEOUT + 2)
    if "client" in result:
        return result["client"]
    e = result.get("error")
    if e is None:
        raise CLIError(f"{address} is not a Dask scheduler, or does not answer within "
                       f"{CONNECT_TIMEOUT} s", EXIT_ERROR)
    if isinstance(e, (KeyboardInterrupt, SystemExit)):
        raise e
    if isinstance(e, (ValueError, TypeError)):
        raise CLIError(f"--scheduler: {address} is not a Dask address "
                       f"({' '.join(str(e).split())})", EXIT_USAGE) from None
    if isinstance(e, (OSError, TimeoutError)):
        raise CLIError(f"cannot reach the Dask scheduler at {address} within "
                       f"{CONNECT_TIMEOUT} s ({' '.join(str(e).split())}); is 'dask "
                       "scheduler' running there and the port open?", EXIT_ERROR) from None
    raise CLIError(f"{address} is not a Dask scheduler: it answers, but not as one "
                   f"({type(e).__name__})", EXIT_ERROR) from None


def run_resumable(args, console, work, failure, what):
    """``work(executor)`` on the executor of ``args`` (see :func:`executor_for`).

    Returns ``(result, error)``: ``error`` is None, or the ``failure`` exception
    that ``work`` raised with the finished part as its ``result``.  On Ctrl-C
    with ``--out``, says that the finished ``what`` are in that file and that
    the same command resumes, then lets the interrupt through.
    """
    with executor_for(args, console) as ex:
        try:
            return work(ex), None
        except failure as e:
            return e.result, e
        except KeyboardInterrupt:
            if args.out:
                print(f"The finished {what} are in {args.out}; run the same command again "
                      "to resume.", file=sys.stderr)
            raise
