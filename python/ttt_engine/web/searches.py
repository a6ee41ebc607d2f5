"""The searches of one server, each in its own thread off the event loop: at
most ``Settings.workers`` run at once, up to ``Settings.queue`` more wait,
further ones get 503 with the reason (:class:`Searches`, :func:`in_thread`)."""
from __future__ import annotations

import asyncio
import threading

from ttt_engine.web.inputs import BadRequest

__all__ = ["Searches", "in_thread", "call_soon"]


class Searches:
    """The searches of one server: at most ``workers`` run at once (each in
    its own thread), up to ``queue`` more wait; ``running`` and ``waiting``
    count them (``GET /api/status``)."""

    def __init__(self, workers, queue):
        self.workers = max(1, int(workers))
        self.queue = max(0, int(queue))
        self.slots = asyncio.Semaphore(self.workers)
        self.lock = threading.Lock()
        self.running = 0
        self.waiting = 0

    def admit(self):
        """A place among the waiting searches (``waiting`` counts it until the
        search gets a worker); 503 with the reason when every worker is busy and
        the queue is full."""
        if self.slots.locked() and self.waiting >= self.queue:
            raise BadRequest(f"the server is busy: {self.running} searches running and "
                             f"{self.waiting} waiting (at most {self.workers} and "
                             f"{self.queue}); try again shortly", 503)
        self.waiting += 1

    def status(self):
        with self.lock:
            return {"searches": self.running, "waiting": self.waiting,
                    "workers": self.workers, "queue": self.queue}

    def _count(self, delta):
        with self.lock:
            self.running += delta


async def in_thread(app, fn, admitted=False):
    """Run ``fn()`` in a daemon thread (at most ``workers`` at once), off the
    loop; ``admitted``: its place in the queue is already taken
    (:meth:`Searches.admit`)."""
    searches = app.state.searches
    if not admitted:
        searches.admit()
    loop = asyncio.get_running_loop()
    try:
        await searches.slots.acquire()
    finally:
        searches.waiting -= 1
    fut = loop.create_future()

    def work():
        try:
            result = fn()
        except BaseException as e:  # handed to the awaiting request
            call_soon(loop, _settle, fut, None, e)
        else:
            call_soon(loop, _settle, fut, result, None)
        finally:
            searches._count(-1)         # the slot is free when the thread is done
            call_soon(loop, searches.slots.release)

    searches._count(+1)
    try:
        threading.Thread(target=work, daemon=True, name="ttt-engine-search").start()
    except BaseException:
        searches._count(-1)
        searches.slots.release()
        raise
    return await fut


def call_soon(loop, fn, *args):
    try:
        loop.call_soon_threadsafe(fn, *args)
    except RuntimeError:            # the loop is closed: the server has stopped
        pass


def _settle(fut, result, error):
    if fut.done():
        return
    if error is not None:
        fut.set_exception(error)
    else:
        fut.set_result(result)

