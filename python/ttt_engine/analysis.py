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
  for the MCTS engine and the AlphaZero agent (PUCT) each move's line too,
  the most visited path below it (:meth:`ttt_engine.search.MCTS.lines`,
  :meth:`ttt_engine.search.PUCT.lines`, read without changing the tree);
- ``alphabeta`` / ``minimax`` / ``perfect``: each move's value searched with a
  full window at the engine's depth (exact for ``perfect`` and short games: a
  win or loss with its distance in plies), and its principal variation;
- ``q`` (Tic-Tac-Toe Q-learning): the Q-value of each move;
- ``greedy`` (Quixo state values): the estimated score of the position after
  each move, and how many observations it rests on;
- ``treeq`` / ``sarsa``: the visits and values of the learned root moves, each
  with its line, the learner's own choice at every node of its Q tree
  (``TreeQAgent.lines``, read without changing the tree);
- ``q`` and ``greedy`` give each move's line too: the agent's greedy choice
  for both sides after it, until the game ends (``greedy``: at most
  ``PV_PLIES``, and not past a position its table has never seen).

``score`` is every number brought to [-1, 1] for the side to move (+1 a win),
which the heat map (:meth:`Analysis.to_svg`, the boards' SVG) and the
evaluation bar of ``ttt-engine serve`` draw.  An agent from elsewhere (a
neural agent, say) joins by having ``analysis_rows(board) -> {move: dict}``
(keys among those of :class:`MoveRow`) or MCTS-style ``last_stats``.
"""
from __future__ import annotations

import itertools
import math
import time as _time
from dataclasses import asdict, dataclass, field

from ttt_engine import _registry
from ttt_engine._agent import check_game
from ttt_engine._learned_lines import greedy_lines, value_estimates
from ttt_engine._svg import board_svg, move_geometry
from ttt_engine._util import check_int, check_real

__all__ = ["MoveRow", "Analysis", "analyse", "move_geometry", "CLOSE", "LINES", "outlook",
           "MoveNote", "review", "position_value", "MISTAKE", "BLUNDER"]

#: Moves whose score is within this of the best one's are "close alternatives".
CLOSE = 0.05
#: Principal variations a depth-first analysis gives beyond the best move's (multi-PV).
LINES = 3
#: Longest principal variation read from a search tree (plies).
PV_PLIES = 16
#: Visits a step of a tree's line needs to be shown, unless the solver proved it
#: (a node visited once holds only the move its expansion or first visit played).
PV_MIN_VISITS = 2


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
                "outlook": self.outlook(), "pv": list(self.best.pv) if self.best else [],
                "stats": _jsonable(self.stats), "done": self.done}

    def outlook(self):
        """The evaluation in words: ``"X wins in 7"``, ``"draw"``, or the side
        to move's winning chance (``"X 64%"``); "" without an evaluation."""
        best = self.best
        return outlook(_registry.get(self.game).sides, self.side, self.evaluation,
                       best.verdict if best is not None else None)


def outlook(sides, side, score, verdict=None):
    """``score`` (in [-1, 1] for ``side``, to move) or the exact ``verdict``
    (``"win in 3"``, ``"loss in 2"``, ``"win"``, ``"draw"``) in words, naming the winner."""
    other = sides[1] if side == sides[0] else sides[0]
    if verdict:
        word, _, plies = verdict.partition(" in ")
        if word == "draw":
            return "draw"
        winner = side if word == "win" else other
        return f"{winner} wins" + (f" in {plies}" if plies else "")
    if score is None:
        return ""
    # an estimate is never certain: 1-99%
    return f"{side} {min(99, max(1, round(50 + 50 * score)))}%"


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


def _mcts_rows(game, board, stats, lines):
    """The rows of the root moves in ``stats["children"]``, each with its
    line from ``lines`` (``{move: steps}``, :func:`_tree_lines`) when there
    is one."""
    rows = []
    for ch in stats.get("children") or ():
        m, visits, mean = int(ch["move"]), int(ch["visits"]), float(ch["mean"])
        proven = int(ch.get("proven", 0))
        verdict = "win" if proven > 0 else "loss" if proven < 0 else None
        score = 1.0 if proven > 0 else -1.0 if proven < 0 else mean
        line = lines.get(m)
        pv = _texts(game, board, _shown_moves(line)) if line else ()
        rows.append(MoveRow(m, game.move_to_str(board, m), score, mean, visits, pv=pv,
                            verdict=verdict, label=_count_label(visits)))
    rows.sort(key=lambda r: (-(r.visits or 0), -(r.score or 0)))
    return rows


def _tree_lines(agent):
    """``{root move: line}`` of the MCTS engine's tree (every root move's,
    :meth:`ttt_engine.search.MCTS.lines`) or of an AlphaZero agent's PUCT
    trees (:func:`ttt_engine.search.puct.merge_puct_lines`: root-parallel
    trees summed, as its root statistics are), the trees left as they are;
    ``{}`` for other agents."""
    read = getattr(getattr(agent, "_mcts", None), "lines", None)
    if getattr(agent, "ANALYSIS", None) == "mcts" and callable(read):
        lines = read(None, PV_PLIES)
    elif getattr(agent, "_pucts", None):
        from ttt_engine.search.puct import PUCT, merge_puct_lines
        if not all(isinstance(p, PUCT) for p in agent._pucts):
            return {}
        lines = merge_puct_lines(agent._pucts, None, PV_PLIES)
    else:
        return {}
    return {line[0]["move"]: line for line in lines if line}


def _shown_moves(line, exact="proven"):
    """The moves of a tree's line worth showing: its first, then the steps up
    to the first with fewer than ``PV_MIN_VISITS`` visits and nothing exact
    (``st[exact]``: MCTS's proofs, a tree learner's game-ending moves)."""
    rest = itertools.takewhile(lambda st: st["visits"] >= PV_MIN_VISITS or st[exact],
                               line[1:])
    return [line[0]["move"]] + [st["move"] for st in rest]


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
    flag = watcher = None
    if time_budget is not None and not exact_engine:
        # the time budget bounds the search: a depth still running at the
        # deadline is cut off (the deeper depth is dropped, the last one kept)
        deadline, asked = t0 + time_budget, stop

        def stop():
            return _time.perf_counter() > deadline or (asked is not None and asked())
        flag, watcher = _stop_flag(stop)
    try:
        return _deepen(game, board, depths, stop, time_budget, t0, heuristic, flag, update)
    finally:
        if watcher is not None:
            watcher.set()


def _deepen(game, board, depths, stop, time_budget, t0, heuristic, flag, update):
    from ttt_engine import search as S
    result = None
    last = 0.0
    for d in depths:
        if stop is not None and result is not None and stop():     # depth 1 always runs
            break
        if result is not None and time_budget is not None:
            spent = _time.perf_counter() - t0
            if spent + 3 * last > time_budget:      # the next depth would not fit
                break
        t1 = _time.perf_counter()
        if flag is not None and result is not None:     # (depth 1 always completes)
            got = _stoppable_values(board, d, heuristic, flag)
            if got is None:                         # stopped inside this depth
                break
            values, exact, best, lines = got
        else:
            values, exact = S.move_values(board, d, heuristic=heuristic)
            best = S.alphabeta(board, d, heuristic=heuristic)
            lines = None
        last = _time.perf_counter() - t1
        # multi-PV: every move's line where the search is exact and cheap (no
        # heuristic), else the best move's and the next LINES - 1 by value
        ranked = sorted(values, key=lambda m: (-values[m], m != best.best_move))
        lined = set(ranked if heuristic == 0 else ranked[:LINES])
        rows = []
        for m, v in values.items():
            score, verdict = _search_score(game.key, v)
            if exact and verdict is None and v == 0:
                verdict = "draw"
            if lines is not None:
                pv = _texts(game, board, lines[m])
            elif m == best.best_move:
                pv = _texts(game, board, best.pv)
            elif m in lined:
                pv = _line_after(game, board, m, d, heuristic)
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


def _stop_flag(stop):
    """A flag the compiled alpha-beta polls (int32[1]), raised by a watcher
    thread within 10 ms of ``stop()`` turning True; and the event that ends
    the watcher."""
    import array
    import threading
    flag = array.array("i", [0])
    done = threading.Event()

    def watch():
        while not done.wait(0.01):
            if stop():
                flag[0] = 1
                return
    threading.Thread(target=watch, daemon=True, name="ttt-engine-stop").start()
    return flag, done


def _stoppable_values(board, depth, heuristic, flag):
    """What ``move_values`` and ``alphabeta`` give at ``depth`` (every move's
    value, exactness, the best line), searched move by move so that ``flag``
    stops it within the compiled search's polling; each move's line too.
    None when stopped."""
    from ttt_engine.search import MATE_BOUND, WIN_SCORE, SearchResult
    from ttt_engine.search.depth_first import _run
    values, lines, exact, nodes = {}, {}, True, 0
    me = board.to_move
    for m in board.legal_moves:
        child = board.copy()
        child.push(m)
        if child.is_terminal():
            w = child.winner
            v = 0.0 if w == "draw" else (WIN_SCORE - 1) * (1 if w == me else -1)
            values[m], lines[m] = v, [m]
            continue
        try:
            r = _run(child, 2, max(depth - 1, 0), heuristic, True, True, True, None, False,
                     pvs=True, stop=flag)
        except (TimeoutError, KeyboardInterrupt):
            return None
        if flag[0]:
            return None
        v = -r.value
        if abs(v) >= MATE_BOUND:                    # one ply further from this board
            v = math.copysign(abs(v) - 1, v)
        values[m], lines[m] = v + 0.0, [m] + list(r.pv)
        exact = exact and r.exact
        nodes += r.nodes
    best = max(values, key=lambda m: values[m])
    return values, exact, SearchResult(values[best], best, lines[best], nodes, 0.0, depth,
                                       exact), lines


def _line_after(game, board, move, depth, heuristic):
    """``move`` and the principal variation of the position after it, searched
    one ply shallower."""
    from ttt_engine import search as S
    child = board.copy()
    child.push(move)
    if child.is_terminal():
        return (game.move_to_str(board, move),)
    sub = S.alphabeta(child, None if depth is None else max(depth - 1, 1), heuristic=heuristic)
    return _texts(game, board, [move] + list(sub.pv))


def _learned_rows(game, board, agent):
    """The rows of a greedy table agent, each with the line of its greedy
    choices after the move (:mod:`ttt_engine._learned_lines`)."""
    if hasattr(agent, "q_values"):                  # tabular Q-learning
        lines = greedy_lines(agent, board, PV_PLIES)
        rows = []
        for m, q in agent.q_values(board).items():
            rows.append(MoveRow(m, game.move_to_str(board, m), max(-1.0, min(1.0, q)), q,
                                pv=_texts(game, board, lines[m]), label=f"{q:+.2f}"))
        return "q", rows
    values = getattr(agent, "values", None)
    if values is not None and hasattr(values, "get"):   # state values (Quixo)
        lines = greedy_lines(agent, board, PV_PLIES)
        rows = []
        for m, (est, seen) in value_estimates(agent, board).items():
            rows.append(MoveRow(m, game.move_to_str(board, m),
                                _value_score(agent, board, m, est, seen), est,
                                observations=seen, pv=_texts(game, board, lines[m]),
                                label=f"{est:.2f}"))
        return "values", rows
    return None, None


def _value_score(agent, board, move, est, seen):
    """A state-value table's view of ``move`` in [-1, 1] for the side to move.
    The table holds discounted wins (``gamma ** plies to the end`` for a win,
    0 for a loss): far from the end every entry is near 0, so an entry is no
    win chance by itself.  Set against the same for the opponent after its
    reply (the entries' mean, weighed by how often each was seen: both one
    ply apart, discounted alike), it is: my share of the two,
    ``2 * me / (me + them) - 1``.  A position never seen scores 0: nothing is
    known of it (a move that ends the game: its result)."""
    child = board.copy()
    child.push(move)
    if child.is_terminal():
        return 2 * est - 1
    if not seen:
        return 0.0
    replies = [(e, n) for e, n in value_estimates(agent, child).values() if n != 0]
    weight = sum(1 if n is None else n for _, n in replies)
    them = sum(e * (1 if n is None else n) for e, n in replies) / weight if weight else 0.0
    return 0.0 if est + them <= 0 else (est - them) / (est + them)


def _count_label(n):
    """A count short enough for a cell: 950, 12k, 3.4M."""
    if n < 1000:
        return str(n)
    if n < 10**6:
        return f"{n / 1000:.0f}k"
    return f"{n / 1e6:.1f}M"


def _tree_rows(game, board, agent):
    """The rows of a tree learner's root moves, each with its line
    (``agent.lines``: the learner's own choice at every node, read without
    changing the tree), shown like an MCTS line, a move that ends the game
    counting as proven (its q is exact)."""
    read = getattr(agent, "lines", None)
    lines = {line[0]["move"]: line for line in read(None, PV_PLIES) if line} \
        if callable(read) else {}
    rows = []
    for m, q, visits in agent.root_children():
        score = max(-1.0, min(1.0, -float(q)))       # q: lower is better for the mover
        line = lines.get(int(m))
        pv = _texts(game, board, _shown_moves(line, "terminal")) if line else ()
        rows.append(MoveRow(int(m), game.move_to_str(board, m), score, float(q), int(visits),
                            pv=pv, label=_count_label(int(visits))))
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
    with what it has (a tree search within ``STEP`` seconds).  Reading the
    MCTS or PUCT lines leaves the tree as the search left it: an agent handed
    in searches on from it at its next move."""
    game = _registry.get(game) if isinstance(game, str) else game
    game._check_board(board)
    if not isinstance(engine, str):
        check_game(engine, board)       # an agent made for another game: select_move's line
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

    if t_budget is not None and (on_update or stop) and _slicer(agent) is not None:
        return _sliced_mcts(game, board, agent, t_budget, on_update, stop, make)

    best = agent.select_move(board.copy())
    stats = dict(getattr(agent, "last_stats", None) or {})
    if stats.get("children"):
        rows = _mcts_rows(game, board, stats, _tree_lines(agent))
        top = next(r for r in rows if r.move == best)
        return make("mcts", rows, best, top.score, _eval_text(top.score, top.verdict), stats)
    if hasattr(agent, "root_children"):
        rows = _tree_rows(game, board, agent)
        top = next(r for r in rows if r.move == best)
        return make("tree", rows, best, top.score, _eval_text(top.score), stats)
    rows = [MoveRow(m, game.move_to_str(board, m), label="") for m in board.legal_moves]
    return make("move", rows, best, None, "", stats)


#: Seconds between the live updates of a time-budgeted tree search.
SLICE = 0.25
#: Seconds per step of such a search: ``stop()`` is asked after each one.
STEP = 0.05


def _slicer(agent):
    """``(restart(), search(board, seconds) -> move, stats())`` for an agent
    whose tree search can go on in steps on one tree (MCTS, PUCT on one
    tree), or None."""
    mcts = getattr(agent, "_mcts", None)
    if getattr(agent, "ANALYSIS", None) == "mcts" and mcts is not None:
        return mcts.reset, lambda b, t: mcts.search(b, time=t), lambda: mcts.stats
    if callable(getattr(agent, "_search_for", None)) and \
            (agent.threads == 1 or agent.parallel == "tree"):
        def search(b, t):                   # AZAgent: its PUCT keeps the tree between calls
            return agent._search_for(b).search(b, time=t)
        return agent.reset, search, lambda: agent.last_stats
    return None


def _sliced_mcts(game, board, agent, budget, on_update, stop, make):
    """A tree search with a time budget in steps on one tree (kept between
    steps), an update every ``SLICE`` seconds, stopping within a step when
    ``stop()`` says so; every update carries the lines of the tree so far."""
    restart, search, read = _slicer(agent)
    t0 = _time.perf_counter()
    restart()
    total = 0
    shown = -1.0
    while True:
        left = budget - (_time.perf_counter() - t0)
        best = search(board, max(min(STEP, left), 1e-3))
        stats = read()
        total += stats["simulations"]
        now = _time.perf_counter() - t0
        stats = dict(stats, simulations=total, time=now,
                     simulations_per_s=total / now if now > 0 else 0.0)
        done = bool(budget - now <= 0.01 or (stop is not None and stop())
                    or stats.get("root_proven"))
        if not done and now - shown < SLICE and shown >= 0:
            continue
        shown = now
        rows = _mcts_rows(game, board, stats, _tree_lines(agent))
        top = next(r for r in rows if r.move == best)
        res = make("mcts", rows, best, top.score, _eval_text(top.score, top.verdict), stats,
                   done=done)
        if on_update is not None:
            on_update(res)
        if done:
            return res


# ---------------------------------------------------------------------------- game review
#: A move that lowers its side's winning chance ((1 + score) / 2) by this much is a mistake ...
MISTAKE = 0.1
#: ... and by this much a blunder.
BLUNDER = 0.2


@dataclass(frozen=True)
class MoveNote:
    """One move of a reviewed game.  ``before`` / ``after``: the mover's score
    in [-1, 1] before the move (its best) and after it; ``exact_before`` /
    ``exact_after``: the exact results in words (``"X wins in 5"``,
    ``"draw"``) where the position is solved; ``mark``: ``""``,
    ``"mistake"`` or ``"blunder"``; ``note``: ``"threw away the win"`` or
    ``"threw away the draw"`` when an exact result got worse, else ``""``;
    ``best``: the engine's move there (text)."""
    ply: int
    move: int
    text: str
    side: str
    before: float | None
    after: float | None
    exact_before: str | None = None
    exact_after: str | None = None
    mark: str = ""
    note: str = ""
    best: str | None = None


def _exact_reach(game, board):
    """True when the exact engines finish ``board`` in reasonable time."""
    if board.exhaustive_limit() is not None:
        return False
    return game.long_solve is None or game.long_solve(board) is None


def position_value(game, board, engine=None, **budgets):
    """``(score, verdict, best_move, move_scores)`` of ``board`` for its side to
    move: exact where the exact engines finish it (``move_scores``: every
    move's exact score and verdict), else ``engine``'s evaluation with
    ``budgets`` (``move_scores`` None).  A finished game: its result."""
    from ttt_engine import search as S
    game = _registry.get(game) if isinstance(game, str) else game
    if board.is_terminal():
        w = board.winner
        if w == "draw":
            return 0.0, "draw", None, None
        return (1.0, "win in 0", None, None) if w == board.to_move else \
            (-1.0, "loss in 0", None, None)
    if _exact_reach(game, board):
        values = S.exact_move_values(board, who="review")
        scored = {m: _search_score(game.key, v) for m, v in values.items()}
        scored = {m: (sc, vd or "draw") for m, (sc, vd) in scored.items()}
        best = max(scored, key=lambda m: (scored[m][0], -m))
        return scored[best][0], scored[best][1], best, scored
    a = analyse(game, board, engine if engine is not None else game.default_engine, **budgets)
    return a.evaluation, (a.best.verdict if a.best else None), a.best_move, None


def review(game, moves, *, start=None, engine=None, on_note=None, stop=None, **budgets):
    """Every move of a game marked from the drop in its side's evaluation:
    a list of :class:`MoveNote`.  ``start``: the first position (default a new
    board); ``engine`` and ``budgets`` evaluate the positions exact play does
    not finish (see :func:`position_value`); ``on_note(note)`` gets each note
    as it is made; ``stop()`` returning True ends the review early."""
    game = _registry.get(game) if isinstance(game, str) else game
    board = game.new_board() if start is None else start.copy()
    game._check_board(board)
    sides = game.sides
    notes = []
    here = position_value(game, board, engine, **budgets)
    for ply, m in enumerate(moves, 1):
        if stop is not None and stop():
            break
        side = board.to_move
        text = game.move_to_str(board, m)
        score, verdict, best, scored = here
        board.push(m)
        here = position_value(game, board, engine, **budgets)
        if scored is not None:                      # exact: the move's own value
            after, after_verdict = scored[m]
        else:
            after = None if here[0] is None else -here[0]
            after_verdict = here[1] if board.is_terminal() or here[3] is not None else None
            after_verdict = _flip(after_verdict)
        exact_before = outlook(sides, side, score, verdict) if scored is not None else None
        exact_after = outlook(sides, side, after, after_verdict) if after_verdict else None
        mark = note = ""
        if score is not None and after is not None:
            drop = (score - after) / 2
            mark = "blunder" if drop >= BLUNDER else "mistake" if drop >= MISTAKE else ""
        if exact_before and exact_after:
            rank = {"win": 1, "draw": 0, "loss": -1}
            was, now = rank[verdict.split()[0]], rank[after_verdict.split()[0]]
            if now < was:
                note = "threw away the win" if was == 1 else "threw away the draw"
                mark = mark or "blunder"
        n = MoveNote(ply, m, text, side, score, after, exact_before, exact_after, mark, note,
                     None if best is None else game.move_to_str(game_board_before(board), best))
        notes.append(n)
        if on_note is not None:
            on_note(n)
    return notes


def game_board_before(board):
    """A copy of ``board`` with its last move taken back."""
    b = board.copy()
    b.pop()
    return b


def _flip(verdict):
    """A verdict for the side to move, seen by the other side."""
    if not verdict:
        return verdict
    word, _, plies = verdict.partition(" in ")
    word = {"win": "loss", "loss": "win"}.get(word, word)
    return word + (f" in {plies}" if plies else "")
