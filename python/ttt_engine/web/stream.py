"""Server-sent events from a search in a worker thread (:class:`EventStream`),
the answer of a streamed analysis and of a game review."""
from __future__ import annotations

import asyncio
import collections
import json
import threading

from starlette.exceptions import HTTPException
from starlette.responses import JSONResponse, Response

from ttt_engine.web.searches import call_soon, in_thread

__all__ = ["EventStream"]


class EventStream(Response):
    """Server-sent events from a search in a worker thread.  ``work(emit,
    stopped)`` runs in the thread: ``emit(item)`` sends an event (with
    ``latest``, an event not yet sent is replaced by a newer one, so a slow
    client costs no memory), ``stopped()`` turns True once the client has gone
    (the search then ends within a step); ``work``'s result is the last event,
    marked ``"done": true``.  ``to_json(item)`` makes an event's data."""

    media_type = "text/event-stream"

    def __init__(self, app, work, to_json, latest=True):
        super().__init__(headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})
        self.raw_headers = [(k, v) for k, v in self.raw_headers if k != b"content-length"]
        self.app, self.work, self.to_json, self.latest = app, work, to_json, latest

    async def __call__(self, scope, receive, send):
        loop = asyncio.get_running_loop()
        box = collections.deque()
        wake = asyncio.Event()
        gone = threading.Event()

        def post(kind, item):
            if self.latest and kind == "update" and box and box[-1][0] == "update":
                box[-1] = (kind, item)
            else:
                box.append((kind, item))
            wake.set()

        def emit(item):
            call_soon(loop, post, "update", item)

        started = []

        async def produce():
            started.append(True)
            try:
                result = await in_thread(self.app, lambda: self.work(emit, gone.is_set),
                                          admitted=True)
                post("final", result)
            except HTTPException as e:
                post("error", (e.status_code, e.detail))
            except asyncio.CancelledError:
                raise
            except Exception as e:      # a bug: one line to the page
                post("error", (500, f"internal error ({type(e).__name__}: {e})"))

        async def watch():
            while (await receive())["type"] != "http.disconnect":
                pass
            gone.set()
            wake.set()

        tasks = [asyncio.ensure_future(produce()), asyncio.ensure_future(watch())]
        try:
            # the status waits for the first event: a request the search refuses
            # before it has anything to say (the network does not fit the board,
            # say) gets its 4xx as the request without "stream" does
            opened = False
            finished = False
            while not finished and not gone.is_set():
                await wake.wait()
                wake.clear()
                while box and not gone.is_set():
                    kind, item = box.popleft()
                    if kind == "error" and not opened:
                        status, reason = item
                        await JSONResponse({"error": reason}, status_code=status)(
                            scope, receive, send)
                        return
                    if not opened:
                        await send({"type": "http.response.start", "status": 200,
                                    "headers": self.raw_headers})
                        opened = True
                    if kind == "error":
                        data = {"error": item[1]}
                    else:
                        data = self.to_json(item)
                        if kind == "final":
                            data["done"] = True
                    finished = kind != "update"
                    await send({"type": "http.response.body", "more_body": True,
                                "body": f"data: {json.dumps(data)}\n\n".encode()})
                    if finished:
                        break
            if not gone.is_set():
                await send({"type": "http.response.body", "body": b"", "more_body": False})
        except OSError:                 # the client went away while we wrote
            pass
        finally:
            gone.set()
            for t in tasks:
                t.cancel()
            if not started:             # its place in the queue was never taken up
                self.app.state.searches.waiting -= 1
