"""The exact yardstick's suites and measure (the public face is
:mod:`ttt_engine.yardstick`, which re-exports this module's names with the
makers of :mod:`ttt_engine._yardstick_build` and the reports of
:mod:`ttt_engine._yardstick_report`)."""
from __future__ import annotations

import math
import os
import random
import sys
import time
from dataclasses import dataclass, field

import numpy as np

from ttt_engine import _registry, _util

__all__ = ["Suite", "Share", "Result", "yardstick", "save", "load", "suite_path", "has_suite",
           "shipped_suite", "rebuild_hint", "wilson", "is_critical", "check_playable", "PHASES",
           "FORMAT_VERSION", "board_words"]

#: the phases of a game, by plies played (the suite's ``bounds`` split them)
PHASES = ("opening", "middle", "end")
#: the suite file's format (2: board options per position; 1, all on the default board, is read too)
FORMAT_VERSION = 2
#: scores are stored as plies to the end: a win in p plies ``WIN - p``, a loss ``-(WIN - p)``
_WIN = 10_000
_DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


def suite_path(game):
    """Where the suite of the game ``game`` (a registry key) ships."""
    return os.path.join(_DATA, f"yardstick_{game}.npz")


def has_suite(game):
    """Whether a suite ships for the game ``game`` (a registry key)."""
    return os.path.exists(suite_path(game))


def rebuild_hint(game):
    """What to run to make the suite of ``game`` (a registry key) again."""
    return f"ttt-engine yardstick --game {game} --build"


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


def is_critical(scores):
    """Whether some move of a position (``{move: score}``) changes its
    game-theoretic outcome: the moves' outcomes are not all the same."""
    outcomes = {_outcome(v) for v in scores.values()}
    return len(outcomes) > 1


@dataclass(frozen=True)
class Suite:
    """Positions (``lines``: the moves from the game's start) with every legal
    move's exact score (``scores``: ``{move: score}``, a win in p plies
    ``10000 - p``; ``info["distance"]`` False: ``+-10000``, won or lost at an
    unknown distance), their phase index (into :data:`PHASES`) and source (an
    index into ``info["sources"]``, the names of where positions came from);
    ``bounds``: plies where the middle and the end begin; ``info``: how it was
    made.  ``options``: the distinct board options of the positions (``{}``:
    the game's default board) and ``variant``: each position's index into them
    (empty: all 0).  ``critical[i]``: some legal move of position i changes its
    game-theoretic outcome."""
    game: str
    lines: tuple
    scores: tuple
    phases: tuple
    sources: tuple
    bounds: tuple
    info: dict = field(default_factory=dict)
    options: tuple = ({},)
    variant: tuple = ()
    critical: tuple = field(init=False, compare=False, repr=False)

    def __post_init__(self):
        object.__setattr__(self, "critical", tuple(is_critical(s) for s in self.scores))

    def __len__(self):
        return len(self.lines)

    def options_of(self, i):
        """The board options of position ``i`` (``{}``: the game's default board)."""
        return self.options[self.variant[i] if self.variant else 0]

    def board(self, i):
        """The board of position ``i``."""
        b = _registry.get(self.game).new_board(**self.options_of(i))
        for m in self.lines[i]:
            b.push(int(m))
        return b

    @property
    def critical_share(self):
        """The share of positions that are critical."""
        return sum(self.critical) / max(len(self), 1)

    def random_expectation(self, critical=False, positions=None):
        """``{phase: (keeps, optimal)}`` (and ``"all"``): the exact expected
        shares of a uniformly random mover -- the mean over the positions (the
        critical ones only with ``critical``; ``positions``: these indices only)
        of the fraction of legal moves that keep the value / are optimal."""
        out = {}
        for name, idx in self._groups(positions):
            keep = opt = 0.0
            idx = [i for i in idx if self.critical[i] or not critical]
            for i in idx:
                k, o = _random_shares(self.scores[i])
                keep += k
                opt += o
            n = max(len(idx), 1)
            out[name] = (keep / n, opt / n)
        return out

    def _groups(self, positions=None):
        idx = range(len(self)) if positions is None else positions
        groups = [(p, [i for i in idx if self.phases[i] == k]) for k, p in enumerate(PHASES)]
        return groups + [("all", list(idx))]


def _random_shares(s):
    """(keeps, optimal): the fractions of the moves of ``s`` that keep the value / are best."""
    best = max(s.values())
    return (sum(_outcome(v) == _outcome(best) for v in s.values()) / len(s),
            sum(v == best for v in s.values()) / len(s))


def save(suite, path):
    """Write ``suite`` to ``path`` (``.npz``, atomically)."""
    offsets = np.cumsum([0] + [len(x) for x in suite.lines]).astype(np.int32)
    flat = np.array([m for x in suite.lines for m in x], dtype=np.int32)
    s_off = np.cumsum([0] + [len(s) for s in suite.scores]).astype(np.int32)
    s_moves = np.array([m for s in suite.scores for m in sorted(s)], dtype=np.int32)
    s_vals = np.array([s[m] for s in suite.scores for m in sorted(s)], dtype=np.int16)
    variant = suite.variant or (0,) * len(suite)
    tmp = f"{path}.tmp{os.getpid()}.npz"
    try:
        np.savez_compressed(tmp, version=FORMAT_VERSION, game=suite.game, line_offsets=offsets,
                            line_moves=flat, score_offsets=s_off, score_moves=s_moves,
                            score_values=s_vals, phases=np.array(suite.phases, dtype=np.int8),
                            sources=np.array(suite.sources, dtype=np.int8),
                            bounds=np.array(suite.bounds, dtype=np.int32),
                            options=np.array(repr(list(suite.options))),
                            variant=np.array(variant, dtype=np.int8),
                            info=np.array(repr(suite.info)))
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def load(path, game=None):
    """The :class:`Suite` in ``path`` (of the game ``game`` when given); one
    line ``ValueError`` naming the file and what to run to make it again when
    it is missing, truncated, not a suite, of another game or of another
    format version."""
    import ast
    import zipfile
    where = f"yardstick suite {path}"
    again = f"; make it again with: {rebuild_hint(game)}" if game else ""
    try:
        with np.load(path) as z:
            version = int(z["version"])
            if version not in (1, FORMAT_VERSION):      # 1: every position on the default board
                newer = "a newer" if version > FORMAT_VERSION else "an older"
                raise ValueError(f"{where}: format version {version} ({newer} release's), "
                                 f"this version reads {FORMAT_VERSION}{again}")
            if game is not None and str(z["game"]) != game:
                raise ValueError(f"{where}: a suite of {str(z['game'])!r}, not of "
                                 f"{game!r}{again}")
            off, flat = z["line_offsets"], z["line_moves"]
            s_off, s_moves, s_vals = z["score_offsets"], z["score_moves"], z["score_values"]
            n = len(off) - 1
            lines = tuple(tuple(int(m) for m in flat[off[i]:off[i + 1]]) for i in range(n))
            scores = tuple({int(m): int(v) for m, v in zip(s_moves[s_off[i]:s_off[i + 1]],
                                                         s_vals[s_off[i]:s_off[i + 1]])}
                           for i in range(n))
            if any(not s for s in scores):
                raise ValueError("a position without a scored move")
            options = tuple(ast.literal_eval(str(z["options"]))) if version > 1 else ({},)
            variant = tuple(int(v) for v in z["variant"]) if version > 1 else (0,) * n
            if len(variant) != n or (n and not 0 <= min(variant) <= max(variant) < len(options)):
                raise ValueError("board options out of range")
            return Suite(str(z["game"]), lines, scores, tuple(int(p) for p in z["phases"]),
                         tuple(int(s) for s in z["sources"]),
                         tuple(int(b) for b in z["bounds"]), ast.literal_eval(str(z["info"])),
                         options, variant if any(variant) else ())
    except FileNotFoundError:
        raise ValueError(f"{where}: no such file{again}") from None
    except (OSError, KeyError, ValueError, SyntaxError, EOFError, zipfile.BadZipFile,
            IndexError) as e:
        if str(e).startswith(where):
            raise
        # numpy's own words for a file that is no .npz suggest pickles: not ours to say
        detail = "" if "pickle" in str(e) or isinstance(e, zipfile.BadZipFile) else f" ({e})"
        raise ValueError(f"{where}: not a yardstick suite, or truncated{detail}{again}") \
            from None


def _suite(game, suite):
    if isinstance(suite, Suite):
        return suite
    key = game if isinstance(game, str) else game.key
    if suite is None:
        if not has_suite(key):
            title = _registry.get(key).title
            raise ValueError(f"no yardstick suite ships for {title} ({suite_path(key)}); "
                             f"make one with: {rebuild_hint(key)}")
        return load(suite_path(key), key)
    return load(suite, key)


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
        if not self.n:
            return "    -"
        lo, hi = self.interval
        return f"{100 * self.rate:5.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]"


_ALL = ("all", *PHASES)


def _pct(x):
    return "-" if x != x else f"{100 * x:.1f}"


@dataclass(frozen=True)
class Result:
    """An agent's yardstick: on the critical positions ``critical_keeps[phase]``
    and ``critical_optimal[phase]`` (:class:`Share`, phases and ``"all"``) beside
    ``random[phase]``, a uniformly random mover's exact expected ``(keeps,
    optimal)`` on the same positions; on every position ``keeps`` and
    ``optimal``; the agent's name, the number of positions and the seconds it
    took."""
    agent: str
    game: str
    keeps: dict
    optimal: dict
    positions: int
    seconds: float
    critical_keeps: dict = field(default_factory=dict)
    critical_optimal: dict = field(default_factory=dict)
    random: dict = field(default_factory=dict)
    #: the boards judged when not all of the suite's: e.g. ``"size=5"``
    boards: str = ""

    def to_dict(self):
        """The result as plain data (JSON): counts, not rates, so nothing is lost."""
        out = {"agent": self.agent, "game": self.game, "positions": self.positions,
               "seconds": round(self.seconds, 1), **({"boards": self.boards} if self.boards
                                                     else {})}
        for p in _ALL:
            out[p] = {"keeps": [self.keeps[p].k, self.keeps[p].n],
                      "optimal": [self.optimal[p].k, self.optimal[p].n]}
            if self.critical_keeps:
                out[p].update(critical_keeps=[self.critical_keeps[p].k,
                                              self.critical_keeps[p].n],
                              critical_optimal=[self.critical_optimal[p].k,
                                                self.critical_optimal[p].n],
                              random=list(self.random[p]))
        return out

    @classmethod
    def from_dict(cls, d, game=None):
        """The result :meth:`to_dict` wrote (``game`` where the dict has none);
        one of before critical positions has none of them."""
        crit = "critical_keeps" in d["all"]
        return cls(d["agent"], d.get("game", game),
                   {p: Share(*d[p]["keeps"]) for p in _ALL},
                   {p: Share(*d[p]["optimal"]) for p in _ALL},
                   d["positions"], d["seconds"],
                   {p: Share(*d[p]["critical_keeps"]) for p in _ALL} if crit else {},
                   {p: Share(*d[p]["critical_optimal"]) for p in _ALL} if crit else {},
                   {p: tuple(d[p]["random"]) for p in _ALL} if crit else {},
                   d.get("boards", ""))

    #: the head of the Markdown table whose rows :meth:`row` writes
    TABLE_HEAD = ("| agent | critical: keeps / optimal | random mover (exact) | "
                  + " | ".join(PHASES) + " | all positions |\n"
                  + "|---" * (4 + len(PHASES)) + "|")

    def row(self):
        """One Markdown table row: agent; on the critical positions keeps /
        optimal (all phases), the random mover's exact expectation, then keeps /
        optimal by phase; last keeps / optimal on every position."""
        ck = self.critical_keeps or {p: Share(0, 0) for p in _ALL}
        co = self.critical_optimal or {p: Share(0, 0) for p in _ALL}
        rnd = self.random.get("all", (float("nan"),) * 2)
        cells = [self.agent, f"**{_pct(ck['all'].rate)} / {_pct(co['all'].rate)}**",
                 f"{_pct(rnd[0])} / {_pct(rnd[1])}"]
        cells += [f"{_pct(ck[p].rate)} / {_pct(co[p].rate)}" for p in PHASES]
        cells.append(f"{_pct(self.keeps['all'].rate)} / {_pct(self.optimal['all'].rate)}")
        return "| " + " | ".join(cells) + " |"

    def __str__(self):
        n_crit = self.critical_keeps["all"].n if self.critical_keeps else 0
        boards = f" of the boards with {self.boards}" if self.boards else ""
        lines = [f"{self.agent} on the {self.game} yardstick ({self.positions:,} positions"
                 f"{boards}, {n_crit:,} critical; {self.seconds:.1f} s): share of moves, 95% "
                 "interval"]
        if self.critical_keeps:
            lines += ["critical positions (some move changes the outcome):",
                      f"  {'phase':8} {'n':>6}  {'keeps the value':24} {'optimal':24} "
                      "random mover (exact)"]
            for p in (*PHASES, "all"):
                k, o, r = self.critical_keeps[p], self.critical_optimal[p], self.random[p]
                lines.append(f"  {p:8} {k.n:6,}  {str(k):24} {str(o):24} "
                             f"{_pct(r[0])}% / {_pct(r[1])}%")
        lines += ["every position:",
                  f"  {'phase':8} {'n':>6}  {'keeps the value':24} optimal"]
        for p in (*PHASES, "all"):
            k, o = self.keeps[p], self.optimal[p]
            lines.append(f"  {p:8} {k.n:6,}  {str(k):24} {o}")
        return "\n".join(lines)


def _variant(suite, i):
    return suite.variant[i] if suite.variant else 0


def board_words(suite, variants):
    """The boards of ``variants`` (indices into ``suite.options``) in words:
    the options in which the suite's boards differ, e.g. ``"size=5"``."""
    g = _registry.get(suite.game)
    full = [{**g.options, **o} for o in suite.options]
    keys = [k for k in full[0] if len({repr(f.get(k)) for f in full}) > 1]
    return " or ".join(", ".join(f"{k}={full[v][k]}" for k in keys) for v in sorted(variants))


def _copy(agent):
    """A copy of ``agent`` to ask which boards it plays, so that its own random
    stream (and so its moves on the suite) is the same as without asking; the
    agent itself where it does not copy."""
    import copy
    try:
        return copy.deepcopy(agent)
    except Exception:
        return agent


def _on_boards(agent, suite, idx, boards):
    """``(positions, words)``: the positions ``idx`` of ``suite`` on the boards
    ``boards`` names (``"playable"``: those ``agent`` plays, asked as
    :func:`check_playable` asks; a dict: those whose board options have these
    values) and those boards in words ("" when they are all of the suite's)."""
    variants = sorted({_variant(suite, i) for i in idx})
    if boards == "playable":
        keep, refused = [], None
        probe = _copy(agent)
        for v in variants:
            try:
                check_playable(probe, suite, [i for i in idx if _variant(suite, i) == v])
                keep.append(v)
            except ValueError as e:
                refused = refused or e
        if not keep:
            raise refused
    elif isinstance(boards, dict):
        full = {**_registry.get(suite.game).options}
        keep = [v for v in variants if all({**full, **suite.options[v]}.get(k) == x
                                           for k, x in boards.items())]
        if not keep:
            asked = ", ".join(f"{k}={x}" for k, x in boards.items())
            raise ValueError(f"no position of the {suite.game} suite is on a board with "
                             f"{asked} (its boards: {board_words(suite, variants)})")
    else:
        raise ValueError(f"boards must be None (all), 'playable' or a dict of board options, "
                         f"got {boards!r}")
    words = board_words(suite, keep) if len(keep) < len(variants) else ""
    return [i for i in idx if _variant(suite, i) in keep], words


def check_playable(agent, suite, idx):
    """A one-line ``ValueError`` when ``agent`` cannot play the boards of some
    positions ``idx`` of ``suite`` (an engine bound to other board options,
    e.g. a network of the default board on Quixo 4x4), found by asking it for a
    move on the first position of each kind of board before anything counts."""
    name = getattr(agent, "name", type(agent).__name__)
    for v in sorted({suite.variant[i] if suite.variant else 0 for i in idx}):
        i = next(j for j in idx if (suite.variant[j] if suite.variant else 0) == v)
        if hasattr(agent, "reset"):
            agent.reset()
        try:
            agent.select_move(suite.board(i))
        except ValueError as e:
            opts = ", ".join(f"{k}={x}" for k, x in suite.options[v].items()) or "default"
            raise ValueError(f"agent {name!r} cannot play the suite's boards of {opts}: "
                             f"{str(e).splitlines()[0]}") from None


def yardstick(agent, game=None, suite=None, *, sample=None, seed=0, progress=False,
              boards=None):
    """How ``agent`` plays the positions of ``game``'s suite (``suite``: a
    :class:`Suite` or a path; default the shipped one): a :class:`Result` with
    the share of its moves that keep the game-theoretic value and the share
    that are optimal, on the critical positions and on all, by phase, with 95%
    Wilson intervals, beside a random mover's exact expectation.  ``sample``:
    only that many positions, drawn with ``seed`` (the same ones for every
    agent).  ``progress``: a line on stderr as it goes.  An illegal move is a
    ``ValueError`` naming the position and the move, and nothing is counted.  ``game``:
    a registry key; default the game the agent was made for (``agent.game``), else the
    first of the game list.  ``boards``: None, every position (an agent that cannot
    play some of the suite's boards is refused); ``"playable"``, the positions on
    the boards the agent plays (asked by a move on the first of each kind; e.g. a
    network of the 5x5 Quixo board on the 5x5 part of a suite of 4x4 and 5x5
    positions); or board options (``{"size": 5}``), the positions on such boards.
    The sample is drawn from those positions; ``Result.boards`` names them."""
    if game is None:
        game = getattr(agent, "game", None) or _registry.default_game()
    suite = _suite(game, suite)
    if not callable(getattr(agent, "select_move", None)):
        raise ValueError(f"agent must have select_move(board), got {type(agent).__name__}")
    idx = list(range(len(suite)))
    words = ""
    if boards is not None:
        idx, words = _on_boards(agent, suite, idx, boards)
    seed = _util.resolve_seed(seed)
    if sample is not None:
        sample = _util.check_int("sample", sample, min=1, max=len(idx))
        idx = sorted(random.Random(seed).sample(idx, sample))
    check_playable(agent, suite, idx)
    counts = {kind: {p: [0, 0] for p in _ALL}
              for kind in ("keeps", "optimal", "critical_keeps", "critical_optimal")}
    name = getattr(agent, "name", type(agent).__name__)
    t0 = time.perf_counter()
    for n, i in enumerate(idx, 1):
        board = suite.board(i)
        if hasattr(agent, "reset"):
            agent.reset()
        move = agent.select_move(board.copy())
        s = suite.scores[i]
        if isinstance(move, bool) or not isinstance(move, (int, np.integer)) or move not in s:
            g = _registry.get(suite.game)
            line = " ".join(_move_text(g, suite, i))
            raise ValueError(f"agent {name!r} chose {move!r}, not a legal move of suite "
                             f"position {i} ({g.title}, after: {line or 'no move'}); "
                             "nothing is counted")
        best = max(s.values())
        kinds = ("keeps", "optimal") + (("critical_keeps", "critical_optimal")
                                        if suite.critical[i] else ())
        hit = {"keeps": _outcome(s[move]) == _outcome(best), "optimal": s[move] == best}
        for phase in (PHASES[suite.phases[i]], "all"):
            for kind in kinds:
                c = counts[kind][phase]
                c[0] += hit[kind.replace("critical_", "")]
                c[1] += 1
        if progress and (n % 50 == 0 or n == len(idx)):
            print(f"\r{n:,}/{len(idx):,} positions", end="", file=sys.stderr, flush=True)
    if progress:
        print(file=sys.stderr)
    shares = {kind: {p: Share(*v) for p, v in c.items()} for kind, c in counts.items()}
    return Result(name, suite.game, shares["keeps"], shares["optimal"], len(idx),
                  time.perf_counter() - t0, shares["critical_keeps"],
                  shares["critical_optimal"], suite.random_expectation(True, idx), words)


def _move_text(g, suite, i):
    """The moves of position ``i`` as the game writes them."""
    b = g.new_board(**suite.options_of(i))
    out = []
    for m in suite.lines[i]:
        out.append(g.move_to_str(b, m))
        b.push(m)
    return out


def shipped_suite(game):
    """The suite that ships for ``game`` (a registry key); a one-line ``ValueError``
    naming the file and what to run when it is missing or damaged."""
    return _suite(game, None)
