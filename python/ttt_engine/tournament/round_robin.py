"""Round-robin tournaments between agents, on any executor, resumable from a file.

Every pair of entrants plays ``games_per_pair`` games, alternating who moves
first (game ``g``: the earlier entrant in the list moves first when ``g`` is
even).  Work goes to the executor as coarse tasks, one pairing times a block of
games each; every game has its own seed, derived from the tournament seed, the
two entrants' names and the game number, and written into the task's
arguments.  Each game builds fresh agents from their specs with seeds drawn
from the game's seed, so a game's result depends only on (specs, budget, game
seed): with simulation budgets the same seed gives the same table serially, on
a process pool or on a Dask cluster.  Time budgets are not reproducible (the
work done in a move's time depends on the machine and its load).

Opening suite (``openings=``): every pairing plays from a fixed list of short
openings instead of the empty board, each opening twice with the colours
swapped (game ``g`` starts from opening ``g // 2``; the earlier entrant moves
first after it when ``g`` is even), so a match measures the engines rather
than the luck of the first moves.  :func:`opening_suite` draws such a list of
distinct random openings from a seed; the list is stored in the results
file's header, and a resumed run must use the same one.

Yardstick (``yardstick=N``, for a game whose exact yardstick suite ships, see
:mod:`ttt_engine.yardstick`): after the games, every entrant is built as for a
game (same engine, keywords and budget, seeded with the tournament seed) and
plays the same N positions of the suite, drawn with the tournament seed; the
share of its moves that keep the game-theoretic value, and of optimal ones,
join the result's table.  The measurement is not stored in ``out`` (it is
made again on a resumed run; with simulation budgets it comes out the same).
"""
from __future__ import annotations

import dataclasses
import math
import pickle
import time
import zlib

import numpy as np

from ttt_engine import games
from ttt_engine import yardstick as _yardstick
from ttt_engine._util import (check_bool, check_int, check_seconds, check_simulations,
                               resolve_seed, takes_keyword)
from ttt_engine.analysis import explain
from ttt_engine.tournament._runner import (
    check_executor,
    check_picklable,
    open_results,
    run_tasks,
)
from ttt_engine.tournament._table import TournamentResult

__all__ = [
    "Entrant",
    "TournamentError",
    "check_yardstick",
    "TournamentResult",
    "OPENING_PLIES",
    "game_seed",
    "opening_suite",
    "play_game",
    "round_robin",
]

#: Default length (plies) of a random opening, per registry game (each game's
#: ``opening_plies``; a read-only view of the registry).
OPENING_PLIES = games.FactView("opening_plies")
#: The default of :class:`ttt_engine.games.Game`'s ``opening_plies``.
DEFAULT_OPENING_PLIES = games.Game.__dataclass_fields__["opening_plies"].default

FORMAT = 1


@dataclasses.dataclass(frozen=True)
class Entrant:
    """A named agent spec.

    ``agent`` is one of: an engine name of the game's registry (``"mcts"``),
    built by ``games.get(game).make_agent(name, seed=, simulations=, time=,
    **kwargs)``; a picklable factory (a class or module-level function) called
    as ``factory(**kwargs)`` plus ``seed=`` (and ``simulations=`` / ``time=``,
    the tournament's budget, when it takes them and ``kwargs`` does not set
    them); or a picklable agent instance, copied for every game and reset with
    the game's seed (``reset(seed=)``).
    """
    name: str
    agent: object
    kwargs: dict = dataclasses.field(default_factory=dict)

    def describe(self):
        """A JSON-able description, stored in the results file's header."""
        a = self.agent
        if isinstance(a, str):
            kind = {"engine": a}
        elif _is_agent(a):
            kind = {"agent": type(a).__module__ + "." + type(a).__qualname__,
                    "repr": repr(a)}
        else:
            kind = {"factory": getattr(a, "__module__", "?") + "." +
                    getattr(a, "__qualname__", repr(a))}
        return {**kind, "kwargs": {k: _jsonable(v) for k, v in sorted(self.kwargs.items())}}


def _is_agent(obj):
    return not isinstance(obj, type) and callable(getattr(obj, "select_move", None))


def _jsonable(v):
    return v if isinstance(v, (str, int, float, bool, type(None))) else repr(v)


class TournamentError(RuntimeError):
    """Some tasks failed; ``result`` holds everything that finished, ``errors``
    the failures (pairing, games, seeds, message)."""

    def __init__(self, message, result):
        super().__init__(message)
        self.result = result
        self.errors = result.errors


def _crc(name):
    return zlib.crc32(name.encode())


def game_seed(seed, a, b, game):
    """The seed of game number ``game`` between entrants named ``a`` and ``b``."""
    ss = np.random.SeedSequence(seed, spawn_key=(_crc(a), _crc(b), int(game)))
    return int(ss.generate_state(1, np.uint64)[0] >> np.uint64(1))


def opening_suite(game, count, plies=None, seed=2026, options=None):
    """``count`` distinct random openings of ``plies`` plies each, as lists of
    moves (the board's ``push`` encoding), drawn with uniformly random legal
    moves from ``seed``: the same arguments always give the same suite.  No
    opening ends the game.  ``plies`` defaults to :data:`OPENING_PLIES` of the
    game (its ``opening_plies``; a registry key; a board class
    needs ``plies``).  ``ValueError`` if
    the game has fewer than ``count`` such openings (e.g. Tic-Tac-Toe has 72
    of two plies).

    >>> opening_suite("ttt", 3, plies=2, seed=1) == opening_suite("ttt", 3, plies=2, seed=1)
    True
    """
    if not isinstance(game, str) and not callable(game):
        raise ValueError(f"game must be a registry key such as 'uttt' or a board class, "
                         f"got {game!r}")
    if plies is None:
        if not isinstance(game, str):
            raise ValueError("plies= is needed for a game given as a board class")
        plies = games.get(game).opening_plies
    count = check_int("count", count, min=1, max=100_000)
    plies = check_int("plies", plies, min=0, max=1000)
    seed = resolve_seed(seed)
    rng = np.random.default_rng(seed)
    found, seen = [], set()
    for _ in range(50 * count + 1000):
        board = _make_board(game, options or {})
        line = []
        while len(line) < plies and not board.is_terminal():
            moves = list(board.legal_moves)
            move = moves[int(rng.integers(len(moves)))]
            board.push(move)
            line.append(int(move))
        if board.is_terminal() or tuple(line) in seen:
            continue
        seen.add(tuple(line))
        found.append(line)
        if len(found) == count:
            return found
    raise ValueError(f"found only {len(found)} distinct {plies}-ply openings that do not end "
                     f"the game; ask for at most {len(found)} (or more plies)")


def _check_openings(game, openings, plies, options):
    """``openings`` (None, a count or a list of move lists) as a list of lists."""
    if openings is None:
        return None
    if isinstance(openings, (int, np.integer)) and not isinstance(openings, bool):
        return opening_suite(game, int(openings), plies, options=options)
    if isinstance(openings, (str, bytes)) or not hasattr(openings, "__iter__"):
        raise ValueError("openings must be a number of random openings or a list of move "
                         f"lists, got {type(openings).__name__}")
    out = []
    for i, line in enumerate(openings):
        if isinstance(line, (str, bytes)) or not hasattr(line, "__iter__"):
            raise ValueError(f"opening {i} must be a list of moves, got {line!r}")
        board = _make_board(game, options or {})
        moves = []
        for m in line:
            try:
                board.push(m)
            except (ValueError, TypeError) as exc:
                raise ValueError(f"opening {i} ({list(line)!r}): move {m!r} is not legal "
                                 f"there ({exc})") from None
            moves.append(int(m))
        if board.is_terminal():
            raise ValueError(f"opening {i} ({moves!r}) ends the game")
        out.append(moves)
    if not out:
        raise ValueError("openings is empty")
    return out


# ---------------------------------------------------------------- in the worker

def _make_board(game, options):
    if isinstance(game, str):
        return games.get(game).new_board(**options)
    return game(**options)




def _build(game, entrant, seed, budget):
    a = entrant.agent
    if isinstance(a, str):
        g = games.get(game)
        takes = getattr(g.engines[a], "budgets", ("simulations", "time"))
        kw = {k: v for k, v in (("simulations", budget[0]), ("time", budget[1]))
              if v is not None and k in takes}
        kw.update(entrant.kwargs)
        return g.make_agent(a, seed=seed, **kw)
    if _is_agent(a):
        agent = pickle.loads(pickle.dumps(a))
        reset = getattr(agent, "reset", None)
        if reset is not None:
            reset(seed=seed) if takes_keyword(reset, "seed") else reset()
        return agent
    kw = dict(entrant.kwargs)
    for key, value in (("simulations", budget[0]), ("time", budget[1])):
        if value is not None and key not in kw and takes_keyword(a, key):
            kw[key] = value
    if "seed" not in kw and takes_keyword(a, "seed"):
        kw["seed"] = seed
    return a(**kw)


def play_game(game, a, b, seed, *, options=None, simulations=None, time_per_move=None,
              a_first=True, max_plies=None, opening=None, analysis=False):
    """Play one game between :class:`Entrant` ``a`` and ``b`` from ``seed`` and
    return its record (a dict: ``winner`` is an entrant name or None for a
    draw; ``capped`` True when the draw is a move cap's: ``max_plies`` or the
    board's own, :func:`ttt_engine.games.capped`).  ``opening``: moves played first, by neither entrant (``a_first``
    then says who plays the side to move after them); ``plies`` counts the
    entrants' moves only.  ``analysis``: each entrant's move is its own analysis's
    best (``agent.analyse``, :func:`ttt_engine.analysis.explain`), and the
    record's ``"analysis"`` lists one ``move_analysis`` per move.  This is what a tournament task runs for each of its games, so a
    reported failure can be replayed here from its seed."""
    sa, sb = (int(x >> np.uint64(1)) for x in
              np.random.SeedSequence(seed).generate_state(2, np.uint64))
    budget = (simulations, time_per_move)
    agents = {a.name: _build(game, a, sa, budget), b.name: _build(game, b, sb, budget)}
    first, second = (a.name, b.name) if a_first else (b.name, a.name)
    board = _make_board(game, options or {})
    for m in opening or ():
        board.push(m)
    first_side = board.to_move
    plies, t0, notes = 0, time.perf_counter(), []
    while not board.is_terminal():
        if max_plies is not None and plies >= max_plies:
            break
        mover = first if board.to_move == first_side else second
        if analysis:
            seen = explain(agents[mover], board)
            notes.append(move_analysis(seen, mover))
            board.push(seen.best_move)
        else:
            board.push(agents[mover].select_move(board))
        plies += 1
    winner = board.winner if board.is_terminal() else None
    if winner in (None, "draw"):
        name = None
    else:
        name = first if winner == first_side else second
    rec = {"a": a.name, "b": b.name, "first": first, "winner": name, "plies": plies,
           "seconds": round(time.perf_counter() - t0, 4)}
    if not board.is_terminal() or games.capped(board):
        rec["capped"] = True        # a draw by a move cap, not by the rules
    if analysis:
        rec["analysis"] = notes
    return rec


#: numbers of an analysis's ``stats`` that are no budget (the move and its value)
_NOT_BUDGET = frozenset({"best_move", "move", "value", "score"})


def move_analysis(a, by):
    """A move's line in a tournament record, from the mover's
    :class:`~ttt_engine.analysis.Analysis`: ``by`` (the entrant), its
    ``move`` and ``kind``, the ``value`` for the mover in [-1, 1], the exact
    ``verdict`` when there is one, the best line ``pv`` (move texts) and the
    ``budget`` used (the analysis's plain numbers: simulations, nodes, depth,
    time ...)."""
    best = a.best
    budget = {k: v for k, v in a.stats.items() if isinstance(v, (int, float))
              and not isinstance(v, bool) and math.isfinite(v) and k not in _NOT_BUDGET}
    return {"by": by, "move": best.text if best is not None else str(a.best_move),
            "kind": a.kind, "value": a.evaluation, "verdict": best and best.verdict,
            "pv": list(a.pv), "budget": budget}


def _opening_of(openings, g):
    """The opening of game ``g``: each one twice in a row (colours swapped)."""
    return None if openings is None else openings[(g // 2) % len(openings)]


def _play_block(task):
    """Worker entry point: play a block of games of one pairing.  Returns the
    finished games' records and, if a game raised, the failure (that game's
    number and seed, the message and traceback); the games before it are kept."""
    import traceback
    records = []
    for g, s in task["games"]:
        try:
            rec = play_game(task["game"], task["a"], task["b"], s, options=task["options"],
                            simulations=task["simulations"], time_per_move=task["time"],
                            a_first=(g % 2 == 0), max_plies=task["max_plies"],
                            opening=_opening_of(task["openings"], g),
                            analysis=task["analysis"])
        except Exception as exc:
            return {"records": records,
                    "error": {"game": g, "seed": s, "message": f"{type(exc).__name__}: {exc}",
                              "traceback": traceback.format_exc()}}
        rec.update(game=g, seed=s)
        if task["openings"] is not None:
            rec["opening"] = (g // 2) % len(task["openings"])
        records.append(rec)
    return {"records": records, "error": None}


# ---------------------------------------------------------------- in the caller

def _entrants(entrants):
    if isinstance(entrants, dict):
        items = [(n, s) for n, s in entrants.items()]
    elif isinstance(entrants, (list, tuple)):
        items = [(None, s) for s in entrants]
    else:
        raise ValueError("entrants must be a list of engine names, Entrant specs or agents, "
                         f"or a dict name -> spec; got {type(entrants).__name__}")
    out = []
    for name, spec in items:
        if isinstance(spec, Entrant):
            e = spec if name is None else dataclasses.replace(spec, name=str(name))
        elif isinstance(spec, str):
            e = Entrant(spec if name is None else str(name), spec)
        elif isinstance(spec, tuple) and len(spec) == 2 and callable(spec[0]) \
                and isinstance(spec[1], dict):
            e = Entrant(str(name) if name is not None else spec[0].__name__, spec[0],
                        dict(spec[1]))
        elif _is_agent(spec):
            e = Entrant(str(name) if name is not None else str(getattr(spec, "name", "")),
                        spec)
        elif callable(spec):
            e = Entrant(str(name) if name is not None else spec.__name__, spec)
        else:
            raise ValueError(f"entrant {name or spec!r} is not an engine name, a factory, "
                             "a (factory, kwargs) pair or an agent with select_move(board)")
        if not e.name:
            raise ValueError(f"entrant {spec!r} needs a name")
        out.append(e)
    names = [e.name for e in out]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ValueError(f"entrant names must be unique; repeated: {', '.join(dup)}")
    if len(out) < 2:
        raise ValueError(f"a round robin needs at least 2 entrants, got {len(out)}")
    return out


def _check_game(game, entrants):
    if isinstance(game, str):
        g = games.get(game)                       # unknown game: ValueError listing them
        for e in entrants:
            if isinstance(e.agent, str) and e.agent not in g.engines:
                raise ValueError(f"unknown agent {e.agent!r} for {game}: choose from "
                                 f"{', '.join(g.engines)}")
            bound = getattr(e.agent, "game", None)
            if not isinstance(e.agent, str) and isinstance(bound, str) and bound != game:
                # refused before any game, not at the agent's first move
                raise ValueError(f"entrant {e.name!r} is a {games.get(bound).title} agent; "
                                 f"this round robin plays {g.title}")
        return game
    if not callable(game):
        raise ValueError(f"game must be a registry key such as 'uttt' or a board class, "
                         f"got {game!r}")
    for e in entrants:
        if isinstance(e.agent, str):
            raise ValueError(f"entrant {e.name!r} names engine {e.agent!r}, which needs the "
                             "game given by its registry key (e.g. game='uttt')")
    return game


def check_yardstick(game, positions, options=None):
    """The suite that ``yardstick=positions`` measures on (game: a registry
    key), or a one-line ``ValueError``: no suite ships for the game, the board
    has options (the suite is of the default board) or ``positions`` is not in
    ``[1, size of the suite]``."""
    if not (isinstance(game, str) and _yardstick.has_suite(game)):
        title = games.get(game).title if isinstance(game, str) else \
            getattr(game, "__name__", repr(game))
        raise ValueError(f"no yardstick suite ships for {title}, so its entrants cannot be "
                         "measured on one (see ttt_engine.yardstick)")
    if options:
        raise ValueError("yardstick= measures on the game's default board; it cannot be "
                         "combined with board options")
    suite = _yardstick.load(_yardstick.suite_path(game))
    check_int("yardstick", positions, min=1, max=len(suite))
    return suite


def _measure(game, specs, suite, positions, seed, budget, progress):
    """``{name: yardstick.Result}``: every entrant, built as for a game with
    ``seed``, on the same ``positions`` positions of ``suite`` (drawn with
    ``seed``)."""
    import sys
    out = {}
    for k, e in enumerate(specs, 1):
        if progress:
            print(f"yardstick {k}/{len(specs)}: {e.name} on {positions:,} positions",
                  file=sys.stderr, flush=True)
        agent = _build(game, e, seed, budget)
        r = _yardstick.yardstick(agent, game, suite, sample=positions, seed=seed,
                                 progress=progress)
        out[e.name] = dataclasses.replace(r, agent=e.name)
    return out


def round_robin(game, entrants, games_per_pair, time_per_move=None, simulations=None,
                seed=None, executor=None, progress=True, out=None, *, options=None,
                block=None, max_plies=None, bootstrap=1000, workers=None, openings=None,
                opening_plies=None, yardstick=None, prepare=None, analysis=False):
    """Play every pair of ``entrants`` against each other ``games_per_pair`` times.

    game: a registry key (``ttt_engine.games.GAMES``: ``"ttt"``, ``"uttt"``,
    ...) or a picklable board class; ``options``: the board's keyword options.
    entrants: a list of engine names (``["mcts", "random"]``), :class:`Entrant`
    specs, ``(factory, kwargs)`` pairs or picklable agents, or a dict
    ``name -> any of those``.  time_per_move / simulations: the budget given to
    every registry engine (and to factories that take ``time`` /
    ``simulations``).  seed: None draws one (recorded in the result and file).
    executor: any :class:`concurrent.futures.Executor` (a Dask cluster:
    ``distributed.Client(address).get_executor()``); None = a process pool with
    ``workers`` processes (default one per core; 1 = serially in this
    process).  block: games per task (default: a quarter of
    ``games_per_pair``, rounded up, so each pairing is 4 tasks).
    out: a JSON-lines file; each task's games are appended as it finishes and a
    rerun with the same file plays only what is missing (a foreign or corrupt
    file is refused, never overwritten).  max_plies: stop a game after that
    many plies as a draw.  bootstrap: replicates for the rating intervals.
    openings: play every pairing from an opening suite, each opening twice
    with colours swapped (see the module docstring): a number ``n`` draws
    ``n`` distinct random openings of ``opening_plies`` plies
    (:func:`opening_suite` with its fixed default seed; ``opening_plies``
    defaults to the game's :data:`OPENING_PLIES`), or give the list of move
    lists itself.  ``games_per_pair = 2 * n`` plays each opening once per
    colour; more games cycle through the suite again.
    yardstick: after the games, measure every entrant on that many positions
    of the game's shipped yardstick suite (see the module docstring;
    ``ValueError`` before any game when no suite ships for the game or the
    number is out of range).  ``progress`` also reports it on stderr.
    analysis: every move is the entrant's own analysis's best (the analysis
    protocol, ``agent.analyse``), and each game's record lists what the
    mover thought of it (:func:`play_game`, ``move_analysis``: value, best
    line, budget used), kept in ``out`` too.
    prepare: called once every argument and ``out`` are checked, before any
    game (work the games need, such as training an entrant's model, done only
    when the tournament can run).

    Returns a :class:`TournamentResult`.  If tasks fail, raises
    :class:`TournamentError` naming the pairings, games and seeds, with every
    finished game in ``.result`` (and in ``out``).
    """
    check_executor(executor)
    specs = _entrants(entrants)
    game = _check_game(game, specs)
    games_per_pair = check_int("games_per_pair", games_per_pair, min=1, max=10**9)
    time_per_move = check_seconds("time_per_move", time_per_move, allow_none=True)
    simulations = check_simulations("simulations", simulations, allow_none=True)
    block = check_int("block", block, min=1, allow_none=True) or math.ceil(games_per_pair / 4)
    max_plies = check_int("max_plies", max_plies, min=1, allow_none=True)
    analysis = check_bool("analysis", analysis)
    bootstrap = check_int("bootstrap", bootstrap, min=0)
    workers = check_int("workers", workers, min=1, allow_none=True)
    if options is not None and not isinstance(options, dict):
        raise ValueError(f"options must be a dict of board options, got {options!r:.60}")
    options = dict(options or {})
    try:        # one board now: bad options fail here, not once in every task
        _make_board(game, options)
    except (ValueError, TypeError) as e:
        raise ValueError(f"options {options!r:.60}: {e}") from None
    opening_plies = check_int("opening_plies", opening_plies, min=0, max=1000,
                              allow_none=True)
    if opening_plies is not None and openings is None:
        raise ValueError("opening_plies= needs openings= (a number of random openings)")
    openings = _check_openings(game, openings, opening_plies, options)
    suite = None if yardstick is None else check_yardstick(game, yardstick, options)
    for e in specs:
        check_picklable(f"entrant {e.name!r}", e)
    if not isinstance(game, str):
        check_picklable("game", game)
    header = {"ttt_engine": "tournament", "format": FORMAT,
              "game": game if isinstance(game, str) else
              f"{game.__module__}.{game.__qualname__}",
              "options": {k: _jsonable(v) for k, v in sorted(options.items())},
              "entrants": {e.name: e.describe() for e in specs},
              # the file's lines sort the entrants by name; their order names the pairings
              "order": [e.name for e in specs],
              "time_per_move": time_per_move, "simulations": simulations,
              "max_plies": max_plies, **({"analysis": True} if analysis else {}),
              **({"openings": openings} if openings is not None else {}),
              "seed": None if seed is None else resolve_seed(seed)}
    names = [e.name for e in specs]
    index = {n: i for i, n in enumerate(names)}
    pairs = [(i, j) for i in range(len(specs)) for j in range(i + 1, len(specs))]
    pair_names = {(names[i], names[j]) for i, j in pairs}

    def listed(order):
        return ", ".join(map(repr, order))

    def check_header(head):
        theirs, order = head.get("entrants"), head.get("order")
        if not isinstance(order, list):
            order = None                    # written before the order was kept
        if not isinstance(theirs, dict) or set(theirs) != set(names):
            there = order or (list(theirs) if isinstance(theirs, dict) else [])
            return f"its entrants are {listed(there) or 'none'} there and {listed(names)} here"
        for name in names:
            if theirs[name] != header["entrants"][name]:
                return (f"entrant {name!r} is {theirs[name]!r:.100} there and "
                        f"{header['entrants'][name]!r:.100} here")
        # without an order, check_record names a pairing the other way round
        if order is not None and order != names:
            return (f"its entrants are {listed(order)} in this order, and {listed(names)} "
                    "here (give them in the file's order)")
        return None

    def check_record(r):
        if (r.get("b"), r.get("a")) in pair_names:
            return (f"pairing {r.get('a')!r} vs {r.get('b')!r} is the other way round here; "
                    "give the entrants in the file's order")
        if (r.get("a"), r.get("b")) not in pair_names:
            return f"pairing {r.get('a')!r} vs {r.get('b')!r} is not in this tournament"
        if not isinstance(r.get("game"), int) or r["game"] < 0:
            return "no game number"
        if r.get("winner") not in (None, r["a"], r["b"]):
            return f"winner {r.get('winner')!r} is neither entrant"
        return None

    done, rfile = open_results(
        out, "tournament", header,
        same=["game", "options", "time_per_move", "simulations", "max_plies", "openings",
              "analysis"],
        check_record=check_record, check_header=check_header,
        key=lambda r: (r["a"], r["b"], r["game"]))
    seed = header["seed"]
    if prepare is not None:
        prepare()

    tasks = []
    base = {"game": game, "options": options, "simulations": simulations,
            "time": time_per_move, "max_plies": max_plies, "openings": openings,
            "analysis": analysis}
    for i, j in pairs:
        a, b = specs[i], specs[j]
        todo = [(g, game_seed(seed, a.name, b.name, g)) for g in range(games_per_pair)
                if (a.name, b.name, g) not in done]
        for k in range(0, len(todo), block):
            tasks.append({**base, "a": a, "b": b, "games": todo[k:k + block]})

    records = [r for r in done.values() if r["game"] < games_per_pair]
    errors = []

    def on_result(task, value):
        records.extend(value["records"])
        if rfile is not None:
            rfile.append(value["records"])
        if value["error"] is not None:
            err = value["error"]
            errors.append({"a": task["a"].name, "b": task["b"].name, "game": err["game"],
                           "seed": err["seed"], "message": err["message"],
                           "traceback": err["traceback"]})

    def on_error(task, message):
        g, s = task["games"][0]
        errors.append({"a": task["a"].name, "b": task["b"].name, "game": g, "seed": s,
                       "games": [x[0] for x in task["games"]], "message": message,
                       "traceback": None})

    run_tasks(executor, _play_block, tasks, on_result, on_error,
              weight=lambda t: len(t["games"]), desc="tournament", progress=progress,
              workers=workers)
    result = TournamentResult(tuple(names), games_per_pair, seed,
                              sorted(records, key=lambda r: (index[r["a"]], index[r["b"]],
                                                             r["game"])),
                              errors, bootstrap)
    if errors:
        errors.sort(key=lambda e: (index[e["a"]], index[e["b"]], e["game"]))
        lines = [f"{e['a']} vs {e['b']}, game {e['game']} (seed {e['seed']}): {e['message']}"
                 for e in errors]
        raise TournamentError(f"{len(errors)} task(s) failed; the {len(result.records)} "
                              "finished games are kept" + (f" in {out}" if out else "")
                              + ":\n  " + "\n  ".join(lines), result)
    if suite is not None:
        result.yardstick = _measure(game, specs, suite, yardstick, seed,
                                    (simulations, time_per_move), progress)
    return result

