"""Reading and checking a request of the page's API (:mod:`ttt_engine.web.app`):
the JSON body, the game, its first position and moves, the seed and the
budgets against the server's caps.  Anything wrong is a :class:`BadRequest`:
a 4xx answer with one line saying why."""
from __future__ import annotations

import json
import math

from starlette.exceptions import HTTPException

from ttt_engine import games
from ttt_engine._util import unknown_options
from ttt_engine.web import record as _record

__all__ = ["BadRequest", "MAX_BODY", "MAX_MOVES", "MAX_TEXT", "read_json", "game_of",
           "start_of", "board_of", "engine_of", "stream_of", "seed_of", "budgets_of",
           "seconds_of", "library_error"]

#: Largest request body read (bytes).
MAX_BODY = 64 * 1024
#: Longest game accepted (moves).
MAX_MOVES = 5000
#: Longest move text read.
MAX_TEXT = 40


class BadRequest(HTTPException):
    """A 4xx answer with a one-line reason."""

    def __init__(self, reason, status=400):
        super().__init__(status, " ".join(str(reason).split())[:300])



async def read_json(request, fields):
    """The request's JSON object, with no field but ``fields`` (an unknown one,
    a typo say, is refused rather than ignored)."""
    if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
        raise BadRequest("send the request as JSON (Content-Type: application/json)", 415)
    raw = await _body(request)
    try:
        data = json.loads(raw, parse_int=_json_int)
    except BadRequest:
        raise
    except (ValueError, UnicodeDecodeError) as e:
        raise BadRequest(f"malformed JSON: {e}") from None
    except RecursionError:
        raise BadRequest("the request body is not valid JSON (nested too deeply)") from None
    if not isinstance(data, dict):
        raise BadRequest("the request must be a JSON object")
    bad = [k for k in data if k not in fields]
    if bad:
        raise BadRequest(unknown_options(f"a request to {request.url.path}", bad, fields,
                                         "its fields"))
    return data


#: Digits of the longest integer a request may hold; a longer one is refused by this
#: limit, not by Python's own on int conversion (4300 digits), whose message names an
#: interpreter setting to the client.  Shorter ones reach the fields' own checks (caps).
MAX_INT_DIGITS = 1000


def _json_int(text):
    digits = len(text.lstrip("-"))
    if digits > MAX_INT_DIGITS:
        raise BadRequest(f"a number in the request has {digits:,} digits; numbers here have "
                         f"at most {MAX_INT_DIGITS}")
    return int(text)


async def _body(request):
    """The body, refused (413) by its Content-Length before it is read, or
    once it passes ``MAX_BODY`` while it is read: a huge body costs no memory."""
    length = request.headers.get("content-length")
    if length is not None:
        if not (length.isascii() and length.isdigit()):
            raise BadRequest(f"Content-Length must be a number of bytes, got {length[:20]!r}")
        if int(length) > MAX_BODY:
            raise BadRequest(f"the request is too large ({int(length):,} bytes; at most "
                             f"{MAX_BODY:,})", 413)
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY:
            raise BadRequest(f"the request is too large (more than {MAX_BODY:,} bytes)", 413)
        chunks.append(chunk)
    return b"".join(chunks)


def game_of(data):
    key = data.get("game")
    try:
        return games.get(key)
    except ValueError as e:
        raise BadRequest(e) from None


def start_of(game, data):
    """The first position: ``data["start"]`` (the game's ``to_string`` text, read
    with ``data["options"]``, which must agree with it) or a new board with
    ``data["options"]``; and the board's options."""
    options = data.get("options") or {}
    if not isinstance(options, dict):
        raise BadRequest("options must be an object of board options")
    for k, v in options.items():
        if not isinstance(v, (bool, int)) or (isinstance(v, float) and not math.isfinite(v)):
            raise BadRequest(f"board option {k!r} must be a whole number or true/false")
    start = data.get("start")
    if start is not None:
        if not isinstance(start, str) or len(start) > _record.MAX_RECORD:
            raise BadRequest("start must be a position as the game's text (to_string)")
        try:
            board = _record.start_board(game, start, options)
        except ValueError as e:
            raise BadRequest(e) from None
        return board, _record.board_options(game, board)
    try:
        return game.new_board(**options), options
    except (ValueError, TypeError, OverflowError) as e:
        raise BadRequest(f"bad board options: {e}") from None


def board_of(game, data):
    """The position after ``data["moves"]`` (each checked), and the move texts."""
    board, _options = start_of(game, data)
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


def engine_of(game, data):
    """The engine's name: ``data["engine"]`` (the game's default when absent),
    one of the game's engines."""
    name = data.get("engine", game.default_engine)
    if not isinstance(name, str) or name not in game.engines:
        raise BadRequest(f"unknown {game.title} engine {json.dumps(name)[:40]}; engines: "
                         f"{', '.join(game.engines)}")
    return name


def _number(value):
    """A JSON number that is finite (an integer of any size is)."""
    return not isinstance(value, bool) and (
        isinstance(value, int) or (isinstance(value, float) and math.isfinite(value)))


def _shown(value):
    """A number for a message: huge integers are not written out in full."""
    if isinstance(value, int):
        return f"{value:,}" if abs(value) < 10**15 else f"{str(value)[:6]}... ({len(str(value))} digits)"
    return f"{value:g}"


def seconds_of(settings, key, value):
    """A time in seconds: a number more than 0 and at most the server's time cap."""
    if not _number(value) or value <= 0:
        raise BadRequest(f"{key} must be a number of seconds more than 0, "
                         f"got {json.dumps(value)[:40]}")
    if value > settings.max_time:
        raise BadRequest(f"{key} {_shown(value)} s is above this server's cap of "
                         f"{settings.max_time:g} s")
    return float(value)


def stream_of(data, always=False):
    """Whether the answer streams: ``data["stream"]``, true or false (``always``:
    a route that only streams takes only true)."""
    stream = data.get("stream", always)
    if not isinstance(stream, bool) or (always and not stream):
        raise BadRequest("stream must be true" + ("" if always else " or false") +
                         f", got {json.dumps(stream)[:40]}")
    return stream


def seed_of(data):
    seed = data.get("seed")
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
        raise BadRequest("seed must be a whole number from 0 to 2**63 - 1, or null")
    return seed


def budgets_of(settings, engine, data):
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
        if not _number(value):
            raise BadRequest(f"{key} must be a number, got {json.dumps(value)[:40]}")
        if key == "time":
            out[key] = seconds_of(settings, key, value)
        else:
            cap = settings.max_simulations if key == "simulations" else settings.max_depth
            if value != int(value) or value < 1:
                raise BadRequest(f"{key} must be a whole number of at least 1")
            if value > cap:
                raise BadRequest(f"{key} {_shown(int(value))} is above this server's cap "
                                 f"of {cap:,}")
            out[key] = int(value)
    if "time" in engine.budgets and "time" not in out and (
            "simulations" in engine.budgets or "depth" in engine.budgets):
        # a guard: the other budget ends the search first (iterative deepening up to
        # the depth), unless it is too big
        if "simulations" in engine.budgets:
            out.setdefault("simulations", 20_000)      # the console's default
        out["time"], out["_guard"] = settings.max_time, True
    return out



def library_error(e):
    """A library's refusal (bad value for this position) as a 400."""
    if isinstance(e, (ValueError, TypeError)):
        return BadRequest(str(e).splitlines()[0] if str(e) else type(e).__name__)
    return e

