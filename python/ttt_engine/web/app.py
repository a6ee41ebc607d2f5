"""The Starlette application of ``ttt-engine serve``.

Every request carries the whole game: ``{"game": "ttt", "options": {...},
"moves": [4, 0, ...]}`` (moves as the board's move numbers, replayed and
checked here).  The API, all JSON (errors: ``{"error": "one line"}`` with a
4xx status, never a traceback):

- ``GET /api/games``: the registry: games, sides, board options, engines
  with their budgets, and the server's caps;
- ``POST /api/position``: the position after ``moves``: SVG, side to move,
  result, the legal moves with their notation and cells, the move list;
  with ``"play": "a1R"`` (text in the game's notation, or a move number) the
  move is checked and played first;
- ``POST /api/engine-move``: ``engine``, ``budgets`` (``simulations``,
  ``time``, ``depth``), ``seed``: the engine's move on the position with the
  analysis of the search that chose it;
- ``POST /api/analyse``: the same analysis without playing; ``"stream":
  true`` answers with server-sent events (``data: {...}``), one per update of
  a time-budgeted search, the last with ``"done": true``;
- ``POST /api/solve``: the game module's ``solve`` within the time cap.

Searches run in their own threads (at most ``Settings.workers`` at once; the
others wait), never on the event loop, so one long search does not hold up
other requests.  Budgets above the caps are refused; an engine with a time
budget also gets the time cap as a guard.  Requests from another origin
(``Origin`` or ``Sec-Fetch-Site``), and to a host name that is not the
server's when it listens on loopback, are refused with 403.
"""
from __future__ import annotations

import asyncio
import json
import math
import threading
from dataclasses import dataclass, replace
from importlib import resources

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ttt_engine import games
from ttt_engine.analysis import analyse, move_geometry
from ttt_engine._svg import board_svg

__all__ = ["Settings", "build_app", "BadRequest"]

#: Largest request body read (bytes).
MAX_BODY = 64 * 1024
#: Longest game accepted (moves).
MAX_MOVES = 5000
#: Longest move text read.
MAX_TEXT = 40


@dataclass(frozen=True)
class Settings:
    """Server settings.

    max_time: cap on an engine's thinking time per request (seconds), also the
        guard on searches given no time; max_simulations: cap on MCTS / tree
        simulations; max_depth: cap on search depth; workers: searches at once;
    allowed_hosts: the Host header values accepted (None: any; ``serve`` sets
        the loopback names when it listens on loopback);
    learn_games: random games behind a value engine's table when none is saved.
    """
    max_time: float = 10.0
    max_simulations: int = 2_000_000
    max_depth: int = 64
    workers: int = 2
    allowed_hosts: tuple | None = None
    learn_games: int = 20_000


class BadRequest(HTTPException):
    """A 4xx answer with a one-line reason."""

    def __init__(self, reason, status=400):
        super().__init__(status, " ".join(str(reason).split())[:300])


# ---------------------------------------------------------------------------- requests
async def _body(request):
    if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
        raise BadRequest("send the request as JSON (Content-Type: application/json)", 415)
    raw = await request.body()
    if len(raw) > MAX_BODY:
        raise BadRequest(f"the request is too large ({len(raw):,} bytes; at most "
                         f"{MAX_BODY:,})", 413)
    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as e:
        raise BadRequest(f"malformed JSON: {e}") from None
    if not isinstance(data, dict):
        raise BadRequest("the request must be a JSON object")
    return data


def _game(data):
    key = data.get("game")
    try:
        return games.get(key)
    except ValueError as e:
        raise BadRequest(e) from None


def _board(game, data):
    """The position after ``data["moves"]`` (each checked), and the move texts."""
    options = data.get("options") or {}
    if not isinstance(options, dict):
        raise BadRequest("options must be an object of board options")
    for k, v in options.items():
        if not isinstance(v, (bool, int)) or (isinstance(v, float) and not math.isfinite(v)):
            raise BadRequest(f"board option {k!r} must be a whole number or true/false")
    try:
        board = game.new_board(**options)
    except (ValueError, TypeError) as e:
        raise BadRequest(f"bad board options: {e}") from None
    moves = data.get("moves") or []
    if not isinstance(moves, list):
        raise BadRequest("moves must be a list of move numbers")
    if len(moves) > MAX_MOVES:
        raise BadRequest(f"too many moves ({len(moves):,}; at most {MAX_MOVES:,})")
    texts = []
    for i, m in enumerate(moves):
        if isinstance(m, bool) or not isinstance(m, int):
            raise BadRequest(f"move {i + 1} must be a move number, got {json.dumps(m)[:40]}")
        if board.is_terminal():
            raise BadRequest(f"move {i + 1}: the game is already over")
        if m not in board.legal_moves:
            raise BadRequest(f"move {i + 1} ({m}) is not legal in that position")
        texts.append(game.move_to_str(board, m))
        board.push(m)
    return board, texts


def _seed(data):
    seed = data.get("seed")
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
        raise BadRequest("seed must be a whole number from 0 to 2**63 - 1, or null")
    return seed


def _budgets(settings, engine, data):
    """The budgets of the request, checked against the caps, plus the time
    guard for engines that take a time."""
    raw = data.get("budgets") or {}
    if not isinstance(raw, dict):
        raise BadRequest("budgets must be an object (simulations, time, depth)")
    bad = sorted(set(raw) - set(games.BUDGETS))
    if bad:
        raise BadRequest(f"unknown budget {', '.join(map(repr, bad))}; budgets: "
                         f"{', '.join(games.BUDGETS)}")
    out = {}
    for key, value in raw.items():
        if value is None or value == "":
            continue
        if key not in engine.budgets:
            takes = ", ".join(engine.budgets) or "no budget"
            raise BadRequest(f"the {engine.name} engine does not take {key} (it takes {takes})")
        if isinstance(value, bool) or not isinstance(value, (int, float)) or \
                not math.isfinite(value):
            raise BadRequest(f"{key} must be a number, got {json.dumps(value)[:40]}")
        if key == "time":
            if value <= 0:
                raise BadRequest("time must be more than 0 seconds")
            if value > settings.max_time:
                raise BadRequest(f"time {value:g} s is above this server's cap of "
                                 f"{settings.max_time:g} s")
            out[key] = float(value)
        else:
            cap = settings.max_simulations if key == "simulations" else settings.max_depth
            if value != int(value) or value < 1:
                raise BadRequest(f"{key} must be a whole number of at least 1")
            if value > cap:
                raise BadRequest(f"{key} {int(value):,} is above this server's cap of {cap:,}")
            out[key] = int(value)
    if "time" in engine.budgets and "time" not in out:
        # a guard: the other budget ends the search first, unless it is too big
        if "simulations" in engine.budgets:
            out.setdefault("simulations", 20_000)      # the console's default
            out["time"], out["_guard"] = settings.max_time, True
        elif "depth" in out:                           # iterative deepening up to it
            out["time"], out["_guard"] = settings.max_time, True
    return out


# ---------------------------------------------------------------------------- positions
def _move_info(game, board, m):
    (r, c), to, d = move_geometry(board, m)
    return {"move": m, "text": game.move_to_str(board, m), "from": [r, c],
            "to": list(to) if to is not None and d is None else None, "dir": d}


def _geometry(board):
    """(rows, cols) of the board's grid: the observation planes' shape."""
    return tuple(board.observation_shape[-2:])


def _status(game, board):
    w = board.winner
    if w is None:
        return f"{board.to_move} to move"
    if w == "draw":
        return "Draw (the move cap was reached)." if board.draw_truncates else "Draw."
    return f"{w} wins."


def position(game, board, texts, moves):
    rows, cols = _geometry(board)
    last = moves[-1] if moves else None
    prev = board.copy()
    if last is not None:
        prev.pop()
    return {
        "game": game.key, "title": game.title, "sides": list(game.sides),
        "moves": list(moves), "texts": texts, "ply": len(moves),
        "to_move": None if board.is_terminal() else board.to_move,
        "winner": board.winner, "status": _status(game, board),
        "svg": board_svg(board, last_move=_last_cell_move(prev, last)),
        "rows": rows, "cols": cols,
        "legal": [] if board.is_terminal() else [_move_info(game, board, m)
                                                  for m in board.legal_moves],
        "hint": game.prompt_hint(board),
    }


def _last_cell_move(prev, last):
    """The last move, marked only for games where its first cell holds the mark."""
    if last is None:
        return None
    return last if games.of_board(prev).marks_move_cell else None


# ---------------------------------------------------------------------------- engines
class _Learned:
    """Learned engines (Q-learning model, state values), built once per server:
    loaded from the console's cache when it has them, else learned now."""

    def __init__(self, settings):
        self.settings = settings
        self.lock = threading.Lock()
        self.agents = {}

    def get(self, game, name, board, seed):
        from ttt_engine.cli._games import learned_kind
        engine = game.engines[name]
        kind = learned_kind(engine)
        key = (game.key, name, getattr(board, "size", None))
        with self.lock:
            agent = self.agents.get(key)
            if agent is None:
                agent = self.agents[key] = self._build(game, name, kind, board, seed)
            return agent

    def _build(self, game, name, kind, board, seed):
        import os
        from ttt_engine.cli._engines import cache_dir, default_model_path
        if kind == "model":
            path = default_model_path(game.key, name)
            if os.path.exists(path):
                try:
                    return game.make_agent(name, model=path)
                except (ValueError, OSError):
                    pass
            return game.make_agent(name, seed=seed)
        size = getattr(board, "size", None)
        mod = game.module
        path = os.path.join(cache_dir(), f"{game.key}-states-{size}x{size}.npz")
        table = None
        if os.path.exists(path):
            try:
                table = mod.load_values(path)
            except (ValueError, OSError):
                table = None
        if table is None:
            table, _ = mod.collect_values(self.settings.learn_games, seed=seed, size=size)
        return game.make_agent(name, seed=seed, values=table)


def _agent(app, game, name, board, budgets, seed):
    from ttt_engine.cli._games import learned_kind
    engine = game.engines.get(name) if isinstance(name, str) else None
    if engine is None:
        raise BadRequest(f"unknown {game.title} engine {str(name)[:40]!r}; engines: "
                         f"{', '.join(game.engines)}")
    if learned_kind(engine):
        return app.state.learned.get(game, name, board, seed)
    kw = {k: v for k, v in budgets.items() if not k.startswith("_")}
    try:
        return game.make_agent(name, seed=seed, **kw)
    except (ValueError, TypeError) as e:
        raise BadRequest(e) from None


def _analysis_json(game, a, board, last_move=None):
    d = a.to_dict()
    d["svg"] = a.to_svg()
    d["best_text"] = game.move_to_str(board, a.best_move) if a.best_move is not None else None
    return d


# ---------------------------------------------------------------------------- threads
async def _in_thread(app, fn):
    """Run ``fn()`` in a daemon thread (at most ``workers`` at once), off the loop."""
    loop = asyncio.get_running_loop()
    async with app.state.slots:
        fut = loop.create_future()

        def work():
            try:
                result = fn()
            except BaseException as e:  # handed to the awaiting request
                loop.call_soon_threadsafe(_settle, fut, None, e)
            else:
                loop.call_soon_threadsafe(_settle, fut, result, None)

        threading.Thread(target=work, daemon=True, name="ttt-engine-search").start()
        return await fut


def _settle(fut, result, error):
    if fut.done():
        return
    if error is not None:
        fut.set_exception(error)
    else:
        fut.set_result(result)


def _library_error(e):
    """A library's refusal (bad value for this position) as a 400."""
    if isinstance(e, (ValueError, TypeError)):
        return BadRequest(str(e).splitlines()[0] if str(e) else type(e).__name__)
    return e


# ---------------------------------------------------------------------------- routes
async def index(request):
    return Response(_static_text("index.html"), media_type="text/html; charset=utf-8")


def _static_text(name):
    return resources.files("ttt_engine.web").joinpath("static", name).read_text("utf-8")


async def api_games(request):
    s = request.app.state.settings
    out = []
    for g in games.GAMES.values():
        out.append({"key": g.key, "title": g.title, "sides": list(g.sides),
                    "options": dict(g.options), "default_engine": g.default_engine,
                    "legend": g.legend(), "hint": g.prompt_hint(),
                    "engines": [{"name": e.name, "help": e.help, "budgets": list(e.budgets)}
                                for e in g.engines.values()]})
    return JSONResponse({"games": out, "caps": {"time": s.max_time,
                                                "simulations": s.max_simulations,
                                                "depth": s.max_depth}})


async def api_position(request):
    data = await _body(request)
    game = _game(data)
    board, texts = _board(game, data)
    moves = list(data.get("moves") or [])
    if "play" in data:
        play = data["play"]
        if board.is_terminal():
            raise BadRequest("the game is over: there is no move to make")
        if isinstance(play, str):
            if len(play) > MAX_TEXT:
                raise BadRequest(f"a move is at most {MAX_TEXT} characters")
            try:
                m = game.parse_move(board, play)
            except ValueError as e:
                raise BadRequest(f"not a legal move: {e}") from None
        elif isinstance(play, int) and not isinstance(play, bool):
            if play not in board.legal_moves:
                raise BadRequest(f"move {play} is not legal here")
            m = play
        else:
            raise BadRequest("play must be a move in the game's notation")
        texts.append(game.move_to_str(board, m))
        board.push(m)
        moves.append(m)
    return JSONResponse(position(game, board, texts, moves))


def _search_request(request, data):
    game = _game(data)
    board, texts = _board(game, data)
    if board.is_terminal():
        raise BadRequest("the game is over: there is nothing to search")
    name = data.get("engine", game.default_engine)
    if name not in game.engines:
        raise BadRequest(f"unknown {game.title} engine {str(name)[:40]!r}; engines: "
                         f"{', '.join(game.engines)}")
    budgets = _budgets(request.app.state.settings, game.engines[name], data)
    seed = _seed(data)
    return game, board, texts, name, budgets, seed


def _run_analysis(app, game, board, name, budgets, seed, on_update=None, stop=None):
    agent = _agent(app, game, name, board, budgets, seed)
    stopping = app.state.stopping

    def should_stop():
        return stopping.is_set() or (stop is not None and stop())
    # live slices (and early stops) only for a thinking time the user chose;
    # otherwise the agent's own search, as select_move runs it
    live = budgets.get("time") if not budgets.get("_guard") else None
    named = None if on_update is None else (lambda a: on_update(replace(a, engine=name)))
    try:
        a = analyse(game, board, agent, on_update=named if live else None,
                    stop=should_stop if live else None)
        return replace(a, engine=name)
    except (ValueError, TypeError) as e:
        raise _library_error(e) from None


async def api_engine_move(request):
    data = await _body(request)
    game, board, texts, name, budgets, seed = _search_request(request, data)
    app = request.app
    a = await _in_thread(app, lambda: _run_analysis(app, game, board, name, budgets, seed))
    move = a.best_move
    moves = list(data.get("moves") or []) + [move]
    before = board.copy()
    texts.append(game.move_to_str(board, move))
    board.push(move)
    return JSONResponse({"move": move, "text": texts[-1],
                         "analysis": _analysis_json(game, a, before),
                         "position": position(game, board, texts, moves)})


async def api_analyse(request):
    data = await _body(request)
    game, board, texts, name, budgets, seed = _search_request(request, data)
    app = request.app
    if not data.get("stream"):
        a = await _in_thread(app, lambda: _run_analysis(app, game, board, name, budgets, seed))
        return JSONResponse(_analysis_json(game, a, board))
    loop = asyncio.get_running_loop()
    queue = asyncio.Queue()
    gone = threading.Event()

    def on_update(a):
        loop.call_soon_threadsafe(queue.put_nowait, ("update", a))

    async def produce():
        try:
            a = await _in_thread(app, lambda: _run_analysis(app, game, board, name, budgets,
                                                            seed, on_update, gone.is_set))
            await queue.put(("final", a))
        except HTTPException as e:
            await queue.put(("error", e.detail))
        except Exception as e:      # a bug: one line to the page
            await queue.put(("error", f"internal error ({type(e).__name__}: {e})"))

    task = asyncio.ensure_future(produce())

    async def events():
        try:
            while True:
                kind, item = await queue.get()
                if kind == "error":
                    yield f"data: {json.dumps({'error': item})}\n\n"
                    return
                d = _analysis_json(game, item, board)
                if kind == "final":
                    d["done"] = True
                yield f"data: {json.dumps(d)}\n\n"
                if kind == "final":
                    return
        finally:
            gone.set()
            if not task.done():
                task.add_done_callback(lambda t: t.exception() if not t.cancelled() else None)

    return StreamingResponse(events(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-store"})


async def api_solve(request):
    data = await _body(request)
    game = _game(data)
    board, _texts = _board(game, data)
    s = request.app.state.settings
    limit = data.get("time", s.max_time)
    if isinstance(limit, bool) or not isinstance(limit, (int, float)) or \
            not math.isfinite(limit) or limit <= 0:
        raise BadRequest("time must be a number of seconds more than 0")
    if limit > s.max_time:
        raise BadRequest(f"time {limit:g} s is above this server's cap of {s.max_time:g} s")
    reason = game.long_solve(board) if game.long_solve is not None else None
    if reason is not None:
        raise BadRequest(reason)

    def work():
        try:
            return game.module.solve(board, time_limit=float(limit))
        except (ValueError, TypeError) as e:
            raise _library_error(e) from None
    r = await _in_thread(request.app, work)
    best = game.move_to_str(board, r.best_move) if r.best_move is not None else None
    return JSONResponse({"value": r.value, "winner": r.winner, "best_move": r.best_move,
                         "best_text": best, "plies": r.plies, "nodes": r.nodes,
                         "seconds": r.seconds, "side": board.to_move})


# ---------------------------------------------------------------------------- errors
async def _http_error(request, exc):
    return JSONResponse({"error": exc.detail}, status_code=exc.status_code)


async def _internal_error(request, exc):
    text = " ".join(f"{type(exc).__name__}: {exc}".split())[:200]
    return JSONResponse({"error": f"internal error ({text})"}, status_code=500)


class _Guard:
    """ASGI middleware: refuse other origins and foreign host names (403)."""

    def __init__(self, app, allowed_hosts):
        self.app = app
        self.allowed = None if allowed_hosts is None else {h.lower() for h in allowed_hosts}

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http":
            headers = {k.decode("latin-1").lower(): v.decode("latin-1")
                       for k, v in scope.get("headers", ())}
            reason = self._refuse(headers)
            if reason:
                await JSONResponse({"error": reason}, status_code=403)(scope, receive, send)
                return
        await self.app(scope, receive, send)

    def _refuse(self, headers):
        host = headers.get("host", "").lower()
        if self.allowed is not None and host not in self.allowed:
            return f"this server answers only to {', '.join(sorted(self.allowed))}"
        origin = headers.get("origin")
        if origin is not None and origin.lower() != f"http://{host}":
            return "requests from other origins are refused"
        if headers.get("sec-fetch-site") in ("cross-site", "same-site"):
            return "requests from other sites are refused"
        return None


def build_app(settings):
    routes = [
        Route("/", index),
        Route("/api/games", api_games),
        Route("/api/position", api_position, methods=["POST"]),
        Route("/api/engine-move", api_engine_move, methods=["POST"]),
        Route("/api/analyse", api_analyse, methods=["POST"]),
        Route("/api/solve", api_solve, methods=["POST"]),
        Mount("/static", StaticFiles(packages=[("ttt_engine.web", "static")]), name="static"),
    ]
    app = Starlette(routes=routes, exception_handlers={HTTPException: _http_error,
                                                       Exception: _internal_error})
    app.state.settings = settings
    app.state.learned = _Learned(settings)
    app.state.slots = asyncio.Semaphore(max(1, int(settings.workers)))
    app.state.stopping = threading.Event()
    app.add_middleware(_Guard, allowed_hosts=settings.allowed_hosts)
    return app
