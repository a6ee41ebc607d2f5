"""Making yardstick suites (:mod:`ttt_engine.yardstick`): the generic parts.

:func:`build` makes a game's suite with the game's own source (its registry
entry's ``yardstick_source``: a module with ``build(seed=..., progress=...)``
returning a :class:`~ttt_engine.yardstick.Suite`); the sources share
``sample_positions`` (positions of random games and of a strong engine's
games with a little randomness, each scored exactly by the game's scorer),
:func:`compose` (a suite of the candidates, most of them critical) and
``phases_by_plies``.  :func:`build_suite` is the maker for a game with a
``perfect`` engine with ``move_scores`` (Connect Four's source starts from it).
"""
from __future__ import annotations

import importlib
import json
import math
import os
import random
import sys
import time

from ttt_engine import _registry, _util
from ttt_engine._yardstick_core import _WIN, Suite, is_critical

__all__ = ["build", "build_suite", "compose", "phases_by_plies", "sample_positions",
           "plies_score", "STALL_GAMES", "SHORT_GAMES"]


def build(game, *, seed=1, progress=True, **kw):
    """A new suite of ``game`` (a registry key) from its ``yardstick_source``
    (``kw``: that source's own keywords; every source takes ``checkpoint=``, a
    file from which a stopped build continues, see ``sample_positions``)."""
    g = _registry.get(game)
    if not g.yardstick_source:
        raise ValueError(f"{g.title} has no yardstick source (its registry entry's "
                         "yardstick_source) to make a suite with")
    source = importlib.import_module(g.yardstick_source)
    return source.build(seed=_util.resolve_seed(seed), progress=progress, **kw)


def plies_score(v, distance=True):
    """A search score (a win in p plies ``WIN_SCORE - p``, 0 a draw) as a
    suite stores it: ``10000 - p`` for a win in p plies; ``distance`` False:
    ``+-10000``, the side only."""
    from ttt_engine.search import WIN_SCORE
    if v == 0:
        return 0
    if not distance:
        return int(math.copysign(_WIN, v))
    p = int(round(WIN_SCORE - abs(v)))
    return int(math.copysign(_WIN - p, v))


def phases_by_plies(lines, bounds=None):
    """``(phases, bounds)``: each line's phase by the plies played, the middle
    from ``bounds[0]`` and the end from ``bounds[1]`` (default: the thirds of
    the lines' plies, so each phase holds about a third)."""
    plies = sorted(len(x) for x in lines)
    if bounds is None:
        a, b = plies[len(plies) // 3], plies[2 * len(plies) // 3]
        bounds = (max(a, 1), max(b, a + 1))
    phases = tuple(0 if len(x) < bounds[0] else 1 if len(x) < bounds[1] else 2 for x in lines)
    return phases, tuple(bounds)


def compose(game, candidates, *, size, critical_share=0.65, seed=1, bounds=None, info=None,
            options=({},), sources=("random games", "strong engine")):
    """A :class:`Suite` of at most ``size`` of ``candidates`` (``(line, scores,
    source, variant)``: the moves from the start, ``{move: stored score}``, an
    index into ``sources``, an index into ``options``), every critical one
    first (drawn with ``seed`` when there are more) and then others, no more
    than leave ``critical_share`` of the suite critical.  Phases by
    ``phases_by_plies`` (``bounds``)."""
    rng = random.Random(seed)
    seen, crit, calm = set(), [], []
    for c in candidates:
        key = (c[3], tuple(c[0]))
        if key in seen:
            continue
        seen.add(key)
        (crit if is_critical(c[1]) else calm).append(c)
    rng.shuffle(crit)
    rng.shuffle(calm)
    crit = crit[:size]
    room = min(size - len(crit), int(len(crit) * (1 - critical_share) / critical_share))
    chosen = crit + calm[:max(room, 0)]
    chosen.sort(key=lambda c: (c[3], len(c[0]), c[0]))
    lines = tuple(tuple(int(m) for m in c[0]) for c in chosen)
    phases, bounds = phases_by_plies(lines, bounds)
    variant = tuple(c[3] for c in chosen)
    # a source that composes in parts gives its own counts in ``info``
    info = dict({"candidates": len(seen),
                 "critical_candidates": len(crit) if len(crit) < size else f">= {size}"},
                **(info or {}), sources=list(sources))
    return Suite(game, lines, tuple(dict(c[1]) for c in chosen), phases,
                 tuple(c[2] for c in chosen), bounds, info, tuple(options),
                 variant if any(variant) else ())


def sample_positions(game, scorer, want, *, seed=1, strong=None, epsilon=0.15,
                     accept=None, options=None, per_game=3, progress=True,
                     label="positions", stall=2_000, checkpoint=None, save_every=30.0):
    """``want`` candidates ``(line, scores, source, 0)`` of ``game`` (a key;
    board ``options``): from each game, alternately uniformly random (source
    0) and played by ``strong`` (an agent, or None: random only) with
    ``epsilon`` random moves (source 1), up to ``per_game`` positions the
    ``accept(board)`` test passes, scored by ``scorer(board) -> {move: stored
    score}`` (None: not settled, skipped; a scorer bounds its own time).
    Seeded by ``seed``; gives up with a ``ValueError`` after ``stall`` games in
    a row without a new position.

    ``checkpoint``: a file where the work done is kept (atomically, every
    ``save_every`` seconds and when stopped, Ctrl-C included) and from which a
    new call with the same arguments continues: the positions found before the
    stop are kept; the games after it may differ from an uninterrupted run's
    (the strong engine's own generator is not saved).  Removed when done."""
    g = _registry.get(game)
    rng = random.Random(seed)
    out, seen = [], set()
    games = idle = skipped = 0
    state = _read_checkpoint(checkpoint, (game, seed, want, options or {}))
    if state is not None:
        out = [(tuple(c[0]), {int(m): v for m, v in c[1]}, c[2], 0) for c in state["found"]]
        seen = {tuple(x) for x in state["seen"]}
        games, idle, skipped = state["games"], state["idle"], state["skipped"]
        rng.setstate(_tuples(state["rng"]))
    t0 = saved = time.perf_counter()

    def save(at):
        """Keep the state ``at`` the start of a game: a resumed run plays that game again."""
        if checkpoint:
            r_state, n_found, n_games, n_idle, n_skipped, seen_then = at
            _write_checkpoint(checkpoint, {
                "key": [game, seed, want, options or {}], "games": n_games, "idle": n_idle,
                "skipped": n_skipped, "rng": r_state, "seen": sorted(seen_then),
                "found": [[list(c[0]), sorted(c[1].items()), c[2]] for c in out[:n_found]]})

    at = None
    try:
        while len(out) < want:
            at = (rng.getstate(), len(out), games, idle, skipped, set(seen))
            if idle >= stall:
                raise ValueError(f"{stall:,} games in a row gave no new position of "
                                 f"{g.title} ({len(out):,} of {want:,}): ask for fewer")
            source = games % 2 if strong is not None else 0
            games += 1
            idle += 1
            b = g.new_board(**(options or {}))
            line, boards = [], []
            while not b.is_terminal():
                if accept is None or accept(b):
                    boards.append((tuple(line), b.copy()))
                if source == 0 or rng.random() < epsilon:
                    m = rng.choice(list(b.legal_moves))
                else:
                    if hasattr(strong, "reset"):
                        strong.reset()
                    m = strong.select_move(b.copy())
                b.push(m)
                line.append(int(m))
            rng.shuffle(boards)
            for key, board in boards[:per_game]:
                if key in seen:
                    continue
                s = scorer(board)
                seen.add(key)
                if not s:
                    skipped += 1
                    continue
                out.append((key, s, source, 0))
                idle = 0
                if len(out) >= want:
                    break
            if progress:
                print(f"\r{label}: {len(out):,}/{want:,} ({games:,} games, {skipped:,} "
                      f"not settled) {time.perf_counter() - t0:7.1f} s", end="",
                      file=sys.stderr, flush=True)
            if time.perf_counter() - saved > save_every:
                save((rng.getstate(), len(out), games, idle, skipped, seen))
                saved = time.perf_counter()
    except BaseException:
        if at is not None:
            save(at)        # the positions found before this game, for the next call
        raise
    if progress:
        print(file=sys.stderr)
    if checkpoint and os.path.exists(checkpoint):
        os.remove(checkpoint)
    return out


def _tuples(x):
    """JSON lists back to the nested tuples of ``random.Random.getstate``."""
    return tuple(_tuples(v) for v in x) if isinstance(x, list) else x


def _read_checkpoint(path, key):
    """The state kept in ``path`` by a call of the same ``key`` (None: none)."""
    if not path or not os.path.exists(path):
        return None
    try:
        with open(path) as f:
            state = json.load(f)
    except (OSError, ValueError) as e:
        raise ValueError(f"checkpoint {path} cannot be read ({e}); remove it to start "
                         "again") from None
    if state.get("key") != json.loads(json.dumps(list(key))):
        raise ValueError(f"checkpoint {path} is of another build ({state.get('key')}); "
                         "remove it to start again")
    return state


def _write_checkpoint(path, state):
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w") as f:
        json.dump(state, f)
    os.replace(tmp, path)


def _games(game, agent_name, n_games, epsilon, rng, budget):
    """``n_games`` move lists of ``agent_name`` self-play, each move random with
    probability ``epsilon`` (always for ``"random"``)."""
    agent = None if agent_name == "random" else game.make_agent(agent_name, **budget)
    out = []
    for _ in range(n_games):
        b = game.new_board()
        line = []
        while not b.is_terminal():
            if agent is None or rng.random() < epsilon:
                m = rng.choice(list(b.legal_moves))
            else:
                m = agent.select_move(b.copy())
            b.push(m)
            line.append(m)
        out.append(line)
    return out


#: Games in a row without a new position after which ``build_suite`` gives up.
STALL_GAMES = 2_000
#: Games in a row too short for every phase still wanted after which it gives up.
SHORT_GAMES = 20


def _ints(name, value, n, what, min):
    """``value`` as a tuple of ``n`` integers >= ``min`` (``what`` says what they are)."""
    try:
        items = tuple(value)
    except TypeError:
        items = None
    if items is None or len(items) != n:
        raise ValueError(f"{name} must be {what}, got {value!r}")
    return tuple(_util.check_int(f"{name}[{k}]", x, min=min) for k, x in enumerate(items))


def _three_counts(per_phase):
    counts = _ints("per_phase", per_phase, 3, "three counts (opening, middle, end)", 0)
    if not any(counts):
        raise ValueError("per_phase asks for no position at all")
    return counts


def _bounds(bounds):
    b = _ints("bounds", bounds, 2, "two plies (where the middle and the end begin)", 1)
    if b[0] >= b[1]:
        raise ValueError(f"bounds must rise: the middle begins before the end, got {b}")
    return b


def build_suite(game, *, per_phase=(300, 600, 600), seed=1, strong="alphabeta",
                strong_budget=None, epsilon=0.15, bounds=None, cap=None, progress=True):
    """A new :class:`Suite` for ``game`` (a key): ``per_phase[k]`` positions of
    phase k, half from uniformly random games and half from ``strong``
    self-play with ``epsilon`` random moves (``strong_budget``: its keywords),
    every move scored by the game's ``perfect`` engine.  ``bounds``: the plies
    where the middle and the end begin (default: thirds of the longest random
    game).  ``cap``: CPU seconds a position may take to score; a slower one is
    replaced by another (counted in ``info["replaced"]``).  Seeded by ``seed``."""
    import signal
    g = _registry.get(game)
    if "perfect" not in g.engines:
        raise ValueError(f"{g.title} has no perfect engine to score a suite with")
    per_phase = _three_counts(per_phase)
    seed = _util.resolve_seed(seed)
    _util.check_choice("strong", strong, tuple(g.engines))
    if strong_budget is not None and not isinstance(strong_budget, dict):
        raise TypeError(f"strong_budget must be a dict of the {strong!r} engine's keywords "
                        f"or None, got {strong_budget!r}")
    epsilon = _util.check_real("epsilon", epsilon, low=0, high=1)
    cap = _util.check_seconds("cap", cap, allow_none=True)
    scorer = g.make_agent("perfect", seed=seed)
    rng = random.Random(seed)
    if bounds is None:
        longest = max(len(x) for x in _games(g, "random", 200, 1.0, rng, {}))
        bounds = (round(longest / 3), round(2 * longest / 3))
    bounds = _bounds(bounds)
    starts = (0, *bounds)

    def phase_of(ply):
        return 0 if ply < bounds[0] else 1 if ply < bounds[1] else 2

    class _Slow(Exception):
        pass

    def alarm(signum, frame):
        raise _Slow

    old = signal.signal(signal.SIGPROF, alarm) if cap else None
    lines, scores, phases, sources, seen = [], [], [], [], set()
    replaced = [0, 0, 0]
    t0 = time.perf_counter()
    try:
        for source, name in enumerate(("random", strong)):
            need = [n // 2 if source == 0 else n - n // 2 for n in per_phase]
            idle = 0            # games in a row that gave no new position
            short = 0           # games in a row that ended before every needed phase
            while any(need):
                if short >= SHORT_GAMES:
                    first = min(starts[k] for k in range(3) if need[k])
                    raise ValueError(
                        f"{SHORT_GAMES} {name} games in a row ended by ply {first}, where the "
                        f"phase asked for begins (bounds {bounds}): move the bounds or ask for "
                        f"no positions of that phase (per_phase)")
                if idle >= STALL_GAMES:
                    short = [k for k in range(3) if need[k]]
                    raise ValueError(
                        f"{STALL_GAMES:,} {name} games in a row gave no new position of phase "
                        f"{', '.join(map(str, short))} (bounds {bounds}): the phase is beyond "
                        f"the games' length, or it has fewer distinct positions than asked; "
                        f"ask for fewer (per_phase) or move the bounds")
                idle += 1
                game_line = _games(g, name, 1, 1.0 if source == 0 else epsilon, rng,
                                   strong_budget or {})[0]
                short = short + 1 if all(len(game_line) <= starts[k]
                                         for k in range(3) if need[k]) else 0
                for k in range(3):
                    if not need[k]:
                        continue
                    plies = [p for p in range(len(game_line)) if phase_of(p) == k]
                    if not plies:
                        continue
                    p = rng.choice(plies)
                    line = tuple(game_line[:p])
                    if line in seen:
                        continue
                    b = g.new_board()
                    for m in line:
                        b.push(m)
                    try:
                        if cap:
                            signal.setitimer(signal.ITIMER_PROF, cap)
                        s = scorer.move_scores(b)
                    except _Slow:
                        replaced[k] += 1
                        continue
                    finally:
                        if cap:
                            signal.setitimer(signal.ITIMER_PROF, 0)
                    seen.add(line)
                    idle = 0
                    lines.append(line)
                    scores.append({int(m): plies_score(v) for m, v in s.items()})
                    phases.append(k)
                    sources.append(source)
                    need[k] -= 1
                    if progress:
                        print(f"\r{len(lines):,}/{sum(per_phase):,} positions "
                              f"{time.perf_counter() - t0:7.1f} s", end="", file=sys.stderr,
                              flush=True)
    finally:
        if cap:
            signal.signal(signal.SIGPROF, old)
    if progress:
        print(file=sys.stderr)
    info = {"seed": seed, "strong": strong, "strong_budget": strong_budget or {},
            "sources": ["random games", "strong engine"],
            "epsilon": epsilon, "cap": cap, "replaced": replaced,
            "seconds": round(time.perf_counter() - t0, 1)}
    return Suite(g.key, tuple(lines), tuple(scores), tuple(phases), tuple(sources), bounds,
                 info)
