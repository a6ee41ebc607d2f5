"""What an engine thinks of a position: one row per legal move, for every game
and engine of the registry (``ttt_engine.games``).

>>> from ttt_engine import games
>>> g = games.get("ttt")
>>> a = g.analyse(g.new_board(), "mcts", simulations=2000, seed=1)
>>> a.kind, len(a.rows), a.best_move in g.new_board().legal_moves
('mcts', 9, True)
>>> print(a.table())                                      # doctest: +SKIP
>>> a._repr_svg_()                                        # doctest: +SKIP

The numbers per engine:

- ``mcts`` (and any agent whose ``last_stats`` has ``children``): the visits
  and mean value of each root move, from the same search ``select_move`` runs
  (so they equal ``agent.last_stats["children"]`` of that seeded search);
- ``alphabeta`` / ``minimax`` / ``perfect``: each move's value searched with a
  full window at the engine's depth (exact for ``perfect`` and short games: a
  win or loss with its distance in plies), and its principal variation;
- ``q`` (Tic-Tac-Toe Q-learning): the Q-value of each move;
- ``greedy`` (Quixo state values): the estimated score of the position after
  each move, and how many observations it rests on;
- ``treeq`` / ``sarsa``: the visits and values of the learned root moves.

``score`` is every number brought to [-1, 1] for the side to move (+1 a win),
which the heat map (:meth:`Analysis.to_svg`, the boards' SVG) and the
evaluation bar of ``ttt-engine serve`` draw.  An agent from elsewhere (a
neural agent, say) joins by having ``analysis_rows(board) -> {move: dict}``
(keys among those of :class:`MoveRow`) or MCTS-style ``last_stats``.
"""
from __future__ import annotations

import math
import time as _time
from dataclasses import asdict, dataclass, field

from ttt_engine import _registry
from ttt_engine._svg import board_svg, move_geometry
from ttt_engine._util import check_int, check_real

__all__ = ["MoveRow", "Analysis", "analyse", "move_geometry", "CLOSE"]

#: Moves whose score is within this of the best one's are "close alternatives".
CLOSE = 0.05



@dataclass(frozen=True)
class MoveRow:
    """One legal move in an :class:`Analysis`.

    move / text: the move and its notation; score: in [-1, 1] for the side to
    move (None when the engine says nothing about it); value: the engine's own
    number (MCTS mean, search score, Q-value, value estimate); visits: MCTS /
    tree visits; observations: table entries behind a value estimate; pv: the
    principal variation as move texts, this move first; verdict: ``"win in
    3"``, ``"draw"``, ``"loss in 4"`` when the value is exact; label: the short
    text drawn on the board."""
    move: int
    text: str
    score: float | None = None
    value: float | None = None
    visits: int | None = None
    observations: int | None = None
    pv: tuple = ()
    verdict: str | None = None
    label: str = ""


@dataclass(frozen=True)
class Analysis:
    """An engine's view of a position (see the module docstring).  ``rows`` are
    sorted best first; ``evaluation`` is the position's score for the side to
    move in [-1, 1]; ``stats`` the engine's ``last_stats`` (or what stands in
    for them); ``done`` is False for the updates a time-budgeted search sends
    while it runs."""
    game: str
    engine: str
    kind: str
    side: str
    board: object = field(repr=False)
    rows: tuple = ()
    best_move: int | None = None
    evaluation: float | None = None
    evaluation_text: str = ""
    stats: dict = field(default_factory=dict, repr=False)
    done: bool = True

    @property
    def best(self):
        """The best row (None when there is none)."""
        return next((r for r in self.rows if r.move == self.best_move), None)

    def alternatives(self, margin=CLOSE, limit=3):
        """Up to ``limit`` rows other than the best whose score is within
        ``margin`` of its score, best first."""
        margin = check_real("margin", margin, low=0)
        limit = check_int("limit", limit, min=0)
        best = self.best
        if best is None or best.score is None:
            return []
        close = [r for r in self.rows if r.move != best.move and r.score is not None
                 and best.score - r.score <= margin]
        return sorted(close, key=lambda r: -r.score)[:limit]

    def heat(self):
        """``{move: (score, label)}`` for the moves with a score."""
        return {r.move: (r.score, r.label) for r in self.rows if r.score is not None}

    def to_svg(self, last_move=None):
        """The board with the scores as a heat map, the best move in green and
        the close alternatives in grey."""
        return board_svg(self.board, heat=self.heat(), best=self.best_move,
                         alternatives=[r.move for r in self.alternatives()],
                         last_move=last_move)

    def _repr_svg_(self):
        return self.to_svg()

    def table(self):
        """The rows as an aligned text table."""
        cols = [("move", lambda r: r.text), ("score", lambda r: _f(r.score, "+.3f")),
                ("value", lambda r: _f(r.value, ".4g")), ("visits", lambda r: _f(r.visits, ",")),
                ("observations", lambda r: _f(r.observations, ",")),
                ("verdict", lambda r: r.verdict or ""), ("pv", lambda r: " ".join(r.pv))]
        cols = [(h, f) for h, f in cols if h in ("move", "score") or any(f(r) for r in self.rows)]
        lines = [[h for h, _ in cols]] + [[f(r) for _, f in cols] for r in self.rows]
        widths = [max(len(line[i]) for line in lines) for i in range(len(cols))]
        return "\n".join("  ".join(c.ljust(w) for c, w in zip(line, widths)).rstrip()
                         for line in lines)

    def to_dict(self):
        """Plain JSON-ready data (the board as its ``to_string``)."""
        return {"game": self.game, "engine": self.engine, "kind": self.kind, "side": self.side,
                "rows": [dict(asdict(r), pv=list(r.pv)) for r in self.rows],
                "best_move": self.best_move, "evaluation": self.evaluation,
                "evaluation_text": self.evaluation_text,
                "alternatives": [r.move for r in self.alternatives()],
                "stats": _jsonable(self.stats), "done": self.done}


def _f(v, spec):
    return "" if v is None else format(v, spec)


def _jsonable(v):
    if isinstance(v, dict):
        return {str(k): _jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if isinstance(v, float):
        return v if math.isfinite(v) else None
    if isinstance(v, (str, int, bool)) or v is None:
        return v
    return str(v)


# ---------------------------------------------------------------------------- scores
def _search_score(game_key, v):
    """A search value (win distance or heuristic) in [-1, 1] and its verdict."""
    from ttt_engine.search import MATE_BOUND, WIN_SCORE
    if abs(v) >= MATE_BOUND:
        plies = int(round(WIN_SCORE - abs(v)))
        word = "win" if v > 0 else "loss"
        # a quicker win scores a little higher, a slower loss a little less low
        return math.copysign(1.0 - min(plies, 99) * 1e-4, v), f"{word} in {plies}"
    return math.tanh(v / _registry.get(game_key).analysis_scale), None


def _exact_label(verdict, v):
    if verdict is None:
        return f"{v:+.2g}" if abs(v) < 100 else f"{v:+.0f}"
    word, _, plies = verdict.split()
    return {"win": "W", "loss": "L"}[word] + plies


def _eval_text(score, verdict=None):
    if verdict:
        return verdict
    return "" if score is None else f"{score:+.2f}"


# ---------------------------------------------------------------------------- engines
def _texts(game, board, line):
    b = board.copy()
    out = []
    for m in line:
        try:
            out.append(game.move_to_str(b, m))
            b.push(m)
        except (ValueError, TypeError):
            break
    return tuple(out)


def _mcts_rows(game, board, stats):
    rows = []
    for ch in stats.get("children") or ():
        m, visits, mean = int(ch["move"]), int(ch["visits"]), float(ch["mean"])
        proven = int(ch.get("proven", 0))
        verdict = "win" if proven > 0 else "loss" if proven < 0 else None
        score = 1.0 if proven > 0 else -1.0 if proven < 0 else mean
        rows.append(MoveRow(m, game.move_to_str(board, m), score, mean, visits,
                            verdict=verdict, label=_count_label(visits)))
    rows.sort(key=lambda r: (-(r.visits or 0), -(r.score or 0)))
    return rows


def _depth_first(game, board, agent, time_budget, update, stop):
    """Per-move values of a depth-first engine at its depth (one more ply per
    iteration when it has a time budget, with an update after each)."""
    from ttt_engine import search as S
    exact_engine = getattr(agent, "ANALYSIS", None) == "exact"
    heuristic = 0
    if hasattr(agent, "heuristic_for"):
        heuristic = agent.heuristic_for(board)[1]
    elif isinstance(getattr(agent, "heuristic", None), int):
        heuristic = agent.heuristic
    depth = None if exact_engine else getattr(agent, "depth", None)
    t0 = _time.perf_counter()
    if time_budget is None or exact_engine:
        depths = [depth]
    else:
        depths = range(1, (depth or S.MAX_PLY) + 1)
    result = None
    last = 0.0
    for d in depths:
        if stop is not None and stop():
            break
        if result is not None and time_budget is not None:
            spent = _time.perf_counter() - t0
            if spent + 3 * last > time_budget:      # the next depth would not fit
                break
        t1 = _time.perf_counter()
        values, exact = S.move_values(board, d, heuristic=heuristic)
        best = S.alphabeta(board, d, heuristic=heuristic)
        last = _time.perf_counter() - t1
        rows = []
        for m, v in values.items():
            score, verdict = _search_score(game.key, v)
            if exact and verdict is None and v == 0:
                verdict = "draw"
            pv = ()
            if m == best.best_move:
                pv = _texts(game, board, best.pv)
            elif heuristic == 0:
                child = board.copy()
                child.push(m)
                if not child.is_terminal():
                    sub = S.alphabeta(child, None if d is None else max(d - 1, 1))
                    pv = _texts(game, board, [m] + list(sub.pv))
                else:
                    pv = (game.move_to_str(board, m),)
            else:
                pv = (game.move_to_str(board, m),)
            rows.append(MoveRow(m, game.move_to_str(board, m), score, v, pv=pv,
                                verdict=verdict, label=_exact_label(
                                    verdict if verdict != "draw" else None, v)
                                if verdict != "draw" else "="))
        rows.sort(key=lambda r: (-r.score, r.move != best.best_move))
        stats = {"value": best.value, "best_move": best.best_move, "pv": list(best.pv),
                 "nodes": best.nodes, "depth": best.depth, "exact": bool(exact),
                 "time": _time.perf_counter() - t0}
        top = next(r for r in rows if r.move == best.best_move) if best.best_move in values \
            else rows[0]
        result = (rows, top.move, top.score, _eval_text(top.score, top.verdict), stats)
        if update is not None and time_budget is not None:
            update(result, False)
        if exact:
            break
    return result


def _learned_rows(game, board, agent):
    if hasattr(agent, "q_values"):                  # tabular Q-learning
        rows = []
        for m, q in agent.q_values(board).items():
            rows.append(MoveRow(m, game.move_to_str(board, m), max(-1.0, min(1.0, q)), q,
                                label=f"{q:+.2f}"))
        return "q", rows
    values = getattr(agent, "values", None)
    if values is not None and hasattr(values, "get"):   # state values (Quixo)
        rows = []
        me = board.to_move
        for m in board.legal_moves:
            child = board.copy()
            child.push(m)
            seen = None
            if child.is_terminal() and getattr(agent, "exact_terminal", True):
                w = child.winner
                est = 1.0 if w == me else 0.5 if w == "draw" else 0.0
            else:
                got = values.get(child)
                est, seen = (getattr(agent, "unknown", 0.5), 0) if got is None else got
            rows.append(MoveRow(m, game.move_to_str(board, m), 2 * est - 1, est,
                                observations=seen, label=f"{est:.2f}"))
        return "values", rows
    return None, None


def _count_label(n):
    """A count short enough for a cell: 950, 12k, 3.4M."""
    if n < 1000:
        return str(n)
    if n < 10**6:
        return f"{n / 1000:.0f}k"
    return f"{n / 1e6:.1f}M"


def _tree_rows(game, board, agent):
    rows = []
    for m, q, visits in agent.root_children():
        score = max(-1.0, min(1.0, -float(q)))       # q: lower is better for the mover
        rows.append(MoveRow(int(m), game.move_to_str(board, m), score, float(q), int(visits),
                            label=_count_label(int(visits))))
    rows.sort(key=lambda r: (-(r.visits or 0), -r.score))
    return rows


def _build(game, engine, seed, simulations, time, depth, options):
    if isinstance(engine, str):
        return engine, game.make_agent(engine, seed=seed, simulations=simulations, time=time,
                                       depth=depth, **options)
    if not callable(getattr(engine, "select_move", None)):
        raise ValueError(f"engine must be an engine name of {game.title} "
                         f"({', '.join(game.engines)}) or an agent, got {type(engine).__name__}")
    if any(v is not None for v in (seed, simulations, time, depth)) or options:
        raise ValueError("budgets and options go with an engine name; an agent brings its own")
    return getattr(engine, "name", type(engine).__name__), engine


def analyse(game, board, engine, *, seed=None, simulations=None, time=None, depth=None,
            on_update=None, stop=None, **options):
    """What ``engine`` (a name of ``game``'s engines, built with the budgets,
    or an agent) thinks of ``board``: an :class:`Analysis`.  See the module
    docstring.  ``on_update(analysis)`` receives partial results while a
    time-budgeted search runs (MCTS in slices of a quarter second, alpha-beta
    one depth at a time); ``stop()`` returning True ends such a search early
    with what it has."""
    game = _registry.get(game) if isinstance(game, str) else game
    game._check_board(board)
    if board.is_terminal():
        raise ValueError("the game is over on this board: there is nothing to analyse")
    name, agent = _build(game, engine, seed, simulations, time, depth, options)
    board = board.copy()
    t_budget = time if isinstance(engine, str) else getattr(agent, "time", None)

    def make(kind, rows, best, evaluation, text, stats, done=True):
        return Analysis(game.key, name, kind, board.to_move, board.copy(), tuple(rows), best,
                        evaluation, text, dict(stats or {}), done)

    own = getattr(agent, "analysis_rows", None)
    if callable(own):
        rows = [MoveRow(int(m), game.move_to_str(board, m), **d)
                for m, d in own(board).items()]
        rows.sort(key=lambda r: -(r.score if r.score is not None else -2))
        best = rows[0] if rows else None
        return make("agent", rows, best and best.move, best and best.score,
                    _eval_text(best and best.score), getattr(agent, "last_stats", {}))

    # the engine says how it is read (agents.ANALYSIS); one with a heuristic of
    # its own (heuristic_for) is searched depth-first too
    style = getattr(agent, "ANALYSIS", None)
    if style in ("exact", "search") or hasattr(agent, "heuristic_for"):
        def update(res, done):
            on_update(make("search", *res, done=done))
        res = _depth_first(game, board, agent, t_budget, update if on_update else None, stop)
        return make("exact" if style == "exact" else "search", *res)

    kind, rows = _learned_rows(game, board, agent)
    if rows is not None:
        rows.sort(key=lambda r: -r.score)
        best = agent.select_move(board.copy())
        top = next(r for r in rows if r.move == best)
        stats = {"best_move": best}
        return make(kind, rows, best, top.score, _eval_text(top.score), stats)

    if style == "mcts" and t_budget is not None and (on_update or stop):
        return _sliced_mcts(game, board, agent, t_budget, on_update, stop, make)

    best = agent.select_move(board.copy())
    stats = dict(getattr(agent, "last_stats", None) or {})
    if stats.get("children"):
        rows = _mcts_rows(game, board, stats)
        top = next(r for r in rows if r.move == best)
        return make("mcts", rows, best, top.score, _eval_text(top.score, top.verdict), stats)
    if hasattr(agent, "root_children"):
        rows = _tree_rows(game, board, agent)
        top = next(r for r in rows if r.move == best)
        return make("tree", rows, best, top.score, _eval_text(top.score), stats)
    rows = [MoveRow(m, game.move_to_str(board, m), label="") for m in board.legal_moves]
    return make("move", rows, best, None, "", stats)


#: Seconds per slice of a time-budgeted MCTS analysis with live updates.
SLICE = 0.25


def _sliced_mcts(game, board, agent, budget, on_update, stop, make):
    """MCTS with a time budget in slices on one tree (kept between slices), an
    update after each slice, stopping early when ``stop()`` says so."""
    mcts = agent._mcts
    t0 = _time.perf_counter()
    mcts.reset()
    total = 0
    while True:
        left = budget - (_time.perf_counter() - t0)
        best = mcts.search(board, time=max(min(SLICE, left), 1e-3))
        stats = mcts.stats
        total += stats["simulations"]
        stats = dict(stats, simulations=total, time=_time.perf_counter() - t0)
        rows = _mcts_rows(game, board, stats)
        top = next(r for r in rows if r.move == best)
        done = (budget - (_time.perf_counter() - t0) <= 0.01 or (stop is not None and stop())
                or stats.get("root_proven"))
        res = make("mcts", rows, best, top.score, _eval_text(top.score, top.verdict), stats,
                   done=bool(done))
        if on_update is not None:
            on_update(res)
        if done:
            return res
