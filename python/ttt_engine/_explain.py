"""How the library's agents explain themselves: the ``analyse(board)`` of every
engine that has something to say, each building the
:class:`ttt_engine.analysis.Analysis` of its own search (see docs/agents.md,
"Analysis").  An agent's ``analyse`` calls one of these with what only it
knows (its tree, its heuristic, its table); the readers of an analysis (the
web page, the console's ``--verbose``, the tournament records) call
``agent.analyse`` and nothing else.

- :func:`depth_first`: each move's value searched with a full window at the
  engine's depth (exact with no depth: a win or loss with its distance in
  plies), its principal variation (multi-PV), one more ply per iteration when
  the agent has a time budget;
- :func:`tree_search`: the visits and mean value of each root move from the
  same search ``select_move`` runs, each move's line from the tree, in live
  slices when timed (MCTS, PUCT);
- :func:`tree_learner`: a tree learner's root moves and lines;
- :func:`q_table` / :func:`state_values`: a table agent's Q-values or value
  estimates, each move's line the agent's greedy choice for both sides;
- :func:`policy`: a network's priors and value, no search.
"""
from __future__ import annotations

import itertools
import math
import time as _time

from ttt_engine import _registry
from ttt_engine._learned_lines import greedy_lines, value_estimates
from ttt_engine.analysis import (LINES, PV_MIN_VISITS, PV_PLIES, Analysis, MoveRow,
                                 search_score)

__all__ = ["depth_first", "tree_search", "puct_search", "puct_lines", "tree_learner", "q_table",
           "state_values", "policy", "eval_text", "SLICE", "STEP"]


def _maker(agent, board):
    """``make(kind, rows, best, evaluation, text, stats, done=True)`` -> the
    :class:`Analysis` of ``agent`` on ``board``."""
    game = _registry.of_board(board)
    board = board.copy()
    name = getattr(agent, "name", type(agent).__name__)

    def make(kind, rows, best, evaluation, text, stats, done=True):
        return Analysis(game.key, name, kind, board.to_move, board.copy(), tuple(rows), best,
                        evaluation, text, dict(stats or {}), done)
    return game, board, make


def depth_first(agent, board, *, heuristic=0, depth=None, exact=False, time=None,
                choose=None, on_update=None, stop=None):
    """The analysis of a depth-first engine: every move's value at ``depth``
    with ``heuristic`` (``exact``: solved to the end, no depth), one more ply
    per iteration within ``time`` seconds (an update after each, the deeper
    depth cut off at the deadline or ``stop()``).  ``choose(board)``: the
    agent's own choice among the moves (a random one of equal values), else
    the search's best."""
    game, board, make = _maker(agent, board)
    heuristic = heuristic if isinstance(heuristic, int) else 0      # a named one: the game's own

    def update(res, done):
        on_update(make("search", *res, done=done))
    rows, best, evaluation, text, stats = _depth_first(
        game, board, heuristic, None if exact else depth, exact, None if exact else time,
        update if on_update else None, stop)
    if choose is not None:
        best = choose(board.copy())
        top = next(r for r in rows if r.move == best)
        evaluation, text = top.score, eval_text(top.score, top.verdict)
        stats = dict(stats, best_move=best)
    return make("exact" if exact else "search", rows, best, evaluation, text, stats)


def tree_search(agent, board, *, tree=None, lines=None, slicer=None, on_update=None,
                stop=None):
    """The analysis of a tree search: ``agent.select_move`` and the root
    statistics of its ``last_stats`` (``children``), each root move's line from
    ``lines(k, depth)`` (read without changing the tree).  With a
    time budget and ``on_update`` or ``stop``, the search runs in steps of
    ``slicer = (restart(), search(board, seconds) -> move, stats())`` on one
    tree, an update every :data:`SLICE` seconds."""
    game, board, make = _maker(agent, board)
    if tree is not None:        # one tree that searches on in steps (MCTS)
        lines = tree.lines
        slicer = (tree.reset, lambda b, t: tree.search(b, time=t), lambda: tree.stats)
    budget = getattr(agent, "time", None)
    if budget is not None and (on_update or stop) and slicer is not None:
        return _sliced(game, board, budget, slicer, lines, on_update, stop, make)
    best = agent.select_move(board.copy())
    stats = dict(agent.last_stats or {})
    if not stats.get("children"):
        rows = [MoveRow(m, game.move_to_str(board, m), label="") for m in board.legal_moves]
        return make("move", rows, best, None, "", stats)
    rows = _mcts_rows(game, board, stats, _by_root(lines))
    top = next(r for r in rows if r.move == best)
    return make("mcts", rows, best, top.score, eval_text(top.score, top.verdict), stats)


def _by_root(lines):
    """``{root move: line}`` of ``lines(k, depth)`` (every root move's, read
    without changing the tree); ``{}`` without ``lines``."""
    if lines is None:
        return {}
    return {line[0]["move"]: line for line in lines(None, PV_PLIES) if line}


def puct_search(agent, board, trees, search_for, **live):
    """The analysis of an AlphaZero agent: :func:`tree_search` over its PUCT
    trees (``trees()``: the list; ``search_for(board)``: the tree that searches
    ``board``), in live slices when they are one tree."""
    slicer = None
    if agent.threads == 1 or agent.parallel == "tree":
        slicer = (agent.reset, lambda b, t: search_for(b).search(b, time=t),
                  lambda: agent.last_stats)
    return tree_search(agent, board, lines=lambda k, d: puct_lines(trees(), k, d),
                       slicer=slicer, **live)


def puct_lines(trees, k=None, depth=PV_PLIES):
    """The lines of an AlphaZero agent's PUCT trees, root-parallel trees summed
    as its root statistics are (:func:`ttt_engine.search.puct.merge_puct_lines`);
    ``[]`` when a tree is no PUCT tree."""
    from ttt_engine.search.puct import PUCT, merge_puct_lines
    if not trees or not all(isinstance(p, PUCT) for p in trees):
        return []
    return merge_puct_lines(trees, k, depth)


def tree_learner(agent, board, *, root_children, lines):
    """The analysis of a tree learner (Q tree, Sarsa): its move, the visits and
    values of ``root_children()`` (``[(move, q, visits)]``, q lower is better)
    and each one's line from ``lines(k, depth)``."""
    game, board, make = _maker(agent, board)
    best = agent.select_move(board.copy())
    stats = dict(agent.last_stats or {})
    if stats.get("children"):
        rows = _mcts_rows(game, board, stats, {})
        top = next(r for r in rows if r.move == best)
        return make("mcts", rows, best, top.score, eval_text(top.score, top.verdict), stats)
    rows = _tree_rows(game, board, root_children(), lines)
    top = next(r for r in rows if r.move == best)
    return make("tree", rows, best, top.score, eval_text(top.score), stats)


def q_table(agent, board):
    """The analysis of a Q-table agent (``agent.q_values(board)``): each
    move's Q-value and the agent's greedy line after it."""
    game, board, make = _maker(agent, board)
    lines = greedy_lines(agent, board, PV_PLIES)
    rows = [MoveRow(m, game.move_to_str(board, m), max(-1.0, min(1.0, q)), q,
                    pv=_texts(game, board, lines[m]), label=f"{q:+.2f}")
            for m, q in agent.q_values(board).items()]
    return _learned(agent, board, make, "q", rows)


def state_values(agent, board):
    """The analysis of a state-value agent (``agent.values``): the estimated
    score of the position after each move, the observations behind it and
    the agent's greedy line after it."""
    game, board, make = _maker(agent, board)
    lines = greedy_lines(agent, board, PV_PLIES)
    rows = [MoveRow(m, game.move_to_str(board, m), _value_score(agent, board, m, est, seen),
                    est, observations=seen, pv=_texts(game, board, lines[m]),
                    label=f"{est:.2f}")
            for m, (est, seen) in value_estimates(agent, board).items()]
    return _learned(agent, board, make, "values", rows)


def policy(agent, board):
    """The analysis of a network's policy alone (``agent.network``, no
    search): each legal move's prior (the softmax of the legal logits) as its
    value, best first, the network's value of the position as the evaluation,
    and the agent's move."""
    import numpy as np
    game, board, make = _maker(agent, board)
    best = agent.select_move(board.copy())  # (the shipped network is loaded at the first move)
    logits, value = agent.network.forward(np.asarray(board.observation())[None])
    mask = np.asarray(board.action_mask(), bool)
    legal = np.where(mask, np.asarray(logits[0], float), -np.inf)
    priors = np.exp(legal - legal.max())
    priors /= priors.sum()
    moves = sorted(board.legal_moves, key=lambda m: -priors[board.move_to_action(m)])
    rows = [MoveRow(m, game.move_to_str(board, m), value=float(priors[board.move_to_action(m)]),
                    pv=(game.move_to_str(board, m),),
                    label=f"{priors[board.move_to_action(m)]:.0%}") for m in moves]
    v = max(-1.0, min(1.0, float(np.asarray(value).reshape(-1)[0])))
    return make("policy", rows, best, v, eval_text(v), {"best_move": best})


def _learned(agent, board, make, kind, rows):
    rows.sort(key=lambda r: -r.score)
    best = agent.select_move(board.copy())
    top = next(r for r in rows if r.move == best)
    return make(kind, rows, best, top.score, eval_text(top.score), {"best_move": best})


# ---------------------------------------------------------------------------- scores
def _exact_label(verdict, v):
    if verdict is None:
        return f"{v:+.2g}" if abs(v) < 100 else f"{v:+.0f}"
    word, _, plies = verdict.split()
    return {"win": "W", "loss": "L"}[word] + plies


def eval_text(score, verdict=None):
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
    line from ``lines`` (``{move: steps}``, :func:`_by_root`) when there
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


def _shown_moves(line, exact="proven"):
    """The moves of a tree's line worth showing: its first, then the steps up
    to the first with fewer than ``PV_MIN_VISITS`` visits and nothing exact
    (``st[exact]``: MCTS's proofs, a tree learner's game-ending moves)."""
    rest = itertools.takewhile(lambda st: st["visits"] >= PV_MIN_VISITS or st[exact],
                               line[1:])
    return [line[0]["move"]] + [st["move"] for st in rest]


def _depth_first(game, board, heuristic, depth, exact_engine, time_budget, update, stop):
    """(rows, best, evaluation, text, stats) of a depth-first search at
    ``depth`` (one more ply per iteration with a time budget, an update after
    each)."""
    from ttt_engine import search as S
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
            score, verdict = search_score(game.key, v)
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
        result = (rows, top.move, top.score, eval_text(top.score, top.verdict), stats)
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


def _tree_rows(game, board, children, read):
    """The rows of a tree learner's root moves, each with its line (``read``:
    the learner's own choice at every node, read without changing the tree),
    shown like an MCTS line, a move that ends the game counting as proven
    (its q is exact)."""
    lines = {line[0]["move"]: line for line in read(None, PV_PLIES) if line} \
        if callable(read) else {}
    rows = []
    for m, q, visits in children:
        score = max(-1.0, min(1.0, -float(q)))       # q: lower is better for the mover
        line = lines.get(int(m))
        pv = _texts(game, board, _shown_moves(line, "terminal")) if line else ()
        rows.append(MoveRow(int(m), game.move_to_str(board, m), score, float(q), int(visits),
                            pv=pv, label=_count_label(int(visits))))
    rows.sort(key=lambda r: (-(r.visits or 0), -r.score))
    return rows


#: Seconds between the live updates of a time-budgeted tree search.
SLICE = 0.25
#: Seconds per step of such a search: ``stop()`` is asked after each one.
STEP = 0.05


def _sliced(game, board, budget, slicer, lines, on_update, stop, make):
    """A tree search with a time budget in steps on one tree (kept between
    steps), an update every ``SLICE`` seconds, stopping within a step when
    ``stop()`` says so; every update carries the lines of the tree so far."""
    restart, search, read = slicer
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
        rows = _mcts_rows(game, board, stats, _by_root(lines))
        top = next(r for r in rows if r.move == best)
        res = make("mcts", rows, best, top.score, eval_text(top.score, top.verdict), stats,
                   done=done)
        if on_update is not None:
            on_update(res)
        if done:
            return res
