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
- ``POST /api/solve``: the game module's ``solve`` within the time cap;
- ``POST /api/review``: server-sent events, one per move of the game, each
  move marked from the drop in its side's evaluation (exact where the exact
  engines finish the position), the last with ``"done": true``;
- ``POST /api/record``: ``text`` (a record, a position or a move list, see
  :mod:`ttt_engine.web.record`) read into ``game``, ``options``, ``start``
  and ``moves``; with ``partial`` a move list that stops at a bad move gives the
  moves before it and ``error``, the reason (a ``pos=`` link);
- ``GET /api/status``: searches running and waiting, and the limits.

A request may name a first position other than the new board: ``"start"``,
the game's ``to_string`` text.  Searches run in their own threads (at most
``Settings.workers`` at once; up to ``Settings.queue`` more wait, further ones
get 503 with the reason), never on the event loop, so one long search does not
hold up other requests.  A streamed search stops within a step (0.05 s for a
tree search, a depth for alpha-beta) once its client goes away.  Budgets above the caps are refused; an engine with a time
budget also gets the time cap as a guard (a bound for a depth-first search).  Requests from another origin
(``Origin`` or ``Sec-Fetch-Site``), and to a host name that is not the
server's when it listens on loopback, are refused with 403.

This module holds the routes and :func:`build_app`; requests are read and
checked in :mod:`ttt_engine.web.inputs`, the search threads and their queue
are :mod:`ttt_engine.web.searches`, the server-sent events
:mod:`ttt_engine.web.stream`.
"""
from __future__ import annotations

import contextlib
import threading
from dataclasses import dataclass, replace
from importlib import resources

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ttt_engine import games
from ttt_engine.analysis import analyse, move_geometry, review
from ttt_engine._svg import board_svg
from ttt_engine.web import record as _record
from ttt_engine.web.inputs import (MAX_TEXT, BadRequest, board_of, budgets_of, engine_of,
                                   game_of, library_error, read_json, seconds_of, seed_of,
                                   start_of, stream_of)
from ttt_engine.web.searches import Searches, in_thread
from ttt_engine.web.stream import EventStream

__all__ = ["Settings", "build_app", "BadRequest"]


@dataclass(frozen=True)
class Settings:
    """Server settings.

    - max_time: cap on an engine's thinking time per request (seconds), also the
      guard on searches given no time; max_simulations: cap on MCTS / tree
      simulations; max_depth: cap on search depth; workers: searches at once;
    - allowed_hosts: the Host header values accepted (None: any; ``serve`` sets
      the loopback names when it listens on loopback);
    - learn_games: random games behind a value engine's table when none is saved;
    - queue: searches that may wait for a worker (more are refused with 503);
    - review_time: seconds per position of a game review by an engine with a time budget;
    - networks: (game key, network file) pairs: the network the ``az`` engine of
      that game plays with instead of the shipped one.
    """
    max_time: float = 10.0
    max_simulations: int = 2_000_000
    max_depth: int = 64
    workers: int = 2
    allowed_hosts: tuple | None = None
    learn_games: int = 20_000
    queue: int = 32
    review_time: float = 0.2
    networks: tuple = ()


# ---------------------------------------------------------------------------- fields
#: The fields each route reads (any other is refused).
POSITION = ("game", "options", "start", "moves")
SEARCH = POSITION + ("engine", "budgets", "seed")
FIELDS = {"position": POSITION + ("play",), "engine-move": SEARCH,
          "analyse": SEARCH + ("stream",), "review": SEARCH + ("stream",),
          "solve": POSITION + ("time",), "record": ("game", "options", "text", "partial")}


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


def position(game, board, texts, moves, data=None):
    rows, cols = _geometry(board)
    first, options = start_of(game, data or {})
    start = (data or {}).get("start")
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
        "start": start, "options": options,
        "record": _record.write_record(game, moves, start=first if start is not None else None,
                                       options=options),
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

    #: The seed of what the server learns: the same table whichever request
    #: comes first.
    LEARN_SEED = 0

    def __init__(self, settings):
        self.settings = settings
        # held while an agent is in use: one request at a time, from its own seed
        self.lock = threading.RLock()
        self.agents = {}

    def get(self, game, name, board, seed):
        """The shared agent, reseeded with ``seed``; call with ``lock`` held."""
        kind = game.engines[name].learned
        tables = game.value_tables if kind == "values" else None
        key = (game.key, name, tables.tag(board) if tables and tables.tag else None)
        with self.lock:
            agent = self.agents.get(key)
            if agent is None:
                agent = self.agents[key] = self._build(game, name, kind, board,
                                                       self.LEARN_SEED)
            agent.reset(seed=seed)
            return agent

    def _build(self, game, name, kind, board, seed):
        import os
        from ttt_engine._modelfile import model_path, values_path
        if kind == "model":
            path = model_path(game.key, name)
            if os.path.exists(path):
                try:
                    return game.make_agent(name, model=path)
                except (ValueError, OSError):
                    pass
            return game.make_agent(name, seed=seed)
        tables = game.value_tables
        path = values_path(game.key, tables.tag(board) if tables.tag else None)
        table = None
        if os.path.exists(path):
            try:
                table = tables.load(path)
            except (ValueError, OSError):
                table = None
        if table is None:
            table = tables.collect(self.settings.learn_games, seed=seed, board=board)
        return game.make_agent(name, seed=seed, values=table)


def _agent(app, game, name, board, budgets, seed):
    engine = game.engines[engine_of(game, {"engine": name})]
    if engine.learned:
        return app.state.learned.get(game, name, board, seed)
    kw = {k: v for k, v in budgets.items() if not k.startswith("_")}
    network = app.state.networks.get(game.key)
    if network is not None and "network" in engine.extra:
        kw["network"] = network
    try:
        return game.make_agent(name, seed=seed, **kw)
    except (ValueError, TypeError) as e:
        raise BadRequest(e) from None


def _analysis_json(game, a, board, last_move=None):
    d = a.to_dict()
    d["svg"] = a.to_svg()
    d["best_text"] = game.move_to_str(board, a.best_move) if a.best_move is not None else None
    return d


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
    data = await read_json(request, FIELDS["position"])
    game = game_of(data)
    board, texts = board_of(game, data)
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
    return JSONResponse(position(game, board, texts, moves, data))


def _search_request(request, data):
    game = game_of(data)
    board, texts = board_of(game, data)
    if board.is_terminal():
        raise BadRequest("the game is over: there is nothing to search")
    name = engine_of(game, data)
    budgets = budgets_of(request.app.state.settings, game.engines[name], data)
    seed = seed_of(data)
    return game, board, texts, name, budgets, seed


def _run_analysis(app, game, board, name, budgets, seed, on_update=None, stop=None):
    with _using(app, game, name):
        return _analysis(app, game, board, name, budgets, seed, on_update, stop)


def _using(app, game, name):
    """The lock a learned engine's shared agent is used under (else none)."""
    return app.state.learned.lock if _learned(game, name) else contextlib.nullcontext()


def _analysis(app, game, board, name, budgets, seed, on_update, stop):
    agent = _agent(app, game, name, board, budgets, seed)
    stopping = app.state.stopping

    def should_stop():
        return stopping.is_set() or (stop is not None and stop())
    # live slices (and early stops) only for a thinking time the user chose;
    # otherwise the agent's own search, as select_move runs it
    live = budgets.get("time") if not budgets.get("_guard") else None
    who = getattr(agent, "name", name)

    def named(a):
        return replace(a, engine=name, stats=dict(a.stats, agent=who))
    # a depth-first search polls its stop inside a depth (a tree search with a
    # simulation budget takes none: a stop would make it a time search)
    polls = live or "depth" in game.engines[name].budgets
    try:
        a = analyse(game, board, agent, on_update=None if on_update is None or not live
                    else (lambda a: on_update(named(a))),
                    stop=should_stop if polls else None)
        return named(a)
    except (ValueError, TypeError) as e:
        raise library_error(e) from None


async def api_engine_move(request):
    data = await read_json(request, FIELDS["engine-move"])
    game, board, texts, name, budgets, seed = _search_request(request, data)
    app = request.app
    a = await in_thread(app, lambda: _run_analysis(app, game, board, name, budgets, seed))
    move = a.best_move
    moves = list(data.get("moves") or []) + [move]
    before = board.copy()
    texts.append(game.move_to_str(board, move))
    board.push(move)
    return JSONResponse({"move": move, "text": texts[-1],
                         "analysis": _analysis_json(game, a, before),
                         "position": position(game, board, texts, moves, data)})



async def api_analyse(request):
    data = await read_json(request, FIELDS["analyse"])
    game, board, texts, name, budgets, seed = _search_request(request, data)
    app = request.app
    if not stream_of(data):
        a = await in_thread(app, lambda: _run_analysis(app, game, board, name, budgets, seed))
        return JSONResponse(_analysis_json(game, a, board))
    app.state.searches.admit()

    def work(emit, stopped):
        return _run_analysis(app, game, board, name, budgets, seed, emit, stopped)
    return EventStream(app, work, lambda a: _analysis_json(game, a, board))


def _note_json(game, n):
    first = game.sides[0]

    def view(score, side):              # the first player's view, for the graph
        return None if score is None else (score if side == first else -score)
    return {"ply": n.ply, "move": n.move, "text": n.text, "side": n.side,
            "before": n.before, "after": n.after, "value_before": view(n.before, n.side),
            "value_after": view(n.after, n.side), "exact_before": n.exact_before,
            "exact_after": n.exact_after, "mark": n.mark, "note": n.note, "best": n.best}


async def api_review(request):
    """Every move of the game marked (see :func:`ttt_engine.analysis.review`),
    as server-sent events: one per move, then ``{"done": true}``."""
    data = await read_json(request, FIELDS["review"])
    game = game_of(data)
    first, _options = start_of(game, data)
    board_of(game, data)                              # the moves, checked
    app = request.app
    s = app.state.settings
    stream_of(data, always=True)
    name = engine_of(game, data)
    budgets = _review_budgets(s, game.engines[name], data)
    seed = seed_of(data)
    moves = list(data.get("moves") or [])
    app.state.searches.admit()

    def work(emit, stopped):
        def quit_():
            return stopped() or app.state.stopping.is_set()
        agent = None
        try:
            with _using(app, game, name):
                if not _learned(game, name):
                    evaluate = name                 # built per position with the budgets
                else:
                    agent = _agent(app, game, name, first, {}, seed)
                    evaluate = agent
                kw = dict(budgets, seed=seed) if agent is None else {}
                notes = review(game, moves, start=first, engine=evaluate, stop=quit_,
                               on_note=lambda n: emit(_note_json(game, n)), **kw)
        except (ValueError, TypeError) as e:
            raise library_error(e) from None
        return {"moves": len(notes)}
    return EventStream(app, work, lambda item: item, latest=False)


#: Longest time a review gives one position (seconds).
REVIEW_MAX_TIME = 1.0


def _review_budgets(settings, engine, data):
    """The budgets of a review's engine per position: checked as for
    engine-move; a time at most ``REVIEW_MAX_TIME``, which is also the guard
    of a simulation or depth budget; no budget: ``review_time`` seconds."""
    cap = min(REVIEW_MAX_TIME, settings.max_time)
    given = budgets_of(settings, engine, data)
    out = {k: v for k, v in given.items() if not k.startswith("_")}
    if "time" not in engine.budgets:
        return out
    if not given.get("_guard") and "time" in out:
        if out["time"] > cap:
            raise BadRequest(f"a review gives each position at most {cap:g} s; "
                             f"time {out['time']:g} s is more")
        return out
    asked = {k for k, v in (data.get("budgets") or {}).items() if v not in (None, "")}
    if not asked:
        return {"time": min(settings.review_time, cap)}
    return dict({k: out[k] for k in asked}, time=cap)


def _learned(game, name):
    return bool(game.engines[name].learned)


async def api_record(request):
    data = await read_json(request, FIELDS["record"])
    key = data.get("game")
    text = data.get("text")
    if not isinstance(text, str):
        raise BadRequest("text must be a record, a position or a move list")
    try:
        game = games.get(key) if key is not None else None
    except ValueError as e:
        raise BadRequest(e) from None
    options = data.get("options") or {}
    if not isinstance(options, dict):
        raise BadRequest("options must be an object of board options")
    partial = data.get("partial", False)
    if not isinstance(partial, bool):
        raise BadRequest("partial must be true or false")
    try:
        rec = _record.read_record(text, game, options, partial=partial)
    except ValueError as e:
        raise BadRequest(str(e).splitlines()[0] if str(e) else "not a record") from None
    return JSONResponse({"game": rec.game.key, "options": rec.options,
                         "start": None if rec.start is None else rec.start.to_string(),
                         "moves": list(rec.moves), "error": rec.error})


async def api_status(request):
    return JSONResponse(request.app.state.searches.status())


#: The page's icon: a noughts-and-crosses grid, drawn inline (no file, no 404).
FAVICON = ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">'
           '<rect width="32" height="32" rx="5" fill="#faf8f2"/>'
           '<path d="M11 3v26M21 3v26M3 11h26M3 21h26" stroke="#555" stroke-width="2"/>'
           '<path d="M4 4l5 5M9 4l-5 5" stroke="#1565c0" stroke-width="2"/>'
           '<circle cx="16" cy="16" r="3" fill="none" stroke="#c62828" stroke-width="2"/>'
           '<path d="M24 24l5 5M29 24l-5 5" stroke="#1565c0" stroke-width="2"/></svg>')


async def favicon(request):
    return Response(FAVICON, media_type="image/svg+xml",
                    headers={"Cache-Control": "max-age=86400"})


async def api_solve(request):
    data = await read_json(request, FIELDS["solve"])
    game = game_of(data)
    board, _texts = board_of(game, data)
    s = request.app.state.settings
    limit = seconds_of(s, "time", data.get("time", s.max_time))
    reason = game.long_solve(board) if game.long_solve is not None else None
    if reason is not None:
        raise BadRequest(reason)

    def work():
        try:
            return game.module.solve(board, time_limit=float(limit))
        except (ValueError, TypeError) as e:
            raise library_error(e) from None
    r = await in_thread(request.app, work)
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


def _networks(pairs):
    """The networks the server's engines play with, by game key: each file read
    once and checked against its game (one loaded network serves every request:
    its forward pass is thread-safe)."""
    from ttt_engine.network import Network
    return {key: Network.load(path, key) for key, path in pairs}


def build_app(settings):
    routes = [
        Route("/", index),
        Route("/api/games", api_games),
        Route("/api/position", api_position, methods=["POST"]),
        Route("/api/engine-move", api_engine_move, methods=["POST"]),
        Route("/api/analyse", api_analyse, methods=["POST"]),
        Route("/api/solve", api_solve, methods=["POST"]),
        Route("/api/review", api_review, methods=["POST"]),
        Route("/api/record", api_record, methods=["POST"]),
        Route("/api/status", api_status),
        Route("/favicon.ico", favicon),
        Mount("/static", StaticFiles(packages=[("ttt_engine.web", "static")]), name="static"),
    ]
    app = Starlette(routes=routes, exception_handlers={HTTPException: _http_error,
                                                       Exception: _internal_error})
    app.state.settings = settings
    app.state.learned = _Learned(settings)
    app.state.networks = _networks(settings.networks)
    app.state.searches = Searches(settings.workers, settings.queue)
    app.state.stopping = threading.Event()
    app.add_middleware(_Guard, allowed_hosts=settings.allowed_hosts)
    return app
