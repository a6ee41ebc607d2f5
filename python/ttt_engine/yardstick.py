"""An exact yardstick for any agent: a fixed suite of positions, each with the
exact score of every legal move, and how often an agent's move keeps the
game-theoretic value and how often it is optimal.

>>> from ttt_engine import games, yardstick
>>> g = games.get("connect4")
>>> r = yardstick.yardstick(g.make_agent("random", seed=1), game="connect4")  # doctest: +SKIP
>>> print(r)                                                                   # doctest: +SKIP

Any game whose registry entry has a ``perfect`` engine with ``move_scores``
(exact scores of every legal move, a win in p plies ``WIN_SCORE - p``) can
have a suite: :func:`build_suite` plays random games and games of a strong
engine with a little randomness, takes positions spread over the game's
phases (opening, middle, end, by plies played) and scores every move of each
with that engine; :func:`save` / :func:`load` keep it compact (an ``.npz`` of
move lists and scores).  A game's shipped suite is
``ttt_engine/data/yardstick_<key>.npz``.

For each position the agent is asked for its move (``reset()`` first, so no
position leans on the one before); the move *keeps the value* when the
position's outcome under perfect play is the same after it (a won position
stays won, a drawn one at least drawn; in a lost position every move keeps
it) and is *optimal* when its score is the best (the fastest win, the slowest
loss).  Shares come with 95% Wilson intervals, by phase and overall.
"""
from __future__ import annotations

import math
import os
import random
import sys
import time
from dataclasses import dataclass, field

import numpy as np

from ttt_engine import _registry, _util

__all__ = ["Suite", "Share", "Result", "yardstick", "build_suite", "save", "load",
           "suite_path", "has_suite", "wilson", "PHASES", "FORMAT_VERSION"]

#: the phases of a game, by plies played (the suite's ``bounds`` split them)
PHASES = ("opening", "middle", "end")
#: the suite file's format
FORMAT_VERSION = 1
#: scores are stored as plies to the end: a win in p plies ``WIN - p``, a loss ``-(WIN - p)``
_WIN = 10_000
_DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
_SOURCES = ("random games", "strong engine")


def suite_path(game):
    """Where the suite of the game ``game`` (a registry key) ships."""
    return os.path.join(_DATA, f"yardstick_{game}.npz")


def has_suite(game):
    """Whether a suite ships for the game ``game`` (a registry key)."""
    return os.path.exists(suite_path(game))


def wilson(k, n, z=1.96):
    """The 95% Wilson score interval ``(low, high)`` of ``k`` successes in ``n``."""
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    d = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / d
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (max(0.0, centre - half), min(1.0, centre + half))


def _outcome(score):
    return (score > 0) - (score < 0)


@dataclass(frozen=True)
class Suite:
    """Positions (``lines``: the moves from the game's start) with every legal
    move's exact score (``scores``: ``{move: score}``, a win in p plies
    ``10000 - p``), their phase index (into :data:`PHASES`) and source (0
    random games, 1 the strong engine); ``bounds``: plies where the middle and
    the end begin; ``info``: how it was made."""
    game: str
    lines: tuple
    scores: tuple
    phases: tuple
    sources: tuple
    bounds: tuple
    info: dict = field(default_factory=dict)

    def __len__(self):
        return len(self.lines)

    def board(self, i):
        """The board of position ``i``."""
        b = _registry.get(self.game).new_board()
        for m in self.lines[i]:
            b.push(int(m))
        return b

    def random_expectation(self):
        """``{phase: (keeps, optimal)}`` (and ``"all"``): the exact expected
        shares of a uniformly random mover -- the mean over the positions of
        the fraction of legal moves that keep the value / are optimal."""
        out = {}
        for name, idx in self._groups():
            keep = opt = 0.0
            for i in idx:
                s = self.scores[i]
                best = max(s.values())
                keep += sum(_outcome(v) == _outcome(best) for v in s.values()) / len(s)
                opt += sum(v == best for v in s.values()) / len(s)
            n = max(len(idx), 1)
            out[name] = (keep / n, opt / n)
        return out

    def _groups(self):
        groups = [(p, [i for i in range(len(self)) if self.phases[i] == k])
                  for k, p in enumerate(PHASES)]
        return groups + [("all", list(range(len(self))))]


def save(suite, path):
    """Write ``suite`` to ``path`` (``.npz``, atomically)."""
    offsets = np.cumsum([0] + [len(x) for x in suite.lines]).astype(np.int32)
    flat = np.array([m for x in suite.lines for m in x], dtype=np.int32)
    s_off = np.cumsum([0] + [len(s) for s in suite.scores]).astype(np.int32)
    s_moves = np.array([m for s in suite.scores for m in sorted(s)], dtype=np.int32)
    s_vals = np.array([s[m] for s in suite.scores for m in sorted(s)], dtype=np.int16)
    tmp = f"{path}.tmp{os.getpid()}.npz"
    np.savez_compressed(tmp, version=FORMAT_VERSION, game=suite.game, line_offsets=offsets,
                        line_moves=flat, score_offsets=s_off, score_moves=s_moves,
                        score_values=s_vals, phases=np.array(suite.phases, dtype=np.int8),
                        sources=np.array(suite.sources, dtype=np.int8),
                        bounds=np.array(suite.bounds, dtype=np.int32),
                        info=np.array(repr(suite.info)))
    os.replace(tmp, path)


def load(path):
    """The :class:`Suite` in ``path``; ``ValueError`` of one line when it is
    missing, not a suite or of another format version."""
    import ast
    where = f"yardstick suite {path}"
    try:
        with np.load(path) as z:
            if int(z["version"]) != FORMAT_VERSION:
                raise ValueError(f"{where}: format version {int(z['version'])}, this version "
                                 f"reads {FORMAT_VERSION}")
            off, flat = z["line_offsets"], z["line_moves"]
            s_off, s_moves, s_vals = z["score_offsets"], z["score_moves"], z["score_values"]
            n = len(off) - 1
            lines = tuple(tuple(int(m) for m in flat[off[i]:off[i + 1]]) for i in range(n))
            scores = tuple({int(m): int(v) for m, v in zip(s_moves[s_off[i]:s_off[i + 1]],
                                                         s_vals[s_off[i]:s_off[i + 1]])}
                           for i in range(n))
            return Suite(str(z["game"]), lines, scores, tuple(int(p) for p in z["phases"]),
                         tuple(int(s) for s in z["sources"]),
                         tuple(int(b) for b in z["bounds"]), ast.literal_eval(str(z["info"])))
    except FileNotFoundError:
        raise ValueError(f"{where}: no such file") from None
    except (OSError, KeyError, ValueError, SyntaxError) as e:
        if str(e).startswith(where):
            raise
        # numpy's own words for a file that is no .npz suggest pickles: not ours to say
        raise ValueError(f"{where}: not a yardstick suite"
                         + ("" if "pickle" in str(e) else f" ({e})")) from None


def _suite(game, suite):
    if isinstance(suite, Suite):
        return suite
    if game is None:                # the one game whose suite ships
        shipped = [k for k in _registry.GAMES if has_suite(k)]
        if len(shipped) != 1:
            raise ValueError(f"give the game: suites ship for {', '.join(shipped) or 'none'}")
        game = shipped[0]
    key = game if isinstance(game, str) else game.key
    path = suite if suite is not None else suite_path(key)
    if suite is None and not has_suite(key):
        title = _registry.get(key).title
        raise ValueError(f"no yardstick suite ships for {title}; make one with "
                         f"bench/yardstick_suite.py --game {key} --out FILE and pass suite=FILE")
    return load(path)


# ---------------------------------------------------------------------------- measuring
@dataclass(frozen=True)
class Share:
    """``k`` of ``n`` moves, with its 95% Wilson interval."""
    k: int
    n: int

    @property
    def rate(self):
        return self.k / self.n if self.n else float("nan")

    @property
    def interval(self):
        return wilson(self.k, self.n)

    def __str__(self):
        lo, hi = self.interval
        return f"{100 * self.rate:5.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]"


@dataclass(frozen=True)
class Result:
    """An agent's yardstick: ``keeps[phase]`` and ``optimal[phase]``
    (:class:`Share`, phases and ``"all"``), the agent's name, the suite's size
    and the seconds it took."""
    agent: str
    game: str
    keeps: dict
    optimal: dict
    positions: int
    seconds: float

    def to_dict(self):
        """The result as plain data (JSON): counts, not rates, so nothing is lost."""
        out = {"agent": self.agent, "game": self.game, "positions": self.positions,
               "seconds": round(self.seconds, 1)}
        for p in ("all", *PHASES):
            out[p] = {"keeps": [self.keeps[p].k, self.keeps[p].n],
                      "optimal": [self.optimal[p].k, self.optimal[p].n]}
        return out

    @classmethod
    def from_dict(cls, d, game=None):
        """The result :meth:`to_dict` wrote (``game`` where the dict has none)."""
        phases = ("all", *PHASES)
        return cls(d["agent"], d.get("game", game),
                   {p: Share(*d[p]["keeps"]) for p in phases},
                   {p: Share(*d[p]["optimal"]) for p in phases},
                   d["positions"], d["seconds"])

    #: the head of the Markdown table whose rows :meth:`row` writes
    TABLE_HEAD = ("| agent | keeps / optimal, all | " + " | ".join(PHASES) + " |\n"
                  + "|---" * (2 + len(PHASES)) + "|")

    def row(self):
        """One Markdown table row: agent, then keeps / optimal for all and by phase."""
        cells = [self.agent] + [f"{100 * self.keeps[p].rate:.1f} / "
                                f"{100 * self.optimal[p].rate:.1f}"
                                for p in ("all", *PHASES)]
        return "| " + " | ".join(cells) + " |"

    def __str__(self):
        lines = [f"{self.agent} on the {self.game} yardstick ({self.positions:,} positions, "
                 f"{self.seconds:.1f} s): share of moves, 95% interval",
                 f"  {'phase':8} {'n':>6}  {'keeps the value':24} optimal"]
        for p in (*PHASES, "all"):
            k, o = self.keeps[p], self.optimal[p]
            lines.append(f"  {p:8} {k.n:6,}  {str(k):24} {o}")
        return "\n".join(lines)


def yardstick(agent, game=None, suite=None, *, sample=None, seed=0, progress=False):
    """How ``agent`` plays the positions of ``game``'s suite (``suite``: a
    :class:`Suite` or a path; default the shipped one; ``game`` None: the game
    whose suite ships, Connect Four): a :class:`Result` with
    the share of its moves that keep the game-theoretic value and the share
    that are optimal, by phase, with 95% Wilson intervals.  ``sample``: only
    that many positions, drawn with ``seed`` (the same ones for every agent).
    ``progress``: a line on stderr as it goes."""
    suite = _suite(game, suite)
    if not callable(getattr(agent, "select_move", None)):
        raise ValueError(f"agent must have select_move(board), got {type(agent).__name__}")
    idx = list(range(len(suite)))
    seed = _util.resolve_seed(seed)
    if sample is not None:
        sample = _util.check_int("sample", sample, min=1, max=len(suite))
        idx = sorted(random.Random(seed).sample(idx, sample))
    keeps = {p: [0, 0] for p in (*PHASES, "all")}
    optimal = {p: [0, 0] for p in (*PHASES, "all")}
    t0 = time.perf_counter()
    for n, i in enumerate(idx, 1):
        board = suite.board(i)
        if hasattr(agent, "reset"):
            agent.reset()
        move = agent.select_move(board.copy())
        s = suite.scores[i]
        if move not in s:
            raise ValueError(f"agent {getattr(agent, 'name', agent)!r} chose {move!r}, not a "
                             f"legal move of suite position {i}")
        best = max(s.values())
        for phase in (PHASES[suite.phases[i]], "all"):
            keeps[phase][0] += _outcome(s[move]) == _outcome(best)
            optimal[phase][0] += s[move] == best
            keeps[phase][1] += 1
            optimal[phase][1] += 1
        if progress and (n % 50 == 0 or n == len(idx)):
            print(f"\r{n:,}/{len(idx):,} positions", end="", file=sys.stderr, flush=True)
    if progress:
        print(file=sys.stderr)
    name = getattr(agent, "name", type(agent).__name__)
    return Result(name, suite.game, {p: Share(*v) for p, v in keeps.items()},
                  {p: Share(*v) for p, v in optimal.items()}, len(idx),
                  time.perf_counter() - t0)


# ---------------------------------------------------------------------------- making a suite
def _plies_score(v):
    """A ``move_scores`` value (a win in p plies ``WIN_SCORE - p``) as stored."""
    from ttt_engine.search import WIN_SCORE
    if v == 0:
        return 0
    p = int(round(WIN_SCORE - abs(v)))
    return int(math.copysign(_WIN - p, v))


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
                    scores.append({int(m): _plies_score(v) for m, v in s.items()})
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
            "epsilon": epsilon, "cap": cap, "replaced": replaced,
            "seconds": round(time.perf_counter() - t0, 1)}
    return Suite(g.key, tuple(lines), tuple(scores), tuple(phases), tuple(sources), bounds,
                 info)
