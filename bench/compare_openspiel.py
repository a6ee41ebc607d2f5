#!/usr/bin/env python
"""Side-by-side performance of ttt_engine and OpenSpiel, in one process run.

    pip install ".[compare]"            # ttt_engine + open_spiel from PyPI
    python bench/compare_openspiel.py   # about 2 minutes; --quick about 20 s
    python bench/compare_openspiel.py --rounds 9 --json compare.json

Every row runs the same work on both engines, alternating which goes first,
for ``--rounds`` rounds, and reports the median of each side and the median
of the per-round ratios (ttt_engine / OpenSpiel for rates; OpenSpiel time /
ttt_engine time for searches).  Rows:

- Tic-Tac-Toe tabular Q-learning episodes/s: OpenSpiel's ``tabular_qlearner``
  driven through ``rl_environment`` (the loop of OpenSpiel's own
  ``tic_tac_toe_qlearner`` example) vs ``ttt_engine.train``; alpha 0.1,
  gamma 0.9, constant epsilon 0.7 on both; vs a uniformly random X, and in
  self-play.
- MCTS simulations/s, one random rollout per simulation, from the initial
  position, the same number of simulations on both sides: OpenSpiel's C++
  ``MCTSBot`` (UCT, c = sqrt(2), ``RandomRolloutEvaluator(1)``, solve off) vs
  ``ttt_engine.MCTS`` (same c, no tree reuse, ``expand_after=1``: OpenSpiel's
  expansion rule); Tic-Tac-Toe and Ultimate Tic-Tac-Toe.
- Random playouts (complete games) per second: OpenSpiel's C++
  ``RandomRolloutEvaluator`` rollouts (run inside ``MCTSBot`` with one
  simulation, i.e. n rollouts from the root) vs ``ttt_engine._core.playout``.
- Alpha-beta: Tic-Tac-Toe solved from the empty board, and Clobber 6x5 from
  the start position at fixed depths: OpenSpiel's Python
  ``minimax.alpha_beta_search`` vs ttt_engine's alpha-beta, nodes and time:
  "plain" (``search.minimax(..., alphabeta=True)``, the same algorithm) and
  "TT + ordering" (``search.alphabeta``, the engine's default search).

Each side is timed by wall clock and by its thread's CPU time (both engines
run single-threaded in this thread); the table gives both, since the machine
may be shared.  An untimed rules check ends the run: both engines' random
games give the same mean result and length.  Details and fairness notes:
docs/performance.md.

OpenSpiel's Ultimate Tic-Tac-Toe spends two actions on a free move (choose
the board, then the cell); every figure here counts marks / games /
simulations, never actions.

Rows whose ttt_engine side is not available in this build are shown with the
OpenSpiel figure and a note.  Exit status: 0 done (possibly with skipped
rows); 1 a row failed with an error (message printed, run continues);
2 bad command line; 3 OpenSpiel (``open_spiel``) is not installed;
4 ttt_engine cannot be imported (not built / not installed).
"""
from __future__ import annotations

import argparse
import datetime
import importlib
import inspect
import json
import math
import os
import platform
import random
import statistics
import subprocess
import sys
import time

EXIT_ROW_ERROR = 1
EXIT_NO_OPENSPIEL = 3
EXIT_NO_TTT_ENGINE = 4


class Unavailable(Exception):
    """The ttt_engine side of a row is not in this build (yet)."""


# ---------------------------------------------------------------------------- timing
def _now():
    """(wall clock, CPU time of this thread).  Both engines run single-threaded
    in the calling thread (OpenSpiel's C++ and ttt_engine's nogil loops alike),
    so the thread's CPU time is the work done, whatever else the machine runs."""
    return time.perf_counter(), time.thread_time()


def _since(t0):
    """(wall seconds, CPU seconds) since ``t0 = _now()``."""
    wall, cpu = _now()
    return wall - t0[0], cpu - t0[1]


def timed(fn, min_time):
    """Call ``fn()`` until at least ``min_time`` seconds have passed (at least
    once); return (calls, seconds, last result)."""
    calls = 0
    t0 = time.perf_counter()
    while True:
        result = fn()
        calls += 1
        elapsed = time.perf_counter() - t0
        if elapsed >= min_time:
            return calls, elapsed, result


# ---------------------------------------------------------------------------- machine
def machine_info():
    cpu = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.lower().startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        cpu = platform.processor() or cpu
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        usable = os.cpu_count()
    try:
        load = os.getloadavg()
    except OSError:  # pragma: no cover
        load = None
    return {
        "date_utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "cpu": cpu,
        "cores": os.cpu_count(),
        "usable_cores": usable,
        "load_avg": load,
        "python": platform.python_version(),
        "platform": platform.platform(),
    }


def _git_commit():
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        out = subprocess.run(["git", "-C", here, "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True, timeout=5)
        return out.stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


# ---------------------------------------------------------------------------- OpenSpiel side
class OpenSpiel:
    """The OpenSpiel work of every row (imports done once, here)."""

    def __init__(self):
        import numpy as np
        import pyspiel
        from open_spiel.python import rl_environment, rl_tools
        from open_spiel.python.algorithms import minimax, random_agent, tabular_qlearner
        self.np = np
        self.pyspiel = pyspiel
        self.rl_environment = rl_environment
        self.rl_tools = rl_tools
        self.minimax = minimax
        self.random_agent = random_agent
        self.tabular_qlearner = tabular_qlearner
        self.games = {
            "ttt": pyspiel.load_game("tic_tac_toe"),
            "uttt": pyspiel.load_game("ultimate_tic_tac_toe"),
            "clobber": pyspiel.load_game("clobber", {"rows": 6, "columns": 5}),
        }

    # -- Q-learning
    def qlearning(self, episodes, self_play, seed):
        """Episodes of tabular Q-learning on Tic-Tac-Toe (QLearner plays O vs a
        random X, or one QLearner per side in self-play)."""
        self.np.random.seed(seed)  # QLearner and RandomAgent draw from numpy's global RNG
        env = self.rl_environment.Environment("tic_tac_toe")
        na = env.action_spec()["num_actions"]

        def learner(pid):
            return self.tabular_qlearner.QLearner(
                player_id=pid, num_actions=na, step_size=0.1,
                epsilon_schedule=self.rl_tools.ConstantSchedule(0.7), discount_factor=0.9)

        agents = ([learner(0), learner(1)] if self_play
                  else [self.random_agent.RandomAgent(player_id=0, num_actions=na), learner(1)])
        t0 = _now()
        for _ in range(episodes):
            ts = env.reset()
            while not ts.last():
                pid = ts.observations["current_player"]
                ts = env.step([agents[pid].step(ts).action])
            for a in agents:
                a.step(ts)
        dt, cpu = _since(t0)
        return {"units": episodes, "seconds": dt, "cpu": cpu}

    # -- MCTS
    def mcts(self, game, simulations, seed):
        g = self.games[game]
        bot = self.pyspiel.MCTSBot(g, self.pyspiel.RandomRolloutEvaluator(1, seed), math.sqrt(2),
                                   simulations, 4000, False, seed, False)
        state = g.new_initial_state()
        t0 = _now()
        root = bot.mcts_search(state)
        dt, cpu = _since(t0)
        if root.explore_count != simulations:
            raise RuntimeError(f"OpenSpiel MCTS stopped after {root.explore_count} of "
                               f"{simulations} simulations (memory limit?)")
        return {"units": simulations, "seconds": dt, "cpu": cpu}

    # -- random playouts
    def playouts(self, game, games, seed):
        """``games`` C++ random rollouts from the initial state: one MCTS
        simulation whose evaluator performs ``games`` rollouts of the root."""
        g = self.games[game]
        bot = self.pyspiel.MCTSBot(g, self.pyspiel.RandomRolloutEvaluator(games, seed),
                                   math.sqrt(2), 1, 100, False, seed, False)
        state = g.new_initial_state()
        t0 = _now()
        root = bot.mcts_search(state)
        dt, cpu = _since(t0)
        assert root.explore_count == 1
        return {"units": games, "seconds": dt, "cpu": cpu}

    def playout_sample(self, game, games, marks_games, seed):
        """Untimed rules check: the first player's mean result (+1 win, 0 draw,
        -1 loss) over ``games`` C++ rollouts (the MCTS root's value after one
        simulation of ``games`` rollouts), and marks per game over
        ``marks_games`` random games played from Python."""
        g = self.games[game]
        bot = self.pyspiel.MCTSBot(g, self.pyspiel.RandomRolloutEvaluator(games, seed),
                                   math.sqrt(2), 1, 100, False, seed, False)
        root = bot.mcts_search(g.new_initial_state())
        mean = root.total_reward / root.explore_count
        rng = random.Random(seed)
        marks = 0
        for _ in range(marks_games):
            s = g.new_initial_state()
            while not s.is_terminal():
                s.apply_action(rng.choice(s.legal_actions()))
            if game == "uttt":  # a free move is two actions: count the marks on the board
                board = str(s).split("Current player")[0]
                marks += board.count("x") + board.count("o")
            else:
                marks += len(s.history())
        return {"games": games, "mean_first": mean, "marks_games": marks_games,
                "marks_per_game": marks / marks_games}

    # -- alpha-beta
    def alphabeta(self, game, depth, count_nodes=False):
        g = self.games[game]
        vf = None
        if game == "clobber":
            vf = clobber_value_function
        mm = self.minimax
        original = mm._alpha_beta
        counter = [0]
        if count_nodes:
            def counting(*args, **kwargs):  # every position the search enters
                counter[0] += 1
                return original(*args, **kwargs)
            mm._alpha_beta = counting
        try:
            t0 = _now()
            value, move = mm.alpha_beta_search(g, value_function=vf, maximum_depth=depth)
            dt, cpu = _since(t0)
        finally:
            mm._alpha_beta = original
        return {"units": 1, "seconds": dt, "cpu": cpu, "value": value, "move": move,
                "nodes": counter[0] if count_nodes else None}


def clobber_value_function(state):
    """OpenSpiel side of the Clobber horizon evaluation (see CLOBBER_HEURISTIC):
    the number of legal moves (equal for both players in Clobber, since a
    capture is possible exactly between orthogonally adjacent opposite
    stones), scaled below the terminal +-1, from the maximizing player's
    (the root mover's) point of view."""
    return len(state.legal_actions()) / 1000.0


# ---------------------------------------------------------------------------- ttt_engine side
def _require(module, attr=None, why=""):
    try:
        mod = importlib.import_module(module)
    except ImportError:
        raise Unavailable(f"{module} not in this build{why}") from None
    if attr is not None and not hasattr(mod, attr):
        raise Unavailable(f"{module}.{attr} not in this build{why}")
    return getattr(mod, attr) if attr else mod


class Engine:
    """The ttt_engine work of every row.  Each method raises ``Unavailable``
    when the part it needs has not landed in this build."""

    def __init__(self):
        import ttt_engine
        self.tte = ttt_engine

    def board(self, game):
        if game == "ttt":
            return self.tte.Board()
        board_class = _require(f"ttt_engine.{game}", "Board", f" (issue {ISSUE_OF[game]})")
        if game == "clobber":
            return board_class(rows=6, cols=5)
        return board_class()

    # -- Q-learning
    def qlearning(self, episodes, self_play, seed):
        train = getattr(self.tte, "train", None)
        if train is None:
            raise Unavailable("ttt_engine.train not in this build (issue 2)")
        try:
            params = inspect.signature(train).parameters
        except (TypeError, ValueError):
            params = {}
        # OpenSpiel's QLearner: constant step size 0.1, discount 0.9, constant epsilon 0.7
        kwargs = dict(episodes=episodes, alpha=0.1, gamma=0.9, epsilon=0.7, epsilon_decay=1.0,
                      epsilon_min=0.01, seed=seed, progress=False)
        if "alpha_decay" in params:
            kwargs["alpha_decay"] = 1.0
        if "metrics_every" in params:   # no evaluation during training (OpenSpiel does none)
            kwargs["metrics_every"] = 0
        if self_play:
            if "mode" not in params:
                raise Unavailable("ttt_engine.train(mode='self-play') not in this build (issue 4)")
            kwargs["mode"] = "self-play"
        else:
            kwargs["side"] = "O"
            if "mode" in params:
                kwargs["mode"] = "random"
        t0 = _now()
        try:
            train(**kwargs)
        except TypeError as e:
            if self_play and "mode" in str(e):
                raise Unavailable("ttt_engine.train(mode='self-play') not in this build (issue 4)")
            raise
        except ValueError as e:
            if self_play and "mode" in str(e):
                raise Unavailable(f"self-play training not in this build (issue 4): {e}")
            raise
        dt, cpu = _since(t0)
        return {"units": episodes, "seconds": dt, "cpu": cpu}

    # -- MCTS
    def mcts(self, game, simulations, seed):
        """``simulations`` UCT simulations (c = sqrt(2), one random playout
        each) from the initial position into a fresh tree (no reuse); the tree
        arena is allocated before the clock starts, as OpenSpiel's bot is."""
        board = self.board(game)
        search = _require("ttt_engine.search", "MCTS", " (issue 3)")
        # An arena large enough never to fill (a full arena stops expansion,
        # which would make simulations cheaper than OpenSpiel's): every
        # simulation expands at most one node, i.e. adds at most 9 (TTT) or 81
        # (UTTT) children.
        max_nodes = min((10 if game == "ttt" else 82) * simulations + 1024, (1 << 31) - 1)
        kwargs = {}
        try:
            if "expand_after" in inspect.signature(search).parameters:
                # OpenSpiel's MCTSBot expands a node when it is reached with one
                # visit already (the first visit only rolls out from it): same rule
                kwargs["expand_after"] = 1
        except (TypeError, ValueError):
            pass
        mcts = search(c=math.sqrt(2), max_nodes=max_nodes, seed=seed, reuse=False, **kwargs)
        try:
            t0 = _now()
            mcts.search(board, simulations=simulations)
            dt, cpu = _since(t0)
        except ValueError as e:
            if "unsupported board" in str(e):
                raise Unavailable(f"{game} is not on the search core in this build: {e}") from None
            raise
        done = mcts.stats["simulations"]
        if done != simulations:
            raise RuntimeError(f"ttt_engine MCTS ran {done} of {simulations} simulations")
        if mcts.stats["nodes_used"] + 512 > max_nodes:
            raise RuntimeError(f"ttt_engine MCTS arena filled up ({mcts.stats['nodes_used']:,} "
                               f"of {max_nodes:,} nodes)")
        return {"units": simulations, "seconds": dt, "cpu": cpu, "nodes_used": mcts.stats["nodes_used"]}

    # -- random playouts
    def playouts(self, game, games, seed):
        random_playouts = _require("ttt_engine._core.playout", "random_playouts")
        board = self.board(game)
        t0 = _now()
        try:
            r = random_playouts(board, games, seed=seed)
        except TypeError as e:
            raise Unavailable(f"{game} is not on the game interface in this build: {e}") from None
        dt, cpu = _since(t0)
        return {"units": games, "seconds": dt, "cpu": cpu, "result": r}

    def playout_sample(self, game, games, marks_games, seed):
        """Untimed rules check: the first player's mean result over ``games``
        Cython playouts, and marks per game over ``marks_games`` random games
        played on the Python Board."""
        r = self.playouts(game, games, seed)["result"]
        rng = random.Random(seed)
        marks = 0
        for _ in range(marks_games):
            b = self.board(game)
            n = 0
            while not b.is_terminal():
                b.push(rng.choice(list(b.legal_moves)))
                n += 1
            marks += n
        return {"games": games, "mean_first": (r["first_wins"] - r["second_wins"]) / games,
                "marks_games": marks_games, "marks_per_game": marks / marks_games}

    # -- alpha-beta
    def alphabeta(self, game, depth, variant, count_nodes=False):
        """variant "plain": min/max alpha-beta without table or move ordering,
        the algorithm OpenSpiel's ``alpha_beta_search`` runs; "full": negamax
        alpha-beta with transposition table and move ordering (the engine's
        default).  ``depth`` None = to the end of the game."""
        board = self.board(game)
        search = _require("ttt_engine.search", None, " (issue 3)")
        heuristic = 0
        if game == "clobber":
            heuristic_id = _require("ttt_engine.clobber", "heuristic_id", " (issue 6)")
            heuristic = heuristic_id(CLOBBER_HEURISTIC, perspective="B")
        try:
            t0 = _now()
            if variant == "plain":
                r = search.minimax(board, depth, heuristic=heuristic, alphabeta=True)
            else:
                r = search.alphabeta(board, depth, heuristic=heuristic)
            dt, cpu = _since(t0)
        except ValueError as e:
            if "unsupported board" in str(e):
                raise Unavailable(f"{game} is not on the search core in this build: {e}") from None
            raise
        return {"units": 1, "seconds": dt, "cpu": cpu, "value": r.value, "move": r.best_move,
                "nodes": r.nodes, "engine_seconds": r.time}


ISSUE_OF = {"ttt": 2, "uttt": 5, "clobber": 6, "quixo": 7}
# The ttt_engine Clobber heuristic matching clobber_value_function: B's own
# move count (= the opponent's: captures are symmetric), from B's (the root
# mover's) point of view.
CLOBBER_HEURISTIC = "own_moves"


# ---------------------------------------------------------------------------- rows
class Row:
    """One comparison: the same work on both sides, ``kind`` 'rate' (units/s,
    higher is better) or 'search' (seconds per search, with nodes)."""

    def __init__(self, key, title, unit, kind, os_call, tte_call, note=""):
        self.key, self.title, self.unit, self.kind = key, title, unit, kind
        self.os_call, self.tte_call, self.note = os_call, tte_call, note


def build_rows(sizes):
    s = sizes
    rows = [
        Row("q_random", "TTT tabular Q-learning vs random", "episodes", "rate",
            lambda o, seed: o.qlearning(s["q_os"], False, seed),
            lambda e, seed: e.qlearning(s["q_tte"], False, seed),
            f"{s['q_os']:,} vs {s['q_tte']:,} episodes per call"),
        Row("q_self", "TTT tabular Q-learning self-play", "episodes", "rate",
            lambda o, seed: o.qlearning(s["q_os"], True, seed),
            lambda e, seed: e.qlearning(s["q_tte"], True, seed),
            f"{s['q_os']:,} vs {s['q_tte']:,} episodes per call"),
        Row("mcts_ttt", "TTT MCTS, 1 rollout/simulation", "simulations", "rate",
            lambda o, seed: o.mcts("ttt", s["mcts_ttt"], seed),
            lambda e, seed: e.mcts("ttt", s["mcts_ttt"], seed),
            f"{s['mcts_ttt']:,} simulations from the empty board, both sides"),
        Row("mcts_uttt", "UTTT MCTS, 1 rollout/simulation", "simulations", "rate",
            lambda o, seed: o.mcts("uttt", s["mcts_uttt"], seed),
            lambda e, seed: e.mcts("uttt", s["mcts_uttt"], seed),
            f"{s['mcts_uttt']:,} simulations from the empty board, both sides"),
    ]
    for game, title in (("ttt", "TTT"), ("uttt", "UTTT"), ("clobber", "Clobber 6x5")):
        rows.append(Row(
            f"playouts_{game}", f"{title} random playouts", "games", "rate",
            lambda o, seed, g=game: o.playouts(g, s[f"po_os_{g}"], seed),
            lambda e, seed, g=game: e.playouts(g, s[f"po_tte_{g}"], seed),
            f"{s[f'po_os_{game}']:,} vs {s[f'po_tte_{game}']:,} games per call"))
    ab_cases = [("ttt", None, "TTT alpha-beta, full solve", "empty board to the end (draw)")]
    ab_cases += [("clobber", d, f"Clobber 6x5 alpha-beta, depth {d}",
                  "start position; horizon value = number of legal moves")
                 for d in s["clobber_depths"]]
    for game, depth, title, note in ab_cases:
        for variant, label in (("plain", "plain"), ("full", "TT + ordering")):
            key = f"ab_{game}" + (f"_d{depth}" if depth else "") + f"_{variant}"
            rows.append(Row(
                key, f"{title} — ttt_engine {label}", "search", "search",
                lambda o, seed, g=game, d=depth, **kw: o.alphabeta(g, 30 if d is None else d, **kw),
                lambda e, seed, g=game, d=depth, v=variant: e.alphabeta(g, d, v),
                note))
    return rows


SIZES = {
    "full": dict(q_os=2_000, q_tte=2_000_000, mcts_ttt=50_000, mcts_uttt=10_000,
                 po_os_ttt=50_000, po_tte_ttt=2_000_000, po_os_uttt=5_000, po_tte_uttt=200_000,
                 po_os_clobber=5_000, po_tte_clobber=200_000, clobber_depths=(3, 4, 5),
                 min_time=0.2, rounds=5),
    "quick": dict(q_os=500, q_tte=500_000, mcts_ttt=20_000, mcts_uttt=3_000,
                  po_os_ttt=10_000, po_tte_ttt=500_000, po_os_uttt=1_000, po_tte_uttt=50_000,
                  po_os_clobber=1_000, po_tte_clobber=50_000, clobber_depths=(2, 3, 4),
                  min_time=0.05, rounds=3),
}


# ---------------------------------------------------------------------------- running
def measure(call, side, min_time, seed):
    """Run ``call(side, seed)`` repeatedly for at least ``min_time`` seconds;
    return per-call units, seconds and the last call's extra fields."""
    records = []

    def once():
        r = call(side, seed + len(records))
        records.append(r)
        return r

    # Time each call separately (the call times itself, excluding set-up such
    # as building a board or a bot), and keep going until min_time of work.
    total = 0.0
    while True:
        r = once()
        total += r["seconds"]
        if total >= min_time:
            break
    units = sum(x["units"] for x in records)
    cpu = sum(x["cpu"] for x in records)
    last = dict(records[-1])
    last.pop("result", None)
    return {"units": units, "seconds": total, "cpu_seconds": cpu, "calls": len(records),
            "rate": units / total, "cpu_rate": units / cpu if cpu > 0 else None,
            "cpu_share": cpu / total if total > 0 else None, "last": last}


def run_row(row, osp, eng, rounds, min_time, log):
    out = {"key": row.key, "title": row.title, "unit": row.unit, "kind": row.kind,
           "note": row.note, "openspiel": [], "ttt_engine": [], "skipped": None, "error": None}
    # warm-up (imports, tables, first allocation): untimed
    try:
        row.os_call(osp, 0)
    except Exception as e:  # noqa: BLE001 - report, do not crash the whole table
        out["error"] = f"OpenSpiel side failed: {type(e).__name__}: {e}"
        return out
    tte_ok = True
    try:
        row.tte_call(eng, 0)
    except Unavailable as e:
        out["skipped"] = str(e)
        tte_ok = False
    except Exception as e:  # noqa: BLE001
        out["error"] = f"ttt_engine side failed: {type(e).__name__}: {e}"
        tte_ok = False
    for r in range(rounds):
        order = [("openspiel", row.os_call, osp), ("ttt_engine", row.tte_call, eng)]
        if r % 2:
            order.reverse()
        for name, call, side in order:
            if name == "ttt_engine" and not tte_ok:
                continue
            out[name].append(measure(call, side, min_time, 1000 * (r + 1)))
        log(".")
    if row.kind == "search":
        # node counts in a separate untimed run (OpenSpiel's are counted by a
        # wrapper whose overhead must not be in the timed runs)
        try:
            out["os_nodes"] = row.os_call(osp, 0, count_nodes=True).get("nodes")
        except Exception as e:  # noqa: BLE001
            out["error"] = f"OpenSpiel node count failed: {type(e).__name__}: {e}"
    return out


def _median(xs):
    return statistics.median(xs) if xs else None


def summarize(row):
    s = {}
    for side in ("openspiel", "ttt_engine"):
        ms = row[side]
        if not ms:
            s[side] = None
            continue
        if row["kind"] == "rate":
            s[side] = {"rate": _median([m["rate"] for m in ms]),
                       "min": min(m["rate"] for m in ms), "max": max(m["rate"] for m in ms),
                       "cpu_rate": _median([m["cpu_rate"] for m in ms if m["cpu_rate"]])}
        else:
            per = [m["seconds"] / m["calls"] for m in ms]
            s[side] = {"seconds": _median(per), "min": min(per), "max": max(per),
                       "nodes": (row.get("os_nodes") if side == "openspiel"
                                 else ms[-1]["last"].get("nodes")),
                       "value": ms[-1]["last"].get("value"),
                       "move": ms[-1]["last"].get("move")}
    ratio = cpu_ratio = None
    if s["openspiel"] and s["ttt_engine"]:
        pairs = list(zip(row["openspiel"], row["ttt_engine"]))
        if row["kind"] == "rate":
            ratio = _median([t["rate"] / o["rate"] for o, t in pairs])
        else:
            ratio = _median([(o["seconds"] / o["calls"]) / (t["seconds"] / t["calls"])
                             for o, t in pairs])
        # the same ratio from each side's CPU time (rate = units / CPU seconds)
        cpu_pairs = [(o["units"] / o["cpu_seconds"], t["units"] / t["cpu_seconds"])
                     for o, t in pairs if o["cpu_seconds"] > 0 and t["cpu_seconds"] > 0]
        if cpu_pairs:
            cpu_ratio = _median([t / o for o, t in cpu_pairs])
    s["ratio"] = ratio
    s["cpu_ratio"] = cpu_ratio
    s["cpu_share"] = {side: _median([m["cpu_share"] for m in row[side] if m["cpu_share"]])
                      for side in ("openspiel", "ttt_engine") if row[side]}
    return s


# ---------------------------------------------------------------------------- output
def fmt_rate(x):
    if x is None:
        return "—"
    if x >= 1e6:
        return f"{x / 1e6:,.2f} M"
    if x >= 1e3:
        return f"{x / 1e3:,.1f} k"
    return f"{x:,.0f}"


def fmt_time(t):
    if t is None:
        return "—"
    if t >= 1:
        return f"{t:,.2f} s"
    if t >= 1e-3:
        return f"{t * 1e3:,.1f} ms"
    return f"{t * 1e6:,.0f} µs"


def fmt_ratio(r):
    if r is None:
        return "—"
    return f"{r:,.0f}x" if r >= 100 else f"{r:,.1f}x"


def markdown(results, info, args):
    lines = []
    lines.append(f"Measured {info['date_utc']} on {info['cpu']} ({info['cores']} cores, "
                 f"{info['usable_cores']} usable; load average at start "
                 f"{_fmt_load(info['load_avg_start'])}, at end {_fmt_load(info['load_avg_end'])}), "
                 f"Python {info['python']}, OpenSpiel {info['open_spiel']}, "
                 f"ttt_engine {info['ttt_engine']}"
                 + (f" (git {info['git']})" if info.get("git") else "") + ".")
    lines.append(f"Command: `{info['command']}` — medians of {args.rounds} alternating rounds "
                 "(wall clock); ratio = median of the per-round ratios; the CPU-time columns "
                 "use each side's thread CPU time instead, a check against load from other "
                 "processes.")
    shares = [v for r in results for v in r["summary"].get("cpu_share", {}).values() if v]
    if shares:
        share = _median(shares)
        if share >= 0.95:
            verdict = ("a whole core, so the wall-clock and per-CPU-second rates agree "
                       "and are those of an unloaded core.")
        else:
            verdict = ("less than a whole core, so the wall-clock rates are that much below "
                       "an idle machine's; the per-CPU-second rates much less so (they still "
                       "share caches and memory bandwidth with the other jobs).")
        lines.append(f"During the timed work this process got a median {100 * share:.0f}% "
                     "of one core (thread CPU time / wall time; 100% on an idle machine): "
                     + verdict)
    lines.append("")
    rate_rows = [r for r in results if r["kind"] == "rate"]
    search_rows = [r for r in results if r["kind"] == "search"]
    notes = []
    if rate_rows:
        lines.append("| benchmark | unit | OpenSpiel | ttt_engine | ttt_engine / OpenSpiel "
                     "| OpenSpiel per CPU-second | ttt_engine per CPU-second | same ratio, "
                     "from CPU time |")
        lines.append("|---|---|---:|---:|---:|---:|---:|---:|")
        for r in rate_rows:
            s = r["summary"]

            def cell(side, key):
                x = s[side]
                return fmt_rate(x[key]) + "/s" if x and x.get(key) else "—"
            lines.append(f"| {r['title']} | {r['unit']} | {cell('openspiel', 'rate')} "
                         f"| {cell('ttt_engine', 'rate')} | {fmt_ratio(s['ratio'])} "
                         f"| {cell('openspiel', 'cpu_rate')} | {cell('ttt_engine', 'cpu_rate')} "
                         f"| {fmt_ratio(s['cpu_ratio'])} |")
            notes.extend(_row_notes(r))
        lines.append("")
    if search_rows:
        lines.append("| alpha-beta | OpenSpiel nodes | OpenSpiel time | OpenSpiel nodes/s "
                     "| ttt_engine nodes | ttt_engine time | ttt_engine nodes/s | time ratio "
                     "| same, from CPU time |")
        lines.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
        for r in search_rows:
            s = r["summary"]
            cells = []
            for side in ("openspiel", "ttt_engine"):
                x = s[side]
                if not x:
                    cells += ["—", "—", "—"]
                    continue
                nodes = x.get("nodes")
                cells += [f"{nodes:,}" if nodes is not None else "?", fmt_time(x["seconds"]),
                          fmt_rate(nodes / x["seconds"]) + "/s" if nodes else "—"]
            lines.append(f"| {r['title']} | " + " | ".join(cells) + f" | {fmt_ratio(s['ratio'])} "
                         f"| {fmt_ratio(s['cpu_ratio'])} |")
            notes.extend(_row_notes(r))
        lines.append("")
        lines.append(_values_note(search_rows))
        lines.append("")
    if notes:
        lines.extend(notes)
        lines.append("")
    return "\n".join(lines)


def _values_note(search_rows):
    """Do both engines find the same minimax value?  (OpenSpiel's Clobber
    values are legal-move counts / 1000; TTT values are 0 for a draw on both.)"""
    agree, differ = [], []
    for r in search_rows:
        o, t = r["summary"]["openspiel"], r["summary"]["ttt_engine"]
        if not (o and t) or o.get("value") is None or t.get("value") is None:
            continue
        scale = 1000.0 if "clobber" in r["key"] else 1.0
        ov, tv = o["value"] * scale, t["value"]
        (agree if abs(ov - tv) < 1e-6 else differ).append((r["title"], ov, tv))
    if not (agree or differ):
        return ""
    if not differ:
        vals = sorted({f"{v:g}" for _, v, _ in agree})
        return (f"Search values: both engines return the same minimax value on every row "
                f"({len(agree)} row{'s' if len(agree) != 1 else ''}; values {', '.join(vals)}, Clobber in legal moves).")
    return "Search values DIFFER: " + "; ".join(
        f"{t}: OpenSpiel {ov:g}, ttt_engine {tv:g}" for t, ov, tv in differ) + "."


def _fmt_load(load):
    return "n/a" if load is None else " / ".join(f"{x:.2f}" for x in load)


def _row_notes(r):
    out = []
    if r.get("skipped"):
        out.append(f"- {r['title']}: ttt_engine side skipped — {r['skipped']}.")
    if r.get("error"):
        out.append(f"- {r['title']}: ERROR — {r['error']}.")
    return out


def sanity_section(osp, eng, quick):
    """Untimed: both engines play the same game (same expected result of random
    play, same number of marks per game)."""
    n, n_marks = (100_000, 300) if quick else (400_000, 1000)
    lines = ["Rules check (untimed): the first player's mean result in uniformly random play "
             "(+1 win, 0 draw, -1 loss; standard error about "
             f"{1 / math.sqrt(n):.4f}) and marks per game",
             "", "| game | OpenSpiel | ttt_engine |", "|---|---|---|"]
    data = {}
    for game, title in (("ttt", "TTT"), ("uttt", "UTTT"), ("clobber", "Clobber 6x5")):
        o = osp.playout_sample(game, n, n_marks, 5)
        try:
            t = eng.playout_sample(game, n, n_marks, 5)
        except Unavailable as e:
            t = None
            tt = f"— ({e})"
        except Exception as e:  # noqa: BLE001
            t = None
            tt = f"error: {type(e).__name__}: {e}"
        else:
            tt = _fmt_sample(t)
        data[game] = {"openspiel": o, "ttt_engine": t}
        lines.append(f"| {title} | {_fmt_sample(o)} | {tt} |")
    lines.append("")
    lines.append(f"(Mean result over {n:,} random games per engine: OpenSpiel's C++ rollouts, "
                 f"ttt_engine's Cython playouts; marks per game over {n_marks:,} games played "
                 "move by move from Python; OpenSpiel UTTT marks counted on the final board, "
                 "since a free move there takes two actions.)")
    return "\n".join(lines), data


def _fmt_sample(s):
    return f"mean {s['mean_first']:+.4f}, {s['marks_per_game']:.1f} marks/game"


# ---------------------------------------------------------------------------- main
def parse_args(argv):
    ap = argparse.ArgumentParser(
        description="Compare ttt_engine with OpenSpiel on the same work, in one run.",
        epilog="Exit status: 0 done (rows whose ttt_engine side is missing are reported as "
               "skipped); 1 a row failed; 2 bad arguments; 3 OpenSpiel not installed "
               "(pip install '.[compare]'); 4 ttt_engine not importable.")
    ap.add_argument("--rounds", type=int, default=None,
                    help="alternating rounds per row (default 5; 3 with --quick)")
    ap.add_argument("--quick", action="store_true", help="smaller work sizes (about 20 s)")
    ap.add_argument("--min-time", type=float, default=None,
                    help="seconds of work per side per round (default 0.2; 0.05 with --quick)")
    ap.add_argument("--only", nargs="+", metavar="KEY",
                    help="run only these rows (see --list)")
    ap.add_argument("--list", action="store_true", help="list the row keys and exit")
    ap.add_argument("--no-sanity", action="store_true", help="skip the untimed rules check")
    ap.add_argument("--json", metavar="PATH", help="also write all measurements as JSON")
    args = ap.parse_args(argv)
    sizes = dict(SIZES["quick" if args.quick else "full"])
    if args.rounds is None:
        args.rounds = sizes["rounds"]
    if args.min_time is None:
        args.min_time = sizes["min_time"]
    if args.rounds < 1:
        ap.error("--rounds must be >= 1")
    if not (args.min_time >= 0):
        ap.error("--min-time must be >= 0")
    return ap, args, sizes


def main(argv=None):
    ap, args, sizes = parse_args(sys.argv[1:] if argv is None else argv)
    rows = build_rows(sizes)
    if args.list:
        for r in rows:
            print(f"{r.key:18s} {r.title}")
        return 0
    if args.only:
        unknown = sorted(set(args.only) - {r.key for r in rows})
        if unknown:
            ap.error(f"unknown row(s): {', '.join(unknown)}; see --list")
        rows = [r for r in rows if r.key in args.only]

    try:
        import pyspiel  # noqa: F401
        from importlib.metadata import version
        os_version = version("open_spiel")
    except ImportError:
        print("compare_openspiel: OpenSpiel is not installed; install it with "
              "`pip install '.[compare]'` (or `pip install open_spiel`). Nothing measured.",
              file=sys.stderr)
        return EXIT_NO_OPENSPIEL
    except Exception:  # noqa: BLE001 - metadata missing but module importable
        os_version = "unknown version"
    try:
        import ttt_engine
    except ImportError as e:
        print(f"compare_openspiel: cannot import ttt_engine ({e}); build it with "
              "`python setup.py build_ext --inplace` and run with PYTHONPATH=python, "
              "or `pip install .`. Nothing measured.", file=sys.stderr)
        return EXIT_NO_TTT_ENGINE

    info = machine_info()
    info["load_avg_start"] = info.pop("load_avg")
    info["open_spiel"] = os_version
    info["ttt_engine"] = getattr(ttt_engine, "__version__", "?")
    info["git"] = _git_commit()
    info["command"] = "python bench/compare_openspiel.py " + " ".join(
        sys.argv[1:] if argv is None else argv)
    info["command"] = info["command"].strip()

    osp = OpenSpiel()
    eng = Engine()

    def log(msg):
        print(msg, end="", file=sys.stderr, flush=True)

    results = []
    t_start = time.perf_counter()
    for row in rows:
        log(f"{row.key:18s} ")
        res = run_row(row, osp, eng, args.rounds, args.min_time, log)
        res["summary"] = summarize(res)
        results.append(res)
        tail = " skipped (ttt_engine side)" if res["skipped"] else ""
        tail += " ERROR" if res["error"] else ""
        log(f"{tail}\n")
    info["load_avg_end"] = os.getloadavg() if hasattr(os, "getloadavg") else None
    info["wall_seconds"] = round(time.perf_counter() - t_start, 1)

    text = markdown(results, info, args)
    sanity_text, sanity = ("", None)
    if not args.no_sanity:
        sanity_text, sanity = sanity_section(osp, eng, args.quick)
    print(text)
    if sanity_text:
        print(sanity_text)
    if args.json:
        payload = {"machine": info, "args": vars(args), "sizes": {k: list(v) if isinstance(v, tuple) else v for k, v in sizes.items()},
                   "rows": results, "rules_check": sanity}
        try:
            from ttt_engine._util import atomic_write
            atomic_write(args.json, lambda f: f.write(json.dumps(payload, indent=1, default=str).encode()))
        except OSError as e:
            print(f"compare_openspiel: cannot write {args.json}: {e}", file=sys.stderr)
            return EXIT_ROW_ERROR
    errors = [r for r in results if r["error"]]
    for r in errors:
        print(f"compare_openspiel: {r['key']}: {r['error']}", file=sys.stderr)
    return EXIT_ROW_ERROR if errors else 0


if __name__ == "__main__":
    sys.exit(main())
